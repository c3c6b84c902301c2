from __future__ import annotations

import importlib
from typing import Any

import pytest

from examples import example_states
from scoring.core import ScoreBreakdown, StateError, TableScore
from scoring.registry import (
    ENTRIES,
    GAMES,
    Kind,
    MarkerPicker,
    Picker,
    SpacePicker,
    TilePicker,
    get_entry,
    get_game,
    read_state,
)
from scoring.tang_garden import read_tile
from tests.support import load_example


def test_every_game_is_registered_with_an_example() -> None:
    assert set(GAMES) == {
        "alices-garden",
        "sanssouci",
        "zen-garden",
        "four-gardens",
        "tang-garden",
        "kingdomino",
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


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_an_entry_names_its_modules_and_its_example_setup_passes_its_parser(name: str) -> None:
    entry = get_entry(name)
    assert entry.name == name and entry.rules is GAMES[name]
    assert name == importlib.import_module(f"scoring.{entry.module}").GAME
    example = load_example(f"{name}.json")
    if "setup" in example:
        entry.parse_setup(example["setup"])
    # Hand-entry fields are fields of one photographed board's state (a player's, in a table of boards).
    dumped = entry.rules.dump(entry.rules.parse(example))
    one = dumped if entry.kind is Kind.SHARED_BOARD or "players" not in dumped else dumped["players"][0]
    assert set(entry.hand_fields) <= set(one)


def test_kinds_say_what_a_photo_of_a_board_is() -> None:
    kinds = {name: entry.kind for name, entry in ENTRIES.items()}
    assert kinds["zen-garden"] is Kind.TABLE
    assert {n for n, k in kinds.items() if k is Kind.SHARED_BOARD} == {"four-gardens", "tang-garden"}


def test_a_bad_setup_is_refused_by_the_games_parser_naming_the_field() -> None:
    with pytest.raises(StateError, match="setup"):
        get_entry("alices-garden").parse_setup({"chess_columns": "two"})
    with pytest.raises(StateError, match="unknown game 'chess'"):
        get_entry("chess")


def test_a_custom_grids_picker_takes_its_labels_from_the_state() -> None:
    picker = get_entry("custom-grid").picker
    assert isinstance(picker, Picker) and picker.labels is None
    state = {"setup": {"labels": ["empty", "pond"]}}
    assert picker.for_state(state) == Picker("grid", "cells", {"empty": "empty", "pond": "pond"})
    assert picker.for_state({"setup": {"labels": "pond"}}) is None
    assert picker.for_state({}) is None
    fixed = get_entry("alices-garden").picker
    assert fixed is not None and fixed.for_state({}) is fixed


def test_a_shared_boards_track_spaces_are_picked_by_whose_markers_stand_there() -> None:
    picker = get_entry("four-gardens").picker
    assert picker == MarkerPicker("track:", "positions")
    assert picker.for_state({}) is picker
    assert picker.to_json() == {"kind": "markers", "prefix": "track:", "field": "positions"}


def test_a_tang_garden_space_is_picked_as_its_tile_decoration_and_character() -> None:
    picker = get_entry("tang-garden").picker
    assert isinstance(picker, SpacePicker)
    drawn = picker.to_json()
    assert drawn["kind"] == "spaces" and drawn["field"] == "tiles" and drawn["empty"] == "..."
    # Every terrain token a player may pick is a tile the rules read, and "no tile" is the rules' empty space.
    assert all(read_tile(token) is not None for token in drawn["tiles"]) and read_tile("...") is None
    assert drawn["tiles"]["g-r"] == "greenery and rock" and drawn["edges"]["x"] == "wall"
    assert "bird" in drawn["decorations"] and "poet" in drawn["characters"]
    # A tree names its species, as the table's set-up lists them.
    assert picker.for_state({}) is picker
    own = picker.for_state({"setup": {"tree_species": ["oak", "ash"]}})
    assert own.to_json()["species"] == ["oak", "ash"]


def test_a_zen_tile_is_picked_part_by_part() -> None:
    picker = get_entry("zen-garden").picker
    assert isinstance(picker, TilePicker) and picker.for_state({}) is picker
    drawn = picker.to_json()
    assert drawn["kind"] == "tiles" and drawn["empty"] == "....."
    parts = {p["name"]: p for p in drawn["parts"]}
    # "GtSEg": gravel floor, stone path, its arc at the SE corner, a gate.
    word = "GtSEg"
    read = {
        name: p["labels"][word[p["start"] : p["start"] + len(next(iter(p["labels"])))]]
        for name, p in parts.items()
    }
    assert read == {
        "floor": "gravel",
        "path": "stone",
        "corner": "path arc at the SE corner",
        "decor": "gate",
    }
