"""Squares on a board's outer ring that look like the table beyond them.

A kingdom is laid tile by tile, and a square left empty shows the table. On a table the colour of a terrain
(a blue cloth, a green felt) a model reads such a square as that terrain, and sure of it: nothing else on
the square says otherwise. The table itself does: a square that looks as the table just beyond the board's
edge next to it does is said to the player as maybe empty, never silently scored as a tile.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import CellKey, apply_homography
from vision.image_io import sample_points
from vision.profile import Region
from vision.read.rectify import Rectified

# Lab colour distance (median over each patch) below which a square looks like the table beside it. Tiles'
# art lies 4.1 or more from the table beside it on the 14 real table photos (dark forest by a dark wooden
# table), a cloth seen through an empty square 0-1.5 (synthetic cloths: a helper's scenes), a real wooden
# table seen through an empty square 1.1-2.1.
LIKE_TABLE = 3.0
SAMPLES = 12  # points a side of each patch compared


def _lab(bgr: NDArray[np.float32]) -> NDArray[np.float64]:
    """The median Lab colour (L in 0-100, a and b about 0) of BGR samples (N, 3) in 0-255."""
    lab = cv2.cvtColor((bgr / np.float32(255.0)).reshape(-1, 1, 3).astype(np.float32), cv2.COLOR_BGR2LAB)
    return np.asarray(np.median(lab.reshape(-1, 3), axis=0), np.float64)


def _patch(
    image: NDArray[np.uint8],
    rect: Rectified,
    camera: CameraModel | None,
    x: tuple[float, float],
    y: tuple[float, float],
) -> NDArray[np.float32] | None:
    """The photo's colours over the board's rectangle ``x`` by ``y`` (mm), SAMPLES a side; None where part
    of it lies outside the photo (a board that fills its photo shows no table beyond it)."""
    xs, ys = np.meshgrid(np.linspace(*x, SAMPLES), np.linspace(*y, SAMPLES))
    points = apply_homography(rect.board_to_ideal, np.column_stack([xs.ravel(), ys.ravel()]))
    if camera is not None:
        points = camera.distort_px(points)
    h, w = image.shape[:2]
    if not ((points >= 0).all() and (points[:, 0] <= w - 1).all() and (points[:, 1] <= h - 1).all()):
        return None
    return sample_points(image, points)


def like_the_table(
    image: NDArray[np.uint8],
    rect: Rectified,
    camera: CameraModel | None,
    region: Region,
    tiles: Iterable[CellKey],
) -> list[CellKey]:
    """Of the cells ``tiles`` (read as holding a tile), those on the outer ring of ``region`` whose middle
    looks like the table just beyond the board's edge beside them (a corner: either side)."""
    ox, oy = region.origin_mm
    px, py = region.pitch_mm
    w, h = region.cell_mm
    found = []
    for key in tiles:
        _, r, c = key
        x0, y0 = ox + c * px, oy + r * py
        across = (x0 + 0.2 * w, x0 + 0.8 * w)
        down = (y0 + 0.2 * h, y0 + 0.8 * h)
        beyond = [
            *([(across, (y0 - 0.6 * h, y0 - 0.2 * h))] if r == 0 else []),
            *([(across, (y0 + 1.2 * h, y0 + 1.6 * h))] if r == region.rows - 1 else []),
            *([((x0 - 0.6 * w, x0 - 0.2 * w), down)] if c == 0 else []),
            *([((x0 + 1.2 * w, x0 + 1.6 * w), down)] if c == region.cols - 1 else []),
        ]
        tables = [p for p in (_patch(image, rect, camera, x, y) for x, y in beyond) if p is not None]
        middle = _patch(image, rect, camera, across, down)
        if middle is None or not tables:
            continue
        own = _lab(middle)
        if min(float(np.linalg.norm(own - _lab(table))) for table in tables) < LIKE_TABLE:
            found.append(key)
    return found
