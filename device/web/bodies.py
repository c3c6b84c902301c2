"""What a request may send, checked before the app reads it.

Each route says what its body may be: those that take photos (:data:`TAKES_PHOTOS` in their OpenAPI extra)
take up to the upload limit, every other route a small body (:data:`JSON_BODY_BYTES`, ample for sixteen
boards' states, and nothing to parse).

- :class:`Guarded`, the route class of every router, answers before the body is read (FastAPI reads it
  before solving the route's dependencies): an owner's route (guarded by
  :class:`~device.web.auth.AdminGuard`) from a device that is not paired is refused (403), and a body whose
  ``Content-Length`` is over the route's limit too (413), in words. A stranger's request costs nothing,
  however large it says it is.
- :class:`BodyPace`, a middleware, holds every body to a pace and a size, and JSON to its shape. A body must
  keep arriving: after :data:`BODY_GRACE_S`, at :data:`MIN_BODY_RATE` bytes a second on average (408), so one
  trickled a byte at a time holds nothing for long. Photos come as multipart forms, up to the upload limit;
  every other body (JSON, a form's fields) is at most :data:`JSON_BODY_BYTES` whatever the route, read whole
  here and handed on, and JSON is refused when nested deeper than :data:`MAX_JSON_DEPTH` or holding what
  JSON does not allow (NaN, Infinity, half a UTF-16 pair), before any parser meets it (400). At most
  :data:`RECEIVING_PER_CLIENT` photo bodies a client (an IPv6 one by its /64) and :data:`RECEIVING_TOTAL` in
  all are received at once; with every place taken, the slowest, where slower than :data:`MAKE_ROOM_BELOW`,
  makes room (408), else 503 at once. So senders that trickle to hold the places are pushed out by phones,
  and one holding them must send over 512 KB/s from 4 addresses; small bodies (pairing, the kiosk's sign-in,
  the set-up) never wait for a place. Photos are read in a queue of their own, joined once their body is in
  (score.py). A body sent without a ``Content-Length`` is cut off past its limit (413).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
from collections.abc import Callable, Coroutine
from typing import Any

import numpy as np
from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from device.web.auth import PAIR_FIRST, AdminGuard, is_admin
from device.web.places import client_key

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
MADE_ROOM = "the photo arrived too slowly while other phones waited to send theirs; send it again"
# A phone's upload arrives at 100 KB/s on weak Wi-Fi, megabytes a second on most; below this, with every place
# taken, a body makes room for a newcomer.
MAKE_ROOM_BELOW = 64 * 1024

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPENS = np.frombuffer(b"[{", np.uint8)
_CLOSES = np.frombuffer(b"]}", np.uint8)


def json_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not count)."""
    bare = np.frombuffer(_JSON_STRING.sub(b'""', body), np.uint8)
    steps = np.isin(bare, _OPENS).astype(np.int64) - np.isin(bare, _CLOSES)
    return int(np.cumsum(steps).max(initial=0))


def in_words(size: int) -> str:
    """A size in bytes as a player reads it: 20 MB, 256 kB."""
    return f"{size / 2**20:.0f} MB" if size >= 2**20 else f"{size / 2**10:.0f} kB"


def over_limit(limit: int) -> str:
    return f"the photo is over the {in_words(limit)} the scorer takes; send a smaller photo"


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


def _refusal(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status, headers=headers)


class NotStandardJson(ValueError):
    """A JSON text Python's reader takes but JSON does not allow, or one no answer could repeat back
    (:func:`strict_json`)."""


def strict_json(text: str | bytes) -> Any:
    """``text`` read as JSON, refusing (:class:`NotStandardJson`) ``NaN``, ``Infinity``, numbers past a
    float's range and halves of a UTF-16 pair (a lone surrogate), which Python's reader takes: such a value
    would pass a form's range checks (NaN compares false with everything) or break an error message that
    quotes it. Text that is no JSON at all raises json's own ValueError (or RecursionError)."""

    def refuse(word: str) -> float:
        raise NotStandardJson(f"the JSON is not standard: {word} is not a JSON number")

    def finite(word: str) -> float:
        value = float(word)
        return value if math.isfinite(value) else refuse(word)

    value = json.loads(text, parse_constant=refuse, parse_float=finite)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise NotStandardJson(
            "the JSON holds half of a UTF-16 character pair: send whole characters"
        ) from None
    return value


