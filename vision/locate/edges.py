"""A board's own straight edges: each side of a rough outline moved to the strongest straight edge near it
(the board's physical edge), fitted to sub-pixel edge points, and grown out to a faint edge just beyond it;
corners are the fitted lines' intersections, in ideal (undistorted) pixels when the camera is calibrated.
:func:`vision.locate.board.refine_quad` runs these on every outline the board finders propose.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel, is_calibrated
from vision.geometry import Points, as_points
from vision.image_io import sample_points
from vision.locate.rectangle import aspect

PEAKS_PER_ROW = 6
CLEAR_EDGE = 0.08  # an edge this strong next to a side's strongest still counts as a candidate
ASPECT_TOLERANCE = 0.04  # |log| of a found outline's width/height over a board's
# The same where the camera is not calibrated: through a typical lens' matrix guessed for a wide lens' real
# one (its focal length half the guess), a square board at a slant measures up to 0.2 off (rendered photos),
# and a tight check drops boards the mask outlined well.
GUESSED_ASPECT_TOLERANCE = 0.25


def aspect_tolerance(camera: CameraModel | None) -> float:
    """How far off a board's proportions a found outline may be, as the camera is known or guessed."""
    return ASPECT_TOLERANCE if is_calibrated(camera) else GUESSED_ASPECT_TOLERANCE


def clockwise(quad: Points) -> Points:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    return quad[np.argsort(angles)]


@dataclass(frozen=True)
class EdgeImage:
    """Samples a photo as Lab with chroma weighted up: a board as light as its table still differs from it
    in hue. Only the sampled points are converted, which is far cheaper than the whole frame."""

    image_bgr: NDArray[np.uint8]

    def sample(self, pts: Points) -> NDArray[np.float32]:
        bgr = sample_points(self.image_bgr, pts).reshape(-1, 1, 3) / np.float32(255.0)
        lab = cv2.cvtColor(bgr.astype(np.float32), cv2.COLOR_BGR2LAB).reshape(-1, 3)
        lab[:, 0] *= 2.55
        lab[:, 1:] *= 2.0
        return np.asarray(lab, dtype=np.float32)


