"""Training and evaluation crops cut from synthetic photos exactly as the live pipeline cuts them.

Each photo is rendered, its board rectified through the truth homography (with the corners jittered by a
localisation-sized error, so the classifier learns to forgive one), cut into cells by :mod:`vision.read.cells`
and labelled by the game's :class:`~vision.readers.Reader`. No torch here: benchmarks use it too.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.bench_real import load_folder
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from vision.geometry import apply_homography, quad_size
from vision.image_io import read_image
from vision.profile import default_profile
from vision.read.cells import cut_cells, margin_mm
from vision.read.orient import rotated_thumbnails
from vision.read.rectify import board_homography, rectify
from vision.readers import IGNORE, get_reader

# Localisation error the classifier must forgive, as a share of the board's size in the photo.
CORNER_JITTER = 0.006
# On a board found on a table at a slant, with no corners given: the finder's median corner error on real
# kingdoms is about 2 % of the board (docs/benchmarks.md), so half of that as one corner's spread.
TABLE_JITTER = 0.01


@dataclass(frozen=True)
class CellSet:
    """Crops (N, s, s, 3) uint8 and, per head, targets (N,) int64 with -1 where the head does not apply;
    board thumbnails (M, 64, 64, 3) for the orientation model with ``upright`` (M,) 1 or 0."""

    crops: NDArray[np.uint8]
    targets: dict[str, NDArray[np.int64]]
    thumbs: NDArray[np.uint8]
    upright: NDArray[np.float32]


Part = tuple[NDArray[np.uint8], dict[str, list[int]], NDArray[np.uint8], list[float]]


def _photo_cells(args: tuple[str, int, int, tuple[str, ...], float, float, int, float]) -> Part:
    game, seed, index, packs, hands, vary_art, views, crowded = args
    reader = get_reader(game)
    # The photo holds boards of ``game`` only, which names a profile of its own where a board's game does not
    # (Four Gardens' Extra-rewards tile is a "four-gardens" board of profile "four-gardens-reward").
    profile = default_profile(game)
    spec = RenderSpec(
        (game,), seed, packs=packs, options=PhotoOptions(hands=hands), vary_art=vary_art, crowded=crowded
    )
    photo = render_photo(spec, index)
    image = photo.decode()
    truth = photo.truth
    camera = photo.camera()
    rng = np.random.default_rng([seed, index, 7])
    crops = []
    targets: dict[str, list[int]] = {h.name: [] for h in reader.heads}
    thumbs: list[NDArray[np.uint8]] = []
    upright: list[float] = []
    for board in truth["boards"]:
        truth_quad = apply_homography(np.array(board["board_to_image"]), profile.corners_mm)
        size = quad_size(truth_quad)
        hidden = {(h[0], h[1], h[2]) for h in board["hidden_cells"]}
        for view in range(views):
            ideal = truth_quad + rng.normal(0, CORNER_JITTER * size, truth_quad.shape)
            if view == 0:
                thumbs.extend(rotated_thumbnails(image, profile, ideal, camera))
                upright += [1.0, 0.0, 0.0, 0.0]
            margin = margin_mm(profile, reader.context_mm, reader.lean_up)
            rect = rectify(image, profile, board_homography(profile, ideal), camera, margin_mm=margin)
            cells = cut_cells(rect, reader.regions, reader.context_mm, reader.crop_px, reader.lean_up)
            for crop, key in zip(cells.crops_bgr, cells.keys, strict=True):
                # A hand over a cell hides its truth; the live loop waits for the hand to go.
                if key in hidden:
                    continue
                label = board["cells"][key[0]][key[1]][key[2]]
                for head, value in reader.targets(profile, key, label).items():
                    targets[head].append(value)
                crops.append(crop)
    return np.stack(crops), targets, np.stack(thumbs), upright


def build_cells(
    game: str,
    seed: int,
    count: int,
    packs: tuple[str, ...],
    workers: int = 2,
    hands: float = 0.0,
    vary_art: float = 0.0,
    views: int = 1,
    crowded: float = 0.0,
) -> CellSet:
    """Cells of ``count`` fresh photos of ``game`` (photo i of ``seed``), rendered in parallel.

    ``views``: each board is cut that many times, each from its own corner error; a board of few cells (a
    bonus tile) yields enough crops without rendering many more photos.
    """
    jobs = [(game, seed, i, packs, hands, vary_art, views, crowded) for i in range(count)]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(_photo_cells, jobs, chunksize=4))
    else:
        parts = [_photo_cells(job) for job in jobs]
    crops = np.concatenate([p[0] for p in parts])
    heads = parts[0][1].keys()
    targets = {h: np.concatenate([np.asarray(p[1][h], np.int64) for p in parts]) for h in heads}
    thumbs = np.concatenate([p[2] for p in parts])
    upright = np.concatenate([np.asarray(p[3], np.float32) for p in parts])
    return CellSet(crops, targets, thumbs, upright)


def real_cells(
    game: str, folder: Path, views: int, seed: int, leave_out: Collection[str] = (), tilt: float = 0.0
) -> tuple[CellSet, tuple[str, ...]]:
    """Cells of real photos whose board fills the photo (``folder``: NAME.jpg with its state NAME.json, as
    ``garden-scorer-lab bench --photos`` reads them), each cut ``views`` times from its own corner error as
    the synthetic photos are; the photos of layouts ``leave_out`` are left out (a fold's, to read them
    after). ``tilt``: the share of the photos also cut as seen at a slant (:func:`tilted`), as many times
    again. Returns the cells (no orientation thumbnails) and the photos' names."""
    rng = np.random.default_rng([seed, 11])
    slant = np.random.default_rng([seed, 12])
    cut = _ViewCutter(game)
    names: list[str] = []
    for photo in load_folder(folder, whole_photo=True):
        if photo.layout in leave_out or photo.state.get("game") != game or photo.corners_xy is None:
            continue
        names.append(photo.name)
        image = read_image(str(photo.path))
        cut.add(image, photo.corners_xy, photo.state, views, CORNER_JITTER, rng)
        if tilt and slant.random() < tilt:
            seen, corners = tilted(image, photo.corners_xy, slant)
            cut.add(seen, corners, photo.state, views, TABLE_JITTER, slant)
    return cut.cellset(f"{folder}: no photo of {game} to learn from"), tuple(names)


