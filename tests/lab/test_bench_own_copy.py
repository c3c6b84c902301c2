"""``garden-scorer-lab bench --own-copy``: a copy set up, played and taught through the web app's API, as its
owner would, and its learning curve summed up."""

from __future__ import annotations

from device.photo import UNTAUGHT_COPY
from lab.bench_own_copy import CopyRun, format_summary, run_copy, summary


def test_a_copy_is_set_up_played_and_taught_through_the_app_and_summed_up() -> None:
    result = run_copy(CopyRun("alices-garden", 1, fresh=2, played=1))
    assert result["turn"] == {"found": True, "sure": True, "right": True, "wrong": False}
    before, after = result["stages"]
    assert [s["taught"] for s in (before, after)] == [0, 1] and before["boards"] == after["boards"] == 2
    assert before["cells"] == 2 * 48 and 0 <= after["cells_wrong"] <= before["cells_wrong"]
    assert len(before["missed"]) == before["boards"] - before["exact"]
    # Untaught, every board of the copy says so; taught by a game, none does.
    assert before["silent"] == 0 and all(UNTAUGHT_COPY in flags for _, _, flags in before["missed"])
    assert not any(UNTAUGHT_COPY in flags for _, _, flags in after["missed"])
    (game,) = result["played"]
    assert game["taught"] and game["boards"] == 1
    # Two taps a cell set right, one to set the cells that look like it too, then the keep tick and Save:
    # copy 1's first game reads its 7 mushrooms as trees, set right by one and the offer.
    assert game["cells_wrong"] == [7] and game["taps"] == [2 + 1 + 2]

    (row,) = summary([result, {**result, "copy": 2}])
    assert row["copies"] == 2 and row["turn_right"] == 2 and row["turn_asked"] == row["turn_wrong"] == 0
    assert row["curve"][1]["exact_pct"] == 100.0 * after["exact"] / after["boards"]
    assert row["first_game_taps_max"] == game["taps"][0]
    table = format_summary([row]).splitlines()
    assert table[0].split()[0] == "game" and table[1].split()[:2] == ["alices-garden", "2"]
    assert len(table) == 3  # a line per point of the curve
