from __future__ import annotations

from typing import Any

import pytest

from examples import example_states
from scoring.core import ScoreBreakdown, StateError, TableScore
from scoring.registry import GAMES, get_game, read_state
from tests.support import load_example


def test_every_game_is_registered_with_an_example() -> None:
    assert set(GAMES) == {
        "alices-garden",
        "sanssouci",
        "zen-garden",
        "four-gardens",
        "tang-garden",
        "custom-grid",
    }
    assert {p.stem for p in example_states()} >= set(GAMES)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_examples_are_valid_and_round_trip(name: str) -> None:
    rules, state = read_state(load_example(f"{name}.json"))
    assert rules.name == name
    assert rules.check(state) == ()
    assert rules.parse(rules.dump(state)) == state
    result = rules.score(state)
    assert isinstance(result, ScoreBreakdown | TableScore)


def test_board_game_table_scores_each_board_with_the_table_setup() -> None:
    rules = get_game("alices-garden")
    data: dict[str, Any] = {
        "game": "alices-garden",
        "setup": {"rows": 1, "cols": 2, "chess_columns": [1]},
        "players": [
            {"name": "A", "rows": ["CC"]},
            {"rows": ["C."], "setup": {"rows": 1, "cols": 2, "chess_columns": []}},
        ],
    }
    state = rules.parse(data)
    result = rules.score(state)
    assert isinstance(result, TableScore)
    assert [(p.player, p.total) for p in result.players] == [("A", 5), ("Player 2", 0 - 5)]
    assert rules.parse(rules.dump(state)) == state


def test_board_game_table_problems_name_the_player() -> None:
    rules = get_game("alices-garden")
    state = rules.parse({"game": "alices-garden", "players": [{"rows": ["RR"]}]})
    assert [p.where for p in rules.check(state)] == ["players[0].rows", "players[0].rows[0]"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"game": "chess"}, "unknown game 'chess'; known games: alices-garden"),
        ({}, "game: missing field"),
        ([], "state: expected an object"),
        ({"game": "sanssouci", "players": []}, "players: the table has no player"),
        ({"game": "sanssouci", "players": [], "extra": 1}, "unknown field"),
    ],
)
def test_bad_states(data: object, message: str) -> None:
    with pytest.raises(StateError, match=message):
        read_state(data)
