"""A calibrated camera's picture of a rectangle: its checks, and its fourth side from three."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry import Points
from vision.locate.rectangle import aspect, complete, skew

MATRIX = np.array([[1500.0, 0.0, 1152.0], [0.0, 1500.0, 648.0], [0.0, 0.0, 1.0]])
WIDTH, HEIGHT = 300.0, 200.0


def _pictured(seed: int) -> Points:
    """A WIDTH x HEIGHT rectangle tilted at random in front of the camera, its corners in pixels."""
    rng = np.random.default_rng(seed)
    rotation = rng.normal(0.0, 0.4, 3)
    translation = np.array([rng.normal(0, 50), rng.normal(0, 50), 600.0])
    corners = np.array([(0, 0, 0), (WIDTH, 0, 0), (WIDTH, HEIGHT, 0), (0, HEIGHT, 0)], float)
    corners -= (WIDTH / 2, HEIGHT / 2, 0)
    image, _ = cv2.projectPoints(corners, rotation, translation, MATRIX, None)
    return np.asarray(image, np.float64).reshape(4, 2)


def _side_slid(quad: Points, side: int, first: float, second: float) -> Points:
    """``quad`` with side ``side`` moved along the sides next to it (those stay where they are)."""
    moved = quad.copy()
    i, k = side, (side + 1) % 4
    moved[i] = quad[i] + first * (quad[i - 1] - quad[i])
    moved[k] = quad[k] + second * (quad[(k + 1) % 4] - quad[k])
    return moved


@pytest.mark.parametrize("seed", range(4))
def test_a_pictured_rectangle_has_its_shape_and_square_corners(seed: int) -> None:
    quad = _pictured(seed)
    assert aspect(quad, MATRIX) == pytest.approx(WIDTH / HEIGHT, rel=1e-6)
    assert skew(quad, MATRIX) < 1e-6
    # Slanting one side makes it no rectangle, though every side is still a straight edge.
    assert skew(_side_slid(quad, 1, 0.02, 0.08), MATRIX) > 0.005


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("side", range(4))
def test_three_sides_and_the_shape_give_the_fourth(seed: int, side: int) -> None:
    quad = _pictured(seed)
    ratio = WIDTH / HEIGHT if side % 2 == 0 else HEIGHT / WIDTH
    wrong = _side_slid(quad, side, 0.05, 0.09)  # on a printed line inside the board, and slanted
    done = complete(wrong, side, MATRIX, ratio)
    assert done is not None
    np.testing.assert_allclose(done, quad, atol=1e-6)
    # The three sides it kept are the wrong quad's own.
    for kept in (side + 1, side + 2, side + 3):
        a, b = kept % 4, (kept + 1) % 4
        (ux, uy), (vx, vy) = done[b] - done[a], wrong[b] - wrong[a]
        assert ux * vy - uy * vx == pytest.approx(0.0, abs=1e-6)


def test_sides_that_picture_no_rectangle_give_none() -> None:
    # The side across from the one to place has shrunk to a point (a triangle, not a board's outline).
    quad = _pictured(0)
    quad[3] = quad[2]
    assert complete(quad, 0, MATRIX, WIDTH / HEIGHT) is None
