"""How much of each cell a glare washes out: what a cell read from several photos weighs in each.

A lamp or a window reflected in a tile's varnish washes its colours towards white: a forest reads as lake, a
crown is lost, and the model is sure of it, since nothing on the washed square says otherwise. Another photo
from elsewhere sees the square without the glare; read together (:func:`vision.read.classify.together`),
each photo's cell counts by how little of it is washed out.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import CellKey, cell_rect_mm
from vision.read.rectify import Rectified

# A washed-out pixel: this bright (HSV value, 0-255) and this grey (saturation, 0-255) or more so. On the real
# table photos' kingdoms, the squares misread under a window's glare had 16-34 % of their pixels so, the
# squares read right 0-5 % for nearly all (164 of 170).
WASHED_VALUE = 200
WASHED_SATURATION = 60


def washed_out(rect: Rectified, keys: tuple[CellKey, ...]) -> NDArray[np.float64]:
    """Per cell of ``keys``, the share of its pixels in the rectified board that a glare washes out."""
    hsv = cv2.cvtColor(rect.image_bgr, cv2.COLOR_BGR2HSV)
    washed = (hsv[..., 2] >= WASHED_VALUE) & (hsv[..., 1] <= WASHED_SATURATION)
    s = rect.frame.px_per_mm
    shares = []
    for name, r, c in keys:
        x0, y0, x1, y1 = cell_rect_mm(rect.frame.profile.region(name), r, c)
        cell = washed[round(y0 * s) : round(y1 * s), round(x0 * s) : round(x1 * s)]
        shares.append(float(cell.mean()) if cell.size else 0.0)
    return np.asarray(shares, np.float64)
