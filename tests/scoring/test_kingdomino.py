from __future__ import annotations

import json
from typing import Any

import pytest

from scoring import kingdomino as rules
from scoring.core import InvalidState, StateError
from scoring.registry import get_game, read_state
from tests.support import SHARED, load_example

AAU = SHARED / "data" / "kingdomino-aau"

# Letters for small kingdoms: terrain initial, then crowns; C the castle, . no square.
TERRAIN = {"F": "field", "W": "forest", "L": "lake", "G": "grassland", "S": "swamp", "M": "mine"}


def kingdom(*rows: str, **setup: Any) -> dict[str, Any]:
    """A state from rows like ``"F0 W1 C"``."""
    cells = [
        [
            "castle" if tok == "C" else "empty" if tok == "." else f"{TERRAIN[tok[0]]}:{tok[1:]}"
            for tok in row.split()
        ]
        for row in rows
    ]
    return {"game": "kingdomino", "cells": cells, **({"setup": setup} if setup else {})}


def total(state: dict[str, Any]) -> int:
    return rules.score(rules.parse_board(state)).total


def test_a_property_scores_its_squares_times_its_crowns() -> None:
    state = kingdom("W1 W0 W2", "C  L0 W0", "S0 S3 .")
    result = rules.score(rules.parse_board(state))
    # The forest's four squares (one touching only through r2c3) hold three crowns: 4 x 3.
    assert [(line.rule, line.points) for line in result.lines] == [
        ("Forest", 12),
        ("Swamp", 6),
        ("Properties without crowns", 0),
    ]
    assert result.total == 18
    assert result.lines[-1].detail == "1 property scores nothing"  # the lake
    two = rules.score(rules.parse_board(kingdom("W1 C L0", "S0 G0 L0")))
    assert two.lines[-1].detail == "3 properties score nothing"


def test_squares_touching_only_at_a_corner_are_two_properties() -> None:
    assert total(kingdom("W1 L0", "L0 W1", "C  .")) == 1 + 1


def test_the_castle_belongs_to_no_property_and_a_crownless_property_scores_nothing() -> None:
    assert total(kingdom("G0 C G0", "G0 G0 G0")) == 0
    assert total(kingdom("G1 C G1")) == 1 + 1  # the castle parts them


def test_bonus_rules_only_when_announced() -> None:
    full = ["F1 F0 F0 F0 F0", "F0 F0 F0 F0 F0", "F0 F0 C F0 F0"] + ["F0 F0 F0 F0 F0"] * 2
    assert total(kingdom(*full)) == 24
    assert total(kingdom(*full, middle_kingdom=True, harmony=True)) == 24 + 10 + 5
    off_centre = ["F1 F0 F0 F0 F0", "F0 C F0 F0 F0"] + ["F0 F0 F0 F0 F0"] * 3
    gappy = ["F1 F0 F0 F0 .", "F0 F0 F0 F0 .", "F0 F0 C F0 F0"] + ["F0 F0 F0 F0 F0"] * 2
    assert total(kingdom(*off_centre, middle_kingdom=True)) == 24
    assert total(kingdom(*gappy, harmony=True, middle_kingdom=True)) == 22 + 10


def test_ties_go_to_the_largest_property_then_to_the_most_crowns() -> None:
    table = {
        "game": "kingdomino",
        "players": [
            {"name": "Ann", **kingdom("W1 W0 W0 C")},  # 3 points, largest 3
            {"name": "Bo", **kingdom("W3 L0 L0 C")},  # 3 points, largest 2
            {"name": "Cy", **kingdom("W3 W0 L0 C")},  # 6 points
        ],
    }
    rules_, state = read_state(table)
    result = rules_.score(state)
    assert [p.total for p in result.players] == [3, 3, 6]  # type: ignore[union-attr]
    assert result.ranks == (2, 3, 1)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("state", "code"),
    [
        (kingdom("F0 F0", "F0 F0"), "castle-count"),
        (kingdom("C F0", "F0 C"), "castle-count"),
        (kingdom("C F0 F0 F0 F0 F0"), "kingdom-size"),
        (kingdom("C F0", "F0"), "kingdom-size"),
        (kingdom("C F4"), "crowns"),
    ],
)
def test_impossible_kingdoms_are_refused_with_a_reason(state: dict[str, Any], code: str) -> None:
    board = rules.parse_board(state)
    assert code in {p.code for p in rules.check(board)}
    with pytest.raises(InvalidState):
        rules.score(board)


def test_a_mighty_duel_kingdom_is_seven_squares_a_side() -> None:
    wide = kingdom("C F0 F0 F0 F0 F0 F1", size=7)
    assert rules.check(rules.parse_board(wide)) == ()
    assert total(wide) == 6


@pytest.mark.parametrize(
    ("cell", "message"),
    [("forest", "not a square"), ("desert:1", "not a square"), ("lake:x", "not a square"), (3, "string")],
)
def test_a_malformed_cell_names_its_place(cell: object, message: str) -> None:
    with pytest.raises(StateError, match=rf"cells\[0\]\[1\].*{message}"):
        rules.parse_board({"game": "kingdomino", "cells": [["castle", cell]]})


def test_setup_is_checked() -> None:
    with pytest.raises(StateError, match=r"setup\.size"):
        rules.parse_board({**kingdom("C"), "setup": {"size": 6}})
    with pytest.raises(StateError, match="setup: unknown"):
        rules.parse_board({**kingdom("C"), "setup": {"bonus": True}})


def test_the_example_round_trips_and_scores_its_bonuses() -> None:
    rules_, state = read_state(load_example("kingdomino.json"))
    assert rules_ is get_game("kingdomino")
    assert rules_.parse(rules_.dump(state)) == state
    lines = {line.rule: line.points for line in rules_.score(state).lines}  # type: ignore[union-attr]
    assert lines["Middle Kingdom"] == 10 and lines["Harmony"] == 0


def test_every_cell_value_has_a_name_and_parses() -> None:
    assert set(rules.CELL_LABELS) == set(rules.CELL_VALUES)
    for value in rules.CELL_VALUES:
        assert rules.cell_text(rules.parse_cell(value, "cell")) == value


@pytest.mark.skipif(not AAU.is_dir(), reason="shared/data/kingdomino-aau is not here")
def test_the_real_kingdoms_score_as_their_manifest_says() -> None:
    manifest = json.loads((AAU / "manifest.json").read_text())
    assert len(manifest) >= 40
    for name, entry in manifest.items():
        assert total(json.loads((AAU / f"{name}.json").read_text())) == entry["score"], name
