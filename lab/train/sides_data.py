"""Strips across boards' sides and where each side truly lies, for the side model
(:mod:`vision.locate.sides`).

The photos are the board-mask model's kind (:func:`lab.train.segment_data.photo_spec`: every game's boards,
one to three a photo, varied printings, hands) under another seed. Each board seen whole gets two rough
outlines to look across: the one the shipped board-mask model draws (its own kind of error) and the true
outline with each corner moved at random by up to a few per cent of the board. No torch here.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

from lab.synth.art import TRAINING_PACKS
from lab.synth.render import render_photo
from lab.train.segment_data import board_size_mm, hidden, photo_spec
from models import boards_model_path
from vision.geometry import Points, apply_homography, quad_size
from vision.locate.mask import BoardSegmenter
from vision.locate.sides import ACROSS, Strips, side_strips, true_rows

JITTER = 0.015  # standard deviation of a rough corner's offset, in board sizes
JITTER_MAX = 0.04  # and its cap: the board-mask model's outlines are rarely further off
MATCH = 0.06  # a mask outline whose corners all lie this near a board's (in its sizes) is that board's


@dataclass(frozen=True)
class StripSet:
    """Strips (N, ACROSS, ALONG, 3) uint8 and per stretch the true row (N, COLUMNS) float32, NaN where the
    side passes outside the strip."""

    pixels: NDArray[np.uint8]
    rows: NDArray[np.float32]


@cache
def _segmenter() -> BoardSegmenter:
    return BoardSegmenter(boards_model_path())


def _matching(outlines: list[Points], truth: Points) -> Points | None:
    size = quad_size(truth)
    for outline in outlines:
        for r in range(4):
            for order in (outline, outline[::-1]):
                if np.max(np.linalg.norm(np.roll(order, r, axis=0) - truth, axis=1)) < MATCH * size:
                    return outline
    return None


def example(args: tuple[int, int, tuple[str, ...]]) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """Photo ``index`` of ``seed`` (as ``(seed, index, packs)``): its strips and their true rows."""
    seed, index, packs = args
    photo = render_photo(photo_spec(seed, index, packs), index)
    image = photo.decode()
    camera = photo.camera()
    rng = np.random.default_rng([seed, index, 11])
    w, h = photo.truth["size_wh"]
    masks = [o.ideal_xy for o in _segmenter().outlines(image, camera) if not o.cut]
    rough: list[Points] = []
    truths: list[Points] = []
    for board in photo.truth["boards"]:
        bw, bh = board_size_mm(board)
        truth = apply_homography(
            np.array(board["board_to_image"]), np.array([(0, 0), (bw, 0), (bw, bh), (0, bh)])
        )
        corners = np.array(board["corners_xy"])
        if hidden(board) or np.any(corners < 0) or np.any(corners > [w - 1, h - 1]):
            continue
        size = quad_size(truth)
        jitter = np.clip(rng.normal(0, JITTER, (4, 2)), -JITTER_MAX, JITTER_MAX) * size
        rough.append(truth + jitter)
        truths.append(truth)
        mask = _matching(masks, truth)
        if mask is not None:
            rough.append(mask)
            truths.append(truth)
    strips: Strips = side_strips(image, rough, camera.distort_px)
    rows = true_rows(strips, truths)
    rows[(rows < -0.5) | (rows > ACROSS - 0.5)] = np.nan
    return strips.pixels, rows


def build_strips(
    seed: int, count: int, packs: tuple[str, ...] = TRAINING_PACKS, workers: int = 2
) -> StripSet:
    """The strips of ``count`` photos of seed ``seed``, rendered in parallel (deterministic)."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(example, [(seed, i, packs) for i in range(count)], chunksize=4))
    return StripSet(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
