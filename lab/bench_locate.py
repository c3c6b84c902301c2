"""``garden-scorer-lab bench --photos FOLDER --locate --game G``: how well boards are found on real photos
whose outlines were marked by hand, with no corners given.

A folder holds ``NAME.jpg`` with ``NAME.json``: ``{"corners_xy": [[x, y] x 4]}``, the board's outer corners
in the photo as viewed, round the board from any corner. The scorer's own finding (as ``score`` runs it: the
board-mask model and its edges, or for a game of tiles with no printed board its grid) proposes boards; the
photo counts as found when one of them has every corner within :data:`FOUND_WITHIN` of the board's size (the
square root of its area) of the marked one, the corners matched round either way and from any corner (which
corner is the top is the reader's business, not the finder's).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from device.photo import load_segmenter, shipped_art
from scoring.core import StateError
from vision.image_io import read_image
from vision.pipeline import locate_boards
from vision.profile import default_profile

FOUND_WITHIN = 0.03  # of the board's size: the bar for a board found


@dataclass(frozen=True)
class Outlined:
    name: str
    path: Path
    corners_xy: NDArray[np.float64]


def load_outlines(folder: Path) -> list[Outlined]:
    """The photos of ``folder`` whose JSON marks a board's ``corners_xy``, in name order."""
    if not folder.is_dir():
        raise StateError(f"{folder}: no such folder of photos")
    photos = []
    for path in sorted(folder.glob("*.jpg")):
        marked = path.with_suffix(".json")
        if not marked.is_file():
            continue
        corners = np.array(json.loads(marked.read_text()).get("corners_xy", []), dtype=np.float64)
        if corners.shape != (4, 2):
            raise StateError(f"{marked}: give the board's outline as corners_xy, four [x, y] pairs")
        photos.append(Outlined(path.stem, path, corners))
    if not photos:
        raise StateError(f"{folder}: no NAME.jpg with a NAME.json marking its board's corners_xy")
    return photos


def corner_error(found: NDArray[np.float64], truth: NDArray[np.float64]) -> float:
    """The farthest corner's distance from the marked one, as a share of the marked board's size, matched
    round either way and from any corner."""
    size = float(np.sqrt(abs(cv2.contourArea(truth.astype(np.float32)))))
    return min(
        float(np.max(np.linalg.norm(np.roll(order, k, axis=0) - truth, axis=1))) / size
        for order in (found, found[::-1])
        for k in range(4)
    )


def run_locate(
    game: str,
    photos: Sequence[Outlined],
    report: Callable[[str], None],
    models: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``models``: a taught profile's (:func:`device.photo.profile_models`): its board, its grid's colours
    and its picture; else the game's shipped profile and colours."""
    models = models or {}
    profiles = models.get("profiles") or [default_profile(game)]
    art = models.get("art") or shipped_art(profiles)
    pictures = models.get("pictures")
    segmenter = load_segmenter()
    rows: list[dict[str, Any]] = []
    errors: list[float] = []
    times: list[float] = []
    for photo in photos:
        image = read_image(str(photo.path))
        started = time.perf_counter()
        # As a photo is scored: with no calibration, through the lens its board's sides show.
        quads, _ = locate_boards(image, profiles, None, False, segmenter, art, pictures)
        ms = (time.perf_counter() - started) * 1000
        error = min((corner_error(q.corners_xy, photo.corners_xy) for q in quads), default=None)
        if error is not None:
            errors.append(error)
        times.append(ms)
        method = quads[0].method if quads else "-"
        rows.append({"photo": photo.name, "error": error, "method": method, "ms": ms})
        report(f"{photo.name}: {'nothing found' if error is None else f'{error:.1%} off'} ({ms:.0f} ms)")
    return {
        "game": game,
        "photos": len(rows),
        "found": sum(1 for e in errors if e <= FOUND_WITHIN),
        "proposed": len(errors),
        "median_error": statistics.median(errors) if errors else None,
        "worst_error": max(errors) if errors else None,
        "median_ms": statistics.median(times),
        "rows": rows,
    }


def format_locate(result: dict[str, Any]) -> str:
    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    lines = ["| photo | corners off by (share of its size) | found by | ms |", "|---|---|---|---|"]
    lines += [
        f"| {r['photo']} | {share(r['error'])} | {r['method']} | {r['ms']:.0f} |" for r in result["rows"]
    ]
    lines += [
        "",
        f"{result['game']}: found (every corner within {FOUND_WITHIN:.0%}) in {result['found']} of "
        f"{result['photos']} photos; an outline proposed in {result['proposed']}; corners off by "
        f"{share(result['median_error'])} median, {share(result['worst_error'])} worst; "
        f"{result['median_ms']:.0f} ms median to find",
    ]
    return "\n".join(lines)
