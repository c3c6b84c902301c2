"""The TV's start-up page: a file that signs the TV's browser in as the kiosk.

The kiosk proves itself with a token the installer keeps in a file readable by the kiosk's user. A token in
the page's address would sit on Chromium's command line, which every user of the Pi can read in /proc. So
the autostart writes this page (``garden-scorer kiosk-page``) into the kiosk user's own runtime folder and
opens the file: it posts the token to ``/kiosk`` as a form, the scorer answers with a kiosk session of its
own (revocable on the set-up page) and sends the browser on to the TV page.
"""

from __future__ import annotations

import os
import tempfile
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

KIOSK_PAGE_NAME = "garden-scorer-kiosk.html"


def kiosk_page(url: str, token: str) -> str:
    """The page that posts ``token`` to the scorer at ``url`` (its base, e.g. http://127.0.0.1:8080/)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--url {url!r}: give the scorer's address, e.g. http://127.0.0.1:8080/")
    action = f"{parts.scheme}://{parts.netloc}/kiosk"
    return (
        '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>garden-scorer: the TV signs '
        'in</title></head>\n<body onload="document.forms[0].submit()">\n'
        f'<form method="post" action="{escape(action)}">\n'
        f'<input type="hidden" name="token" value="{escape(token)}">\n'
        "<noscript><button>Sign the TV in</button></noscript>\n</form>\n"
        "<p>Signing the TV in to garden-scorer…</p>\n</body>\n</html>\n"
    )


def write_kiosk_page(path: Path, url: str, token: str) -> None:
    """``path`` replaced, all or nothing, with :func:`kiosk_page`, readable by its owner alone."""
    page = kiosk_page(url, token)
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp makes the file 0600 before the token is written to it.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(page)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
