from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import alices_garden as ag
from scoring.core import InvalidState, StateError
from tests.support import load_example


def points(board: ag.AliceBoard) -> dict[str, int]:
    return {line.rule: line.points for line in ag.score(board).lines}


def board(text: str, unplaced: int = 0) -> ag.AliceBoard:
    return ag.from_text(text, unplaced)


RULEBOOK_EXAMPLE = """
T.GCCTMG
GTGCCTMG
GGTCCTGM
GGGCCGTT
RRRCMGGM
RR..MG.R
"""


def test_rulebook_scoring_example_is_97() -> None:
    # Rulebook "Scoring example": 45 + 26 + 24 + 17 - 15 = 97.
    got = points(board(RULEBOOK_EXAMPLE))
    assert got == {
        "Chess pieces": 45,
        "Roses": 26,
        "Mushrooms": 24,
        "Trees": 17,
        "Empty areas": -15,
        "Unplaced bonus tiles": 0,
    }
    assert ag.score(board(RULEBOOK_EXAMPLE)).total == 97


def test_example_file_is_the_rulebook_board() -> None:
    parsed = ag.parse_board(load_example("alices-garden.json"))
    assert parsed == board(RULEBOOK_EXAMPLE)


FULL = ["GGGGGGGG"] * 6


def with_rows(**changes: str) -> ag.AliceBoard:
    rows = list(FULL)
    for key, row in changes.items():
        rows[int(key[1:])] = row
    return ag.AliceBoard(tuple(rows))


@pytest.mark.parametrize(
    ("rows", "rule", "expected"),
    [
        ({"r0": "RRRRRRRG"}, "Roses", 25),  # one area of 7 -> 25
        ({"r0": "RRGRRGRG"}, "Roses", 9),  # areas 2 + 2 + 1 -> 4 + 4 + 1
        ({"r0": "GGMGGGGG", "r5": "GGMGGGGG"}, "Mushrooms", 8),  # rows 1 and 6 of one column
        ({"r0": "GTGGGGTG"}, "Trees", 6),  # trees at columns 2 and 7
        ({"r0": "GTTGGGGG"}, "Trees", 2),  # adjacent trees
        ({"r0": "GGGTGGGG"}, "Trees", 0),  # a single tree
        ({"r0": "TGTGGGGT"}, "Trees", 6),  # neighbours only: max(3, 6), never first-to-last 8
        ({"r0": "GGGCGGGG", "r1": "CGGGCGGG"}, "Chess pieces", 10),  # r1c1 is off the path
    ],
)
def test_single_rules(rows: dict[str, str], rule: str, expected: int) -> None:
    assert points(with_rows(**rows))[rule] == expected


def test_empty_board_is_one_area() -> None:
    got = ag.score(board("\n".join(["........"] * 6)))
    assert got.total == -5


def test_full_board_has_no_empty_penalty_and_unplaced_tiles_cost_five() -> None:
    assert points(with_rows())["Empty areas"] == 0
    assert points(ag.AliceBoard(tuple(FULL), unplaced_bonus_tiles=2))["Unplaced bonus tiles"] == -10


def test_chess_path_is_configurable() -> None:
    b = ag.AliceBoard(tuple(["CGGGGGGG"] * 6), spec=ag.AliceSpec(chess_columns=(0, 1)))
    assert points(b)["Chess pieces"] == 30


def test_check_reports_every_problem() -> None:
    b = ag.AliceBoard(("RRX", "RR"), spec=ag.AliceSpec(rows=3, cols=3, chess_columns=(5,)))
    codes = [(p.code, p.where) for p in ag.check(b)]
    assert ("grid-size", "rows") in codes
    assert ("grid-size", "rows[1]") in codes
    assert ("unknown-label", "rows[0][2]") in codes
    assert ("bad-setup", "setup.chess_columns") in codes
    with pytest.raises(InvalidState, match="unknown cell 'X'"):
        ag.score(b)


def test_negative_unplaced_is_a_problem() -> None:
    problems = ag.check(ag.AliceBoard(tuple(FULL), unplaced_bonus_tiles=-1))
    assert [p.code for p in problems] == ["impossible-count"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"game": "alices-garden"}, "rows: missing field"),
        ({"rows": "RR"}, "rows: expected a list"),
        ({"rows": [1]}, r"rows\[0\]: expected a string"),
        ({"rows": FULL, "unplaced_bonus_tiles": -1}, "unplaced_bonus_tiles: -1 is below"),
        ({"rows": FULL, "unplaced_bonus_tiles": True}, "unplaced_bonus_tiles: expected a whole number"),
        ({"rows": FULL, "bonus": 1}, "unknown field"),
        ({"rows": FULL, "setup": {"chess_columns": [9]}}, r"setup.chess_columns\[0\]: 9 is above"),
        ({"rows": FULL, "setup": []}, "setup: expected an object"),
    ],
)
def test_parse_errors_name_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(StateError, match=message):
        ag.parse_board(data)


cells = st.sampled_from(sorted(ag.LABELS))
boards = st.lists(st.text(cells, min_size=8, max_size=8), min_size=6, max_size=6).map(
    lambda rows: ag.AliceBoard(tuple(rows))
)


@given(boards)
def test_round_trips(b: ag.AliceBoard) -> None:
    assert ag.parse_board(ag.dump_board(b)) == b
    assert ag.from_text(ag.to_text(b)) == b


@given(boards)
def test_invariants(b: ag.AliceBoard) -> None:
    result = ag.score(b)
    got = {line.rule: line.points for line in result.lines}
    assert result.total == sum(got.values())
    rose_cells = sum(row.count("R") for row in b.rows)
    assert 0 <= got["Roses"] <= 25 * rose_cells
    assert got["Chess pieces"] <= 5 * 12
    assert got["Mushrooms"] <= 8 * 8
    assert 0 <= got["Trees"] <= 8 * 6
    has_empty = any("." in row for row in b.rows)
    assert (got["Empty areas"] < 0) == has_empty


@given(boards)
def test_each_rose_area_scores_at_most_25(b: ag.AliceBoard) -> None:
    from scoring.grid import components4

    for area in components4(b.rows, lambda ch: ch == "R"):
        assert ag.rose_area_points(len(area)) <= 25


def test_the_lines_say_in_words_what_scored() -> None:
    rows = "RRT.....\nRM.....T\n.M......\n........\n.....RR.\n........"
    lines = {line.rule: line.detail for line in ag.score(board(rows)).lines}
    # Each group of roses as a player counts them, largest first; empty areas by where they start.
    assert lines["Roses"] == "2 groups of 3 and 2 roses: 9 + 4"
    assert lines["Mushrooms"] == "2 or more in column 2"
    assert lines["Empty areas"] == "1 empty area: at row 1, column 4"
    for rows, said in (
        ("R.......\n" + "........\n" * 5, "1 group of 1 rose: 1"),
        ("R.R.R...\n" + "........\n" * 5, "3 groups of 1, 1 and 1 roses: 1 + 1 + 1"),
        ("T.......\n" + "........\n" * 5, "no roses"),
    ):
        assert {line.rule: line.detail for line in ag.score(board(rows.strip())).lines}["Roses"] == said
