"""Alice's Garden: end-of-game scoring of one 6 x 8 player board.

Rulebook (Red Cat Games 2022), "Scoring rules": 5 per chess piece on the central path; 1/4/9/16/25 per
orthogonal rose area of 1..5 (larger areas stay 25); 8 per column with at least 2 mushrooms; per row the
longest inclusive distance between neighbouring trees; -5 per empty area; -5 per unplaced bonus tile.

The board's orientation and chess path are guesses until a real board is photographed, so they live in
:class:`AliceSpec` (a board profile or the state's ``setup``), not in the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, require_valid
from scoring.fields import as_int, as_list, as_object, as_str, get, item_path, reject_unknown
from scoring.grid import cell_name, components4
from scoring.hand import Form, Number
from scoring.words import counted

GAME = "alices-garden"
TITLE = "Alice's Garden"

ROSE, MUSHROOM, TREE, CHESS, GARDENER, EMPTY = "R", "M", "T", "C", "G", "."
LABELS: Mapping[str, str] = {
    ROSE: "rose",
    MUSHROOM: "mushroom",
    TREE: "tree",
    CHESS: "chess piece",
    GARDENER: "gardener",
    EMPTY: "empty",
}

CHESS_POINTS = 5
MUSHROOM_COLUMN_POINTS = 8
EMPTY_AREA_POINTS = -5
UNPLACED_BONUS_POINTS = -5
ROSE_AREA_CAP = 5


# What the players type in (scoring.hand): the photo shows the garden, not the tiles left in front of you.
HAND_FORM: Form = (
    Number(
        "unplaced_bonus_tiles",
        "Bonus tiles you could not place",
        0,
        30,
        hint="the bonus tiles still in front of you at the end",
    ),
)


@dataclass(frozen=True)
class AliceSpec:
    """Board geometry: grid size and the 0-based columns of the checkerboard chess path."""

    rows: int = 6
    cols: int = 8
    chess_columns: tuple[int, ...] = (3, 4)


@dataclass(frozen=True)
class AliceBoard:
    """One player's finished board: ``rows`` top to bottom, one character per cell (see ``LABELS``)."""

    rows: tuple[str, ...]
    unplaced_bonus_tiles: int = 0
    spec: AliceSpec = field(default_factory=AliceSpec)


def to_text(board: AliceBoard) -> str:
    """The board's rows, one line each; :func:`from_text` reads it back."""
    return "\n".join(board.rows)


def from_text(text: str, unplaced_bonus_tiles: int = 0, spec: AliceSpec | None = None) -> AliceBoard:
    """A board from its text form (blank lines and surrounding spaces ignored).

    Example:
        >>> from_text("RRTT\\n....", spec=AliceSpec(rows=2, cols=4, chess_columns=(1, 2))).rows
        ('RRTT', '....')
    """
    rows = tuple(line.strip() for line in text.strip().splitlines() if line.strip())
    return AliceBoard(rows, unplaced_bonus_tiles, spec or AliceSpec())


def parse_spec(data: object, path: str) -> AliceSpec:
    obj = as_object(data, path)
    reject_unknown(obj, ("rows", "cols", "chess_columns"), path)
    default = AliceSpec()
    rows = as_int(get(obj, "rows", path, default.rows), item_path(path, "rows"), 1, 40)
    cols = as_int(get(obj, "cols", path, default.cols), item_path(path, "cols"), 1, 40)
    chess_path = item_path(path, "chess_columns")
    raw = as_list(get(obj, "chess_columns", path, [c + 1 for c in default.chess_columns]), chess_path)
    # Columns are numbered from 1 in files, as a player counts them.
    chess = tuple(as_int(v, item_path(chess_path, i), 1, cols) - 1 for i, v in enumerate(raw))
    return AliceSpec(rows, cols, chess)


def dump_spec(spec: AliceSpec) -> dict[str, Any]:
    return {"rows": spec.rows, "cols": spec.cols, "chess_columns": [c + 1 for c in spec.chess_columns]}


def parse_board(data: object, path: str = "") -> AliceBoard:
    """A board from decoded JSON (``rows``, optional ``unplaced_bonus_tiles``); errors name the field."""
    obj = as_object(data, path)
    reject_unknown(obj, ("game", "name", "rows", "unplaced_bonus_tiles", "setup"), path)
    spec = parse_spec(obj["setup"], item_path(path, "setup")) if "setup" in obj else AliceSpec()
    rows_path = item_path(path, "rows")
    rows = tuple(
        as_str(v, item_path(rows_path, i)) for i, v in enumerate(as_list(get(obj, "rows", path), rows_path))
    )
    unplaced = as_int(
        get(obj, "unplaced_bonus_tiles", path, 0), item_path(path, "unplaced_bonus_tiles"), 0, 30
    )
    return AliceBoard(rows, unplaced, spec)


def dump_board(board: AliceBoard) -> dict[str, Any]:
    return {
        "game": GAME,
        "rows": list(board.rows),
        "unplaced_bonus_tiles": board.unplaced_bonus_tiles,
        "setup": dump_spec(board.spec),
    }


