"""A profile's teaching photos: every photo it has learnt from, kept so that it can be taught again whole.

``profiles/NAME/teaching/`` holds each photo (``NNNN.jpg`` or ``.png``, as it came) beside ``NNNN.json``:
the board's true state and, when known, the corners it lies at. A photo joins when a profile is enrolled
from it, or when a player corrects a result read with the profile and agrees that it may teach it; the
profile is then taught again from all of them. ``report.json`` says how well each photo is read by the
profile taught without it. Every file is written atomically; a photo whose state was not written yet (a
power cut between the two) is not a teaching photo.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.statedir import StateDir
from calibration.store import read_json, read_versioned, write_json_atomic
from vision.image_io import without_personal_metadata

FOLDER = "teaching"
REPORT_FILE = "report.json"
REPORT_KIND = "teaching-report"
REPORT_VERSION = 1
PHOTO_SUFFIXES = (".jpg", ".png")
_ID = re.compile(r"\d{4,}")


@dataclass(frozen=True)
class TeachingPhoto:
    id: str
    photo: Path
    state: dict[str, Any]
    corners_xy: NDArray[np.float64] | None
    digest: str | None  # the photo's SHA-256


@dataclass(frozen=True)
class LeftOut:
    """How a teaching photo reads when the profile is taught from the others: its cells, and those wrong."""

    photo: str
    cells: int
    wrong: int

    def to_json(self) -> dict[str, Any]:
        return {"photo": self.photo, "cells": self.cells, "wrong": self.wrong}


@dataclass(frozen=True)
class TeachingReport:
    photos: int
    left_out: tuple[LeftOut, ...]  # empty with a single photo: nothing is left to teach from

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": REPORT_KIND,
            "version": REPORT_VERSION,
            "photos": self.photos,
            "left_out": [x.to_json() for x in self.left_out],
        }


def folder(state: StateDir, profile: str) -> Path:
    return state.profile(profile) / FOLDER


def photos(state: StateDir, profile: str) -> list[TeachingPhoto]:
    """The profile's teaching photos, oldest first; a state file that does not read names itself."""
    where = folder(state, profile)
    if not where.is_dir():
        return []
    found = []
    for path in sorted(where.glob("*.json")):
        if not _ID.fullmatch(path.stem):
            continue
        photo = next((p for p in map(path.with_suffix, PHOTO_SUFFIXES) if p.is_file()), None)
        if photo is None:
            continue
        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("state"), dict):
            raise ValueError(f'{path}: expected {{"state": {{...}}, "corners_xy": ...}}')
        corners = data.get("corners_xy")
        array = None if corners is None else np.asarray(corners, np.float64).reshape(4, 2)
        digest = data.get("sha256")
        found.append(TeachingPhoto(path.stem, photo, data["state"], array, str(digest) if digest else None))
    return found


def add(
    state: StateDir,
    profile: str,
    photo: Path,
    truth: Mapping[str, Any],
    corners_xy: NDArray[np.float64] | Sequence[Sequence[float]] | None,
) -> str:
    """Keep ``photo`` with its board's true state as a teaching photo of ``profile``; its id. The same photo
    with the same state and corners taught again is kept once (its first id). The copy kept holds only the
    picture, not what the photo's metadata says of who took it, where and when."""
    kept_bytes = without_personal_metadata(photo.read_bytes())
    digest = hashlib.sha256(kept_bytes).hexdigest()
    corners = None if corners_xy is None else np.asarray(corners_xy, np.float64).tolist()
    for kept in photos(state, profile):
        same_place = (None if kept.corners_xy is None else kept.corners_xy.tolist()) == corners
        if kept.digest == digest and kept.state == dict(truth) and same_place:
            return kept.id
    suffix = photo.suffix.lower()
    if suffix not in PHOTO_SUFFIXES:
        suffix = ".jpg" if suffix == ".jpeg" else ".png"
    where = folder(state, profile)
    where.mkdir(parents=True, exist_ok=True)
    taken = [int(p.stem) for p in where.iterdir() if _ID.fullmatch(p.stem)]
    ident = f"{max(taken, default=0) + 1:04d}"
    tmp = where / f".{ident}{suffix}.tmp"
    tmp.write_bytes(kept_bytes)
    os.replace(tmp, where / f"{ident}{suffix}")
    # The state last: until it is written, the photo is not a teaching photo.
    write_json_atomic(
        where / f"{ident}.json", {"state": dict(truth), "corners_xy": corners, "sha256": digest}
    )
    return ident


def remove(state: StateDir, profile: str, ident: str) -> None:
    """Forget teaching photo ``ident``: its state first, so a cut between the two leaves no teaching photo."""
    where = folder(state, profile)
    (where / f"{ident}.json").unlink(missing_ok=True)
    for suffix in PHOTO_SUFFIXES:
        (where / f"{ident}{suffix}").unlink(missing_ok=True)


def save_report(state: StateDir, profile: str, report: TeachingReport) -> None:
    write_json_atomic(state.profile(profile) / REPORT_FILE, report.to_json())


def load_report(state: StateDir, profile: str) -> TeachingReport | None:
    """The profile's last report; None when it has none."""
    path = state.profile(profile) / REPORT_FILE
    if not path.is_file():
        return None
    data = read_versioned(path, REPORT_KIND, (REPORT_VERSION,))
    try:
        left_out = tuple(LeftOut(str(x["photo"]), int(x["cells"]), int(x["wrong"])) for x in data["left_out"])
        return TeachingReport(int(data["photos"]), left_out)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: bad or missing field ({exc})") from None
