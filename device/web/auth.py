"""Who is asking: a paired device (the table's owner), the kiosk (the TV), or a player's phone.

The model of the appliances people trust (Home Assistant, OctoPrint): a phone is paired once, with the code
the TV shows, and then holds a device login, an HttpOnly, SameSite=Strict cookie; every owner's action (the
game set-up, calibration, deleting history) needs one (:class:`AdminGuard`), whatever address it comes from:
loopback is not trusted, since any page open in the kiosk's browser and any local process would share it.
The paired devices are listed on the set-up page, where each can be unpaired.

The pairing code is shown only to the kiosk (Chromium on the TV); never to a client for where it connects
from. The kiosk proves itself once with a token the installer gives it, posted to ``/kiosk`` from a page
file (never in a URL or on a command line, where other users of the Pi could read it), and then holds a
kiosk session of its own, listed with the paired devices and revocable like them.

A code is eight digits, lasts :data:`CODE_LIFE_S` and is used once. Wrong codes are counted per client (an
IPv6 client by its /64 network) and overall, atomically and on disk (:class:`Attempts`), so neither 300
guesses sent at once nor a restart buys more tries. A client past its own limit (:data:`CLIENT_TRIES` in
:data:`CLIENT_WINDOW_S`) is refused (429). Past the overall limit (:data:`ALL_TRIES` in
:data:`ALL_WINDOW_S`, from every address together) nobody is refused, so that no flood can keep the owner
from pairing: the TV shows a long code instead (:data:`LONG_CODE_CHARS` letters and digits, 60 bits),
which no number of guesses a LAN can send finds.

A phone that is not paired may still upload photos and change the results it sent itself: it carries an
anonymous player cookie, issued by the scorer on its first upload and signed with the scorer's own key (a
browser cannot choose one), that names its results. Scripts may send a paired device's token as
``Authorization: Bearer TOKEN`` instead of the cookie.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Depends, HTTPException, Request, Response
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from calibration.store import StoreError, read_versioned, write_json_atomic

log = logging.getLogger(__name__)

PLAYER_COOKIE = "garden_player"
DEVICE_COOKIE = "garden_device"
KIOSK_COOKIE = "garden_kiosk"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # browsers cap a cookie's life at 400 days

CODE_DIGITS = 8
CODE_LIFE_S = 300.0
# Crockford's base 32: no I, L, O or U, which are read as 1, 1, 0 or mistaken; 12 of them are 60 bits.
LONG_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LONG_CODE_CHARS = 12
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None})
MAX_DEVICES = 32
# The TV's browser signing in again (each boot, each login) replaces its oldest session past these.
MAX_KIOSK_SESSIONS = 4
NAME_MAX = 40
# Wrong codes: per client, then from everyone together (many addresses on one network). At 20 an hour, an
# 8-digit code is found by guessing once in 570 years; past that the code is long (see the module doc).
CLIENT_TRIES = 5
CLIENT_WINDOW_S = 900.0
ALL_TRIES = 20
ALL_WINDOW_S = 3600.0
SAVE_EVERY_S = 1.0
KEPT_TRIES = 4096
MIN_KIOSK_TOKEN = 16

NEEDS_PAIRING: dict[str, Any] = {
    "description": "from a device that is not paired (pair it with the code shown on the TV)"
}
PAIR_FIRST = (
    "this is for the table's owner: pair this phone first (open /pair and type the code the TV shows)"
)

DEVICES_KIND = "paired-devices"
DEVICES_VERSION = 2  # 2: each device has a role (a phone, or the TV's kiosk)
ATTEMPTS_KIND = "sign-in-attempts"
ATTEMPTS_VERSION = 1
KEY_KIND = "web-key"
KEY_VERSION = 1
PHONE = "phone"
KIOSK = "kiosk"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Device:
    """A paired device (``role`` "phone": the owner's) or a kiosk session ("kiosk": the TV's browser); its
    login token is kept only as its SHA-256."""

    id: str
    name: str
    token_sha256: str
    paired_at: str
    role: str = PHONE

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "paired_at": self.paired_at, "role": self.role}


class Devices:
    """``devices.json``: the paired devices and the kiosk's sessions, written atomically at every change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._devices: dict[str, Device] = {}
        if path.exists():
            try:
                data = read_versioned(path, DEVICES_KIND, (1, DEVICES_VERSION))
                # Version 1 listed phones only.
                self._devices = {d["id"]: Device(**d) for d in data["devices"]}
                if any(d.role not in (PHONE, KIOSK) for d in self._devices.values()):
                    raise StoreError("a device of an unknown role")
            except (StoreError, KeyError, TypeError) as exc:
                # Unpairing everything is safe; trusting a damaged file is not. Say so at start-up.
                raise StoreError(f"{path}: {exc}; remove it and pair your phones again") from None

    def pair(self, name: str, role: str = PHONE) -> tuple[Device, str]:
        """A new device named ``name`` and its login token (shown to it once, never stored). A kiosk session
        past :data:`MAX_KIOSK_SESSIONS` replaces the oldest."""
        token = secrets.token_urlsafe(32)
        device = Device(secrets.token_hex(4), name, _hash(token), _now_iso(), role)
        with self._lock:
            same = sorted((d for d in self._devices.values() if d.role == role), key=lambda d: d.paired_at)
            if role == KIOSK:
                for old in same[: max(0, len(same) - MAX_KIOSK_SESSIONS + 1)]:
                    del self._devices[old.id]
            elif len(same) >= MAX_DEVICES:
                raise HTTPException(409, f"{MAX_DEVICES} devices are paired: unpair one on the set-up page")
            self._devices[device.id] = device
            self._save()
        return device, token

    def find(self, token: str, role: str = PHONE) -> Device | None:
        digest = _hash(token)
        # The digests of random tokens: comparing them leaks nothing a guess could use.
        return next(
            (
                d
                for d in self._devices.values()
                if d.role == role and hmac.compare_digest(d.token_sha256, digest)
            ),
            None,
        )

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
    """Wrong tries at the pairing code, limited per client and counted overall.

    :meth:`begin` counts a try before the code is compared and refuses one over the client's limit, in one
    step under a lock, so concurrent requests cannot all pass the check first; :meth:`succeeded` takes a
    right try back; :meth:`flooded` says whether everyone's tries together are over the overall limit. The
    tries are written to ``path`` at most every :data:`SAVE_EVERY_S` (and at :meth:`close`), not at every
    try: a flood of wrong codes from many addresses, each written and synced in turn, held every other request
    waiting (an attack took ``/api/tv`` 34 s to answer). A restart forgets at most that last moment's tries.
    At most :data:`KEPT_TRIES` are kept, the newest: far past the overall limit, which a flood reaches first.
    """

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self._lock = threading.Lock()
        self._tries: list[tuple[str, float]] = []
        self._saving: threading.Timer | None = None
        if path.exists():
            try:
                data = read_versioned(path, ATTEMPTS_KIND, (ATTEMPTS_VERSION,))
                self._tries = [(str(k), float(t)) for k, t in data["tries"]]
            except (StoreError, KeyError, TypeError, ValueError):
                # Damaged: count as if every try of the last hour had been spent, rather than none.
                self._tries = [("?", self.clock())] * ALL_TRIES

    def begin(self, client: str) -> float:
        """Counts a try by ``client``; 429 with the wait when it is over its own limit. Returns its time."""
        with self._lock:
            now = self._forget_old()
            mine = [t for k, t in self._tries if k == client and t > now - CLIENT_WINDOW_S]
            if len(mine) < CLIENT_TRIES:
                self._tries = [*self._tries[-(KEPT_TRIES - 1) :], (client, now)]
                self._save_soon()
                return now
            wait = mine[0] + CLIENT_WINDOW_S - now
        minutes = max(1, round(wait / 60))
        raise HTTPException(
            429,
            f"too many wrong codes from this phone: try again in {minutes} min",
            headers={"Retry-After": str(round(wait))},
        )

    def succeeded(self, client: str, at: float) -> None:
        with self._lock:
            if (client, at) in self._tries:
                self._tries.remove((client, at))
                self._save_soon()

    def flooded(self) -> bool:
        """Whether the tries of the last :data:`ALL_WINDOW_S`, from everyone, reach :data:`ALL_TRIES`."""
        with self._lock:
            self._forget_old()
            return len(self._tries) >= ALL_TRIES

    def close(self) -> None:
        """Writes what is not written yet (the app stopping)."""
        with self._lock:
            if self._saving is not None:
                self._saving.cancel()
                self._saving = None
                self._save()

    def _forget_old(self) -> float:
        now = self.clock()
        self._tries = [(k, t) for k, t in self._tries if t > now - ALL_WINDOW_S]
        return now

    def _save_soon(self) -> None:
        """Under the lock: a save in :data:`SAVE_EVERY_S`, of every change made till then."""
        if self._saving is None:
            self._saving = threading.Timer(SAVE_EVERY_S, self._saved)
            self._saving.daemon = True
            self._saving.start()

    def _saved(self) -> None:
        with self._lock:
            self._saving = None
            self._save()

    def _save(self) -> None:
        write_json_atomic(
            self.path,
            {"kind": ATTEMPTS_KIND, "version": ATTEMPTS_VERSION, "tries": [list(t) for t in self._tries]},
        )


