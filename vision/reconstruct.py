"""Read the cells of a board together where the board itself says how many pieces they hold.

A classifier judges each cell alone; a coin track holds exactly one marker and a Sanssouci column exactly one
nobleman, so a faint "marker here" on one space and a sure one on another are not two markers but one: the
surer. :func:`settle` turns each cell's own probabilities into the probability that the group's one piece is
on it, given what every cell of the group shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.classify import CellPredictions
from vision.reader_api import OneOf

# Probabilities are kept this far from 0 and 1, so one cell read with certainty cannot divide by zero.
_EPSILON = 1e-6


def settle(predictions: CellPredictions, groups: Sequence[OneOf]) -> CellPredictions:
    """``predictions`` with each group's cells read as one: if the cells' readings were independent, the
    chance the piece is on cell i, given that exactly one cell holds it, is proportional to i's odds of
    holding a piece, p_i / (1 - p_i). A cell keeps its own split between the piece's classes (a nobleman's
    colour). Cells in no group are unchanged."""
    if not groups:
        return predictions
    index = {key: i for i, key in enumerate(predictions.keys)}
    probabilities = {name: p.copy() for name, p in predictions.probabilities.items()}
    for group in groups:
        head = next((h for h in predictions.heads if h.name == group.head), None)
        if head is None or group.absent not in head.classes:
            raise ValueError(f"no head {group.head!r} with a class {group.absent!r} to read a group by")
        rows = np.array([index[key] for key in group.keys])
        p = probabilities[group.head]
        absent = head.classes.index(group.absent)
        here = np.clip(1.0 - p[rows, absent].astype(np.float64), _EPSILON, 1.0 - _EPSILON)
        odds = here / (1.0 - here)
        share = odds / odds.sum()
        piece = np.delete(p[rows], absent, axis=1).astype(np.float64)
        total = piece.sum(axis=1, keepdims=True)
        # A cell sure to be empty has no split of its own: an even one.
        split = np.where(total > 0, piece / np.where(total > 0, total, 1.0), 1.0 / piece.shape[1])
        p[rows] = np.insert(split * share[:, None], absent, 1.0 - share, axis=1).astype(np.float32)
    return CellPredictions(predictions.keys, predictions.heads, probabilities, predictions.embedding)
