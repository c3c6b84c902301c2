"""Zen Garden: end-of-game scoring of a whole table of 4 x 4 gardens.

Rulebook (Queen Games 2020), "Game End and Final Scoring" and "The Preferences": 1 per coin left; Board 1
(always in play) scores complete walkways, identical decor, the minor (1 per tile) and major (2 per tile)
preferences, the majority across all players and attention to detail; Board 2 Unity, Board 3 Minimalistic
and the missions of Boards 4 and 5 score only when in play. The majority compares players, so a state is
always the whole table.

A garden tile is written as 5 characters: floor letter, path letter, the corner its path arc wraps around,
decor letter (``GtSEg`` is a gravel floor with a stone path around the SE corner and a gate; ``.....`` is
no tile). How the arcs of a walkway meet is a guess until real tiles are photographed, so that geometry lives
in :class:`ZenSetup` with the other set-up data, not in the rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, StateError, TableScore, require_valid
from scoring.fields import (
    as_bool,
    as_choice,
    as_int,
    as_list,
    as_object,
    as_str,
    get,
    item_path,
    reject_unknown,
)
from scoring.grid import Cell, cell_name, components4
from scoring.hand import Choice, Choices, Form, Group
from scoring.words import listed

GAME = "zen-garden"
TITLE = "Zen Garden"

FLOOR_LETTERS: Mapping[str, str] = {
    "S": "sand",
    "G": "gravel",
    "T": "trees",
    "C": "clay",
    "W": "water",
    "B": "cherry-blossom",
}
PATH_LETTERS: Mapping[str, str] = {"s": "sand", "w": "wood", "t": "stone"}
DECOR_LETTERS: Mapping[str, str] = {"p": "pagoda", "b": "bench", "u": "buddha", "g": "gate", "c": "crane"}
FLOORS = tuple(FLOOR_LETTERS.values())
PATHS = tuple(PATH_LETTERS.values())
DECORS = tuple(DECOR_LETTERS.values())
CORNERS = ("NE", "SE", "SW", "NW")
EMPTY_CODE = "....."
# A tile code's parts, as the result page edits them: (name, first letter's place, letters -> words).
TILE_PARTS: tuple[tuple[str, int, Mapping[str, str]], ...] = (
    ("floor", 0, FLOOR_LETTERS),
    ("path", 1, PATH_LETTERS),
    ("corner", 2, {c: f"path arc at the {c} corner" for c in CORNERS}),
    ("decor", 4, DECOR_LETTERS),
)
ATTRIBUTES: Mapping[str, tuple[str, ...]] = {"floor": FLOORS, "path": PATHS, "decor": DECORS}
DECOR_PLURALS: Mapping[str, str] = {
    "pagoda": "pagodas",
    "bench": "benches",
    "buddha": "buddhas",
    "gate": "gates",
    "crane": "cranes",
}

BOARDS: Mapping[int, str] = {1: "Basics", 2: "Unity", 3: "Minimalistic", 4: "Two missions", 5: "One mission"}
PREFERENCE_SLOTS = ("minor", "major", "majority", "attention")
BOARD_MISSIONS: Mapping[int, tuple[str, ...]] = {4: ("4a", "4b"), 5: ("5",)}
MISSIONS = ("4a", "4b", "5")
WALKWAY_ROLES = ("TL", "TR", "BL", "BR")

# The rulebook's tables. Their first and last keys also stand for every count below and above them.
WALKWAY_POINTS: Mapping[int, int] = {0: 0, 1: 3, 2: 6, 3: 10, 4: 15}
DECOR_POINTS: Mapping[int, int] = {5: 0, 6: 3, 7: 5, 8: 7, 9: 10, 10: 13, 11: 16, 12: 20}
ATTENTION_POINTS: Mapping[int, int] = {0: 0, 1: -4, 2: -2, 3: -1, 4: 2, 5: 5, 6: 8}
MINIMALISTIC_POINTS: Mapping[int, int] = {2: 18, 3: 12, 4: 6, 5: 0}
COIN_POINTS = 1
MINOR_POINTS = 1
MAJOR_POINTS = 2
MAJORITY_FIRST_POINTS = 8
MAJORITY_SECOND_POINTS = 4
UNITY_POINTS = 10
MAX_COINS = 25
# Each mission stacks its point tiles 1, 3, 5 from the bottom up, so the 5 is taken first.
POINT_TILES = (5, 3, 1)
MISSION_TARGET = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 4

_FLOOR_LETTER = {name: letter for letter, name in FLOOR_LETTERS.items()}
_PATH_LETTER = {name: letter for letter, name in PATH_LETTERS.items()}
_DECOR_LETTER = {name: letter for letter, name in DECOR_LETTERS.items()}
_DECOR_MINIMUM = min(n for n, points in DECOR_POINTS.items() if points)


EMPEROR_TILES = tuple(f"{attribute}:{value}" for attribute, values in ATTRIBUTES.items() for value in values)
# An Emperor tile in the players' words: "sand floor", "wood path", "pagoda".
EMPEROR_WORDS = tuple(
    (f"{attribute}:{value}", value.replace("-", " ") + ("" if attribute == "decor" else f" {attribute}"))
    for attribute, values in ATTRIBUTES.items()
    for value in values
)
# What the players type in (scoring.hand): the game's set-up, the same for the whole table.
HAND_FORM: Form = (
    Group(
        "setup",
        "The game's set-up",
        (
            Choices(
                "boards",
                "Preference boards in play",
                tuple((n, f"{n}: {name}") for n, name in BOARDS.items()),
                default=(1,),
            ),
            Group(
                "preferences",
                "The Emperor's preference tiles",
                tuple(
                    Choice(slot, f"{slot.capitalize()} preference", EMPEROR_WORDS, optional=True)
                    for slot in PREFERENCE_SLOTS
                ),
                hint="the Emperor tile on each space of the preference boards",
            ),
        ),
    ),
)


@dataclass(frozen=True)
class ZenTile:
    """One garden tile by value names (not letters); ``corner`` is where its path arc meets two edges."""

    floor: str
    path: str
    corner: str
    decor: str


@dataclass(frozen=True)
class EmperorTile:
    """One Emperor tile: a tile attribute (floor, path or decor) and the value a garden tile must show.

    Example:
        >>> EmperorTile("path", "stone").matches(ZenTile("gravel", "stone", "SE", "gate"))
        True
    """

    attribute: str
    value: str

    def matches(self, tile: ZenTile) -> bool:
        shown = {"floor": tile.floor, "path": tile.path, "decor": tile.decor}
        return shown.get(self.attribute) == self.value

    def __str__(self) -> str:
        return f"{self.attribute}:{self.value}"


Grid = tuple[tuple[ZenTile | None, ...], ...]


@dataclass(frozen=True)
class ZenBoard:
    """One player's garden at game end: tiles row by row (``None`` = empty cell), coins left, and the point
    tile (1, 3 or 5) taken on each mission by its id (``4a``, ``4b``, ``5``)."""

    name: str
    tiles: Grid
    coins: int = 0
    mission_points: Mapping[str, int] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class ZenSetup:
    """What lies beside the gardens, plus the geometry guesses.

    ``boards`` are the Preference Boards in play (Board 1 always). ``preferences`` holds the Emperor tile on
    each slot of Board 1 (``minor``, ``major``, ``majority``, ``attention``); ``missions`` the two Emperor
    tiles of each mission, when known. ``walkway_corners`` is the corner each tile of a 2 x 2 walkway wraps,
    in the order top-left, top-right, bottom-left, bottom-right. ``majority_needs_tile``: a player with no
    matching tile takes no majority place (the rulebook does not say).
    """

    boards: tuple[int, ...] = (1,)
    preferences: Mapping[str, EmperorTile] = field(default_factory=dict, hash=False)
    missions: Mapping[str, tuple[EmperorTile, EmperorTile]] = field(default_factory=dict, hash=False)
    walkway_corners: tuple[str, str, str, str] = ("SE", "SW", "NE", "NW")
    rows: int = 4
    cols: int = 4
    majority_needs_tile: bool = True


@dataclass(frozen=True)
class ZenTable:
    """The set-up and every player's garden, in seating order."""

    setup: ZenSetup
    players: tuple[ZenBoard, ...]


