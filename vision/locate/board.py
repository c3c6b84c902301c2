"""Locate boards in a photo: outlined by the board-mask model (:mod:`vision.locate.mask`) and snapped to their
own edges, or, where the model finds none (or none is given), from their edges alone:

1. Separate what is not table: a colour model of the table is learnt from the frame's border, where no board
   lies, and pixels far from it form candidate blobs (one per board, merged when close).
2. A coarse quadrilateral from each blob's convex hull.
3. Each side is moved to the strongest straight edge near it (the board's physical edge: printed art inside
   may match the table's colour, so the blob alone can stop short), then fitted to sub-pixel edge points
   (:mod:`vision.locate.edges`).
4. Corners are the intersections of the four fitted lines, in ideal (undistorted) pixels when the camera is
   calibrated, so a wide lens' curved edges do not bend the board.

Which corner is the board's top-left is left to :mod:`vision.read.orient`; which profile a quad is, to the
caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel, is_calibrated, matrix_or_guess
from vision.geometry import Points, as_points, in_frame, is_convex, quad_size, within_reach
from vision.locate.edges import (
    ASPECT_TOLERANCE,
    EdgeImage,
    aspect_error,
    aspect_tolerance,
    clockwise,
    fit_quad,
    grow_to_faint_edges,
    outermost_fitting,
    photo_mapper,
    snap,
)
from vision.locate.mask import INPUT_WIDTH, BoardSegmenter, Outline
from vision.locate.rectangle import complete, skew
from vision.locate.sides import COLUMNS, SideFinder

WORK_WIDTH = 640  # pixels: the scale blobs are found at; edges are refined at full resolution
BORDER_FRACTION = 0.04  # the frame's border band the table colour is learnt from
MIN_AREA_FRACTION = 0.004  # blobs smaller than this share of the frame are never boards
# How far in and out of a rough outline a side's edge is searched, in board widths: a colour blob stops
# short of a board's faint edge; the board-mask model's outline lies within a few per cent either way.
BLOB_REACH = (-0.05, 0.12)
MASK_REACH = (-0.06, 0.06)
# Board edges this far from the board-mask model's outline (in board widths, or in the model's pixels for a
# small board or tile, whichever is more): one of them took a printed line or a shadow for the board's side,
# and a board read at the wrong corners scores wrongly. The outline itself is off by 1-1.5 % of a board
# (median; 2.3-3.2 % at the 95th percentile), so a tighter check refuses good boards: at 4 %, of 150-200
# photos each, Alice's Garden refuses 3 of 7 misplaced boards for 2 of 193 well placed ones, Sanssouci 2 of 4
# for 2 of 146, Zen Garden none of 12 for none of 188 (at 3 %: 6 of 7 for 5, 2 of 4 for 13, 3 of 12 for none).
EDGE_DOUBT = 0.04
EDGE_DOUBT_MASK_PX = 2.5
# The same check for sides the side model placed: of 300 photos each of Alice's Garden, Sanssouci and Zen
# Garden it misplaced none (where unsure it places nothing and the edge search tries), while 4 % refused 3, 9
# and 0 good boards (the mask's outline itself lies up to 5.4 % off): only an outline far off is doubted.
# A side the mask cut short is looked for again further out (vision.locate.sides.LOOK_AGAIN): boards placed so
# lay 8-9 % off their outline and right (3 of 500 Alice's Garden photos), so the limit is 12 %.
SIDES_DOUBT = 0.12
# A board whose mask runs to the photo's edge is whole if its edges lie at least this far inside it, and
# within this share of its size of the outline (the mask's glow at the edge strays further than elsewhere:
# boards 12-13 px from a photo's bottom edge lay 4.6-5 % off their outlines there).
WHOLE_CLEAR_PX = 4.0
WHOLE_GAP = 0.08
# How far from a rectangle of a board's shape (skew as a cosine, width/height as |log|) a calibrated camera
# may see a board's placed sides: well-placed boards measure under 0.01 (200 Alice's Garden photos), one
# side placed on the printed frame 0.03-0.16.
SQUARE_TOLERANCE = 0.02
# A rectangle made from three of them stands only where the side model finds each of its sides along this
# share of it: two misplaced sides make rectangles off by 10-17 % that it finds along 5-11 of 12 stretches.
# Or along its three kept sides, where the mask's outline agrees with it as closely as edges found by the
# edge search must (EDGE_DOUBT): the side it moves may be a margin of the table's own colour, which the side
# model cannot see (a dark Sanssouci board whose terrace side it placed 1.4 % off: the rectangle from the
# other three lies 0.3 % from the truth, but it finds that side along 6 of 12 stretches).
SQUARE_SUPPORT = 0.75
# An outline whose board fills less of its hull than this may be boards the mask joined across the gaps
# between them (vision.locate.mask.Outline.solid), and the edge search looks inside it. Gardens of one
# table joined so filled 0.77-0.92 of theirs, single boards 0.92-0.97 (13 of 497 drawn photos below 0.95):
# a single board looked into is kept, as no two boards apart lie inside it (none of the 497 was split).
MERGED_SOLID = 0.95
# Of the outline's area: the least and most each board found inside it may cover, and all of them together.
# Boards joined so (two to four) cover 0.11-0.58 each, 0.6-0.95 together; a single board's printing (its
# grid, a strip) 0.59-0.62 and 0.09-0.16, and inner frames of four dark boards on a dark table 0.3-0.46.
MERGED_PART, MERGED_MOST, MERGED_COVER = 0.1, 0.6, 0.55


@dataclass(frozen=True)
class Quad:
    """A located board outline: corners in photo pixels (as taken) and in ideal pinhole pixels.

    Corners run clockwise in the image; from an arbitrary start unless ``oriented`` (stickers or the user
    said which corner is the board's top-left). ``in_frame`` is false when the outline touches the photo's
    edge (a board partly out of view is reported, not guessed).
    """

    corners_xy: Points
    ideal_xy: Points
    in_frame: bool
    edge_score: float
    oriented: bool = False
    method: str = "edges"
    # Why the outline's corners are in doubt, when they are ("" when not): such a board is shown, not scored.
    doubt: str = ""
    # One side was put where the other three and the board's shape say it lies, or read again a strip
    # further out or in, and the side model found all four there, in a board's rectangle (:func:`_squared`):
    # its corners stand however far the mask's outline is off.
    completed: bool = False
    # Its shape was a board's only within what a guessed camera allows (no calibration): where nothing else
    # confirms it (its layout seen clearly upright), it may be part of a board, and is shown, not scored.
    guessed: bool = False
    # The name of the profile whose remembered picture found it (:mod:`vision.locate.picture`), "" if none.
    picture_of: str = ""
    # The squares across and down of the grid of tiles it was found by (:mod:`vision.locate.lattice`): one of
    # the sizes looked for (a kingdom of 5 x 5 or 7 x 7); None where it was not found by a grid.
    cells: tuple[int, int] | None = None
    # Squares in line with that grid lie just beyond one of its sides (loose tiles, or a larger board round
    # it): scored, with that said.
    beyond: bool = False


def _table_distance(small: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Per pixel, how unlike the table its colour is (Mahalanobis distance to the border's chroma).

    Lightness is left out on purpose: shadows and lamps change it across a table far more than they change
    hue, and a board's printed detail is caught by :func:`_detail` instead.
    """
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 2.0), cv2.COLOR_BGR2LAB).astype(np.float32)[..., 1:]
    h, w = lab.shape[:2]
    b = max(2, int(BORDER_FRACTION * min(h, w)))
    ring = np.concatenate(
        [
            lab[:b].reshape(-1, 2),
            lab[-b:].reshape(-1, 2),
            lab[:, :b].reshape(-1, 2),
            lab[:, -b:].reshape(-1, 2),
        ]
    )
    mu = ring.mean(axis=0)
    # A floor on the spread keeps a perfectly flat table from making every printed speck a board.
    inv = np.linalg.inv(np.cov(ring.T) + np.eye(2) * 4.0).astype(np.float32)
    da, db = lab[..., 0] - mu[0], lab[..., 1] - mu[1]
    dist2 = inv[0, 0] * da * da + 2 * inv[0, 1] * da * db + inv[1, 1] * db * db
    return np.asarray(np.sqrt(np.maximum(dist2, 0)), dtype=np.float32)


