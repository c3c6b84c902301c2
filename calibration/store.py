"""State files: versioned JSON written so that a power cut never leaves a broken one.

Every write goes to a temporary file in the same folder, is flushed and fsynced, then renamed over the old
file (atomic on POSIX), and the folder itself is fsynced so the rename survives. A reader therefore sees the
old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

# What write_json_atomic and the history's writers name their temporaries: ".NAME.RANDOM.tmp".
TEMP_FILE = re.compile(r"\..+\.tmp")
# A write takes milliseconds: a temporary this old belongs to a writer that was killed or lost its power.
STALE_TEMP_S = 60.0


class StoreError(ValueError):
    """A stored file is missing, unreadable, of another kind, or of a version this build cannot read."""


def write_json_atomic(path: Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as JSON, all or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def sweep_temporaries(root: Path, older_than_s: float = STALE_TEMP_S) -> list[Path]:
    """Removes the write temporaries under ``root`` that a killed writer left; returns them.

    They are never read as data, but a table that loses power often would otherwise fill its card with
    them. Only files older than ``older_than_s`` go, so a write under way in another process is left alone.
    """
    if not root.is_dir():
        return []
    cutoff = time.time() - older_than_s
    swept = []
    for path in root.rglob(".*.tmp"):
        try:
            ours = TEMP_FILE.fullmatch(path.name) and path.is_file() and not path.is_symlink()
            if ours and path.stat().st_mtime <= cutoff:
                path.unlink()
                swept.append(path)
        except OSError:  # gone meanwhile, or not ours to remove: the next start tries again
            continue
    return swept


def read_json(path: Path) -> Any:
    """The decoded JSON of ``path``; StoreError names the file and what is wrong with it.

    Besides malformed JSON, ``json`` raises a plain ValueError for a number of more than 4300 digits and
    RecursionError for lists nested about a thousand deep: a damaged file must not escape as either.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:  # ValueError: JSONDecodeError, UnicodeDecodeError, huge numbers
        raise StoreError(f"{path}: unreadable ({exc})") from None
    except RecursionError:
        raise StoreError(f"{path}: unreadable (nested too deeply to be a state file)") from None


def read_versioned(path: Path, kind: str, versions: tuple[int, ...]) -> dict[str, Any]:
    """A stored file of ``kind`` whose ``version`` is one of ``versions``; StoreError says what is wrong."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise StoreError(f"{path}: expected a JSON object")
    if data.get("kind") != kind:
        raise StoreError(f"{path}: kind is {data.get('kind')!r}, expected {kind!r}")
    if data.get("version") not in versions:
        raise StoreError(
            f"{path}: version {data.get('version')!r} of {kind} files is not readable by this build "
            f"(it reads {', '.join(map(str, versions))}); redo the {kind} set-up"
        )
    return data
