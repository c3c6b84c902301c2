"""The results' folders: per result the app keeps a folder ``web-results/GAME_ID/`` in the state dir.

It holds the photo as uploaded (for an enrolment the player consents to later), ``also-K`` for each more
photo of its board read with it (so that the board can be read again with one more), ``board-I.png`` per board
(``vision.debug.draw_reading``: each cell outlined, doubtful cells in orange; the page says what each holds in
its own text), ``looks-I.npy`` per board (its cells' looks, :mod:`vision.read.alike`, to offer the cells that
look like one the player set right) and ``result.json`` (the hand-entry fields and profile used, each board's
state as read, where its cells lie in the picture, as fractions of the board, and whose model its looks
are of). The pictures are drawn at upload because re-reading the photo later costs the Pi's CPU and could
read differently once the board is enrolled. The folders share ``KEEP_BYTES`` of the card, the oldest
results' going first to make room, so photos never fill it: an older result still shows its breakdown from
the history, without picture, cell picker or photo.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.statedir import StateDir
from calibration.store import write_json_atomic
from device.photo import ScoredBoard
from vision.debug import draw_reading
from vision.geometry import cell_rect_mm
from vision.pipeline import BoardReading
from vision.read.alike import alike, looks
from vision.readers import reader_for

log = logging.getLogger(__name__)

RESULTS_DIR = "web-results"
META_FILE = "result.json"
_ALSO_FILE = re.compile(r"also-(\d+)\.(?:jpg|png)")
# Per board I: its picture, its cells' looks.
_BOARD_FILES = ("board-{}.png", "looks-{}.npy")
# What ResultStore.save names a result's folder while it writes it.
_TEMP_FOLDER = re.compile(r"\.\d+\..+")
# A result's folder takes a few MB (its photos, 20 MB at most, and a picture of each board): an evening's
# games, a few dozen results at the most, take a fraction of this; months of them on a Pi's card, no more.
KEEP_BYTES = 1024**3


def _cells(reading: BoardReading) -> list[dict[str, Any]]:
    """Each read cell's box as fractions of the board, which is all its picture shows."""
    profile = reading.rectified.frame.profile
    w, h = profile.size_mm
    out = []
    for region, r, c in reading.predictions.keys:
        x0, y0, x1, y1 = cell_rect_mm(profile.region(region), r, c)
        box = [round(x0 / w, 5), round(y0 / h, 5), round(x1 / w, 5), round(y1 / h, 5)]
        out.append({"key": [region, r, c], "box": box})
    return out