@dataclass(frozen=True)
class SideEdge:
    """One candidate straight edge of a side: its points (ideal px), strength, and median outward offset."""

    points: Points
    strength: float
    offset: float

    @cached_property
    def line(self) -> NDArray[np.float64]:
        fitted = cv2.fitLine(self.points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        return np.asarray(fitted, dtype=np.float64).ravel()


def _line_candidates(
    points: Points,
    rows: NDArray[np.int64],
    strength: NDArray[np.float64],
    n_rows: int,
    rng: np.random.Generator,
    hypotheses: int = 100,
) -> list[tuple[NDArray[np.bool_], float]]:
    """Straight lines through edge points of many sample rows (RANSAC): inlier masks and strength.

    A line's support is the number of distinct rows it passes through (one point per row counts), so a
    cluster of texture points in a few rows cannot pose as an edge.
    """
    found: list[tuple[NDArray[np.bool_], float]] = []
    used = np.zeros(len(points), bool)
    for _ in range(6):
        free = np.nonzero(~used)[0]
        if len(free) < 2:
            break
        pairs = rng.choice(free, (hypotheses, 2))
        a, b = points[pairs[:, 0]], points[pairs[:, 1]]
        d = b - a
        norm = np.linalg.norm(d, axis=1)
        ok = (rows[pairs[:, 0]] != rows[pairs[:, 1]]) & (norm > 1e-6)
        if not ok.any():
            break
        a, d, norm = a[ok], d[ok], norm[ok]
        normals = np.column_stack([-d[:, 1], d[:, 0]]) / norm[:, None]
        # Each coordinate's term apart, then added: the same sums as over a trailing axis of two, without it.
        x, y = points[:, 0], points[:, 1]
        dist = np.abs((x - a[:, :1]) * normals[:, :1] + (y - a[:, 1:]) * normals[:, 1:])
        inliers = (dist < 1.5) & ~used[None, :]
        # Distinct rows per hypothesis: mark (hypothesis, row) pairs and count them.
        hit = np.zeros((len(a), n_rows), bool)
        hyp, pt = np.nonzero(inliers)
        hit[hyp, rows[pt]] = True
        support = hit.sum(axis=1)
        best = int(np.argmax(support))
        if support[best] < 0.4 * n_rows:
            break
        mask = inliers[best]
        found.append((mask, float(strength[mask].sum())))
        used |= mask
    return found


def side_edges(
    a: Points,
    b: Points,
    outward: Points,
    image: EdgeImage,
    to_photo: Callable[[Points], Points],
    search: tuple[float, float],
    step: float = 0.5,
) -> list[SideEdge]:
    """Candidate straight edges near side a-b, their points in ideal pixels.

    Colour is sampled along the side's normal on straight lines of the ideal image (mapped into the photo by
    ``to_photo``, so a lens' curvature is followed) for offsets in ``search`` (pixels, outward positive).
    Sharp steps in each sample row are edge points; straight lines through many rows' points are candidate
    edges (the rough side need not be parallel to the true one).
    """
    n = 40
    t = np.linspace(0.08, 0.92, n)[:, None]
    base = a + t * (b - a)
    offsets = np.arange(search[0], search[1], step)
    if len(offsets) < 12:
        return []
    pts = (base[:, None, :] + offsets[None, :, None] * outward).reshape(-1, 2)
    profile = image.sample(to_photo(pts)).reshape(n, len(offsets), -1)
    # Sensor noise and JPEG blocks are finer than any edge: smooth each row over about a pixel.
    profile = cv2.GaussianBlur(profile, (5, 1), 2.0)
    response = np.linalg.norm(np.gradient(profile, step, axis=1), axis=2)
    # Peakedness: a printed or cut edge is a narrow peak, a shadow's or a lamp's ramp a broad one.
    d = max(1, round(4 / step))  # 4 px either side
    padded = np.pad(response, ((0, 0), (d, d)), mode="edge")
    sharp = response - 0.5 * (padded[:, : -2 * d] + padded[:, 2 * d :])
    is_peak = (sharp[:, 1:-1] >= sharp[:, :-2]) & (sharp[:, 1:-1] >= sharp[:, 2:]) & (sharp[:, 1:-1] > 2.0)
    # Only each row's strongest few peaks: the board's edge is among them, and the line search's cost
    # grows with every point.
    peak_strength = np.where(is_peak, sharp[:, 1:-1], -np.inf)
    keep = np.argsort(-peak_strength, axis=1)[:, :PEAKS_PER_ROW]
    mask = np.zeros_like(is_peak)
    np.put_along_axis(mask, keep, True, axis=1)
    # And each row's outermost peak: a faint cut edge beside bold art would never make the strongest few.
    outermost = is_peak.shape[1] - 1 - np.argmax(is_peak[:, ::-1], axis=1)
    np.put_along_axis(mask, outermost[:, None], True, axis=1)
    rows, cols = np.nonzero(mask & is_peak)
    cols = cols + 1
    if len(rows) < 8:
        return []
    strength = sharp[rows, cols].astype(np.float64)
    # Edge points in (along-side, offset) coordinates, where candidate lines are fitted.
    along = t[rows, 0] * float(np.linalg.norm(b - a))
    points = np.column_stack([along, offsets[cols]])
    candidates = _line_candidates(points, rows, strength, n, np.random.default_rng(len(rows)))
    length = float(np.linalg.norm(b - a))
    out = []
    for mask, score in candidates:
        edge = a + (points[mask, 0:1] / length) * (b - a) + points[mask, 1:2] * outward
        out.append(SideEdge(edge, score / n, float(np.median(points[mask, 1]))))
    return out


def _intersect(l1: NDArray[np.float64], l2: NDArray[np.float64]) -> Points:
    # Lines as (vx, vy, x0, y0) from fitLine.
    d1, p1 = l1[:2], l1[2:]
    d2, p2 = l2[:2], l2[2:]
    m = np.array([d1, -d2]).T
    if abs(np.linalg.det(m)) < 1e-9:
        raise ValueError("parallel sides")
    s = np.linalg.solve(m, p2 - p1)
    return np.asarray(p1 + s[0] * d1, dtype=np.float64).reshape(1, 2)


Picker = Callable[[list[list[SideEdge]], Callable[[list[SideEdge]], Points | None]], list[SideEdge] | None]


def outward_normal(a: Points, b: Points, centre: Points) -> NDArray[np.float64]:
    """The unit normal of side a-b pointing away from ``centre``."""
    direction = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
    normal = np.array([-direction[1], direction[0]])
    return normal if np.dot(normal, (a + b) / 2 - centre) >= 0 else -normal


def meeting(chosen: list[SideEdge]) -> Points | None:
    """Where each side's line meets the one before it (``None`` where two are parallel)."""
    try:
        return np.vstack([_intersect(chosen[i - 1].line, chosen[i].line) for i in range(4)])
    except ValueError:
        return None


def pick_sides(
    quad: Points,
    gray: EdgeImage,
    to_photo: Callable[[Points], Points],
    search: tuple[float, float],
    pick: Picker,
    step: float = 0.5,
) -> list[SideEdge] | None:
    """Per side of ``quad``, the candidate edge near it that ``pick`` takes (``None`` where it takes none)."""
    centre = quad.mean(axis=0)
    sides = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        candidates = side_edges(a, b, outward_normal(a, b, centre), gray, to_photo, search, step)
        if not candidates:
            # A side with no clear edge keeps the rough one: a faint edge must not sink the whole board
            # when the other three sides and the board's proportions pin it down.
            t = np.linspace(0.0, 1.0, 8)[:, None]
            candidates = [SideEdge(a + t * (b - a), 0.0, 0.0)]
        sides.append(candidates)

    # The pickers try hundreds of combinations of the same few edges: each pair's corner is worked out once.
    meets: dict[tuple[int, int], Points | None] = {}

    def meet(e1: SideEdge, e2: SideEdge) -> Points | None:
        key = (id(e1), id(e2))
        if key not in meets:
            try:
                meets[key] = _intersect(e1.line, e2.line)
            except ValueError:
                meets[key] = None
        return meets[key]

    def corners(chosen: list[SideEdge]) -> Points | None:
        points = [meet(chosen[i - 1], chosen[i]) for i in range(4)]
        return None if any(p is None for p in points) else np.vstack(points)  # type: ignore[arg-type]

    return pick(sides, corners)


def fit_quad(
    quad: Points,
    gray: EdgeImage,
    to_photo: Callable[[Points], Points],
    search: tuple[float, float],
    pick: Picker,
    step: float = 0.5,
) -> tuple[Points, float] | None:
    """Each side of ``quad`` moved to the edge near it that ``pick`` takes: the corners where they meet, and
    the edges' mean strength."""
    chosen = pick_sides(quad, gray, to_photo, search, pick, step)
    if chosen is None:
        return None
    result = meeting(chosen)
    return None if result is None else (result, float(np.mean([e.strength for e in chosen])))


def top_edge(inward: float) -> Picker:
    """Per side, the innermost clear edge within ``inward`` pixels inside where the side already is.

    A board is a slab: where its cut side faces the camera, the outermost edge is the side's foot on the
    table and the printed top's edge lies just inside it; art lies further in than a slab is thick.
    """

    def pick(
        sides: list[list[SideEdge]], corners: Callable[[list[SideEdge]], Points | None]
    ) -> list[SideEdge] | None:
        chosen = []
        for candidates in sides:
            nearest = min(candidates, key=lambda e: abs(e.offset))
            close = [
                e
                for e in candidates
                if nearest.offset - inward <= e.offset <= nearest.offset
                and e.strength >= 0.4 * nearest.strength
            ]
            chosen.append(min(close, key=lambda e: e.offset))
        return chosen

    return pick


def outermost_fitting(
    aspects: tuple[float, ...], matrix: NDArray[np.float64], tolerance: float = ASPECT_TOLERANCE
) -> Picker:
    """Per side, the outermost clear edge, among combinations whose shape is a board's.

    A board's printed art has straight edges parallel to its border, often stronger than the cut edge itself,
    and a faint cut edge may lose to them; the board's known proportions (any profile in play, either way
    round) settle which edges are the board's.
    """

    def pick(
        sides: list[list[SideEdge]], corners: Callable[[list[SideEdge]], Points | None]
    ) -> list[SideEdge] | None:
        options = []
        for candidates in sides:
            strongest = max(e.strength for e in candidates)
            clear = [e for e in candidates if e.strength >= CLEAR_EDGE * strongest]
            options.append(sorted(clear, key=lambda e: -e.strength)[:5])
        best: tuple[float, list[SideEdge]] | None = None
        for combo in itertools.product(*options):
            quad = corners(list(combo))
            if quad is None or cv2.contourArea(quad.astype(np.float32)) <= 0:
                continue
            if aspect_error(quad, matrix, aspects) > tolerance:
                continue
            reach = sum(e.offset for e in combo)
            if best is None or reach > best[0]:
                best = (reach, list(combo))
        # No combination has a board's shape (part of a board, or no board at all): nothing is guessed.
        return best[1] if best is not None else None

    return pick


UNIT_SQUARE = np.array([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)])
FAINT_REACH = (0.012, 0.05)  # where a side's faint true edge may lie beyond it, in board widths
COHERENCE = 0.8  # share of the rows' edge strength that survives averaging them: a straight edge's


