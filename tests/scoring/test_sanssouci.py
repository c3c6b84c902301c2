from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import sanssouci as ss
from scoring.core import InvalidState, StateError, TableScore
from scoring.registry import get_game
from tests.support import load_example

# Rulebook end-of-game example: grey row, rose-arch and stairway columns complete; the labyrinth nobleman
# stands in row 3 and the pavilion nobleman in row 5.
RULEBOOK = """
#########
S.S.S.S..
SSSSSSSSS
..S.S.S..
..S.G.S..
....S.S..
3 0 5 0 4 0 6 0 0
"""


def bonus(board: ss.SanssouciBoard) -> int:
    return ss.score(board).total - board.track_score


def test_rulebook_end_of_game_example_is_25() -> None:
    b = ss.from_text(RULEBOOK, missions=(1, 3), track_score=38)
    got = [(line.rule, line.points) for line in ss.score(b).lines]
    assert got == [
        ("Score track", 38),
        ("Completed row 3 (grey)", 7),
        ("Completed column 5 (stairway)", 5),
        ("Completed column 7 (rose arch)", 5),
        ("Mission: labyrinth", 3),
        ("Mission: pavilion", 5),
    ]
    assert bonus(b) == 25


def test_example_table_breaks_the_tie_on_gardeners() -> None:
    from scoring.registry import get_game

    rules = get_game("sanssouci")
    result = rules.score(rules.parse(load_example("sanssouci.json")))
    assert isinstance(result, TableScore)
    assert [(p.player, p.total, p.tiebreak) for p in result.players] == [
        ("Ann", 63, (1,)),
        ("Bruno", 63, (2,)),
    ]
    assert result.ranks == (2, 1)


ALL_COVERED = ["#" * 9] + ["S" * 9] * 5


def test_all_rows_and_columns_complete() -> None:
    b = ss.SanssouciBoard(tuple(ALL_COVERED), missions=(1, 2))
    got = ss.score(b)
    rows = sum(line.points for line in got.lines if line.rule.startswith("Completed row"))
    cols = sum(line.points for line in got.lines if line.rule.startswith("Completed column"))
    assert (rows, cols) == (8 + 7 + 6 + 5 + 4, 45)


def test_gardeners_count_as_covered() -> None:
    rows = ["#" * 9, "G" * 9] + ["." * 9] * 4
    b = ss.SanssouciBoard(tuple(rows), missions=(1, 2))
    assert bonus(b) == 8


def test_terrace_mission_is_configurable() -> None:
    rows = tuple(["#" * 9] + ["." * 9] * 5)
    assert bonus(ss.SanssouciBoard(rows, missions=(1, 2))) == 0
    layout = ss.SanssouciLayout(terrace_mission_points=1)
    assert bonus(ss.SanssouciBoard(rows, missions=(1, 2), layout=layout)) == 2


def test_noblemen_in_row_one_score_one() -> None:
    rows = tuple(["#" * 9] + ["." * 9] * 5)
    b = ss.SanssouciBoard(rows, (1, 1) + (0,) * 7, missions=(1, 2))
    assert bonus(b) == 2


@pytest.mark.parametrize(
    ("nobles", "message"),
    [
        ((2,) + (0,) * 8, "stands on an empty square in row 2"),
        ((0, 2) + (0,) * 7, "ends on a gardener tile in row 2"),
        ((0, 0, 5) + (0,) * 6, "row 5 cannot be reached from the terrace over tiles"),
    ],
)
def test_impossible_nobleman_positions(nobles: tuple[int, ...], message: str) -> None:
    rows = ("#" * 9, ".GS......", "..S......", ".........", "..S......", ".........")
    problems = ss.check(ss.SanssouciBoard(rows, nobles, (1, 2)))
    assert [p.message for p in problems] == [message]


def test_layout_mask_is_enforced() -> None:
    layout = ss.SanssouciLayout("side A", preprinted=frozenset({(0, c) for c in range(9)} | {(3, 4)}))
    rows = ["#" * 9, "#........", ".........", ".........", ".........", "........."]
    problems = ss.check(ss.SanssouciBoard(tuple(rows), missions=(1, 2), layout=layout))
    assert sorted(p.where for p in problems) == ["rows[1][0]", "rows[3][4]"]
    assert all(p.code == "layout-mismatch" for p in problems)


