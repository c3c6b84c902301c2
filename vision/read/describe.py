"""What a cell looks like, in numbers no model learnt: the features a user's own game is taught on.

A grid game the shipped models never saw (:mod:`scoring.custom_grid`) is taught from a couple of photos, so
its classifier is fitted on features that mean the same on any tile art: colour and texture histograms,
which hold whichever way a tile is turned. Taught on real Kingdomino tiles from 2 photos, they misread half
as many cells as the embedding of a shipped model, and the five garden models' embeddings beside them helped
no further (``docs/experiments.md``).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.cells import CellGrid
from vision.read.classify import CellPredictions
from vision.reader_api import Head

VERSION = 1
SIZE_PX = 64  # crops are described at this size: a cell's colours and grain, not its fine print
BINS = 16  # per Lab channel
AB_BINS = 8  # per axis of the joint a-b (hue and saturation) histogram
HUE_BINS = 18
GRADIENT_BINS = 8
# Sobel magnitudes of an 8-bit lightness range to about 4 * 255 * sqrt(2); most of a tile's lie far below.
GRADIENT_MAX = 400.0
# A neighbour brighter than the centre by more than this counts as brighter: a JPEG's grain is not texture.
TEXTURE_STEP = 4
_NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))


def _histogram(values: NDArray[np.uint8] | NDArray[np.float32], bins: int, top: float) -> NDArray[np.float32]:
    counts = np.histogram(values, bins=bins, range=(0, top))[0].astype(np.float32)
    return counts / max(float(counts.sum()), 1.0)


def _colour(patch: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Colour histograms (Lab channels, joint a-b, hue), lightness gradients and the Lab mean and spread."""
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB)
    hue = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)[..., 0]
    a_b = cv2.calcHist([lab], [1, 2], None, [AB_BINS, AB_BINS], [0, 256, 0, 256]).ravel()
    lightness = lab[..., 0].astype(np.float32)
    gradient = cv2.magnitude(cv2.Sobel(lightness, cv2.CV_32F, 1, 0), cv2.Sobel(lightness, cv2.CV_32F, 0, 1))
    pixels = lab.reshape(-1, 3).astype(np.float32)
    return np.concatenate(
        [
            *(_histogram(lab[..., ch], BINS, 256) for ch in range(3)),
            a_b / max(float(a_b.sum()), 1.0),
            _histogram(hue, HUE_BINS, 180),
            _histogram(gradient, GRADIENT_BINS, GRADIENT_MAX),
            pixels.mean(axis=0) / 255,
            pixels.std(axis=0) / 64,
        ]
    )


def _texture(patch: NDArray[np.uint8]) -> NDArray[np.float32]:
    """How many of each pixel's 8 neighbours are brighter than it: a local binary pattern's count, the same
    whichever way the tile is turned."""
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.int16)
    h, w = grey.shape
    centre = grey[1:-1, 1:-1]
    brighter = np.zeros(centre.shape, np.int16)
    for dy, dx in _NEIGHBOURS:
        brighter += grey[1 + dy : h - 1 + dy, 1 + dx : w - 1 + dx] >= centre + TEXTURE_STEP
    return _histogram(brighter.astype(np.float32), len(_NEIGHBOURS) + 1, len(_NEIGHBOURS) + 1)


def describe(crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """One row per crop (N, size, size, 3 BGR): the whole crop's colour and texture, and its middle's colour
    (a token on a tile, a castle on its square). Square roots of shares, so that a rare colour counts."""
    rows = []
    quarter = SIZE_PX // 4
    for crop in crops:
        patch = cv2.resize(crop, (SIZE_PX, SIZE_PX), interpolation=cv2.INTER_AREA)
        middle = patch[quarter : SIZE_PX - quarter, quarter : SIZE_PX - quarter]
        rows.append(np.concatenate([_colour(patch), _colour(middle), _texture(patch)]))
    return np.sqrt(np.asarray(rows, np.float32).reshape(len(crops), -1))


class DescribedCells:
    """A classifier of no heads whose embedding is :func:`describe`'s features: what a user's grid game is
    taught on (:mod:`calibration.enroll` fits its labels on them)."""

    heads: tuple[Head, ...] = ()
    crop_px = SIZE_PX
    # Only the cell itself: a user's grid is often tiles edge to edge, and the neighbours are other tiles.
    context_mm = 0.0
    lean_up = False
    # What an enrolment was fitted to: a change to :func:`describe` must be taught again.
    model_id = f"described-{VERSION}"

    def __init__(self, game: str) -> None:
        self.game = game

    def classify(self, cells: CellGrid) -> CellPredictions:
        return CellPredictions(cells.keys, (), {}, describe(cells.crops_bgr))
