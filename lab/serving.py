"""Serving the app in the lab as ``garden-scorer serve`` does, and waiting for a server the lab started (in a
thread or a process of its own) to answer."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from fastapi import FastAPI

from device.serve import listening_socket, server_config

# The networks of the Pi's own clients as the lab's servers see them: 127.0.0.2 and up stand for phones.
LOCAL_CLIENTS = ("127.0.0.1/32",)


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


@contextmanager
def serve_in_thread(app: FastAPI, timeout_s: float = 10.0) -> Iterator[str]:
    """Runs ``app`` under uvicorn as ``garden-scorer serve`` does (``server_config``) on a free localhost port
    in a background thread; yields its base URL. Only 127.0.0.1 is the Pi's own client there
    (:data:`LOCAL_CLIENTS`)."""
    # Bound here and handed over, so no other process can take the port meanwhile.
    sock = listening_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config = server_config(app, local=LOCAL_CLIENTS)
    config.timeout_graceful_shutdown = 2
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True)
    thread.start()
    try:
        wait_for_app(
            url,
            lambda: None if thread.is_alive() else "uvicorn stopped while starting (see the log above)",
            timeout_s,
        )
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout_s)
        sock.close()
