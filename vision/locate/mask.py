"""Where the boards are, learnt: a small fully convolutional model marks every pixel of a board's top.

The edge finder (:mod:`vision.locate.board`) only sees colour and straight lines, and loses a board whose cut
edge is faint (a beige board on a beige table, glare on a corner, a shadow across it) to a printed frame line
inside it. This model has seen thousands of synthetic boards of every game on every kind of table, and marks
the whole top face, art and all. It answers two maps for a photo brought down to :data:`INPUT_WIDTH` pixels:

- ``board``: the probability that a pixel lies on a board's top face;
- ``core``: the same face shrunk by a tenth of the board's size, so boards laid edge to edge stay apart.

Each core is one board; its pixels of ``board`` (those nearer to it than to any other core) are its outline,
and straight lines fitted to that outline's four sides give its corners, which the side model
(:mod:`vision.locate.sides`) then places on the board's own sides at full resolution. The model knows nothing
of any game's rules or cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import Points, as_points, in_frame, within_reach
from vision.locate.sides import SideFinder
from vision.model_file import open_model

INPUT_WIDTH = 256  # pixels: the photo is brought down to this width before the model sees it
STRIDE = 16  # the model's input sides must be multiples of this (four halvings)
CORE_INSET = 0.1  # the core's inset from each side, as a share of the board's shorter side
MIN_CORE_PX = 12  # a core smaller than this many input pixels is a speck, not a board
UPSAMPLE = 4  # outlines are traced on the board map brought up this many times: finer than its pixels
# A face touching the photo's edge is cut where its outline comes within this many input pixels of it.
CUT_REACH = 2.0


def input_size(size_wh: tuple[int, int]) -> tuple[int, int, float]:
    """(width, height) of the model's input for a photo of ``size_wh``, and the photo-to-input scale.
    The photo is scaled to :data:`INPUT_WIDTH` wide and its height padded up to a multiple of
    :data:`STRIDE` (the padding is black)."""
    w, h = size_wh
    scale = INPUT_WIDTH / w
    height = max(STRIDE, -(-round(h * scale) // STRIDE) * STRIDE)
    return INPUT_WIDTH, height, scale


def segment_input(image_bgr: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    """The photo as the model sees it (training uses this too): scaled down and padded, and the scale."""
    h, w = image_bgr.shape[:2]
    width, height, scale = input_size((w, h))
    small = image_bgr
    # Halving by pyramid steps first: an area resize straight from full size costs more than all the rest.
    while small.shape[1] >= 4 * width:
        small = cv2.pyrDown(small)
    small = cv2.resize(small, (width, min(height, round(h * scale))), interpolation=cv2.INTER_AREA)
    out = np.zeros((height, width, 3), np.uint8)
    out[: small.shape[0]] = small
    return out, scale


@dataclass(frozen=True)
class BoardMasks:
    """The model's two maps (input pixels, values 0-1) and the photo-to-input scale."""

    board: NDArray[np.float32]
    core: NDArray[np.float32]
    scale: float
    size_wh: tuple[int, int]


@dataclass(frozen=True)
class Outline:
    """One board as the masks draw it: its four corners (photo pixels, and ideal pinhole pixels when the
    camera is calibrated; in order round the board from an arbitrary one) and whether its face runs off the
    photo's edge; ``solid``, the share of the outline's convex hull the board's face fills: boards laid
    close together, which the mask joins across their gap, fill less of theirs (200 drawn photos of single
    boards: 0.92 at least; gardens of one table joined: 0.77-0.92)."""

    corners_xy: Points
    ideal_xy: Points
    cut: bool
    solid: float = 1.0


class BoardSegmenter:
    """The ONNX board-mask model (``models/boards.onnx``)."""

    def __init__(self, path: Path, sides: SideFinder | None = None) -> None:
        # The side model that places each outline on the board's own sides (else the edge search does).
        self.sides = sides
        self.session, info = open_model(path)
        if info.get("kind") != "board-mask":
            raise ValueError(f"{path}: not a board-mask model (kind {info.get('kind')!r})")
        self._input = self.session.get_inputs()[0].name
        self.masks(np.zeros((144, 256, 3), np.uint8))

    def masks(self, image_bgr: NDArray[np.uint8]) -> BoardMasks:
        small, scale = segment_input(image_bgr)
        x = np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32) / np.float32(255.0)
        (logits,) = self.session.run(None, {self._input: x})
        prob = 1 / (1 + np.exp(-np.asarray(logits[0], np.float32)))
        h, w = image_bgr.shape[:2]
        return BoardMasks(prob[0], prob[1], scale, (w, h))

    def outlines(self, image_bgr: NDArray[np.uint8], camera: CameraModel | None = None) -> list[Outline]:
        return outlines(self.masks(image_bgr), camera)


