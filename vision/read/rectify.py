"""Rectify: a located board re-drawn top-down at a fixed scale, lens distortion removed on the way."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel, camera_centre, matrix_or_guess, plane_view
from vision.geometry import BoardFrame, homography_from_points
from vision.profile import BoardProfile

# Fine enough for every printed detail the classifiers look at, coarse enough to stay cheap on a Pi.
RECTIFIED_PX_PER_MM = 2.0


@dataclass(frozen=True)
class Rectified:
    """A board seen from straight above, ``frame.size_wh`` big.

    ``board_to_ideal`` maps board mm to the photo's ideal (undistorted) pixels.
    """

    image_bgr: NDArray[np.uint8]
    frame: BoardFrame
    board_to_ideal: NDArray[np.float64]
    # Where on the board's plane (mm, extended beyond the board) the camera stands right above: a standing
    # piece's top is drawn displaced away from it. None when not known.
    foot_mm: NDArray[np.float64] | None = None
    # The same picture with ``margin_px`` more all round, as the photo shows it there (a piece on an edge
    # space leaning off the board), when rectified with a margin; ``image_bgr`` is its middle.
    surround_bgr: NDArray[np.uint8] | None = None
    margin_px: int = 0
    # How high above the board's plane the camera stands (mm), when known.
    camera_height_mm: float | None = None

    def slant_deg(self) -> float | None:
        """How far off straight above the camera saw the board's centre (degrees), when its place is known."""
        if self.foot_mm is None or not self.camera_height_mm:
            return None
        return slant_deg(self.frame.profile, self.foot_mm, self.camera_height_mm)

    def padded(self, pad: int) -> NDArray[np.uint8]:
        """The board with ``pad`` pixels round it: what the photo shows there as far as it was rectified,
        the outermost pixels repeated beyond."""
        source, margin = self.image_bgr, 0
        if self.surround_bgr is not None:
            source, margin = self.surround_bgr, self.margin_px
        if margin >= pad:
            cut = margin - pad
            return source[cut : source.shape[0] - cut, cut : source.shape[1] - cut]
        extra = pad - margin
        return np.asarray(
            cv2.copyMakeBorder(source, extra, extra, extra, extra, cv2.BORDER_REPLICATE), np.uint8
        )


def board_homography(profile: BoardProfile, ideal_corners_xy: object) -> NDArray[np.float64]:
    """Board mm -> ideal pixels, from the board's TL, TR, BR, BL corners in ideal pixels."""
    return homography_from_points(profile.corners_mm, ideal_corners_xy)


def rectify(
    image_bgr: NDArray[np.uint8],
    profile: BoardProfile,
    board_to_ideal: NDArray[np.float64],
    camera: CameraModel | None = None,
    px_per_mm: float = RECTIFIED_PX_PER_MM,
    grid_step: int = 8,
    margin_mm: float = 0.0,
) -> Rectified:
    """Sample the photo at every rectified pixel: pixel -> board mm -> ideal pixel -> lens -> photo pixel.
    With ``margin_mm``, as far round the board too (:attr:`Rectified.surround_bgr`).

    The lens is applied on a coarse grid and interpolated (it is smooth); the homography is exact per pixel.
    """
    frame = BoardFrame(profile, px_per_mm)
    w, h = frame.size_wh
    # Whole steps of the lens grid, so the board's own pixels are sampled exactly as with no margin.
    m = int(np.ceil(margin_mm * px_per_mm / grid_step)) * grid_step
    out = plane_view(image_bgr, board_to_ideal, camera, (w + 2 * m, h + 2 * m), px_per_mm, m, grid_step)
    centre = camera_centre(board_to_ideal, matrix_or_guess(camera, (image_bgr.shape[1], image_bgr.shape[0])))
    foot, height = centre[:2], float(centre[2])
    if not m:
        return Rectified(out, frame, board_to_ideal, foot, camera_height_mm=height)
    board = np.ascontiguousarray(out[m : m + h, m : m + w])
    return Rectified(board, frame, board_to_ideal, foot, out, m, height)


def slant_deg(profile: BoardProfile, foot_mm: NDArray[np.float64], height_mm: float) -> float:
    """How far off straight above (degrees) a camera ``height_mm`` above ``foot_mm`` (board mm; see
    :func:`vision.camera_model.camera_centre`) sees the centre of a board of ``profile``."""
    width, depth = profile.size_mm
    aside = float(np.hypot(foot_mm[0] - width / 2, foot_mm[1] - depth / 2))
    return float(np.degrees(np.arctan2(aside, height_mm)))
