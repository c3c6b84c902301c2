"""Photos and their board masks for the board-mask model (:mod:`vision.locate.mask`), from the synthetic
table.

Every game's boards (and Four Gardens' Extra-rewards tile), one to three a photo, in the training packs and
random printings of them, under every light, lens and tilt the camera simulator makes, with hands over some.
A board's mask is its top face: its four sides traced through the camera's lens (a wide lens bends them), so
the model learns the face, not a straight-sided guess of it. No torch here.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.synth.art import TRAINING_PACKS
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from vision.camera_model import CameraModel
from vision.geometry import apply_homography
from vision.locate.mask import CORE_INSET, segment_input
from vision.profile import default_profile

# Boards a photo, in turn: most photos show one board, as a player takes them; tables show more.
BOARDS = (1, 1, 1, 2, 2, 3)
# A board a hand hides more than this share of is not taught either way: its face cannot be seen.
HIDDEN = 0.4
# Targets are the share of each pixel a face covers, 0 to FULL (the model learns where an edge crosses a
# pixel, not just which pixels it touches); IGNORE marks pixels no loss is taken on.
FULL = 200
IGNORE = 255
# Faces are drawn this many times finer than the model's input, then averaged down to their coverage:
# OpenCV fills every pixel an edge passes within half a pixel of, which would fatten a face by half a pixel.
SUPERSAMPLE = 8
# The profiles a board may be drawn from: every game's, and the Extra-rewards tile photographed alone.
PROFILES = ("alices-garden", "sanssouci", "zen-garden", "four-gardens", "tang-garden", "four-gardens-reward")


@dataclass(frozen=True)
class MaskSet:
    """Inputs (N, H, W, 3) uint8 as :func:`vision.locate.mask.segment_input` makes them, and targets
    (N, 2, H, W) uint8: the share of each pixel the boards' faces and their cores cover (0 to :data:`FULL`;
    :data:`IGNORE`: not taught)."""

    images: NDArray[np.uint8]
    targets: NDArray[np.uint8]


def board_size_mm(truth_board: dict[str, Any]) -> tuple[float, float]:
    """A rendered board's size, from the name of the profile it was drawn from."""
    sizes = {default_profile(p).name: default_profile(p).size_mm for p in PROFILES}
    return sizes[truth_board["profile"]]


def face_outline(
    truth_board: dict[str, Any], camera: CameraModel, inset_mm: float = 0.0
) -> NDArray[np.float64]:
    """A board's face (inset by ``inset_mm``) as a polygon in photo pixels, each side traced in steps."""
    w, h = board_size_mm(truth_board)
    a, b = inset_mm, (w - inset_mm, h - inset_mm)
    corners = np.array([(a, a), (b[0], a), b, (a, b[1])])
    t = np.linspace(0.0, 1.0, 24, endpoint=False)[:, None]
    sides = [corners[i] + t * (corners[(i + 1) % 4] - corners[i]) for i in range(4)]
    ideal = apply_homography(np.array(truth_board["board_to_image"]), np.vstack(sides))
    return np.asarray(camera.distort_px(ideal), np.float64)


def photo_spec(seed: int, index: int, packs: tuple[str, ...]) -> RenderSpec:
    """What photo ``index`` of ``seed`` shows: one to three boards of any profile, hands over some."""
    boards = BOARDS[index % len(BOARDS)]
    return RenderSpec(
        PROFILES, seed, packs=packs, boards=boards, options=PhotoOptions(hands=0.3), vary_art=0.5
    )


def hidden(truth_board: dict[str, Any]) -> bool:
    """Whether a hand hides too much of a rendered board for its face to be seen."""
    cells = sum(len(r) * len(r[0]) for r in truth_board["cells"].values())
    return len(truth_board["hidden_cells"]) > HIDDEN * cells


def example(args: tuple[int, int, tuple[str, ...]]) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Photo ``index`` of ``seed`` (as ``(seed, index, packs)``) as the model's input, and its targets."""
    seed, index, packs = args
    photo = render_photo(photo_spec(seed, index, packs), index)
    truth = photo.truth
    camera = photo.camera()
    small, scale = segment_input(photo.decode())
    h, w = small.shape[:2]
    target = np.zeros((2, h, w), np.uint8)
    for board in truth["boards"]:
        unseen = hidden(board)
        for channel, inset in ((0, 0.0), (1, CORE_INSET * min(board_size_mm(board)))):
            fine = np.zeros((h * SUPERSAMPLE, w * SUPERSAMPLE), np.uint8)
            poly = (face_outline(board, camera, inset) + 0.5) * scale * SUPERSAMPLE - 0.5
            # Sub-pixel vertices (shift 4: sixteenths of a fine pixel).
            cv2.fillPoly(fine, [np.round(poly * 16).astype(np.int32)], FULL, cv2.LINE_8, 4)
            cover = cv2.resize(fine, (w, h), interpolation=cv2.INTER_AREA)
            if unseen:
                target[channel][cover > 0] = IGNORE
            else:
                target[channel] = np.where(
                    target[channel] == IGNORE, IGNORE, np.maximum(target[channel], cover)
                )
    return small, target


def build_masks(seed: int, count: int, packs: tuple[str, ...] = TRAINING_PACKS, workers: int = 2) -> MaskSet:
    """``count`` photos of seed ``seed`` and their masks, rendered in parallel (deterministic)."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(example, [(seed, i, packs) for i in range(count)], chunksize=4))
    return MaskSet(np.stack([p[0] for p in parts]), np.stack([p[1] for p in parts]))
