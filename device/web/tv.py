"""The TV: a full-screen page read from the sofa, fed by Server-Sent Events from the live camera.

``GET /api/events`` streams the live source's events: ``event: score`` or ``event: status``, ``id:`` the
event's id and ``data:`` its JSON. FastAPI sends a keep-alive comment while the source is quiet. A browser
that reconnects sends ``Last-Event-ID``; events with a numeric id up to that one are skipped, so a source
that replays its latest events to a new subscriber resumes the stream exactly. On every (re)connect the
page loads ``GET /api/tv`` (whether live events flow, and the latest result in the history) and shows that
result until a live score arrives. With no live source, ``/api/events`` answers 404 and the page shows the
latest result. Either way the page polls ``/api/tv`` every few seconds for the photo scored last (uploaded or
corrected): one it has not seen, stored less than :data:`PHOTO_HOLD_S` ago, is shown that long over the live
scores, which are kept and shown after (at once, should it be deleted). Its age is the server's to say: the
TV's clock may be off. The kiosk's page also shows the pairing code (pairing.py).

The TV is never locked out: the kiosk's streams have places of their own (:data:`KIOSK_STREAMS`); any other
browser may hold :data:`STREAMS_PER_CLIENT` and all of them together :data:`OTHER_STREAMS` (more are answered
503, to retry later), each place taken before the stream starts and given back when it ends.

``GET /api/preview.mjpg`` is the live camera itself as Motion JPEG, for aiming it on the set-up page: for a
paired device or the kiosk only, at most :data:`PREVIEWS` at once (each encodes pictures all the while).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol

import cv2
import numpy as np
from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import HTMLResponse, StreamingResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from numpy.typing import NDArray

from device.history import GameRecord, History
from device.web.auth import NEEDS_PAIRING, PAIR_FIRST, is_admin, is_kiosk
from device.web.bodies import Guarded
from device.web.places import Busy, Places
from device.web.security import page_response
from scoring.registry import GAMES

# How long one wait on the source lasts; the keep-alive pings run meanwhile, so it only bounds idle loops.
WAIT_S = 30.0
# Asks the browser to reconnect soon after the service restarts.
RETRY_MS = 3000
# Event streams at once. The kiosk reconnecting may hold two for a moment; a phone's TV page holds one. A
# home has a few screens; each open stream holds a task and a queue.
KIOSK_STREAMS = 4
STREAMS_PER_CLIENT = 2
OTHER_STREAMS = 16
# Live previews at once, from paired devices and the kiosk: the set-up page on the owner's phone.
PREVIEWS = 2
# A photo scored from a phone stays on the TV this long over the camera's scores, which come every few seconds
# and would replace it before anyone looked up: time to read it from the sofa, each player's breakdown in
# turn twice (8 s each, five players), and little enough that the game on the table soon comes back.
PHOTO_HOLD_S = 90.0


class LiveEvent(Protocol):
    """What the live loop reports (device/live.py). ``kind`` "score": ``payload`` is ``{"boards": [board JSON
    as ScoredBoard.to_json gives it, plus "player" and "seat" when known], "totals"}``; "status":
    ``{"status", "message"}`` saying what is wrong (camera gone, a hand over a board)."""

    @property
    def id(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def payload(self) -> Mapping[str, Any]: ...


class EventSource(Protocol):
    """A broadcaster of live events (device/live.py); one subscription per connected TV."""

    def subscribe(self) -> Any: ...

    def unsubscribe(self, sub: Any, /) -> None: ...

    async def next(self, sub: Any, timeout: float, /) -> LiveEvent | None:
        """The subscription's next event, or None when ``timeout`` seconds pass without one."""
        ...


def _number(event_id: object) -> int | None:
    try:
        return int(str(event_id))
    except ValueError:
        return None


# The live preview: a picture at most this wide, this often; enough to aim the camera, light on a Pi.
PREVIEW_WIDTH = 960
PREVIEW_FPS = 4.0
PREVIEW_BOUNDARY = "frame"

Preview = Callable[[], NDArray[np.uint8] | None]


