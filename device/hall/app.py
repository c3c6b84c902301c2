"""``garden-scorer hall``: one big screen for every table on the broker, and the evening's standings.

GET only; the hall never changes anything, on the broker or here:

- ``/``: the page, for a TV across the room (static/hall.html, hall.js, hall.css; the TV page's stylesheet).
- ``/api/hall``: every table (its game, players and totals, whether it is online, how long ago it scored), the
  standings since the evening's start, whether the hall has the broker, and ``number``: the latest change the
  answer holds (see device/hall/feed.py).
- ``/api/hall/events``: Server-Sent Events as things change: ``table`` (one table's new state), ``standings``
  (the whole list again) and ``broker`` (connected or not), each with its change's ``number``. A screen that
  falls behind gets the latest of each, not every step (feed.py). At most :data:`STREAMS_PER_CLIENT` streams
  from one address and :data:`STREAMS` in all; more are answered 503, to retry later.

:func:`run_hall` serves it as ``garden-scorer serve`` serves the scorer (device/serve.py: the connection
guards, systemd's notifications) and runs the MQTT listener beside it (listen.py) until interrupted. The Host
check and the headers of every response are the scorer's (device/web/security.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import uvicorn
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from fastapi_offline import FastAPIOffline

from device.hall.feed import Feed, Screen
from device.hall.listen import CLIENT_ID, Evening, Hall, Listener
from device.hall.store import HallStore, HallStoreError, Standing, TableState
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import Seat
from device.notify import Systemd
from device.serve import listening_socket, serve_supervised, server_config
from device.web.places import Busy, Places
from device.web.security import PAGE_HEADERS, RequestChecks, own_names
from device.web.security import STATIC_DIR as WEB_STATIC
from scoring.registry import GAMES

STATIC_DIR = Path(__file__).resolve().parent / "static"
# The hall's own files, and the TV page's stylesheet and helpers: the same look, one copy of it.
ASSETS = {
    "hall.js": STATIC_DIR / "hall.js",
    "hall.css": STATIC_DIR / "hall.css",
    "style.css": WEB_STATIC / "style.css",
    "common.js": WEB_STATIC / "common.js",
}
# Screens following at once: a hall has a few; each open stream holds a task and a box of changes.
STREAMS_PER_CLIENT = 4
STREAMS = 32
# One wait on the feed; the keep-alive pings run meanwhile, so it only bounds idle loops.
WAIT_S = 30.0
# After a change, how long a stream waits for others to send them in one go: 50 tables scoring every
# second are a few writes a second to each screen, not fifty, and still on screen well within a second.
GATHER_S = 0.1
RETRY_MS = 3000
DEFAULT_PORT = 8090
_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_HOST_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_HOST_NAME = re.compile(rf"{_HOST_LABEL}(\.{_HOST_LABEL})*\.?", re.IGNORECASE)


@dataclass(frozen=True)
class HallServices:
    """What the hall's routes share, one per app."""

    hall: Hall
    streams: Places


def hall_services(request: Request) -> HallServices:
    found: HallServices = request.app.state.hall
    return found


HallDep = Annotated[HallServices, Depends(hall_services)]
router = APIRouter(tags=["hall"])


def _leaders(players: tuple[Seat, ...]) -> set[int]:
    """The seats holding the highest total; none while fewer than two are scored (nobody to lead)."""
    totals = [s.total for s in players if s.total is not None]
    if len(totals) < 2:
        return set()
    return {i for i, s in enumerate(players) if s.total == max(totals)}


