"""Pure grid helpers shared by the rule engines (cells are ``(row, col)``, 0-based)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
Cell = tuple[int, int]


def neighbours4(cell: Cell, rows: int, cols: int) -> Iterator[Cell]:
    """The orthogonal neighbours of ``cell`` that lie on a ``rows`` x ``cols`` grid."""
    r, c = cell
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            yield nr, nc


def components4(grid: Sequence[Sequence[T]], member: Callable[[T], bool]) -> list[list[Cell]]:
    """Orthogonally connected areas of the cells whose value satisfies ``member``.

    Areas come in reading order of their first cell; each area lists its cells in the order found.

    Example:
        >>> [len(a) for a in components4(["RR.", "..R"], lambda ch: ch == "R")]
        [2, 1]
    """
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    seen: set[Cell] = set()
    areas: list[list[Cell]] = []
    for r in range(rows):
        for c in range(cols):
            if (r, c) in seen or not member(grid[r][c]):
                continue
            area: list[Cell] = []
            stack = [(r, c)]
            seen.add((r, c))
            while stack:
                cell = stack.pop()
                area.append(cell)
                for n in neighbours4(cell, rows, cols):
                    if n not in seen and member(grid[n[0]][n[1]]):
                        seen.add(n)
                        stack.append(n)
            areas.append(sorted(area))
    return areas


def cell_name(cell: Cell) -> str:
    """A player-facing name: rows and columns counted from 1, as on a score sheet.

    Example:
        >>> cell_name((0, 7))
        'row 1, column 8'
    """
    return f"row {cell[0] + 1}, column {cell[1] + 1}"
