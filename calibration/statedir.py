"""The one folder that holds what the scorer learns on a table: camera calibration, board profiles with their
enrolments, the seats and the score history.

Where it is, first match wins: ``--state-dir``; ``$GARDEN_SCORER_STATE_DIR``; systemd's
``$STATE_DIRECTORY`` (the service unit's ``StateDirectory=``); ``$XDG_DATA_HOME/garden-scorer``;
``~/.local/share/garden-scorer``. Names that become paths are checked, so no name can reach outside it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from calibration.store import StoreError

APP = "garden-scorer"
# Lower-case letters, digits, '-' and '_': safe as a folder name everywhere and in a URL, never '..' or '/'.
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def default_state_dir() -> Path:
    if explicit := os.environ.get("GARDEN_SCORER_STATE_DIR"):
        return Path(explicit)
    if systemd := os.environ.get("STATE_DIRECTORY"):
        # systemd lists one folder per StateDirectory= entry, separated by colons.
        return Path(systemd.split(":")[0])
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / APP


def check_name(name: str, what: str = "profile") -> str:
    """``name`` if it is a safe name for a stored thing; StoreError saying what is allowed otherwise."""
    if not NAME_PATTERN.fullmatch(name):
        raise StoreError(
            f"{what} name {name!r}: use 1-64 lower-case letters, digits, '-' or '_', starting with a letter "
            "or digit (e.g. 'kitchen-table')"
        )
    return name


@dataclass(frozen=True)
class StateDir:
    root: Path

    @classmethod
    def resolve(cls, explicit: Path | None = None) -> StateDir:
        return cls(explicit if explicit is not None else default_state_dir())

    @property
    def camera(self) -> Path:
        return self.root / "camera.json"

    @property
    def table(self) -> Path:
        return self.root / "table.json"

    @property
    def history(self) -> Path:
        return self.root / "history.sqlite"

    @property
    def profiles(self) -> Path:
        return self.root / "profiles"

    def profile(self, name: str) -> Path:
        return self.profiles / check_name(name)
