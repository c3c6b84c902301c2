"""A pinhole camera with lens distortion: the one place image points are distorted or undistorted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import Points, apply_homography, as_points


@dataclass(frozen=True)
class CameraModel:
    """Intrinsics ``matrix`` (3x3), OpenCV distortion coefficients ``dist`` and the image ``size_wh``.

    ``estimated``: no calibration measured it; its matrix is a guess and its bend was read from a board's
    sides (:mod:`vision.locate.lens`), so shapes are checked through it as loosely as with no camera.
    """

    matrix: NDArray[np.float64]
    dist: NDArray[np.float64]
    size_wh: tuple[int, int]
    estimated: bool = False

    def project(self, pts_cam: object) -> Points:
        """Distorted pixel positions of 3D points given in the camera frame (z forward, in front)."""
        p = np.asarray(pts_cam, dtype=np.float64).reshape(-1, 3)
        if np.any(p[:, 2] <= 0):
            raise ValueError("a point lies behind the camera")
        out, _ = cv2.projectPoints(p, np.zeros(3), np.zeros(3), self.matrix, self.dist)
        return as_points(out)

    def undistort_px(self, pts: object) -> Points:
        """Where distorted pixels would lie in an ideal pinhole image with the same matrix."""
        p = as_points(pts).reshape(-1, 1, 2)
        # Iterations matter for wide lenses: the default 5 leaves pixel-sized errors at the image corners.
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4.x; 5.x folds the criteria into undistortPoints
            out = cv2.undistortPointsIter(p, self.matrix, self.dist, None, self.matrix, criteria)
        else:
            out = cv2.undistortPoints(p, self.matrix, self.dist, None, None, self.matrix, criteria)
        return as_points(out)

    def distort_px(self, pts: object) -> Points:
        """Inverse of :meth:`undistort_px`: ideal pinhole pixels to where the lens puts them."""
        p = as_points(pts)
        k = self.matrix
        norm = np.column_stack(
            [(p[:, 0] - k[0, 2]) / k[0, 0], (p[:, 1] - k[1, 2]) / k[1, 1], np.ones(len(p))]
        )
        return self.project(norm)

    def undistort_maps(self, step: int = 16) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """``cv2.remap`` maps giving, for each distorted pixel, its ideal-image source position.

        Solved on a coarse grid and interpolated: distortion is smooth, and a full-resolution solve of a
        3-megapixel frame costs far more than the photo it serves.
        """
        w, h = self.size_wh
        xs = np.arange(0, w + step, step, dtype=np.float64)
        ys = np.arange(0, h + step, step, dtype=np.float64)
        gx, gy = np.meshgrid(xs, ys)
        ideal = self.undistort_px(np.column_stack([gx.ravel(), gy.ravel()])).reshape(len(ys), len(xs), 2)
        # Sample the coarse grid at every pixel centre by bilinear interpolation.
        px = np.arange(w, dtype=np.float32) / step
        py = np.arange(h, dtype=np.float32) / step
        mx, my = np.meshgrid(px, py)
        coarse_x = ideal[..., 0].astype(np.float32)
        coarse_y = ideal[..., 1].astype(np.float32)
        map_x = np.asarray(cv2.remap(coarse_x, mx, my, cv2.INTER_LINEAR), dtype=np.float32)
        map_y = np.asarray(cv2.remap(coarse_y, mx, my, cv2.INTER_LINEAR), dtype=np.float32)
        return map_x, map_y


def is_calibrated(camera: CameraModel | None) -> bool:
    """Whether a calibration measured ``camera``: a board's shape is then checked strictly through it."""
    return camera is not None and not camera.estimated


def matrix_or_guess(camera: CameraModel | None, size_wh: tuple[int, int]) -> NDArray[np.float64]:
    """The camera's matrix; without a calibration, a typical phone or Pi lens' is close enough for a shape
    check or for where the camera stands."""
    if camera is not None:
        return np.asarray(camera.matrix, np.float64)
    w, h = size_wh
    return np.array([[0.9 * w, 0, w / 2], [0, 0.9 * w, h / 2], [0, 0, 1]])


def recorded_camera(record: Mapping[str, Any]) -> CameraModel:
    """The camera a photo's record names, ``{"camera": {"matrix", "dist"}, "size_wh"}``: a rendered photo's
    truth, or a bundled example photo's."""
    camera = record["camera"]
    return CameraModel(np.array(camera["matrix"]), np.array(camera["dist"]), tuple(record["size_wh"]))


def camera_centre(board_to_ideal: NDArray[np.float64], matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    """Where the camera stands: the point of the board's plane right below it and its height
    above that plane (in the board's units: mm, or cells), from the board's pose: the homography is the
    camera matrix times two axes of the board's rotation and its translation."""
    m = np.linalg.solve(matrix, board_to_ideal)
    scale = 1.0 / np.linalg.norm(m[:, 0])
    if m[2, 2] * scale < 0:  # the board lies in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -rotation.T @ t
    return np.array([centre[0], centre[1], abs(centre[2])], np.float64)


def plane_view(
    image_bgr: NDArray[np.uint8],
    plane_to_ideal: NDArray[np.float64],
    camera: CameraModel | None,
    size_px: tuple[int, int],
    px_per_mm: float,
    origin_px: int = 0,
    grid_step: int = 8,
) -> NDArray[np.uint8]:
    """The photo as seen straight down on a plane: view pixel -> plane mm -> ideal pixel -> lens -> photo.

    The view is ``size_px`` (width, height) big at ``px_per_mm``, its pixel ``origin_px`` (both ways) at the
    plane's 0; pixel (i, j) shows the plane's point ((i - origin_px + 0.5), ...) / px_per_mm. The lens is
    applied on a coarse grid of ``grid_step`` pixels and interpolated (it is smooth); the homography is exact
    per pixel.
    """
    w, h = size_px
    xs = np.arange(0, w + grid_step, grid_step, dtype=np.float64)
    ys = np.arange(0, h + grid_step, grid_step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    plane_mm = (np.column_stack([gx.ravel(), gy.ravel()]) - origin_px + 0.5) / px_per_mm
    ideal = apply_homography(plane_to_ideal, plane_mm)
    photo = camera.distort_px(ideal) if camera is not None else ideal
    coarse = photo.reshape(len(ys), len(xs), 2).astype(np.float32)
    mx, my = np.meshgrid(
        np.arange(w, dtype=np.float32) / grid_step, np.arange(h, dtype=np.float32) / grid_step
    )
    map_x = cv2.remap(coarse[..., 0], mx, my, cv2.INTER_LINEAR)
    map_y = cv2.remap(coarse[..., 1], mx, my, cv2.INTER_LINEAR)
    return np.asarray(
        cv2.remap(image_bgr, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT), np.uint8
    )
