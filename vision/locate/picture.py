"""Find a board again by its own picture: the board as its profile's photo showed it, matched to a new photo.

A profile made from a photo (``profile create``) keeps its rectified board. That picture's printed art (the
margin, the printed squares, the titles) is the same on every later photo of that copy, whatever pieces lie
on it, so its local features (SIFT) are found again there, and a homography fitted to the matches by RANSAC
maps the board's millimetres into the photo: where the board lies and which way up, for any art, size or
proportion, with no model that learnt it. The pieces' features do not match (or fit no one homography) and
are left out by RANSAC.

The corners are then chosen among the matched outline, the board's edges right by it and the outlines the
other finders found there (turned the way the match says): the one whose view is most like the picture. The
same tile faces may lie elsewhere on another game's board and fit a homography of their own, an edge finder
may settle on a printed frame, and without a calibration lens bend puts matched corners a few per cent off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel, plane_view
from vision.geometry import Points, in_frame
from vision.locate.board import Quad, overlap
from vision.locate.edges import EdgeImage, clockwise, photo_mapper, snap

PICTURE_WIDTH = 600  # pixels: the board's picture is described at this width
PHOTO_SIDE = 1400  # pixels: a photo is described with its longer side at most this
THUMB_WIDTH = 96  # pixels: the picture and an outline's view are compared at this width
PICTURE_FEATURES = 3000
PHOTO_FEATURES = 6000
RATIO = 0.8  # a match is kept when its nearest neighbour is this much nearer than the next (Lowe's test)
# Fewer matches than this fitting one homography is no board: wrong ones fit one by chance in threes and
# fours.
MIN_INLIERS = 15
MAX_ITERATIONS = 5000
RANSAC_PX = 0.006  # of the photo's longer side: how far a match may lie from the first homography and fit it
RANSAC_MM = 1.5  # how far a match in the board rectified by the first homography may lie from the second
MARGIN = 0.05  # board widths: the photo is rectified this far round the board for the second look
# The fitting matches must spread over this share of the board at least: a few on one piece or one corner
# fit many homographies.
MIN_SPREAD = 0.15
# A board's corners, seen as a player photographs it, keep angles of 64-122 degrees (5952 corners of drawn
# photos tilted up to 35 degrees): a homography that draws a sharper one was fitted to matches of the same
# faces elsewhere (a garden's tiles on another garden of the table), a sliver across two boards.
MIN_CORNER_DEG = 40.0
# Corners given and the picture's match agree on where the board lies when they lie, on average, within this
# share of the board's size of each other (lens bend without a calibration puts a match a few per cent off).
TURN_AGREES = 0.15
CROP_MARGIN = 0.25  # board sizes: how far round the corners given the picture is looked for


@dataclass(frozen=True)
class BoardPicture:
    """A board's picture described: its size, its features' places on it (mm) and their SIFT descriptors."""

    size_mm: tuple[float, float]
    points_mm: NDArray[np.float32]
    descriptors: NDArray[np.float32]
    # The picture small, grey and standardised (zero mean, unit spread): what an outline's view is compared
    # with (:func:`likeness`).
    thumb: NDArray[np.float32]

    @classmethod
    def learn(cls, picture_bgr: NDArray[np.uint8], size_mm: tuple[float, float]) -> BoardPicture:
        """From the board's picture, rectified: the board filling it, ``size_mm`` wide and high."""
        h, w = picture_bgr.shape[:2]
        height = max(1, round(h * PICTURE_WIDTH / w))
        small = cv2.resize(picture_bgr, (PICTURE_WIDTH, height), interpolation=cv2.INTER_AREA)
        points, descriptors = _features(small, PICTURE_FEATURES)
        if len(points) < MIN_INLIERS:
            raise ValueError("the board's picture shows too little detail to find it again by")
        size = (float(size_mm[0]), float(size_mm[1]))
        thumb = _standard(cv2.resize(picture_bgr, _thumb_wh(size), interpolation=cv2.INTER_AREA))
        return cls(size, points * np.float32(size[0] / PICTURE_WIDTH), descriptors, thumb)


def _thumb_wh(size_mm: tuple[float, float]) -> tuple[int, int]:
    return THUMB_WIDTH, max(1, round(THUMB_WIDTH * size_mm[1] / size_mm[0]))


