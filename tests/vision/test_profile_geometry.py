from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from scoring.core import StateError
from scoring.registry import GAMES
from vision.geometry import (
    BoardFrame,
    apply_homography,
    as_points,
    cell_at_mm,
    cell_center_mm,
    cell_rect_mm,
    homography_from_points,
)
from vision.profile import default_profile, dump_profile, parse_profile


@pytest.mark.parametrize("game", sorted(GAMES))
def test_default_profiles_load_and_round_trip(game: str) -> None:
    profile = default_profile(game)
    assert profile.game == game
    assert parse_profile(dump_profile(profile)) == profile
    # Every cell of every region must be found again from its own centre.
    for region in profile.regions:
        for r, c in region.cells():
            assert cell_at_mm(region, *cell_center_mm(region, r, c)) == (r, c)


def test_alice_profile_matches_the_rules_default() -> None:
    profile = default_profile("alices-garden")
    grid = profile.region("grid")
    assert (grid.rows, grid.cols) == (6, 8)
    assert profile.setup["chess_columns"] == [4, 5]
    with pytest.raises(KeyError, match="has no region 'terrace'"):
        profile.region("terrace")


def test_unknown_game_has_no_profile() -> None:
    with pytest.raises(StateError, match="no default board profile"):
        default_profile("chess")


def _profile() -> dict[str, Any]:
    return dump_profile(default_profile("alices-garden"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.update(version=2), "profile version 2 is not supported"),
        (lambda p: p.update(size_mm=[100, 0]), r"size_mm\[1\]: 0 is below"),
        (lambda p: p.update(size_mm=[100, float("nan")]), "expected a finite number"),
        (lambda p: p.update(size_mm=[100, "x"]), "expected a number"),
        (lambda p: p.update(size_mm=[100, 100]), "extends past the 100.0x100.0 mm board"),
        (lambda p: p["regions"][0].update(rows=0), r"regions\[0\].rows: 0 is below"),
        (lambda p: p["regions"][0].update(mask=["1" * 8] * 5 + ["1" * 7 + "2"]), r"mask\[5\]: expected 8"),
        (lambda p: p["regions"].append(p["regions"][0]), "two regions share a name"),
        (lambda p: p.update(colour="red"), "unknown field"),
    ],
)
def test_bad_profiles_name_the_field(change: Any, message: str) -> None:
    data = copy.deepcopy(_profile())
    change(data)
    with pytest.raises(StateError, match=message):
        parse_profile(data)


def test_masked_cells_do_not_exist() -> None:
    data = _profile()
    data["regions"][0]["mask"] = ["0" + "1" * 7] + ["1" * 8] * 5
    grid = parse_profile(data).region("grid")
    assert len(grid.cells()) == 47
    assert cell_at_mm(grid, *cell_center_mm(grid, 0, 0)) is None
    assert cell_at_mm(grid, 0.0, 0.0) is None


def test_cell_rects_and_pixel_boxes() -> None:
    profile = default_profile("alices-garden")
    grid = profile.region("grid")
    assert cell_rect_mm(grid, 1, 2) == (75.0, 50.0, 100.0, 75.0)
    frame = BoardFrame(profile, 4.0)
    assert frame.size_wh == (1000, 1000)
    assert frame.cell_box_px(grid, 1, 2) == (300, 200, 400, 300)
    assert frame.cell_box_px(grid, 0, 0, context_mm=100) == (0, 0, 600, 600)
    np.testing.assert_allclose(frame.px_to_mm(frame.mm_to_px([[12.5, 40.0]])), [[12.5, 40.0]])
    np.testing.assert_allclose(apply_homography(frame.mm_to_px_matrix(), [3.0, 4.0]), [[12.0, 16.0]])
    with pytest.raises(IndexError):
        cell_rect_mm(grid, 6, 0)


def test_homography_fit_recovers_a_known_map() -> None:
    truth = np.array([[1.2, 0.1, 30.0], [-0.05, 0.9, 12.0], [1e-4, 2e-4, 1.0]])
    src = np.array([[0, 0], [100, 0], [100, 80], [0, 80], [50, 40], [20, 70]], float)
    fitted = homography_from_points(src, apply_homography(truth, src))
    np.testing.assert_allclose(fitted, truth / truth[2, 2], atol=1e-9)
    with pytest.raises(ValueError, match="need 4 or more"):
        homography_from_points(src[:3], src[:3])
    with pytest.raises(ValueError, match="pairs of coordinates"):
        as_points([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="maps to infinity"):
        apply_homography(np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0]], float), [[0.0, 5.0]])