def outlines(masks: BoardMasks, camera: CameraModel | None = None) -> list[Outline]:
    """Every board the masks show, as four corners. With the camera's calibration, sides are fitted as
    straight lines in ideal pinhole pixels: a lens bends a board's straight sides in the photo, and straight
    lines fitted to bent sides would meet off the corners."""
    h = masks.size_wh[1]
    # The padding below the photo is never a board.
    rows = min(masks.board.shape[0], round(h * masks.scale))
    board = masks.board[:rows] > 0.5
    core = (masks.core[:rows] > 0.5).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core)
    cores = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= MIN_CORE_PX]
    if not cores:
        return []
    # Each board pixel belongs to the nearest core: boards laid edge to edge split along the middle.
    _, nearest = cv2.distanceTransformWithLabels(
        (core == 0).astype(np.uint8), cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP
    )
    # distanceTransformWithLabels numbers the zero pixels' components itself: map them to ours.
    to_core = {int(nearest[labels == j][0]): j for j in cores}
    size = (board.shape[1] * UPSAMPLE, rows * UPSAMPLE)
    fine = cv2.resize(masks.board[:rows], size, interpolation=cv2.INTER_LINEAR) > 0.5
    fine_nearest = cv2.resize(nearest, size, interpolation=cv2.INTER_NEAREST)
    fine_px = 1 / (UPSAMPLE * masks.scale)  # photo pixels a fine pixel spans
    found = []
    for label, j in to_core.items():
        contours, _ = cv2.findContours(
            (fine & (fine_nearest == label)).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE
        )
        if not contours:
            continue
        face_contour = max(contours, key=cv2.contourArea)
        solid = cv2.contourArea(face_contour) / max(1.0, cv2.contourArea(cv2.convexHull(face_contour)))
        # Pixel centres of the fine map to photo pixels, then to ideal ones.
        photo = (as_points(face_contour) + 0.5) * fine_px - 0.5
        ideal = _fit_outline(camera.undistort_px(photo) if camera is not None else photo, 2 * fine_px)
        if ideal is None:
            continue
        face = board & (nearest == label)
        corners = camera.distort_px(ideal) if camera is not None else ideal
        # The face's glow may touch the photo's edge where the board does not: cut only where its fitted
        # outline reaches the edge too (a whole board 19 px from the edge of a 790 px photo was cut).
        touches = bool(face[0].any() or face[-1].any() or face[:, 0].any() or face[:, -1].any())
        cut = touches and not in_frame(corners, masks.size_wh, CUT_REACH / masks.scale)
        if not within_reach(corners, masks.size_wh) or not within_reach(ideal, masks.size_wh):
            continue
        found.append((float(stats[j, cv2.CC_STAT_AREA]), Outline(corners, ideal, cut, solid)))
    found.sort(key=lambda f: -f[0])
    return [o for _, o in found]


def _fit_outline(points: Points, floor: float) -> Points | None:
    """Four corners of a board's outline (its points in order): a quadrilateral from its hull, then each
    side a straight line fitted to the outline's points along it, those within ``floor`` pixels or 6 % of
    the side's length (a hand over one side bends the outline, not the fit)."""
    pts32 = points.astype(np.float32).reshape(-1, 1, 2)
    hull = cv2.convexHull(pts32)
    perimeter = cv2.arcLength(hull, True)
    rough = None
    for eps in np.linspace(0.02, 0.12, 11):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            rough = as_points(approx)
            break
    if rough is None:
        rough = as_points(cv2.boxPoints(cv2.minAreaRect(hull)))
    lines = []
    for i in range(4):
        a, b = rough[i], rough[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < floor:
            return None
        d = (b - a) / length
        rel = points - a
        along = rel @ d
        across = rel @ np.array([-d[1], d[0]])
        near = (
            (np.abs(across) < max(floor, 0.06 * length)) & (along > 0.12 * length) & (along < 0.88 * length)
        )
        if near.sum() < 4:
            lines.append(np.array([d[0], d[1], a[0], a[1]]))
            continue
        fitted = cv2.fitLine(points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        lines.append(np.asarray(fitted, np.float64).ravel())
    corners = []
    for i in range(4):
        (d1, p1), (d2, p2) = (lines[i - 1][:2], lines[i - 1][2:]), (lines[i][:2], lines[i][2:])
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        s = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + s[0] * d1)
    return as_points(np.array(corners))
