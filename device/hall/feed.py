"""What changed, for each screen following the hall: told from the MQTT thread, read by the web app's streams.

Each screen has a small box of changes, not a queue: a table's newer state takes the place of the one not yet
sent, and the standings and the broker's state are each a flag. A slow screen (a TV's browser busy, a Wi-Fi
drop) therefore holds at most one entry per table, however long it lags, and gets the latest of each when it
catches up.

Every change carries a number from one counter (:meth:`Feed.number`), which also tags the hall's whole state
as ``/api/hall`` reads it: a screen that loads the state while changes are on their way skips those the state
already holds, so an older table never replaces a newer one on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from dataclasses import dataclass, field

from device.hall.store import TableState


@dataclass(frozen=True)
class Changes:
    """What changed for one screen since it last looked."""

    tables: tuple[tuple[int, TableState], ...] = ()
    """(number, state) of each changed table, in the order they changed."""
    standings: int | None = None
    """The number of the last change to the standings; None: unchanged."""
    connected: bool | None = None
    """Whether the hall is connected to the broker, when that changed; None: unchanged."""


@dataclass(eq=False)
class Screen:
    """One screen's box of changes (:class:`Feed`); made on the web app's event loop."""

    loop: asyncio.AbstractEventLoop
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    tables: dict[str, tuple[int, TableState]] = field(default_factory=dict)
    standings: int | None = None
    connected: bool | None = None
    woken: bool = False


class Feed:
    """The screens following the hall, and the changes each has yet to be sent. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._screens: set[Screen] = set()
        self._counter = itertools.count(1)
        self._last = 0

    def number(self) -> int:
        """The number of the latest change: a state read after this call holds every change up to it."""
        with self._lock:
            return self._last

    def _next(self) -> int:
        self._last = next(self._counter)
        return self._last

    def subscribe(self) -> Screen:
        """A box for a new screen; call on the event loop that will wait on it."""
        screen = Screen(asyncio.get_running_loop())
        with self._lock:
            self._screens.add(screen)
        return screen

    def unsubscribe(self, screen: Screen) -> None:
        with self._lock:
            self._screens.discard(screen)

    @property
    def screens(self) -> int:
        with self._lock:
            return len(self._screens)

    def table(self, state: TableState) -> int:
        """``state`` is a table's new state (stored already); returns the change's number."""
        with self._lock:
            number = self._next()
            for screen in self._screens:
                # Its place in the order moves to the end: the newest change of the screen's box.
                screen.tables.pop(state.name, None)
                screen.tables[state.name] = (number, state)
                self._wake(screen)
        return number

    def standings(self) -> int:
        """The standings changed (a result stored); returns the change's number."""
        with self._lock:
            number = self._next()
            for screen in self._screens:
                screen.standings = number
                self._wake(screen)
        return number

    def connected(self, connected: bool) -> None:
        """The hall connected to the broker, or lost it."""
        with self._lock:
            self._next()
            for screen in self._screens:
                screen.connected = connected
                self._wake(screen)

    def _wake(self, screen: Screen) -> None:
        # Called with the lock held. One wake-up per batch, however many changes it holds.
        if screen.woken:
            return
        screen.woken = True
        # RuntimeError: its loop is closed, the server stopped, and the stream is gone with it.
        with contextlib.suppress(RuntimeError):
            screen.loop.call_soon_threadsafe(screen.ready.set)

    async def next(self, screen: Screen, timeout: float, gather: float = 0.0) -> Changes | None:
        """The screen's changes, once there are some; None after ``timeout`` seconds without. ``gather``:
        seconds to wait after the first change for others to join it (one write to the screen, not many)."""
        try:
            await asyncio.wait_for(screen.ready.wait(), timeout)
        except TimeoutError:
            return None
        if gather > 0:
            await asyncio.sleep(gather)
        with self._lock:
            changes = Changes(tuple(screen.tables.values()), screen.standings, screen.connected)
            screen.tables = {}
            screen.standings = None
            screen.connected = None
            screen.woken = False
            screen.ready.clear()
        return changes
