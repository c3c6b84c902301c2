"""A lens' bend estimated from a board's own sides, for a photo with no camera calibration.

A board's sides are straight; a wide lens bows them (barrel distortion: outwards, the more the further from
the photo's middle). Read as straight, they put the corners, and the cells after them, a few per cent off.
The plumb-line method undoes it: along each side of a board found in the photo, the board's edge is found
again point by point (the strongest change of brightness across the side, near the straight line between its
corners); the lens is the radial distortion (``k1``, ``k2``) that makes those points straightest. Only ``k1``
over the focal length squared (``k2`` over its fourth power) bends a photo, so they are searched in units of
the photo's half diagonal, whatever the lens, and given to the guessed camera matrix
(:func:`vision.camera_model.matrix_or_guess`) rescaled to its focal length. A bend is kept only where it
straightens the sides clearly: a flat lens, or edges too ragged to tell, give no camera at all.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel, matrix_or_guess
from vision.geometry import Points

SAMPLES = 24  # points along a side
# How far across the straight side its edge is looked for, as a share of the side's length: a wide lens bows a
# side by several per cent, and the corners found through it are off by as much.
SEARCH = 0.06
# In units of the half diagonal: a wide lens (focal length 0.4 of the width, k1 -0.3, k2 0.04) is about -0.6
# and 0.15; a phone's main camera, within a few hundredths of 0.
K1_CANDIDATES = np.round(np.arange(-0.9, 0.2001, 0.025), 3)
K2_CANDIDATES = np.round(np.arange(-0.2, 0.4001, 0.05), 3)
# Kept only if the sides come out at most this share as crooked as read straight, and the bend is not slight.
MIN_GAIN = 0.6
MIN_K1 = 0.04
MIN_SIDE_PX = 80.0
JUMP_COST = 0.08
UNDISTORT_STEPS = 8
# A bend is one the board's corners can be seen through where, undone and bent again, they come back to
# within this many pixels.
UNDONE_PX = 1.0


def _edge_points(grey: NDArray[np.float32], a: NDArray[np.float64], b: NDArray[np.float64]) -> Points:
    """Points of one edge across the side from ``a`` to ``b``, one per sample along it.

    A board's border is often two or three lines close together (its edge, a printed frame, a track):
    taking the strongest at each sample would jump from one to another. The points are the path through the
    samples that is strong and smooth (Viterbi: a jump costs :data:`JUMP_COST` of a full step per pixel), so
    they follow one line, any of which is straight on the board.
    """
    along = b - a
    length = float(np.hypot(*along))
    normal = np.array([-along[1], along[0]]) / length
    reach = max(3.0, SEARCH * length)
    offsets = np.linspace(-reach, reach, int(2 * reach) + 1)
    ts = np.linspace(0.08, 0.92, SAMPLES)
    starts = a[None, :] + ts[:, None] * along[None, :]
    xy = starts[:, None, :] + offsets[None, :, None] * normal[None, None, :]
    profile = cv2.remap(
        grey, xy[..., 0].astype(np.float32), xy[..., 1].astype(np.float32), cv2.INTER_LINEAR
    ).astype(np.float64)
    step = np.abs(np.diff(profile, axis=1))
    strength = step / np.maximum(step.max(axis=1, keepdims=True), 1e-6)
    places = np.arange(step.shape[1])
    jump = JUMP_COST * np.abs(places[:, None] - places[None, :])
    cost = -strength[0]
    back = np.zeros(step.shape, np.int64)
    for k in range(1, SAMPLES):
        total = cost[:, None] + jump  # from place i to place j
        back[k] = total.argmin(axis=0)
        cost = total.min(axis=0) - strength[k]
    path = np.empty(SAMPLES, np.int64)
    path[-1] = int(cost.argmin())
    for k in range(SAMPLES - 1, 0, -1):
        path[k - 1] = back[k, path[k]]
    # An edge that is no step at all where the path crosses (a hand, a glare) says nothing: left out.
    chosen = step[np.arange(SAMPLES), path]
    strong = chosen > 2.0 * np.median(step, axis=1) + 1.0
    mid = offsets[path] + (offsets[1] - offsets[0]) / 2
    points: Points = (starts + mid[:, None] * normal[None, :])[strong]
    return points


def _undone(corners: Points, matrix: NDArray[np.float64], bends: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Per bend (k1, k2), whether the board's corners undone through it are bent back to where they are: past
    the radius where a strong bend turns back, undoing it finds another point, and an outline given in a
    photo cut off its lens' centre (the guessed centre wrong) came back with two corners moved 400 px."""
    f, cx, cy = matrix[0, 0], matrix[0, 2], matrix[1, 2]
    distorted = (np.asarray(corners, np.float64) - [cx, cy]) / f
    ideal = _undo(distorted, bends)
    r2 = (ideal**2).sum(axis=2, keepdims=True)
    again = ideal * (1 + bends[:, None, 0:1] * r2 + bends[:, None, 1:2] * r2**2)
    return np.asarray(np.abs(again - distorted).max(axis=(1, 2)) * f <= UNDONE_PX)


