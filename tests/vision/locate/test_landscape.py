from __future__ import annotations

import numpy as np
import pytest

from vision.camera_model import CameraModel
from vision.locate import landscape
from vision.locate.board import Quad

WIDTH, HEIGHT = 30, 40
# A lens with every kind of bend a turn must carry: radial, tangential and rational terms.
CAMERA = CameraModel(
    np.array([[52.0, 0.0, 13.5], [0.0, 47.0, 21.0], [0.0, 0.0, 1.0]]),
    np.array([-0.21, 0.05, 0.004, -0.007, 0.01, 0.002, -0.001, 0.0005]),
    (WIDTH, HEIGHT),
)


def test_a_pixel_turned_lands_where_the_turned_image_puts_it() -> None:
    image = np.arange(HEIGHT * WIDTH * 3, dtype=np.uint32).reshape(HEIGHT, WIDTH, 3).astype(np.uint8)
    turned = landscape.turned(image)
    assert turned.shape == (WIDTH, HEIGHT, 3)
    for x, y in [(0, 0), (29, 0), (3, 39), (17, 22)]:
        u, v = landscape.points_turned(np.array([[x, y]], float), WIDTH)[0]
        assert turned[int(v), int(u)].tolist() == image[y, x].tolist()
    points = np.array([[1.5, 2.25], [28.0, 39.0]])
    assert np.allclose(landscape.points_back(landscape.points_turned(points, WIDTH), WIDTH), points)


def test_the_camera_turned_bends_the_turned_photo_as_the_lens_bent_the_photo() -> None:
    turned = landscape.camera_turned(CAMERA, WIDTH)
    assert turned is not None and turned.size_wh == (HEIGHT, WIDTH)
    rays = np.random.default_rng(1).uniform([-0.3, -0.3, 1.0], [0.3, 0.3, 1.0], (20, 3))
    seen = CAMERA.project(rays)
    # The same rays, seen by the camera turned with the photo: the scene turns as the image does.
    turned_rays = np.column_stack([rays[:, 1], -rays[:, 0], rays[:, 2]])
    assert np.allclose(turned.project(turned_rays), landscape.points_turned(seen, WIDTH), atol=1e-9)
    back = landscape.camera_back(turned, WIDTH)
    assert back is not None and back.size_wh == CAMERA.size_wh
    assert np.allclose(back.matrix, CAMERA.matrix) and np.allclose(back.dist, CAMERA.dist)
    assert landscape.camera_turned(None, WIDTH) is None and landscape.camera_back(None, WIDTH) is None


@pytest.mark.parametrize(
    ("shape", "dist", "turns"),
    [((40, 30, 3), 5, True), ((30, 40, 3), 5, False), ((30, 30, 3), 5, False), ((40, 30, 3), 14, False)],
)
def test_only_an_upright_photo_whose_lens_can_turn_is_turned(
    shape: tuple[int, int, int], dist: int, turns: bool
) -> None:
    camera = CameraModel(CAMERA.matrix, np.zeros(dist), (shape[1], shape[0]))
    assert landscape.upright(np.zeros(shape, np.uint8), camera) is turns


def test_a_board_found_turned_is_placed_in_the_photo_in_its_own_corner_order() -> None:
    corners = np.array([[5.0, 3.0], [25.0, 4.0], [24.0, 30.0], [6.0, 31.0]])
    found = Quad(landscape.points_turned(corners, WIDTH), landscape.points_turned(corners, WIDTH), True, 1.0)
    back = landscape.quad_back(found, WIDTH)
    assert np.allclose(back.corners_xy, corners) and np.allclose(back.ideal_xy, corners)
