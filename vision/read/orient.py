"""Which way is up: a board's orientation from its own printed layout, never from the camera.

A located outline has four possible top-left corners (boards lie at any rotation). For each, the board is
rectified into a small thumbnail and a tiny model, trained per game on the synthetic table, says how upright
it looks. Its cue is the board's asymmetry (a player-aid strip, a terrace, a coin track, printed art): the
layout itself, so it carries over to art packs it never saw. The four rotations' logits are compared with
each other (a softmax over the four): the model scores each thumbnail alone, and its probabilities saturate
(a board's two long-side rotations may both read 0.99 "upright" while their logits differ by ten), so
how sure it is which way up comes from the gap between them, not from the probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.model_file import model_input, open_model
from vision.profile import BoardProfile
from vision.read.rectify import board_homography, rectify

THUMB_PX = 64
THUMB_PX_PER_MM = 0.5


@dataclass(frozen=True)
class Orientation:
    """The chosen corner order (TL, TR, BR, BL, ideal pixels); ``score``, its probability of being upright;
    ``certainty``, its share of the four rotations (softmax of their logits); ``margin``, its logit's lead
    over the runner-up's (how clearly this game's layout is seen: another game's board has none)."""

    ideal_corners_xy: NDArray[np.float64]
    score: float
    certainty: float
    margin: float


def thumbnail(
    image_bgr: NDArray[np.uint8],
    profile: BoardProfile,
    ideal_corners_xy: NDArray[np.float64],
    camera: CameraModel | None,
) -> NDArray[np.uint8]:
    """The board as the orientation model sees it, for one choice of corners (training uses this too)."""
    rect = rectify(image_bgr, profile, board_homography(profile, ideal_corners_xy), camera, THUMB_PX_PER_MM)
    return np.asarray(
        cv2.resize(rect.image_bgr, (THUMB_PX, THUMB_PX), interpolation=cv2.INTER_AREA), np.uint8
    )


def rotations(ideal_quad_xy: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """The four corner orders of a clockwise outline: each corner in turn taken as top-left."""
    quad = np.asarray(ideal_quad_xy, dtype=np.float64).reshape(4, 2)
    return [np.roll(quad, -k, axis=0) for k in range(4)]


def as_seen(ideal_quad_xy: NDArray[np.float64], square: bool) -> NDArray[np.float64]:
    """A clockwise outline of a board that reads alike whichever way up it lies (a kingdom), started from
    the corner whose side runs most nearly rightwards in the photo: the board read as the photo shows it,
    and from the same corner wherever its corners were found a hair apart (another machine's arithmetic).
    A board of unequal sides keeps its first side along its width (``square`` False): turned half round
    only."""
    turns = rotations(ideal_quad_xy)[:: 1 if square else 2]
    along = [(q[1, 0] - q[0, 0]) / max(float(np.linalg.norm(q[1] - q[0])), 1e-12) for q in turns]
    return turns[int(np.argmax(along))]


def rotated_thumbnails(
    image_bgr: NDArray[np.uint8],
    profile: BoardProfile,
    ideal_quad_xy: NDArray[np.float64],
    camera: CameraModel | None,
) -> NDArray[np.uint8]:
    """The thumbnails of an outline's four :func:`rotations`, in their order (training uses this too). A
    square board's are one thumbnail turned by quarters: a quarter of the work, within one level of
    rectifying each (the lens is interpolated on a grid anchored at a thumbnail's corner)."""
    options = rotations(ideal_quad_xy)
    width, height = profile.size_mm
    if width == height:
        first = thumbnail(image_bgr, profile, options[0], camera)
        return np.stack([np.rot90(first, k) for k in range(4)])
    return np.stack([thumbnail(image_bgr, profile, c, camera) for c in options])


class OrientationModel:
    """An ONNX "is this board upright" model; :meth:`orient` tries the four rotations in one batch."""

    def __init__(self, path: Path) -> None:
        self.session, info = open_model(path)
        self.game = str(info["game"])
        self._input = self.session.get_inputs()[0].name
        self.logits(np.zeros((1, THUMB_PX, THUMB_PX, 3), np.uint8))

    def logits(self, thumbs: NDArray[np.uint8]) -> NDArray[np.float64]:
        """The "upright" logit of each (N, 64, 64, 3) thumbnail."""
        (out,) = self.session.run(None, {self._input: model_input(thumbs)})
        return np.asarray(out, np.float64).reshape(-1)

    def orient(
        self,
        image_bgr: NDArray[np.uint8],
        profile: BoardProfile,
        ideal_quad_xy: NDArray[np.float64],
        camera: CameraModel | None = None,
    ) -> Orientation:
        options = rotations(ideal_quad_xy)
        logits = self.logits(rotated_thumbnails(image_bgr, profile, ideal_quad_xy, camera))
        order = np.argsort(logits)[::-1]
        best = float(logits[order[0]])
        share = np.exp(logits - best)
        return Orientation(
            options[int(order[0])],
            float(1 / (1 + np.exp(-best))),
            float(1 / share.sum()),
            best - float(logits[order[1]]),
        )
