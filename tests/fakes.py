"""Test doubles: a classifier that reads the truth of a synthetic photo instead of pixels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

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
