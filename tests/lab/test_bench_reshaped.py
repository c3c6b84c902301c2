"""``bench --reshaped SEED``: a copy of a game's board no model learnt, drawn and read with its profile."""

from __future__ import annotations

import numpy as np
import pytest

from lab.bench import reshaped_profile, run_bench
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from vision.locate.rectangle import aspect
from vision.profile import default_profile


@pytest.mark.parametrize("game", ["alices-garden", "sanssouci", "zen-garden", "four-gardens"])
def test_a_reshaped_board_is_another_size_with_its_grids_elsewhere(game: str) -> None:
    base, copy = default_profile(game), reshaped_profile(game, 3)
    assert copy == reshaped_profile(game, 3)  # one seed, one copy
    assert copy.size_mm != base.size_mm
    assert [r.name for r in copy.regions] == [r.name for r in base.regions]
    assert all(r.origin_mm != b.origin_mm for r, b in zip(copy.regions, base.regions, strict=True))
    # Every cell on the board: the profile's own checks passed.
    for region in copy.regions:
        x, y = region.origin_mm
        assert x >= 0 and x + region.cols * region.pitch_mm[0] <= copy.size_mm[0] + 1e-6
        assert y >= 0 and y + region.rows * region.pitch_mm[1] <= copy.size_mm[1] + 1e-6


def test_the_copy_is_drawn_and_read_with_its_own_profile() -> None:
    copy = reshaped_profile("alices-garden", 3)
    spec = RenderSpec(("alices-garden",), 4, options=PhotoOptions((1600, 900), 20.0), reshaped=copy)
    photo = render_photo(spec, 0)
    camera = photo.camera()
    corners = camera.undistort_px(np.array(photo.truth["boards"][0]["corners_xy"]))
    # The drawn board, seen through its camera, has the copy's proportions, not the game's square board.
    assert aspect(corners, camera.matrix) == pytest.approx(copy.size_mm[0] / copy.size_mm[1], rel=0.01)
    result = run_bench("alices-garden", 2, 4, reshaped=3, workers=1).table()
    assert result["reshaped"] == 3 and result["boards"] == 2
