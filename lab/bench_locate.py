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

import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from device.photo import decode_photo, load_segmenter, score_image, shipped_art
from examples import EXAMPLES_DIR
from lab.synth.camera import PHONE_WH
from scoring.core import ScoreBreakdown, StateError
from scoring.registry import get_game
from vision.image_io import read_image
from vision.pipeline import NoBoardError, locate_boards
from vision.profile import default_profile
from vision.read.classify import CellClassifier

FOUND_WITHIN = 0.03  # of the board's size: the bar for a board found
PHONE_QUALITY = 92
TIMED = 3  # each photo scored this many times, its median kept (one core's timings jitter)
# The drawn photo each run is measured against: a printed board, found by its mask model.
DRAWN = ("alices-garden", EXAMPLES_DIR / "photos" / "alices-garden.jpg")


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


def emptied(
    image: NDArray[np.uint8], corners: NDArray[np.float64], cells: int, count: int, seed: int
) -> NDArray[np.uint8]:
    """The photo with ``count`` squares of the grid's outer ring (``cells`` a side; ``corners`` its outline)
    taken away: each painted over with the table just beyond it, warped into its place, as a square left
    empty shows the table. Every side keeps a square, so the frame stays where the outline marks it."""
    rng = np.random.default_rng(seed)
    to_photo = cv2.getPerspectiveTransform(
        np.array([[0, 0], [cells, 0], [cells, cells], [0, cells]], np.float32), corners.astype(np.float32)
    )
    last = cells - 1
    ring = [(r, c) for r in range(cells) for c in range(cells) if r in (0, last) or c in (0, last)]
    taken: list[tuple[int, int]] = []
    for r, c in (ring[i] for i in rng.permutation(len(ring))):
        rows = [q for q in ring if q not in taken and q != (r, c)]
        sides = (
            any(q[0] == 0 for q in rows),
            any(q[0] == last for q in rows),
            any(q[1] == 0 for q in rows),
            any(q[1] == last for q in rows),
        )
        if len(taken) == count:
            break
        if all(sides):
            taken.append((r, c))
    out = image.copy()
    h, w = image.shape[:2]
    for r, c in taken:
        # The table just outside: across the side the square lies on (a corner's, diagonally).
        dr = -1 if r == 0 else 1 if r == last else 0
        dc = -1 if c == 0 else 1 if c == last else 0
        square = np.array([[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]], np.float32)
        place = cv2.perspectiveTransform(square[None], to_photo)[0]
        beyond = cv2.perspectiveTransform((square + np.array([dc, dr], np.float32))[None], to_photo)[0]
        warp = cv2.getPerspectiveTransform(beyond, place)
        table = cv2.warpPerspective(image, warp, (w, h), borderMode=cv2.BORDER_REFLECT)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, np.round(place).astype(np.int32), 1)
        out[mask > 0] = table[mask > 0]
    return out


def run_locate(
    game: str,
    photos: Sequence[Outlined],
    report: Callable[[str], None],
    models: Mapping[str, Any] | None = None,
    empty: int = 0,
) -> dict[str, Any]:
    """``models``: a taught profile's (:func:`device.photo.profile_models`): its board, its grid's colours
    and its picture; else the game's shipped profile and colours. ``empty``: each photo read with that many
    squares of its grid's outer ring taken away (:func:`emptied`), as kingdoms with squares left empty."""
    models = models or {}
    profiles = models.get("profiles") or [default_profile(game)]
    art = models.get("art") or shipped_art(profiles)
    pictures = models.get("pictures")
    segmenter = load_segmenter()
    rows: list[dict[str, Any]] = []
    errors: list[float] = []
    times: list[float] = []
    for number, photo in enumerate(photos):
        image = read_image(str(photo.path))
        if empty:
            region = profiles[0].regions[0]
            image = emptied(image, photo.corners_xy, region.cols, empty, number)
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