def grow_to_faint_edges(quad: Points, image: EdgeImage, to_photo: Callable[[Points], Points]) -> Points:
    """Each side moved out to a faint straight edge just beyond it, if there is one.

    A board's printed frame line can be far stronger than its cut edge on a table of nearly its colour, and
    where the row-by-row search misses that edge the frame line passes for it. Averaging many rows parallel
    to the side, in the board's own plane (so perspective keeps them parallel), lifts a straight edge out
    of the table's texture: its steps line up from row to row, texture's do not.
    """
    to_image = cv2.getPerspectiveTransform(UNIT_SQUARE.astype(np.float32), quad.astype(np.float32))
    step = 0.0008
    offsets = np.arange(-0.01, FAINT_REACH[1], step)
    t = np.linspace(0.1, 0.9, 80)[:, None]
    grown = UNIT_SQUARE.copy()
    for side in range(4):
        a, b = UNIT_SQUARE[side], UNIT_SQUARE[(side + 1) % 4]
        outward = (a + b) / 2 - 0.5
        outward /= np.linalg.norm(outward)
        unit = ((a + t * (b - a))[:, None, :] + offsets[None, :, None] * outward).reshape(-1, 2)
        pts = cv2.perspectiveTransform(unit.reshape(-1, 1, 2), to_image).reshape(-1, 2)
        rows = image.sample(to_photo(pts)).reshape(len(t), len(offsets), -1)
        coherent = np.linalg.norm(np.gradient(rows.mean(axis=0), axis=0), axis=1)
        per_row = np.linalg.norm(np.gradient(rows, axis=1), axis=2).mean(axis=0)
        beyond = offsets[1:-1] >= FAINT_REACH[0]
        # The floor counts the line the side starts at: a floor of the table's texture alone lets shadows
        # and grain through (measured: Alice's Garden lost 7 of 150 boards that way).
        floor = 3.0 * float(np.median(coherent))
        peak = (coherent[1:-1] >= coherent[:-2]) & (coherent[1:-1] >= coherent[2:])
        ok = peak & beyond & (coherent[1:-1] > floor) & (coherent[1:-1] >= COHERENCE * per_row[1:-1])
        if ok.any():
            reach = float(offsets[1:-1][ok].max())
            grown[side] += reach * outward
            grown[(side + 1) % 4] += reach * outward
    # Corners move with both their sides: each side's shift applies to its two corners, so a corner
    # shared by two grown sides moves out along both.
    return as_points(cv2.perspectiveTransform(grown.reshape(-1, 1, 2), to_image).reshape(-1, 2))


