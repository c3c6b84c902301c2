"""Training and evaluation crops cut from synthetic photos exactly as the live pipeline cuts them.

Each photo is rendered, its board rectified through the truth homography (with the corners jittered by a
localisation-sized error, so the classifier learns to forgive one), cut into cells by :mod:`vision.read.cells`
and labelled by the game's :class:`~vision.readers.Reader`. No torch here: benchmarks use it too.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

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
from vision.readers import get_reader

# Localisation error the classifier must forgive, as a share of the board's size in the photo.
CORNER_JITTER = 0.006


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
    game: str, folder: Path, views: int, seed: int, leave_out: Collection[str] = ()
) -> tuple[CellSet, tuple[str, ...]]:
    """Cells of real photos whose board fills the photo (``folder``: NAME.jpg with its state NAME.json, as
    ``garden-scorer-lab bench --photos`` reads them), each cut ``views`` times from its own corner error as
    the synthetic photos are; the photos of layouts ``leave_out`` are left out (a fold's, to read them
    after). Returns the cells (no orientation thumbnails) and the photos' names."""
    reader = get_reader(game)
    profile = default_profile(game)
    rng = np.random.default_rng([seed, 11])
    crops: list[NDArray[np.uint8]] = []
    targets: dict[str, list[int]] = {h.name: [] for h in reader.heads}
    names: list[str] = []
    for photo in load_folder(folder, whole_photo=True):
        if photo.layout in leave_out or photo.state.get("game") != game or photo.corners_xy is None:
            continue
        names.append(photo.name)
        image = read_image(str(photo.path))
        labels = reader.cell_labels(profile, photo.state)
        size = quad_size(photo.corners_xy)
        for _ in range(views):
            ideal = photo.corners_xy + rng.normal(0, CORNER_JITTER * size, photo.corners_xy.shape)
            margin = margin_mm(profile, reader.context_mm, reader.lean_up)
            rect = rectify(image, profile, board_homography(profile, ideal), None, margin_mm=margin)
            cells = cut_cells(rect, reader.regions, reader.context_mm, reader.crop_px, reader.lean_up)
            for crop, key in zip(cells.crops_bgr, cells.keys, strict=True):
                for head, value in reader.targets(profile, key, labels[key[0]][key[1]][key[2]]).items():
                    targets[head].append(value)
                crops.append(crop)
    if not crops:
        raise ValueError(f"{folder}: no photo of {game} to learn from")
    empty = np.zeros((0, 64, 64, 3), np.uint8)
    cellset = CellSet(
        np.stack(crops),
        {h: np.asarray(v, np.int64) for h, v in targets.items()},
        empty,
        np.zeros(0, np.float32),
    )
    return cellset, tuple(names)


def joined(parts: Sequence[CellSet]) -> CellSet:
    """One set of several sets' cells and thumbnails."""
    return CellSet(
        np.concatenate([p.crops for p in parts]),
        {h: np.concatenate([p.targets[h] for p in parts]) for h in parts[0].targets},
        np.concatenate([p.thumbs for p in parts]),
        np.concatenate([p.upright for p in parts]),
    )