def as_phone_photo(image: NDArray[np.uint8]) -> bytes:
    """The photo as a 12 MP phone would send it: :data:`PHONE_WH`, a JPEG."""
    big = cv2.resize(image, PHONE_WH, interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, PHONE_QUALITY])
    if not ok:
        raise StateError("could not encode a phone-sized photo")
    return bytes(data)


def _photo_to_score_ms(data: bytes, game: str) -> float:
    """The median of :data:`TIMED` runs of an upload's path: decode the bytes, find, read, score."""
    times = []
    for _ in range(TIMED):
        started = time.perf_counter()
        # A photo whose board is not found costs its search all the same.
        with contextlib.suppress(NoBoardError):
            score_image(decode_photo(data), game)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run_phone_speed(game: str, photos: Sequence[Outlined], report: Callable[[str], None]) -> dict[str, Any]:
    """Photo -> score of each photo sent as a 12 MP phone JPEG (:func:`as_phone_photo`), on one core of this
    machine, and of the drawn :data:`DRAWN` photo at the same size in the same run (their ratio)."""
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})
    try:
        drawn_game, drawn_path = DRAWN
        drawn = as_phone_photo(read_image(str(drawn_path)))
        _photo_to_score_ms(drawn, drawn_game)  # models loaded, caches warm: not a player's wait
        drawn_ms = _photo_to_score_ms(drawn, drawn_game)
        report(f"{drawn_path.name} (drawn {drawn_game}): {drawn_ms:.0f} ms")
        rows: list[dict[str, Any]] = []
        for photo in photos:
            ms = _photo_to_score_ms(as_phone_photo(read_image(str(photo.path))), game)
            rows.append({"photo": photo.name, "ms": ms})
            report(f"{photo.name}: {ms:.0f} ms")
    finally:
        os.sched_setaffinity(0, cores)
    median = statistics.median(r["ms"] for r in rows)
    return {
        "game": game,
        "photo_wh": list(PHONE_WH),
        "rows": rows,
        "median_ms": median,
        "worst_ms": max(r["ms"] for r in rows),
        "drawn": {"game": drawn_game, "photo": drawn_path.name, "ms": drawn_ms},
        "ratio_to_drawn": median / drawn_ms,
    }


def format_phone_speed(result: dict[str, Any]) -> str:
    w, h = result["photo_wh"]
    drawn = result["drawn"]
    lines = ["| photo | photo -> score, ms |", "|---|---|"]
    lines += [f"| {r['photo']} | {r['ms']:.0f} |" for r in result["rows"]]
    lines += [
        f"| {drawn['photo']} (drawn {drawn['game']}) | {drawn['ms']:.0f} |",
        "",
        f"{result['game']}: a {w} x {h} phone JPEG, photo -> score on one core: {result['median_ms']:.0f} ms "
        f"median, {result['worst_ms']:.0f} ms worst; {result['ratio_to_drawn']:.2f} times the drawn "
        f"{drawn['game']} photo's {drawn['ms']:.0f} ms in the same run",
    ]
    return "\n".join(lines)


def load_truth(path: Path, photos: Sequence[Outlined]) -> dict[str, Any]:
    """A truth file's photos (``lab/truth/``: per photo its board's ``cells``, the ``game`` it was taken in,
    the ``unsure`` squares), each of ``photos`` in it."""
    try:
        truth: dict[str, Any] = json.loads(path.read_text())["photos"]
    except (OSError, ValueError, KeyError) as exc:
        raise StateError(f"{path}: not a truth file of photos' cells ({exc})") from None
    missing = [p.name for p in photos if p.name not in truth]
    if missing:
        raise StateError(f"{path}: no cells for {', '.join(missing)}")
    return truth