def tile_code(tile: ZenTile | None) -> str:
    """The 5-character code of a tile (:data:`EMPTY_CODE` for none); a value it has no letter for stays as is.

    Example:
        >>> tile_code(ZenTile("gravel", "stone", "SE", "gate")), tile_code(None)
        ('GtSEg', '.....')
    """
    if tile is None:
        return EMPTY_CODE
    floor = _FLOOR_LETTER.get(tile.floor, tile.floor)
    decor = _DECOR_LETTER.get(tile.decor, tile.decor)
    return f"{floor}{_PATH_LETTER.get(tile.path, tile.path)}{tile.corner}{decor}"


def read_tile_code(code: str) -> ZenTile | None:
    """The tile a code names; letters it does not know are kept for :func:`check` to report.

    Raises:
        ValueError: ``code`` is not 5 characters long.

    Example:
        >>> read_tile_code("BsNWp")
        ZenTile(floor='cherry-blossom', path='sand', corner='NW', decor='pagoda')
    """
    if code == EMPTY_CODE:
        return None
    if len(code) != 5:
        raise ValueError(
            f"{code!r} is not a tile code: floor, path, 2-letter corner and decor letters "
            f"like 'GtSEg', or {EMPTY_CODE!r}"
        )
    return ZenTile(
        FLOOR_LETTERS.get(code[0], code[0]),
        PATH_LETTERS.get(code[1], code[1]),
        code[2:4],
        DECOR_LETTERS.get(code[4], code[4]),
    )


