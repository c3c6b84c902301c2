"""The scorer's web app: photos from phones, corrections, the TV page and the history.

``create_app(AppConfig(...))`` builds it; binding it to an address is the CLI's job. One router per area:
``score`` (upload, result page, corrections), ``tv`` (TV page, Server-Sent Events), ``history`` (pages,
JSON, exports), ``setup`` (the game set-up) and ``calibrate`` (camera, board profiles, enrolment, seats);
``pairing`` (pairing a phone, the kiosk's sign-in, the paired devices); ``auth`` says who is asking and
guards the owner's actions; ``security`` holds the Host and Origin checks and the headers; ``bodies`` what a
request's body may be, checked before it is read. Each router is its module's own (the TV's is made per app,
given the live camera's sources); what their routes share (the history, the stores, the photo reader, ...) is
made once per app and handed to them as dependencies (``services``).
Pages are static HTML and plain
JavaScript in ``static/`` (no build step, nothing fetched from elsewhere) calling the JSON API under ``/api``;
FastAPI's OpenAPI docs are at ``/docs``.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from itertools import chain

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from calibration import teaching
from calibration.statedir import StateDir
from device.history import History
from device.inbox import Inbox
from device.mqtt.link import BrokerLink
from device.privacy import strip_kept_photos
from device.web import calibrate, history, pairing, score, setup, tv
from device.web.auth import (
    Attempts,
    DeviceLogin,
    Devices,
    PairingCode,
    PlayerIds,
    check_kiosk_token,
    new_kiosk_token,
)
from device.web.bodies import MAX_UPLOAD_BYTES, BodyPace
from device.web.gamesetup import SetupStore
from device.web.reading import Reader, ScoreFn
from device.web.results import ResultStore
from device.web.reteach import Reteacher
from device.web.security import STATIC_DIR, RequestChecks, own_names
from device.web.services import Services
from device.web.tv import EventSource, Preview
from device.web.uploads import UploadStore

DOCS_ASSETS = "/docs-assets"
DEVICES_FILE = "devices.json"
ATTEMPTS_FILE = "sign-in-attempts.json"
KEY_FILE = "web-key.json"


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
    kiosk_token: str = field(default_factory=new_kiosk_token)
    """What the TV's browser posts to ``/kiosk`` to sign in, to be shown the pairing code (see auth.py)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names the app answers to besides IP addresses, localhost and this machine's names."""
    broker: BrokerLink | None = None
    """The table's tie to an MQTT broker, told of each game the app stores; None: none, nor may one be set."""
    on_network: bool = True
    """Whether it listens beyond this machine, so that phones on the network reach it (``serve --host``)."""

    def __post_init__(self) -> None:
        check_kiosk_token(self.kiosk_token)
        if self.max_upload_bytes < 1:
            raise ValueError(f"max_upload_bytes must be positive, got {self.max_upload_bytes}")


def create_app(config: AppConfig) -> FastAPI:
    """The app with its routers; opens the history now, so a damaged one is reported at start-up."""
    services = _services(config)
    # Photos an older version kept are kept, and served, as this one keeps new ones: without their metadata.
    root = config.state.root
    strip_kept_photos(
        root,
        chain(
            services.results.root.glob("*/photo.*"),
            services.results.root.glob("*/also-*"),
            services.inbox.root.glob("*.*g"),
            services.uploads.root.glob("*.photo.*"),
            config.state.profiles.glob(f"*/{teaching.FOLDER}/*.*g"),
        ),
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # A new version may read cells otherwise: the profiles it cannot read with are taught again.
        services.reteacher.schedule_outdated()
        yield
        services.attempts.close()
        services.history.close()

    # FastAPI's own docs pages fetch Swagger UI from a CDN; a scorer on a home network may have no internet,
    # so the pages come with their files (fastapi-offline).
    app = FastAPIOffline(
        title="garden-scorer",
        summary="Scores garden tile-laying board games from photos of the table",
        lifespan=lifespan,
        static_url=DOCS_ASSETS,
    )
    app.state.services = services
    # The routes that take photos hold their bodies to it (bodies.Guarded); every other takes a little JSON.
    app.state.max_upload_bytes = config.max_upload_bytes
    app.add_middleware(BodyPace, max_bytes=config.max_upload_bytes)
    app.add_middleware(DeviceLogin, devices=services.devices)
    # Added last, so it runs first: a request for another site's name or from another site's page goes no
    # further.
    app.add_middleware(RequestChecks, names=own_names(config.allowed_hosts))
    app.include_router(score.router)
    app.include_router(tv.router(config.events, services.history, config.preview))
    app.include_router(pairing.router)
    app.include_router(history.router)
    app.include_router(setup.router)
    app.include_router(calibrate.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _services(config: AppConfig) -> Services:
    """The app's services, one of each; the history is opened first, before anything else is made."""
    state = config.state
    history = History.open(state.history, listener=config.broker)
    attempts = Attempts(state.root / ATTEMPTS_FILE)
    return Services(
        state=state,
        history=history,
        results=ResultStore(state),
        setup=SetupStore.open(state),
        reader=Reader(config.score),
        players=PlayerIds(state.root / KEY_FILE),
        # Enrolments, from the calibration page or in the background, one at a time.
        reteacher=Reteacher(state, threading.Lock()),
        inbox=Inbox(state),
        uploads=UploadStore(state),
        devices=Devices(state.root / DEVICES_FILE),
        attempts=attempts,
        # Under a flood of wrong codes the TV shows a long code, so that the owner can always pair (auth.py).
        pairing_code=PairingCode(long=attempts.flooded),
        kiosk_token=config.kiosk_token,
        broker=config.broker,
        on_network=config.on_network,
    )