def _detail(small: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Density of sharp edges, relative to the table's own: printed boards are dense with them."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(gray, (0, 0), 1.0), 40, 100).astype(np.float32) / 255.0
    k = max(5, int(0.02 * small.shape[1]))
    density = cv2.blur(edges, (k, k))
    h, w = density.shape
    b = max(2, int(BORDER_FRACTION * min(h, w)))
    ring = np.concatenate(
        [density[:b].ravel(), density[-b:].ravel(), density[:, :b].ravel(), density[:, -b:].ravel()]
    )
    floor = float(np.percentile(ring, 95)) + 0.03
    return np.asarray(density / floor, dtype=np.float32)


def _board_mask(small: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Pixels unlike the table in colour or dense with printed detail."""
    return ((_table_distance(small) > 5.0) | (_detail(small) > 1.6)).astype(np.uint8) * 255


def _blobs(mask: NDArray[np.uint8]) -> list[NDArray[np.int32]]:
    close = max(3, int(0.012 * mask.shape[1]) | 1)
    mask = cv2.morphologyEx(
        mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close))
    )
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = MIN_AREA_FRACTION * mask.shape[0] * mask.shape[1]
    return [c for c in contours if cv2.contourArea(cv2.convexHull(c)) >= area_min]


def _coarse_quad(contour: NDArray[np.int32]) -> Points | None:
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in np.linspace(0.01, 0.12, 23):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return as_points(approx)
    rect = cv2.boxPoints(cv2.minAreaRect(hull))
    return as_points(rect)


def refine_quad(
    image_bgr: NDArray[np.uint8],
    coarse_xy: Points,
    camera: CameraModel | None = None,
    aspects: tuple[float, ...] = (),
    reach: tuple[float, float] = BLOB_REACH,
) -> Quad | None:
    """Snap a rough outline (photo pixels) to the board's straight edges; ``None`` when a side has none.

    Two passes: a wide one that may move each side out to the board's cut edge, or in (``reach``: how far in
    and out, in board widths), checked against the ``aspects``, width over height, of the boards that may be
    on the table; then a tight one that fits each side again on the edge points right there.
    """
    gray = EdgeImage(image_bgr)
    h, w = image_bgr.shape[:2]
    matrix = matrix_or_guess(camera, (w, h))
    to_photo = photo_mapper(camera)
    coarse = as_points(coarse_xy)
    quad = clockwise(camera.undistort_px(coarse) if camera is not None else coarse)
    if not within_reach(quad, (w, h)):
        return None  # its sides' search would span the bend's nonsense (10 GB of samples, once)
    size = float(np.sqrt(cv2.contourArea(quad.astype(np.float32))))
    tolerance = aspect_tolerance(camera)
    known = is_calibrated(camera)
    pick_wide = outermost_fitting(aspects or (1.0,), matrix, tolerance if aspects else np.inf)
    # The wide pass only has to find the right edge; the tight pass, sampled twice as finely, places it.
    wide = fit_quad(quad, gray, to_photo, (reach[0] * size, reach[1] * size), pick_wide, step=0.5)
    if wide is None:
        return None
    grown = grow_to_faint_edges(clockwise(wide[0]), gray, to_photo)
    if aspects and aspect_error(grown, matrix, aspects, known) > ASPECT_TOLERANCE:
        grown = clockwise(wide[0])
    tight = snap(grown, gray, to_photo, size)
    if tight is None:
        return None
    ideal, score = tight
    # Refining moves each side by a few per cent: an outline that shrank far inside the blob it came from
    # is a printed shape on a board (or half a board), not a board.
    if cv2.contourArea(clockwise(ideal).astype(np.float32)) < 0.6 * size * size:
        return None
    corners = to_photo(ideal)
    # Only a guessed camera lets an outline this far off a board's shape through (see Quad.guessed).
    guessed = (
        not known
        and bool(aspects)
        and aspect_error(clockwise(ideal), matrix, aspects, known) > ASPECT_TOLERANCE
    )
    return Quad(corners, ideal, in_frame(corners, (w, h)), score, guessed=guessed)


# The method of a board whose corners the player placed.
PLACED = "manual"


def quad_from_corners(
    corners_xy: object, size_wh: tuple[int, int], camera: CameraModel | None = None
) -> Quad:
    """A board whose corners the user gave, TL, TR, BR, BL in photo pixels."""
    corners = as_points(corners_xy)
    if corners.shape != (4, 2):
        raise ValueError(f"give exactly 4 corners (TL, TR, BR, BL), got {len(corners)}")
    ideal = camera.undistort_px(corners) if camera is not None else corners
    if cv2.contourArea(ideal.astype(np.float32)) < 100 or not is_convex(ideal):
        raise ValueError("the 4 corners enclose no board: give them as TL, TR, BR, BL around the board")
    # Round the other way, they picture the board mirrored, which no camera photographs: every cell would be
    # read from its mirror image's place.
    if cv2.contourArea(ideal.astype(np.float32), oriented=True) < 0:
        raise ValueError(
            "the 4 corners go round anticlockwise: give them clockwise, from the board's top left "
            "(TL, TR, BR, BL)"
        )
    # A corner a player puts on the photo's very edge (a crop the board fills) is in the photo.
    inside = in_frame(corners, size_wh, margin=-1.0)
    return Quad(corners, ideal, inside, 1.0, oriented=True, method=PLACED)


def find_quads(
    image_bgr: NDArray[np.uint8], camera: CameraModel | None = None, aspects: tuple[float, ...] = ()
) -> list[Quad]:
    """Every board-like outline in the photo, largest first (``aspects``: see :func:`refine_quad`)."""
    w = image_bgr.shape[1]
    small = image_bgr
    # Halving by pyramid steps first: an area resize straight from full size costs more than all the rest.
    while small.shape[1] > 1.5 * WORK_WIDTH:
        small = cv2.pyrDown(small)
    if small.shape[1] > WORK_WIDTH:
        small = cv2.resize(
            small,
            (WORK_WIDTH, round(small.shape[0] * WORK_WIDTH / small.shape[1])),
            interpolation=cv2.INTER_AREA,
        )
    scale = small.shape[1] / w
    area_min = MIN_AREA_FRACTION * small.shape[0] * small.shape[1]
    quads: list[Quad] = []
    raw = _board_mask(small)
    # Each blob still to search, and whether it is what is left of a board the photo's edge cuts.
    pending = [(_filled(contour, small.shape[:2]), False) for contour in _blobs(raw)]
    while pending:
        blob, cut = pending.pop()
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea)
        coarse = _coarse_quad(contour)
        quad = None if coarse is None else refine_quad(image_bgr, coarse / scale, camera, aspects)
        if quad is None:
            # Boards laid close together merge into one blob that is no board's shape: pull them apart.
            pending += [(part, cut) for part in _split(blob, raw, area_min)]
            continue
        if any(overlap(quad.ideal_xy, q.ideal_xy) for q in quads):
            # Found again from what its blob left round it (a ring's outline is the blob's): nothing new, and
            # searched again it would be found again, for ever.
            continue
        # A board found in a blob much larger than itself may have a neighbour merged into that blob.
        left = blob.copy()
        outline = np.round(quad.corners_xy * scale).astype(np.int32)
        cv2.fillConvexPoly(left, outline, 0)
        left = cv2.morphologyEx(left, cv2.MORPH_OPEN, _disc(max(3, int(0.02 * small.shape[1]) | 1)))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(left)
        parts = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= area_min]
        # What is left running off the photo's edge may be the rest of this very board, its outline only
        # printed art inside it: the photo does not show where the board ends, so nothing in it is scored.
        size = np.sqrt(cv2.contourArea(outline.astype(np.float32)))
        cut = cut or any(
            _touches_edge(labels == j) and stats[j, cv2.CC_STAT_AREA] >= 0.1 * size * size for j in parts
        )
        pending += [((labels == j).astype(np.uint8) * 255, cut) for j in parts]
        quads.append(replace(quad, in_frame=False) if cut else quad)
    quads.sort(key=lambda q: -cv2.contourArea(q.corners_xy.astype(np.float32)))
    return quads


def _touches_edge(mask: NDArray[np.bool_]) -> bool:
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def _disc(size: int) -> NDArray[np.uint8]:
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)), dtype=np.uint8)


def _filled(contour: NDArray[np.int32], shape: tuple[int, ...]) -> NDArray[np.uint8]:
    mask = np.zeros(shape[:2], np.uint8)
    cv2.drawContours(mask, [contour], -1, 255, cv2.FILLED)
    return mask


def _split(blob: NDArray[np.uint8], raw: NDArray[np.uint8], area_min: float) -> list[NDArray[np.uint8]]:
    """The parts of a blob joined by narrow necks or gaps (boards a finger's width apart), each grown back to
    its full extent within the blob; none when no erosion up to a sixth of the blob's size separates it.

    The split works on the unsmoothed mask (``raw``): smoothing is what filled the gap between the boards.
    """
    extent = int(np.sqrt(cv2.countNonZero(blob)))
    unsmoothed = cv2.bitwise_and(blob, raw)
    for size in range(3, max(4, extent // 6), 4):
        eroded = cv2.erode(unsmoothed, _disc(size))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(eroded)
        parts = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= area_min / 4]
        if len(parts) >= 2:
            return [cv2.dilate((labels == j).astype(np.uint8) * 255, _disc(size)) & blob for j in parts]
        if not parts:
            return []
    return []


def segmented_quads(
    image_bgr: NDArray[np.uint8],
    segmenter: BoardSegmenter,
    camera: CameraModel | None = None,
    aspects: tuple[float, ...] = (),
) -> list[Quad]:
    """Boards as the board-mask model outlines them, each side then moved to the board's own edge.

    The mask places a side to a pixel or two of its own scale (a few per cent of a board); the segmenter's
    side model (:mod:`vision.locate.sides`), looking a few per cent either way, places it to a pixel of the
    photo's. Where it places no side (a hand over most of one) or has no board's shape, the edge search of
    :func:`refine_quad` tries, and where the edges it finds lie far from the outline, the side model looks
    again from them (:func:`_sides_again`); where no edges make a board's shape either, the mask's outline
    stands if it has one itself; an outline of no board's shape is dropped, unless it runs off the photo
    (shown, never scored).
    """
    h, w = image_bgr.shape[:2]
    matrix = matrix_or_guess(camera, (w, h))
    to_photo = photo_mapper(camera)
    quads: list[Quad] = []
    found = segmenter.outlines(image_bgr, camera)
    found, split = _unjoined(image_bgr, found, camera, aspects)
    whole = [o for o in found if not o.cut]
    calibrated = is_calibrated(camera)
    placed = iter(_place_sides(image_bgr, segmenter, whole, to_photo, matrix, calibrated, aspects))
    for outline in found:
        if not outline.cut:
            sided = next(placed)
            refined = sided or refine_quad(image_bgr, outline.corners_xy, camera, aspects, MASK_REACH)
            if refined is not None:
                gap, size = _gap(refined.ideal_xy, outline.ideal_xy)
                # Measured with a calibrated camera: without one, the lens' curvature alone bends the mask's
                # outline as far from the fitted edges (a reward tile photographed close up: 4 %).
                floor = EDGE_DOUBT_MASK_PX * w / INPUT_WIDTH
                if not sided and gap > max(EDGE_DOUBT * size, floor):
                    sided = _sides_again(image_bgr, segmenter, refined, to_photo, matrix, calibrated, aspects)
                    if sided is not None:
                        refined = sided
                        gap, size = _gap(refined.ideal_xy, outline.ideal_xy)
                doubt = ""
                limit = SIDES_DOUBT if sided else EDGE_DOUBT
                far = gap > max(limit * size, floor)
                if calibrated and far and not refined.completed:
                    doubt = (
                        "the board's edges are unclear (its outline and its edges differ by "
                        f"{gap / size:.0%} of its size); not scored: photograph it again against a plain "
                        "table, or give its corners"
                    )
                quads.append(replace(refined, method="mask", doubt=doubt))
                continue
            shape_off = (
                aspect_error(clockwise(outline.ideal_xy), matrix, aspects, calibrated) if aspects else 0.0
            )
            if shape_off > aspect_tolerance(camera):
                continue
            # Of a board's shape only through a guessed camera: a wide lens' board, or part of a board.
            guessed = shape_off > ASPECT_TOLERANCE
        else:
            after_all = _whole_after_all(image_bgr, outline, camera, aspects)
            if after_all is not None:
                quads.append(after_all)
                continue
            guessed = False
        ideal = clockwise(outline.ideal_xy)
        corners = to_photo(ideal)
        inside = not outline.cut and in_frame(corners, (w, h))
        quads.append(Quad(corners, ideal, inside, 0.0, method="mask", guessed=guessed))
    return quads + split


def _whole_after_all(
    image_bgr: NDArray[np.uint8], outline: Outline, camera: CameraModel | None, aspects: tuple[float, ...]
) -> Quad | None:
    """A board whose mask runs to the photo's edge found whole by its edges after all: the face map's glow
    reaches a photo's edge a few of its pixels from a board (its bottom edge most), and drawn boards 6-30 px
    from it were refused as cut. Taken only where its edges make a board within the outline's own reach of
    it and clear of the photo's edge; else None (a board cut off is not scored)."""
    refined = refine_quad(image_bgr, outline.corners_xy, camera, aspects, MASK_REACH)
    if refined is None or not in_frame(refined.corners_xy, image_bgr.shape[1::-1], WHOLE_CLEAR_PX):
        return None
    gap, size = _gap(refined.ideal_xy, outline.ideal_xy)
    return replace(refined, method="mask") if gap <= WHOLE_GAP * size else None


def _unjoined(
    image_bgr: NDArray[np.uint8],
    outlines: list[Outline],
    camera: CameraModel | None,
    aspects: tuple[float, ...],
) -> tuple[list[Outline], list[Quad]]:
    """The outlines less those of boards the mask joined across the gaps between them, and those boards as
    the edge search finds them inside such an outline (where they look like its boards, :func:`_boards_of`;
    else the outline stands). The edge search runs only where an outline looks joined."""
    if all(o.solid >= MERGED_SOLID for o in outlines):
        return outlines, []
    edged = find_quads(image_bgr, camera, aspects)
    kept, split = [], []
    for outline in outlines:
        held = [q for q in edged if point_inside(q.ideal_xy.mean(axis=0), outline.ideal_xy)]
        if outline.solid < MERGED_SOLID and _boards_of(outline.ideal_xy, held):
            split += held
        else:
            kept.append(outline)
    return kept, split


def _boards_of(outline: Points, held: list[Quad]) -> bool:
    """Whether quads found inside an outline are the boards it joined: two or more, apart, none most of it
    and together most of it (:data:`MERGED_PART`)."""
    if len(held) < 2:
        return False
    shares = [(quad_size(q.ideal_xy) / quad_size(outline)) ** 2 for q in held]
    pairs = ((a, b) for i, a in enumerate(held) for b in held[i + 1 :])
    apart = not any(overlap(a.ideal_xy, b.ideal_xy) for a, b in pairs)
    return apart and min(shares) >= MERGED_PART and max(shares) < MERGED_MOST and sum(shares) >= MERGED_COVER


def point_inside(point: Points, outline: Points) -> bool:
    """Whether a point lies inside (or on) an outline, in the same pixels."""
    return cv2.pointPolygonTest(outline.astype(np.float32), (float(point[0]), float(point[1])), False) >= 0


def overlap(a: Points, b: Points) -> bool:
    """Whether one outline's middle lies inside the other."""
    return point_inside(b.mean(axis=0), a) or point_inside(a.mean(axis=0), b)


def _place_sides(
    image_bgr: NDArray[np.uint8],
    segmenter: BoardSegmenter,
    outlines: list[Outline],
    to_photo: Callable[[Points], Points],
    matrix: NDArray[np.float64],
    calibrated: bool,
    aspects: tuple[float, ...],
) -> list[Quad | None]:
    """Each whole outline placed on its board's sides by the side model, when the segmenter has one; ``None``
    where it has none, places no side, or places them in no board's shape (the edge search then tries).
    With a ``calibrated`` camera (``matrix`` its own, not a guess) a board's shape is checked closely."""
    if segmenter.sides is None:
        return [None] * len(outlines)
    h, w = image_bgr.shape[:2]
    quads: list[Quad | None] = []
    placed = segmenter.sides.place(image_bgr, [o.ideal_xy for o in outlines], to_photo)
    for outline, sides in zip(outlines, placed, strict=True):
        ideal = None if sides is None else clockwise(sides)
        completed = False
        if ideal is not None and calibrated and aspects:
            ideal, completed = _squared(
                ideal, outline.ideal_xy, image_bgr, segmenter.sides, to_photo, matrix, aspects
            )
        if ideal is None or (aspects and aspect_error(ideal, matrix, aspects, calibrated) > ASPECT_TOLERANCE):
            quads.append(None)
            continue
        corners = to_photo(ideal)
        quads.append(Quad(corners, ideal, in_frame(corners, (w, h)), 1.0, completed=completed))
    return quads


def _sides_again(
    image_bgr: NDArray[np.uint8],
    segmenter: BoardSegmenter,
    found: Quad,
    to_photo: Callable[[Points], Points],
    matrix: NDArray[np.float64],
    calibrated: bool,
    aspects: tuple[float, ...],
) -> Quad | None:
    """The board the side model places from where the edge search ``found`` it, when the mask's outline lay
    too far off for the side model to look (a pale board on a pale table, whose corner the mask leaves out:
    Tang Garden photos 378 and 425 of the benchmark, outlines 9 and 11 % off, edges found 1-2 % off, the
    sides placed from there 0.6 and 0.1 %); ``None`` where it places none there either."""
    again = Outline(found.corners_xy, found.ideal_xy, cut=False)
    (sided,) = _place_sides(image_bgr, segmenter, [again], to_photo, matrix, calibrated, aspects)
    return sided


def _squared(
    quad: Points,
    outline: Points,
    image_bgr: NDArray[np.uint8],
    sides: SideFinder,
    to_photo: Callable[[Points], Points],
    matrix: NDArray[np.float64],
    aspects: tuple[float, ...],
) -> tuple[Points | None, bool]:
    """``quad`` (clockwise, ideal pixels) when a calibrated camera sees it as a board's rectangle; else the
    rectangle three of its sides make (one side took the printed frame or a shadow for the edge along part
    of it) that the side model finds best supported all round, or along the three sides kept where the
    mask's ``outline`` agrees (:data:`SQUARE_SUPPORT`); else one with a side read again (:func:`_rival`);
    ``None`` if no such rectangle is. And whether it is such a rectangle."""
    if _rectangular(quad, matrix, aspects):
        return quad, False
    options = [
        (side, done)
        for side in range(4)
        for ratio in {r for a in aspects for r in (a, 1 / a)}
        if (done := complete(quad, side, matrix, ratio)) is not None
    ]
    support = sides.support(image_bgr, [done for _, done in options], to_photo)
    found = support >= SQUARE_SUPPORT * COLUMNS

    def agrees(done: Points) -> bool:
        gap, size = _gap(done, outline)
        return gap <= EDGE_DOUBT * size

    standing = [i for i in range(len(options)) if found[i].all()] or [
        i for i, (side, done) in enumerate(options) if np.delete(found[i], side).all() and agrees(done)
    ]
    if standing:
        best = max(standing, key=lambda i: float(support[i].sum()))
        return options[best][1], True
    rivals = sides.rivals(image_bgr, outline, quad, to_photo)
    rival = _rival(rivals, image_bgr, sides, to_photo, lambda q: _rectangular(q, matrix, aspects))
    return rival, rival is not None


def _rival(
    rivals: list[Points],
    image_bgr: NDArray[np.uint8],
    sides: SideFinder,
    to_photo: Callable[[Points], Points],
    shaped_right: Callable[[Points], bool],
) -> Points | None:
    """Of the ``rivals`` (the placed board with one side read again a strip out or in from the mask's
    outline: :meth:`vision.locate.sides.SideFinder.rivals`), each placed again from there, the one of the
    board's shape that the side model finds along every side; ``None`` if none is. Three sides cannot correct
    a side where the two next to it lie almost parallel in the photo: where they meet, which sets the board's
    depth, moves far for a pixel's error at their ends (Alice's Garden photo 162 of the benchmark: its margin
    half in a shadow whose edge the first look took for a side; the rectangle from the other three lay 10 %
    off, the side read again 0.15 %)."""
    if not rivals:
        return None
    placed = [clockwise(p) for p in sides.place(image_bgr, rivals, to_photo) if p is not None]
    shaped = [p for p in placed if shaped_right(p)]
    if not shaped:
        return None
    support = sides.support(image_bgr, shaped, to_photo)
    whole = [i for i in range(len(shaped)) if (support[i] >= SQUARE_SUPPORT * COLUMNS).all()]
    if not whole:
        return None
    return shaped[max(whole, key=lambda i: float(support[i].sum()))]


def _rectangular(quad: Points, matrix: NDArray[np.float64], aspects: tuple[float, ...]) -> bool:
    """Whether a calibrated camera (``matrix``) sees ``quad`` as a rectangle of one of the boards' shapes."""
    return skew(quad, matrix) <= SQUARE_TOLERANCE and aspect_error(quad, matrix, aspects) <= SQUARE_TOLERANCE


def _gap(quad: Points, outline: Points) -> tuple[float, float]:
    """The largest distance between a corner of ``quad`` and the nearest corner of ``outline`` (both going
    round the same way), and the outline's size (the square root of its area)."""
    size = float(np.sqrt(max(cv2.contourArea(outline.astype(np.float32)), 1.0)))
    a, b = clockwise(quad), clockwise(outline)
    return min(float(np.max(np.linalg.norm(np.roll(a, k, axis=0) - b, axis=1))) for k in range(4)), size


def locate(
    image_bgr: NDArray[np.uint8],
    camera: CameraModel | None = None,
    aspects: tuple[float, ...] = (),
    stickers: bool = False,
    segmenter: BoardSegmenter | None = None,
) -> list[Quad]:
    """Boards by the board-mask model when one is given, else (or when it finds none) by their edges; with
    ``stickers`` (the table's boards wear them), by their corner stickers first (exact and oriented).
    Looking for stickers costs a third of the edge search, so only on request."""
    from vision.locate.stickers import find_sticker_boards

    h, w = image_bgr.shape[:2]
    stickered = find_sticker_boards(image_bgr, camera) if stickers else []
    if stickered:
        return [
            Quad(b.corners_xy, b.ideal_xy, in_frame(b.corners_xy, (w, h)), 1.0, True, "stickers")
            for b in stickered
        ]
    found = segmented_quads(image_bgr, segmenter, camera, aspects) if segmenter is not None else []
    return found or find_quads(image_bgr, camera, aspects)
