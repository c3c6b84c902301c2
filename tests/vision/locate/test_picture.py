"""A board found again by its profile's remembered picture: a copy of Sanssouci no model learnt (another size,
nearly square, in art no model saw), placed and turned the right way up in photos of other games on it."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from lab.bench import picture_from_render, reshaped_profile
from lab.synth.camera import Photo, PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from vision.geometry import quad_size
from vision.locate.board import overlap
from vision.locate.picture import BoardPicture, _outline, find_picture, likeness
from vision.pipeline import find_boards
from vision.profile import BoardProfile

GAME = "sanssouci"
PACKS = ("linocut",)
OPTIONS = PhotoOptions((1600, 900), 35.0)


@cache
def _copy_and_picture(calibrated: bool) -> tuple[BoardProfile, BoardPicture]:
    copy = reshaped_profile(GAME, 1)
    return copy, picture_from_render(GAME, 5, PACKS, copy, calibrated)


def _photo(index: int) -> Photo:
    copy, _ = _copy_and_picture(True)
    # Other games than the picture's: another seed draws other tiles and other nobles on the same board.
    return render_photo(RenderSpec((GAME,), 77, packs=PACKS, options=OPTIONS, reshaped=copy), index)


def _error(found: np.ndarray, photo: Photo) -> float:
    """The farthest corner from the truth's same corner (TL to TL...), as a share of the board's size."""
    truth = np.array(photo.truth["boards"][0]["corners_xy"])
    return float(np.max(np.linalg.norm(found - truth, axis=1))) / quad_size(truth)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_the_board_is_placed_and_oriented_by_its_picture(index: int) -> None:
    _, picture = _copy_and_picture(True)
    photo = _photo(index)
    quad = find_picture(photo.decode(), picture, photo.camera())
    assert quad is not None and quad.oriented and quad.method == "picture"
    # Its top-left is the picture's top-left, wherever the board is turned on the table.
    assert _error(quad.corners_xy, photo) < 0.01


def test_a_photo_turned_over_still_gives_the_board_its_top_left() -> None:
    _, picture = _copy_and_picture(False)
    photo = _photo(0)
    image = photo.decode()
    h, w = image.shape[:2]
    quad = find_picture(np.ascontiguousarray(image[::-1, ::-1]), picture)
    assert quad is not None
    # Corner for corner: the photo's pixel (x, y) is (w - 1 - x, h - 1 - y) in the turned one.
    turned_back = np.array([w - 1, h - 1]) - quad.corners_xy
    assert _error(turned_back, photo) < 0.05


def test_without_a_calibration_the_board_is_found_near_its_edges() -> None:
    _, picture = _copy_and_picture(False)
    photo = _photo(1)
    quad = find_picture(photo.decode(), picture)
    assert quad is not None and _error(quad.corners_xy, photo) < 0.05


def test_another_boards_picture_finds_nothing() -> None:
    other = reshaped_profile("alices-garden", 1)
    picture = picture_from_render("alices-garden", 5, PACKS, other, True)
    photo = _photo(0)
    assert find_picture(photo.decode(), picture, photo.camera()) is None


def test_a_table_with_no_board_finds_nothing() -> None:
    _, picture = _copy_and_picture(True)
    rng = np.random.default_rng(3)
    table = cv2.GaussianBlur(rng.integers(0, 255, (900, 1600, 3), dtype=np.uint8), (0, 0), 3)
    assert find_picture(table, picture) is None
    assert find_picture(np.zeros((900, 1600, 3), np.uint8), picture) is None


def test_a_plain_picture_cannot_be_learnt() -> None:
    with pytest.raises(ValueError, match="too little detail"):
        BoardPicture.learn(np.full((400, 500, 3), 128, np.uint8), (250.0, 200.0))


def test_the_picture_places_its_features_in_board_mm() -> None:
    copy, picture = _copy_and_picture(True)
    width, height = copy.size_mm
    assert picture.size_mm == pytest.approx((width, height))
    assert picture.points_mm.min() >= 0
    assert picture.points_mm[:, 0].max() <= width and picture.points_mm[:, 1].max() <= height
    assert len(picture.points_mm) == len(picture.descriptors) >= 100


@pytest.mark.parametrize("index", [0, 2])
def test_boards_found_in_a_photo_put_the_pictured_one_first_placed_and_named(index: int) -> None:
    copy, picture = _copy_and_picture(True)
    photo = _photo(index)
    quads = find_boards(photo.decode(), [copy], photo.camera(), pictures={copy.name: picture})
    first = quads[0]
    assert first.picture_of == copy.name and first.oriented
    assert _error(first.corners_xy, photo) < 0.01
    # The same board is not found twice.
    assert not any(overlap(q.ideal_xy, first.ideal_xy) for q in quads[1:])


def test_the_true_outline_is_most_like_the_picture() -> None:
    _, picture = _copy_and_picture(True)
    photo = _photo(1)
    image, camera = photo.decode(), photo.camera()
    truth = camera.undistort_px(np.array(photo.truth["boards"][0]["corners_xy"]))
    right = likeness(image, truth, picture, camera)
    # Turned half way round, or a tenth of the board off to one side, it is less like it.
    turned = likeness(image, np.roll(truth, 2, axis=0), picture, camera)
    shifted = likeness(image, truth + (truth[1] - truth[0]) * 0.1, picture, camera)
    assert right > 0.5 and right > turned + 0.2 and right > shifted + 0.2


def test_a_homography_that_draws_a_sliver_is_no_board() -> None:
    # Matches of one garden's tiles on another garden of the table fitted a homography that drew the board
    # as a sliver across both (corners of 33 and 40 degrees): no board is seen so.
    w, h = 225.0, 262.0
    board = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    sliver = np.array([[2203, 1957], [1822, 1923], [1653, 1807], [1580, 1476]], np.float32)
    assert _outline(cv2.getPerspectiveTransform(board, sliver).astype(np.float64), (w, h)) is None
    # A board seen tilted 35 degrees up, its far side shorter: found where the homography puts it.
    tilted = np.array([[1200, 800], [1900, 820], [2050, 1700], [1050, 1680]], np.float32)
    corners = _outline(cv2.getPerspectiveTransform(board, tilted).astype(np.float64), (w, h))
    assert corners is not None and np.allclose(corners, tilted, atol=1e-3)
