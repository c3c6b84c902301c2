from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import four_gardens as fg
from scoring.core import InvalidState, StateError
from tests.support import load_example


def table(*players: dict[str, Any], setup: dict[str, Any] | None = None) -> fg.FourGardensTable:
    data: dict[str, Any] = {"players": list(players)}
    if setup is not None:
        data["setup"] = setup
    return fg.parse(data)


def test_synthetic_example_scores_19() -> None:
    # games.md: red=5, purple=7, third=3, fourth removed, Extra-rewards 4 -> 19 with identity values.
    t = table({"positions": {"red": 5, "purple": 7, "green": 3, "yellow": None}, "extra_rewards": [4]})
    got = fg.score(t).players[0]
    assert [(line.rule, line.points) for line in got.lines] == [
        ("Red God track", 5),
        ("Purple God track", 7),
        ("Green God track", 3),
        ("Yellow God track", 0),
        ("Extra-rewards tile", 4),
    ]
    assert got.total == 19
    assert "removed" in got.lines[3].detail


def test_track_values_map_spaces_to_printed_values() -> None:
    setup = {"tracks": ["red", "blue"], "track_values": {"red": [1, 2, 3, 5, 8]}}
    t = table({"positions": {"red": 4, "blue": 6}}, setup=setup)
    assert fg.score(t).players[0].total == 8 + 6


def test_example_table_ranks_with_tie_breaks() -> None:
    result = fg.score(fg.parse(load_example("four-gardens.json")))
    assert [p.total for p in result.players] == [19, 20, 20]
    # Bruno and Cleo tie on 20 and on 10 cards; Cleo's largest panorama (4) wins.
    assert result.ranks == (3, 2, 1)


def test_without_tie_break_counts_a_tie_stands() -> None:
    pos = {"red": 1, "purple": 1, "green": 1, "yellow": 1}
    result = fg.score(table({"positions": pos}, {"positions": pos}))
    assert result.ranks == (1, 1)
    assert result.players[0].tiebreak == ()


def test_check_finds_every_problem() -> None:
    t = fg.FourGardensTable(
        fg.FourGardensSetup(("red", "red", "blue"), {"blue": (0, 1, 2)}),
        (
            fg.FourGardensPlayer("A", {"red": -1, "blue": 3, "pink": 1}, "white", (4, -2), 5, 2),
            fg.FourGardensPlayer("B", {"red": 1}, "white"),
        ),
    )
    got = sorted((p.code, p.where) for p in fg.check(t))
    assert got == sorted(
        [
            ("bad-setup", "setup.tracks"),
            ("impossible-position", "players[0].positions.red"),
            ("impossible-position", "players[0].positions.blue"),
            ("unknown-label", "players[0].positions.pink"),
            ("impossible-count", "players[0].extra_rewards"),
            ("impossible-count", "players[0].extra_rewards[1]"),
            ("missing-field", "players[1].positions"),
            ("impossible-count", "players"),
            ("missing-field", "players"),
        ]
    )
    with pytest.raises(InvalidState):
        fg.score(t)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"players": []}, "players: the table has no player"),
        ({"players": [{}]}, r"players\[0\].positions: missing field"),
        ({"players": [{"positions": {"red": "5"}}]}, r"players\[0\].positions.red: expected a whole number"),
        ({"players": [{"positions": {}, "completed_cards": -1}]}, "completed_cards: -1 is below"),
        ({"setup": {"track_values": {"pink": [1]}}, "players": [{"positions": {}}]}, "no such track"),
        ({"setup": {"track_values": {"red": []}}, "players": [{"positions": {}}]}, "at least one space"),
        ({"players": [{"positions": {}}], "extra": 1}, "unknown field"),
    ],
)
def test_parse_errors_name_the_field(data: dict[str, Any], message: str) -> None:
    with pytest.raises(StateError, match=message):
        fg.parse(data)


positions = st.one_of(st.none(), st.integers(0, 15))
players = st.fixed_dictionaries(
    {
        "positions": st.fixed_dictionaries({t: positions for t in fg.DEFAULT_TRACKS}),
        "extra_rewards": st.lists(st.integers(1, 9), max_size=1),
    }
)


@given(st.lists(players, min_size=1, max_size=4))
def test_round_trip_and_total(raw: list[dict[str, Any]]) -> None:
    t = fg.parse({"players": raw})
    assert fg.parse(fg.dump(t)) == t
    for p, got in zip(t.players, fg.score(t).players, strict=True):
        expected = sum(v for v in p.positions.values() if v is not None) + sum(p.extra_rewards)
        assert got.total == expected
