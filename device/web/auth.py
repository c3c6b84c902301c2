"""Who is asking: a paired device (the table's owner), the kiosk (the TV), or a player's phone.

The model of the appliances people trust (Home Assistant, OctoPrint): a phone is paired once, with the code
the TV shows, and then holds a device login, an HttpOnly, SameSite=Strict cookie; every owner's action (the
game set-up, calibration, deleting history) needs one (:class:`AdminGuard`), whatever address it comes from:
loopback is not trusted, since any page open in the kiosk's browser and any local process would share it.
The paired devices are listed on the set-up page, where each can be unpaired.

The pairing code is shown only to the kiosk (Chromium on the TV), which proves itself with a token the
installer gives it (``/kiosk?token=...`` sets its own cookie); never to a client for where it connects from.
A code is eight digits, lasts :data:`CODE_LIFE_S` and is used once; wrong codes are counted per client and
overall, atomically and on disk (:class:`Attempts`), so neither 300 guesses sent at once nor a restart buys
more tries.

A phone that is not paired may still upload photos and change the results it sent itself: it carries an
anonymous player cookie, set on its first upload, that names its results. Scripts may send a paired
device's token as ``Authorization: Bearer TOKEN`` instead of the cookie.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request, Response
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from calibration.store import StoreError, read_versioned, write_json_atomic

PLAYER_COOKIE = "garden_player"
DEVICE_COOKIE = "garden_device"
KIOSK_COOKIE = "garden_kiosk"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # browsers cap a cookie's life at 400 days

CODE_DIGITS = 8
CODE_LIFE_S = 300.0
MAX_DEVICES = 32
NAME_MAX = 40
# Wrong codes or kiosk tokens: per client, then from everyone together (many addresses on one network).
CLIENT_TRIES = 5
CLIENT_WINDOW_S = 900.0
ALL_TRIES = 20
ALL_WINDOW_S = 3600.0
MIN_KIOSK_TOKEN = 16

NEEDS_PAIRING: dict[str, Any] = {
    "description": "from a device that is not paired (pair it with the code shown on the TV)"
}
PAIR_FIRST = (
    "this is for the table's owner: pair this phone first (open /pair and type the code the TV shows)"
)

DEVICES_KIND = "paired-devices"
DEVICES_VERSION = 1
ATTEMPTS_KIND = "sign-in-attempts"
ATTEMPTS_VERSION = 1


def _address(request: Request) -> str:
    return request.client.host if request.client else "an unknown address"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Device:
    """A paired device; its login token is kept only as its SHA-256."""

    id: str
    name: str
    token_sha256: str
    paired_at: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "paired_at": self.paired_at}


class Devices:
    """``devices.json``: the paired devices, written atomically at every change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._devices: dict[str, Device] = {}
        if path.exists():
            try:
                data = read_versioned(path, DEVICES_KIND, (DEVICES_VERSION,))
                self._devices = {d["id"]: Device(**d) for d in data["devices"]}
            except (StoreError, KeyError, TypeError) as exc:
                # Unpairing everything is safe; trusting a damaged file is not. Say so at start-up.
                raise StoreError(f"{path}: {exc}; remove it and pair your phones again") from None

    def pair(self, name: str) -> tuple[Device, str]:
        """A new device named ``name`` and its login token (shown to it once, never stored)."""
        token = secrets.token_urlsafe(32)
        device = Device(secrets.token_hex(4), name, _hash(token), _now_iso())
        with self._lock:
            if len(self._devices) >= MAX_DEVICES:
                raise HTTPException(409, f"{MAX_DEVICES} devices are paired: unpair one on the set-up page")
            self._devices[device.id] = device
            self._save()
        return device, token

    def find(self, token: str) -> Device | None:
        digest = _hash(token)
        # The digests of random tokens: comparing them leaks nothing a guess could use.
        return next((d for d in self._devices.values() if hmac.compare_digest(d.token_sha256, digest)), None)

    def unpair(self, device_id: str) -> bool:
        with self._lock:
            if self._devices.pop(device_id, None) is None:
                return False
            self._save()
        return True

    def all(self) -> list[Device]:
        return sorted(self._devices.values(), key=lambda d: d.paired_at)

    def _save(self) -> None:
        devices = [asdict(d) for d in self._devices.values()]
        write_json_atomic(self.path, {"kind": DEVICES_KIND, "version": DEVICES_VERSION, "devices": devices})