def _cells_wrong(
    read: Sequence[Sequence[str]], true: Sequence[Sequence[str]], unsure: set[tuple[int, int]]
) -> int:
    """Squares read otherwise than the truth, the kingdom turned as it reads best (it has no up), the
    squares nobody can see left out; a board of another size counts every square wrong."""
    truth = np.array(true, dtype=object)
    board = np.array(read, dtype=object)
    if board.shape != truth.shape:
        return truth.size
    sure = np.ones(truth.shape, bool)
    for r, c in unsure:
        sure[r, c] = False
    return min(int(((np.rot90(board, k) != truth) & sure).sum()) for k in range(4))


def run_scores(
    game: str,
    photos: Sequence[Outlined],
    truth: Mapping[str, Any],
    report: Callable[[str], None],
    classifiers: Mapping[str, CellClassifier] | None = None,
) -> dict[str, Any]:
    """Each photo scored as a player's would be, no corners given: the board read where the outline is
    (found), its cells against the truth's, its score against the truth's (exact; wrong and silent: given
    with no flag). Per ``game`` of the truth (the photos' games: one table, one time) and in all.
    ``classifiers``: models to read with instead of the shipped ones (a fold's)."""
    rules = get_game(game)
    rows = []
    for photo in photos:
        true = truth[photo.name]
        unsure = {(int(r), int(c)) for r, c in true.get("unsure", [])}
        scored = rules.score(rules.parse({"game": game, "cells": true["cells"]}))
        if not isinstance(scored, ScoreBreakdown):
            raise StateError(f"{game} scores a table: --truth reads one board a photo")
        true_total = scored.total
        try:
            boards = score_image(read_image(str(photo.path)), game, classifiers=classifiers)
        except NoBoardError:
            boards = []
        errors = [corner_error(b.reading.corners_xy, photo.corners_xy) for b in boards]
        row: dict[str, Any] = {"photo": photo.name, "game": true["game"], "found": False, "cells_wrong": None}
        if errors and min(errors) <= FOUND_WITHIN:
            board = boards[int(np.argmin(errors))]
            total = board.breakdown.total if board.breakdown is not None else None
            row.update(
                found=True,
                cells_wrong=_cells_wrong(board.state["cells"], true["cells"], unsure),
                read=board.state["cells"],
                total=total,
                true_total=true_total,
                exact=total == true_total,
                wrong=total is not None and total != true_total,
                silent=total is not None and total != true_total and not board.flags,
                flags=list(board.flags),
            )
        rows.append(row)
        report(
            f"{photo.name}: "
            + (
                f"{row['cells_wrong']} cells wrong, scored {row['total']} (truth {true_total})"
                if row["found"]
                else "kingdom not found"
            )
        )

    return tallied(game, rows)


def tallied(game: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """:func:`run_scores`' rows counted per game of the truth and in all."""

    def tally(part: Sequence[dict[str, Any]]) -> dict[str, Any]:
        found = [r for r in part if r["found"]]
        return {
            "photos": len(part),
            "found": len(found),
            "cells": 25 * len(found),
            "cells_wrong": sum(r["cells_wrong"] for r in found),
            "exact": sum(bool(r.get("exact")) for r in part),
            "wrong": sum(bool(r.get("wrong")) for r in part),
            "silent": sum(bool(r.get("silent")) for r in part),
        }

    games = sorted({r["game"] for r in rows})
    return {
        "game": game,
        "by_game": {g: tally([r for r in rows if r["game"] == g]) for g in games},
        "all": tally(rows),
        "rows": list(rows),
    }


def format_scores(result: dict[str, Any]) -> str:
    lines = [
        "| photos of | photos | found | cells wrong | scores exact | wrong | wrong, no flag |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, t in [*result["by_game"].items(), ("all", result["all"])]:
        share = f"{t['cells_wrong'] / t['cells']:.1%}" if t["cells"] else "-"
        lines.append(
            f"| {name} | {t['photos']} | {t['found']} | {t['cells_wrong']} of {t['cells']} ({share}) | "
            f"{t['exact']} | {t['wrong']} | {t['silent']} |"
        )
    return "\n".join(lines)


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
