"""Camera calibration: intrinsics and lens distortion from photos of a chessboard or a ChArUco board.

``--size`` counts inner corners for a chessboard (OpenCV's classic 9x6) and squares for ChArUco. The rational
distortion model (8 coefficients) is kept only when it lowers the reprojection error clearly, as it does for
wide lenses; otherwise the standard 5-coefficient model is less likely to overfit a few photos.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.store import read_versioned, write_json_atomic
from vision.camera_model import CameraModel
from vision.geometry import as_points
from vision.image_io import MAX_PIXELS, ImageError, read_image

KIND = "camera"
VERSION = 1
# The rational model must beat the standard one by this factor in RMS to be worth its extra terms.
RATIONAL_GAIN = 0.9
CHARUCO_DICTIONARY = cv2.aruco.DICT_5X5_100
# The squares (ChArUco) or inner corners (chessboard) a pattern may have along a side, as --size takes them.
PATTERN_SIDES = (2, 64)


@dataclass(frozen=True)
class Calibration:
    """A calibrated camera and how well it fits each photo."""

    matrix: NDArray[np.float64]
    dist: NDArray[np.float64]
    size_wh: tuple[int, int]
    rms: float
    model: str
    per_photo: dict[str, float] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)

    def camera(self) -> CameraModel:
        return CameraModel(self.matrix, self.dist, self.size_wh)

    def intrinsics(self) -> dict[str, float]:
        """The focal lengths and the principal point, in pixels."""
        k = self.matrix
        return {"fx": float(k[0, 0]), "fy": float(k[1, 1]), "cx": float(k[0, 2]), "cy": float(k[1, 2])}

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "version": VERSION,
            "matrix": self.matrix.tolist(),
            "dist": self.dist.ravel().tolist(),
            "size_wh": list(self.size_wh),
            "rms": self.rms,
            "model": self.model,
            "per_photo": self.per_photo,
            "rejected": self.rejected,
        }


def charuco_board(cols: int, rows: int, square_mm: float) -> cv2.aruco.CharucoBoard:
    """The project's ChArUco board: ``cols`` x ``rows`` squares, markers 75 % of a square."""
    dictionary = cv2.aruco.getPredefinedDictionary(CHARUCO_DICTIONARY)
    return cv2.aruco.CharucoBoard((cols, rows), square_mm, square_mm * 0.75, dictionary)


