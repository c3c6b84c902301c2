"""The scorer's web app: photos from phones, corrections, the TV page and the history.

``create_app(AppConfig(...))`` builds it; binding it to an address is the CLI's job. One router per area:
``score`` (upload, result page, corrections), ``tv`` (TV page, Server-Sent Events), ``history`` (pages,
JSON, exports), ``setup`` (the game set-up) and ``calibrate`` (camera, board profiles, enrolment, seats);
``security`` holds the admin PIN, the body limit and the pages' headers. Pages are static HTML and plain
JavaScript in ``static/`` (no build step, nothing fetched from elsewhere) calling the JSON API under ``/api``;
FastAPI's OpenAPI docs are at ``/docs``.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from calibration.statedir import StateDir
from device.history import History
from device.web import calibrate, history, score, setup, tv
from device.web.reteach import Reteacher
from device.web.score import ResultStore, ScoreFn
from device.web.security import MAX_UPLOAD_BYTES, STATIC_DIR, AdminGuard, BodyLimit, check_pin, new_pin
from device.web.setup import SetupStore
from device.web.tv import EventSource, Preview

DOCS_ASSETS = "/docs-assets"


@dataclass(frozen=True)
class AppConfig:
    state: StateDir
    """Where the history, the game set-up, result pictures and the enrolment inbox live."""
    score: ScoreFn
    """Reads and scores a decoded photo: ``score(image, game, hand, profile) -> list[ScoredBoard]``."""
    events: EventSource | None = None
    """The live camera's results for the TV; None when the scorer only takes uploads."""
    preview: Preview | None = None
    """The live camera's latest picture (BGR), for the set-up page's preview; None without a camera."""
    max_upload_bytes: int = MAX_UPLOAD_BYTES
    """The largest request body accepted, photo and form together."""
    pin: str = field(default_factory=new_pin)
    """The admin PIN (shown on the TV page); random 6 digits by default, so the CLI should print it."""
    trust_localhost: bool = True
    """Let loopback clients use admin endpoints without the PIN (see security.py)."""

    def __post_init__(self) -> None:
        check_pin(self.pin)
        if self.max_upload_bytes < 1:
            raise ValueError(f"max_upload_bytes must be positive, got {self.max_upload_bytes}")


def create_app(config: AppConfig) -> FastAPI:
    """The app with its routers; opens the history now, so a damaged one is reported at start-up."""
    records = History.open(config.state.history)
    results = ResultStore(config.state)
    game_setup = SetupStore.open(config.state)
    admin = AdminGuard(config.pin, config.trust_localhost)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        records.close()

    # FastAPI's own docs pages fetch Swagger UI from a CDN; a scorer on a home network may have no internet,
    # so the pages come with their files (fastapi-offline).
    app = FastAPIOffline(
        title="garden-scorer",
        summary="Scores garden tile-laying board games from photos of the table",
        lifespan=lifespan,
        static_url=DOCS_ASSETS,
    )
    app.add_middleware(BodyLimit, max_bytes=config.max_upload_bytes)
    # Enrolments, from the calibration page or in the background, one at a time.
    reteacher = Reteacher(config.state, threading.Lock())
    app.include_router(score.router(config.score, config.state, records, results, game_setup, reteacher))
    app.include_router(tv.router(config.events, records, config.pin, config.preview))
    app.include_router(history.router(records, results, admin))
    app.include_router(setup.router(config.state, game_setup, admin, reteacher))
    app.include_router(calibrate.router(config.state, records, admin, config.max_upload_bytes, reteacher))
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