def _undo(distorted: NDArray[np.float64], bends: NDArray[np.float64]) -> NDArray[np.float64]:
    """(bends, n, 2) normalised points (n, 2) as each radial bend (k1, k2) undoes them, by fixed-point
    steps as OpenCV does."""
    ideal = np.broadcast_to(distorted, (len(bends), *distorted.shape)).copy()
    for _ in range(UNDISTORT_STEPS):
        r2 = (ideal**2).sum(axis=2, keepdims=True)
        ideal = distorted / (1 + bends[:, None, 0:1] * r2 + bends[:, None, 1:2] * r2**2)
    return ideal


def _crookedness(
    sides: list[Points], matrix: NDArray[np.float64], bends: NDArray[np.float64]
) -> NDArray[np.float64]:
    """For each bend (rows of ``k1, k2`` at ``matrix``'s focal length), how far the sides' points lie from
    straight lines once undistorted, relative to each side's length: the median side's RMS, trimmed of its
    worst fifth of points. All bends at once: the radial model undone by fixed-point steps, as OpenCV does."""
    f, cx, cy = matrix[0, 0], matrix[0, 2], matrix[1, 2]
    out = []
    for points in sides:
        ideal = _undo((points - [cx, cy]) / f, bends)
        centred = ideal - ideal.mean(axis=1, keepdims=True)
        # Each line's direction: the larger eigenvector of the points' 2 x 2 scatter.
        sxx, syy = (centred[..., 0] ** 2).sum(axis=1), (centred[..., 1] ** 2).sum(axis=1)
        sxy = (centred[..., 0] * centred[..., 1]).sum(axis=1)
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        along = np.stack([np.cos(angle), np.sin(angle)], axis=1)[:, None, :]
        across = np.stack([-np.sin(angle), np.cos(angle)], axis=1)[:, None, :]
        distance = np.sort(np.abs((centred * across).sum(axis=2)), axis=1)
        kept = distance[:, : max(3, int(0.8 * distance.shape[1]))]
        span = np.ptp((centred * along).sum(axis=2), axis=1)
        out.append(np.sqrt((kept**2).mean(axis=1)) / np.maximum(span, 1e-9))
    crooked: NDArray[np.float64] = np.median(np.stack(out), axis=0)
    return crooked


def estimate_lens(image_bgr: NDArray[np.uint8], corners_xy: Points) -> CameraModel | None:
    """The camera whose radial bend makes the board's sides straightest (its corners, in photo pixels,
    clockwise), or None where no bend straightens them clearly."""
    h, w = image_bgr.shape[:2]
    corners = np.asarray(corners_xy, np.float64)
    if min(np.hypot(*(corners[(i + 1) % 4] - corners[i])) for i in range(4)) < MIN_SIDE_PX:
        return None
    # An outline whose corners lie far beyond the photo (a grid's guessed perspective run away) shows no
    # sides to straighten.
    if (corners < -0.5 * np.array([w, h])).any() or (corners > 1.5 * np.array([w, h])).any():
        return None
    grey = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), (0, 0), 1.5).astype(np.float32)
    # A side half hidden (a hand, a box against it) is left out; three sides tell the bend.
    found = [_edge_points(grey, corners[i], corners[(i + 1) % 4]) for i in range(4)]
    sides = [s for s in found if len(s) >= SAMPLES // 2]
    if len(sides) < 3:
        return None
    matrix = matrix_or_guess(None, (w, h))
    rescale = (matrix[0, 0] / (0.5 * np.hypot(w, h))) ** 2

    k1s, k2s = np.meshgrid(K1_CANDIDATES, K2_CANDIDATES, indexing="ij")
    bends = np.column_stack([k1s.ravel() * rescale, k2s.ravel() * rescale**2])
    crooked = _crookedness(sides, matrix, np.vstack([[0.0, 0.0], bends]))
    straight, crooked = crooked[0], np.where(_undone(corners, matrix, bends), crooked[1:], np.inf)
    best = int(np.argmin(crooked))
    if abs(k1s.ravel()[best]) < MIN_K1 or crooked[best] > MIN_GAIN * straight:
        return None
    dist = np.array([bends[best, 0], bends[best, 1], 0.0, 0.0, 0.0])
    return CameraModel(matrix, dist, (w, h), estimated=True)
