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


@pytest.mark.parametrize(
    ("where", "message", "said"),
    [
        ("noblemen[5]", "ends on a gardener tile in row 4", "nobleman 6: ends on a gardener tile in row 4"),
        (
            "players[1].tiles[3][2]",
            "same floor, path and decor as players[0].tiles[0][1]; each of the 90 is unique",
            "player 2, row 4, column 3: same floor, path and decor as player 1, row 1, column 2; each of "
            "the 90 is unique",
        ),
        ("rows[0]", "row 1 (beige) is fully preprinted", "row 1: row 1 (beige) is fully preprinted"),
        ("tiles[4]", "expected 5 tiles, got 4", "row 5: expected 5 tiles, got 4"),
        (
            "setup.preferences",
            "pick the Emperor's tiles",
            "the set-up, preferences: pick the Emperor's tiles",
        ),
        ("track_score", "cannot be negative", "track score: cannot be negative"),
        ("", "the same mission card twice", "the same mission card twice"),
    ],
)
def test_a_problem_is_said_without_code_words(where: str, message: str, said: str) -> None:
    problem = Problem("c", where, message)
    assert problem.said == said
    # Programs keep the field's path.
    assert str(problem) == (f"{where}: {message}" if where else message)


def test_components_on_an_empty_grid() -> None:
    assert components4([], lambda _: True) == []
    assert cell_name((0, 7)) == "row 1, column 8"
