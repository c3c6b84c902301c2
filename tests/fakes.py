"""Test doubles: a classifier that reads the truth of a synthetic photo instead of pixels, and a scorer that
answers every photo the web app is given with the same boards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from device.photo import ScoredBoard
from vision.profile import BoardProfile
from vision.read.cells import CellGrid
from vision.read.classify import CellPredictions
from vision.readers import IGNORE, get_reader


class TruthClassifier:
    """Answers every cell with its truth label at full confidence: isolates the pipeline from the model."""

    def __init__(self, profile: BoardProfile, truth_cells: Mapping[str, Any], crop_px: int = 32) -> None:
        self.reader = get_reader(profile.game)
        self.game = profile.game
        self.model_id = "truth"
        self.heads = self.reader.heads
        self.crop_px = crop_px
        self.context_mm = self.reader.context_mm
        self.lean_up = self.reader.lean_up
        self.profile = profile
        self.truth = truth_cells
        self.calls = 0

    def classify(self, cells: CellGrid) -> CellPredictions:
        self.calls += 1
        probs = {h.name: np.zeros((len(cells.keys), len(h.classes)), np.float32) for h in self.heads}
        for i, key in enumerate(cells.keys):
            label = self.truth[key[0]][key[1]][key[2]]
            for head, idx in self.reader.targets(self.profile, key, label).items():
                probs[head][i, 0 if idx == IGNORE else idx] = 1.0
        return CellPredictions(cells.keys, self.heads, probs, np.zeros((len(cells.keys), 4), np.float32))


@dataclass
class FakeScore:
    """Answers every photo with ``boards`` (or raises ``error``), noting what each call was given."""

    boards: list[ScoredBoard] = field(default_factory=list)
    error: Exception | None = None
    calls: list[tuple[tuple[int, ...], str, dict[str, Any], str | None]] = field(default_factory=list)
    # The shapes of the photos given with each call's first, to be read together with it.
    also: list[list[tuple[int, ...]]] = field(default_factory=list)
    # The corners each call was told the board lies at (None: find it).
    corners: list[list[list[float]] | None] = field(default_factory=list)

    def __call__(
        self,
        image: NDArray[np.uint8],
        game: str,
        hand: Mapping[str, Any],
        profile: str | None,
        also: Sequence[NDArray[np.uint8]] = (),
        /,
        *,
        corners: NDArray[np.float64] | None = None,
    ) -> list[ScoredBoard]:
        self.calls.append((image.shape, game, dict(hand), profile))
        self.also.append([a.shape for a in also])
        self.corners.append(None if corners is None else corners.tolist())
        if self.error is not None:
            raise self.error
        return self.boards
