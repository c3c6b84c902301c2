"""Kingdomino (Bruno Cathala, Blue Orange): a kingdom of terrain squares round a castle.

A state is one player's kingdom, ``{"game": "kingdomino", "cells": [[cell, ...], ...], "setup": {...}}``,
row 0 the kingdom's top as photographed. A cell is ``"TERRAIN:CROWNS"`` (a terrain of :data:`TERRAINS`, 0-3
crowns), ``"castle"`` (the starting tile) or ``"empty"`` (no square there: a domino that could not be placed
was discarded). ``setup``: ``size`` 5 (the kingdom is at most 5 x 5 squares; 7 in the two-player Mighty
Duel), and the optional bonus rules announced before play, ``middle_kingdom`` (+10 with the castle in the
kingdom's centre) and ``harmony`` (+5 for a kingdom of every square, none discarded), both off unless set.

Scoring: a property is a group of orthogonally connected squares of one terrain; it scores its squares
times the crowns on them, so a property without crowns scores nothing. The castle belongs to no property.
Ties go to the largest property (squares), then to the most crowns.

Example:
    >>> board = parse_board({"game": GAME, "cells": [["forest:1", "forest:0", "castle"]]})
    >>> [(line.rule, line.points) for line in score(board).lines]
    [('Forest', 2)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, StateError, require_valid
from scoring.fields import as_bool, as_int, as_list, as_object, as_str, get, item_path, reject_unknown
from scoring.grid import Cell, cell_name, components4
from scoring.hand import Form, Group, Number
from scoring.words import counted

GAME = "kingdomino"
TITLE = "Kingdomino"
TERRAINS = ("field", "forest", "lake", "grassland", "swamp", "mine")
# The rulebook's names, for the score lines.
TERRAIN_NAMES: Mapping[str, str] = {
    "field": "Wheat field",
    "forest": "Forest",
    "lake": "Lake",
    "grassland": "Grassland",
    "swamp": "Swamp",
    "mine": "Mine",
}
CASTLE = "castle"
EMPTY = "empty"
MAX_CROWNS = 3
SIZES = (5, 7)
MIDDLE_KINGDOM_POINTS = 10
HARMONY_POINTS = 5
# Every value a cell may hold, in a fixed order: the terrains with each crown count, the castle, no square.
CELL_VALUES = (*(f"{t}:{n}" for t in TERRAINS for n in range(MAX_CROWNS + 1)), CASTLE, EMPTY)
# Each value's name, for a player correcting a cell.
CELL_LABELS: Mapping[str, str] = {
    **{
        f"{t}:{n}": f"{TERRAIN_NAMES[t]}, {n} crown{'s' if n != 1 else ''}"
        for t in TERRAINS
        for n in range(4)
    },
    CASTLE: "Castle",
    EMPTY: "No square",
}

# What the photo cannot show: how large a kingdom the table plays (the Mighty Duel's are 7 x 7).
HAND_FORM: Form = (
    Group(
        "setup",
        "The game's set-up",
        (
            Number(
                "size",
                "Squares along a kingdom's side",
                min(SIZES),
                max(SIZES),
                min(SIZES),
                hint="5; 7 in the two-player Mighty Duel",
            ),
        ),
    ),
)


@dataclass(frozen=True)
class Square:
    """A terrain square and its crowns; the castle and an empty place are no square."""

    terrain: str
    crowns: int


@dataclass(frozen=True)
class KingdomSetup:
    size: int = 5
    middle_kingdom: bool = False
    harmony: bool = False


@dataclass(frozen=True)
class Kingdom:
    """``cells`` hold a :class:`Square`, :data:`CASTLE` or :data:`EMPTY`, row by row."""

    cells: tuple[tuple[Square | str, ...], ...]
    setup: KingdomSetup = KingdomSetup()


def parse_cell(text: object, path: str) -> Square | str:
    """One cell from its text; a malformed one raises StateError naming the field and the forms."""
    value = as_str(text, path)
    if value in (CASTLE, EMPTY):
        return value
    terrain, sep, crowns = value.partition(":")
    if not sep or terrain not in TERRAINS or not crowns.isdigit():
        raise StateError(
            f"{path}: {value!r} is not a square; give TERRAIN:CROWNS (terrain one of {', '.join(TERRAINS)}), "
            f"{CASTLE!r} or {EMPTY!r}"
        )
    return Square(terrain, int(crowns))


def cell_text(cell: Square | str) -> str:
    return f"{cell.terrain}:{cell.crowns}" if isinstance(cell, Square) else cell


def parse_setup(data: object, path: str = "setup") -> KingdomSetup:
    obj = as_object(data, path)
    reject_unknown(obj, ("size", "middle_kingdom", "harmony"), path)
    size = as_int(get(obj, "size", path, 5), item_path(path, "size"))
    if size not in SIZES:
        raise StateError(
            f"{item_path(path, 'size')}: a kingdom is 5 x 5 squares, or 7 x 7 in the Mighty Duel"
        )
    return KingdomSetup(
        size,
        as_bool(get(obj, "middle_kingdom", path, False), item_path(path, "middle_kingdom")),
        as_bool(get(obj, "harmony", path, False), item_path(path, "harmony")),
    )


def dump_setup(setup: KingdomSetup) -> dict[str, Any]:
    return {"size": setup.size, "middle_kingdom": setup.middle_kingdom, "harmony": setup.harmony}


def parse_board(data: object, path: str = "") -> Kingdom:
    obj = as_object(data, path)
    reject_unknown(obj, ("game", "name", "cells", "setup"), path)
    setup = parse_setup(obj["setup"], item_path(path, "setup")) if "setup" in obj else KingdomSetup()
    cells_path = item_path(path, "cells")
    rows = []
    for r, row in enumerate(as_list(get(obj, "cells", path), cells_path)):
        row_path = item_path(cells_path, r)
        rows.append(
            tuple(parse_cell(v, item_path(row_path, c)) for c, v in enumerate(as_list(row, row_path)))
        )
    return Kingdom(tuple(rows), setup)


def dump_board(kingdom: Kingdom) -> dict[str, Any]:
    return {
        "game": GAME,
        "cells": [[cell_text(cell) for cell in row] for row in kingdom.cells],
        "setup": dump_setup(kingdom.setup),
    }


def _castles(kingdom: Kingdom) -> list[Cell]:
    return [(r, c) for r, row in enumerate(kingdom.cells) for c, cell in enumerate(row) if cell == CASTLE]


def check(kingdom: Kingdom) -> tuple[Problem, ...]:
    """Every problem of the kingdom: its size, its one castle, crowns a square cannot hold."""
    problems: list[Problem] = []
    size = kingdom.setup.size
    widths = {len(row) for row in kingdom.cells}
    if not 1 <= len(kingdom.cells) <= size or len(widths) != 1 or not 1 <= min(widths) <= size:
        problems.append(
            Problem("kingdom-size", "cells", f"a kingdom is rows of equal length, at most {size} x {size}")
        )
    castles = _castles(kingdom)
    if len(castles) != 1:
        where = "; ".join(cell_name(c) for c in castles) or "none"
        problems.append(Problem("castle-count", "cells", f"a kingdom has one castle, found {where}"))
    for r, row in enumerate(kingdom.cells):
        for c, cell in enumerate(row):
            if isinstance(cell, Square) and not 0 <= cell.crowns <= MAX_CROWNS:
                problems.append(
                    Problem("crowns", f"cells[{r}][{c}]", f"a square shows 0 to {MAX_CROWNS} crowns")
                )
    return tuple(problems)


def properties(kingdom: Kingdom) -> list[tuple[str, list[Cell]]]:
    """The kingdom's properties, each its terrain and its orthogonally connected squares, in reading order."""
    out: list[tuple[str, list[Cell]]] = []
    for terrain in TERRAINS:

        def member(cell: Square | str, terrain: str = terrain) -> bool:
            return isinstance(cell, Square) and cell.terrain == terrain

        out += [(terrain, area) for area in components4(kingdom.cells, member)]
    return sorted(out, key=lambda prop: prop[1][0])