def check(board: AliceBoard) -> tuple[Problem, ...]:
    """Every problem that makes the board unscorable (an empty tuple when it is fine)."""
    spec = board.spec
    problems: list[Problem] = []
    if len(board.rows) != spec.rows:
        problems.append(Problem("grid-size", "rows", f"expected {spec.rows} rows, got {len(board.rows)}"))
    for r, row in enumerate(board.rows):
        if len(row) != spec.cols:
            problems.append(Problem("grid-size", f"rows[{r}]", f"expected {spec.cols} cells, got {len(row)}"))
        for c, ch in enumerate(row):
            if ch not in LABELS:
                known = ", ".join(f"{k} {v}" for k, v in LABELS.items())
                problems.append(
                    Problem(
                        "unknown-label", f"rows[{r}][{c}]", f"unknown cell {ch!r}; expected one of {known}"
                    )
                )
    for col in spec.chess_columns:
        if not 0 <= col < spec.cols:
            problems.append(
                Problem(
                    "bad-setup", "setup.chess_columns", f"column {col + 1} is off a {spec.cols}-column board"
                )
            )
    if board.unplaced_bonus_tiles < 0:
        problems.append(Problem("impossible-count", "unplaced_bonus_tiles", "cannot be negative"))
    return tuple(problems)


def _chess(board: AliceBoard) -> ScoreLine:
    on_path = sum(row[c] == CHESS for row in board.rows for c in board.spec.chess_columns)
    off_path = sum(row.count(CHESS) for row in board.rows) - on_path
    cols = "/".join(str(c + 1) for c in board.spec.chess_columns)
    detail = f"{on_path} on the path (columns {cols}) x {CHESS_POINTS}"
    if off_path:
        detail += f"; {off_path} off the path score 0"
    return ScoreLine("Chess pieces", detail, CHESS_POINTS * on_path)


def rose_area_points(size: int) -> int:
    """Points of one rose area: its size squared, capped at 5 squares.

    Example:
        >>> [rose_area_points(n) for n in (1, 2, 5, 7)]
        [1, 4, 25, 25]
    """
    return min(size, ROSE_AREA_CAP) ** 2


def _roses(board: AliceBoard) -> ScoreLine:
    areas = components4(board.rows, lambda ch: ch == ROSE)
    # As a player counts them: each group of roses, largest first, and what it scores.
    sizes = sorted((len(a) for a in areas), reverse=True)
    if not sizes:
        return ScoreLine("Roses", "no roses", 0)
    # "3 groups of 6, 1 and 1 roses": a list of "6 roses and 1 rose and 1 rose" is hard to read.
    listed = ", ".join(str(n) for n in sizes[:-1]) + f" and {sizes[-1]}" if len(sizes) > 1 else str(sizes[0])
    roses = f"{listed} {'rose' if sizes == [1] else 'roses'}"
    points = " + ".join(str(rose_area_points(n)) for n in sizes)
    detail = f"{counted(len(sizes), 'group')} of {roses}: {points}"
    return ScoreLine("Roses", detail, sum(rose_area_points(len(a)) for a in areas))


def _mushrooms(board: AliceBoard) -> ScoreLine:
    cols = [c for c in range(board.spec.cols) if sum(row[c] == MUSHROOM for row in board.rows) >= 2]
    detail = (
        f"2 or more in column{'s' if len(cols) > 1 else ''} {', '.join(str(c + 1) for c in cols)}"
        if cols
        else "no column has 2 or more"
    )
    return ScoreLine("Mushrooms", detail, MUSHROOM_COLUMN_POINTS * len(cols))


def tree_row_points(row: str) -> int:
    """Longest distance between neighbouring trees of one row, counting both tree squares.

    Example:
        >>> tree_row_points("T.T....T"), tree_row_points("TT......"), tree_row_points("...T....")
        (6, 2, 0)
    """
    cols = [c for c, ch in enumerate(row) if ch == TREE]
    return max((b - a + 1 for a, b in pairwise(cols)), default=0)


def _trees(board: AliceBoard) -> ScoreLine:
    scored = [(r, tree_row_points(row)) for r, row in enumerate(board.rows)]
    parts = [f"row {r + 1}: {p}" for r, p in scored if p]
    return ScoreLine("Trees", ", ".join(parts) if parts else "no row has 2 trees", sum(p for _, p in scored))


def _empty(board: AliceBoard) -> ScoreLine:
    areas = components4(board.rows, lambda ch: ch == EMPTY)
    where = "; ".join(cell_name(a[0]) for a in areas)
    detail = f"{len(areas)} empty {'area' if len(areas) == 1 else 'areas'}: at {where}" if areas else "none"
    return ScoreLine("Empty areas", detail, EMPTY_AREA_POINTS * len(areas))


def score(board: AliceBoard) -> ScoreBreakdown:
    """Score one board; raises :class:`~scoring.core.InvalidState` if :func:`check` finds problems.

    Example:
        >>> b = from_text("TT\\nRR", spec=AliceSpec(rows=2, cols=2, chess_columns=()))
        >>> [(line.rule, line.points) for line in score(b).lines if line.points]
        [('Roses', 4), ('Trees', 2)]
    """
    require_valid(check(board))
    lines = (
        _chess(board),
        _roses(board),
        _mushrooms(board),
        _trees(board),
        _empty(board),
        ScoreLine(
            "Unplaced bonus tiles",
            f"{board.unplaced_bonus_tiles} x {UNPLACED_BONUS_POINTS}",
            UNPLACED_BONUS_POINTS * board.unplaced_bonus_tiles,
        ),
    )
    return ScoreBreakdown(GAME, lines)
