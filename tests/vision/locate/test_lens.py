"""A lens' bend read from a board's sides (``vision.locate.lens``), on photos drawn through known lenses."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.camera_model import CameraModel, is_calibrated
from vision.locate.lens import _crookedness, _edge_points, _undone, estimate_lens

W, H = 640, 480
# A board of 360 x 300 pixels as a pinhole camera would see it, a little turned, in a wide lens' photo.
BOARD = np.array([[150.0, 80.0], [510.0, 110.0], [490.0, 410.0], [130.0, 380.0]])


def _lens(k1: float, k2: float = 0.0, focal: float = 0.45 * W) -> CameraModel:
    matrix = np.array([[focal, 0, W / 2], [0, focal, H / 2], [0, 0, 1]])
    return CameraModel(matrix, np.array([k1, k2, 0, 0, 0]), (W, H))


def _photo(camera: CameraModel, frame: bool = False) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """The board (light, on a dark grained table; with ``frame``, a printed line 8 px inside its edge) seen
    through ``camera``, and its corners in the photo."""
    import cv2

    ideal = np.full((H, W), 60, np.uint8)
    cv2.fillPoly(ideal, [BOARD.astype(np.int32)], 200)
    if frame:
        centre = BOARD.mean(axis=0)
        inner = centre + (BOARD - centre) * 0.96
        cv2.polylines(ideal, [inner.astype(np.int32)], True, 90, 2)
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
    where = camera.undistort_px(np.column_stack([xs.ravel(), ys.ravel()])).reshape(H, W, 2)
    photo = cv2.remap(
        ideal, where[..., 0].astype(np.float32), where[..., 1].astype(np.float32), cv2.INTER_LINEAR
    )
    noise = np.random.default_rng(3).normal(0, 3, photo.shape)
    grey = np.clip(photo + noise, 0, 255).astype(np.uint8)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), camera.distort_px(BOARD)


@pytest.mark.parametrize("frame", [False, True])
def test_a_wide_lens_bend_is_read_from_the_boards_sides(frame: bool) -> None:
    truth = _lens(-0.30, 0.05)
    photo, corners = _photo(truth, frame)
    found = estimate_lens(photo, corners)
    assert found is not None and found.estimated and not is_calibrated(found)
    # Through the lens found, the sides' edges are as straight as through the true one, and far straighter
    # than read as they are.
    import cv2

    grey = cv2.GaussianBlur(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), (0, 0), 1.5).astype(np.float32)
    sides = [_edge_points(grey, corners[i], corners[(i + 1) % 4]) for i in range(4)]

    def crooked(camera: CameraModel, bend: NDArray[np.float64]) -> float:
        return float(_crookedness(sides, camera.matrix, bend[None, :])[0])

    ours = crooked(found, found.dist[:2])
    assert ours < 0.3 * crooked(found, np.zeros(2))
    assert ours < 1.5 * crooked(truth, truth.dist[:2]) + 1e-4
    # And the board's corners land where the true lens puts them, within 1 % of its size (the two pinhole
    # views differ by their focal lengths alone: compared as shapes, scaled alike).
    scale = np.linalg.norm(found.undistort_px(corners)[0] - found.undistort_px(corners)[2])
    true_scale = np.linalg.norm(BOARD[0] - BOARD[2])
    ratio = scale / true_scale
    centred = found.undistort_px(corners) - found.matrix[:2, 2]
    expected = (truth.undistort_px(corners) - truth.matrix[:2, 2]) * ratio
    assert np.max(np.linalg.norm(centred - expected, axis=1)) < 0.01 * scale


def test_a_flat_lens_gives_no_camera() -> None:
    photo, corners = _photo(_lens(0.0))
    assert estimate_lens(photo, corners) is None


def test_a_board_too_small_to_tell_gives_no_camera() -> None:
    photo, _ = _photo(_lens(-0.3))
    assert estimate_lens(photo, np.array([[10.0, 10], [60, 10], [60, 60], [10, 60]])) is None


def test_an_outline_run_far_beyond_the_photo_gives_no_camera_not_an_error() -> None:
    # A grid's guessed perspective run away gave a corner 300 000 px off: looking for its sides' edges had
    # OpenCV's remap refuse a strip longer than 32767 px, and `score` stopped with a traceback.
    image, corners = _photo(_lens(-0.3))
    far = corners.copy()
    far[2] = (300_000.0, 240_000.0)
    assert estimate_lens(image, far) is None
    # Within the photo, the same board's bend is still read.
    assert estimate_lens(image, corners) is not None


def test_a_bend_that_turns_back_before_the_boards_corners_is_no_lens_for_them() -> None:
    # k1 -1.5, k2 2.4 (a bend read off a photo cut off its lens' centre): bent, a point's radius grows until
    # about 0.6 of the focal length out and then falls back, so corners beyond it cannot be undone; a wide
    # lens' bend is undone there.
    matrix = _lens(0.0).matrix
    bends = np.array([[-0.30, 0.05], [-1.5, 2.4]])
    near = np.array([[220.0, 160.0], [420.0, 160.0], [420.0, 320.0], [220.0, 320.0]])
    far = np.array([[160.0, 120.0], [480.0, 120.0], [480.0, 360.0], [160.0, 360.0]])
    assert _undone(near, matrix, bends).tolist() == [True, True]
    assert _undone(far, matrix, bends).tolist() == [True, False]
