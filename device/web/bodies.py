"""What a request may send, checked before the app reads it.

Each route says what its body may be: those that take photos (:data:`TAKES_PHOTOS` in their OpenAPI extra)
take up to the upload limit, every other route a small JSON body (:data:`JSON_BODY_BYTES`, ample for sixteen
boards' states, and nothing to parse).

- :class:`Guarded`, the route class of every router, answers before the body is read (FastAPI reads it
  before solving the route's dependencies): an owner's route (guarded by
  :class:`~device.web.auth.AdminGuard`) from a device that is not paired is refused (403), and a body whose
  ``Content-Length`` is over the route's limit too (413), in words. A stranger's request costs nothing,
  however large it says it is.
- :class:`BodyPace`, a middleware, holds every body to a pace, a size and JSON to its shape. A body must keep
  arriving: after :data:`BODY_GRACE_S`, at :data:`MIN_BODY_RATE` bytes a second on average (408), so one
  trickled a byte at a time holds nothing for long. At most :data:`RECEIVING_PER_CLIENT` bodies from one
  address and :data:`RECEIVING_TOTAL` in all are received at once (more: 503 at once), so a few slow senders
  cannot keep every phone from uploading; photos are read in a queue of their own, joined once their body is
  in (score.py). A body sent without a ``Content-Length`` is cut off past the upload limit (413). A JSON
  body, whatever the route, is at most :data:`JSON_BODY_BYTES`, is read whole here and is refused when
  nested deeper than :data:`MAX_JSON_DEPTH` (400), before any parser meets it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Coroutine
from contextlib import ExitStack
from typing import Any

import numpy as np
from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from device.web.auth import PAIR_FIRST, AdminGuard, is_admin
from device.web.places import Busy, Places

# The largest request that takes photos, all of them together: a 64-megapixel phone photo is about 20 MB.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# A route's OpenAPI extra that marks it as taking photos: multipart, up to the upload limit.
PHOTOS_KEY = "x-takes-photos"
TAKES_PHOTOS: dict[str, Any] = {PHOTOS_KEY: True}
# The largest state a page sends is a Tang Garden board's, about 4 KB; a correction holds up to 16 boards.
JSON_BODY_BYTES = 256 * 1024
# A board's state nests 8 deep at most (a Tang Garden photo's result); Python's parser gives up near 1000.
MAX_JSON_DEPTH = 32
# A phone on weak Wi-Fi still sends 100 KB/s; 32 KB/s after 15 s lets a 20 MB upload take 11 minutes.
BODY_GRACE_S = 15.0
MIN_BODY_RATE = 32 * 1024
# A phone sends one upload at a time (a retry may overlap its first try); a home has a few phones.
RECEIVING_PER_CLIENT = 2
RECEIVING_TOTAL = 8
RETRY_AFTER_S = 5
TOO_SLOW = "the request arrived too slowly; move closer to the Wi-Fi and send it again"
RECEIVING_BUSY = "other phones are sending photos now; try again in a few seconds"

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPENS = np.frombuffer(b"[{", np.uint8)
_CLOSES = np.frombuffer(b"]}", np.uint8)


def json_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not count)."""
    bare = np.frombuffer(_JSON_STRING.sub(b'""', body), np.uint8)
    steps = np.isin(bare, _OPENS).astype(np.int64) - np.isin(bare, _CLOSES)
    return int(np.cumsum(steps).max(initial=0))


def over_limit(limit: int) -> str:
    return f"the request is over the {limit}-byte limit; send a smaller photo"


class Guarded(APIRoute):
    """The route class of every router: the owner's routes, and the size a body says it has, are checked
    before the body is read. The upload limit is the app's (``app.state.max_upload_bytes``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        owners = any(isinstance(d.dependency, AdminGuard) for d in self.dependencies)
        photos = bool((self.openapi_extra or {}).get(PHOTOS_KEY))

        async def guarded(request: Request) -> Response:
            if owners and not is_admin(request):
                raise HTTPException(403, PAIR_FIRST)
            limit: int = request.app.state.max_upload_bytes if photos else JSON_BODY_BYTES
            declared = request.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise HTTPException(413, over_limit(limit))
            return await handler(request)

        return guarded


def _is_json(content_type: str | None) -> bool:
    kind = (content_type or "").split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _refusal(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status, headers=headers)


class BodyPace:
    """ASGI middleware: the pace, the places and the JSON checks of the module doc."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.receiving = Places(RECEIVING_PER_CLIENT, RECEIVING_TOTAL)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length", "")
        if declared == "0" or ("transfer-encoding" not in headers and not declared):
            await self.app(scope, receive, send)  # no body
            return
        client = scope["client"][0] if scope.get("client") else "?"
        places = ExitStack()
        try:
            places.enter_context(self.receiving.place(client))
        except Busy:
            await _refusal(503, RECEIVING_BUSY, {"Retry-After": str(RETRY_AFTER_S)})(scope, receive, send)
            return
        with places:
            body = _Body(receive, places.close, self.max_bytes)
            if not _is_json(headers.get("content-type")):
                # A client that leaves while it sends its body leaves nobody to answer.
                with contextlib.suppress(ClientDisconnect):
                    await self.app(scope, body.receive, send)
                return
            # A small JSON body, read whole here: checked before any parser meets it, then given to the app.
            try:
                if declared.isdigit() and int(declared) > JSON_BODY_BYTES:
                    raise HTTPException(413, f"the request is over the {JSON_BODY_BYTES}-byte limit of JSON")
                whole = await body.read_all(JSON_BODY_BYTES)
                if json_depth(whole) > MAX_JSON_DEPTH:
                    raise HTTPException(400, f"the JSON is nested over {MAX_JSON_DEPTH} levels deep")
            except HTTPException as exc:
                await _refusal(exc.status_code, str(exc.detail))(scope, receive, send)
                return
        await self.app(scope, _replay(whole, receive), send)


class _Body:
    """A request's body as it arrives, held to the pace of the module doc and to ``limit`` bytes;
    ``received()`` is called once it is all in (or the client has gone)."""

    def __init__(self, receive: Receive, received: Callable[[], None], limit: int) -> None:
        self._receive = receive
        self._received = received
        self.limit = limit
        self.seen = 0
        self.done = False
        self.started = asyncio.get_running_loop().time()

    async def receive(self) -> Message:
        if self.done:  # the body is in: what follows is a wait for the client to leave, unhurried
            return await self._receive()
        deadline = self.started + BODY_GRACE_S + self.seen / MIN_BODY_RATE
        left = deadline - asyncio.get_running_loop().time()
        try:
            message = await asyncio.wait_for(self._receive(), max(left, 0.0))
        except TimeoutError:
            # Raised inside the app's read of the body, so FastAPI answers it as any HTTPException.
            raise HTTPException(408, TOO_SLOW) from None
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit:
                raise HTTPException(413, over_limit(self.limit))
            self.done = not message.get("more_body", False)
        else:
            self.done = True
        if self.done:
            self._received()
        return message

    async def read_all(self, limit: int) -> bytes:
        chunks = []
        while not self.done:
            message = await self.receive()
            chunks.append(message.get("body", b""))
            if self.seen > limit:
                raise HTTPException(413, f"the request is over the {limit}-byte limit of JSON")
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives ``body`` whole, then what the client sends next (its leaving)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