def _read_row(codes: Sequence[str], path: str) -> tuple[ZenTile | None, ...]:
    tiles: list[ZenTile | None] = []
    for c, code in enumerate(codes):
        try:
            tiles.append(read_tile_code(code))
        except ValueError as error:
            raise StateError(f"{item_path(path, c)}: {error}") from None
    return tuple(tiles)


def to_text(board: ZenBoard) -> str:
    """The garden's rows, one line each, codes separated by single spaces; :func:`from_text` reads it back."""
    return "\n".join(" ".join(tile_code(tile) for tile in row) for row in board.tiles)


def from_text(
    text: str, name: str = "Player 1", coins: int = 0, mission_points: Mapping[str, int] | None = None
) -> ZenBoard:
    """A garden from its text form (blank lines and extra spaces ignored); a bad code names ``tiles[r][c]``.

    Example:
        >>> from_text("GtSEg .....\\nBsNWp WwNEc", name="Ann").tiles[0]
        (ZenTile(floor='gravel', path='stone', corner='SE', decor='gate'), None)
    """
    lines = [line.split() for line in text.strip().splitlines() if line.strip()]
    tiles = tuple(_read_row(codes, item_path("tiles", r)) for r, codes in enumerate(lines))
    return ZenBoard(name, tiles, coins, dict(mission_points or {}))


def parse_emperor(data: object, path: str) -> EmperorTile:
    """An Emperor tile from its ``attribute:value`` form, such as ``floor:water`` or ``decor:gate``."""
    text = as_str(data, path)
    attribute, colon, value = text.partition(":")
    if not colon or attribute not in ATTRIBUTES:
        raise StateError(
            f"{path}: {text!r} is not an Emperor tile; expected floor:..., path:... or decor:..., "
            "e.g. floor:water"
        )
    return EmperorTile(attribute, as_choice(value, path, ATTRIBUTES[attribute]))


