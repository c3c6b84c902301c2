"""Cells that look alike: the cosine of their embeddings, over every board of a result."""

from __future__ import annotations

import numpy as np

from vision.read.alike import LOOK_ALIKE, alike, looks


def test_looks_are_unit_length_and_a_blank_cell_stays_blank() -> None:
    kept = looks(np.array([[3.0, 4.0], [0.0, 0.0]], np.float32))
    assert kept.dtype == np.float16
    np.testing.assert_allclose(kept.astype(np.float64), [[0.6, 0.8], [0.0, 0.0]], atol=1e-3)


def test_cells_alike_on_every_board_are_found_most_alike_first() -> None:
    angle = np.arccos(LOOK_ALIKE)
    near, far = angle * 0.5, angle * 1.6  # inside and outside the line
    first = looks(np.array([[1.0, 0.0], [np.cos(far), np.sin(far)], [np.cos(near), np.sin(near)]]))
    second = looks(np.array([[np.cos(near / 2), -np.sin(near / 2)], [0.0, 1.0]]))
    assert alike(first[0], [first, second]) == [(0, 0), (1, 0), (0, 2)]
    # Alike is not a chain: the cell beyond the line stays out however close it lies to one inside it.
    assert (0, 1) not in alike(first[2], [first, second])