def _standard(image_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Grey, smoothed a little (a view is a pixel or two off), zero mean and unit spread."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    return np.asarray((grey - grey.mean()) / (grey.std() + 1e-6), np.float32)


def likeness(
    image_bgr: NDArray[np.uint8], outline: Points, picture: BoardPicture, camera: CameraModel | None
) -> float:
    """How like the picture the photo is inside ``outline`` (ideal pixels, TL first), -1 to 1: the two
    small, grey and standardised, correlated. The pieces differ from game to game; the printing does not."""
    board_w, board_h = picture.size_mm
    corners_mm = np.array([[0, 0], [board_w, 0], [board_w, board_h], [0, board_h]], np.float32)
    to_ideal = cv2.getPerspectiveTransform(corners_mm, outline.astype(np.float32))
    width, height = _thumb_wh(picture.size_mm)
    view = plane_view(image_bgr, to_ideal, camera, (width, height), width / board_w, grid_step=4)
    return float(np.mean(_standard(view) * picture.thumb))


def _features(image_bgr: NDArray[np.uint8], most: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """SIFT features: places (pixels, N x 2) and descriptors (N x 128)."""
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    keypoints, descriptors = cv2.SIFT.create(nfeatures=most).detectAndCompute(gray, None)
    if descriptors is None:
        return np.zeros((0, 2), np.float32), np.zeros((0, 128), np.float32)
    return np.array([k.pt for k in keypoints], np.float32).reshape(-1, 2), descriptors.astype(np.float32)


def _matched(picture: BoardPicture, descriptors: NDArray[np.float32]) -> NDArray[np.intp]:
    """Pairs (picture feature, photo feature) that pass the ratio test."""
    if len(descriptors) < 2:
        return np.zeros((0, 2), np.intp)
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(picture.descriptors, descriptors, k=2)
    kept = [
        (m[0].queryIdx, m[0].trainIdx) for m in pairs if len(m) == 2 and m[0].distance < RATIO * m[1].distance
    ]
    return np.array(kept, np.intp).reshape(-1, 2)


def _fit(
    picture: BoardPicture, points: NDArray[np.float32], descriptors: NDArray[np.float32], threshold: float
) -> tuple[NDArray[np.float64], NDArray[np.float32]] | None:
    """The homography from the board's mm to ``points``' frame that most matches fit, and the board places
    (mm) of those that do; None with fewer than :data:`MIN_INLIERS`."""
    pairs = _matched(picture, descriptors)
    if len(pairs) < MIN_INLIERS:
        return None
    src = picture.points_mm[pairs[:, 0]]
    # MAGSAC++ rather than plain RANSAC: at steep views, few matches are right, and plain RANSAC's fit with
    # the most inliers at one threshold was a wrong one in 2 of 100 rendered photos where MAGSAC's was right.
    homography, inliers = cv2.findHomography(
        src, points[pairs[:, 1]], cv2.USAC_MAGSAC, threshold, maxIters=MAX_ITERATIONS
    )
    if homography is None or int(inliers.sum()) < MIN_INLIERS:
        return None
    return np.asarray(homography, np.float64), src[inliers.ravel().astype(bool)]


def find_picture(
    image_bgr: NDArray[np.uint8],
    picture: BoardPicture,
    camera: CameraModel | None = None,
    located: Sequence[Quad] = (),
) -> Quad | None:
    """The board the picture shows, oriented (TL first, as the picture's top-left); None when not found.

    Two looks: the photo's features matched to the picture's give a first homography; the photo rectified
    by it shows the board much as the picture does (seen from above, at its scale), where far more features
    match, and precisely. ``located``: outlines the other finders found in the photo; those over the matched
    one are candidates for its corners too (see below)."""
    h, w = image_bgr.shape[:2]
    scale = min(1.0, PHOTO_SIDE / max(h, w))
    small = cv2.resize(image_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    points, descriptors = _features(small, PHOTO_FEATURES)
    ideal = points.astype(np.float64) / scale
    if camera is not None:
        ideal = camera.undistort_px(ideal)
    first = _fit(picture, ideal.astype(np.float32), descriptors, RANSAC_PX * max(w, h))
    if first is None:
        return None
    board_w, board_h = picture.size_mm
    if _outline(first[0], picture.size_mm) is None:
        return None
    px_per_mm = PICTURE_WIDTH / board_w
    margin = round(MARGIN * PICTURE_WIDTH)
    view_wh = (PICTURE_WIDTH + 2 * margin, round(board_h * px_per_mm) + 2 * margin)
    seen = plane_view(image_bgr, first[0], camera, view_wh, px_per_mm, margin)
    points, descriptors = _features(seen, PICTURE_FEATURES)
    second = _fit(picture, (points - margin) / np.float32(px_per_mm), descriptors, RANSAC_MM)
    if second is None:
        return None
    homography, fitting = second
    if cv2.contourArea(cv2.convexHull(fitting)) < MIN_SPREAD * board_w * board_h:
        return None
    matched = _outline(first[0] @ homography, picture.size_mm)
    if matched is None:
        return None
    size = float(np.sqrt(cv2.contourArea(matched.astype(np.float32))))
    # The matched outline, the edges right by it, and each outline another finder found here (turned the
    # way the match says): the one most like the picture. Either may be off where the other is right: the
    # same tile faces may lie elsewhere on another game's board and fit a homography of their own (40
    # rendered Zen Gardens, whose printing is plain: 9 of 27 matched so, 2-60 % off), and an edge finder may
    # settle on a printed frame or a piece's edge.
    candidates = [matched]
    snapped = snap(clockwise(matched), EdgeImage(image_bgr), photo_mapper(camera), size)
    if snapped is not None:
        candidates.append(_turned_to(snapped[0], matched))
    for quad in located:
        if overlap(quad.ideal_xy, matched):
            candidates.append(_turned_to(quad.ideal_xy, matched))
    outline = max(candidates, key=lambda c: likeness(image_bgr, c, picture, camera))
    corners = camera.distort_px(outline) if camera is not None else outline
    return Quad(corners, outline, in_frame(corners, (w, h)), 1.0, oriented=True, method="picture")


def picture_turn(image_bgr: NDArray[np.uint8], picture: BoardPicture, corners_xy: Points) -> int | None:
    """Which of ``corners_xy`` (photo pixels, clockwise, as a player placed them) is the board's top-left as
    its picture shows it: 0 for the first, 1 for the next, ...; None when the picture is not found there.
    Corners typed from the photo's top left, not the board's, would teach every cell as another's.

    Looked for round the corners alone (at the photo's resolution there, and not on another board of the
    same copy on the table)."""
    size = float(np.sqrt(cv2.contourArea(corners_xy.astype(np.float32))))
    h, w = image_bgr.shape[:2]
    x0, y0 = np.maximum(np.floor(corners_xy.min(axis=0) - CROP_MARGIN * size), 0).astype(int)
    x1, y1 = np.ceil(corners_xy.max(axis=0) + CROP_MARGIN * size).astype(int)
    found = find_picture(image_bgr[y0 : min(y1, h), x0 : min(x1, w)], picture)
    if found is None:
        return None
    matched = found.corners_xy + np.array([x0, y0], np.float64)
    off = [float(np.linalg.norm(np.roll(corners_xy, -k, axis=0) - matched, axis=1).mean()) for k in range(4)]
    best = int(np.argmin(off))
    # Far from every way round of the corners given: the picture matched something else there.
    return best if off[best] < TURN_AGREES * size else None


def _outline(homography: NDArray[np.float64], size_mm: tuple[float, float]) -> Points | None:
    """The board's corners (TL, TR, BR, BL) where ``homography`` puts them; None unless they picture a board
    in front of the camera (all on one side of the horizon, a convex outline some pixels big, no corner
    sharper than :data:`MIN_CORNER_DEG`)."""
    w, h = size_mm
    board = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64)
    mapped = board @ homography.T
    if not (np.all(mapped[:, 2] > 0) or np.all(mapped[:, 2] < 0)):
        return None
    corners = mapped[:, :2] / mapped[:, 2:]
    quad = corners.astype(np.float32)
    if not cv2.isContourConvex(quad) or cv2.contourArea(quad) < 100:
        return None
    before, after = np.roll(corners, 1, axis=0) - corners, np.roll(corners, -1, axis=0) - corners
    cosines = (before * after).sum(axis=1) / (np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1))
    if np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0))).min() < MIN_CORNER_DEG:
        return None
    return corners


def _turned_to(outline: Points, matched: Points) -> Points:
    """``outline``'s corners in ``matched``'s order: of its four ways round, the one nearest."""
    edges = clockwise(outline)
    turns = [np.roll(edges, -k, axis=0) for k in range(4)]
    return min(turns, key=lambda q: float(np.sum(np.linalg.norm(q - matched, axis=1))))
