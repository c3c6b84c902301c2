"""``garden-scorer-lab bench --steady``: how far the reading moves under changes no person can see.

A Pi (arm64) and this machine (x86) round floating point differently: the board's corners move by a fraction
of a pixel, the rectified board's pixels by a grey level. A reading that a change like that turns (a cell's
confidence across the "check this cell" line, a class, a flag) is too brittle for a camera whose light
changes every second. Each drawn photo is read once with the corners the finder gives, then again with
those same corners after one change at a time:

- ``grey``: every pixel of the photo moved by one grey level, up or down at random;
- ``corners``: each corner moved by up to half a pixel either way;
- ``jpeg``: the photo saved again at 5 JPEG quality steps below (against it saved again at its own).

Per game and change: the cells read, the share whose confidence (what the page marks unsure: the least sure
of the heads that mean something on the cell's region, :func:`vision.pipeline.cell_confidences`) moved by at
most :data:`STEADY` (the issue's bar: 95 %), the largest move, the cells read as something else, and the
boards whose state or flags changed.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from device.photo import ScoredBoard, score_image
from lab.bench import _hand
from lab.synth.render import RenderSpec, render_photo
from scoring.core import StateError
from vision.camera_model import CameraModel
from vision.pipeline import NoBoardError, cell_confidences
from vision.readers import reader_for

STEADY = 0.02  # a confidence that moves no more than this under an unseen change is steady
CHANGES = ("grey", "corners", "jpeg")
JPEG_STEP = 5
Image = NDArray[np.uint8]


@dataclass
class Tally:
    """One change's effect on one game's photos."""

    moves: list[float] = field(default_factory=list)  # per cell read, |its confidence moved|
    classes: int = 0  # cells read as something else (some head of their region another class)
    states: int = 0  # boards whose state changed
    flags: int = 0  # boards whose flags changed
    boards: int = 0

    def to_json(self) -> dict[str, Any]:
        steady = sum(m <= STEADY for m in self.moves)
        return {
            "cells": len(self.moves),
            "steady_share": steady / len(self.moves) if self.moves else None,
            "largest": max(self.moves, default=0.0),
            "median": statistics.median(self.moves) if self.moves else 0.0,
            "cells_read_otherwise": self.classes,
            "boards": self.boards,
            "states_changed": self.states,
            "flags_changed": self.flags,
        }


def _read(
    image: Image, game: str, hand: Mapping[str, Any], camera: CameraModel, corners: NDArray[np.float64]
) -> ScoredBoard | None:
    try:
        boards = score_image(image, game, hand, camera, corners_xy=corners)
    except (NoBoardError, StateError):
        return None
    return boards[0] if boards else None


def _compare(tally: Tally, before: ScoredBoard, after: ScoredBoard) -> None:
    tally.boards += 1
    tally.states += dict(before.state) != dict(after.state)
    tally.flags += before.reading.flags != after.reading.flags
    reader = reader_for(before.reading.profile)
    moved = cell_confidences(after.reading.profile, after.reading.readings)
    for key, confidence in cell_confidences(before.reading.profile, before.reading.readings).items():
        if key not in moved:
            continue
        tally.moves.append(abs(confidence - moved[key]))
        heads = reader.region_heads(key[0])
        tally.classes += any(
            before.reading.readings[key][h][0] != after.reading.readings[key][h][0] for h in heads
        )


def _resaved(image: Image, quality: int) -> Image:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the photo again")
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)


def _changed(
    change: str, image: Image, corners: NDArray[np.float64], quality: int, rng: np.random.Generator
) -> tuple[tuple[Image, NDArray[np.float64]], tuple[Image, NDArray[np.float64]]]:
    """The reference reading's input and the changed one's, for ``change``."""
    if change == "grey":
        step = rng.choice(np.array([-1, 1], np.int16), size=image.shape)
        return (image, corners), (np.clip(image + step, 0, 255).astype(np.uint8), corners)
    if change == "corners":
        return (image, corners), (image, corners + rng.uniform(-0.5, 0.5, corners.shape))
    return (_resaved(image, quality), corners), (_resaved(image, quality - JPEG_STEP), corners)


def run_steady(
    games: Sequence[str], count: int, seed: int, report: Callable[[str], None]
) -> dict[str, dict[str, Any]]:
    """Per game, per change (:data:`CHANGES`), its :class:`Tally` as JSON, over ``count`` drawn photos."""
    out: dict[str, dict[str, Any]] = {}
    for game in games:
        spec = RenderSpec((game,), seed)
        tallies = {change: Tally() for change in CHANGES}
        for index in range(count):
            photo = render_photo(spec, index)
            image, camera = photo.decode(), photo.camera()
            hand = _hand(game, photo.truth["boards"][0]["state"])
            try:
                found = score_image(image, game, hand, camera)
            except (NoBoardError, StateError):
                continue
            if not found:
                continue
            corners = found[0].reading.corners_xy
            rng = np.random.default_rng([seed, index])
            quality = int(photo.truth.get("jpeg_quality", 90))
            for change in CHANGES:
                (a, a_corners), (b, b_corners) = _changed(change, image, corners, quality, rng)
                before = _read(a, game, hand, camera, a_corners)
                after = _read(b, game, hand, camera, b_corners)
                if before is not None and after is not None:
                    _compare(tallies[change], before, after)
        out[game] = {change: tally.to_json() for change, tally in tallies.items()}
        report(f"{game}: {count} photos")
    return out


def format_steady(result: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        f"| game | change | cells | moved <= {STEADY} | largest | cells read otherwise "
        "| boards: state / flags changed |",
        "|---|---|---|---|---|---|---|",
    ]
    for game, changes in result.items():
        for change, t in changes.items():
            share = "-" if t["steady_share"] is None else f"{t['steady_share']:.1%}"
            moved = f"{share} | {t['largest']:.3f} | {t['cells_read_otherwise']}"
            changed = f"{t['boards']}: {t['states_changed']} / {t['flags_changed']}"
            lines.append(f"| {game} | {change} | {t['cells']} | {moved} | {changed} |")
    return "\n".join(lines)