def _crowns(kingdom: Kingdom, area: list[Cell]) -> int:
    total = 0
    for r, c in area:
        cell = kingdom.cells[r][c]
        total += cell.crowns if isinstance(cell, Square) else 0
    return total


def _full_size(kingdom: Kingdom) -> bool:
    """Whether the kingdom's grid is the whole size x size frame (whatever its squares hold)."""
    size = kingdom.setup.size
    return len(kingdom.cells) == size and all(len(row) == size for row in kingdom.cells)


def score(kingdom: Kingdom) -> ScoreBreakdown:
    require_valid(check(kingdom))
    lines = []
    no_crowns = 0
    largest = all_crowns = 0
    for terrain, area in properties(kingdom):
        crowns = _crowns(kingdom, area)
        largest, all_crowns = max(largest, len(area)), all_crowns + crowns
        if crowns == 0:
            no_crowns += 1
            continue
        lines.append(
            ScoreLine(
                TERRAIN_NAMES[terrain],
                f"{counted(len(area), 'square')} from {cell_name(area[0])} x {counted(crowns, 'crown')}",
                len(area) * crowns,
            )
        )
    if no_crowns:
        properties_none = counted(no_crowns, "property", "properties")
        verb = "scores" if no_crowns == 1 else "score"
        lines.append(ScoreLine("Properties without crowns", f"{properties_none} {verb} nothing", 0))
    setup = kingdom.setup
    if setup.middle_kingdom:
        (castle,) = _castles(kingdom)
        middle = _full_size(kingdom) and castle == (setup.size // 2, setup.size // 2)
        detail = (
            "the castle is the centre square"
            if middle
            else f"the castle at {cell_name(castle)} is not central"
        )
        lines.append(ScoreLine("Middle Kingdom", detail, MIDDLE_KINGDOM_POINTS if middle else 0))
    if setup.harmony:
        complete = _full_size(kingdom) and all(EMPTY not in row for row in kingdom.cells)
        detail = "every square of the kingdom laid" if complete else "the kingdom has empty squares"
        lines.append(ScoreLine("Harmony", detail, HARMONY_POINTS if complete else 0))
    return ScoreBreakdown(
        GAME,
        tuple(lines),
        tiebreak=(largest, all_crowns),
        tiebreak_rule="largest property (squares), then crowns",
    )
