"""Fixtures shared by the lab's tests."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

# Stand-ins for the labelled photos of real kingdoms (kingdomino-aau's form: a 5 x 5 kingdom filling a photo,
# 100 pixels a square): each label one flat colour, so what a square shows can be told from its label.
REAL_TILE_COLOURS = {
    "field:0": (40, 200, 230),
    "forest:1": (30, 90, 30),
    "lake:0": (200, 110, 30),
    "mine:2": (60, 60, 60),
    "castle": (220, 220, 220),
}


@pytest.fixture
def real_tiles(tmp_path: Path) -> Path:
    labels = list(REAL_TILE_COLOURS)
    for k in range(2):
        cells = [[labels[(r * 5 + c + k) % len(labels)] for c in range(5)] for r in range(5)]
        image = np.zeros((500, 500, 3), np.uint8)
        for r, c in itertools.product(range(5), range(5)):
            image[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = REAL_TILE_COLOURS[cells[r][c]]
        cv2.imwrite(str(tmp_path / f"{k:02d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 98])
        (tmp_path / f"{k:02d}.json").write_text(json.dumps({"game": "kingdomino", "cells": cells}))
    (tmp_path / "manifest.json").write_text("{}")
    return tmp_path
