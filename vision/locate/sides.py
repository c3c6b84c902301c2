"""Where each side of a board lies, learnt: the last step of finding a board.

The board-mask model (:mod:`vision.locate.mask`) outlines a board to a pixel of its own coarse map, a per cent
or two of the board; the board's cut edge must then be told from the printed frame lines, the slab's
shadow and the table's pattern a few pixels either side of it, which an edge search by contrast alone gets
wrong on a board in ten. This model looks at each side of a rough outline through a strip across it
(:func:`side_strips`: photo pixels sampled along the side and :data:`REACH` of the board's size either side
of it, outside at the top) and answers, for each of :data:`COLUMNS` stretches along the side, the row where
the board's top face ends. A straight line fitted to those rows, stretches hidden by a hand left out,
is the side (:func:`fit_sides`); four sides meet at the corners.

Strips are cut in ideal pinhole pixels when the camera is calibrated (a board's sides are straight
there) and sampled from the photo through the lens. The model knows nothing of any game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import Points, as_points, quad_size
from vision.model_file import model_input, open_model

ALONG = 48  # samples along a side
ACROSS = 64  # samples across it, outside first
COLUMNS = 12  # stretches along a side the model answers for (it halves the strip's length twice)
REACH = 0.064  # how far either side of the rough side the strip looks, in board sizes (sqrt of its area)
SPAN = (0.04, 0.96)  # the stretch of a side the strip covers: the corners are another side's business
WINDOW = 2  # rows either side of the likeliest row the model's answer is averaged over
INLIER_ROWS = 1.5  # rows off the fitted line a stretch may be and still count towards it
MIN_SUPPORT = 3.0  # summed confidence of the stretches a side needs, else it is not placed
# How far (board sizes) a side placed nowhere is moved to be looked for again: a strip's reach less a little
# overlap, so the second look covers 3.8 % to 16.6 % off the outline.
LOOK_AGAIN = 0.102


@dataclass(frozen=True)
class Strips:
    """The strips across every side of some outlines (4 per outline, in its order) and where they lie:
    side ``k`` runs from ``start[k]`` along ``vector[k]`` (ideal pixels); row offsets are along the outward
    unit ``normal[k]``, ``reach[k]`` pixels at the top row's centre's side."""

    pixels: NDArray[np.uint8]  # (4n, ACROSS, ALONG, 3) BGR
    start: NDArray[np.float64]  # (4n, 2)
    vector: NDArray[np.float64]  # (4n, 2)
    normal: NDArray[np.float64]  # (4n, 2)
    reach: NDArray[np.float64]  # (4n,)


def _clockwise(quad: Points) -> Points:
    """The quad's corners going clockwise on screen (y down), so every side's outside is on its left."""
    x, y = quad[:, 0], quad[:, 1]
    area = 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    return quad if area > 0 else quad[::-1].copy()


def row_offset(rows: NDArray[np.float64], reach: NDArray[np.float64]) -> NDArray[np.float64]:
    """Outward offset (pixels) of a strip's (fractional) row; row 0 is the outermost."""
    return reach * (1.0 - 2.0 * (rows + 0.5) / ACROSS)


def offset_row(offset: NDArray[np.float64], reach: NDArray[np.float64]) -> NDArray[np.float64]:
    """The inverse of :func:`row_offset`."""
    return (1.0 - offset / reach) * ACROSS / 2.0 - 0.5


def column_along(count: int) -> NDArray[np.float64]:
    """Where along a side (0 at its start, 1 at its end) the centres of ``count`` equal stretches lie."""
    return SPAN[0] + (SPAN[1] - SPAN[0]) * (np.arange(count) + 0.5) / count


