"""A photo held upright (taller than wide), looked for boards turned a quarter to lie as photos are drawn.

Every finder learnt or was tuned on photos wider than tall: the board-mask and side models see a photo
brought down to a fixed width, the tile-grid search and the guessed lens are sized by the photo's width.
A phone held upright gives a photo taller than wide, and its boards were found less often (drawn garden
boards turned so: 5 and 6 of 240 lost, on two seeds). Turned a quarter anticlockwise it is a photo like
those; what is found in it is turned back. Pixel positions follow OpenCV's (a pixel's centre at its integer
position): the turn takes ``(x, y)`` of a photo ``width`` wide to ``(y, width - 1 - x)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import Points, as_points
from vision.locate.board import Quad

# OpenCV's distortion models up to k6 hold radial terms, which a turn leaves alone, and the two tangential
# ones, which it swaps; the thin-prism and tilted-sensor terms beyond (12 and 14 coefficients) are not turned.
TURNABLE_COEFFICIENTS = 8


def upright(image: NDArray[np.uint8], camera: CameraModel | None) -> bool:
    """Whether ``image`` is held upright and can be looked at turned (its camera's lens turns with it)."""
    h, w = image.shape[:2]
    return h > w and (camera is None or np.asarray(camera.dist).size <= TURNABLE_COEFFICIENTS)


def turned(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``image`` turned a quarter anticlockwise."""
    return np.asarray(cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE), np.uint8)


def points_turned(points: Points, width: int) -> Points:
    """Photo positions as they lie in the photo turned (``width``: the photo's own, before the turn)."""
    p = as_points(points)
    return np.column_stack([p[:, 1], width - 1 - p[:, 0]])


def points_back(points: Points, width: int) -> Points:
    """Positions in the turned photo as they lie in the photo (``width``: the photo's own)."""
    p = as_points(points)
    return np.column_stack([width - 1 - p[:, 1], p[:, 0]])


def camera_turned(camera: CameraModel | None, width: int) -> CameraModel | None:
    """The camera as it sees the turned photo: its axes swapped, its centre moved as the pixels are, and its
    tangential bend turned (normalised ``(x, y)`` becomes ``(y, -x)``)."""
    if camera is None:
        return None
    (fx, _, cx), (_, fy, cy), _ = np.asarray(camera.matrix, np.float64)
    return _swapped(camera, [[fy, 0.0, cy], [0.0, fx, width - 1 - cx]], lambda p1, p2: (-p2, p1))


def camera_back(camera: CameraModel | None, width: int) -> CameraModel | None:
    """:func:`camera_turned` undone (``width``: the photo's own)."""
    if camera is None:
        return None
    (fx, _, cx), (_, fy, cy), _ = np.asarray(camera.matrix, np.float64)
    return _swapped(camera, [[fy, 0.0, width - 1 - cy], [0.0, fx, cx]], lambda p1, p2: (p2, -p1))


def _swapped(
    camera: CameraModel,
    rows: list[list[float]],
    tangential: Callable[[float, float], tuple[float, float]],
) -> CameraModel:
    """``camera`` with the matrix of ``rows`` (its first two), the tangential bend ``tangential`` gives from
    its own, and its size's sides swapped."""
    dist = np.asarray(camera.dist, np.float64).ravel().copy()
    if dist.size >= 4:
        dist[2], dist[3] = tangential(dist[2], dist[3])
    w, h = camera.size_wh
    matrix = np.array([*rows, [0.0, 0.0, 1.0]])
    return replace(camera, matrix=matrix, dist=dist, size_wh=(h, w))


def quad_back(quad: Quad, width: int) -> Quad:
    """A board found in the turned photo, placed in the photo (its corners' order, clockwise, kept)."""
    return replace(
        quad, corners_xy=points_back(quad.corners_xy, width), ideal_xy=points_back(quad.ideal_xy, width)
    )
