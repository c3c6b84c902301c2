"""What the hall's tests share: messages as scorers send them, and waiting for a condition without timing."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from fastapi import FastAPI

from device.mqtt.topics import Played, Seat
from lab.serving import serve_in_thread

# A fixed evening: 20:00 UTC, results a few minutes apart.
EVENING = datetime(2025, 3, 1, 20, 0, tzinfo=UTC)
# Generous: CI is a loaded 2-core machine; waits end as soon as their condition holds.
WAIT_S = 30.0

Players = Sequence[tuple[str | None, int | None]]


def played(
    table: str,
    result_id: str,
    players: Players = (("Alice", 10), ("Bob", 20)),
    *,
    game: str = "alices-garden",
    replaces: str | None = None,
    minutes: float = 0,
    finished: bool = True,
    when: datetime | None = None,
) -> Played:
    """A table's message: ``players`` as (name, total) seats, ``minutes`` after the evening's start (or
    ``when``)."""
    return Played(
        table=table,
        game=game,
        result_id=result_id,
        time=when if when is not None else EVENING + timedelta(minutes=minutes),
        players=tuple(Seat(name, total) for name, total in players),
        boards=(),
        finished=finished,
        replaces=replaces,
    )


def wait_until(condition: Callable[[], object], what: str, timeout_s: float = WAIT_S) -> None:
    """Returns once ``condition()`` is true; AssertionError saying ``what`` did not happen within
    ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so after {timeout_s:.0f} s")
        time.sleep(0.02)


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` served as ``garden-scorer hall`` serves it (lab.serving), on a free port; yields its base
    URL."""
    # lab.serving waits for the scorer's /api/tv to answer; the hall has no TV, so the test's copy answers.
    app.add_api_route("/api/tv", lambda: {"hall": True}, include_in_schema=False)
    with serve_in_thread(app, timeout_s=WAIT_S) as url:
        yield url
