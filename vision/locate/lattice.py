"""Find a board that is a grid of square tiles by its own lines: a Kingdomino kingdom has no printed board,
and its outline is wherever its outermost squares end (a square missing at a corner or along a side included).

The board-mask model learnt printed boards; on a glossy wooden table it marks the table's reflections as
board too. A grid of tiles has a stronger mark of its own: the gaps between its squares are two families of
straight lines, each family meeting at one vanishing point, equally spaced on the table. So:

1. Where the board's art is (:mod:`vision.locate.art`): the largest patch of its colours is the rough place.
2. Straight line segments there (OpenCV's line segment detector), sorted into two families by the vanishing
   point each family's lines run to (RANSAC; of the three strongest, each crossing pair is tried).
3. The photo is rectified by the two vanishing points (the line through them sent to infinity, the families
   turned square to each other); there, each family's lines are equally spaced, and the grid's spacing and
   first line are those that put the most segment length on ``cells + 1`` evenly spaced lines.
4. The grid as a homography from cells to photo, refitted on every segment near one of its lines, and moved
   (a row on or off, a row's spacing more or less, either way) while that explains the segments better: each
   grid line found along each of its cells, the art's colours inside and not in the ring of cells outside.
5. A grid the camera does not see as a rectangle of square cells is dropped; each outer side of the best is
   moved, at either end, to its corner tile's top edge (innermost where the camera sees the tiles' cut
   faces): tiles laid by hand sit off their neighbours' line, and the board's corners are its corner tiles'.
   Where a corner tile's edge is far fainter than its whole side's (a square left empty), or the art's
   colours do not end there (a stroke printed near the tile's edge), that end keeps the whole side's.

How far the found corners lie from those marked by hand is measured on real phone photos by
``garden-scorer-lab bench --photos ... --locate`` (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel, camera_centre, is_calibrated, matrix_or_guess
from vision.geometry import Points, as_points, homography_from_points, in_frame
from vision.locate.art import ArtColours
from vision.locate.board import Quad, point_inside
from vision.locate.edges import (
    EdgeImage,
    Picker,
    SideEdge,
    clockwise,
    lenses,
    outward_normal,
    photo_mapper,
    pick_sides,
    side_edges,
    top_edge,
)
from vision.locate.rectangle import aspect, skew

SEED_WIDTH = 512  # pixels: the art's colours are looked for at this width
ART_WIDTH = 1600  # pixels: and judged about a board found at most this finely across it
LINE_WIDTH = 1024  # pixels: line segments are found at this width
SEED_LEVEL = 0.15  # smoothed art likeness above which a pixel belongs to the rough place
SEED_REACH = 1.3  # segments are looked for in the rough place grown this much about its middle
MIN_SEGMENT = 0.03  # shortest segment kept, as a share of the rough place's size
VP_TOLERANCE_DEG = 1.5  # a segment runs to a vanishing point when it points there within this angle
VP_TRIALS = 300
VANISHING_POINTS = 3  # found one after another: the grid's two are among them
CROSSING_DEG = 30  # the second family runs at least this far off the way to the first's vanishing point
NEAR_LINE = 0.1  # cells: a segment lies on a grid line when both its ends are this close to it
REFIT_NEAR = 0.2  # cells: segments this close to a grid line refit it
REFITS = 6
REFIT_MOVES = 4  # of a grid's 49 moves, the best-judged this many are refitted and judged again
FIRST_GRIDS = 3  # the best first grids are each settled: the best first may not settle best
# A grid whose lines are found along less than this share of its cells' sides, with its art's colours
# inside, is no board: on the 14 real kingdoms found, 0.8 or more.
MIN_SCORE = 0.6
# cells: of an outer line's edges, those this close to its innermost fit it (a tile's foot lies further out)
INNERMOST = 0.06
# How far from a rectangle of square cells a found grid may be seen (see _misshapen), with a guessed camera
# matrix and with the camera's own: the 14 real kingdoms found, a phone's matrix guessed, measure up to 0.2.
SHAPE_LIMIT = {False: 0.3, True: 0.1}
# With no calibration the matrix is a guess (a phone's usual lens), but a likelier one than any focal length:
# a grid it sees as a board's shape is taken over one only another lens sees so unless that is judged this
# much better (a wide lens' kingdom far across the table, beside a grid the guess sees running onto a loose
# domino, 0.13-0.49 better; real kingdoms with squares left empty, 0.02-0.05 better through another lens).
LENS_MARGIN = 0.1
# A larger board round a grid found is taken, however it is judged, where the tiles' lattice runs on
# through its band (a Mighty Duel kingdom with squares left empty at its edge judges worse than the 5 x 5
# grid inside it): segments cover the band's sides at least this share as well as the grid's own (round a
# 5 x 5 kingdom, table: at most 0.10 on the 14 real table photos and drawn kingdoms among clutter; 7 x 7
# kingdoms among clutter 0.45-0.91), and its squares show the art at least this share as much (7 x 7 kingdoms
# 0.70-1.02; drawn 5 x 5 kingdoms' grids found off them, their bands over the kingdom's own lines, 0.15-0.27
# and once 0.62, which grows: a misread, flagged), in its columns and in its rows alike (loose dominoes laid
# along a 5 x 5 kingdom's side grew it: docs/experiments.md).
CONTINUED = 0.3
BAND_ART = 0.5
# A strip of squares just beyond a board's side whose lines run on (:data:`CONTINUED`) is said with less of
# the art: a single row of a kingdom's own squares reads 0.32-0.40 of its art (a grid slid onto loose squares
# laid in line, its dropped row beyond it), and round the real kingdoms no strip's lines run on at all.
BEYOND_ART = 0.25
SNAP_REACH = 0.015  # board sizes: the tiles' top edge is looked for this far either side of the grid's
# A corner tile's edge is taken where it is at least this share as clear, per sample row, as its whole side's
# (:func:`vision.locate.edges.side_edges`): a tile's contrast with the table may be half the side's average.
CLEAR_TILE = 0.5
# Search reaches: the strips this far either side of a corner tile's edge are what lies just inside and just
# outside it (past the edge's blur, short of the art a little way further in).
STRIP = (0.2, 0.5)

# A kingdom holds at least 8 of its frame's 25 squares, and one further across the table looks smaller: a
# place of the art's colours less than this share of the smallest board found holds no board.
SMALLEST_PLACE = 0.2
# Measured on the table's plane as a board found maps it, a place of fewer squares of that board's holds no
# board, and one of fewer than twice as many no two side by side: a kingdom of 8 squares, at half that for
# the place's rough outline (a kingdom's own measured 0.8-1.6 of its 25 squares on the real table photos).
# The cards and tiles of the art beside a kingdom measure 1-3.5 there; every place is tried before a board
# is found (the first is mostly a kingdom's).
FEWEST_SQUARES = 4.0
# Places tried that held no board, at most, the most art first: past these, the art's colours are clutter
# (a score sheet's pencil, a sleeve, a box).
FIRST_PLACES = 3

# Said of a board found where boards lie side by side (a patch twice a board across).
SIDE_BY_SIDE = (
    "this board lies close beside another, and its outline may run onto it: move them a hand's width apart "
    "(a square and a half) and photograph them again, or photograph this one alone; not scored"
)
# Boards overlapping by more than this share of the smaller are one too many: the later is no board.
OVERLAP = 0.1
# Patches of the art this many smoothing sizes apart are one place when the places joined readily hold no
# board: two kingdoms laid a tile apart.
TIGHT_JOIN = 0.4

# One set's tiles are one size: a grid of squares this much smaller across, measured on the table's plane,
# than a board found beside it is a card's or a box's print, not a board. On the clutter bench (seed
# 20261130), the score cards found beside kingdoms measured 0.25-0.69 of them; grids of a kingdom's own
# squares found beside it, 0.94-1.10.
SAME_TILES = 0.8
# Boards this many of a board's sizes from it (middle to middle) lie beside it.
BESIDE = 2.0

# How a board this module found says so (``Quad.method``).
METHOD = "grid"


@dataclass(frozen=True)
class _Segments:
    """Line segments (photo pixels, x1 y1 x2 y2), their lengths and family (0, 1; -1 for neither)."""

    ends: NDArray[np.float64]
    lengths: NDArray[np.float64]
    family: NDArray[np.intp]


@dataclass(frozen=True)
class _Likeness:
    """The art's likeness over the photo (``small``: the photo at :data:`SEED_WIDTH`): as each pixel reads
    (``like``), smoothed over about a cell (``dense``, for places; ``smooth``, for judging grids), the
    smoothing's size ``k`` and the map's ``scale`` from the photo."""

    small: NDArray[np.uint8]
    like: NDArray[np.float32]
    dense: NDArray[np.float32]
    smooth: NDArray[np.float32]
    k: int
    scale: float


def _shrunk(image_bgr: NDArray[np.uint8], width: int) -> tuple[NDArray[np.uint8], float]:
    """The image at most ``width`` across, and its scale from the image."""
    h, w = image_bgr.shape[:2]
    scale = min(1.0, width / w)
    if scale == 1.0:
        return image_bgr, scale
    return cv2.resize(image_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA), scale


def _likeness(image_bgr: NDArray[np.uint8], art: ArtColours) -> _Likeness:
    small, scale = _shrunk(image_bgr, SEED_WIDTH)
    like = art.likeness(small)
    k = max(3, small.shape[1] // 40)  # about a cell of a board a fifth of the photo wide
    return _Likeness(small, like, cv2.blur(like, (k, k)), cv2.blur(like, (2 * k, 2 * k)), k, scale)


def _places(likeness: _Likeness, taken: Sequence[Points], join: float = 1.0) -> list[Points]:
    """The rough places of the art's colours (hulls, photo pixels), the most art first, the boards already
    found (``taken``, photo corners) left out: a kingdom, another player's, a box lid, a card. Patches of
    the art up to ``join`` smoothing sizes apart are one place (a kingdom's squares of colours unlike the
    art's lie between them)."""
    k, scale = likeness.k, likeness.scale
    near = (likeness.dense > SEED_LEVEL).astype(np.uint8)
    reach = max(1, round(join * k))
    near = cv2.morphologyEx(
        near, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    )
    for corners in taken:
        # Grown by half a cell of the found board: the gap round it and its tiles' cut faces are taken too.
        centre = corners.mean(axis=0)
        grown = (corners - centre) * 1.2 + centre
        cv2.fillPoly(near, [np.round(grown * scale).astype(np.int32)], 0)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(near)
    weights = np.bincount(labels.ravel(), weights=likeness.dense.ravel(), minlength=n)
    places = []
    for best in 1 + np.argsort(-weights[1:], kind="stable"):
        if stats[best, cv2.CC_STAT_AREA] < 4 * k * k:
            continue
        place = (labels == best).astype(np.uint8)
        contours, _ = cv2.findContours(place, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        places.append(as_points(cv2.convexHull(max(contours, key=cv2.contourArea))) / scale)
    return places


def _segments(image_bgr: NDArray[np.uint8], camera: CameraModel | None) -> NDArray[np.float64]:
    """Straight segments in the photo (x1 y1 x2 y2), in ideal pixels: a lens bends the grid's lines, and
    lines straightened meet at their vanishing points."""
    view, scale = _shrunk(image_bgr, LINE_WIDTH)
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    found = cv2.createLineSegmentDetector().detect(gray)[0]
    ends = np.zeros((0, 4)) if found is None else np.asarray(found, np.float64).reshape(-1, 4) / scale
    if camera is not None and len(ends):
        ends = camera.undistort_px(ends.reshape(-1, 2)).reshape(-1, 4)
    return ends


def _near(ends: NDArray[np.float64], hull: Points) -> _Segments:
    """The segments in and around a rough place (``hull``, ideal pixels), the short ones left out."""
    centre = hull.mean(axis=0)
    grown = ((hull - centre) * SEED_REACH + centre).astype(np.float32).reshape(-1, 1, 2)
    middles = (ends[:, :2] + ends[:, 2:]) / 2
    inside = np.array([cv2.pointPolygonTest(grown, (float(x), float(y)), False) >= 0 for x, y in middles])
    lengths = np.linalg.norm(ends[:, 2:] - ends[:, :2], axis=1)
    size = np.sqrt(cv2.contourArea(hull.astype(np.float32)))
    keep = (inside if len(ends) else np.zeros(0, bool)) & (lengths > MIN_SEGMENT * size)
    return _Segments(ends[keep], lengths[keep], np.full(int(keep.sum()), -1, np.intp))


def _alignment(points: NDArray[np.float64], ends: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per point (rows of homogeneous ``points``; a point at infinity is a direction) and segment, |cos| of
    the angle between the segment and the way from its middle to the point."""
    middles = (ends[:, :2] + ends[:, 2:]) / 2
    directions = ends[:, 2:] - ends[:, :2]
    directions /= np.maximum(np.linalg.norm(directions, axis=1, keepdims=True), 1e-12)
    towards = points[:, None, :2] - middles[None] * points[:, None, 2:]
    towards /= np.maximum(np.linalg.norm(towards, axis=2, keepdims=True), 1e-12)
    return np.asarray(np.abs((towards * directions[None]).sum(axis=2)), dtype=np.float64)


def _vanishing_point(
    ends: NDArray[np.float64], lengths: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.bool_]] | None:
    """The vanishing point (homogeneous) most segment length runs to, and which segments do."""
    if len(ends) < 2:
        return None
    ones = np.ones((len(ends), 1))
    lines = np.cross(np.hstack([ends[:, :2], ones]), np.hstack([ends[:, 2:], ones]))
    pairs = rng.choice(len(ends), (VP_TRIALS, 2), p=lengths / lengths.sum())
    points = np.cross(lines[pairs[:, 0]], lines[pairs[:, 1]])
    norms = np.linalg.norm(points, axis=1)
    usable = (pairs[:, 0] != pairs[:, 1]) & (norms != 0)
    if not usable.any():
        return None
    points = points[usable] / norms[usable, None]
    runs = _alignment(points, ends) > np.cos(np.radians(VP_TOLERANCE_DEG))
    # The first of the most supported, as trying the pairs in turn would keep.
    best = int(np.argmax([lengths[row].sum() for row in runs]))
    return points[best], runs[best]


# A way to sort a place's segments into two families, with their two vanishing points (3 x 2).
_Way = tuple[_Segments, NDArray[np.float64]]


def _pairs(segments: _Segments, rng: np.random.Generator) -> list[_Way]:
    """Ways to sort the segments into the grid's two families, each with its two vanishing points (3 x 2).

    The vanishing points most segment length runs to are found one after another (each from the segments
    no earlier one took); any two whose lines cross are a way. The strongest two need not be the grid's:
    hatched art or a table's planks can outweigh one of its families."""
    points: list[tuple[NDArray[np.float64], NDArray[np.bool_]]] = []
    free = np.ones(len(segments.ends), bool)
    for _ in range(VANISHING_POINTS):
        index = np.flatnonzero(free)
        found = _vanishing_point(segments.ends[index], segments.lengths[index], rng)
        if found is None:
            break
        runs = np.zeros(len(free), bool)
        runs[index[found[1]]] = True
        points.append((found[0], runs))
        free &= ~runs
    crossing = np.cos(np.radians(CROSSING_DEG))
    ways = []
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            (v1, runs1), (v2, runs2) = points[i], points[j]
            # The other family crosses the first: not a second set of near-parallel lines.
            if np.median(_alignment(v1[None], segments.ends[runs2])[0]) > crossing:
                continue
            family = np.full(len(segments.ends), -1, np.intp)
            family[runs1], family[runs2] = 0, 1
            if min(int(runs1.sum()), int(runs2.sum())) >= 3:
                ways.append((_Segments(segments.ends, segments.lengths, family), np.column_stack([v1, v2])))
    return ways


def _project(matrix: NDArray[np.float64], points: Points) -> Points:
    # Not vision.geometry.apply_homography, which refuses a point at infinity: a grid under search may map
    # some there, and is judged for it (_Fit.score).
    out = np.hstack([points, np.ones((len(points), 1))]) @ matrix.T
    return np.asarray(out[:, :2] / out[:, 2:3], dtype=np.float64)


def _rectifier(vanishing: NDArray[np.float64], hull: Points, segments: _Segments) -> NDArray[np.float64]:
    """A homography under which family 0's lines run along x and family 1's along y (parallel each)."""
    centre = hull.mean(axis=0)
    size = np.sqrt(cv2.contourArea(hull.astype(np.float32)))
    normalise = np.array([[1 / size, 0, -centre[0] / size], [0, 1 / size, -centre[1] / size], [0, 0, 1]])
    horizon = np.linalg.inv(normalise).T @ np.cross(vanishing[:, 0], vanishing[:, 1])
    # The vanishing points' line sent to infinity; a view from straight above has it there already.
    matrix = normalise
    if abs(horizon[2]) > 1e-9:
        matrix = np.array([[1, 0, 0], [0, 1, 0], horizon / horizon[2]]) @ normalise
    angles = []
    for fam in (0, 1):
        ends = segments.ends[segments.family == fam]
        d = _project(matrix, ends[:, 2:]) - _project(matrix, ends[:, :2])
        a = np.arctan2(d[:, 1], d[:, 0])
        w = segments.lengths[segments.family == fam]
        # Mean of directions that have no sense (a line is the same both ways): on doubled angles.
        angles.append(0.5 * np.arctan2((w * np.sin(2 * a)).sum(), (w * np.cos(2 * a)).sum()))
    axes = np.array([[np.cos(angles[0]), np.cos(angles[1])], [np.sin(angles[0]), np.sin(angles[1])]])
    square = np.eye(3)
    square[:2, :2] = np.linalg.inv(axes)
    return np.asarray(square @ matrix, dtype=np.float64)


def _combs(
    coords: NDArray[np.float64],
    weights: NDArray[np.float64],
    extent: tuple[float, float],
    cells: int,
    boards: int = 1,
    finest: int = 0,
) -> list[tuple[float, float]]:
    """The best few (first line, spacing) of ``cells + 1`` evenly spaced lines on the segments' positions
    (rectified, one family's): the most segment length on them, spacing within a cell and a half of the
    rough place's over ``cells`` (over ``boards * cells`` at the fine end: a place holding boards side by
    side; over ``boards * finest`` where a larger board of ``finest`` cells across may fill the place)."""
    lo, hi = extent
    span = hi - lo
    step = span / 400
    grid = np.arange(lo - 0.6 * span, hi + 0.6 * span, step)
    profile = np.zeros(len(grid))
    index = np.clip(((coords - grid[0]) / step).astype(np.intp), 0, len(grid) - 1)
    np.add.at(profile, index, weights)
    profile = np.convolve(profile, np.exp(-0.5 * (np.arange(-15, 16) / 4.0) ** 2), "same")
    found = []
    spacings = np.linspace(span / (boards * cells + 1.5), span / max(cells - 1.5, 0.5), 60 * boards)
    if finest > cells:
        # Finer still, as many again: the spacings a board's own size calls for are tried as ever.
        finer = np.linspace(span / (boards * finest + 1.5), spacings[0], 60 * boards, endpoint=False)
        spacings = np.concatenate([spacings, finer])
    for spacing in spacings:
        offsets = (np.arange(cells + 1) * spacing / step).astype(np.intp)
        starts = len(grid) - offsets[-1] - 1
        if starts <= 0:
            continue
        # Line by line, as a sum over the lines' axis adds them (the same to the last bit), without the copy.
        sums = profile[offsets[0] : offsets[0] + starts].copy()
        for k in offsets[1:]:
            sums += profile[k : k + starts]
        found += [(float(sums[s]), float(grid[s]), float(spacing)) for s in np.argsort(-sums)[:5]]
    found.sort(key=lambda f: -f[0])
    kept: list[tuple[float, float, float]] = []
    for f in found:
        if all(abs(f[1] - g[1]) > 0.3 * f[2] or abs(f[2] - g[2]) > 0.1 * f[2] for g in kept):
            kept.append(f)
        if len(kept) == 8:
            break
    return [(first, spacing) for _, first, spacing in kept]


@dataclass(frozen=True)
class _Fit:
    """What a grid (cells to photo homography) is judged on: the segments and the art likeness map."""

    segments: _Segments
    likeness: NDArray[np.float32]
    scale: float  # of the likeness map from the photo
    cells: tuple[int, int]  # along family 1's lines (x), along family 0's (y)
    to_photo: Callable[[Points], Points]  # ideal pixels (the grid's) to photo pixels (the map's)

    @cached_property
    def _homogeneous(self) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]], ...]:
        """Per family, its segments' two ends as homogeneous points: a grid is judged a thousand times."""
        out = []
        for fam in (0, 1):
            ends = self.segments.ends[self.segments.family == fam]
            ones = np.ones((len(ends), 1))
            out.append((np.hstack([ends[:, :2], ones]), np.hstack([ends[:, 2:], ones])))
        return tuple(out)

    @cached_property
    def _centres(self) -> Points:
        """The centres of the grid's cells and of the ring of cells around it, row by row (cell units)."""
        nx, ny = self.cells
        return np.array(
            [(x + 0.5, y + 0.5) for y in range(-1, ny + 1) for x in range(-1, nx + 1)], np.float64
        )

    def _cell_coords(
        self, grids: NDArray[np.float64]
    ) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]], ...]:
        """Per family, its segments' two ends in each grid's cell units (grids x segments x 2)."""
        inverse = np.swapaxes(np.linalg.inv(grids), 1, 2)
        out = []
        for ends in self._homogeneous:
            a, b = (h @ inverse for h in ends)
            out.append((a[..., :2] / a[..., 2:3], b[..., :2] / b[..., 2:3]))
        return tuple(out)

    def _covered(self, grids: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """:meth:`covered` of each of ``grids`` (k x 3 x 3) at once: a grid is judged a thousand times."""
        nx, ny = self.cells
        coords = self._cell_coords(grids)
        out = []
        for fam, axis in ((0, 1), (1, 0)):
            a, b = coords[fam]
            other = 1 - axis
            lo = np.minimum(a[..., other], b[..., other])[:, None, :]
            hi = np.maximum(a[..., other], b[..., other])[:, None, :]
            lines = np.arange((ny, nx)[other] + 1)[:, None]
            cells = np.arange((nx, ny)[other])[:, None]
            # Which segments lie on each line (lines x segments), how far each runs along each cell (cells x
            # segments): their product, the length found along each (line, cell) side.
            on = (np.abs(a[:, None, :, axis] - lines) < NEAR_LINE) & (
                np.abs(b[:, None, :, axis] - lines) < NEAR_LINE
            )
            along = np.clip(np.minimum(hi, cells + 1) - np.maximum(lo, cells), 0, None)
            out.append(np.minimum(1.0, (on.astype(np.float64) @ np.swapaxes(along, 1, 2)) / 0.5))
        return out[0], out[1]

    def covered(self, grid: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Per family, how much of each of the grid's (line, cell) sides segments cover, up to half of it
        (1.0): family 0's (lines across y, cells along x), family 1's (lines across x, cells along y)."""
        across, down = self._covered(grid[None])
        return across[0], down[0]

    def _art(self, grids: NDArray[np.float64]) -> NDArray[np.float32]:
        """:meth:`art` of each of ``grids`` (k x 3 x 3) at once."""
        nx, ny = self.cells
        homogeneous = np.hstack([self._centres, np.ones((len(self._centres), 1))]) @ np.swapaxes(grids, 1, 2)
        with np.errstate(all="ignore"):
            # A grid gone wild puts centres at infinity (or behind the camera): those see nothing.
            ideal = (homogeneous[..., :2] / homogeneous[..., 2:3]).reshape(-1, 2)
            photo = self.to_photo(ideal) * self.scale
        h, w = self.likeness.shape
        finite = np.asarray(np.isfinite(photo).all(axis=1), dtype=bool)
        at = np.where(finite[:, None], np.round(np.clip(np.nan_to_num(photo), -1, 1e6)), -1).astype(np.intp)
        seen = finite & (at[:, 0] >= 0) & (at[:, 0] < w) & (at[:, 1] >= 0) & (at[:, 1] < h)
        flat = np.zeros(len(at), np.float32)
        flat[seen] = self.likeness[at[seen, 1], at[seen, 0]]
        return flat.reshape(len(grids), ny + 2, nx + 2)

    def art(self, grid: NDArray[np.float64]) -> NDArray[np.float32]:
        """The art's likeness at the middle of each of the grid's cells and of the ring of cells round it,
        row by row ((rows + 2) x (columns + 2))."""
        one: NDArray[np.float32] = self._art(grid[None])[0]
        return one

    def scores(self, grids: Sequence[NDArray[np.float64]]) -> NDArray[np.float64]:
        """Each grid's share of its (line, cell) sides a segment covers half of, plus the art's likeness
        inside less that in the ring of cells around it."""
        if not len(grids):
            return np.zeros(0)
        stacked = np.asarray(grids, dtype=np.float64)
        covered = self._covered(stacked)
        share = sum(c.sum(axis=(1, 2)) for c in covered) / sum(c[0].size for c in covered)
        values = self._art(stacked)
        inside = values[:, 1:-1, 1:-1].mean(axis=(1, 2))
        ring = np.concatenate(
            [values[:, 0], values[:, -1], values[:, 1:-1, 0], values[:, 1:-1, -1]], axis=1
        ).mean(axis=1)
        return np.asarray(share + inside - ring, dtype=np.float64)

    def score(self, grid: NDArray[np.float64]) -> float:
        """:meth:`scores` of one grid."""
        return float(self.scores([grid])[0])

    @cached_property
    def _refits(self) -> dict[bytes, NDArray[np.float64]]:
        """Each grid refitted so far, by its bytes."""
        return {}

    def refit(self, grid: NDArray[np.float64]) -> NDArray[np.float64]:
        """The homography fitted (linearly) to every segment end near a grid line, each on its line. A grid
        met again is not fitted again: the search meets most twice or more (a grid is among its own moves)."""
        key = grid.tobytes()
        if key not in self._refits:
            fitted = np.array(self._fitted(grid))
            fitted.flags.writeable = False  # shared by every caller that asks again
            self._refits[key] = fitted
        return self._refits[key]

    def _fitted(self, grid: NDArray[np.float64]) -> NDArray[np.float64]:
        """:meth:`refit`, every time."""
        nx, ny = self.cells
        ends = self.segments.ends.reshape(-1, 2)
        centre, spread = ends.mean(axis=0), max(float(ends.std()), 1e-9)
        normalise = np.array(
            [[1 / spread, 0, -centre[0] / spread], [0, 1 / spread, -centre[1] / spread], [0, 0, 1]]
        )
        rows = []
        coords = self._cell_coords(grid[None])
        for fam, axis in ((0, 1), (1, 0)):
            a, b = (ends[0] for ends in coords[fam])
            k = np.round((a[:, axis] + b[:, axis]) / 2)
            other = 1 - axis
            on = (
                (np.abs(a[:, axis] - k) < REFIT_NEAR)
                & (np.abs(b[:, axis] - k) < REFIT_NEAR)
                & (k >= 0)
                & (k <= (ny, nx)[other])
                & (np.maximum(a[:, other], b[:, other]) > -0.1)
                & (np.minimum(a[:, other], b[:, other]) < (nx, ny)[other] + 0.1)
            )
            last = (ny, nx)[other]
            at = (a[:, axis] + b[:, axis]) / 2
            # On an outer line, only the innermost edges: where a tile's side faces the camera, its foot on
            # the table is a second, outer edge parallel to the top's (docs/experiments.md).
            for outer, inward in ((0, 1.0), (last, -1.0)):
                there = on & (k == outer)
                if there.any():
                    innermost = float(np.max(inward * at[there]))
                    on &= ~there | (inward * at >= innermost - INNERMOST)
            chosen = self.segments.ends[self.segments.family == fam][on]
            weights = np.sqrt(self.segments.lengths[self.segments.family == fam][on])
            lines = np.zeros((len(chosen), 3))
            lines[:, axis], lines[:, 2] = 1.0, -k[on]
            for point in (chosen[:, :2], chosen[:, 2:]):
                homogeneous = np.hstack([point, np.ones((len(point), 1))]) @ normalise.T
                # line . (photo-to-cells matrix @ point) = 0, linear in the matrix's entries
                outer = lines[:, :, None] * homogeneous[:, None, :]
                rows.append(weights[:, None] * outer.reshape(len(point), 9))
        stacked = np.vstack(rows)
        if len(stacked) < 12:
            return grid
        # Only the right singular vectors: the full left ones are a (rows x rows) matrix, thousands wide.
        _, _, vt = np.linalg.svd(stacked, full_matrices=False)
        to_cells = vt[-1].reshape(3, 3) @ normalise
        if abs(np.linalg.det(to_cells)) < 1e-15:
            return grid
        fitted = np.linalg.inv(to_cells)
        return np.asarray(fitted / fitted[2, 2], dtype=np.float64)

    def improve(self, grid: NDArray[np.float64], score: float) -> tuple[float, NDArray[np.float64]]:
        """The grid (judged ``score``) moved a row or column on or off either end, or spread over one more or
        fewer, and refitted, whichever explains the photo best (the rough place may be a row off), judged."""
        nx, ny = self.cells

        def moves(n: int) -> list[tuple[float, float]]:
            return [(1.0, 0.0), (1.0, 1.0), (1.0, -1.0), ((n + 1) / n, 0.0), ((n + 1) / n, -1.0),
                    ((n - 1) / n, 0.0), ((n - 1) / n, 1.0)]  # fmt: skip

        def move(across: tuple[float, float], down: tuple[float, float]) -> NDArray[np.float64]:
            (sx, dx), (sy, dy) = across, down
            return np.asarray(grid @ np.array([[sx, 0, dx], [0, sy, dy], [0, 0, 1.0]]), dtype=np.float64)

        best = (score, grid)
        # Each way alone first (a row's move and a column's are nearly independent), then the best of each
        # together: 15 grids judged, not 49.
        still = (1.0, 0.0)
        ways = [(still, m) for m in moves(ny)] + [(m, still) for m in moves(nx)]
        grids = [move(*way) for way in ways]
        judged = [(float(s), g, way) for s, g, way in zip(self.scores(grids), grids, ways, strict=True)]
        rows, columns = judged[: len(moves(ny))], judged[len(moves(ny)) :]
        across = max(columns, key=lambda c: c[0])[2][0]
        down = max(rows, key=lambda r: r[0])[2][1]
        both = move(across, down)
        moved = sorted([*judged, (self.score(both), both, (across, down))], key=lambda c: -c[0])
        # Refitted (the costly part) only the moves that explain the photo best as they are.
        refitted = [self.refit(candidate) for _, candidate, _ in moved[:REFIT_MOVES]]
        for judged_score, fitted in zip(self.scores(refitted), refitted, strict=True):
            if judged_score > best[0]:
                best = (float(judged_score), fitted)
        return best


def _first_grids(
    fit: _Fit, rectify: NDArray[np.float64], hull: Points, boards: int = 1, finest: int = 0
) -> list[NDArray[np.float64]]:
    """The best-judged few grids of evenly spaced lines found in the rectified photo, best first."""
    nx, ny = fit.cells
    corners = _project(rectify, hull)
    combs = []
    for fam, axis, cells in ((0, 1, ny), (1, 0, nx)):
        ends = fit.segments.ends[fit.segments.family == fam]
        middles = (_project(rectify, ends[:, :2]) + _project(rectify, ends[:, 2:])) / 2
        extent = (float(corners[:, axis].min()), float(corners[:, axis].max()))
        weights = fit.segments.lengths[fit.segments.family == fam]
        combs.append(_combs(middles[:, axis], weights, extent, cells, boards, finest))
    to_photo = np.linalg.inv(rectify)
    grids = [
        to_photo @ np.array([[dx, 0, x0], [0, dy, y0], [0, 0, 1.0]])
        for y0, dy in combs[0]
        for x0, dx in combs[1]
    ]
    judged = fit.scores(grids)
    return [grids[i] for i in sorted(range(len(grids)), key=judged.__getitem__, reverse=True)[:FIRST_GRIDS]]


def _settled(fit: _Fit, grid: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
    """The grid refitted and moved while that explains the photo better (at most :data:`REFITS` times), and
    its score."""
    score = fit.score(grid)
    for _ in range(REFITS):
        refitted = fit.refit(grid)
        held = score  # the grid's own; the bar to pass stays the last move's
        if (refitted_score := fit.score(refitted)) > score:
            grid, held = refitted, refitted_score
        moved_score, moved = fit.improve(grid, held)
        if moved_score <= score:
            return held, grid
        grid, score = moved, moved_score
    return score, grid


def _grown(
    fit: _Fit, grid: NDArray[np.float64], size: tuple[int, int]
) -> tuple[float, NDArray[np.float64], _Fit] | None:
    """A board of ``size`` squares round the grid found (``fit``'s cells), laid wherever the grid fits in it
    (the best-judged), settled, and judged: (score, grid, fit); None where it is not larger both ways."""
    nx, ny = fit.cells
    # The grid's family along x may be the board's down: a larger board is tried the way the grid runs.
    big = size if (size[0] - nx) * (size[1] - ny) >= 0 and size[0] >= nx else size[::-1]
    if big[0] <= nx or big[1] <= ny:
        return None
    wider = _Fit(fit.segments, fit.likeness, fit.scale, big, fit.to_photo)
    placed = [
        grid @ np.array([[1.0, 0, -dx], [0, 1, -dy], [0, 0, 1]])
        for dy in range(big[1] - ny + 1)
        for dx in range(big[0] - nx + 1)
    ]
    score, settled = _settled(wider, placed[max(range(len(placed)), key=wider.scores(placed).__getitem__)])
    return score, settled, wider


def _continued(fit: _Fit, grid: NDArray[np.float64], wider: _Fit, grown: NDArray[np.float64]) -> bool:
    """Whether the tiles' lattice runs on beyond the grid found (``fit``'s cells, ``grid``) through the band
    of the larger board round it (``wider``'s cells, ``grown``): segments cover the band's sides at least
    :data:`CONTINUED` as well as the grid's own, and its squares show the art at least :data:`BAND_ART` as
    much. A band on the table has neither; one laid over the board's own printed art (a grid found off its
    board) has lines but only part of the art."""
    span = np.array([(0.0, 0.0), fit.cells], np.float64)
    (x0, y0), (x1, y1) = np.round(_project(np.linalg.inv(grown) @ grid, span)).astype(np.intp)
    x0, x1, y0, y1 = max(min(x0, x1), 0), max(x0, x1), max(min(y0, y1), 0), max(y0, y1)
    across, down = wider.covered(grown)
    within_across, within_down = np.zeros(across.shape, bool), np.zeros(down.shape, bool)
    within_across[y0 : y1 + 1, x0:x1] = True
    within_down[x0 : x1 + 1, y0:y1] = True
    squares = wider.art(grown)[1:-1, 1:-1]
    within = np.zeros(squares.shape, bool)
    within[y0:y1, x0:x1] = True
    # Both ways: a 5 x 5 grid inside a 7 x 7 board leaves it columns and rows to run on through, where a
    # line of loose dominoes laid along one side runs on one way only.
    columns, rows = ~within.any(axis=0), ~within.any(axis=1)
    if not (within.any() and columns.any() and rows.any()):
        return False
    sides = (
        np.concatenate([across[~within_across], down[~within_down]]).mean(),
        np.concatenate([across[within_across], down[within_down]]).mean(),
    )
    art = BAND_ART * squares[within].mean()
    return bool(
        sides[0] >= CONTINUED * sides[1]
        and squares[:, columns].mean() >= art
        and squares[rows, :].mean() >= art
    )


def _runs_beyond(fit: _Fit, grid: NDArray[np.float64]) -> bool:
    """Whether the tiles' lattice runs on across a side of the board found (``fit``'s cells, ``grid``): in
    the strip of cells just beyond that side, segments cover the sides at least :data:`CONTINUED` as well as
    the board's own and the squares show the art at least :data:`BEYOND_ART` as much. Loose tiles laid in
    line with a kingdom, or a larger kingdom round the grid: the outline may be a row off."""
    nx, ny = fit.cells
    ring = _Fit(fit.segments, fit.likeness, fit.scale, (nx + 2, ny + 2), fit.to_photo)
    around = grid @ np.array([[1.0, 0, -1], [0, 1, -1], [0, 0, 1]])
    across, down = ring.covered(around)  # (ny + 3 lines, nx + 2 cells), (nx + 3 lines, ny + 2 cells)
    squares = ring.art(around)[1:-1, 1:-1]
    sides = np.concatenate([across[1 : ny + 2, 1 : nx + 1].ravel(), down[1 : nx + 2, 1 : ny + 1].ravel()])
    art = float(squares[1:-1, 1:-1].mean())
    strips = (  # each strip's outer line, the sides across it and its squares
        (across[0, 1 : nx + 1], down[1 : nx + 2, 0], squares[0, 1:-1]),
        (across[ny + 2, 1 : nx + 1], down[1 : nx + 2, ny + 1], squares[-1, 1:-1]),
        (down[0, 1 : ny + 1], across[1 : ny + 2, 0], squares[1:-1, 0]),
        (down[nx + 2, 1 : ny + 1], across[1 : ny + 2, nx + 1], squares[1:-1, -1]),
    )
    lines, tiles = CONTINUED * sides.mean(), BEYOND_ART * art
    return any(
        np.concatenate([outer, crossing]).mean() >= lines and cells.mean() >= tiles
        for outer, crossing, cells in strips
    )


def _misshapen(
    grid: NDArray[np.float64], cells: tuple[int, int], matrix: NDArray[np.float64], focal_known: bool
) -> float:
    """How far from a rectangle of ``cells`` square cells the camera (``matrix``; with ``focal_known``
    false, at whichever focal length a lens may have, :func:`vision.locate.edges.lenses`) sees the grid:
    the larger of its corners' skew (a cosine) and its width over height's |log| error. A grid on hatched
    art's lines, or on part of a board, is no such rectangle."""
    nx, ny = cells
    quad = _project(grid, np.array([(0.0, 0.0), (nx, 0.0), (nx, ny), (0.0, ny)]))
    with np.errstate(all="ignore"):
        errors = [
            max(skew(quad, m), abs(np.log(aspect(quad, m) * ny / nx))) for m in lenses(matrix, focal_known)
        ]
    error = min(errors)
    return float(error) if np.isfinite(error) else np.inf


def _facing(
    grid: NDArray[np.float64], cells_xy: Points, matrix: NDArray[np.float64]
) -> tuple[bool, bool, bool, bool]:
    """Per side of the board (``cells_xy[i]`` to the next, in cells), whether the camera sees the tiles'
    cut faces along it: it stands beyond that side, outside the board."""
    foot = camera_centre(grid, matrix)[:2]
    middle = cells_xy.mean(axis=0)
    out = []
    for i in range(4):
        a, b = cells_xy[i], cells_xy[(i + 1) % 4]
        normal = np.array([b[1] - a[1], a[0] - b[0]])
        out.append(bool(np.dot(foot - a, normal) * np.dot(middle - a, normal) < 0))
    return out[0], out[1], out[2], out[3]


def _top_faces(facing: tuple[bool, bool, bool, bool], inward: float) -> Picker:
    """Per side, the edge of the tiles' top faces: where the camera sees their cut faces, the innermost
    clear edge near the grid's line (:func:`vision.locate.edges.top_edge`; the cut faces' foot on the table
    lies further out), elsewhere the outermost (the top's edge is the last before the table, and printed
    art lies inside it)."""
    inner = top_edge(inward)

    def pick(
        sides: list[list[SideEdge]], corners: Callable[[list[SideEdge]], Points | None]
    ) -> list[SideEdge] | None:
        near = inner(sides, corners)
        if near is None:
            return None
        chosen = []
        for candidates, seen, innermost in zip(sides, facing, near, strict=True):
            if seen:
                chosen.append(innermost)
                continue
            strongest = max(e.strength for e in candidates)
            clear = [e for e in candidates if e.strength >= 0.4 * strongest]
            chosen.append(max(clear, key=lambda e: e.offset))
        return chosen

    return pick


def _on_line(point: Points, edge: SideEdge) -> Points:
    """The point of ``edge``'s line nearest ``point``."""
    direction, through = edge.line[:2], edge.line[2:]
    return np.asarray(through + np.dot(point - through, direction) * direction, dtype=np.float64)


def _from_side(found: list[SideEdge], side: SideEdge, middle: Points, normal: Points) -> list[SideEdge]:
    """A tile's edges (``middle``, the tile's on the grid's line) with their offsets from the whole side's
    edge, not the grid's line: where the camera sees the tiles' cut faces, the tile's top edge is then the
    one nearest where the side's runs, though the grid's line may end nearer the faces' foot."""
    shift = float(np.dot(_on_line(middle, side) - middle, normal))
    return [SideEdge(e.points, e.strength, e.offset - shift) for e in found]


def _art_ends(
    edge: SideEdge, likeness: Callable[[Points], NDArray[np.float32]], normal: Points, reach: float
) -> bool:
    """Whether the board's art (its colours' ``likeness`` at ideal pixels) ends at a tile's ``edge`` (of
    outward ``normal``): the strip just outside it looks less like the art than the strip just inside. A
    stroke printed near a tile's edge has the tile's own art on both sides of it; where the art's colours
    are not known for that tile, neither side looks more like it, and which edge is the tile's is unknown."""
    depths = np.linspace(STRIP[0], STRIP[1], 4) * reach
    outside, inside = (
        float(np.mean([likeness(edge.points + sense * d * normal) for d in depths])) for sense in (1.0, -1.0)
    )
    return outside < inside


def _end(corner: Points, tile: SideEdge | None, side: SideEdge, normal: Points) -> Points:
    """Where a side passes its end ``corner`` (the grid's): on the whole side's edge, moved along its outward
    ``normal`` to the corner tile's edge (offset from the side's) where that is not far less clear."""
    on_side = _on_line(corner, side)
    if tile is None or tile.strength < CLEAR_TILE * side.strength:
        return on_side
    return np.asarray(on_side + tile.offset * normal, dtype=np.float64)


def _corner_tiles(
    grid: NDArray[np.float64],
    cells_xy: Points,
    sides: list[SideEdge],
    image: EdgeImage,
    to_photo: Callable[[Points], Points],
    pick: Picker,
    reach: float,
    likeness: Callable[[Points], NDArray[np.float32]],
) -> Points:
    """The board's corners (ideal pixels) where its corner tiles' top edges meet: each side of the grid
    (``cells_xy[i]`` to the next, in cells) moved at either end to the edge ``pick`` takes along the tile
    there. Tiles laid by hand sit a few pixels off their neighbours' line, so one straight edge through a
    whole side (``sides``) runs between them and misses a corner tile that sticks out (up to 3 % of a real
    kingdom). An end stays on the whole side's edge where its tile's is far less clear (:data:`CLEAR_TILE`):
    a corner square left empty shows only the table, and the grid's line, fitted to the gaps between tiles,
    may end further from the corner tile's edge than the search reaches, where only faint texture lies.
    It stays there too where the art does not end at the tile's edge (``likeness``, :func:`_art_ends`):
    there the search took a stroke printed inside the tile."""
    ideal = _project(grid, cells_xy)
    centre = ideal.mean(axis=0)
    normals = [outward_normal(ideal[i], ideal[(i + 1) % 4], centre) for i in range(4)]
    ends: tuple[list[list[SideEdge]], list[list[SideEdge]]] = ([], [])  # the sides' first tiles', last tiles'
    for i in range(4):
        start, stop = cells_xy[i], cells_xy[(i + 1) % 4]
        cell = (stop - start) / np.abs(stop - start).max()
        for found, tile in zip(ends, ((start, start + cell), (stop - cell, stop)), strict=True):
            p, q = _project(grid, np.array(tile))
            edges = side_edges(p, q, normals[i], image, to_photo, (-reach, reach))
            # No edge at all along the tile: one of no strength, which the whole side's outweighs.
            none_there = [SideEdge(p[None], 0.0, 0.0)]
            found.append(_from_side(edges or none_there, sides[i], (p + q) / 2, normals[i]))
    none: list[SideEdge | None] = [None] * 4
    first, last = (pick(found, lambda _: None) or none for found in ends)

    def kept(tile: SideEdge | None, i: int) -> SideEdge | None:
        # The tile's edge only where the art ends there; else that end keeps the whole side's.
        return tile if tile is not None and _art_ends(tile, likeness, normals[i], reach) else None

    lines = []
    for i in range(4):
        a = _end(ideal[i], kept(first[i], i), sides[i], normals[i])
        b = _end(ideal[(i + 1) % 4], kept(last[i], i), sides[i], normals[i])
        lines.append(np.cross([*a, 1.0], [*b, 1.0]))
    corners = np.array([np.cross(lines[i - 1], lines[i]) for i in range(4)])
    return np.asarray(corners[:, :2] / corners[:, 2:], dtype=np.float64)


def _art_map(
    image_bgr: NDArray[np.uint8],
    art: ArtColours,
    small: NDArray[np.uint8],
    corners: Points,
    to_photo: Callable[[Points], Points],
) -> Callable[[Points], NDArray[np.float32]]:
    """The art's likeness at ideal pixels, weighed against the whole photo's colours (``small``: the photo
    as :func:`_likeness` saw it), but finer (a strip beside an edge is a few pixels wide: at most
    :data:`ART_WIDTH` across the board) and only about the board (photo ``corners``), all it is asked of."""
    h, w = image_bgr.shape[:2]
    margin = 0.1 * float(np.ptp(corners, axis=0).max())
    x0, y0 = np.clip(np.floor(corners.min(axis=0) - margin), 0, None).astype(int)
    x1, y1 = np.clip(np.ceil(corners.max(axis=0) + margin), 0, (w, h)).astype(int)
    crop = image_bgr[y0:y1, x0:x1]
    fine = min(1.0, ART_WIDTH / max(x1 - x0, y1 - y0, 1))
    if fine < 1.0:
        size = (max(1, round((x1 - x0) * fine)), max(1, round((y1 - y0) * fine)))
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    like = art.likeness(crop, small)

    def at(ideal: Points) -> NDArray[np.float32]:
        xy = np.round((to_photo(ideal) - (x0, y0)) * fine).astype(np.intp)
        xy = np.clip(xy, 0, (like.shape[1] - 1, like.shape[0] - 1))
        return np.asarray(like[xy[:, 1], xy[:, 0]], dtype=np.float32)

    return at


def find_lattices(
    image_bgr: NDArray[np.uint8],
    cells: tuple[int, int],
    art: ArtColours,
    camera: CameraModel | None = None,
    most: int = 4,
    larger: Sequence[tuple[int, int]] = (),
) -> list[Quad]:
    """The boards of ``cells`` (across, down) square tiles in the photo, at most ``most``, the most art's
    colours first: none where no grid of them in the art's colours stands out. Each board's corners run
    clockwise from an arbitrary one, its first side along the board's width (``cells[0]`` across).
    ``larger``: bigger boards of the same tiles that may lie there instead (a Mighty Duel's 7 x 7 kingdom):
    round each grid found, each is tried wherever the grid could lie in it, and taken where it explains the
    photo better; ``Quad.cells`` says which size was found.

    The places of the art's colours are tried one by one, the most art first; a board found is left out of
    the places looked at after it, so two kingdoms side by side (one place at first) are found one after
    the other, and a place that holds no grid of tiles (a box lid, a card) is passed over. Places joined
    less readily come after (:data:`TIGHT_JOIN`): two kingdoms a tile apart are one place at first."""
    likeness = _likeness(image_bgr, art)
    ends = _segments(image_bgr, camera)
    found: list[Quad] = []
    tried: list[Points] = []
    crowded: list[Points] = []  # patches that held boards side by side
    while len(found) < most and len(tried) < FIRST_PLACES + len(found):
        taken = [q.corners_xy for q in found]
        places = [
            p
            for p in (*_places(likeness, taken), *_places(likeness, taken, TIGHT_JOIN))
            if not _tried(p, tried)
        ]
        if found:
            least = SMALLEST_PLACE * min(_area(q.corners_xy) for q in found)
            places = [p for p in places if _area(p) >= least]
        if not places:
            break
        hull = places[0]
        tried.append(hull)
        quad = None
        room = _squares(hull, found, camera)
        if room < FEWEST_SQUARES:
            continue  # tried, as a card is: it counts among the places that held no board
        two_fit = room >= 2 * FEWEST_SQUARES
        chosen = _place_grid(image_bgr, cells, larger, camera, likeness, ends, hull, two_fit)
        if chosen is not None:
            (grid, known, two), size = chosen
            quad = _board(
                image_bgr, size, art, camera, likeness, grid, known, larger if size == cells else ()
            )
            if two:
                crowded.append(hull)
        # Boards never lie on each other: a grid laid partly over a board found is dominoes beside it.
        if quad is not None and not any(_shared(quad.corners_xy, q.corners_xy) > OVERLAP for q in found):
            found.append(quad)

    found = [q for q in found if not any(_smaller_tiles(q, other) for other in found)]

    # Boards of a patch that held two or more side by side: their sides may have snapped to the neighbour's
    # edge across the gap. Shown, not scored. A board alone in its patch (a card or loose dominoes of the
    # same art made the patch too large for one board) is scored.
    def together(quad: Quad) -> bool:
        return any(
            point_inside(quad.corners_xy.mean(axis=0), hull)
            and sum(point_inside(q.corners_xy.mean(axis=0), hull) for q in found) > 1
            for hull in crowded
        )

    return [replace(q, doubt=SIDE_BY_SIDE) if together(q) else q for q in found]


def _place_grid(
    image_bgr: NDArray[np.uint8],
    cells: tuple[int, int],
    larger: Sequence[tuple[int, int]],
    camera: CameraModel | None,
    likeness: _Likeness,
    ends: NDArray[np.float64],
    hull: Points,
    two: bool,
) -> tuple[tuple[_Grid, bool, bool], tuple[int, int]] | None:
    """The grid a rough place (``hull``) holds as :func:`_taken` takes it, and its size: of ``cells``, or of
    one of ``larger``'s sizes judged better, each looked for directly. A grid of ``cells`` found inside a
    Mighty Duel kingdom, across it at twice the tiles' spacing or stretched over it judges below the kingdom's
    own 7 x 7 grid, and grown round it (:func:`_grown`) seldom reaches it (drawn 7 x 7 kingdoms among clutter
    with no size given: found 40-45 % that way, 65-75 % so). A larger board's lattice holds a grid of
    ``cells`` too: where none is found, no larger one is looked for (a 7 x 7 grid then ran over loose
    dominoes and a card). ``two``: whether the place may hold two boards side by side. None where there is
    none."""
    if camera is not None:
        hull = camera.undistort_px(hull)
    # Found once for every size and spacing looked for (the same each time: a fixed seed).
    ways = _pairs(_near(ends, hull), np.random.default_rng(0))
    # Inside a larger board's place (a Mighty Duel kingdom's), a grid of ``cells`` at its tiles' spacing.
    finest = max((max(size) for size in larger), default=0)

    def taken(size: tuple[int, int]) -> tuple[_Grid, bool, bool] | None:
        single = _grids(image_bgr, size, camera, likeness, ways, hull, finest=finest)
        # Two boards laid edge to edge are one patch, twice a board across: a grid of a board's size is
        # looked for at up to half the patch's spacing too, where no single grid the camera's matrix sees as
        # a board's shape was found.
        double = (
            {}
            if True in single or not two
            else _grids(image_bgr, size, camera, likeness, ways, hull, boards=2, finest=finest)
        )
        return _taken(single, double)

    own = taken(cells)
    if own is None:
        return None
    chosen = own, cells
    for size in larger:
        other = taken(size)
        if other is not None and _judged(other) > _judged(chosen[0]):
            chosen = other, size
    return chosen


def _taken(single: dict[bool, _Grid], double: dict[bool, _Grid]) -> tuple[_Grid, bool, bool] | None:
    """Of a place's grids (:func:`_grids`) at its spacing (``single``) and at half of it (``double``): the
    best-judged, whether the camera's matrix sees it as a board's shape, and whether it is two boards' grid.
    The one that explains the photo best: cards and loose tiles beside a board make its patch larger than
    the board, and a grid spaced for the patch may then run over every other tile's edge. A grid the matrix
    sees is judged :data:`LENS_MARGIN` better (a larger board round it is then checked through the matrix).
    None where there is no grid."""
    seen = [
        (grid, known, two)
        for grids, two in ((single, False), (double, True))
        for known, grid in grids.items()
    ]
    return max(seen, key=_judged, default=None)


def _judged(taken: tuple[_Grid, bool, bool]) -> float:
    """A grid's score as :func:`_taken` weighs it: :data:`LENS_MARGIN` more where the matrix sees it."""
    (score, _, _), known, _ = taken
    return score + (LENS_MARGIN if known else 0.0)


def _smaller_tiles(quad: Quad, other: Quad) -> bool:
    """Whether ``quad``'s squares are smaller than ``other``'s beside it (:data:`SAME_TILES`), measured on
    the table's plane as ``other``'s grid maps it."""
    size = np.sqrt(_area(other.ideal_xy))
    near = np.linalg.norm(quad.ideal_xy.mean(axis=0) - other.ideal_xy.mean(axis=0)) <= BESIDE * size
    if quad is other or not near or quad.cells is None:
        return False
    squares = _in_squares(quad.ideal_xy, other)
    return squares is not None and bool(np.sqrt(squares / (quad.cells[0] * quad.cells[1])) < SAME_TILES)


def _in_squares(outline: Points, board: Quad) -> float | None:
    """The area of ``outline`` (ideal pixels) in ``board``'s squares, on the table's plane as its grid maps
    it; None for an outline that runs past the board's horizon (too far off to say) or a board of no grid."""
    if board.cells is None:
        return None
    nx, ny = board.cells
    to_cells = homography_from_points(board.ideal_xy, [(0, 0), (nx, 0), (nx, ny), (0, ny)])
    ends = np.hstack([outline, np.ones((len(outline), 1))]) @ to_cells.T
    if not (ends[:, 2] > 0).all() and not (ends[:, 2] < 0).all():
        return None
    return _area(ends[:, :2] / ends[:, 2:])


def _squares(place: Points, found: Sequence[Quad], camera: CameraModel | None) -> float:
    """The most squares a rough place (photo pixels) holds of any board found, on the table's plane; as
    many as it likes where none is found or no board's grid can say."""
    ideal = camera.undistort_px(place) if camera is not None else place
    held = [_in_squares(ideal, q) for q in found]
    return float("inf") if not found or None in held else max(h for h in held if h is not None)


def _shared(a: Points, b: Points) -> float:
    """The share of the smaller outline's area that lies in the other too."""
    common, _ = cv2.intersectConvexConvex(clockwise(a).astype(np.float32), clockwise(b).astype(np.float32))
    return float(common) / max(min(_area(a), _area(b)), 1e-9)


def _area(outline: Points) -> float:
    return float(abs(cv2.contourArea(outline.astype(np.float32))))


def _tried(place: Points, tried: Sequence[Points]) -> bool:
    """Whether a place is one looked at before (its middle inside one tried, about its size)."""
    middle = place.mean(axis=0)
    area = _area(place)
    return any(point_inside(middle, hull) and _area(hull) <= 1.5 * area for hull in tried)


_Grid = tuple[float, NDArray[np.float64], _Fit]


def _grids(
    image_bgr: NDArray[np.uint8],
    cells: tuple[int, int],
    camera: CameraModel | None,
    likeness: _Likeness,
    ways: Sequence[_Way],
    hull: Points,
    boards: int = 1,
    finest: int = 0,
) -> dict[bool, _Grid]:
    """The best grid of ``cells`` square tiles about one rough place (``hull``, ideal pixels) on one of its
    ways to sort the segments into two families (:func:`_pairs`) that a camera sees as a board's shape, with
    its score: under True, through the camera's matrix (a guess, with no calibration); under False, with no
    calibration, through any lens' (:func:`_misshapen`). Only grids scoring at least :data:`MIN_SCORE`.
    ``boards``: how many boards side by side the place may hold; ``finest``: the most cells across a larger
    board of the same tiles may have (see :func:`_combs`)."""
    to_photo = photo_mapper(camera)
    # Which family runs across the board and which down is unknown: a board of unequal sides tries both.
    options: Sequence[tuple[int, int]] = [cells] if cells[0] == cells[1] else [cells, cells[::-1]]
    matrix = matrix_or_guess(camera, (image_bgr.shape[1], image_bgr.shape[0]))
    calibrated = is_calibrated(camera)
    limit = SHAPE_LIMIT[calibrated]
    best: dict[bool, _Grid] = {}
    for segments, vanishing in ways:
        rectify = _rectifier(vanishing, hull, segments)
        for shape in options:
            fit = _Fit(segments, likeness.smooth, likeness.scale, shape, to_photo)
            for first in _first_grids(fit, rectify, hull, boards, finest):
                score, grid = _settled(fit, first)
                # A shape the matrix sees, some lens does: the other lenses are looked through only where
                # the matrix sees none (the hot path: every grid settled).
                seen = _misshapen(grid, shape, matrix, True) <= limit
                passes = {True: seen}
                if not calibrated:
                    passes[False] = seen or _misshapen(grid, shape, matrix, False) <= limit
                for known, ok in passes.items():
                    if ok and score > best.get(known, (-1.0,))[0]:
                        best[known] = (score, grid, fit)
    return {known: found for known, found in best.items() if found[0] >= MIN_SCORE}


def _board(
    image_bgr: NDArray[np.uint8],
    cells: tuple[int, int],
    art: ArtColours,
    camera: CameraModel | None,
    likeness: _Likeness,
    found: _Grid,
    focal_known: bool,
    larger: Sequence[tuple[int, int]] = (),
) -> Quad:
    """The board a grid (:func:`_grids`, found through a lens of known focal length or not) is: a larger
    board round it where that explains the photo better, its corners its corner tiles'."""
    to_photo = photo_mapper(camera)
    matrix = matrix_or_guess(camera, (image_bgr.shape[1], image_bgr.shape[0]))
    limit = SHAPE_LIMIT[is_calibrated(camera)]
    score, grid, fit = found
    wanted = cells  # the board's (across, down), whichever way the grid's families run
    for board in larger:
        grown = _grown(fit, grid, board)
        if (
            grown is not None
            and (grown[0] > score or _continued(fit, grid, grown[2], grown[1]))
            and _misshapen(grown[1], grown[2].cells, matrix, focal_known) <= limit
        ):
            (score, grid, fit), wanted = grown, board
    nx, ny = fit.cells
    cells_xy = np.array([(0.0, 0.0), (nx, 0.0), (nx, ny), (0.0, ny)])
    ideal = _project(grid, cells_xy)
    # Sides run round the board; clockwise in the photo, the other way round in cells when it is mirrored.
    if cv2.contourArea(clockwise(ideal).astype(np.float32), oriented=True) != cv2.contourArea(
        ideal.astype(np.float32), oriented=True
    ):
        ideal, cells_xy = ideal[::-1].copy(), cells_xy[::-1].copy()
    if fit.cells != wanted:
        # The first side runs along the board's width (``cells[0]`` across), as a reader rectifies it.
        ideal, cells_xy = np.roll(ideal, -1, axis=0), np.roll(cells_xy, -1, axis=0)
    facing = _facing(grid, cells_xy, matrix)
    size = float(np.sqrt(cv2.contourArea(ideal.astype(np.float32))))
    reach = SNAP_REACH * size
    image, pick = EdgeImage(image_bgr), _top_faces(facing, reach)
    sides = pick_sides(ideal, image, to_photo, (-reach, reach), pick)
    if sides is not None:
        art_at = _art_map(image_bgr, art, likeness.small, to_photo(ideal), to_photo)
        ideal = _corner_tiles(grid, cells_xy, sides, image, to_photo, pick, reach, art_at)
    corners = to_photo(ideal)
    h, w = image_bgr.shape[:2]
    beyond = _runs_beyond(fit, grid)
    return Quad(corners, ideal, in_frame(corners, (w, h)), score, method=METHOD, cells=wanted, beyond=beyond)