def side_strips(
    image_bgr: NDArray[np.uint8], quads_ideal: list[Points], to_photo: Callable[[Points], Points]
) -> Strips:
    """The strips across the four sides of each outline (ideal pixels; any order round the board: each is
    put clockwise first), sampled from the photo with ``to_photo`` (ideal to photo pixels)."""
    starts, vectors, normals, reaches = [], [], [], []
    for quad in quads_ideal:
        q = _clockwise(as_points(quad))
        size = max(quad_size(q), 1.0)
        for i in range(4):
            a, b = q[i], q[(i + 1) % 4]
            d = b - a
            n = np.array([d[1], -d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
            starts.append(a)
            vectors.append(d)
            normals.append(n)
            reaches.append(REACH * size)
    start, vector, normal, reach = (np.array(v, np.float64) for v in (starts, vectors, normals, reaches))
    if not len(start):
        empty = np.zeros((0, ACROSS, ALONG, 3), np.uint8)
        return Strips(empty, start.reshape(0, 2), vector.reshape(0, 2), normal.reshape(0, 2), reach)
    along = column_along(ALONG)
    offsets = row_offset(np.arange(ACROSS, dtype=np.float64)[None, :], reach[:, None])  # (4n, ACROSS)
    pts = (
        start[:, None, None, :]
        + along[None, None, :, None] * vector[:, None, None, :]
        + offsets[:, :, None, None] * normal[:, None, None, :]
    )
    photo = to_photo(pts.reshape(-1, 2)).reshape(pts.shape).astype(np.float32)
    pixels = np.stack(
        [
            cv2.remap(image_bgr, p[..., 0], p[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
            for p in photo
        ]
    )
    return Strips(pixels, start, vector, normal, reach)


def true_rows(strips: Strips, true_quads_ideal: list[Points]) -> NDArray[np.float32]:
    """(4n, COLUMNS) the row where each stretch's normal crosses the matching true side (training targets;
    a true quad per outline, ideal pixels; its sides are matched to the outline's by nearest corners)."""
    rows = np.zeros((len(strips.start), COLUMNS), np.float32)
    along = column_along(COLUMNS)
    for j, truth in enumerate(true_quads_ideal):
        t = _clockwise(as_points(truth))
        first = strips.start[4 * j]
        t = np.roll(t, -int(np.argmin(np.linalg.norm(t - first, axis=1))), axis=0)
        for i in range(4):
            k = 4 * j + i
            t0, t1 = t[i], t[(i + 1) % 4]
            e = t1 - t0
            p = strips.start[k][None, :] + along[:, None] * strips.vector[k][None, :]
            n = strips.normal[k]
            # p + v n on the line through t0, t1: cross(e, p + v n - t0) = 0.
            cross_n = e[0] * n[1] - e[1] * n[0]
            rel = t0[None, :] - p
            v = (e[0] * rel[:, 1] - e[1] * rel[:, 0]) / cross_n
            rows[k] = offset_row(v, strips.reach[k])
    return rows


def read_rows(logits: NDArray[np.float32]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per strip and stretch (the model's (4n, ACROSS, COLUMNS) logits), the row where the face ends and how
    sure the model is of it: the probability-weighted mean over :data:`WINDOW` rows either side of the
    likeliest row, and the probability there."""
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    peak = np.argmax(p, axis=1)  # (4n, COLUMNS)
    rows = np.arange(ACROSS)[None, :, None]
    near = np.abs(rows - peak[:, None, :]) <= WINDOW
    weight = np.where(near, p, 0.0)
    mass = weight.sum(axis=1)
    row = (weight * rows).sum(axis=1) / np.maximum(mass, 1e-9)
    return row, mass


Line = tuple[NDArray[np.float64], NDArray[np.float64]]  # a point on it and its direction (ideal pixels)


def side_lines(strips: Strips, rows: NDArray[np.float64], sure: NDArray[np.float64]) -> list[Line | None]:
    """Per strip, the side as a straight line fitted to the stretches the model is sure of, those off the
    line left out; ``None`` where too few are sure (a hand over the side, or no edge within reach)."""
    along = column_along(rows.shape[1])
    first, second = np.triu_indices(rows.shape[1], k=1)
    lines: list[Line | None] = []
    for k in range(len(strips.start)):
        v = row_offset(rows[k], strips.reach[k])
        tolerance = INLIER_ROWS * 2 * strips.reach[k] / ACROSS
        # The line through the pair of stretches most sure stretches agree with: a side the outline crosses
        # at a slant is in reach only along part of its strip, and the stretches out of reach answer
        # anywhere.
        slopes = (v[second] - v[first]) / (along[second] - along[first])
        through = v[first][:, None] + slopes[:, None] * (along[None, :] - along[first][:, None])
        agree = np.abs(through - v[None, :]) <= tolerance
        best = int(np.argmax((agree * sure[k][None, :]).sum(axis=1)))
        w = np.where(agree[best], sure[k], 0.0)
        if w.sum() < MIN_SUPPORT:
            lines.append(None)
            continue
        fit = np.polyfit(along, v, 1, w=np.sqrt(w))
        w = np.where(np.abs(np.polyval(fit, along) - v) <= tolerance, sure[k], 0.0)
        if w.sum() >= MIN_SUPPORT:
            fit = np.polyfit(along, v, 1, w=np.sqrt(w))
        slope, offset = fit
        a = strips.start[k] + offset * strips.normal[k]
        b = strips.start[k] + strips.vector[k] + (offset + slope) * strips.normal[k]
        lines.append((a, b - a))
    return lines


def corners(lines: list[Line | None]) -> Points | None:
    """Where four sides (clockwise) meet; ``None`` if a side is missing or two are parallel."""
    found = []
    for i in range(4):
        first, second = lines[i - 1], lines[i]
        if first is None or second is None:
            return None
        (p1, d1), (p2, d2) = first, second
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-9:
            return None
        found.append(p1 + np.linalg.solve(m, p2 - p1)[0] * d1)
    return as_points(np.array(found))


def fit_sides(strips: Strips, rows: NDArray[np.float64], sure: NDArray[np.float64]) -> list[Points | None]:
    """Each outline's corners (ideal pixels, clockwise from its first side's start) from the rows the model
    read (:func:`side_lines`); ``None`` for an outline a side of which has too few sure stretches."""
    lines = side_lines(strips, rows, sure)
    return [corners(lines[k : k + 4]) for k in range(0, len(lines), 4)]


def _moved(quad: Points, sides: list[int], shift: float) -> Points:
    """``quad`` (clockwise) with each of ``sides`` moved ``shift`` board sizes outward (inward if
    negative)."""
    q = _clockwise(as_points(quad)).copy()
    size = max(quad_size(q), 1.0)
    for i in sides:
        d = q[(i + 1) % 4] - q[i]
        n = np.array([d[1], -d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
        q[i] = q[i] + shift * size * n
        q[(i + 1) % 4] = q[(i + 1) % 4] + shift * size * n
    return q


class SideFinder:
    """The ONNX side model (``models/sides.onnx``)."""

    def __init__(self, path: Path) -> None:
        self.session, info = open_model(path)
        if info.get("kind") != "board-sides":
            raise ValueError(f"{path}: not a board-sides model (kind {info.get('kind')!r})")
        self._input = self.session.get_inputs()[0].name
        self._logits(np.zeros((4, ACROSS, ALONG, 3), np.uint8))

    def _logits(self, pixels: NDArray[np.uint8]) -> NDArray[np.float32]:
        (logits,) = self.session.run(None, {self._input: model_input(pixels)})
        return np.asarray(logits, np.float32)[:, 0]

    def place(
        self, image_bgr: NDArray[np.uint8], quads_ideal: list[Points], to_photo: Callable[[Points], Points]
    ) -> list[Points | None]:
        """Each rough outline (ideal pixels) placed on the board's own sides; ``None`` where a side is not
        clear enough to place (a hand over most of it, or no board there).

        A side placed nowhere in its strip is looked for again a strip further out, then further in: the
        mask stops a few per cent short of a board's edge where the board's margin is the table's colour.
        """
        quads = [_clockwise(as_points(q)) for q in quads_ideal]
        lines = self._lines(image_bgr, quads, to_photo)
        for shift in (LOOK_AGAIN, -LOOK_AGAIN):
            again = [j for j in range(len(quads)) if any(line is None for line in lines[4 * j : 4 * j + 4])]
            if not again:
                break
            missing = [[i for i in range(4) if lines[4 * j + i] is None] for j in again]
            moved = [_moved(quads[j], sides, shift) for j, sides in zip(again, missing, strict=True)]
            found = self._lines(image_bgr, moved, to_photo)
            for n, (j, sides) in enumerate(zip(again, missing, strict=True)):
                for i in sides:
                    lines[4 * j + i] = found[4 * n + i]
        return [corners(lines[k : k + 4]) for k in range(0, len(lines), 4)]

    def rivals(
        self,
        image_bgr: NDArray[np.uint8],
        outline_ideal: Points,
        placed_ideal: Points,
        to_photo: Callable[[Points], Points],
    ) -> list[Points]:
        """``placed_ideal`` (placed by :meth:`place` from ``outline_ideal``; ideal pixels) with one side
        swapped for the edge the model reads where the outline's side is moved a strip out or in
        (:data:`LOOK_AGAIN`), one rival per side so read: where the outline lies far off the board, the true
        edge is at or past the first strip's reach, and the model may take a shadow's edge across the board's
        margin for it."""
        outline = _clockwise(as_points(outline_ideal))
        placed = _clockwise(as_points(placed_ideal))
        # Side i of each starts at its corner nearest the outline's corner i.
        placed = np.roll(placed, -int(np.argmin(np.linalg.norm(placed - outline[0], axis=1))), axis=0)
        own: list[Line | None] = [(placed[i], placed[(i + 1) % 4] - placed[i]) for i in range(4)]
        moved = [_moved(outline, [0, 1, 2, 3], shift) for shift in (LOOK_AGAIN, -LOOK_AGAIN)]
        found = self._lines(image_bgr, moved, to_photo)
        out = []
        for k, line in enumerate(found):
            if line is None:
                continue
            side = k % 4
            quad = corners([line if i == side else own[i] for i in range(4)])
            if quad is not None:
                out.append(quad)
        return out

    def support(
        self, image_bgr: NDArray[np.uint8], quads_ideal: list[Points], to_photo: Callable[[Points], Points]
    ) -> NDArray[np.float64]:
        """(n, 4) how sure the model is that each outline's sides (clockwise from its first corner) lie where
        they are: the summed confidence of the stretches whose edge it reads within :data:`INLIER_ROWS` of
        the strip's middle (out of :data:`COLUMNS` per side)."""
        quads = [_clockwise(as_points(q)) for q in quads_ideal]
        if not quads:
            return np.zeros((0, 4))
        strips = side_strips(image_bgr, quads, to_photo)
        rows, sure = read_rows(self._logits(strips.pixels))
        middle = offset_row(np.zeros(len(strips.reach)), strips.reach)[:, None]
        agree = np.where(np.abs(rows - middle) <= INLIER_ROWS, sure, 0.0)
        return np.asarray(agree.sum(axis=1).reshape(-1, 4), np.float64)

    def _lines(
        self, image_bgr: NDArray[np.uint8], quads: list[Points], to_photo: Callable[[Points], Points]
    ) -> list[Line | None]:
        if not quads:
            return []
        strips = side_strips(image_bgr, quads, to_photo)
        rows, sure = read_rows(self._logits(strips.pixels))
        return side_lines(strips, rows, sure)
