from __future__ import annotations

import pytest

from scoring.core import InvalidState, Problem, ScoreBreakdown, ScoreLine, TableScore, rank_players
from scoring.grid import cell_name, components4


def breakdown(name: str, points: int, tiebreak: tuple[int, ...] = ()) -> ScoreBreakdown:
    return ScoreBreakdown("g", (ScoreLine("x", "", points),), name, tiebreak)


def test_ranks_share_ties_and_use_tie_breaks() -> None:
    players = [
        breakdown("a", 10, (1,)),
        breakdown("b", 12, (0,)),
        breakdown("c", 10, (2,)),
        breakdown("d", 10, (1,)),
    ]
    assert rank_players(players) == (3, 1, 2, 3)


def test_table_score_checks_rank_count() -> None:
    with pytest.raises(ValueError, match="ranks has 1 entries for 2 players"):
        TableScore("g", (breakdown("a", 1), breakdown("b", 2)), (1,))


def test_invalid_state_lists_problems() -> None:
    exc = InvalidState([Problem("c", "rows[1]", "bad"), Problem("d", "", "worse")])
    assert str(exc) == "rows[1]: bad; worse"
    assert len(exc.problems) == 2


def test_components_on_an_empty_grid() -> None:
    assert components4([], lambda _: True) == []
    assert cell_name((0, 7)) == "row 1, column 8"
