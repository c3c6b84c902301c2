"""Cells that look alike: a player who sets one misread cell right is offered the others that look like it.

A copy's own art is misread the same way wherever it lies (a mushroom of new paint read as a tree on every
square that holds one). The classifier's per-cell embedding says which cells look alike, whatever they were
read as: a cell's looks are its embedding scaled to unit length, kept with the result (as float16: a board's
48 cells take 9 kB), and two cells look alike when their cosine is at least :data:`LOOK_ALIKE`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

# Chosen on Alice's Garden own copies 4-6 (gouache art, untaught, 8 photos each): pairs of a misread cell and
# another read as it was, the other misread the same way (1702) or read right (1654): at 0.96 97.8 % and none,
# at 0.95 99.5 % and 1, at 0.93 99.9 % and 83. Left out, copies 1-3: 94.4 % and 32 (all 32 on one board found
# a few per cent off, whose cells show their neighbours), Sanssouci copies 1-6: 73 % and none.
LOOK_ALIKE = 0.96


def looks(embedding: NDArray[np.floating]) -> NDArray[np.float16]:
    """Each cell's embedding scaled to unit length (a cell with none, a zero embedding, stays zero)."""
    e = np.asarray(embedding, np.float64)
    size = np.linalg.norm(e, axis=1, keepdims=True)
    scaled: NDArray[np.float16] = (e / np.maximum(size, 1e-12)).astype(np.float16)
    return scaled


def alike(cell: NDArray[np.floating], boards: Sequence[NDArray[np.floating]]) -> list[tuple[int, int]]:
    """(board, cell) of every cell of ``boards`` (each its cells' :func:`looks`) that looks like ``cell``
    (its looks), the most alike first; the cell itself, alike itself, among them."""
    found: list[tuple[float, int, int]] = []
    want = np.asarray(cell, np.float32)
    for b, board in enumerate(boards):
        cosines = np.asarray(board, np.float32) @ want
        found.extend((float(cosines[k]), b, int(k)) for k in np.flatnonzero(cosines >= LOOK_ALIKE))
    return [(b, k) for _, b, k in sorted(found, key=lambda x: (-x[0], x[1], x[2]))]
