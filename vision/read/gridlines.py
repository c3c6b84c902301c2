"""How plainly a board of square tiles shows a grid of so many squares a side: the gaps between its tiles are
lines, and they lie where a grid of the right size puts them. A Mighty Duel kingdom is 7 x 7 squares, a
kingdom of the other set-ups 5 x 5: the same outline read with the wrong grid cuts every square in pieces."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import Points
from vision.profile import BoardProfile
from vision.read.rectify import board_homography, rectify

SIDE_PX = 350  # the board is looked at straightened, this many pixels along its width
BAND = 0.015  # of the board's side: a gap is looked for this far either side of where the grid puts it
INNER = (0.05, 0.95)  # of the board's side: the stretch of each line looked along (its ends are ragged)


def line_contrast(
    image_bgr: NDArray[np.uint8], corners: Points, profile: BoardProfile, camera: CameraModel | None
) -> float:
    """How much stronger the photo's edges are, on average, where ``profile``'s grid puts the gaps between
    its squares (ideal ``corners`` TL, TR, BR, BL) than along the board as a whole: about 1 where there is
    no gap, several times that on a grid of the right size."""
    grid = profile.regions[0]
    rect = rectify(
        image_bgr, profile, board_homography(profile, corners), camera, SIDE_PX / profile.size_mm[0]
    )
    gray = cv2.cvtColor(rect.image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = gray.shape
    lo, hi = INNER
    across = np.abs(cv2.Sobel(gray, cv2.CV_32F, 1, 0))[round(lo * h) : round(hi * h)].mean(axis=0)
    down = np.abs(cv2.Sobel(gray, cv2.CV_32F, 0, 1))[:, round(lo * w) : round(hi * w)].mean(axis=1)
    contrasts = []
    for profile_, cells in ((across, grid.cols), (down, grid.rows)):
        size = len(profile_)
        band = max(1, round(BAND * size))
        level = float(np.median(profile_)) + 1e-6
        peaks = [
            float(profile_[max(0, round(k * size / cells) - band) : round(k * size / cells) + band + 1].max())
            for k in range(1, cells)
        ]
        contrasts.append(float(np.mean(peaks)) / level)
    return float(np.mean(contrasts))
