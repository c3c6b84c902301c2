"""What the app enforces on every request, whoever binds it: the admin PIN, the body limit, page headers.

The PIN: a non-loopback client calling an admin endpoint (changing the game set-up, deleting history,
calibration) must send the PIN in the ``X-Garden-PIN`` header or a form field ``pin``. The TV page shows it:
the TV is the trusted screen in the room, so the PIN proves that whoever sends it can see the table. That is
all it proves: any client on the network can load ``/tv`` too, so the PIN keeps out passers-by on the
network and mistaken taps, not a determined attacker on it; keep the scorer on a trusted network.
``trust_localhost`` lets loopback clients (the kiosk browser on the Pi) skip it; turn it off when a reverse
proxy on the same machine forwards other people's requests, as they would all arrive from loopback.
Wrong PINs are counted per client address: after ``MAX_FAILURES`` within ``FAILURE_WINDOW_S`` that client is
refused (429) until the window has passed, so the million PINs cannot be tried in a night.

The body limit is checked from ``Content-Length`` before anything is read and again while reading, so a huge
or lying upload costs neither memory nor a decode.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import time
from collections import deque
from dataclasses import dataclass
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PIN_HEADER = "X-Garden-PIN"
PIN_DIGITS = 6
MAX_FAILURES = 10
FAILURE_WINDOW_S = 300.0
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# The answers of a route behind the admin guard, for its OpenAPI entry.
NEEDS_PIN: dict[str, Any] = {
    "description": "from another device without the PIN shown on the TV (429: too many tries)"
}

STATIC_DIR = Path(__file__).resolve().parent / "static"
# Pages run only this app's own files: no inline script, nothing fetched from elsewhere. Images may also be
# the page's own blobs: a photo the player chose, shown to place a board's corners on before it is sent.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def new_pin() -> str:
    """A random PIN of ``PIN_DIGITS`` digits, leading zeros kept."""
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


def check_pin(pin: str) -> str:
    if not (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 12):
        raise ValueError(f"PIN {pin!r}: use 4 to 12 digits, so it can be typed on a phone")
    return pin


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is a loopback address (a host name, e.g. TestClient's "testclient", is not)."""
    if host is None:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        # A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d.
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


class AdminGuard:
    """A FastAPI dependency: passes loopback clients (when trusted) and clients that send the right PIN."""

    def __init__(self, pin: str, trust_localhost: bool = True) -> None:
        self.pin = check_pin(pin)
        self.trust_localhost = trust_localhost
        self._failures: dict[str, deque[float]] = {}

    async def __call__(self, request: Request) -> None:
        host = request.client.host if request.client else None
        if self.trust_localhost and is_loopback(host):
            return
        key = host or "?"
        now = time.monotonic()
        recent = self._recent(key, now)
        if len(recent) >= MAX_FAILURES:
            wait = round(recent[0] + FAILURE_WINDOW_S - now)
            raise HTTPException(429, f"too many wrong PINs from {key}; try again in {wait} s")
        given = request.headers.get(PIN_HEADER) or await _form_pin(request)
        if not given:
            raise HTTPException(
                403, f"this needs the PIN shown on the TV screen (header {PIN_HEADER} or form field pin)"
            )
        if not hmac.compare_digest(given.encode(), self.pin.encode()):
            recent.append(now)
            self._failures[key] = recent
            raise HTTPException(403, "wrong PIN: use the one shown on the TV screen")

    def _recent(self, key: str, now: float) -> deque[float]:
        # Stale entries of every client go too, so the table cannot grow with addresses that gave up.
        for other in list(self._failures):
            times = self._failures[other]
            while times and times[0] < now - FAILURE_WINDOW_S:
                times.popleft()
            if not times:
                del self._failures[other]
        return self._failures.get(key, deque())


async def _form_pin(request: Request) -> str | None:
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return None
    value = (await request.form()).get("pin")
    return value if isinstance(value, str) else None


class BodyLimit:
    """ASGI middleware refusing request bodies over ``max_bytes`` with 413."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.message = f"the request is over the {max_bytes}-byte limit; send a smaller photo"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await JSONResponse({"detail": self.message}, 413)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # Raised inside the handler's read of the body, so FastAPI answers it like any 413.
                    raise HTTPException(413, self.message)
            return message

        await self.app(scope, limited, send)


@dataclass(frozen=True)
class Page:
    title: str
    script: str
    path: str | None  # where the page lives, so the bar links every page but itself; None: not in the bar
    bar: bool = True
    body_class: str = ""
    owner: bool = False  # the table owner's, not the players': linked apart, after theirs


# Every page: its body is ``static/NAME``, wrapped in ``static/layout.html`` with the bar of links.
PAGES = {
    "index.html": Page("Score a photo", "home.js", "/"),
    "result.html": Page("Result", "result.js", None),
    "tv.html": Page("TV", "tv.js", "/tv", bar=False, body_class="tv"),
    "history.html": Page("History", "history.js", "/history"),
    "setup.html": Page("Game set-up", "setup.js", "/setup", owner=True),
    "calibrate.html": Page("Calibration", "calibrate.js", "/calibrate", owner=True),
}
API_DOCS = ("/docs", "API")


@cache
def _page_html(name: str) -> str:
    page = PAGES[name]
    linked = [p for p in PAGES.values() if p.path is not None and p.path != page.path]
    players = [(p.path, p.title) for p in linked if not p.owner]
    owner = [*((p.path, p.title) for p in linked if p.owner), API_DOCS]

    def links(pairs: list[tuple[str | None, str]]) -> str:
        return "".join(f'    <a href="{path}">{escape(title)}</a>\n' for path, title in pairs)

    nav = (
        f'  <nav aria-label="Pages">\n{links(players)}  </nav>\n'
        f'  <nav class="owner" aria-label="For the table\'s owner">\n{links(owner)}  </nav>\n'
    )
    bar = f'<header class="bar">\n  <p class="brand">garden-scorer</p>\n{nav}</header>\n' if page.bar else ""
    return (
        (STATIC_DIR / "layout.html")
        .read_text(encoding="utf-8")
        .format(
            title=escape(f"{page.title} · garden-scorer"),
            script=page.script,
            body_class=f' class="{page.body_class}"' if page.body_class else "",
            nav=bar,
            content=(STATIC_DIR / name).read_text(encoding="utf-8"),
        )
    )


def page_response(name: str) -> HTMLResponse:
    """One of the pages, with headers that keep it to this app's own scripts."""
    return HTMLResponse(_page_html(name), headers=PAGE_HEADERS)


def json_object_field(text: str, name: str, example: str) -> dict[str, Any]:
    """A form field holding a JSON object (hand entry, game set-up); otherwise a 400 showing ``example``."""
    try:
        value = json.loads(text)
    except ValueError as exc:  # also json's 4300-digit limit on numbers, not only JSONDecodeError
        raise HTTPException(400, f"{name}: not valid JSON ({exc})") from None
    except RecursionError:
        raise HTTPException(400, f"{name}: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise HTTPException(400, f"{name}: expected a JSON object of fields, e.g. {example}")
    return value
