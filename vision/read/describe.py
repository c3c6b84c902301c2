"""What a cell looks like, in numbers no model learnt: the features a user's own game is taught on.

A grid game the shipped models never saw (:mod:`scoring.custom_grid`) is taught from a couple of photos, so
its classifier is fitted on features that mean the same on any tile art: colour and texture histograms,
which hold whichever way a tile is turned. Taught on real Kingdomino tiles from 2 photos, they misread half
as many cells as the embedding of a shipped model, and the five garden models' embeddings beside them helped
no further (``docs/experiments.md``).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.cells import CellGrid
from vision.read.classify import CellPredictions
from vision.reader_api import Head

# 2: the grain at several scales (uniform patterns at radii 1-3 and at half size).
VERSION = 2
SIZE_PX = 64  # crops are described at this size: a cell's colours and grain, not its fine print
BINS = 16  # per Lab channel
AB_BINS = 8  # per axis of the joint a-b (hue and saturation) histogram
HUE_BINS = 18
GRADIENT_BINS = 8
# Sobel magnitudes of an 8-bit lightness range to about 4 * 255 * sqrt(2); most of a tile's lie far below.
GRADIENT_MAX = 400.0
# A neighbour brighter than the centre by more than this counts as brighter: a JPEG's grain is not texture.
TEXTURE_STEP = 4
TEXTURE_RADII = (1, 2, 3)
_NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))


def _histogram(values: NDArray[Any], bins: int, top: float) -> NDArray[np.float32]:
    """Shares of ``values`` (0 and up) in ``bins`` even bins up to ``top``, those beyond in the last."""
    # bincount, not np.histogram: a quarter of the time of teaching two photos went to np.histogram.
    index = np.minimum((values.ravel() * (bins / top)).astype(np.intp), bins - 1)
    counts = np.bincount(index, minlength=bins).astype(np.float32)
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


def _patterns(grey: NDArray[np.int16], radius: int) -> NDArray[np.float32]:
    """Rotation-free local binary patterns at ``radius``: per pixel, which of 8 neighbours that far away are
    brighter than it; a pattern with at most two changes round the ring (a spot, an edge, a corner) counts as
    how many are brighter, any other as noise (one bin). The same whichever way the tile is turned."""
    h, w = grey.shape
    centre = grey[radius:-radius, radius:-radius]
    brighter = np.stack(
        [
            grey[
                radius + dy * radius : h - radius + dy * radius,
                radius + dx * radius : w - radius + dx * radius,
            ]
            >= centre + TEXTURE_STEP
            for dy, dx in _NEIGHBOURS
        ]
    ).astype(np.int8)
    changes = np.abs(np.diff(brighter, axis=0, append=brighter[:1])).sum(axis=0)
    code = np.where(changes <= 2, brighter.sum(axis=0), len(_NEIGHBOURS) + 1)
    return _histogram(code.astype(np.float32), len(_NEIGHBOURS) + 2, len(_NEIGHBOURS) + 2)


def _texture(patch: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The grain at several scales: patterns 1, 2 and 3 pixels across, and at half size the patterns and the
    lightness gradients. A flat castle tile's cobbles and a swamp's washes share their colours, not their
    grain."""
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.int16)
    half = cv2.resize(grey.astype(np.float32), (SIZE_PX // 2, SIZE_PX // 2), interpolation=cv2.INTER_AREA)
    gradient = cv2.magnitude(cv2.Sobel(half, cv2.CV_32F, 1, 0), cv2.Sobel(half, cv2.CV_32F, 0, 1))
    return np.concatenate(
        [
            *(_patterns(grey, radius) for radius in TEXTURE_RADII),
            _patterns(np.rint(half).astype(np.int16), 1),
            _histogram(gradient, GRADIENT_BINS, GRADIENT_MAX),
        ]
    )


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