def normal_code(typed: str) -> str:
    """A code as typed, as it is compared: no spaces or dashes, upper case, O read as 0 and I, L as 1."""
    return "".join(typed.split()).upper().translate(_READ_AS)


class PairingCode:
    """The code the TV shows: eight random digits, new after :data:`CODE_LIFE_S` or once used; while
    ``long()`` says so (too many wrong codes overall), :data:`LONG_CODE_CHARS` letters and digits."""

    def __init__(self, long: Callable[[], bool] = lambda: False, clock: Callable[[], float] = time.monotonic):
        self.long = long
        self.clock = clock
        self._lock = threading.Lock()
        self._code = ""
        self._until = 0.0

    def current(self) -> tuple[str, float]:
        """The code and the seconds it has left."""
        long = self.long()
        with self._lock:
            now = self.clock()
            # A short code under a flood of guesses is retired at once, not at its time.
            if now >= self._until or long != (len(self._code) == LONG_CODE_CHARS):
                self._code = (
                    "".join(secrets.choice(LONG_CODE_ALPHABET) for _ in range(LONG_CODE_CHARS))
                    if long
                    else f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
                )
                self._until = now + CODE_LIFE_S
            return self._code, self._until - now

    def redeem(self, typed: str) -> bool:
        """Whether ``typed`` (spaces allowed, letters in either case) is the live code; a right one is used
        up. While codes are long, a short one is not live even if it was: it was shown under a flood."""
        given = normal_code(typed)
        long = self.long()
        with self._lock:
            live = self._code and self.clock() < self._until and long == (len(self._code) == LONG_CODE_CHARS)
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
    ``request.state.device_name``, and whether it is the kiosk (its session cookie) in
    ``request.state.kiosk``."""

    def __init__(self, app: ASGIApp, devices: Devices) -> None:
        self.app = app
        self.devices = devices

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
            kiosk = cookies.get(KIOSK_COOKIE, "")
            state["kiosk"] = bool(kiosk) and self.devices.find(kiosk, KIOSK) is not None
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


# In an owner's route's ``dependencies``: it holds nothing of an app's, so one serves every app.
ADMIN_ONLY = Depends(AdminGuard())


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


class PlayerIds:
    """The anonymous ids the scorer gives browsers in their player cookie: a random id and its HMAC under a
    key of the scorer's own, kept in ``path`` (made on first use), so that a browser can neither choose an
    id nor make one up. A damaged key file is replaced: browsers then get new ids, and lose only the right
    to change the results they sent before."""

    _FORM = re.compile(r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}")

    def __init__(self, path: Path) -> None:
        try:
            self._key = bytes.fromhex(str(read_versioned(path, KEY_KIND, (KEY_VERSION,))["key"]))
            if len(self._key) < 32:
                raise ValueError("a key shorter than 32 bytes")
        except (StoreError, KeyError, TypeError, ValueError) as exc:
            if path.exists():
                log.warning("%s: %s; making a new key (browsers get new player ids)", path, exc)
            self._key = secrets.token_bytes(32)
            write_json_atomic(path, {"kind": KEY_KIND, "version": KEY_VERSION, "key": self._key.hex()})

    def _signed(self, id_: str) -> str:
        mac = hmac.new(self._key, id_.encode(), hashlib.sha256).digest()[:16]
        return f"{id_}.{base64.urlsafe_b64encode(mac).decode().rstrip('=')}"

    def of(self, request: Request) -> str | None:
        """The id the scorer gave the browser that sent ``request`` (its player cookie); None before its
        first upload, or for a cookie the scorer did not issue."""
        value = request.cookies.get(PLAYER_COOKIE, "")
        if not self._FORM.fullmatch(value):
            return None
        return value if hmac.compare_digest(self._signed(value.split(".")[0]), value) else None

    def give(self, request: Request, response: Response) -> str:
        """The browser's player id, issued now and set as its cookie with ``response`` when it has none."""
        known = self.of(request)
        if known is not None:
            return known
        new = self._signed(secrets.token_urlsafe(16))
        set_login_cookie(request, response, PLAYER_COOKIE, new)
        return new


def who(request: Request) -> str:
    """In words, who sent ``request``: for the history's record of who corrected a result and when, as the
    players read it on the result page (a name, never a network address: only the photo's sender's own phone
    or a paired one may change a result)."""
    name = paired_name(request)
    if name is not None:
        return f"the paired phone “{name}”"
    return "the phone that sent the photo"
