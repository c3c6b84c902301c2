"""Waiting for a server the lab started (in a thread or a process of its own) to answer."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx


def wait_for_app(url: str, running: Callable[[], str | None], timeout_s: float, poll_s: float = 0.05) -> None:
    """Returns once the app at ``url`` answers ``/api/tv``; RuntimeError when ``running()`` says why it
    stopped (None while it runs) or after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        stopped = running()
        if stopped is not None:
            raise RuntimeError(stopped)
        try:
            if httpx.get(f"{url}/api/tv", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the app did not answer at {url} within {timeout_s} s")
        time.sleep(poll_s)
