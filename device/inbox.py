"""The enrolment inbox: corrected photos waiting for the table's owner to teach a profile from them.

A player who corrects a result may agree that its photo teaches the scorer. From a paired device (the
owner's) the correction teaches the profile the photo was read with at once (score.py). From anyone else it
waits here: a stranger's corrections must not retrain the owner's profile, so the owner reviews them on the
calibration page and either teaches a profile from them (``enroll``, the page's Enrol) or discards them.

``enrolment-inbox/`` holds each photo (``WHEN-gameID[-PROFILE].jpg|png``, named so that ``garden-scorer
enroll --profile NAME PHOTO STATE.json`` pairs them) beside each of its boards' corrected state
(``...-boardN.json``). It is bounded: at most :data:`MAX_PHOTOS` photos and :data:`MAX_BYTES` bytes; a new
one past either drops the oldest, noted in ``dropped.json`` for the page to say. The same photo corrected
again replaces its earlier correction rather than joining twice. Photos taught from or discarded leave the
inbox (a profile keeps its own copy of every photo it learnt from).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from calibration.statedir import StateDir, check_name
from calibration.store import StoreError, read_versioned, write_json_atomic

log = logging.getLogger(__name__)

INBOX_DIR = "enrolment-inbox"
DROPPED_FILE = "dropped.json"
DROPPED_KIND = "inbox-dropped"
DROPPED_VERSION = 1
# A Pi's card holds a few dozen phone photos (3-15 MB each) without noticing; the owner reviews them soon.
MAX_PHOTOS = 40
MAX_BYTES = 250 * 1024 * 1024
KEEP_NOTES = 20
TIME_FORMAT = "%Y%m%dT%H%M%SZ"
# The name (without .json) :meth:`Inbox.save` gives a board's state: the photo's name, then "-boardN".
ITEM = (
    r"(?P<photo>(?P<when>\d{8}T\d{6}Z)-game(?P<game_id>\d+)(?:-(?P<profile>[a-z0-9][a-z0-9_-]*))?)"
    r"-board(?P<board>\d+)"
)
_PHOTO_SUFFIXES = (".jpg", ".png")


@dataclass(frozen=True)
class InboxItem:
    """One board's corrected state in the inbox and the photo it was read from."""

    id: str
    photo: Path
    state: Path
    played_at: datetime
    game_id: int
    board: int
    """The board's index in the result, from 0."""
    profile: str | None


class Inbox:
    """The inbox folder of a state folder (see the module doc)."""

    def __init__(self, state: StateDir, max_photos: int = MAX_PHOTOS, max_bytes: int = MAX_BYTES) -> None:
        self.root = state.root / INBOX_DIR
        self.max_photos = max_photos
        self.max_bytes = max_bytes

    def save(
        self,
        photo: Path,
        played_at: datetime,
        game_id: int,
        states: Sequence[Mapping[str, Any]],
        profile: str | None,
    ) -> list[str]:
        """Keep ``photo`` and each board's corrected state (``states``, as ``enroll`` reads them) for the
        owner's review; the ids of the items it adds."""
        stem = f"{played_at.astimezone(UTC).strftime(TIME_FORMAT)}-game{game_id}"
        if profile is not None:
            stem += f"-{check_name(profile)}"
        self.root.mkdir(parents=True, exist_ok=True)
        # Corrected again: the newer correction stands. Sizes first, so that few photos are read whole.
        size, digest = photo.stat().st_size, _digest(photo)
        for kept in self._photos():
            if kept.stat().st_size == size and _digest(kept) == digest:
                self._remove([item for item in self.items() if item.photo == kept])
        tmp = self.root / f".{stem}{photo.suffix}.tmp"
        shutil.copyfile(photo, tmp)
        os.replace(tmp, self.root / f"{stem}{photo.suffix}")
        ids = []
        for i, board in enumerate(states):
            write_json_atomic(self.root / f"{stem}-board{i + 1}.json", dict(board))
            ids.append(f"{stem}-board{i + 1}")
        self._bound(keep=stem)
        return ids

    def items(self) -> list[InboxItem]:
        """The states that still have their photo, oldest first."""
        if not self.root.is_dir():
            return []
        items = []
        for path in sorted(self.root.glob("*.json")):
            match = re.fullmatch(ITEM, path.stem)
            if match is None:
                continue
            photo = self._photo(match["photo"])
            if photo is not None:
                when = datetime.strptime(match["when"], TIME_FORMAT).replace(tzinfo=UTC)
                board = int(match["board"]) - 1
                items.append(
                    InboxItem(path.stem, photo, path, when, int(match["game_id"]), board, match["profile"])
                )
        return items

    def remove(self, items: Sequence[InboxItem]) -> None:
        """Take ``items`` out (taught from, or discarded): each state, and its photo once no other state of
        it is left."""
        self._remove(items)

    def dropped(self) -> list[dict[str, Any]]:
        """The notes of photos dropped to make room, newest last."""
        path = self.root / DROPPED_FILE
        if not path.is_file():
            return []
        try:
            notes = read_versioned(path, DROPPED_KIND, (DROPPED_VERSION,))["notes"]
        except (StoreError, KeyError) as exc:
            log.warning("%s: not read (%s)", path, exc)
            return []
        return [n for n in notes if isinstance(n, dict)]

    def size(self) -> tuple[int, int]:
        """The photos waiting and their bytes."""
        photos = self._photos()
        return len(photos), sum(p.stat().st_size for p in photos)

    def _photo(self, stem: str) -> Path | None:
        paths = (self.root / f"{stem}{suffix}" for suffix in _PHOTO_SUFFIXES)
        return next((path for path in paths if path.is_file()), None)

    def _photos(self) -> list[Path]:
        """The photos with a state, oldest first."""
        return list(dict.fromkeys(item.photo for item in self.items()))

    def _remove(self, items: Sequence[InboxItem]) -> None:
        for item in items:
            item.state.unlink(missing_ok=True)
        waiting = {item.photo for item in self.items()}
        for photo in {item.photo for item in items} - waiting:
            photo.unlink(missing_ok=True)

    def _bound(self, keep: str) -> None:
        """Drop the oldest photos (never ``keep``'s) while the inbox is over a bound, noting each."""
        photos = self._photos()
        total = sum(p.stat().st_size for p in photos)
        notes = self.dropped()
        for photo in photos:
            if len(photos) <= self.max_photos and total <= self.max_bytes:
                break
            if photo.stem == keep:
                continue
            gone = [item for item in self.items() if item.photo == photo]
            size = photo.stat().st_size
            self._remove(gone)
            photos.remove(photo)
            total -= size
            match = re.fullmatch(ITEM, gone[0].id) if gone else None
            notes.append(
                {
                    "photo": photo.name,
                    "game_id": int(match["game_id"]) if match else None,
                    "dropped_at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "why": f"the inbox holds at most {self.max_photos} photos and {self.max_bytes} bytes",
                }
            )
            log.warning("enrolment inbox full: dropped %s, the oldest", photo.name)
        if len(notes) != len(self.dropped()):
            write_json_atomic(
                self.root / DROPPED_FILE,
                {"kind": DROPPED_KIND, "version": DROPPED_VERSION, "notes": notes[-KEEP_NOTES:]},
            )


def _digest(path: Path) -> str:
    with path.open("rb") as data:
        return hashlib.file_digest(data, "sha256").hexdigest()
