"""The TV: a full-screen page read from the sofa, fed by Server-Sent Events from the live camera.

``GET /api/events`` streams the live source's events: ``event: score`` or ``event: status``, ``id:`` the
event's id and ``data:`` its JSON. FastAPI sends a keep-alive comment while the source is quiet. A browser
that reconnects sends ``Last-Event-ID``; events with a numeric id up to that one are skipped, so a source
that replays its latest events to a new subscriber resumes the stream exactly. On every (re)connect the
page loads ``GET /api/tv`` (whether live events flow, and the latest result in the history) and shows that
result until a live score arrives. With no live source, ``/api/events`` answers 404 and the page polls
``/api/tv``, showing the latest uploaded result. At most :data:`MAX_TV_CLIENTS` streams are open at once;
more are answered 503, to retry later. The kiosk's page also shows the pairing code (pairing.py).

``GET /api/preview.mjpg`` is the live camera itself as Motion JPEG, for aiming it on the set-up page.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Annotated, Any, Protocol

import cv2
import numpy as np
from fastapi import APIRouter, Depends, Header, HTTPException
from fastapi.responses import HTMLResponse, StreamingResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from numpy.typing import NDArray

from device.history import History
from device.web.security import page_response
from scoring.registry import GAMES

# How long one wait on the source lasts; the keep-alive pings run meanwhile, so it only bounds idle loops.
WAIT_S = 30.0
# Asks the browser to reconnect soon after the service restarts.
RETRY_MS = 3000
# TVs and set-up pages at once: a home has a few; each open stream holds a task and a queue.
MAX_TV_CLIENTS = 16


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


def router(events: EventSource | None, history: History, preview: Preview | None = None) -> APIRouter:
    api = APIRouter(tags=["tv"])
    streams = 0  # open event streams

    @api.get("/api/preview.mjpg", responses={404: {"description": "no camera"}})
    async def preview_stream() -> StreamingResponse:
        """The live camera as Motion JPEG (a few pictures a second), to aim it and check the light."""
        if preview is None:
            raise HTTPException(404, "no live camera on this scorer")
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

    def live_source() -> EventSource:
        if events is None:
            raise HTTPException(404, "no live camera on this scorer: /tv shows the latest uploaded result")
        if streams >= MAX_TV_CLIENTS:
            raise HTTPException(
                503,
                f"{MAX_TV_CLIENTS} screens are already following the live scores; close one",
                headers={"Retry-After": str(RETRY_MS // 1000)},
            )
        return events

    @api.get("/tv", include_in_schema=False)
    def tv_page() -> HTMLResponse:
        return page_response("tv.html")

    @api.get("/api/tv")
    def tv_state() -> dict[str, Any]:
        """Whether live events flow, and the latest result in the history."""
        latest = history.list(limit=1)
        record = latest[0].to_json() if latest else None
        if record is not None:
            rules = GAMES.get(record["game"])
            record["title"] = rules.title if rules else record["game"]
        return {"live": events is not None, "latest": record}

    # As a dependency, the 404 is sent before the stream starts; in the stream it would come too late.
    @api.get(
        "/api/events",
        response_class=EventSourceResponse,
        dependencies=[Depends(live_source)],
        responses={503: {"description": "too many screens following"}},
    )
    async def stream(
        last_event_id: Annotated[str | None, Header()] = None,
    ) -> AsyncIterator[ServerSentEvent]:
        """Live results and status messages as Server-Sent Events."""
        nonlocal streams
        source = live_source()
        after = _number(last_event_id) if last_event_id is not None else None
        sub = source.subscribe()
        streams += 1
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
            streams -= 1
            source.unsubscribe(sub)

    return api
