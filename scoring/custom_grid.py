"""A user-defined grid game: any board of R x C cells whose tiles the user names and enrols on the table.

The rules are the simplest a player can check by hand: every cell showing a label scores that label's points
(labels without points score nothing, e.g. ``empty``). A state is ``{"game": "custom-grid", "cells": [[label,
...], ...], "setup": {"labels": [...], "points": {label: points}, "once": [...]}}``; the labels and points
come from the board profile the user made with ``garden-scorer enroll --rows R --cols C --labels ...``.
``once`` (optional) names the labels every board shows on exactly one cell: a starting tile, a castle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, StateError, require_valid
from scoring.fields import as_int, as_list, as_object, as_str, get, item_path, reject_unknown

GAME = "custom-grid"
TITLE = "Custom grid game"
MAX_SIDE = 40


@dataclass(frozen=True)
class CustomSpec:
    """The game's labels, in the order the user gave them, and the points each is worth."""

    labels: tuple[str, ...]
    points: Mapping[str, int]
    # Labels every board shows on exactly one cell (a starting tile): the reader reads them so.
    once: tuple[str, ...] = ()


@dataclass(frozen=True)
class CustomBoard:
    cells: tuple[tuple[str, ...], ...]
    spec: CustomSpec


def parse_spec(data: object, path: str) -> CustomSpec:
    obj = as_object(data, path)
    reject_unknown(obj, ("labels", "points", "once"), path)
    labels_path = item_path(path, "labels")
    labels = tuple(
        as_str(v, item_path(labels_path, i))
        for i, v in enumerate(as_list(get(obj, "labels", path), labels_path))
    )
    if len(labels) < 2:
        raise StateError(f"{labels_path}: give at least two labels (e.g. empty and one tile)")
    if len(set(labels)) != len(labels) or not all(labels):
        raise StateError(f"{labels_path}: labels must be distinct and not empty")
    points_path = item_path(path, "points")
    raw = as_object(get(obj, "points", path, {}), points_path)
    reject_unknown(raw, labels, points_path)
    points = {label: as_int(v, item_path(points_path, label), -1000, 1000) for label, v in raw.items()}
    once_path = item_path(path, "once")
    once = tuple(
        as_str(v, item_path(once_path, i))
        for i, v in enumerate(as_list(get(obj, "once", path, []), once_path))
    )
    strangers = [label for label in once if label not in labels]
    if strangers or len(set(once)) != len(once):
        raise StateError(f"{once_path}: name distinct labels of this game ({', '.join(labels)})")
    return CustomSpec(labels, MappingProxyType(points), once)


def dump_spec(spec: CustomSpec) -> dict[str, Any]:
    once = {"once": list(spec.once)} if spec.once else {}
    return {"labels": list(spec.labels), "points": dict(spec.points), **once}


def parse_board(data: object, path: str = "") -> CustomBoard:
    obj = as_object(data, path)
    reject_unknown(obj, ("game", "name", "cells", "setup"), path)
    spec = parse_spec(get(obj, "setup", path), item_path(path, "setup"))
    cells_path = item_path(path, "cells")
    rows = as_list(get(obj, "cells", path), cells_path)
    cells = []
    for r, row in enumerate(rows):
        row_path = item_path(cells_path, r)
        cells.append(tuple(as_str(v, item_path(row_path, c)) for c, v in enumerate(as_list(row, row_path))))
    return CustomBoard(tuple(cells), spec)


def dump_board(board: CustomBoard) -> dict[str, Any]:
    return {"game": GAME, "cells": [list(row) for row in board.cells], "setup": dump_spec(board.spec)}


def check(board: CustomBoard) -> tuple[Problem, ...]:
    problems: list[Problem] = []
    if not board.cells or not 1 <= len(board.cells) <= MAX_SIDE:
        problems.append(Problem("grid-size", "cells", f"expected 1 to {MAX_SIDE} rows"))
    widths = {len(row) for row in board.cells}
    if len(widths) > 1 or not all(1 <= w <= MAX_SIDE for w in widths):
        problems.append(Problem("grid-size", "cells", f"every row needs the same 1 to {MAX_SIDE} cells"))
    known = set(board.spec.labels)
    for r, row in enumerate(board.cells):
        for c, label in enumerate(row):
            if label not in known:
                problems.append(
                    Problem(
                        "unknown-label",
                        f"cells[{r}][{c}]",
                        f"{label!r} is not a label of this game ({', '.join(board.spec.labels)})",
                    )
                )
    for label in board.spec.once:
        shown = sum(row.count(label) for row in board.cells)
        if shown != 1:
            problems.append(
                Problem(
                    "once-label", "cells", f"every board shows {label!r} on exactly one cell, not {shown}"
                )
            )
    return tuple(problems)


def score(board: CustomBoard) -> ScoreBreakdown:
    require_valid(check(board))
    counts = {label: sum(row.count(label) for row in board.cells) for label in board.spec.labels}
    lines = tuple(
        ScoreLine(label, f"{counts[label]} x {points} points", counts[label] * points)
        for label, points in board.spec.points.items()
    )
    return ScoreBreakdown(GAME, lines)
