"""Who is asking: a paired device (the table's owner), the kiosk (the TV), or a player's phone.

A phone is paired once with the code the TV shows; it then holds a device login, an HttpOnly, SameSite=Strict
cookie, and every admin action needs one (:class:`AdminGuard`). A phone that is not paired may still upload
photos and correct the results it sent itself: it carries an anonymous player cookie, set on its first
upload, that names its results. The kiosk (Chromium on the TV) proves itself with a token the installer
gives it; only the kiosk is shown the pairing code.
"""

from __future__ import annotations

import secrets

from fastapi import Request, Response

PLAYER_COOKIE = "garden_player"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # browsers cap a cookie's life at 400 days


def _address(request: Request) -> str:
    return request.client.host if request.client else "an unknown address"


def paired_name(request: Request) -> str | None:
    """The name of the paired device that sent ``request``, or None (set by the app's device check)."""
    name = getattr(request.state, "device_name", None)
    return name if isinstance(name, str) else None


def is_admin(request: Request) -> bool:
    """Whether ``request`` comes from a paired device, which may do the owner's tasks."""
    return paired_name(request) is not None


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
    response.set_cookie(
        PLAYER_COOKIE,
        new,
        max_age=COOKIE_MAX_AGE_S,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return new


def who(request: Request) -> str:
    """In words, who sent ``request``: for the history's record of who corrected a result and when."""
    name = paired_name(request)
    if name is not None:
        return f"paired device {name!r} ({_address(request)})"
    return f"player's phone at {_address(request)}"
