"""Pairing a client with a running app as its owner does: the kiosk is shown the code, the phone types it.

For the tests, the page tests, the screenshots and the reliability harnesses, which all act as the owner.
"""

from __future__ import annotations

import httpx

# The kiosk token the lab's apps are built with (AppConfig.kiosk_token).
KIOSK_TOKEN = "lab-kiosk-token-0123456789"


def pairing_code(kiosk: httpx.Client, token: str = KIOSK_TOKEN) -> str:
    """The code the TV shows, read by ``kiosk`` once it is signed in as the kiosk (with ``token``, as the TV's
    start-up page does, when it is not yet)."""
    if not kiosk.get("/api/me").json().get("kiosk"):
        signed_in = kiosk.post("/kiosk", data={"token": token}, follow_redirects=False)
        if signed_in.status_code != 303:
            raise RuntimeError(f"the kiosk could not sign in: {signed_in.status_code} {signed_in.text}")
    shown = kiosk.get("/api/tv/pairing")
    shown.raise_for_status()
    code: str = shown.json()["code"]
    return code


def pair(
    client: httpx.Client, kiosk: httpx.Client, name: str = "owner's phone", token: str = KIOSK_TOKEN
) -> str:
    """Pairs ``client``: it holds a paired device's login cookie afterwards. Returns the login, which a
    program may also send as ``Authorization: Bearer LOGIN``."""
    from device.web.auth import DEVICE_COOKIE

    paired = client.post("/api/pair", json={"code": pairing_code(kiosk, token), "name": name})
    if paired.status_code != 200:
        raise RuntimeError(f"pairing failed: {paired.status_code} {paired.text}")
    login: str = paired.cookies[DEVICE_COOKIE]
    return login
