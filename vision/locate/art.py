"""What a board's art looks like, as colours: where in a photo the art's colours are common and the rest of
the photo's are not, a board of that art lies.

A histogram of the art's colours (Lab: a few lightness steps, fine chroma) is learnt from pictures of the
boards alone (rectified boards, the board filling the picture). In a photo, each pixel's colour is weighed by
how much more often the art shows it than the photo as a whole does (a ratio histogram): the photo is mostly
table, so the table's colours weigh little whatever the table is, and the board's weigh much. This needs no
model of the table, so a cluttered border (a score sheet, a sleeve, a window) does not mislead it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

BINS = (4, 32, 32)  # Lab: lightness steps (light changes it most), chroma bins
VERSION = 1
# The art's share of a colour over the photo's, at which a pixel counts as surely art (the map saturates).
SURE_RATIO = 4.0


# Each Lab channel's bin, looked up rather than computed per pixel, as a share of the flat bin index.
_STRIDES = (BINS[1] * BINS[2], BINS[2], 1)
_BIN_OF = [
    (np.arange(256) * n // 256 * stride).astype(np.uint16) for n, stride in zip(BINS, _STRIDES, strict=True)
]


def _lab_bins(image_bgr: NDArray[np.uint8]) -> NDArray[np.intp]:
    """Each pixel's flat Lab bin (an index into the raveled :data:`BINS` histogram)."""
    # A little blur: a colour is a patch's, not a pixel's (JPEG and sensor noise change single pixels).
    lab = cv2.cvtColor(cv2.GaussianBlur(image_bgr, (0, 0), 1.5), cv2.COLOR_BGR2LAB)
    flat = _BIN_OF[0][lab[..., 0]]
    flat += _BIN_OF[1][lab[..., 1]]
    flat += _BIN_OF[2][lab[..., 2]]
    return np.asarray(flat, dtype=np.intp)


def _histogram(images: Iterable[NDArray[np.uint8]]) -> NDArray[np.float64]:
    counts = np.zeros(int(np.prod(BINS)), np.float64)
    for image in images:
        counts += np.bincount(_lab_bins(image).ravel(), minlength=counts.size)
    total = counts.sum()
    if total == 0:
        raise ValueError("no picture of the board's art to learn its colours from")
    return np.asarray((counts / total).reshape(BINS), dtype=np.float64)


@dataclass(frozen=True)
class ArtColours:
    """A board art's colour histogram (Lab, :data:`BINS`, summing to 1)."""

    histogram: NDArray[np.float64]

    @classmethod
    def learn(cls, boards: Iterable[NDArray[np.uint8]]) -> ArtColours:
        """From pictures of boards alone (each filling its picture), BGR."""
        return cls(_histogram(boards))

    def likeness(
        self, image_bgr: NDArray[np.uint8], photo_bgr: NDArray[np.uint8] | None = None
    ) -> NDArray[np.float32]:
        """Per pixel, 0-1: how surely its colour is the art's rather than the rest of the picture's (or of
        ``photo_bgr``'s, the whole photo ``image_bgr`` is cut from)."""
        photo = _histogram([image_bgr if photo_bgr is None else photo_bgr])
        ratio = self.histogram / (photo + 1e-4)
        return np.clip(ratio.ravel()[_lab_bins(image_bgr)] / SURE_RATIO, 0.0, 1.0).astype(np.float32)

    def to_json(self) -> dict[str, Any]:
        # Most bins are empty: only the others are written, as (flat index, share).
        flat = self.histogram.ravel()
        used = np.flatnonzero(flat)
        return {
            "version": VERSION,
            "bins": list(BINS),
            "shares": [[int(i), float(f"{flat[i]:.4g}")] for i in used],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ArtColours:
        if data.get("version") != VERSION or tuple(data.get("bins", ())) != BINS:
            raise ValueError(
                f"art colours of version {data.get('version')} with bins {data.get('bins')}; this software "
                f"reads version {VERSION} with bins {list(BINS)}"
            )
        flat = np.zeros(int(np.prod(BINS)), np.float64)
        for index, share in data["shares"]:
            flat[int(index)] = float(share)
        if flat.sum() <= 0:
            raise ValueError("art colours with no colour in them")
        return cls((flat / flat.sum()).reshape(BINS))


def load_art(path: Path) -> ArtColours:
    try:
        return ArtColours.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not readable art colours ({exc})") from None