def table_json(state: TableState, now: datetime) -> dict[str, Any]:
    """A table as the page shows it. ``age_s``: seconds since it scored, by the hall's clock (the screen's
    may be off)."""
    score = state.score
    out: dict[str, Any] = {
        "name": state.name,
        "online": state.online,
        "gone": state.gone,
        "game": None,
        "title": None,
        "players": [],
        "finished": False,
        "scored_at": None,
        "age_s": None,
    }
    if score is not None:
        rules = GAMES.get(score.game)
        leaders = _leaders(score.players)
        out |= {
            "game": score.game,
            "title": rules.title if rules else score.game,
            "players": [
                {"name": s.name, "total": s.total, "leads": i in leaders} for i, s in enumerate(score.players)
            ],
            "finished": score.finished,
            "scored_at": score.scored_at.isoformat(),
            "age_s": max(0.0, (now - score.scored_at).total_seconds()),
        }
    return out


def standing_json(standing: Standing) -> dict[str, Any]:
    return {
        "rank": standing.rank,
        "name": standing.name,
        "games": standing.games,
        "wins": standing.wins,
        "points": standing.points,
    }


@cache
def _page() -> str:
    return (STATIC_DIR / "hall.html").read_text(encoding="utf-8")


@router.get("/", include_in_schema=False)
def hall_page() -> HTMLResponse:
    """The page: its own files only, no inline script (the scorer's Content-Security-Policy)."""
    return HTMLResponse(_page(), headers=PAGE_HEADERS)


@router.get("/static/{name}", include_in_schema=False)
def asset(name: str) -> FileResponse:
    path = ASSETS.get(name)
    if path is None:
        raise HTTPException(404, f"no file {name!r} here")
    return FileResponse(path)


def _state(hall: Hall) -> dict[str, Any]:
    # The number first: everything read after it holds every change up to it (feed.py).
    number = hall.feed.number()
    now = hall.clock()
    return {
        "number": number,
        "connected": hall.connected,
        "since": hall.since().isoformat(),
        "now": now.isoformat(),
        "tables": [table_json(t, now) for t in hall.tables()],
        "standings": [standing_json(s) for s in hall.standings()],
    }


@router.get("/api/hall")
async def hall_state(services: HallDep) -> dict[str, Any]:
    """Every table heard from this evening, the evening's standings and whether the broker is connected."""
    # In a thread: the store's lock may be held a moment by a result being written to the card.
    return await asyncio.to_thread(_state, services.hall)


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


async def following(request: Request, services: HallDep) -> AsyncIterator[Screen]:
    """A place for the stream and a box in the feed, taken before the stream starts (a 503 sent then, not
    too late in the stream) and given back when it ends."""
    try:
        with services.streams.place(_client(request)):
            screen = services.hall.feed.subscribe()
            try:
                yield screen
            finally:
                services.hall.feed.unsubscribe(screen)
    except Busy:  # from taking the place: the block is a stream, which never raises it
        raise HTTPException(
            503, "too many screens are following the hall; close one", headers={"Retry-After": "3"}
        ) from None


@router.get(
    "/api/hall/events",
    response_class=EventSourceResponse,
    responses={503: {"description": "too many screens following"}},
)
async def hall_events(
    services: HallDep, screen: Annotated[Screen, Depends(following)]
) -> AsyncIterator[ServerSentEvent]:
    """Each table's new state, the standings and the broker's state as they change."""
    hall = services.hall
    while True:
        changes = await hall.feed.next(screen, WAIT_S, GATHER_S)
        if changes is None:
            continue
        now = hall.clock()
        for number, state in changes.tables:
            data = {"number": number, "table": table_json(state, now)}
            yield ServerSentEvent(data=data, event="table", retry=RETRY_MS)
        if changes.standings is not None:
            standings = await asyncio.to_thread(hall.standings)
            data = {
                "number": changes.standings,
                "since": hall.since().isoformat(),
                "standings": [standing_json(s) for s in standings],
            }
            yield ServerSentEvent(data=data, event="standings", retry=RETRY_MS)
        if changes.connected is not None:
            yield ServerSentEvent(data={"connected": changes.connected}, event="broker", retry=RETRY_MS)


