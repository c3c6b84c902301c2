"""Board geometry: board millimetres <-> rectified pixels <-> cell indices, and plane homographies.

The one copy of this arithmetic: rendering, training, calibration and live inference all call it. Pixel
coordinates are continuous with pixel (i, j) covering [i, i+1) x [j, j+1), so board point (0, 0) mm is the
top-left corner of rectified pixel (0, 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.profile import BoardProfile, Region

Points = NDArray[np.float64]
RectMM = tuple[float, float, float, float]
CellKey = tuple[str, int, int]  # region name, row, column


def as_points(pts: object) -> Points:
    """Any point array ((N, 2), (N, 1, 2), (2,), a list of pairs) as float64 (N, 2).

    OpenCV 4 and 5 disagree on the middle axis of point outputs; every caller reshapes through here.
    """
    arr = np.asarray(pts, dtype=np.float64)
    if arr.size % 2:
        raise ValueError(f"expected pairs of coordinates, got an array of shape {arr.shape}")
    return arr.reshape(-1, 2)


def apply_homography(h: NDArray[np.float64], pts: object) -> Points:
    """Map points through a 3x3 homography."""
    p = as_points(pts)
    ph = np.hstack([p, np.ones((len(p), 1))]) @ np.asarray(h, dtype=np.float64).T
    w = ph[:, 2:3]
    if np.any(np.abs(w) < 1e-12):
        raise ValueError("a point maps to infinity under this homography")
    return ph[:, :2] / w


# Steps of a pixel that a board's corners are read at (:func:`snapped`).
SNAP_PER_PX = 8


def snapped(pts: object) -> Points:
    """The points rounded to :data:`SNAP_PER_PX` steps of a pixel. Machines whose float maths differ (this x86
    and a Pi's arm64) locate a board's corners up to a thousandth of a pixel apart; read from there, the few
    pixels that reaches flip cells' confidences across the check line. Rounded, both read the same
    pixels, a step apart only where the corners straddle a step's edge; an eighth of a pixel is far below
    what locating errs."""
    return np.round(as_points(pts) * SNAP_PER_PX) / SNAP_PER_PX


def is_convex(pts: object) -> bool:
    """Whether the polygon (its corners in order, either way round) turns one way at every corner: no side
    crosses another and none folds in."""
    p = as_points(pts)
    edges = np.roll(p, -1, axis=0) - p
    following = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    return bool((turns > 0).all() or (turns < 0).all())


def homography_from_points(src: object, dst: object) -> NDArray[np.float64]:
    """The homography taking 4+ ``src`` points onto ``dst`` (least squares, normalised DLT)."""
    s, d = as_points(src), as_points(dst)
    if len(s) < 4 or len(s) != len(d):
        raise ValueError(f"need 4 or more point pairs, got {len(s)} and {len(d)}")

    def normaliser(p: Points) -> NDArray[np.float64]:
        c = p.mean(axis=0)
        scale = np.sqrt(2) / max(float(np.mean(np.linalg.norm(p - c, axis=1))), 1e-12)
        return np.array([[scale, 0, -scale * c[0]], [0, scale, -scale * c[1]], [0, 0, 1]])

    ts, td = normaliser(s), normaliser(d)
    sn, dn = apply_homography(ts, s), apply_homography(td, d)
    rows = []
    for (x, y), (u, v) in zip(sn, dn, strict=True):
        rows.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        rows.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    _, _, vt = np.linalg.svd(np.asarray(rows))
    hn = vt[-1].reshape(3, 3)
    h = np.linalg.inv(td) @ hn @ ts
    return np.asarray(h / h[2, 2], dtype=np.float64)


@dataclass(frozen=True)
class BoardFrame:
    """The canonical top-down picture of one board at a fixed scale."""

    profile: BoardProfile
    px_per_mm: float

    @property
    def size_wh(self) -> tuple[int, int]:
        w, h = self.profile.size_mm
        return round(w * self.px_per_mm), round(h * self.px_per_mm)

    def mm_to_px(self, pts: object) -> Points:
        return as_points(pts) * self.px_per_mm

    def px_to_mm(self, pts: object) -> Points:
        return as_points(pts) / self.px_per_mm

    def mm_to_px_matrix(self) -> NDArray[np.float64]:
        """The homography form of :meth:`mm_to_px`, to chain with image homographies."""
        s = self.px_per_mm
        return np.array([[s, 0.0, 0.0], [0.0, s, 0.0], [0.0, 0.0, 1.0]])

    def cell_box_px(
        self, region: Region, r: int, c: int, context_mm: float = 0.0
    ) -> tuple[int, int, int, int]:
        """Integer pixel box ``(x0, y0, x1, y1)`` of a cell grown by ``context_mm``, clipped to the board."""
        x0, y0, x1, y1 = cell_rect_mm(region, r, c)
        w, h = self.size_wh
        s = self.px_per_mm
        return (
            max(0, int(np.floor((x0 - context_mm) * s))),
            max(0, int(np.floor((y0 - context_mm) * s))),
            min(w, int(np.ceil((x1 + context_mm) * s))),
            min(h, int(np.ceil((y1 + context_mm) * s))),
        )


def cell_rect_mm(region: Region, r: int, c: int) -> RectMM:
    """``(x0, y0, x1, y1)`` of cell (r, c) in board millimetres."""
    if not (0 <= r < region.rows and 0 <= c < region.cols):
        raise IndexError(f"cell ({r}, {c}) is outside region {region.name!r} ({region.rows}x{region.cols})")
    x0 = region.origin_mm[0] + c * region.pitch_mm[0]
    y0 = region.origin_mm[1] + r * region.pitch_mm[1]
    return x0, y0, x0 + region.cell_mm[0], y0 + region.cell_mm[1]


def cell_center_mm(region: Region, r: int, c: int) -> tuple[float, float]:
    x0, y0, x1, y1 = cell_rect_mm(region, r, c)
    return (x0 + x1) / 2, (y0 + y1) / 2


def cell_at_mm(region: Region, x: float, y: float) -> tuple[int, int] | None:
    """The existing cell of ``region`` containing board point (x, y) mm, if any."""
    c = int(np.floor((x - region.origin_mm[0]) / region.pitch_mm[0]))
    r = int(np.floor((y - region.origin_mm[1]) / region.pitch_mm[1]))
    if not region.exists(r, c):
        return None
    x0, y0, x1, y1 = cell_rect_mm(region, r, c)
    return (r, c) if x0 <= x < x1 and y0 <= y < y1 else None


def in_frame(corners: object, size_wh: tuple[int, int], margin: float = 2.0) -> bool:
    """Whether every corner lies in the photo (``size_wh``), at least ``margin`` pixels in from its edge."""
    p = as_points(corners)
    w, h = size_wh
    return bool(np.all((p >= margin) & (p <= [w - 1 - margin, h - 1 - margin])))


def within_reach(points: object, size_wh: tuple[int, int]) -> bool:
    """Whether every point lies within the photo's own size of it (``size_wh``). A lens' bend read from a
    board's sides means nothing far beyond the photo, and points bent back through it there have come out
    10^12 pixels away: no board's outline reaches so far."""
    p = as_points(points)
    w, h = size_wh
    return bool(np.all(np.isfinite(p)) and np.all(np.abs(p - [w / 2, h / 2]) <= [1.5 * w, 1.5 * h]))


def quad_size(corners: object) -> float:
    """The square root of a quadrilateral's area (shoelace formula): its size, whatever its shape."""
    p = as_points(corners)
    x, y = p[:, 0], p[:, 1]
    return float(np.sqrt(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2))
