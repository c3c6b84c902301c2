"""Cells: every classified cell of a rectified board cut out with a little context, all at one size."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import cell_rect_mm
from vision.rectify import Rectified

CellKey = tuple[str, int, int]  # region name, row, column


@dataclass(frozen=True)
class CellGrid:
    """``crops_bgr`` is (N, size, size, 3) uint8; ``keys[i]`` says which region cell crop i is."""

    crops_bgr: NDArray[np.uint8]
    keys: tuple[CellKey, ...]

    def __post_init__(self) -> None:
        if self.crops_bgr.ndim != 4 or self.crops_bgr.shape[3] != 3 or len(self.keys) != len(self.crops_bgr):
            raise ValueError(
                f"crops must be (N, size, size, 3) with one key each; got {self.crops_bgr.shape} for "
                f"{len(self.keys)} keys"
            )


def cut_cells(rectified: Rectified, regions: tuple[str, ...], context_mm: float, size_px: int) -> CellGrid:
    """Each existing cell of ``regions``, grown by ``context_mm`` on every side, resized to ``size_px``.

    The context lets a classifier see a piece that leans out of its square and the edges of its neighbours;
    cells at the board's edge are padded by replicating the border.
    """
    image = rectified.image_bgr
    s = rectified.frame.px_per_mm
    pad = int(np.ceil(context_mm * s)) + 1
    padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    crops = []
    keys: list[CellKey] = []
    for name in regions:
        region = rectified.frame.profile.region(name)
        for r, c in region.cells():
            x0, y0, x1, y1 = cell_rect_mm(region, r, c)
            box = (
                round((x0 - context_mm) * s) + pad,
                round((y0 - context_mm) * s) + pad,
                round((x1 + context_mm) * s) + pad,
                round((y1 + context_mm) * s) + pad,
            )
            patch = padded[box[1] : box[3], box[0] : box[2]]
            crops.append(cv2.resize(patch, (size_px, size_px), interpolation=cv2.INTER_AREA))
            keys.append((name, r, c))
    stack = np.stack(crops) if crops else np.zeros((0, size_px, size_px, 3), np.uint8)
    return CellGrid(np.asarray(stack, dtype=np.uint8), tuple(keys))