def parse_setup(data: object, path: str = "setup") -> ZenSetup:
    """The set-up from decoded JSON; only ``boards`` is required."""
    obj = as_object(data, path)
    known = ("boards", "preferences", "missions", "walkway_corners", "rows", "cols", "majority_needs_tile")
    reject_unknown(obj, known, path)
    default = ZenSetup()
    boards_path = item_path(path, "boards")
    raw_boards = as_list(get(obj, "boards", path), boards_path)
    boards = tuple(
        as_int(v, item_path(boards_path, i), min(BOARDS), max(BOARDS)) for i, v in enumerate(raw_boards)
    )

    prefs_path = item_path(path, "preferences")
    prefs = as_object(get(obj, "preferences", path, {}), prefs_path)
    reject_unknown(prefs, PREFERENCE_SLOTS, prefs_path)
    preferences = {slot: parse_emperor(v, item_path(prefs_path, slot)) for slot, v in prefs.items()}

    missions_path = item_path(path, "missions")
    raw_missions = as_object(get(obj, "missions", path, {}), missions_path)
    reject_unknown(raw_missions, MISSIONS, missions_path)
    missions: dict[str, tuple[EmperorTile, EmperorTile]] = {}
    for mission, raw in raw_missions.items():
        mission_path = item_path(missions_path, mission)
        first, second = as_list(raw, mission_path, 2)
        missions[mission] = (
            parse_emperor(first, item_path(mission_path, 0)),
            parse_emperor(second, item_path(mission_path, 1)),
        )

    corners_path = item_path(path, "walkway_corners")
    default_corners = dict(zip(WALKWAY_ROLES, default.walkway_corners, strict=True))
    raw_corners = as_object(get(obj, "walkway_corners", path, default_corners), corners_path)
    reject_unknown(raw_corners, WALKWAY_ROLES, corners_path)
    tl, tr, bl, br = (
        as_choice(get(raw_corners, role, corners_path), item_path(corners_path, role), CORNERS)
        for role in WALKWAY_ROLES
    )
    return ZenSetup(
        boards,
        preferences,
        missions,
        (tl, tr, bl, br),
        as_int(get(obj, "rows", path, default.rows), item_path(path, "rows"), 2, 12),
        as_int(get(obj, "cols", path, default.cols), item_path(path, "cols"), 2, 12),
        as_bool(
            get(obj, "majority_needs_tile", path, default.majority_needs_tile),
            item_path(path, "majority_needs_tile"),
        ),
    )


def dump_setup(setup: ZenSetup) -> dict[str, Any]:
    return {
        "boards": list(setup.boards),
        "preferences": {slot: str(tile) for slot, tile in setup.preferences.items()},
        "missions": {mission: [str(a), str(b)] for mission, (a, b) in setup.missions.items()},
        "walkway_corners": dict(zip(WALKWAY_ROLES, setup.walkway_corners, strict=True)),
        "rows": setup.rows,
        "cols": setup.cols,
        "majority_needs_tile": setup.majority_needs_tile,
    }


def parse_board(data: object, path: str, default_name: str = "Player 1") -> ZenBoard:
    """One garden (``name``, ``tiles``, ``coins``, optional ``mission_points``); errors name the field.

    Values are read as they are (a coin count of 30, an unknown tile letter): :func:`check` reports them.
    """
    obj = as_object(data, path)
    reject_unknown(obj, ("name", "tiles", "coins", "mission_points"), path)
    name = as_str(get(obj, "name", path, default_name), item_path(path, "name"))
    tiles_path = item_path(path, "tiles")
    raw_rows = as_list(get(obj, "tiles", path), tiles_path)
    tiles = tuple(
        _read_row(as_str(row, item_path(tiles_path, r)).split(" "), item_path(tiles_path, r))
        for r, row in enumerate(raw_rows)
    )
    coins = as_int(get(obj, "coins", path), item_path(path, "coins"))
    points_path = item_path(path, "mission_points")
    raw_points = as_object(get(obj, "mission_points", path, {}), points_path)
    reject_unknown(raw_points, MISSIONS, points_path)
    mission_points = {m: as_int(v, item_path(points_path, m)) for m, v in raw_points.items()}
    return ZenBoard(name, tiles, coins, mission_points)


def dump_board(board: ZenBoard) -> dict[str, Any]:
    return {
        "name": board.name,
        "tiles": [" ".join(tile_code(tile) for tile in row) for row in board.tiles],
        "coins": board.coins,
        "mission_points": dict(board.mission_points),
    }


def parse(data: object) -> ZenTable:
    """A table from decoded JSON ``{"game"?, "setup", "players"}``; raises StateError naming the field."""
    obj = as_object(data, "")
    reject_unknown(obj, ("game", "setup", "players"), "")
    as_choice(get(obj, "game", "", GAME), "game", (GAME,))
    setup = parse_setup(get(obj, "setup", ""), "setup")
    raw_players = as_list(get(obj, "players", ""), "players")
    players = tuple(
        parse_board(raw, item_path("players", i), f"Player {i + 1}") for i, raw in enumerate(raw_players)
    )
    return ZenTable(setup, players)