# Where no calibration measured the camera its focal length is unknown, and a board's proportions read from
# its outline depend on it (a tilted board seen through a wide lens, read at a typical phone's focal
# length, looks 30-40 % off its shape): the shape is read at each of these, in photo widths (ultra-wide
# phone lenses and the Pi's wide camera to phones' main cameras and more), and the nearest taken. Read with
# no calibration, 100 drawn photos a game of Alice's Garden, Sanssouci, Zen Garden and Four Gardens scored
# exactly 93 / 95 / 92 / 89 -> 99 / 100 / 99 / 99 (docs/benchmarks.md).
FOCAL_GUESSES = (0.4, 0.55, 0.7, 0.9, 1.2)


def aspect_error(
    quad: Points, matrix: NDArray[np.float64], aspects: tuple[float, ...], focal_known: bool = True
) -> float:
    """How far (a log ratio) the rectangle ``quad`` pictures is from the nearest of the boards' ``aspects``,
    either way round; ``focal_known`` false: ``matrix`` is a guess, and its focal length is any of
    :data:`FOCAL_GUESSES`."""
    ordered = clockwise(quad)
    ratios = [aspect(ordered, m) for m in lenses(matrix, focal_known)]
    return min(abs(float(np.log(r / a))) for r in ratios for asp in aspects for a in (asp, 1 / asp))


def lenses(matrix: NDArray[np.float64], focal_known: bool) -> list[NDArray[np.float64]]:
    """The camera matrices a photo may have been taken through: ``matrix`` where its focal length is known,
    else ``matrix`` (a guess, centred on the photo) and it at each other of :data:`FOCAL_GUESSES`: any
    shape ``matrix`` sees, some lens does."""
    if focal_known:
        return [matrix]
    width = 2.0 * float(matrix[0, 2])
    out = [matrix]
    for focal in FOCAL_GUESSES:
        if np.isclose(focal * width, matrix[0, 0]):
            continue
        guess = matrix.copy()
        guess[0, 0] = guess[1, 1] = focal * width
        out.append(guess)
    return out


def photo_mapper(camera: CameraModel | None) -> Callable[[Points], Points]:
    """Ideal pinhole pixels to photo pixels (the lens put back, when calibrated)."""

    def to_photo(pts: Points) -> Points:
        return camera.distort_px(pts) if camera is not None else pts

    return to_photo


def snap(
    quad: Points, image: EdgeImage, to_photo: Callable[[Points], Points], size: float
) -> tuple[Points, float] | None:
    """Each side of an outline (ideal pixels, clockwise) fitted again on the edge points right there: within
    1.5 % of the board's ``size`` (pixels), the top's edge (see :func:`top_edge`)."""
    return fit_quad(quad, image, to_photo, (-0.015 * size - 3, 0.015 * size + 3), top_edge(0.012 * size))
