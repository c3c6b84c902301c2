"""Locate boards by four printed ArUco corner stickers, when the user has put them on.

A sticker is a white square of ``STICKER_MM`` with an ArUco marker of ``MARKER_MM`` in its middle. Board ``b``
(0-11) wears markers ``4b`` to ``4b + 3`` on its TL, TR, BR and BL corners, each sticker's outer corner on the
board's corner, so the stickers give both the outline and which way is up.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import Points, apply_homography, as_points, homography_from_points

DICTIONARY = cv2.aruco.DICT_4X4_50
STICKER_MM = 40.0
MARKER_MM = 30.0
MAX_BOARDS = 12
_MARGIN = (STICKER_MM - MARKER_MM) / 2
# The sticker's outer corner in the marker's own millimetres, for a sticker worn on corner k (TL, TR, BR, BL).
_OUTER = np.array(
    [
        (-_MARGIN, -_MARGIN),
        (MARKER_MM + _MARGIN, -_MARGIN),
        (MARKER_MM + _MARGIN, MARKER_MM + _MARGIN),
        (-_MARGIN, MARKER_MM + _MARGIN),
    ]
)
_MARKER_SQUARE = np.array([(0.0, 0.0), (MARKER_MM, 0.0), (MARKER_MM, MARKER_MM), (0.0, MARKER_MM)])


@dataclass(frozen=True)
class StickerBoard:
    """A board found by its stickers: ``index`` b, corners TL, TR, BR, BL in photo and ideal pixels."""

    index: int
    corners_xy: Points
    ideal_xy: Points


def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(marker_id: int, side_px: int) -> NDArray[np.uint8]:
    """The printable sticker: the marker centred on white, ``side_px`` square (grey, uint8)."""
    inner = round(side_px * MARKER_MM / STICKER_MM)
    marker = cv2.aruco.generateImageMarker(dictionary(), marker_id, inner)
    sticker = np.full((side_px, side_px), 255, np.uint8)
    off = (side_px - inner) // 2
    sticker[off : off + inner, off : off + inner] = marker
    return sticker


def find_sticker_boards(
    image_bgr: NDArray[np.uint8], camera: CameraModel | None = None
) -> list[StickerBoard]:
    """Every board whose four stickers are all visible; a board with some hidden is not guessed."""
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary(), params)
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None or len(ids) == 0:
        return []
    found: dict[int, Points] = {}
    for marker_corners, marker_id in zip(corners, np.asarray(ids).reshape(-1), strict=True):
        pts = as_points(marker_corners)
        found[int(marker_id)] = camera.undistort_px(pts) if camera is not None else pts
    boards = []
    for b in range(MAX_BOARDS):
        ids_b = [4 * b + k for k in range(4)]
        if not all(i in found for i in ids_b):
            continue
        ideal = np.vstack(
            [
                apply_homography(homography_from_points(_MARKER_SQUARE, found[i]), _OUTER[k : k + 1])
                for k, i in enumerate(ids_b)
            ]
        )
        photo = camera.distort_px(ideal) if camera is not None else ideal
        boards.append(StickerBoard(b, photo, ideal))
    return boards
