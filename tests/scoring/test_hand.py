"""Each game's hand-entry form: drawn from the registry, in the rulebook's words, and a bad entry refused
naming the field as the form labels it."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from scoring.core import InvalidState, StateError
from scoring.hand import BLANK_COUNT, Field, Group, Number, Players, check, form_json
from scoring.registry import ENTRIES, Kind, get_entry, get_game
from tests.support import load_example


@pytest.mark.parametrize("game", list(ENTRIES))
def test_every_form_is_json_and_asks_for_the_hand_fields(game: str) -> None:
    entry = get_entry(game)
    drawn = form_json(entry.hand_form)
    assert json.loads(json.dumps(drawn)) == drawn
    keys = {f["key"] for f in drawn}
    # What the players type in and the rules need: every hand field a table game's board does not carry.
    assert keys <= {*entry.hand_fields, "setup"}
    assert all(f["label"] and f["label"][0].isupper() for f in drawn)


@pytest.mark.parametrize("game", ["sanssouci", "four-gardens", "tang-garden"])
def test_the_examples_hand_entry_passes(game: str) -> None:
    state = load_example(f"{game}.json")
    entry = get_entry(game)
    check(entry.hand_form, {k: state[k] for k in entry.hand_fields if k in state})


def test_a_bad_entry_is_refused_in_the_players_words() -> None:
    sanssouci = get_entry("sanssouci").hand_form
    with pytest.raises(
        StateError, match=r"Your two mission cards, second card: 12 is not possible; it is 1 to 9"
    ):
        check(sanssouci, {"missions": [3, 12]})
    with pytest.raises(StateError, match=r"Your two mission cards: give 2 numbers"):
        check(sanssouci, {"missions": [3]})
    # Refused with the form, not only by the rules once the photo is read (an independent try).
    with pytest.raises(StateError, match=r"Your two mission cards: no two may be the same"):
        check(sanssouci, {"missions": [4, 4]})
    with pytest.raises(StateError, match=r"Your score on the score track: type a whole number"):
        check(sanssouci, {"track_score": "38"})
    tang = get_entry("tang-garden").hand_form
    with pytest.raises(StateError, match=r"Ann's cubes in the furthest track spaces: 5 is not possible"):
        check(tang, {"players": [{"name": "Ann", "coins": 3, "cubes": 5}]})
    with pytest.raises(StateError, match=r"the game takes 1 to 4 players"):
        check(tang, {"players": []})
    gardens = get_entry("four-gardens").hand_form
    with pytest.raises(StateError, match=r"Player 1's marker colour: choose one of white, black"):
        check(gardens, {"players": [{"colour": "green"}]})
    with pytest.raises(StateError, match=r"extra-rewards tile: at most 1"):
        check(gardens, {"players": [{"name": "Bo", "colour": "white", "extra_rewards": [2, 3]}]})
    zen = get_entry("zen-garden").hand_form
    with pytest.raises(StateError, match=r"Preference boards in play: tick any of 1: Basics"):
        check(zen, {"setup": {"boards": [9]}})


def test_fields_the_form_does_not_list_are_left_to_the_rules() -> None:
    check(get_entry("alices-garden").hand_form, {"anything": "else"})


def _numbers(
    fields: Sequence[Field], path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Number]]:
    """Every number a form asks, with where it lies in an entry (a player's: the first player's)."""
    for field in fields:
        if isinstance(field, Number):
            yield (*path, field.key), field
        elif isinstance(field, Group):
            yield from _numbers(field.fields, (*path, field.key))
        elif isinstance(field, Players):
            yield from _numbers(field.fields, (*path, field.key, 0))


NUMBERS = [(game, path, number) for game in ENTRIES for path, number in _numbers(get_entry(game).hand_form)]
LEFT_OUT = object()


def _example_with(
    game: str, path: tuple[str | int, ...], value: object
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The game's example state with ``value`` at ``path`` of the form (left out: LEFT_OUT), and its hand
    entry (a table of boards: its first board's)."""
    state = copy.deepcopy(load_example(f"{game}.json"))
    entry = get_entry(game)
    board = state["players"][0] if entry.kind is Kind.BOARD and "players" in state else state
    *inside, last = path
    at = board
    for key in inside:
        at = at[key] if isinstance(key, int) else at.setdefault(key, {})
    if value is LEFT_OUT:
        at.pop(last, None)
    else:
        at[last] = value
    return state, {f.key: board[f.key] for f in entry.hand_form if f.key in board}


