"""Turned cell crops: where the camera stands over the board; crops turned so a piece's top lies above."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from vision.camera_model import camera_centre
from vision.geometry import BoardFrame, cell_rect_mm
from vision.profile import default_profile
from vision.read.cells import cut_along_lean, cut_cells, margin_mm
from vision.read.rectify import Rectified, rectify

PROFILE = default_profile("sanssouci")


def test_where_the_camera_stands_is_recovered_from_a_boards_homography() -> None:
    k = np.array([[1500.0, 0, 1152], [0, 1500, 648], [0, 0, 1]])
    rotation, _ = cv2.Rodrigues(np.array([0.5, -0.3, 0.2]))
    for centre, scale in (((120.0, -80.0, -600.0), 3.7), ((50.0, 400.0, 700.0), -2.0)):
        t = -rotation @ np.array(centre)
        homography = scale * k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
        assert np.allclose(camera_centre(homography, k), (centre[0], centre[1], abs(centre[2])))


def _halves(foot_mm: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """A board whose every pixel left of cell (2, 4)'s centre is red, right of it blue; that cell's crop as
    cut upright and turned for a camera standing at ``foot_mm``."""
    frame = BoardFrame(PROFILE, 2.0)
    w, h = frame.size_wh
    x0, _, x1, _ = cell_rect_mm(PROFILE.region("grid"), 2, 4)
    image = np.zeros((h, w, 3), np.uint8)
    image[:, : round(x0 + x1)] = (0, 0, 255)
    image[:, round(x0 + x1) :] = (255, 0, 0)
    rect = Rectified(image, frame, np.eye(3), np.array(foot_mm))
    k = [("grid", 2, 4)]
    upright = cut_cells(rect, ("grid",), 14.0, 64)
    turned = cut_cells(rect, ("grid",), 14.0, 64, lean_up=True)
    return upright.crops_bgr[upright.keys.index(k[0])], turned.crops_bgr[turned.keys.index(k[0])]


def test_a_crop_is_turned_so_that_away_from_the_camera_is_up() -> None:
    # The camera stands far to the right: away from it is left, the red half, which the turn puts on top.
    upright, turned = _halves((5000.0, 100.0))
    assert upright[:, :8, 2].mean() > 250 and upright[:, -8:, 0].mean() > 250
    assert turned[:8, :, 2].mean() > 250 and turned[-8:, :, 0].mean() > 250


def test_a_camera_straight_below_the_board_leaves_crops_as_they_were() -> None:
    photo = render_photo(RenderSpec(("sanssouci",), 5, options=PhotoOptions()), 0)
    board = photo.truth["boards"][0]
    rect = rectify(photo.decode(), PROFILE, np.array(board["board_to_image"]), photo.camera())
    assert rect.foot_mm is not None
    below = Rectified(rect.image_bgr, rect.frame, rect.board_to_ideal, np.array([150.0, 1e7]))
    upright = cut_cells(rect, ("terrace", "grid"), 14.0, 64).crops_bgr.astype(int)
    turned = cut_cells(below, ("terrace", "grid"), 14.0, 64, lean_up=True).crops_bgr.astype(int)
    # The same pixels, but for the sampling (bilinear after area averaging, not area averaging alone).
    assert np.abs(upright - turned).mean() < 5


def _board_on_a_table(size_wh: tuple[int, int]) -> np.ndarray:
    """A photo 3 pixels a board millimetre, straight from above: a white board with the top-left corner
    at (60, 45) pixels on a green table."""
    w, h = size_wh
    image = np.full((h * 3 + 90, w * 3 + 120, 3), (0, 160, 0), np.uint8)
    image[45 : 45 + h * 3, 60 : 60 + w * 3] = 255
    return image


def _straight_from_above() -> np.ndarray:
    return np.array([[3.0, 0.0, 60.0], [0.0, 3.0, 45.0], [0.0, 0.0, 1.0]])


def test_a_margin_rectifies_what_lies_round_the_board_and_leaves_the_board_as_it_was() -> None:
    photo = _board_on_a_table(tuple(round(v) for v in PROFILE.size_mm))  # type: ignore[arg-type]
    plain = rectify(photo, PROFILE, _straight_from_above())
    wide = rectify(photo, PROFILE, _straight_from_above(), margin_mm=10.0)
    assert plain.surround_bgr is None and wide.surround_bgr is not None and wide.margin_px == 24
    np.testing.assert_array_equal(wide.image_bgr, plain.image_bgr)
    h, w = plain.image_bgr.shape[:2]
    assert wide.surround_bgr.shape[:2] == (h + 48, w + 48)
    # Round the board: the table (green), not the board's edge (white) repeated.
    ring = wide.padded(20)
    assert ring[5, w // 2].tolist() == [0, 160, 0] and ring[h // 2, w + 35].tolist() == [0, 160, 0]
    # Beyond the margin the outermost rectified pixels are repeated; without one, the board's edge.
    assert wide.padded(30)[0, 0].tolist() == [0, 160, 0]
    assert plain.padded(5)[0, w // 2].tolist() == [255, 255, 255]


def test_through_a_lens_too_a_margin_leaves_the_boards_own_pixels_as_they_were() -> None:
    photo = render_photo(RenderSpec(("sanssouci",), 5, options=PhotoOptions()), 0)
    homography = np.array(photo.truth["boards"][0]["board_to_image"])
    plain = rectify(photo.decode(), PROFILE, homography, photo.camera())
    margin = margin_mm(PROFILE, 14.0, True)
    wide = rectify(photo.decode(), PROFILE, homography, photo.camera(), margin_mm=margin)
    np.testing.assert_array_equal(wide.image_bgr, plain.image_bgr)


def test_a_turned_crop_of_an_edge_cell_shows_the_table_beyond_the_board() -> None:
    # A marker on the Scoreboard's last space leaning off the board must be seen whole: a crop turned
    # towards the board's corner reaches past its edge, where the margin shows the table (green).
    profile = default_profile("four-gardens")
    photo = _board_on_a_table(tuple(round(v) for v in profile.size_mm))  # type: ignore[arg-type]
    margin = margin_mm(profile, 10.0, lean_up=True)
    assert margin > 10.0 and margin_mm(profile, 10.0, lean_up=False) == 0.0
    tables = []
    for m in (0.0, margin):
        rect = rectify(photo, profile, _straight_from_above(), margin_mm=m)
        # The camera far off the bottom-left corner: away from it is the board's top-right.
        turned = replace(rect, foot_mm=np.array([-1e7, 1e7]))
        cells = cut_cells(turned, ("track:red",), 10.0, 64, lean_up=True)
        crop = cells.crops_bgr[cells.keys.index(("track:red", 0, 11))].astype(int)
        tables.append(float(((crop[..., 1] - crop[..., 0]) > 100).mean()))
    assert tables[0] == 0.0 and tables[1] > 0.02


def test_a_crop_moved_along_the_lean_holds_the_top_of_a_piece_standing_on_its_cell() -> None:
    """A camera 600 mm up, far to the west: a 30 mm piece on cell (2, 4) is seen leaning east by its
    distance times 30 / 570. A dot drawn where a share of that lean ends lies in the middle of the crop moved
    that share along it."""
    frame = BoardFrame(PROFILE, 2.0)
    w, h = frame.size_wh
    x0, y0, x1, y1 = cell_rect_mm(PROFILE.region("grid"), 2, 4)
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    foot = np.array([-400.0, centre[1]])
    lean = (centre - foot) * 30.0 / 570.0
    key = ("grid", 2, 4)
    for along in (0.5, 0.8, 1.0):
        image = np.zeros((h, w, 3), np.uint8)
        dot = np.rint((centre + lean * along) * 2.0).astype(int)
        cv2.circle(image, (int(dot[0]), int(dot[1])), 3, (255, 255, 255), -1)
        rect = Rectified(image, frame, np.eye(3), foot, camera_height_mm=600.0)
        moved = cut_along_lean(rect, (key,), 14.0, 64, 30.0, along)
        assert moved.keys == (key,)
        ys, xs = np.nonzero(moved.crops_bgr[0, ..., 0] > 100)
        assert abs(xs.mean() - 31.5) < 1.5 and abs(ys.mean() - 31.5) < 1.5, along
    # A camera right above the cell sees no lean beyond the context; one whose place is not known, or that
    # stands too low to see a top from above, gives none to follow.
    above = replace(rect, foot_mm=centre + np.array([5.0, 0.0]))
    for none in (above, replace(rect, camera_height_mm=None), replace(rect, camera_height_mm=50.0)):
        assert cut_along_lean(none, (key,), 14.0, 64, 30.0, 0.8).keys == ()


def test_the_slant_is_how_far_off_straight_above_the_camera_saw_the_boards_centre() -> None:
    frame = BoardFrame(PROFILE, 1.0)
    w, h = PROFILE.size_mm
    image = np.zeros((frame.size_wh[1], frame.size_wh[0], 3), np.uint8)

    def slant(foot: tuple[float, float] | None, height: float | None) -> float | None:
        foot_mm = None if foot is None else np.array(foot)
        return Rectified(image, frame, np.eye(3), foot_mm, camera_height_mm=height).slant_deg()

    assert slant((w / 2, h / 2), 600.0) == pytest.approx(0.0)
    assert slant((w / 2 + 300.0, h / 2 + 400.0), 500.0) == pytest.approx(45.0)
    assert slant(None, None) is None
