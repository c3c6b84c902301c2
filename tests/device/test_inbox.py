"""The enrolment inbox (``device.inbox``): corrections wait for the owner, bounded in count and bytes with the
oldest dropped first and noted, the same photo kept once, and taken out when taught from or discarded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import cv2
import numpy as np

from calibration.statedir import StateDir
from device.inbox import INBOX_DIR, Inbox

T0 = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
STATE = {"game": "alices-garden", "rows": ["RG", "BY"]}


def _photo(folder: Path, name: str, seed: int, size: int = 64) -> Path:
    """A JPEG of noise: every seed another picture, of about ``size`` squared bytes."""
    pixels = np.random.default_rng(seed).integers(0, 256, (size, size, 3), dtype=np.uint8)
    path = folder / name
    path.write_bytes(cv2.imencode(".jpg", pixels)[1].tobytes())
    return path


def test_a_correction_waits_with_its_boards_and_leaves_when_taken_out(tmp_path: Path) -> None:
    inbox = Inbox(StateDir(tmp_path))
    ids = inbox.save(_photo(tmp_path, "a.jpg", 1), T0, 7, [STATE, STATE], "kitchen")
    assert ids == ["20261128T200000Z-game7-kitchen-board1", "20261128T200000Z-game7-kitchen-board2"]
    items = inbox.items()
    assert [(i.id, i.game_id, i.board, i.profile) for i in items] == [
        (ids[0], 7, 0, "kitchen"),
        (ids[1], 7, 1, "kitchen"),
    ]
    assert inbox.size()[0] == 1
    # One board taught from: the photo stays for the other; both: nothing is left.
    inbox.remove(items[:1])
    assert [i.id for i in inbox.items()] == [ids[1]] and inbox.size()[0] == 1
    inbox.remove(inbox.items())
    assert inbox.items() == [] and list((tmp_path / INBOX_DIR).iterdir()) == []


def test_the_same_photo_corrected_again_is_kept_once_with_the_newer_correction(tmp_path: Path) -> None:
    inbox = Inbox(StateDir(tmp_path))
    photo = _photo(tmp_path, "a.jpg", 1)
    inbox.save(photo, T0, 7, [STATE], None)
    again = {**STATE, "rows": ["GG", "BY"]}
    (newer,) = inbox.save(photo, T0, 8, [again], None)
    (item,) = inbox.items()
    assert item.id == newer and item.game_id == 8
    assert inbox.size()[0] == 1


def test_past_its_bounds_the_oldest_photo_goes_first_and_is_noted(tmp_path: Path) -> None:
    inbox = Inbox(StateDir(tmp_path), max_photos=3)
    for k in range(5):
        inbox.save(_photo(tmp_path, f"{k}.jpg", k), T0 + timedelta(minutes=k), k + 1, [STATE], None)
    assert [i.game_id for i in inbox.items()] == [3, 4, 5]
    notes = inbox.dropped()
    assert [n["game_id"] for n in notes] == [1, 2]
    assert all("at most 3 photos" in n["why"] for n in notes)
    # By bytes too: a large photo pushes out the oldest, until the rest fit.
    x, y, big = (
        _photo(tmp_path, f"{name}.jpg", k, size)
        for name, k, size in (("x", 11, 64), ("y", 12, 64), ("big", 9, 256))
    )
    small = Inbox(
        StateDir(tmp_path / "small"), max_photos=10, max_bytes=y.stat().st_size + big.stat().st_size
    )
    for k, photo in enumerate((x, y, big)):
        small.save(photo, T0 + timedelta(minutes=k), k + 1, [STATE], None)
    assert [i.game_id for i in small.items()] == [2, 3]
    assert small.size() == (2, small.max_bytes)
    assert [n["game_id"] for n in small.dropped()] == [1]
