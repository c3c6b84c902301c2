"""Each game's hand-entry form: drawn from the registry, in the rulebook's words, and a bad entry refused
naming the field as the form labels it."""

from __future__ import annotations

import json

import pytest

from scoring.core import StateError
from scoring.hand import check, form_json
from scoring.registry import ENTRIES, get_entry
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
    with pytest.raises(StateError, match=r"Your score on the score track: type a whole number"):
        check(sanssouci, {"track_score": "38"})
    tang = get_entry("tang-garden").hand_form
    with pytest.raises(StateError, match=r"Ann's cubes in the furthest track spaces: 5 is not possible"):
        check(tang, {"players": [{"name": "Ann", "cubes": 5}]})
    with pytest.raises(StateError, match=r"the game takes 1 to 4 players"):
        check(tang, {"players": []})
    gardens = get_entry("four-gardens").hand_form
    with pytest.raises(StateError, match=r"player 1's marker colour: choose one of white, black"):
        check(gardens, {"players": [{"colour": "green"}]})
    with pytest.raises(StateError, match=r"extra-rewards tile: at most 1"):
        check(gardens, {"players": [{"name": "Bo", "colour": "white", "extra_rewards": [2, 3]}]})
    zen = get_entry("zen-garden").hand_form
    with pytest.raises(StateError, match=r"Preference boards in play: tick any of 1: Basics"):
        check(zen, {"setup": {"boards": [9]}})


def test_fields_the_form_does_not_list_are_left_to_the_rules() -> None:
    check(get_entry("alices-garden").hand_form, {"anything": "else"})