class Attempts:
    """Tries at a secret (pairing code, kiosk token), limited per client and overall.

    :meth:`begin` counts a try before the secret is compared and refuses one over either limit, in one step
    under a lock, so concurrent requests cannot all pass the check first; :meth:`succeeded` takes a right try
    back. The tries are written to ``path`` at every change, so a restart forgets none.
    """

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self._lock = threading.Lock()
        self._tries: list[tuple[str, float]] = []
        if path.exists():
            try:
                data = read_versioned(path, ATTEMPTS_KIND, (ATTEMPTS_VERSION,))
                self._tries = [(str(k), float(t)) for k, t in data["tries"]]
            except (StoreError, KeyError, TypeError, ValueError):
                # Damaged: count as if every try of the last hour had been spent, rather than none.
                self._tries = [("?", self.clock())] * ALL_TRIES

    def begin(self, client: str) -> float:
        """Counts a try by ``client``; raises 429 with the wait when it is over a limit. Returns its time."""
        with self._lock:
            now = self.clock()
            self._tries = [(k, t) for k, t in self._tries if t > now - ALL_WINDOW_S]
            mine = [t for k, t in self._tries if k == client and t > now - CLIENT_WINDOW_S]
            if len(mine) >= CLIENT_TRIES:
                wait = mine[0] + CLIENT_WINDOW_S - now
            elif len(self._tries) >= ALL_TRIES:
                wait = self._tries[0][1] + ALL_WINDOW_S - now
            else:
                self._tries.append((client, now))
                self._save()
                return now
        minutes = max(1, round(wait / 60))
        raise HTTPException(
            429,
            f"too many wrong codes: try again in {minutes} min",
            headers={"Retry-After": str(round(wait))},
        )

    def succeeded(self, client: str, at: float) -> None:
        with self._lock:
            if (client, at) in self._tries:
                self._tries.remove((client, at))
                self._save()

    def _save(self) -> None:
        write_json_atomic(
            self.path,
            {"kind": ATTEMPTS_KIND, "version": ATTEMPTS_VERSION, "tries": [list(t) for t in self._tries]},
        )


class PairingCode:
    """The code the TV shows: eight random digits, new after :data:`CODE_LIFE_S` or once used."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._code = ""
        self._until = 0.0

    def current(self) -> tuple[str, float]:
        """The code and the seconds it has left."""
        with self._lock:
            now = self.clock()
            if now >= self._until:
                self._code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
                self._until = now + CODE_LIFE_S
            return self._code, self._until - now

    def redeem(self, typed: str) -> bool:
        """Whether ``typed`` (spaces allowed) is the live code; a right one is used up."""
        given = "".join(typed.split())
        with self._lock:
            live = self._code and self.clock() < self._until
            if live and hmac.compare_digest(given.encode(), self._code.encode()):
                self._until = 0.0
                return True
        return False


def new_kiosk_token() -> str:
    return secrets.token_urlsafe(24)


def check_kiosk_token(token: str) -> str:
    if len(token) < MIN_KIOSK_TOKEN or not token.isprintable() or " " in token:
        raise ValueError(f"the kiosk token must be {MIN_KIOSK_TOKEN} or more printable characters, no spaces")
    return token


class DeviceLogin:
    """ASGI middleware: names the paired device that sent a request (its cookie, or a bearer token) in
    ``request.state.device_name``, and whether it is the kiosk in ``request.state.kiosk``."""

    def __init__(self, app: ASGIApp, devices: Devices, kiosk_token: str) -> None:
        self.app = app
        self.devices = devices
        self.kiosk_token = kiosk_token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            cookies = cookie_parser(headers.get("cookie", ""))
            bearer = headers.get("authorization", "")
            token = bearer[7:] if bearer[:7].lower() == "bearer " else cookies.get(DEVICE_COOKIE, "")
            device = self.devices.find(token) if token else None
            state = scope.setdefault("state", {})
            state["device_name"] = device.name if device else None
            state["device_id"] = device.id if device else None
            kiosk = cookies.get(KIOSK_COOKIE, "").encode()
            state["kiosk"] = bool(kiosk) and hmac.compare_digest(kiosk, self.kiosk_token)
        await self.app(scope, receive, send)


def paired_name(request: Request) -> str | None:
    """The name of the paired device that sent ``request``, or None (set by :class:`DeviceLogin`)."""
    name = getattr(request.state, "device_name", None)
    return name if isinstance(name, str) else None


def is_admin(request: Request) -> bool:
    """Whether ``request`` comes from a paired device, which may do the owner's tasks."""
    return paired_name(request) is not None


def is_kiosk(request: Request) -> bool:
    return getattr(request.state, "kiosk", False) is True


class AdminGuard:
    """A FastAPI dependency: passes paired devices only."""

    async def __call__(self, request: Request) -> None:
        if not is_admin(request):
            raise HTTPException(403, PAIR_FIRST)


def set_login_cookie(request: Request, response: Response, name: str, value: str) -> None:
    """A cookie no script can read and no other site's page can send."""
    response.set_cookie(
        name,
        value,
        max_age=COOKIE_MAX_AGE_S,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def player_id(request: Request) -> str | None:
    """The anonymous id of the browser that sent ``request``, from its player cookie; None before its first
    upload."""
    value = request.cookies.get(PLAYER_COOKIE)
    return value if value and len(value) <= 64 and value.replace("-", "").replace("_", "").isalnum() else None


def give_player_id(request: Request, response: Response) -> str:
    """The browser's player id, set as its cookie with ``response`` when it has none yet."""
    known = player_id(request)
    if known is not None:
        return known
    new = secrets.token_urlsafe(16)
    set_login_cookie(request, response, PLAYER_COOKIE, new)
    return new


def who(request: Request) -> str:
    """In words, who sent ``request``: for the history's record of who corrected a result and when."""
    name = paired_name(request)
    if name is not None:
        return f"paired device {name!r} ({_address(request)})"
    return f"player's phone at {_address(request)}"
