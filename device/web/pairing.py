"""Pairing a phone with the code the TV shows, the kiosk's sign-in, and the list of paired devices.

``POST /kiosk`` with the kiosk's token (a form field) signs the TV's browser in as the kiosk, with a session
cookie of its own, and goes on to ``/tv``. The installer's autostart opens a page file that posts it
(``garden-scorer kiosk-page``), so the token is never in an address or on a command line; ``GET /kiosk`` is
a form to paste it into by hand. ``GET /api/tv/pairing`` gives the kiosk alone the code to show.
``POST /api/pair`` with that code pairs the phone that sends it; ``GET /api/pair`` says what kind of code
the TV shows now (digits, or letters and digits under a flood of wrong codes). ``GET /api/me`` says what the
asking browser is. The set-up page lists the paired devices and the kiosk's sessions (``GET /api/devices``)
and unpairs or signs them out (``DELETE /api/devices/{id}``).
"""

from __future__ import annotations

import hmac
import socket
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, Response
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from device.web.auth import (
    ADMIN_ONLY,
    DEVICE_COOKIE,
    KIOSK,
    KIOSK_COOKIE,
    NAME_MAX,
    NEEDS_PAIRING,
    PHONE,
    is_kiosk,
    paired_name,
    set_login_cookie,
)
from device.web.bodies import Guarded
from device.web.places import client_key
from device.web.security import page_response
from device.web.services import AttemptsDep, DevicesDep, KioskTokenDep, OnNetworkDep, PairingCodeDep


class PairRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(max_length=32, description="the code the TV shows (spaces allowed)")
    name: str = Field(min_length=1, max_length=NAME_MAX, description="what to call this device in the list")


class PairingInfo(BaseModel):
    code: str = Field(description="eight digits (or twelve letters and digits), shown in groups of four")
    expires_in_s: int
    address: str | None = Field(
        description="where a phone on the network opens the pairing page; None when the scorer listens on "
        "this machine only, where no phone reaches it"
    )


class CodeKind(BaseModel):
    length: int = Field(description="how many characters the code the TV shows has, spaces left out")
    letters: bool = Field(description="whether it has letters: after many wrong codes it is longer")


class Me(BaseModel):
    paired: bool
    name: str | None
    kiosk: bool


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _guesser(request: Request) -> str:
    """Whom a try at the code counts against: an IPv6 device by its /64, whence it takes new addresses."""
    return client_key(_client(request))


def network_address() -> str | None:
    """This machine's address on its network (the one its default route leaves by), or None offline.

    A UDP socket "connected" to a documentation address sends nothing; it only picks the way out.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address: str = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("0.") else address


def pairing_address(request: Request) -> str:
    """The pairing page's address as a phone on the network reaches it; the kiosk itself asks on loopback."""
    host = request.url.hostname or "localhost"
    if host in ("127.0.0.1", "::1", "localhost"):
        host = network_address() or host
    port = request.url.port
    shown = f"[{host}]" if ":" in host else host
    return f"{request.url.scheme}://{shown}{f':{port}' if port else ''}/pair"


def _grouped(code: str) -> str:
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4))


router = APIRouter(tags=["pairing"], route_class=Guarded)


@router.get("/kiosk", include_in_schema=False)
def kiosk_page() -> HTMLResponse:
    return page_response("kiosk.html")


@router.post("/kiosk", include_in_schema=False)
def kiosk(
    request: Request,
    token: Annotated[str, Form(max_length=256)],
    devices: DevicesDep,
    kiosk_token: KioskTokenDep,
) -> RedirectResponse:
    """Signs the TV's browser in as the kiosk: a session of its own, listed with the paired devices."""
    # Not counted with the codes: 32 random characters are not guessed, and a flood of wrong codes must not
    # keep the TV from signing in.
    if not hmac.compare_digest(token.strip().encode(), kiosk_token.encode()):
        raise HTTPException(403, "not this scorer's kiosk token: use the one the installer set up")
    _, session = devices.pair(f"TV kiosk ({_client(request)})", KIOSK)
    response = RedirectResponse("/tv", status_code=303)
    set_login_cookie(request, response, KIOSK_COOKIE, session)
    return response


@router.get("/pair", include_in_schema=False)
def pair_page() -> HTMLResponse:
    return page_response("pair.html")


@router.get("/api/tv/pairing", responses={403: {"description": "not the TV's kiosk browser"}})
def pairing_code(request: Request, code: PairingCodeDep, on_network: OnNetworkDep) -> PairingInfo:
    """The code that pairs a phone; only the kiosk on the TV is shown it."""
    if not is_kiosk(request):
        raise HTTPException(403, "the pairing code is shown on the TV only")
    shown, left = code.current()
    # Listening on this machine only, the app has no address a phone could open: the TV says how to give one.
    address = pairing_address(request) if on_network else None
    return PairingInfo(code=_grouped(shown), expires_in_s=int(left), address=address)


@router.get("/api/pair")
def code_kind(code: PairingCodeDep) -> CodeKind:
    """What kind of code the TV shows now, for the pairing page's keyboard."""
    shown, _ = code.current()
    return CodeKind(length=len(shown), letters=not shown.isdigit())


@router.post(
    "/api/pair",
    responses={
        400: {"description": "not a JSON body"},
        403: {"description": "a wrong or used code"},
        429: {"description": "too many wrong codes: wait for Retry-After"},
    },
)
def pair(
    request: Request,
    response: Response,
    asked: PairRequest,
    code: PairingCodeDep,
    attempts: AttemptsDep,
    devices: DevicesDep,
) -> Me:
    """Pairs this device with the code the TV shows: a login cookie the set-up page can revoke."""
    at = attempts.begin(_guesser(request))
    if not code.redeem(asked.code):
        raise HTTPException(403, "that is not the code the TV shows now: check it and type it again")
    attempts.succeeded(_guesser(request), at)
    device, token = devices.pair(" ".join(asked.name.split()), PHONE)
    set_login_cookie(request, response, DEVICE_COOKIE, token)
    return Me(paired=True, name=device.name, kiosk=is_kiosk(request))


@router.get("/api/me")
def me(request: Request) -> Me:
    """Whether this browser is a paired device, and whether it is the TV's kiosk."""
    name = paired_name(request)
    return Me(paired=name is not None, name=name, kiosk=is_kiosk(request))


@router.get("/api/devices", dependencies=[ADMIN_ONLY], responses={403: NEEDS_PAIRING})
def paired_devices(request: Request, devices: DevicesDep) -> list[dict[str, Any]]:
    """The paired devices and the kiosk's sessions, this one marked."""
    mine = getattr(request.state, "device_id", None)
    return [{**d.to_json(), "this": d.id == mine} for d in devices.all()]


@router.delete(
    "/api/devices/{device_id}",
    dependencies=[ADMIN_ONLY],
    responses={403: NEEDS_PAIRING, 404: {"description": "no such paired device"}},
)
def unpair(
    request: Request,
    response: Response,
    device_id: Annotated[str, PathParam(pattern="^[0-9a-f]{8}$")],
    devices: DevicesDep,
) -> dict[str, str]:
    """Unpairs a device, or signs a kiosk session out: its login stops working at once."""
    if not devices.unpair(device_id):
        raise HTTPException(404, "no such paired device")
    if device_id == getattr(request.state, "device_id", None):
        response.delete_cookie(DEVICE_COOKIE)
    return {"unpaired": device_id}
