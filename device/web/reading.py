"""Reading photos, a bounded share of a Pi: the reader the app is given, one photo read at a time (the
reader uses the Pi's every core, and its memory is for one photo), and at most ``MAX_WAITING`` requests
waiting their turn or reading (each waits with its photos spooled on disk: only the one reading holds them in
memory); more are turned away, so that a crowd of uploads costs neither memory nor the TV's answers.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import numpy as np
from fastapi import HTTPException
from numpy.typing import NDArray

from device.photo import ScoredBoard
from vision.geometry import Points

MAX_WAITING = 4
RETRY_AFTER_S = 5
BUSY = "the scorer is busy reading other photos; try again in a few seconds"


class ScoreFn(Protocol):
    """Reads and scores every board of ``game`` in a decoded BGR photo (``also``: more photos of its one
    board, read with it, each decoded as it is taken: let one go before taking the next; ``corners``: the one
    board's corners in the photo, TL, TR, BR, BL, where the player placed them); the CLI passes the real
    pipeline (with the state dir's camera calibration and ``profile``'s enrolment), tests a fake."""

    def __call__(
        self,
        image: NDArray[np.uint8],
        game: str,
        hand: Mapping[str, Any],
        profile: str | None,
        also: Sequence[NDArray[np.uint8]] = (),
        /,
        *,
        corners: Points | None = None,
    ) -> list[ScoredBoard]: ...


class Waiting:
    """Counts the requests waiting to read photos or reading them, and turns away (503) those beyond
    ``most``: the check comes before a request's body is read, so one turned away costs nothing."""

    def __init__(self, most: int) -> None:
        if most < 1:
            raise ValueError(f"at least one request must be let in to read photos, not {most}")
        self.most = most
        self._count = 0
        self._lock = threading.Lock()

    @contextmanager
    def place(self) -> Iterator[None]:
        """A place for one request, held while the block runs; HTTPException 503 when all are taken."""
        with self._lock:
            if self._count >= self.most:
                raise HTTPException(503, BUSY, headers={"Retry-After": str(RETRY_AFTER_S)})
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1


@dataclass(frozen=True)
class Reader:
    """The app's reader of photos: ``score`` reads them, for one request at a time (the one holding
    ``turn``), and ``waiting`` counts the requests let in to wait for it."""

    score: ScoreFn
    waiting: Waiting = field(default_factory=partial(Waiting, MAX_WAITING))
    turn: threading.Lock = field(default_factory=threading.Lock)
