"""Profiles taught again in the background: a player's corrected photo joins its profile's teaching photos
(with their consent) and the page answers at once; the profile is enrolled again from all of them, one
profile at a time, in a thread that ends when nothing is waiting."""

from __future__ import annotations

import logging
import threading

from calibration.profiles import list_profiles, load_bundle
from calibration.statedir import StateDir
from device.learn import outdated, reteach
from device.photo import state_camera
from scoring.core import StateError

log = logging.getLogger(__name__)


class Reteacher:
    def __init__(self, state: StateDir, lock: threading.Lock) -> None:
        self.state = state
        # Shared with the calibration page's other heavy work: one enrolment at a time on a Pi.
        self.lock = lock
        self._guard = threading.Lock()
        self._waiting: dict[str, None] = {}  # in the order asked, each profile once
        self._teaching: str | None = None
        self._thread: threading.Thread | None = None
        self.failed: dict[str, str] = {}  # the last re-teaching's error, per profile

    def schedule(self, profile: str) -> None:
        with self._guard:
            self._waiting[profile] = None
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="reteach", daemon=True)
                self._thread.start()

    def schedule_outdated(self) -> list[str]:
        """Schedule every profile taught on another version's model, which this one cannot read with, to be
        taught again from the photos it kept; the names scheduled."""
        found = []
        for name in list_profiles(self.state):
            try:
                if outdated(self.state, name):
                    found.append(name)
            except (ValueError, StateError, OSError) as exc:  # a damaged profile says so when it is used
                log.warning("profile %s not checked: %s", name, exc)
        for name in found:
            log.info("profile %s was taught on another version's model: teaching it again", name)
            self.schedule(name)
        return found

    def pending(self, profile: str) -> bool:
        """Whether ``profile`` is waiting to be taught again or being taught now."""
        with self._guard:
            return profile in self._waiting or profile == self._teaching

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait for the re-teaching under way to end (for ever with no timeout); whether it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        return thread is None or not thread.is_alive()

    def _run(self) -> None:
        while True:
            with self._guard:
                if not self._waiting:
                    self._teaching = None
                    return
                name = next(iter(self._waiting))
                del self._waiting[name]
                self._teaching = name
            try:
                with self.lock:
                    reteach(self.state, load_bundle(self.state, name).profile, state_camera(self.state))
                self.failed.pop(name, None)
            except (ValueError, StateError, OSError) as exc:  # NoBoardError and StoreError are ValueErrors
                log.warning("profile %s not taught again: %s", name, exc)
                self.failed[name] = str(exc)