def _chessboard_points(
    gray: NDArray[np.uint8], cols: int, rows: int, square_mm: float
) -> tuple[Any, Any] | None:
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    found, corners = cv2.findChessboardCorners(gray, (cols, rows), flags)
    if not found:
        return None
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 40, 1e-3)
    corners = cv2.cornerSubPix(
        gray, corners.reshape(-1, 1, 2).astype(np.float32), (11, 11), (-1, -1), criteria
    )
    grid = np.zeros((rows * cols, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    return grid, as_points(corners).astype(np.float32)


def _charuco_points(gray: NDArray[np.uint8], board: cv2.aruco.CharucoBoard) -> tuple[Any, Any] | None:
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(np.asarray(ids).reshape(-1)) < 6:
        return None
    obj, img = board.matchImagePoints(corners, ids)
    return np.asarray(obj, np.float32).reshape(-1, 3), as_points(img).astype(np.float32)


def _fit(
    objects: list[Any], images: list[Any], size_wh: tuple[int, int], flags: int
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], list[float]]:
    rms, matrix, dist, rvecs, tvecs = cv2.calibrateCamera(
        [o.reshape(-1, 1, 3) for o in objects],
        [i.reshape(-1, 1, 2) for i in images],
        size_wh,
        None,
        None,
        flags=flags,
    )
    per = []
    for obj, img, rvec, tvec in zip(objects, images, rvecs, tvecs, strict=True):
        projected, _ = cv2.projectPoints(obj.reshape(-1, 1, 3), rvec, tvec, matrix, dist)
        per.append(float(np.sqrt(np.mean(np.sum((as_points(projected) - img) ** 2, axis=1)))))
    return float(rms), np.asarray(matrix, np.float64), np.asarray(dist, np.float64).ravel(), per


def calibrate(photos: Sequence[Path], pattern: str, size: tuple[int, int], square_mm: float) -> Calibration:
    """Calibrate from photos of a pattern; photos where it is not found are listed in ``rejected``."""
    if pattern not in ("chessboard", "charuco"):
        raise ValueError(f"unknown pattern {pattern!r}: use chessboard or charuco")
    cols, rows = size
    board = charuco_board(cols, rows, square_mm) if pattern == "charuco" else None
    objects: list[Any] = []
    images: list[Any] = []
    names: list[str] = []
    rejected: dict[str, str] = {}
    size_wh: tuple[int, int] | None = None
    for path in photos:
        try:
            image = read_image(str(path))
        except ImageError as exc:
            rejected[path.name] = str(exc)
            continue
        h, w = image.shape[:2]
        if size_wh is None:
            size_wh = (w, h)
        elif size_wh != (w, h):
            rejected[path.name] = f"size {w}x{h} differs from the first photo's {size_wh[0]}x{size_wh[1]}"
            continue
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        found = (
            _charuco_points(gray, board)
            if board is not None
            else _chessboard_points(gray, cols, rows, square_mm)
        )
        if found is None:
            rejected[path.name] = f"no {cols}x{rows} {pattern} found"
            continue
        objects.append(found[0])
        images.append(found[1])
        names.append(path.name)
    if size_wh is None or len(objects) < 3:
        raise ValueError(
            f"the pattern was found in {len(objects)} photo(s); calibration needs 3 or more "
            f"(rejected: {', '.join(f'{k}: {v}' for k, v in rejected.items()) or 'none'})"
        )
    standard = _fit(objects, images, size_wh, 0)
    rational = _fit(objects, images, size_wh, cv2.CALIB_RATIONAL_MODEL)
    use_rational = rational[0] < RATIONAL_GAIN * standard[0]
    rms, matrix, dist, per = rational if use_rational else standard
    return Calibration(
        matrix,
        dist,
        size_wh,
        rms,
        "rational" if use_rational else "standard",
        dict(zip(names, (round(p, 4) for p in per), strict=True)),
        rejected,
    )


def save(calibration: Calibration, path: Path) -> None:
    write_json_atomic(path, calibration.to_json())


def load(path: Path) -> Calibration:
    """A saved calibration, validated: each field's problem is named."""
    data = read_versioned(path, KIND, (VERSION,))
    try:
        matrix = np.array(data["matrix"], np.float64)
        dist = np.array(data["dist"], np.float64).ravel()
        w, h = (int(v) for v in data["size_wh"])
        rms = float(data["rms"])
        per_photo = {str(k): float(v) for k, v in dict(data.get("per_photo", {})).items()}
        rejected = {str(k): str(v) for k, v in dict(data.get("rejected", {})).items()}
    # OverflowError: an infinite or 400-digit size, or a number beyond float's range.
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{path}: bad or missing field ({exc})") from None
    if matrix.shape != (3, 3) or dist.size not in (4, 5, 8, 12, 14):
        raise ValueError(f"{path}: matrix must be 3x3 and dist 4-14 numbers; got {matrix.shape}, {dist.size}")
    # Checked here, not where the camera is used: a NaN matrix or a zero focal length would otherwise
    # surface as nonsense board positions, and a huge size as an undistortion map filling the memory.
    if not (np.isfinite(matrix).all() and np.isfinite(dist).all() and np.isfinite(rms) and rms >= 0):
        raise ValueError(f"{path}: matrix, dist and rms must be finite numbers (rms not negative)")
    if matrix[0, 0] <= 0 or matrix[1, 1] <= 0:
        raise ValueError(f"{path}: matrix: focal lengths {matrix[0, 0]}, {matrix[1, 1]} must be positive")
    if w < 1 or h < 1 or w * h > MAX_PIXELS:
        raise ValueError(f"{path}: size_wh: {w}x{h} is not the size of a camera's image")
    return Calibration(matrix, dist, (w, h), rms, str(data.get("model", "standard")), per_photo, rejected)