def test_check_reports_grid_and_mission_problems() -> None:
    assert [p.code for p in ss.check(ss.SanssouciBoard(("#" * 9,) * 5, missions=(1, 2)))] == ["grid-size"]
    bad_cell = ss.SanssouciBoard(tuple(["#" * 9] + ["X" + "." * 8] + ["." * 9] * 4), missions=(1, 2))
    assert [p.code for p in ss.check(bad_cell)] == ["unknown-label"]
    bad_row1 = ss.SanssouciBoard(tuple(["S" * 9] + ["." * 9] * 5), missions=(1, 1, 10), track_score=-1)
    assert [p.code for p in ss.check(bad_row1)] == [
        "layout-mismatch",
        "impossible-count",
        "impossible-count",
        "unknown-label",
        "impossible-count",
    ]
    with pytest.raises(InvalidState, match="the beige row is printed whole"):
        ss.score(bad_row1)


def test_check_rejects_bad_nobles_and_symbols() -> None:
    rows = tuple(ALL_COVERED)
    assert [p.code for p in ss.check(ss.SanssouciBoard(rows, (0,) * 8, (1, 2)))] == ["grid-size"]
    assert [p.code for p in ss.check(ss.SanssouciBoard(rows, (7,) + (0,) * 8, (1, 2)))] == [
        "impossible-position"
    ]
    same = ss.SanssouciLayout(column_symbols=("x",) * 9)
    assert [p.code for p in ss.check(ss.SanssouciBoard(rows, missions=(1, 2), layout=same))] == ["bad-setup"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "rows: missing field"),
        ({"rows": ALL_COVERED, "noblemen": [0] * 8}, "noblemen: expected 9 entries"),
        ({"rows": ALL_COVERED, "noblemen": [0] * 8 + [7]}, r"noblemen\[8\]: 7 is above"),
        ({"rows": ALL_COVERED, "missions": [0]}, r"missions\[0\]: 0 is below"),
        ({"rows": ALL_COVERED, "track_score": "12"}, "track_score: expected a whole number"),
        ({"rows": ALL_COVERED, "setup": {"preprinted": [[7, 1]]}}, r"setup.preprinted\[0\]: 7 is above"),
        ({"rows": ALL_COVERED, "setup": {"column_symbols": ["a"]}}, "setup.column_symbols: expected 9"),
        ({"rows": ALL_COVERED, "setup": {"order": 1}}, "unknown field"),
    ],
)
def test_parse_errors_name_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(StateError, match=message):
        ss.parse_board(data)


def _board_strategy() -> st.SearchStrategy[ss.SanssouciBoard]:
    row = st.text(st.sampled_from(".SG"), min_size=9, max_size=9)
    return st.builds(
        lambda rows, missions, track: ss.SanssouciBoard(
            ("#" * 9, *rows), missions=missions, track_score=track
        ),
        st.lists(row, min_size=5, max_size=5),
        st.lists(st.integers(1, 9), min_size=2, max_size=2, unique=True).map(tuple),
        st.integers(0, 149),
    )


@given(_board_strategy(), st.integers(1, 5), st.integers(0, 8), st.sampled_from("SG"))
def test_adding_a_tile_never_lowers_the_bonus(b: ss.SanssouciBoard, r: int, c: int, tile: str) -> None:
    if b.rows[r][c] != ".":
        return
    rows = list(b.rows)
    rows[r] = rows[r][:c] + tile + rows[r][c + 1 :]
    assert bonus(ss.SanssouciBoard(tuple(rows), b.noblemen, b.missions, b.track_score)) >= bonus(b)


@given(_board_strategy())
def test_round_trips_and_bounds(b: ss.SanssouciBoard) -> None:
    assert ss.parse_board(ss.dump_board(b)) == b
    assert ss.from_text(ss.to_text(b), b.missions, b.track_score) == b
    assert 0 <= bonus(b) <= 30 + 45 + 0


def test_missing_missions_say_what_to_enter() -> None:
    board = load_example("photos/sanssouci.json")["boards"][0]["state"]
    state = {k: v for k, v in board.items() if k != "missions"}
    rules = get_game("sanssouci")
    problems = [str(p) for p in rules.check(rules.parse(state))]
    assert problems == ["missions: enter your 2 mission cards' columns (none entered)"]
