"""Render sets of synthetic photos with their truth: the engine of ``garden-scorer-lab render``.

Photo ``i`` of seed ``s`` depends on nothing but ``(s, i)`` and the options, so sets are reproducible and can
be rendered in parallel in any order.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from lab.synth.art import TRAINING_PACKS, Image, get_pack, varied
from lab.synth.camera import Photo, PhotoOptions, photograph, random_camera
from lab.synth.games import get_artist
from lab.synth.scene import CrowdingArtist, LayingArtist, SyntheticBoard, make_board
from vision.profile import BoardProfile, default_profile

# Boards are drawn at this scale before the camera sees them: finer than any photo resolves them.
DRAW_PX_PER_MM = 4.0


@dataclass(frozen=True)
class RenderSpec:
    """What to render: games to draw boards from, art packs to draw them in, boards per photo."""

    games: tuple[str, ...]
    seed: int
    packs: tuple[str, ...] = TRAINING_PACKS
    boards: int = 1
    options: PhotoOptions = field(default_factory=PhotoOptions)
    vary_art: float = 0.0  # the share of boards in a random printing of their pack (training; art.varied)
    crowded: float = 0.0  # the share of boards drawn crowded (training; scene.CrowdingArtist)
    # A table's own copy of its game's board (another size, its grids elsewhere), drawn instead of the game's.
    reshaped: BoardProfile | None = None
    # A folder of labelled photos of a game's real tiles: boards laid of them on the table (a kingdom) with
    # places left empty, things of the same art beside them (scene.LayingArtist).
    clutter: Path | None = None

    def __post_init__(self) -> None:
        if not self.games:
            raise ValueError("name at least one game")
        if not 1 <= self.boards <= 4:
            raise ValueError(f"boards per photo must be 1 to 4, got {self.boards}")
        for game in self.games:
            get_artist(game)
            default_profile(game)
        for pack in self.packs:
            get_pack(pack)
        if self.crowded:
            plain = [g for g in self.games if not isinstance(get_artist(g), CrowdingArtist)]
            if plain:
                raise ValueError(f"no crowded boards are drawn for {', '.join(plain)}: draw them plain")
        if self.clutter is not None:
            printed = [g for g in self.games if not isinstance(get_artist(g), LayingArtist)]
            if printed:
                raise ValueError(
                    f"{', '.join(printed)}: a printed board, not tiles laid among things of its art"
                )


def render_photo(spec: RenderSpec, index: int, view: int = 0) -> Photo:
    """Photo ``index`` of the set: deterministic in ``(spec, index)``. ``view`` k > 0: the same boards,
    laid out and photographed again by another camera from wherever its own stream puts it (a player's
    second photo of the table, from another side)."""
    rng = np.random.default_rng([spec.seed, index])
    boards: list[SyntheticBoard] = []
    props: list[SyntheticBoard] = []
    for b in range(spec.boards):
        game = spec.games[int(rng.integers(len(spec.games)))]
        pack = get_pack(spec.packs[int(rng.integers(len(spec.packs)))])
        if spec.vary_art:
            # A stream of its own, so that photos without variation stay exactly as they were.
            vary = np.random.default_rng([spec.seed, index, 99, b])
            if vary.random() < spec.vary_art:
                pack = varied(pack, vary)
        artist = get_artist(game)
        profile = (
            spec.reshaped
            if spec.reshaped is not None and spec.reshaped.game == game
            else default_profile(game)
        )
        state = None
        # Its own stream too, so that photos drawn without crowding stay as they were.
        if spec.crowded and np.random.default_rng([spec.seed, index, 98, b]).random() < spec.crowded:
            assert isinstance(artist, CrowdingArtist), "checked when the spec was made"
            state = artist.crowded_state(profile, rng)
        if spec.clutter is not None:
            assert isinstance(artist, LayingArtist), "checked when the spec was made"
            board, laid = artist.laid(profile, pack, rng, DRAW_PX_PER_MM, spec.clutter)
            boards.append(board)
            props.extend(laid)
        else:
            boards.append(make_board(artist, profile, pack, rng, DRAW_PX_PER_MM, state))
    # One camera (one calibration) takes every view; drawn as photograph() would draw it, so view 0 stays the
    # photo it always was.
    model = random_camera(rng, spec.options.size_wh)
    camera_rng = np.random.default_rng([spec.seed, index, 97, view]) if view else rng
    photo = photograph(boards, camera_rng, spec.options, model, props)
    photo.truth = {"seed": spec.seed, "index": index, **({"view": view} if view else {}), **photo.truth}
    return photo


def render_table(
    game: str,
    table: Mapping[str, Any],
    pack: str,
    seed: int,
    options: PhotoOptions,
    profile: BoardProfile | None = None,
) -> Photo:
    """One photo of a whole table of ``game`` (a table game: one garden per player, compared by its
    rules): each player's board drawn from ``table`` with that player first, all photographed together, on
    the game's board or the copy ``profile`` describes. The bundled Zen Garden example photo is
    ``render_table("zen-garden", ..., "mosaic", 2026, ...)``."""
    rng = np.random.default_rng([seed, 0])
    artist, art = get_artist(game), get_pack(pack)
    profile = profile or default_profile(game)
    players = list(table["players"])
    boards = [
        make_board(artist, profile, art, rng, DRAW_PX_PER_MM, {**table, "players": players[k:] + players[:k]})
        for k in range(len(players))
    ]
    photo = photograph(boards, rng, options, random_camera(rng, options.size_wh))
    photo.truth = {"seed": seed, "index": 0, **photo.truth}
    return photo


def _render_to(args: tuple[RenderSpec, int, Path]) -> Path:
    spec, index, out = args
    photo = render_photo(spec, index)
    stem = out / f"{index:04d}"
    # Truth is written after the image and renamed into place, so a half-written pair is never taken as whole.
    jpg, tmp = stem.with_suffix(".jpg"), stem.with_suffix(".json.tmp")
    jpg.write_bytes(photo.jpeg)
    tmp.write_text(json.dumps({"image": jpg.name, **photo.truth}, indent=1))
    tmp.replace(stem.with_suffix(".json"))
    return jpg


def progress_bar(done: int, total: int, width: int = 30) -> str:
    filled = round(width * done / max(total, 1))
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


def render_set(
    spec: RenderSpec, count: int, out: Path, workers: int = 2, report: Callable[[str], None] | None = None
) -> list[Path]:
    """Write ``out/NNNN.jpg`` and ``out/NNNN.json`` for photos 0..count-1; returns the image paths."""
    out.mkdir(parents=True, exist_ok=True)
    report = report or (lambda line: print(f"\r{line}", end="", file=sys.stderr, flush=True))
    jobs = [(spec, i, out) for i in range(count)]
    paths: list[Path] = []
    results: Iterator[Path]
    if workers > 1 and count > 1:
        pool = ProcessPoolExecutor(max_workers=workers)
        results = pool.map(_render_to, jobs)
    else:
        pool = None
        results = map(_render_to, jobs)
    try:
        for path in results:
            paths.append(path)
            report(progress_bar(len(paths), count))
    finally:
        if pool is not None:
            pool.shutdown()
    if count:
        report(progress_bar(count, count) + "\n")
    return paths


def contact_sheet(images: Sequence[Path], columns: int = 4, thumb_w: int = 480) -> Image:
    """Thumbnails of ``images`` in a grid, each captioned with its file name and the games and packs in it."""
    if not images:
        raise ValueError("no images for a contact sheet")
    thumbs = []
    for path in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}: not a readable image")
        h, w = image.shape[:2]
        thumb = cv2.resize(image, (thumb_w, round(h * thumb_w / w)), interpolation=cv2.INTER_AREA)
        truth_path = path.with_suffix(".json")
        caption = path.name
        if truth_path.exists():
            truth = json.loads(truth_path.read_text())
            caption += "  " + ", ".join(f"{b['game']}/{b['art']}" for b in truth["boards"])
        cv2.rectangle(thumb, (0, 0), (thumb_w, 22), (0, 0, 0), -1)
        cv2.putText(thumb, caption, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
        thumbs.append(thumb)
    th = max(t.shape[0] for t in thumbs)
    rows = -(-len(thumbs) // columns)
    sheet = np.full((rows * (th + 4), columns * (thumb_w + 4), 3), 32, np.uint8)
    for i, thumb in enumerate(thumbs):
        r, c = divmod(i, columns)
        y, x = r * (th + 4), c * (thumb_w + 4)
        sheet[y : y + thumb.shape[0], x : x + thumb_w] = thumb
    return sheet