def dump(table: ZenTable) -> dict[str, Any]:
    """Decoded JSON that :func:`parse` reads back to an equal table."""
    return {
        "game": GAME,
        "setup": dump_setup(table.setup),
        "players": [dump_board(board) for board in table.players],
    }


def _unknown_parts(tile: ZenTile) -> list[str]:
    parts = [
        f"floor {tile.floor!r}" if tile.floor not in FLOORS else "",
        f"path {tile.path!r}" if tile.path not in PATHS else "",
        f"corner {tile.corner!r}" if tile.corner not in CORNERS else "",
        f"decor {tile.decor!r}" if tile.decor not in DECORS else "",
    ]
    return [part for part in parts if part]


def _emperor_slots(setup: ZenSetup) -> Iterator[tuple[str, EmperorTile]]:
    for slot, tile in setup.preferences.items():
        yield f"setup.preferences.{slot}", tile
    for mission, pair in setup.missions.items():
        for k, tile in enumerate(pair):
            yield f"setup.missions.{mission}[{k}]", tile


def _missions_in_play(setup: ZenSetup) -> set[str]:
    return {mission for board in setup.boards for mission in BOARD_MISSIONS.get(board, ())}


def _check_setup(setup: ZenSetup) -> list[Problem]:
    problems: list[Problem] = []
    boards = list(setup.boards)
    if len(set(boards)) != len(boards) or not set(boards) <= set(BOARDS):
        problems.append(
            Problem("bad-setup", "setup.boards", f"expected different boards 1 to 5, got {boards}")
        )
    if 1 not in boards:
        problems.append(Problem("bad-setup", "setup.boards", "Board 1 (Basics) is always in play"))
    if sorted(setup.walkway_corners) != sorted(CORNERS):
        problems.append(
            Problem(
                "bad-setup",
                "setup.walkway_corners",
                f"the 4 tiles of a walkway wrap 4 different corners, got {', '.join(setup.walkway_corners)}",
            )
        )
    missing = [slot for slot in PREFERENCE_SLOTS if slot not in setup.preferences]
    if missing:
        problems.append(
            Problem(
                "emperor-slots",
                "setup.preferences",
                f"board 1 is always in play: pick the Emperor's tile on its {listed(missing)} spaces",
            )
        )
    for slot in setup.preferences:
        if slot not in PREFERENCE_SLOTS:
            problems.append(
                Problem("emperor-slots", f"setup.preferences.{slot}", f"Board 1 has no slot {slot!r}")
            )
    in_play = _missions_in_play(setup)
    for mission in setup.missions:
        if mission not in in_play:
            problems.append(
                Problem(
                    "emperor-slots",
                    f"setup.missions.{mission}",
                    f"mission {mission} is not on a board in play",
                )
            )
    seen: dict[EmperorTile, str] = {}
    for where, tile in _emperor_slots(setup):
        if tile.value not in ATTRIBUTES.get(tile.attribute, ()):
            problems.append(Problem("unknown-code", where, f"unknown Emperor tile {str(tile)!r}"))
        elif tile in seen:
            problems.append(
                Problem(
                    "duplicate-emperor-tile",
                    where,
                    f"{tile} already lies on {seen[tile]}; each tile is unique",
                )
            )
        else:
            seen[tile] = where
    return problems


def _check_garden(board: ZenBoard, setup: ZenSetup, path: str) -> list[Problem]:
    problems: list[Problem] = []
    if len(board.tiles) != setup.rows:
        problems.append(
            Problem("grid-size", f"{path}.tiles", f"expected {setup.rows} rows, got {len(board.tiles)}")
        )
    for r, row in enumerate(board.tiles):
        if len(row) != setup.cols:
            problems.append(
                Problem("grid-size", f"{path}.tiles[{r}]", f"expected {setup.cols} tiles, got {len(row)}")
            )
        for c, tile in enumerate(row):
            where = f"{path}.tiles[{r}][{c}]"
            if tile is None:
                problems.append(Problem("empty-cell", where, "no tile: scoring needs every garden full"))
            elif unknown := _unknown_parts(tile):
                problems.append(
                    Problem("unknown-code", where, f"{tile_code(tile)!r} has unknown {', '.join(unknown)}")
                )
    return problems


