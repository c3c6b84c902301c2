"""``bench --steady``: each cell counted once, by the confidence the page marks unsure."""

from __future__ import annotations

from lab.bench_steady import CHANGES, format_steady, run_steady
from vision.profile import default_profile


def test_each_cell_of_a_drawn_board_is_counted_once_under_each_unseen_change() -> None:
    said: list[str] = []
    result = run_steady(("zen-garden",), 1, 20261121, said.append)
    profile = default_profile("zen-garden")
    cells = sum(len(r.cells()) for r in profile.regions)
    assert said == ["zen-garden: 1 photos"]
    assert set(result["zen-garden"]) == set(CHANGES)
    for tally in result["zen-garden"].values():
        # A coin track's space counts once, by its marker head (the tile heads were never taught there).
        assert tally["cells"] == cells
        assert tally["boards"] == 1
        assert 0.9 <= tally["steady_share"] <= 1.0
    assert "| zen-garden | grey | " in format_steady(result)