def _refused_by_the_rules(game: str, state: Mapping[str, Any]) -> bool:
    rules = get_game(game)
    try:
        rules.score(rules.parse(state))
    except (StateError, InvalidState):
        return True
    return False


@pytest.mark.parametrize(("game", "path", "number"), NUMBERS, ids=[f"{g}:{n.key}" for g, _, n in NUMBERS])
def test_each_number_is_bounded_as_the_game_is_by_the_form_and_the_rules(
    game: str, path: tuple[str | int, ...], number: Number
) -> None:
    # A slip of the finger (999999 for a Sanssouci score track) is caught before any photo is read, and
    # a state typed as JSON is held to the same bound by the rules.
    state, hand = _example_with(game, path, number.hi + 1)
    with pytest.raises(
        StateError, match=rf"{number.hi + 1} is not possible; it is {number.lo} to {number.hi}"
    ):
        check(get_entry(game).hand_form, hand)
    assert _refused_by_the_rules(game, state)


@pytest.mark.parametrize(("game", "path", "number"), NUMBERS, ids=[f"{g}:{n.key}" for g, _, n in NUMBERS])
def test_a_number_left_blank_means_what_the_page_shows_greyed(
    game: str, path: tuple[str | int, ...], number: Number
) -> None:
    blank, hand = _example_with(game, path, LEFT_OUT)
    form = get_entry(game).hand_form
    if number.required:
        # No greyed 0 is shown: a blank is refused, in words, and the rules would not score it either.
        assert number.default is None
        with pytest.raises(StateError, match=f": {BLANK_COUNT}$"):
            check(form, hand)
        assert _refused_by_the_rules(game, blank)
        check(form, hand, partial=True)  # a set-up leaves it to the game's end
    elif number.default is not None:
        # The greyed number is the rules' own default: left out, it scores as typed.
        typed, _ = _example_with(game, path, number.default)
        rules = get_game(game)
        assert rules.score(rules.parse(blank)) == rules.score(rules.parse(typed))


def test_a_blank_tang_garden_form_asks_each_players_coins_in_words() -> None:
    tang = get_entry("tang-garden").hand_form
    players = [{"name": "Player 1"}, {"name": "Player 2"}]
    with pytest.raises(StateError, match=r"^Player 1's coins: type how many, 0 if none$"):
        check(tang, {"players": players})
    (coins,) = (f for f in form_json(tang)[0]["fields"] if f["key"] == "coins")
    assert coins["default"] is None and coins["required"] and coins["blank"] == BLANK_COUNT


def test_two_players_with_one_marker_colour_are_refused_naming_both() -> None:
    gardens = get_entry("four-gardens").hand_form
    players = [{"name": "Ann", "colour": "white"}, {"name": "", "colour": "black"}, {"colour": "white"}]
    both = (
        r"^Ann and Player 3 both chose white for their marker colour: pick a different one for each player$"
    )
    with pytest.raises(StateError, match=both):
        check(gardens, {"players": players})
    check(gardens, {"players": players[:2]})
    (colour,) = (f for f in form_json(gardens)[0]["fields"] if f["key"] == "colour")
    assert colour["distinct"]


@pytest.mark.parametrize(
    ("game", "entry"),
    [("four-gardens", {"players": [{"colour": ["white"]}]}), ("zen-garden", {"setup": {"boards": [[1]]}})],
)
def test_a_list_typed_for_a_choice_is_refused_not_a_crash(game: str, entry: dict[str, Any]) -> None:
    with pytest.raises(StateError, match=r": (choose one|tick any) of "):
        check(get_entry(game).hand_form, entry)
