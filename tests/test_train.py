"""Parts of the classifier recipe that a wrong line would spoil silently (need the train extra)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.readers import IGNORE


def test_turned_crops_teach_only_the_heads_whose_art_has_no_up() -> None:
    torch = pytest.importorskip("torch")
    from models.train import turn_some

    x = torch.arange(64 * 3 * 4 * 4, dtype=torch.float32).reshape(64, 3, 4, 4)
    targets = {"square": torch.arange(64), "noble": torch.arange(64) % 5}
    turned, t = turn_some(x, targets, ("square",), torch.Generator().manual_seed(3))
    same = (turned == x).flatten(1).all(dim=1)
    # About half the batch is turned; each turned crop is its own crop turned a whole number of quarters.
    assert 16 < int((~same).sum()) < 48
    for i in np.flatnonzero(~same.numpy()):
        assert any(torch.equal(turned[i], torch.rot90(x[i], q, dims=(1, 2))) for q in (1, 2, 3))
    torch.testing.assert_close(t["square"], targets["square"])
    assert bool((t["noble"][~same] == IGNORE).all())
    torch.testing.assert_close(t["noble"][same], targets["noble"][same])
    # The caller's tensors are left as they were.
    assert int((targets["noble"] == IGNORE).sum()) == 0
