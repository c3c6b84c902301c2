"""Reading state files from disk: the only place a state's bytes become decoded JSON."""

from __future__ import annotations

import json
from pathlib import Path

from scoring.core import StateError

# A finished table of any game fits in a few kilobytes; anything far larger is not a state file.
MAX_STATE_BYTES = 1_000_000
# How JPEG, PNG and WebP files begin (HEIC's "ftyp" comes 4 bytes in): a photo given where its state was
# meant is told so.
_PHOTO_STARTS = (b"\xff\xd8\xff", b"\x89PNG", b"RIFF")


def load_state_json(path: Path) -> object:
    """Decoded JSON of a state file; every failure is a StateError that says what to fix."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise StateError(f"{path}: cannot read the state file ({exc.strerror or exc})") from None
    if not path.is_file():
        raise StateError(f"{path}: not a file")
    if size > MAX_STATE_BYTES:
        raise StateError(f"{path}: {size} bytes is too large for a state file (limit {MAX_STATE_BYTES})")
    data = path.read_bytes()
    if data.startswith(_PHOTO_STARTS) or data[4:8] == b"ftyp":
        raise StateError(
            f"{path}: this is a photo, not a state file (JSON); where a command takes a photo and its state, "
            "give the photo first"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StateError(f"{path}: not UTF-8 text; a state file is JSON") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateError(
            f"{path}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    # json's own limits: a number of more than 4300 digits (ValueError), lists nested ~1000 deep.
    except ValueError as exc:
        raise StateError(f"{path}: unreadable JSON ({exc})") from None
    except RecursionError:
        raise StateError(f"{path}: JSON nested too deeply to be a state file") from None