def _preview_jpeg(image: NDArray[np.uint8]) -> bytes:
    h, w = image.shape[:2]
    if w > PREVIEW_WIDTH:
        image = cv2.resize(image, (PREVIEW_WIDTH, round(h * PREVIEW_WIDTH / w)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
    if not ok:
        raise ValueError("the preview picture could not be encoded")
    return bytes(data)


class Streams:
    """Places for endless responses: the kiosk's apart, everyone else's per client and in all."""

    def __init__(self, kiosk: int, per_client: int, others: int) -> None:
        self.kiosk = Places(kiosk, kiosk)
        self.others = Places(per_client, others)

    @contextmanager
    def place(self, request: Request, what: str) -> Iterator[None]:
        """A place for ``request`` while the block runs; 503 saying ``what`` is full when none is left."""
        kiosk = is_kiosk(request)
        places = self.kiosk if kiosk else self.others
        try:
            with places.place("kiosk" if kiosk else _client(request)):
                yield
        except Busy:  # from taking the place: the block is a stream, which never raises it
            raise HTTPException(
                503, f"{what}; close one", headers={"Retry-After": str(RETRY_MS // 1000)}
            ) from None


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _titled(record: GameRecord) -> dict[str, Any]:
    """The record's JSON with its game's title, for the TV's heading."""
    data = record.to_json()
    rules = GAMES.get(record.game)
    data["title"] = rules.title if rules else record.game
    return data


def _newest_photo(history: History) -> dict[str, Any] | None:
    """The photo scored last, with when it was stored and how many seconds ago by this machine's clock."""
    found = history.newest_photo()
    if found is None:
        return None
    record, stored = found
    age = max(0.0, (datetime.now(UTC) - stored).total_seconds())
    return {**_titled(record), "stored_at": stored.isoformat(), "age_s": age}


def router(events: EventSource | None, history: History, preview: Preview | None = None) -> APIRouter:
    api = APIRouter(tags=["tv"], route_class=Guarded)
    streams = Streams(KIOSK_STREAMS, STREAMS_PER_CLIENT, OTHER_STREAMS)
    previews = Places(1, PREVIEWS)

    async def preview_place(request: Request) -> AsyncIterator[None]:
        # A dependency with yield: the place is held until the response has been sent (or the client left).
        if not (is_admin(request) or is_kiosk(request)):
            raise HTTPException(403, PAIR_FIRST)
        if preview is None:
            raise HTTPException(404, "no live camera on this scorer")
        try:
            with previews.place(_client(request)):
                yield
        except Busy:  # from taking the place, as above
            raise HTTPException(503, f"{PREVIEWS} previews of the camera are open; close one") from None

    @api.get(
        "/api/preview.mjpg",
        dependencies=[Depends(preview_place)],
        responses={403: NEEDS_PAIRING, 404: {"description": "no camera"}, 503: {"description": "too many"}},
    )
    async def preview_stream() -> StreamingResponse:
        """The live camera as Motion JPEG (a few pictures a second), to aim it and check the light."""
        assert preview is not None  # preview_place answered 404 otherwise
        source = preview

        async def frames() -> AsyncIterator[bytes]:
            while True:
                image = source()
                if image is not None:
                    jpeg = await asyncio.to_thread(_preview_jpeg, image)
                    yield (
                        (
                            f"--{PREVIEW_BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                            f"Content-Length: {len(jpeg)}\r\n\r\n"
                        ).encode()
                        + jpeg
                        + b"\r\n"
                    )
                await asyncio.sleep(1 / PREVIEW_FPS)

        return StreamingResponse(
            frames(), media_type=f"multipart/x-mixed-replace; boundary={PREVIEW_BOUNDARY}"
        )

    async def event_place(request: Request) -> AsyncIterator[None]:
        # A dependency with yield: the place is taken before the stream starts and held until it ends.
        if events is None:
            raise HTTPException(404, "no live camera on this scorer: /tv shows the latest uploaded result")
        with streams.place(request, "too many screens are following the live scores"):
            yield

    @api.get("/tv", include_in_schema=False)
    def tv_page() -> HTMLResponse:
        return page_response("tv.html")

    @api.get("/api/tv")
    def tv_state() -> dict[str, Any]:
        """Whether live events flow, the latest result in the history, and the photo scored last (uploaded or
        corrected: its age in seconds) with how long the TV holds a new one over the live scores."""
        latest = history.list(limit=1)
        return {
            "live": events is not None,
            "latest": _titled(latest[0]) if latest else None,
            "photo": _newest_photo(history),
            "hold_s": PHOTO_HOLD_S,
        }

    # As a dependency, the 404 and 503 are sent before the stream starts; in the stream they would come too
    # late.
    @api.get(
        "/api/events",
        response_class=EventSourceResponse,
        dependencies=[Depends(event_place)],
        responses={503: {"description": "too many screens following"}},
    )
    async def stream(
        last_event_id: Annotated[str | None, Header()] = None,
    ) -> AsyncIterator[ServerSentEvent]:
        """Live results and status messages as Server-Sent Events."""
        assert events is not None  # event_place answered 404 otherwise
        source = events
        after = _number(last_event_id) if last_event_id is not None else None
        sub = source.subscribe()
        try:
            while True:
                event = await source.next(sub, WAIT_S)
                if event is None:
                    continue
                number = _number(event.id)
                if after is not None and number is not None and number <= after:
                    continue
                yield ServerSentEvent(
                    data=dict(event.payload), event=event.kind, id=str(event.id), retry=RETRY_MS
                )
        finally:
            source.unsubscribe(sub)

    return api
