from __future__ import annotations

import numpy as np

from vision.debug import GOOD, TURN_PX_PER_MM, draw_turn
from vision.geometry import cell_rect_mm
from vision.profile import default_profile


def test_a_turns_grid_shows_on_a_board_of_its_own_green() -> None:
    # A board printed in the outline's own green, seen square on: each cell's outline is drawn over a dark
    # band, so the owner sees the grid on any art.
    profile = default_profile("alices-garden")
    w, h = profile.size_mm
    scale = 2.0
    photo = np.zeros((round(h * scale), round(w * scale), 3), np.uint8)
    photo[:] = GOOD
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) * scale
    turn = draw_turn(photo, corners, profile, None)
    region = profile.regions[0]
    x0, y0, _, y1 = (round(v * TURN_PX_PER_MM) for v in cell_rect_mm(region, 1, 1))
    middle = (y0 + y1) // 2
    across = turn[middle, x0 - 3 : x0 + 4].astype(int)
    assert (np.abs(across - GOOD).sum(axis=1) < 30).any()  # the line itself
    assert (across.sum(axis=1) < 60).any()  # the dark band beside it