class ResultStore:
    """The per-result folders ``web-results/GAME_ID/`` (see the module doc)."""

    def __init__(self, state: StateDir, keep_bytes: int = KEEP_BYTES) -> None:
        self.root = state.root / RESULTS_DIR
        self.keep_bytes = keep_bytes
        self.sweep()

    def sweep(self) -> list[Path]:
        """Removes the folders that saves cut short (a kill, a power cut) left half written; returns them.

        Run as the app starts, when no save of its own is under way: only the app writes here, and a save
        writes its folder as ``.GAME_ID.RANDOM`` and renames it whole into place, so such a folder is never
        a result."""
        if not self.root.is_dir():
            return []
        swept = []
        for path in self.root.iterdir():
            if _TEMP_FOLDER.fullmatch(path.name) and path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
                log.warning("removed %s, a result's folder left half written (power cut or kill)", path)
                swept.append(path)
        return swept

    def folder(self, game_id: int) -> Path:
        return self.root / str(int(game_id))

    def save(
        self,
        game_id: int,
        photo: bytes,
        boards: Sequence[ScoredBoard],
        hand: Mapping[str, Any],
        profile: str | None,
        also: Sequence[bytes] = (),
    ) -> None:
        # Not fsynced: the score itself is safe in the history, and a lost picture only costs the cell view.
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{game_id}.", dir=self.root))
        try:
            (tmp / f"photo{_suffix(photo)}").write_bytes(photo)
            for k, more in enumerate(also, 1):
                (tmp / f"also-{k}{_suffix(more)}").write_bytes(more)
            for i, board in enumerate(boards):
                ok, png = cv2.imencode(".png", draw_reading(board.reading, captions=False))
                if not ok:
                    raise OSError(f"could not encode the picture of board {i + 1}")
                (tmp / f"board-{i}.png").write_bytes(png.tobytes())
                np.save(tmp / f"looks-{i}.npy", looks(board.reading.predictions.embedding))
            meta = {
                "profile": profile,
                "hand": dict(hand),
                "boards": [
                    {
                        "read_state": dict(b.state),
                        "cells": _cells(b.reading),
                        # Whose model's embedding its looks are: only one model's looks compare.
                        "reader": reader_for(b.reading.rectified.frame.profile).game,
                    }
                    for b in boards
                ],
            }
            (tmp / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
            # The folder appears whole or not at all.
            os.replace(tmp, self.folder(game_id))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._prune()

    def meta(self, game_id: int) -> dict[str, Any]:
        try:
            data = json.loads((self.folder(game_id) / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def picture(self, game_id: int, index: int) -> Path | None:
        path = self.folder(game_id) / f"board-{int(index)}.png"
        return path if path.is_file() else None

    def alike(self, game_id: int, index: int, cell: int) -> list[tuple[int, int]] | None:
        """(board, cell) of the result's cells that look like cell ``cell`` of board ``index`` (itself left
        out), on the boards its model read; None when its looks are not kept (an older result, or no such)."""
        boards = self.meta(game_id).get("boards")
        if not isinstance(boards, list) or not 0 <= index < len(boards):
            return None
        reader = boards[index].get("reader")
        kept = {}
        for i, board in enumerate(boards):
            path = self.folder(game_id) / f"looks-{i}.npy"
            if reader is not None and board.get("reader") == reader and path.is_file():
                kept[i] = np.load(path, allow_pickle=False)
        if index not in kept or not 0 <= cell < len(kept[index]):
            return None
        order = list(kept)
        found = alike(kept[index][cell], [kept[i] for i in order])
        return [(order[b], k) for b, k in found if (order[b], k) != (index, cell)]

    def photo(self, game_id: int) -> Path | None:
        return next((p for p in self.folder(game_id).glob("photo.*") if p.is_file()), None)

    def photos(self, game_id: int) -> list[Path]:
        """The photos the result was read from, the first first; none once its folder is gone."""
        first = self.photo(game_id)
        if first is None:
            return []
        numbered = []
        for path in self.folder(game_id).iterdir():
            match = _ALSO_FILE.fullmatch(path.name)
            if match and path.is_file():
                numbered.append((int(match[1]), path))
        return [first, *(path for _, path in sorted(numbered))]

    def move(self, old: int, new: int) -> None:
        if self.folder(old).is_dir():
            os.replace(self.folder(old), self.folder(new))

    def keep_boards(self, game_id: int, kept: Sequence[int]) -> None:
        """Only the boards ``kept`` (their indices, in order), numbered again from 0: the others were left
        out of the result as no board."""
        folder = self.folder(game_id)
        meta = self.meta(game_id)
        boards = meta.get("boards")
        if not folder.is_dir() or not isinstance(boards, list) or list(kept) == list(range(len(boards))):
            return
        for name in _BOARD_FILES:
            files = [folder / name.format(i) for i in range(len(boards))]
            for path in files:
                if path.is_file():
                    path.replace(path.with_name(f".{path.name}"))
            for new, old in enumerate(kept):
                hidden = files[old].with_name(f".{files[old].name}")
                if hidden.is_file():
                    hidden.replace(folder / name.format(new))
            for path in folder.glob("." + name.format("*")):
                path.unlink()
        meta["boards"] = [boards[i] for i in kept]
        write_json_atomic(folder / META_FILE, meta)

    def delete(self, game_id: int) -> None:
        shutil.rmtree(self.folder(game_id), ignore_errors=True)

    def _prune(self) -> None:
        """Removes the oldest results' folders, so that the newer fit in ``keep_bytes``; the newest stays."""
        newest_first = sorted((int(p.name) for p in self.root.iterdir() if p.name.isdigit()), reverse=True)
        used = 0
        for n, game_id in enumerate(newest_first):
            used += _folder_bytes(self.folder(game_id))
            if n and used > self.keep_bytes:
                self.delete(game_id)


def _folder_bytes(folder: Path) -> int:
    """What a result's folder takes on the card; 0 once it is gone (deleted meanwhile)."""
    try:
        return sum(path.stat().st_size for path in folder.iterdir())
    except FileNotFoundError:
        return 0


def _suffix(photo: bytes) -> str:
    return ".png" if photo.startswith(b"\x89PNG") else ".jpg"