def _check_player(board: ZenBoard, setup: ZenSetup, path: str) -> list[Problem]:
    problems = _check_garden(board, setup, path)
    if not 0 <= board.coins <= MAX_COINS:
        problems.append(
            Problem(
                "impossible-count", f"{path}.coins", f"{board.coins} coins is off the track 0 to {MAX_COINS}"
            )
        )
    in_play = _missions_in_play(setup)
    tiles = _placed(board)
    for mission, points in board.mission_points.items():
        where = f"{path}.mission_points.{mission}"
        if points not in POINT_TILES:
            problems.append(Problem("bad-point-tile", where, f"no {points}-point tile; they are 1, 3 and 5"))
        if mission not in in_play:
            problems.append(
                Problem("mission-not-in-play", where, f"mission {mission} is not on a board in play")
            )
        elif mission in setup.missions:
            short = [
                f"{describe(count_matching(tiles, wanted), wanted)} of {MISSION_TARGET}"
                for wanted in setup.missions[mission]
                if count_matching(tiles, wanted) < MISSION_TARGET
            ]
            if short:
                problems.append(
                    Problem(
                        "mission-not-met", where, f"mission {mission} is not built: only {', '.join(short)}"
                    )
                )
    return problems


def _check_point_tiles(players: Sequence[ZenBoard]) -> list[Problem]:
    problems: list[Problem] = []
    for mission in MISSIONS:
        holders: dict[int, int] = {}
        for i, board in enumerate(players):
            points = board.mission_points.get(mission, 0)
            if points not in POINT_TILES:
                continue
            where = f"players[{i}].mission_points.{mission}"
            if points in holders:
                owner = players[holders[points]].name
                problems.append(
                    Problem(
                        "point-tile-taken-twice",
                        where,
                        f"the {points}-point tile of mission {mission} is with {owner}",
                    )
                )
            else:
                holders[points] = i
        for points, i in holders.items():
            above = [p for p in POINT_TILES if p > points and p not in holders]
            if above:
                problems.append(
                    Problem(
                        "point-tile-order",
                        f"players[{i}].mission_points.{mission}",
                        f"the {points}-point tile of mission {mission} lies under the "
                        f"{' and '.join(str(p) for p in above)}, which nobody took",
                    )
                )
    return problems


def check(table: ZenTable) -> tuple[Problem, ...]:
    """Every problem that makes the table unscorable (an empty tuple when it is fine)."""
    problems = _check_setup(table.setup)
    if not MIN_PLAYERS <= len(table.players) <= MAX_PLAYERS:
        count = len(table.players)
        # Read out to the players: a photo of one garden is the usual cause.
        said = (
            f"only {count} garden{'' if count == 1 else 's'}; Zen Garden scores 2 to 4 players' gardens "
            "together"
            if count < MIN_PLAYERS
            else f"{count} gardens; Zen Garden is played by at most {MAX_PLAYERS} players"
        )
        problems.append(Problem("player-count", "players", said))
    for i, board in enumerate(table.players):
        problems.extend(_check_player(board, table.setup, f"players[{i}]"))
    first_seen: dict[tuple[str, str, str], str] = {}
    for i, board in enumerate(table.players):
        for r, row in enumerate(board.tiles):
            for c, tile in enumerate(row):
                if tile is None or _unknown_parts(tile):
                    continue
                where = f"players[{i}].tiles[{r}][{c}]"
                key = (tile.floor, tile.path, tile.decor)
                if key in first_seen:
                    problems.append(
                        Problem(
                            "duplicate-tile",
                            where,
                            f"same floor, path and decor as {first_seen[key]}; each of the 90 is unique",
                        )
                    )
                else:
                    first_seen[key] = where
    problems.extend(_check_point_tiles(table.players))
    return tuple(problems)


def table_points(table: Mapping[int, int], count: int) -> int:
    """Points of ``count`` in a rulebook table; counts past either end score as that end.

    Example:
        >>> table_points(DECOR_POINTS, 3), table_points(DECOR_POINTS, 8), table_points(DECOR_POINTS, 14)
        (0, 7, 20)
    """
    return table[min(max(count, min(table)), max(table))]


def count_matching(tiles: Sequence[ZenTile], emperor: EmperorTile) -> int:
    """How many tiles show the Emperor tile's value."""
    return sum(emperor.matches(tile) for tile in tiles)


