"""Four Gardens: final scores from the Scoreboard's four God tracks and the Extra-rewards tiles.

Rulebook: each player scores the value under their marker on every God track, plus the number on their
Extra-rewards bonus tile. A marker pushed off the leftmost space is removed for the rest of the game and
scores nothing. Ties go to the most completed Landscape cards, then the largest completed panorama.

The printed value of each track space is not known, so it is a per-board map in :class:`FourGardensSetup`
(default: the value is the space number, counted from 0 at the leftmost space).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, StateError, TableScore, require_valid
from scoring.fields import as_int, as_list, as_object, as_str, get, item_path, reject_unknown
from scoring.hand import Choice, Choices, Form, Number, Players, named

GAME = "four-gardens"
TITLE = "Four Gardens"

# The rulebook names a red and a purple God; the other two colours are placeholders until calibration.
DEFAULT_TRACKS = ("red", "purple", "green", "yellow")
MAX_EXTRA_REWARDS = 1  # "You may not have 2 of the same type" of bonus tile

# The players' marker colours of the shipped set (a table's own are a profile's setup.markers).
MARKER_COLOURS = ("white", "black", "orange", "blue")
REWARD_NUMBERS = tuple(range(1, 10))  # the number an Extra-rewards tile shows
# The game's 70 cards: no player completes more, nor a larger panorama.
CARDS = 70

# What the players type in (scoring.hand): the markers' places are read from the photo, the rest is not on
# the board.
HAND_FORM: Form = (
    Players(
        "players",
        "Players",
        (
            Choice("colour", "Marker colour", named(MARKER_COLOURS), distinct=True),
            Choices(
                "extra_rewards",
                "Extra-rewards tile",
                tuple((n, str(n)) for n in REWARD_NUMBERS),
                most=MAX_EXTRA_REWARDS,
                hint="the number on your tile, if you took one",
            ),
            # Tie-break counts: left blank, not given (the rules break no tie then).
            Number("completed_cards", "Completed cards", 0, CARDS, default=None),
            Number(
                "largest_panorama",
                "Largest panorama",
                0,
                CARDS,
                default=None,
                hint="cards in your longest panorama",
            ),
        ),
        1,
        4,
    ),
)


@dataclass(frozen=True)
class FourGardensSetup:
    """The Scoreboard: track names in board order and, per track, the value printed on each space.

    A track missing from ``track_values`` scores its space number (identity map, any length).
    """

    tracks: tuple[str, ...] = DEFAULT_TRACKS
    track_values: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def value(self, track: str, position: int) -> int:
        values = self.track_values.get(track)
        return position if values is None else values[position]


@dataclass(frozen=True)
class FourGardensPlayer:
    """One player: marker space per track (``None`` = removed), Extra-rewards numbers, tie-break counts."""

    name: str
    positions: Mapping[str, int | None]
    colour: str = ""
    extra_rewards: tuple[int, ...] = ()
    completed_cards: int | None = None
    largest_panorama: int | None = None


@dataclass(frozen=True)
class FourGardensTable:
    setup: FourGardensSetup
    players: tuple[FourGardensPlayer, ...]


def parse_setup(data: object) -> FourGardensSetup:
    obj = as_object(data, "setup")
    reject_unknown(obj, ("tracks", "track_values"), "setup")
    raw_tracks = as_list(get(obj, "tracks", "setup", list(DEFAULT_TRACKS)), "setup.tracks")
    tracks = tuple(as_str(v, f"setup.tracks[{i}]") for i, v in enumerate(raw_tracks))
    values: dict[str, tuple[int, ...]] = {}
    raw_values = as_object(get(obj, "track_values", "setup", {}), "setup.track_values")
    for track, raw in raw_values.items():
        path = f"setup.track_values.{track}"
        if track not in tracks:
            raise StateError(f"{path}: no such track; tracks are {', '.join(tracks)}")
        values[track] = tuple(as_int(v, item_path(path, i)) for i, v in enumerate(as_list(raw, path)))
        if not values[track]:
            raise StateError(f"{path}: a track needs at least one space")
    return FourGardensSetup(tracks, values)


def _parse_optional_count(obj: Mapping[str, Any], key: str, path: str) -> int | None:
    raw = obj.get(key)
    return None if raw is None else as_int(raw, item_path(path, key), 0, CARDS)


def _parse_player(data: object, path: str, index: int) -> FourGardensPlayer:
    obj = as_object(data, path)
    known = ("name", "colour", "positions", "extra_rewards", "completed_cards", "largest_panorama")
    reject_unknown(obj, known, path)
    name = as_str(get(obj, "name", path, f"Player {index + 1}"), item_path(path, "name"))
    pos_path = item_path(path, "positions")
    positions: dict[str, int | None] = {}
    for track, raw in as_object(get(obj, "positions", path), pos_path).items():
        positions[track] = None if raw is None else as_int(raw, f"{pos_path}.{track}")
    rewards_path = item_path(path, "extra_rewards")
    rewards = tuple(
        as_int(v, item_path(rewards_path, i))
        for i, v in enumerate(as_list(get(obj, "extra_rewards", path, []), rewards_path))
    )
    return FourGardensPlayer(
        name,
        positions,
        as_str(get(obj, "colour", path, ""), item_path(path, "colour")),
        rewards,
        _parse_optional_count(obj, "completed_cards", path),
        _parse_optional_count(obj, "largest_panorama", path),
    )


def parse(data: object) -> FourGardensTable:
    """A table from decoded JSON; errors name the field (``players[2].positions.red``)."""
    obj = as_object(data, "")
    reject_unknown(obj, ("game", "setup", "players"), "")
    setup = parse_setup(obj["setup"]) if "setup" in obj else FourGardensSetup()
    raw_players = as_list(get(obj, "players", ""), "players")
    players = tuple(_parse_player(p, item_path("players", i), i) for i, p in enumerate(raw_players))
    if not players:
        raise StateError("players: the table has no player")
    return FourGardensTable(setup, players)


def dump(table: FourGardensTable) -> dict[str, Any]:
    players = []
    for p in table.players:
        entry: dict[str, Any] = {
            "name": p.name,
            "colour": p.colour,
            "positions": dict(p.positions),
            "extra_rewards": list(p.extra_rewards),
        }
        if p.completed_cards is not None:
            entry["completed_cards"] = p.completed_cards
        if p.largest_panorama is not None:
            entry["largest_panorama"] = p.largest_panorama
        players.append(entry)
    setup = {
        "tracks": list(table.setup.tracks),
        "track_values": {k: list(v) for k, v in table.setup.track_values.items()},
    }
    return {"game": GAME, "setup": setup, "players": players}


def _player_problems(setup: FourGardensSetup, p: FourGardensPlayer, where: str) -> list[Problem]:
    problems: list[Problem] = []
    for track in setup.tracks:
        if track not in p.positions:
            problems.append(
                Problem(
                    "missing-field", f"{where}.positions", f"no position on track {track!r} (null if removed)"
                )
            )
    for track, pos in p.positions.items():
        at = f"{where}.positions.{track}"
        if track not in setup.tracks:
            problems.append(
                Problem("unknown-label", at, f"no such track; tracks are {', '.join(setup.tracks)}")
            )
        elif pos is not None:
            spaces = setup.track_values.get(track)
            if pos < 0 or (spaces is not None and pos >= len(spaces)):
                size = "" if spaces is None else f" of {len(spaces)}"
                problems.append(Problem("impossible-position", at, f"space {pos} is off the track{size}"))
    if len(p.extra_rewards) > MAX_EXTRA_REWARDS:
        problems.append(
            Problem(
                "impossible-count",
                f"{where}.extra_rewards",
                f"{len(p.extra_rewards)} Extra-rewards tiles; a player may own only {MAX_EXTRA_REWARDS}",
            )
        )
    problems += [
        Problem("impossible-count", f"{where}.extra_rewards[{i}]", "a tile's value cannot be negative")
        for i, v in enumerate(p.extra_rewards)
        if v < 0
    ]
    return problems


def check(table: FourGardensTable) -> tuple[Problem, ...]:
    """Every problem that makes the table unscorable (an empty tuple when it is fine)."""
    problems: list[Problem] = []
    if len(set(table.setup.tracks)) != len(table.setup.tracks):
        problems.append(Problem("bad-setup", "setup.tracks", "a track is named twice"))
    for i, p in enumerate(table.players):
        problems += _player_problems(table.setup, p, f"players[{i}]")
    colours = [p.colour for p in table.players if p.colour]
    if len(set(colours)) != len(colours):
        problems.append(
            Problem(
                "impossible-count",
                "players",
                "two players have the same marker colour: pick a different one for each player",
            )
        )
    given = [p.completed_cards is not None and p.largest_panorama is not None for p in table.players]
    if any(given) and not all(given):
        problems.append(
            Problem(
                "missing-field",
                "players",
                "tie-break counts are given for some players only; give all or none",
            )
        )
    return tuple(problems)


def _score_player(setup: FourGardensSetup, p: FourGardensPlayer, with_tiebreak: bool) -> ScoreBreakdown:
    lines = []
    for track in setup.tracks:
        pos = p.positions[track]
        if pos is None:
            lines.append(
                ScoreLine(f"{track.capitalize()} God track", "marker removed from the Scoreboard", 0)
            )
        else:
            value = setup.value(track, pos)
            lines.append(ScoreLine(f"{track.capitalize()} God track", f"marker on space {pos}", value))
    for v in p.extra_rewards:
        lines.append(ScoreLine("Extra-rewards tile", f"tile number {v}", v))
    tiebreak: tuple[int, ...] = ()
    if with_tiebreak and p.completed_cards is not None and p.largest_panorama is not None:
        tiebreak = (p.completed_cards, p.largest_panorama)
    return ScoreBreakdown(
        GAME,
        tuple(lines),
        player=p.name,
        tiebreak=tiebreak,
        tiebreak_rule="most completed Landscape cards, then largest completed panorama" if tiebreak else "",
    )


def score(table: FourGardensTable) -> TableScore:
    """Every player's score; raises InvalidState if :func:`check` finds problems.

    Example:
        >>> t = parse({"players": [{"positions": {"red": 5, "purple": 7, "green": 3, "yellow": None},
        ...                         "extra_rewards": [4]}]})
        >>> score(t).players[0].total
        19
    """
    require_valid(check(table))
    with_tiebreak = all(p.completed_cards is not None for p in table.players)
    return TableScore(GAME, tuple(_score_player(table.setup, p, with_tiebreak) for p in table.players))