class Receiving:
    """The photo bodies being received: at most :data:`RECEIVING_PER_CLIENT` a client and
    :data:`RECEIVING_TOTAL` in all. When all are taken, the one arriving slowest makes room where it arrives
    slower than :data:`MAKE_ROOM_BELOW` (a phone sends faster, an attacker trickling to hold places does
    not): it is answered 408 and the newcomer let in."""

    def __init__(self) -> None:
        self._bodies: dict[_Body, str] = {}

    def admit(self, body: _Body, client: str) -> bool:
        """Whether ``body`` from ``client`` may be received now (then held until :meth:`release`)."""
        mine = sum(c == client for c in self._bodies.values())
        if mine >= RECEIVING_PER_CLIENT:
            return False
        if len(self._bodies) >= RECEIVING_TOTAL:
            slow = [b for b in self._bodies if b.rate() < MAKE_ROOM_BELOW]
            if not slow:
                return False
            slowest = min(slow, key=lambda b: b.rate())
            slowest.evict()
            self.release(slowest)
        self._bodies[body] = client
        return True

    def release(self, body: _Body) -> None:
        self._bodies.pop(body, None)

    def held(self) -> int:
        return len(self._bodies)


class BodyPace:
    """ASGI middleware: the pace, the sizes, the places and the JSON checks of the module doc."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        # Taken and given back on the event loop's one thread: no lock.
        self.receiving = Receiving()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length", "")
        if declared == "0" or ("transfer-encoding" not in headers and not declared):
            await self.app(scope, receive, send)  # no body
            return
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "multipart/form-data":
            await self._small(scope, receive, send, declared, kind)
            return
        body = _Body(receive, self.max_bytes, over_limit(self.max_bytes))
        client = client_key(scope["client"][0]) if scope.get("client") else "?"
        if not self.receiving.admit(body, client):
            await _refusal(503, RECEIVING_BUSY, {"Retry-After": str(RETRY_AFTER_S)})(scope, receive, send)
            return
        body.received = lambda: self.receiving.release(body)
        try:
            # A client that leaves while it sends its body leaves nobody to answer.
            with contextlib.suppress(ClientDisconnect):
                await self.app(scope, body.receive, send)
        finally:
            self.receiving.release(body)

    async def _small(self, scope: Scope, receive: Receive, send: Send, declared: str, kind: str) -> None:
        """Any body but photos: small, read whole here (JSON checked before any parser meets it), then given
        to the app."""
        limit = JSON_BODY_BYTES
        too_big = f"the request is over the {in_words(limit)} the scorer takes of what is not a photo"
        try:
            if declared.isdigit() and int(declared) > limit:
                raise HTTPException(413, too_big)
            whole = await _Body(receive, limit, too_big).read_all()
            if kind == "application/json" or kind.endswith("+json") or not kind:
                if json_depth(whole) > MAX_JSON_DEPTH:
                    raise HTTPException(400, f"the JSON is nested over {MAX_JSON_DEPTH} levels deep")
                try:
                    strict_json(whole)
                except NotStandardJson as exc:
                    raise HTTPException(400, str(exc)) from None
                except (ValueError, RecursionError):
                    pass  # no JSON at all: FastAPI's own answer says where
        except HTTPException as exc:
            await _refusal(exc.status_code, str(exc.detail))(scope, receive, send)
            return
        await self.app(scope, _replay(whole, receive), send)


class _Body:
    """A request's body as it arrives, held to the pace of the module doc and to ``limit`` bytes
    (``too_big`` says so); ``received()`` is called once it is all in (or the client has gone)."""

    def __init__(self, receive: Receive, limit: int, too_big: str) -> None:
        self._receive = receive
        self.limit = limit
        self.too_big = too_big
        self.received: Callable[[], None] = lambda: None
        self.seen = 0
        self.done = False
        self.started = asyncio.get_running_loop().time()
        self._evicted = asyncio.Event()

    def rate(self) -> float:
        """Bytes a second so far (none in its first second, which a slow start may take)."""
        elapsed = asyncio.get_running_loop().time() - self.started
        return float("inf") if elapsed < 1.0 else self.seen / elapsed

    def evict(self) -> None:
        self._evicted.set()

    async def receive(self) -> Message:
        if self.done:  # the body is in: what follows is a wait for the client to leave, unhurried
            return await self._receive()
        deadline = self.started + BODY_GRACE_S + self.seen / MIN_BODY_RATE
        left = max(deadline - asyncio.get_running_loop().time(), 0.0)
        arriving = asyncio.ensure_future(self._receive())
        evicted = asyncio.ensure_future(self._evicted.wait())
        await asyncio.wait((arriving, evicted), timeout=left, return_when=asyncio.FIRST_COMPLETED)
        evicted.cancel()
        if not arriving.done():
            arriving.cancel()
            # Raised inside the app's read of the body, so FastAPI answers it as any HTTPException.
            raise HTTPException(408, MADE_ROOM if self._evicted.is_set() else TOO_SLOW)
        message = arriving.result()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit:
                raise HTTPException(413, self.too_big)
            self.done = not message.get("more_body", False)
        else:
            self.done = True
        if self.done:
            self.received()
        return message

    async def read_all(self) -> bytes:
        chunks = []
        while not self.done:
            message = await self.receive()
            chunks.append(message.get("body", b""))
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