def describe(count: int, emperor: EmperorTile) -> str:
    """A count of matching tiles as a player says it.

    Example:
        >>> describe(9, EmperorTile("path", "stone")), describe(1, EmperorTile("decor", "bench"))
        ('9 stone paths', '1 bench')
    """
    if emperor.attribute == "decor":
        noun = emperor.value if count == 1 else DECOR_PLURALS.get(emperor.value, emperor.value)
    else:
        noun = f"{emperor.value} {emperor.attribute}" + ("" if count == 1 else "s")
    return f"{count} {noun}"


def majority_points(counts: Sequence[int], needs_tile: bool = True) -> tuple[int, ...]:
    """Majority points of each player from every player's count of matching tiles.

    Ties share full points, and a tie for the most leaves no second place. With ``needs_tile`` a count of 0
    takes no place.

    Example:
        >>> majority_points([5, 3, 3, 1]), majority_points([4, 4, 2]), majority_points([2, 0, 0])
        ((8, 4, 4, 0), (8, 8, 0), (8, 0, 0))
    """
    lowest = 1 if needs_tile else 0
    ranked = sorted({n for n in counts if n >= lowest}, reverse=True)
    first = ranked[0] if ranked else None
    second = ranked[1] if len(ranked) > 1 and counts.count(ranked[0]) == 1 else None
    return tuple(
        MAJORITY_FIRST_POINTS if n == first else MAJORITY_SECOND_POINTS if n == second else 0 for n in counts
    )


def find_walkways(
    tiles: Sequence[Sequence[ZenTile | None]], corners: tuple[str, str, str, str]
) -> tuple[list[Cell], list[Cell]]:
    """Top-left cells of the 2 x 2 loops with one path type (complete walkways) and of the mixed loops.

    A loop is a 2 x 2 block of tiles whose top-left, top-right, bottom-left and bottom-right tiles wrap
    ``corners``.

    Example:
        >>> g = from_text("StSEp StSWb\\nStNEu GtNWp")
        >>> find_walkways(g.tiles, ("SE", "SW", "NE", "NW"))
        ([(0, 0)], [])
    """
    complete: list[Cell] = []
    mixed: list[Cell] = []
    for r in range(len(tiles) - 1):
        for c in range(min(len(tiles[r]), len(tiles[r + 1])) - 1):
            block = [tiles[r][c], tiles[r][c + 1], tiles[r + 1][c], tiles[r + 1][c + 1]]
            placed = [tile for tile in block if tile is not None]
            if tuple(tile.corner for tile in placed) != corners:
                continue
            if len({tile.path for tile in placed}) == 1:
                complete.append((r, c))
            else:
                mixed.append((r, c))
    return complete, mixed


def _cells(cells: Sequence[Cell]) -> str:
    return "; ".join(cell_name(cell) for cell in cells)


def _walkway_line(tiles: Sequence[Sequence[ZenTile | None]], corners: tuple[str, str, str, str]) -> ScoreLine:
    complete, mixed = find_walkways(tiles, corners)
    points = table_points(WALKWAY_POINTS, len(complete))
    detail = f"{len(complete)} at {_cells(complete)} = {points}" if complete else "none"
    if mixed:
        detail += f"; mixed paths at {_cells(mixed)} score nothing"
    return ScoreLine("Complete walkways", detail, points)


def _decor_line(tiles: Sequence[ZenTile]) -> ScoreLine:
    counts = Counter(tile.decor for tile in tiles)
    ranked = sorted(DECORS, key=lambda decor: -counts[decor])
    scored = [(decor, table_points(DECOR_POINTS, counts[decor])) for decor in ranked]
    parts = [f"{describe(counts[d], EmperorTile('decor', d))} = {p}" for d, p in scored if p]
    if not parts:
        top = counts[ranked[0]]
        most = ", ".join(describe(top, EmperorTile("decor", d)) for d in ranked if counts[d] == top)
        return ScoreLine("Decor", f"no decor {_DECOR_MINIMUM} times or more (most: {most})", 0)
    return ScoreLine("Decor", ", ".join(parts), sum(p for _, p in scored))


