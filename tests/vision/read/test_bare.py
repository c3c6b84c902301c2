"""Squares at a kingdom's edge that look like the table beside them: a square left empty on a cloth of a
terrain's colour is said to the player, never scored silently as that terrain."""

from __future__ import annotations

import cv2
import numpy as np

from device.photo import score_image
from lab.synth.render import RenderSpec, render_photo
from vision.profile import default_profile
from vision.read.bare import like_the_table
from vision.read.rectify import board_homography, rectify

CLOTH = (150, 90, 40)  # a blue tablecloth, BGR


def _kingdom(photo_px: int, origin: int) -> tuple[np.ndarray, np.ndarray]:
    """5 x 5 squares of 80 pixels in colours of their own, lightly grained, at ``origin`` on a blue cloth;
    the top-left square left empty (the cloth shows). Returns the photo and the kingdom's corners."""
    rng = np.random.default_rng(0)
    photo = np.full((photo_px, photo_px, 3), CLOTH, np.uint8)
    for r in range(5):
        for c in range(5):
            if (r, c) == (0, 0):
                continue
            colour = (40 + 30 * r, 170 - 20 * c, 60 + 25 * c)
            x, y = origin + 80 * c, origin + 80 * r
            photo[y : y + 80, x : x + 80] = colour
    grain = rng.normal(0, 3, photo.shape)
    photo = np.clip(photo + grain, 0, 255).astype(np.uint8)
    side = origin + 400
    return photo, np.array([(origin, origin), (side, origin), (side, side), (origin, side)], np.float64)


def _edge_keys() -> list[tuple[str, int, int]]:
    return [("grid", r, c) for r in range(5) for c in range(5) if r in (0, 4) or c in (0, 4)]


def test_an_empty_square_at_the_edge_looks_like_the_cloth_beside_it_and_no_tile_does() -> None:
    profile = default_profile("kingdomino")
    photo, corners = _kingdom(600, 100)
    rect = rectify(photo, profile, board_homography(profile, corners), None)
    assert like_the_table(photo, rect, None, profile.region("grid"), _edge_keys()) == [("grid", 0, 0)]


def test_a_kingdom_filling_its_photo_shows_no_table_to_compare_with() -> None:
    profile = default_profile("kingdomino")
    photo, corners = _kingdom(400, 0)
    rect = rectify(photo, profile, board_homography(profile, corners), None)
    assert like_the_table(photo, rect, None, profile.region("grid"), _edge_keys()) == []


def test_a_drawn_kingdom_on_a_blue_cloth_with_its_corner_empty_is_flagged_there() -> None:
    drawn = render_photo(RenderSpec(("kingdomino",), 20261127), 0)
    photo = np.asarray(cv2.imdecode(np.frombuffer(drawn.jpeg, np.uint8), cv2.IMREAD_COLOR), np.uint8)
    corners = np.array(drawn.truth["boards"][0]["corners_xy"], np.float64)
    on_cloth = photo.copy()
    outside = np.zeros(photo.shape[:2], np.uint8)
    cv2.fillConvexPoly(outside, corners.astype(np.int32), 255)
    on_cloth[outside == 0] = CLOTH
    # The first corner's square taken away: the cloth shows through it.
    tl, tr, br, bl = corners

    def at(u: float, v: float) -> np.ndarray:
        return np.asarray((1 - v) * ((1 - u) * tl + u * tr) + v * ((1 - u) * bl + u * br))

    square = np.array([at(0, 0), at(0.2, 0), at(0.2, 0.2), at(0, 0.2)])
    cv2.fillConvexPoly(on_cloth, square.astype(np.int32), CLOTH)
    (board,) = score_image(on_cloth, "kingdomino", corners_xy=corners)
    assert board.state["cells"][0][0] != "empty"  # read as a lake, as a model would
    (flag,) = [f for f in board.flags if "like the table" in f]
    assert "1 square at the edge (row 1, column 1)" in flag and "set it to empty" in flag
    (whole,) = score_image(photo, "kingdomino", corners_xy=corners)
    assert not any("like the table" in f for f in whole.flags)