def table_cells(
    game: str, folder: Path, truth: Path, views: int, seed: int, leave_out: Collection[str] = ()
) -> tuple[CellSet, tuple[str, ...]]:
    """Cells of real photos of boards on a table, seen at a slant (``folder``: NAME.jpg with NAME.json
    marking the board's ``corners_xy``; ``truth``: a ``lab/truth`` file of each photo's cells and the
    ``game`` played), each cut ``views`` times from a corner error as large as the finder's on such photos
    (:data:`TABLE_JITTER`); squares the truth marks unsure teach nothing; the photos of the games
    ``leave_out`` are left out (a fold's)."""
    photos = json.loads(truth.read_text())["photos"]
    rng = np.random.default_rng([seed, 13])
    cut = _ViewCutter(game)
    names: list[str] = []
    for path in sorted(folder.glob("*.jpg")):
        true = photos.get(path.stem)
        marked = path.with_suffix(".json")
        if true is None or true["game"] in leave_out or not marked.is_file():
            continue
        names.append(path.stem)
        corners = np.array(json.loads(marked.read_text())["corners_xy"], np.float64)
        unsure = {(int(r), int(c)) for r, c in true.get("unsure", [])}
        state = {"game": game, "cells": true["cells"]}
        cut.add(read_image(str(path)), corners, state, views, TABLE_JITTER, rng, unsure)
    return cut.cellset(f"{folder}: no photo in {truth} to learn from"), tuple(names)


def tilted(
    image: NDArray[np.uint8], corners_xy: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """A photo taken from straight above seen as from 20-60 degrees off, from a random side: the far side
    narrowed, the depth foreshortened and the whole made as small as a board across a table (what a
    rectified board then loses along one direction is what a phone at a slant loses). Returns the photo and
    where its corners went."""
    h, w = image.shape[:2]
    squash = np.cos(np.radians(rng.uniform(20, 60)))
    far = rng.uniform(0.7, 0.95)
    scale = rng.uniform(0.6, 1.0)
    # Seen from below (the camera's foot at the bottom): the top is the far side.
    x0 = w * (1 - far) / 2
    seen = np.array([[x0, 0], [w - x0, 0], [w, h * squash], [0, h * squash]], np.float64) * scale
    source = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    turn = int(rng.integers(4))
    warp = cv2.getPerspectiveTransform(
        np.roll(source, turn, axis=0).astype(np.float32), seen.astype(np.float32)
    )
    size = (int(np.ceil(w * scale)), int(np.ceil(h * squash * scale)))
    return cv2.warpPerspective(image, warp, size), apply_homography(warp, corners_xy)


class _ViewCutter:
    """Crops of real boards, each cut several times from its own corner error, with the reader's targets."""

    def __init__(self, game: str) -> None:
        self.reader = get_reader(game)
        self.profile = default_profile(game)
        self.crops: list[NDArray[np.uint8]] = []
        self.targets: dict[str, list[int]] = {h.name: [] for h in self.reader.heads}

    def add(
        self,
        image: NDArray[np.uint8],
        corners_xy: NDArray[np.float64],
        state: dict[str, object],
        views: int,
        jitter: float,
        rng: np.random.Generator,
        unsure: Collection[tuple[int, int]] = (),
    ) -> None:
        reader, profile = self.reader, self.profile
        labels = reader.cell_labels(profile, state)
        size = quad_size(corners_xy)
        margin = margin_mm(profile, reader.context_mm, reader.lean_up)
        for _ in range(views):
            ideal = corners_xy + rng.normal(0, jitter * size, corners_xy.shape)
            rect = rectify(image, profile, board_homography(profile, ideal), None, margin_mm=margin)
            cells = cut_cells(rect, reader.regions, reader.context_mm, reader.crop_px, reader.lean_up)
            for crop, key in zip(cells.crops_bgr, cells.keys, strict=True):
                taught = reader.targets(profile, key, labels[key[0]][key[1]][key[2]])
                for head, value in taught.items():
                    self.targets[head].append(IGNORE if (key[1], key[2]) in unsure else value)
                self.crops.append(crop)

    def cellset(self, nothing: str) -> CellSet:
        if not self.crops:
            raise ValueError(nothing)
        return CellSet(
            np.stack(self.crops),
            {h: np.asarray(v, np.int64) for h, v in self.targets.items()},
            np.zeros((0, 64, 64, 3), np.uint8),
            np.zeros(0, np.float32),
        )


def joined(parts: Sequence[CellSet]) -> CellSet:
    """One set of several sets' cells and thumbnails."""
    return CellSet(
        np.concatenate([p.crops for p in parts]),
        {h: np.concatenate([p.targets[h] for p in parts]) for h in parts[0].targets},
        np.concatenate([p.thumbs for p in parts]),
        np.concatenate([p.upright for p in parts]),
    )