def _per_tile_line(rule: str, tiles: Sequence[ZenTile], emperor: EmperorTile, each: int) -> ScoreLine:
    count = count_matching(tiles, emperor)
    return ScoreLine(rule, f"{describe(count, emperor)} x {each}", each * count)


def _majority_line(count: int, points: int, counts: Sequence[int], emperor: EmperorTile) -> ScoreLine:
    if points == MAJORITY_FIRST_POINTS:
        place = "the most"
    elif points == MAJORITY_SECOND_POINTS:
        place = "second most"
    else:
        place = "neither most nor second most"
    if points and counts.count(count) > 1:
        place += ", tied"
    table = ", ".join(str(n) for n in sorted(counts, reverse=True))
    return ScoreLine("Majority", f"{describe(count, emperor)}: {place} (all players: {table})", points)


def _attention_line(tiles: Sequence[ZenTile], emperor: EmperorTile) -> ScoreLine:
    count = count_matching(tiles, emperor)
    points = table_points(ATTENTION_POINTS, count)
    return ScoreLine("Attention to detail", f"{describe(count, emperor)} = {points}", points)


def _area_count(floors: Sequence[Sequence[str]], floor: str) -> int:
    return len(components4(floors, lambda f: f == floor))


def _unity_line(tiles: Sequence[Sequence[ZenTile | None]]) -> ScoreLine:
    # An empty cell gets no floor name, so it never joins an area.
    floors = [[tile.floor if tile else "" for tile in row] for row in tiles]
    split = [(floor, n) for floor in FLOORS if (n := _area_count(floors, floor)) > 1]
    if split:
        return ScoreLine("Unity", ", ".join(f"{floor} in {n} areas" for floor, n in split), 0)
    return ScoreLine("Unity", "each floor forms one area", UNITY_POINTS)


def _minimalistic_line(tiles: Sequence[ZenTile]) -> ScoreLine:
    present = [floor for floor in FLOORS if any(tile.floor == floor for tile in tiles)]
    points = table_points(MINIMALISTIC_POINTS, len(present))
    return ScoreLine("Minimalistic", f"{len(present)} floors ({', '.join(present)}) = {points}", points)


def _mission_line(rule: str, missions: Sequence[str], taken: Mapping[str, int]) -> ScoreLine:
    parts = [f"mission {m}: {taken[m]}" if m in taken else f"mission {m}: none" for m in missions]
    return ScoreLine(rule, ", ".join(parts), sum(taken.get(m, 0) for m in missions))


def _placed(board: ZenBoard) -> list[ZenTile]:
    return [tile for row in board.tiles for tile in row if tile is not None]


def _lines(board: ZenBoard, setup: ZenSetup, majority: ScoreLine) -> tuple[ScoreLine, ...]:
    tiles = _placed(board)
    prefs = setup.preferences
    lines = [
        ScoreLine("Coins", f"{board.coins} coins x {COIN_POINTS}", COIN_POINTS * board.coins),
        _walkway_line(board.tiles, setup.walkway_corners),
        _decor_line(tiles),
        _per_tile_line("Minor preference", tiles, prefs["minor"], MINOR_POINTS),
        _per_tile_line("Major preference", tiles, prefs["major"], MAJOR_POINTS),
        majority,
        _attention_line(tiles, prefs["attention"]),
    ]
    if 2 in setup.boards:
        lines.append(_unity_line(board.tiles))
    if 3 in setup.boards:
        lines.append(_minimalistic_line(tiles))
    for number, missions in BOARD_MISSIONS.items():
        if number in setup.boards:
            lines.append(_mission_line(BOARDS[number], missions, board.mission_points))
    return tuple(lines)


def score(table: ZenTable) -> TableScore:
    """Score every garden; raises :class:`~scoring.core.InvalidState` if :func:`check` finds problems."""
    require_valid(check(table))
    setup = table.setup
    wanted = setup.preferences["majority"]
    counts = [count_matching(_placed(board), wanted) for board in table.players]
    majority = majority_points(counts, setup.majority_needs_tile)
    return TableScore(
        GAME,
        tuple(
            ScoreBreakdown(
                GAME,
                _lines(board, setup, _majority_line(counts[i], majority[i], counts, wanted)),
                board.name,
                (board.coins,),
                "more leftover coins",
            )
            for i, board in enumerate(table.players)
        ),
    )
