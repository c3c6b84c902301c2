"""What the app enforces on every request, whoever binds it: the names it answers to, where state-changing
requests come from, and the headers of every response (what a body may be: bodies.py).

The Host check: a request must name the scorer by an IP address, ``localhost``, this machine's host name (also
with ``.local``, as mDNS gives it) or a name the settings add; any other name is a page on another site whose
domain was pointed at the scorer's address (DNS rebinding), answered 421.

The Origin check: a browser says which site sent a request. A state-changing request (not GET, HEAD or
OPTIONS) whose ``Origin``, or failing that ``Referer``, is not the scorer itself is refused with 403, so no
page of another site, in the kiosk's browser or a phone's, can act for its user (one exception: the kiosk's
sign-in from the TV's start-up page file, :data:`KIOSK_SIGN_IN`). A request with neither comes
from a program, not from a page; it still needs a paired device's login for the owner's actions (auth.py).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from device.web.bodies import NotStandardJson, strict_json

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

STATIC_DIR = Path(__file__).resolve().parent / "static"
# Pages run only this app's own files: no inline script, nothing fetched from elsewhere. Images may also be
# the page's own blobs: a photo the player chose, shown to place a board's corners on before it is sent.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    ),
    "Cache-Control": "no-cache",
}


# Every response's headers, pages or not: no sniffing, no framing, no referrer leaving the scorer. A page adds
# its own Content-Security-Policy (PAGE_HEADERS); anything else gets the strictest that still lets FastAPI's
# docs page run its inline start-up script.
EVERY_RESPONSE = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
OTHER_CSP = "default-src 'none'; frame-ancestors 'none'"
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
# The TV's start-up page is a file on the Pi (garden-scorer kiosk-page) that posts the kiosk's token here;
# a file's page has no origin ("null"). The token is the proof: a page that does not hold it gets a 403.
KIOSK_SIGN_IN = ("POST", "/kiosk")
HSTS = "max-age=31536000"


def own_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names the scorer answers to besides IP addresses: localhost, this machine's names and
    ``extra`` (the settings'), lower case."""
    host = socket.gethostname().lower()
    names = {"localhost", host, f"{host}.local", socket.getfqdn().lower()}
    return frozenset(n.strip().rstrip(".").lower() for n in (*names, *extra) if n.strip())


def _host_name(netloc: str) -> str:
    """The host of ``host[:port]`` (IPv6 in brackets), lower case, without a trailing dot."""
    if netloc.startswith("["):
        return netloc[1 : netloc.find("]")].lower() if "]" in netloc else ""
    return (
        netloc.rsplit(":", 1)[0].rstrip(".").lower() if netloc.count(":") == 1 else netloc.rstrip(".").lower()
    )


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class RequestChecks:
    """ASGI middleware: the Host and Origin checks of the module doc, and the headers of every response."""

    def __init__(self, app: ASGIApp, names: frozenset[str]) -> None:
        self.app = app
        self.names = names

    def _known(self, netloc: str) -> bool:
        name = _host_name(netloc)
        # An IP address cannot be a rebound domain; a name must be one of ours.
        return bool(name) and (_is_ip(name) or name in self.names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        refusal = None
        if not self._known(host):
            named = _host_name(host) or "no name"
            said = f"this scorer does not answer to {named!r}: open it by its address or its own name"
            refusal = JSONResponse({"detail": f"{said} (the owner may add a name to the settings)"}, 421)
        elif scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            sender = origin if origin is not None else headers.get("referer")
            if sender == "null" and (scope["method"], scope.get("path")) == KIOSK_SIGN_IN:
                sender = None  # the TV's start-up page, a file (see KIOSK_SIGN_IN)
            if sender is not None:
                parts = urlsplit(sender)
                # The scorer's own origin: its scheme too (a page of https://host is another origin).
                same = parts.scheme == scope.get("scheme", "http") and parts.netloc.lower() == host.lower()
                if not same:
                    said = "refused: this request came from a page of another site, not the scorer's"
                    refusal = JSONResponse({"detail": said}, 403)
        https = scope.get("scheme") == "https"
        path = scope.get("path", "")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                for name, value in EVERY_RESPONSE.items():
                    out.setdefault(name, value)
                out.setdefault(
                    "Content-Security-Policy", DOCS_CSP if path.startswith(DOCS_PATHS) else OTHER_CSP
                )
                if https:
                    out.setdefault("Strict-Transport-Security", HSTS)
            await send(message)

        if refusal is not None:
            await refusal(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)


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
    "pair.html": Page("Pair this phone", "pair.js", None),
    "kiosk.html": Page("Sign the TV in", "kiosk.js", None),
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
        value = strict_json(text)
    except NotStandardJson as exc:
        raise HTTPException(400, f"{name}: {exc}") from None
    except ValueError as exc:  # also json's 4300-digit limit on numbers, not only JSONDecodeError
        raise HTTPException(400, f"{name}: not valid JSON ({exc})") from None
    except RecursionError:
        raise HTTPException(400, f"{name}: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise HTTPException(400, f"{name}: expected a JSON object of fields, e.g. {example}")
    return value