def create_hall_app(
    hall: Hall, listener: Listener | None = None, allowed_hosts: tuple[str, ...] = ()
) -> FastAPI:
    """The hall's app on ``hall``; ``listener`` (if given) is started with the app and stopped with it."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if listener is not None:
            listener.start()
        try:
            yield
        finally:
            if listener is not None:
                await asyncio.to_thread(listener.stop)

    # FastAPI's own docs pages fetch their files from a CDN; a hall may have no internet (fastapi-offline).
    app = FastAPIOffline(
        title="garden-scorer hall",
        summary="Every table's scores on the broker, and the evening's standings",
        lifespan=lifespan,
        static_url="/docs-assets",
    )
    app.state.hall = HallServices(hall, Places(STREAMS_PER_CLIENT, STREAMS))
    app.add_middleware(RequestChecks, names=own_names(allowed_hosts))
    app.include_router(router)
    return app


@dataclass(frozen=True)
class HallOptions:
    """What ``garden-scorer hall`` was asked for; checked when made, so a mistake is told before starting."""

    mqtt: MqttSettings
    store: Path
    """The hall's SQLite file (the CLI's default: ``hall.sqlite`` in the state folder, store.HALL_FILE)."""
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    evening_hours: float = 12.0
    """The standings count the results of the last so many hours..."""
    evening_start: datetime | None = None
    """...or those since this time, when given (with a time zone)."""
    client_id: str = CLIENT_ID
    """The hall's MQTT client id: the broker keeps its session, and queues results for it, under it. Two
    halls on one broker need two."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names the page answers to besides IP addresses, localhost and this machine's names."""

    def __post_init__(self) -> None:
        Evening(self.evening_hours, self.evening_start)  # raises, saying what is wrong
        if not 1 <= self.port <= 65535:
            raise ValueError(f"--port {self.port}: give a port from 1 to 65535 (default {DEFAULT_PORT})")
        if not _CLIENT_ID.fullmatch(self.client_id):
            raise ValueError(
                f"--client-id {self.client_id!r}: use 1 to 64 letters, digits, '-' or '_', e.g. {CLIENT_ID}-2"
            )
        for name in self.allowed_hosts:
            if not _HOST_NAME.fullmatch(name):
                raise ValueError(
                    f"--allowed-host {name!r} is not a host name: give a name such as hall.lan, "
                    "without http:// or a port"
                )


def banner(options: HallOptions) -> list[str]:
    """What the hall prints on start."""
    shown = "127.0.0.1" if options.host in ("0.0.0.0", "::", "") else options.host
    shown = f"[{shown}]" if ":" in shown else shown
    evening = (
        f"since {options.evening_start.isoformat()}"
        if options.evening_start is not None
        else f"over the last {options.evening_hours:g} hours"
    )
    return [
        f"garden-scorer hall: http://{shown}:{options.port}/",
        f"Reading every table on {options.mqtt.where()} as {options.client_id}; standings {evening}.",
        f"Kept in {options.store}",
    ]


def run_hall(options: HallOptions) -> None:
    """Serve the hall and follow the broker until interrupted (Ctrl-C, or systemd stopping it). A port taken,
    a hall file that cannot be used, a missing paho-mqtt or CA file: ValueError saying what to do, before
    anything has started."""
    evening = Evening(options.evening_hours, options.evening_start)
    sock = listening_socket(options.host, options.port)
    try:
        try:
            store = HallStore.open(options.store)
        except HallStoreError as exc:
            raise ValueError(str(exc)) from None  # the CLI prints it, saying what to do
        with store:
            hall = Hall(store, Feed(), evening)
            listener = Listener(options.mqtt, hall, options.client_id)
            app = create_hall_app(hall, listener, options.allowed_hosts)
            logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
            for line in banner(options):
                print(line)
            server = uvicorn.Server(server_config(app))
            # uvicorn stops the server (and the listener with it) on Ctrl-C, then raises it again: a stop
            # asked for, not an error.
            with contextlib.suppress(KeyboardInterrupt):
                asyncio.run(serve_supervised(server, Systemd.from_environment(), lambda: True, sock))
    finally:
        sock.close()
