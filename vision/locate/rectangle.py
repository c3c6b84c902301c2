"""What a calibrated camera's picture of a flat rectangle must satisfy, and completing one from three sides.

A quadrilateral in ideal pinhole pixels pictures a rectangle of a given width over height only if, seen
through the camera matrix, its two side directions are square to each other and their lengths are in that
ratio: two checks a found outline can fail even when each side looks like an edge (one side on the printed
frame a few per cent inside the board, the other three on its cut edges). Three sides and the ratio fix the
fourth: the outline the board would have if those three are right.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import Points, as_points

_UNIT = np.array([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], np.float32)


def _plane_axes(quad: Points, matrix: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The pictured plane's two axes (first side, second side) in camera coordinates, to a common scale."""
    # Four exact points: OpenCV's direct solve, called for every combination of edges, not a fitted DLT.
    m = np.linalg.inv(matrix) @ cv2.getPerspectiveTransform(_UNIT, as_points(quad).astype(np.float32))
    return m[:, 0], m[:, 1]


def aspect(quad: Points, matrix: NDArray[np.float64]) -> float:
    """Width over height of the rectangle pictured by ``quad`` (first side over second), given the camera
    matrix."""
    a, b = _plane_axes(quad, matrix)
    return float(np.linalg.norm(a) / max(float(np.linalg.norm(b)), 1e-12))


def skew(quad: Points, matrix: NDArray[np.float64]) -> float:
    """The cosine of the angle between the pictured shape's sides: 0 for a rectangle."""
    a, b = _plane_axes(quad, matrix)
    return float(abs(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12))


def _line(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.cross([p[0], p[1], 1.0], [q[0], q[1], 1.0])


def complete(quad: Points, side: int, matrix: NDArray[np.float64], ratio: float) -> Points | None:
    """``quad`` (corners in order round it, ideal pixels) with side ``side`` (from corner ``side`` to the
    next) replaced by where a rectangle's must lie whose other three sides are the quad's and whose side
    ``side`` is ``ratio`` times as long as the sides next to it; ``None`` where the three sides picture no
    such rectangle in front of the camera."""
    q = as_points(quad)
    i, j = side % 4, (side + 2) % 4
    inv = np.linalg.inv(matrix)
    # The sides next to the replaced one meet at their vanishing point (their direction on the table).
    across = np.cross(_line(q[i - 1], q[i]), _line(q[(i + 1) % 4], q[(i + 2) % 4]))
    d_across = inv @ across
    # The opposite side's direction is square to it and in the plane its line and the camera span.
    d_along = np.cross(matrix.T @ _line(q[j], q[(j + 1) % 4]), d_across)
    normal = np.cross(d_along, d_across)
    if np.linalg.norm(normal) < 1e-12:
        return None
    # The opposite side's corners on the table plane normal . X = 1 (a scale is all three sides give).
    rays = (inv @ np.column_stack([q[[j, (j + 1) % 4]], np.ones(2)]).T).T
    depth = rays @ normal
    if depth[0] < 0:
        normal, depth = -normal, -depth
    if np.any(depth < 1e-12):
        return None
    ends = rays / depth[:, None]
    step = d_across / np.linalg.norm(d_across) * np.linalg.norm(ends[1] - ends[0]) / ratio
    # Towards the replaced side: the way the quad's own corner next to the opposite side lies from it.
    toward = q[i] - q[(j + 1) % 4]
    for sign in (1.0, -1.0):
        corners = ends + sign * step
        if np.any(corners[:, 2] <= 0):
            continue
        image = (matrix @ corners.T).T
        found = image[:, :2] / image[:, 2:3]
        if float((found[1] - q[(j + 1) % 4]) @ toward) > 0:
            break
    else:
        return None
    out = q.copy()
    # ends are (corner j, corner j+1); the new corners face them: corner i+1 faces j, corner i faces j+1.
    out[(i + 1) % 4], out[i] = found[0], found[1]
    return out
