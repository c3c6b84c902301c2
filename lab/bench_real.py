"""``garden-scorer-lab bench --photos FOLDER``: reading and scoring real photos whose states are known.

A folder holds ``NAME.jpg`` (or ``.png``) with ``NAME.json``, the board's state (any game, custom grids
included). Where the board lies: ``--whole-photo`` for rectified crops (the board fills the photo), else the
corners in ``corners.json`` (``{"NAME": [[x, y] x 4]}``, top-left first, clockwise, as the photo is viewed) or
in ``NAME.corners.json`` (``{"corners_xy": [...]}``), else wherever the scorer finds it. ``manifest.json`` may
name each photo's ``layout`` (photos of one physical board): teaching and reading never share a layout.

``--teach K`` teaches a profile from the photos of K layouts (enrolment, as ``garden-scorer enroll`` does;
a custom grid is taught from nothing but them) and reads the photos of every other layout; ``--folds F``
repeats it with F sets of teaching layouts drawn in turn, and the table prints each fold, their mean and the
worst. The figures are the synthetic benchmark's (:mod:`lab.bench`), the hand-entry fields coming from the
truth as a player would type them.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.enroll import EnrolledClassifier, Example, enrol
from calibration.profiles import custom_profile
from device.photo import base_classifier, load_classifier, score_image
from lab.bench import BenchResult, _hand, tally_found, tally_missing
from scoring import custom_grid
from scoring.core import StateError
from scoring.registry import read_state
from vision.geometry import CellKey
from vision.image_io import read_image, viewed_size
from vision.pipeline import NoBoardError
from vision.profile import BoardProfile, default_profile
from vision.read.classify import CellClassifier
from vision.readers import reader_for
from vision.readers.custom_grid import BARE_LABEL

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class RealPhoto:
    name: str
    path: Path
    state: dict[str, Any]
    layout: str
    corners_xy: NDArray[np.float64] | None
    # A custom grid's tiles as the folder's states name their faces (``as_custom_grid(tiles=True)``).
    faces: tuple[tuple[str, ...], ...] | None = None


def load_folder(folder: Path, whole_photo: bool = False) -> list[RealPhoto]:
    """The photos of ``folder`` with their states, layouts and corners, in name order."""
    if not folder.is_dir():
        raise StateError(f"{folder}: no such folder of photos")
    corners_map = _json(folder / "corners.json") if (folder / "corners.json").is_file() else {}
    manifest = _json(folder / "manifest.json") if (folder / "manifest.json").is_file() else {}
    photos = []
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES):
        truth = path.with_suffix(".json")
        if not truth.is_file():
            continue
        state = _json(truth)
        read_state(state)  # a truth the rules refuse would judge the reader wrongly
        corners: Any = None
        if whole_photo:
            # The size as viewed, from the header: a quarter-turned photo shows its sides swapped.
            w, h = viewed_size(path.read_bytes())
            corners = [(0, 0), (w, 0), (w, h), (0, h)]
        elif path.stem in corners_map:
            corners = corners_map[path.stem]
        elif (folder / f"{path.stem}.corners.json").is_file():
            corners = _json(folder / f"{path.stem}.corners.json")["corners_xy"]
        layout = str(manifest.get(path.stem, {}).get("layout", path.stem))
        array = None if corners is None else np.array(corners, dtype=np.float64).reshape(4, 2)
        photos.append(RealPhoto(path.stem, path, state, layout, array))
    if not photos:
        raise StateError(f"{folder}: no NAME.jpg with its NAME.json state")
    return photos


def as_custom_grid(photos: Sequence[RealPhoto], tiles: bool = False) -> list[RealPhoto]:
    """The photos' states as a user-defined grid game's: each cell's label its text before any ``:`` (a
    Kingdomino square's terrain), the labels every state of the folder shows, the k-th worth k points (so
    that a misread cell changes the score); those every state shows on exactly one cell are ``once``, as
    the player who knows the game says (a kingdom's castle). ``tiles``: a game of two labels, ``empty``
    and ``tile`` (any other face), that counts the tiles laid."""
    faces = {p.name: [[str(c).partition(":")[0] for c in row] for row in p.state["cells"]] for p in photos}
    cells = {
        name: [[face if not tiles or face == BARE_LABEL else "tile" for face in row] for row in grid]
        for name, grid in faces.items()
    }
    labels = sorted({label for grid in cells.values() for row in grid for label in row})
    once = [la for la in labels if all(sum(row.count(la) for row in grid) == 1 for grid in cells.values())]
    setup = {"labels": labels, "points": {label: k for k, label in enumerate(labels, start=1)}, "once": once}
    return [
        RealPhoto(
            p.name,
            p.path,
            {"game": custom_grid.GAME, "cells": cells[p.name], "setup": setup},
            p.layout,
            p.corners_xy,
            tuple(tuple(row) for row in faces[p.name]) if tiles else None,
        )
        for p in photos
    ]


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise StateError(f"{path}: {exc}") from None


def board_profile(game: str, state: Mapping[str, Any]) -> BoardProfile:
    """The profile a photo of ``state`` is read with: the game's, or for a custom grid one made from the
    state's labels and grid, the board its squares (corners on the grid's outer corners)."""
    if game != custom_grid.GAME:
        return default_profile(game)
    board = custom_grid.parse_board(state)
    return custom_profile(
        "bench",
        len(board.cells),
        len(board.cells[0]),
        board.spec.labels,
        board.spec.points,
        margin_mm=0.0,
        once=board.spec.once,
    )


def teach(profile: BoardProfile, photos: Sequence[RealPhoto], untaught: str | None = None) -> CellClassifier:
    """A classifier taught from ``photos`` (enrolment; a custom grid's on its cells' described looks), none of
    the cells of face ``untaught`` taught."""
    custom = profile.game == custom_grid.GAME
    base = base_classifier(reader_for(profile).game)
    examples = [
        Example(read_image(str(p.path)), p.state, p.corners_xy, untaught=_cells_of(p, untaught))
        for p in photos
    ]
    enrolment = enrol(profile, base, None, examples)
    return EnrolledClassifier(base, enrolment, reader_for(profile).heads if custom else None)


def _cells_of(photo: RealPhoto, face: str | None) -> frozenset[CellKey]:
    """The cells of ``photo`` that show ``face`` (none for None)."""
    if face is None or photo.faces is None:
        return frozenset()
    return frozenset(
        ("grid", r, c) for r, row in enumerate(photo.faces) for c, shown in enumerate(row) if shown == face
    )


def untaught_faces(photos: Sequence[RealPhoto]) -> list[str]:
    """The faces a fold may leave untaught, in order: every face the photos show but the bare cell."""
    faces = {face for p in photos for row in p.faces or () for face in row}
    return sorted(faces - {BARE_LABEL})


def _folds(
    photos: Sequence[RealPhoto], shows: Mapping[str, set[str]], teach_layouts: int, folds: int, seed: int
) -> list[list[str]]:
    """Per fold, the layouts taught: each fold starts from a layout not yet taught and adds those that show
    the most of what the fold's photos do not show yet (``shows``: per photo, its cells' labels), as a player
    is asked to teach every label; each layout is taught before any is taught twice where it can be."""
    layouts = sorted({p.layout for p in photos})
    if teach_layouts >= len(layouts):
        raise StateError(
            f"--teach {teach_layouts}: the folder holds {len(layouts)} layouts, leave some to read"
        )
    order = [layouts[i] for i in np.random.default_rng(seed).permutation(len(layouts))]
    seen = {
        layout: set[str]().union(*(shows[p.name] for p in photos if p.layout == layout)) for layout in order
    }
    taught: set[str] = set()
    chosen = []
    for f in range(folds):
        fold = [next((la for la in order if la not in taught), order[f % len(order)])]
        while len(fold) < teach_layouts:
            shown = set[str]().union(*(seen[la] for la in fold))
            fold.append(
                min(
                    (la for la in order if la not in fold),
                    key=lambda la: (-len(seen[la] - shown), la in taught, order.index(la)),
                )
            )
        taught.update(fold)
        chosen.append(fold)
    return chosen


def run_real(
    game: str,
    photos: Sequence[RealPhoto],
    teach_layouts: int = 0,
    folds: int = 1,
    seed: int = 0,
    report: Callable[[str], None] | None = None,
    untaught: bool = False,
) -> list[BenchResult]:
    """One result a fold: the photos not taught, read and scored (with the classifier taught, if any).
    ``untaught``: each fold leaves the cells of one face out of teaching (:func:`untaught_faces` in turn),
    and counts those cells apart in the photos read."""
    if not teach_layouts:
        folds = 1
    faces = untaught_faces(photos) if untaught else []
    if untaught and (not teach_layouts or not faces):
        raise StateError("--untaught needs --teach and a custom grid's tiles (--custom-grid --tiles)")
    results = []
    profile = board_profile(game, photos[0].state)
    reader = reader_for(profile)
    shows = {
        p.name: {
            label for rows in reader.cell_labels(profile, p.state).values() for row in rows for label in row
        }
        for p in photos
    }
    for fold, taught in enumerate(
        _folds(photos, shows, teach_layouts, folds, seed) if teach_layouts else [[]]
    ):
        started = time.perf_counter()
        face = faces[fold % len(faces)] if faces else None
        if taught:
            classifier = teach(profile, [p for p in photos if p.layout in taught], face)
        elif profile.game == custom_grid.GAME:
            raise StateError("a custom grid is read once taught: give --teach K (layouts to teach it from)")
        else:
            classifier = load_classifier(reader.game)
        teach_s = time.perf_counter() - started
        read = [p for p in photos if p.layout not in taught]
        label = f"fold {fold + 1}" if teach_layouts else "real"
        result = read_photos(game, profile, classifier, read, label, face)
        result.enroll_s = teach_s if taught else None
        if report:
            taught_text = f"taught from layouts {', '.join(taught)} in {teach_s:.1f} s; " if taught else ""
            if result.untaught is not None:
                face, wrong, cells = result.untaught
                taught_text += f"{face} untaught, {wrong} of its {cells} cells misread; "
            report(f"{label}: {taught_text}{len(read)} photos read")
        results.append(result)
    return results


def read_photos(
    game: str,
    profile: BoardProfile,
    classifier: CellClassifier,
    photos: Sequence[RealPhoto],
    label: str,
    untaught: str | None = None,
) -> BenchResult:
    """``photos`` read with ``classifier`` and scored, counted as the synthetic benchmark counts; the cells of
    face ``untaught`` also apart (:attr:`BenchResult.untaught`)."""
    result = BenchResult(game, (label,), len(photos), timings_ms={"photo_to_score": []}, rendered=False)
    if untaught is not None:
        result.untaught = (untaught, 0, 0)
    for photo in photos:
        _read_one(result, game, profile, classifier, photo)
    result.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def _read_one(
    result: BenchResult, game: str, profile: BoardProfile, classifier: CellClassifier, photo: RealPhoto
) -> None:
    reader = reader_for(profile)
    image = read_image(str(photo.path))
    truth_cells = reader.cell_labels(profile, photo.state)
    result.boards += 1
    started = time.perf_counter()
    try:
        scored = score_image(
            image,
            game,
            _hand(game, photo.state),
            None,
            [profile],
            {reader.game: classifier},
            # Corners given say which way up the board lies; a game with no layout model needs them.
            {},
            corners_xy=photo.corners_xy,
        )
    except (NoBoardError, ValueError):
        scored = []
    assert result.timings_ms is not None
    result.timings_ms["photo_to_score"].append((time.perf_counter() - started) * 1000)
    given = [s for s in scored if s.reading.trusted and s.reading.in_frame]
    if result.untaught is not None:
        face, wrong, cells = result.untaught
        keys = _cells_of(photo, face)
        readings = scored[0].reading.readings if scored else {}
        # An untaught face is read right as its label in the state (a tile), as any cell is judged.
        wrong += sum(
            key not in readings or readings[key]["cell"][0] != truth_cells[key[0]][key[1]][key[2]]
            for key in keys
        )
        result.untaught = (face, wrong, cells + len(keys))
    if not scored:
        tally_missing(result, game, profile, reader, photo.state, given)
        return
    tally_found(result, game, profile, reader, truth_cells, photo.state, scored[0], given)


def summary(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The folds' mean and worst of the headline figures."""
    keys = (
        "cell_error_pct",
        "boards_perfect_pct",
        "scores_exact_pct",
        "wrong_scores_pct",
        "silent_wrong_scores_pct",
    )
    worst = {"cell_error_pct": max, "wrong_scores_pct": max, "silent_wrong_scores_pct": max}
    heads = sorted({h for r in results for h in r["head_error_found_boards_pct"]})
    untaught = [r["untaught"]["cell_error_pct"] for r in results if "untaught" in r]
    return {
        **(
            {"untaught_cell_error_pct": {"mean": round(float(np.mean(untaught)), 3), "worst": max(untaught)}}
            if untaught
            else {}
        ),
        "folds": len(results),
        "mean": {k: round(float(np.mean([r[k] for r in results])), 3) for k in keys},
        "worst": {k: worst.get(k, min)(r[k] for r in results) for k in keys},
        "head_error_mean_pct": {
            h: round(float(np.mean([r["head_error_found_boards_pct"][h]["all"] for r in results])), 3)
            for h in heads
        },
        "head_error_worst_pct": {
            h: max(r["head_error_found_boards_pct"][h]["all"] for r in results) for h in heads
        },
    }


def format_summary(summary_: Mapping[str, Any]) -> str:
    mean, worst = summary_["mean"], summary_["worst"]
    lines = [f"Over {summary_['folds']} folds: mean / worst"]
    for key, name in (
        ("cell_error_pct", "cell error %"),
        ("boards_perfect_pct", "boards perfect %"),
        ("scores_exact_pct", "scores exact %"),
        ("wrong_scores_pct", "wrong scores %"),
        ("silent_wrong_scores_pct", "silent wrong %"),
    ):
        lines.append(f"  {name:<18} {mean[key]:>8.3f} / {worst[key]:.3f}")
    for head, value in summary_["head_error_mean_pct"].items():
        name = f"{head} head error %"
        lines.append(f"  {name:<18} {value:>8.3f} / {summary_['head_error_worst_pct'][head]:.3f}")
    if "untaught_cell_error_pct" in summary_:
        untaught = summary_["untaught_cell_error_pct"]
        name = "untaught face err %"
        lines.append(f"  {name:<18} {untaught['mean']:>8.3f} / {untaught['worst']:.3f}")
    return "\n".join(lines)
