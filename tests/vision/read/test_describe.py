"""Described cells: the colour and texture features a user's own grid game is taught on."""

from __future__ import annotations

import numpy as np

from vision.read.cells import CellGrid
from vision.read.describe import SIZE_PX, DescribedCells, describe


def _tiles(rng: np.random.Generator) -> np.ndarray:
    """Four crops: a plain yellow tile, a green one with a dark stripe, a blue one with noise, a grey one
    with a white spot off its centre (what a quarter turn moves)."""
    crops = np.zeros((4, 48, 48, 3), np.uint8)
    crops[0] = (40, 200, 220)
    crops[1] = (40, 150, 40)
    crops[1, 5:12] = (10, 30, 10)
    crops[2] = np.clip(rng.normal((200, 90, 30), 20, (48, 48, 3)), 0, 255)
    crops[3] = (120, 120, 120)
    crops[3, 6:16, 30:40] = 255
    return crops


def test_a_cell_is_described_alike_whichever_way_its_tile_is_turned() -> None:
    crops = _tiles(np.random.default_rng(0))
    features = describe(crops)
    assert features.shape[0] == 4 and np.isfinite(features).all()
    for turns in (1, 2, 3):
        turned = np.ascontiguousarray(np.rot90(crops, turns, axes=(1, 2)))
        # Alike up to resampling at the crop's rim: far less than tiles differ (below).
        np.testing.assert_allclose(describe(turned), features, atol=0.01)
    # Different tiles are described differently, each further from the others than from itself turned.
    distances = np.linalg.norm(features[:, None] - features[None], axis=2)
    assert (distances[~np.eye(4, dtype=bool)] > 0.3).all()


def test_a_lighter_photo_moves_the_description_less_than_another_tile_does() -> None:
    crops = _tiles(np.random.default_rng(1))
    brighter = np.clip(crops.astype(np.float32) * 1.1, 0, 255).astype(np.uint8)
    a, b = describe(crops), describe(brighter)
    same = np.linalg.norm(a - b, axis=1)
    others = np.linalg.norm(a[:, None] - a[None], axis=2) + np.eye(4) * 1e9
    assert (same < others.min(axis=1)).all()


def test_described_cells_answer_as_a_classifier_of_no_heads() -> None:
    crops = _tiles(np.random.default_rng(2))
    crops = np.stack([np.resize(c, (SIZE_PX, SIZE_PX, 3)) for c in crops])
    keys = tuple(("grid", 0, i) for i in range(4))
    pred = DescribedCells("custom-grid").classify(CellGrid(crops, keys))
    assert pred.keys == keys and pred.heads == ()
    np.testing.assert_allclose(pred.embedding, describe(crops))
    assert DescribedCells.model_id.startswith("described-")
