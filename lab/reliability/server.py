"""The real server as a process of its own (``garden-scorer serve --camera none``): what a crowd of uploads
costs it, and what a kill -9 in the middle of an upload leaves behind.

**Flood** (:func:`run_flood`): ``clients`` phones each send one photo with three ``also`` photos at once, all
the same picture: a 16-bit RGB PNG of ``megapixels`` (refused from its header by the bytes its pixels take)
or a JPEG of as many (decoded, reduced, and read). Meanwhile a TV asks ``/api/tv`` every
:data:`TV_EVERY_S` on a kept-open connection. The figures: the server's peak memory (``VmHWM``: resident,
the models loaded by a first upload before the flood included), each answer's status, and the TV's
latencies. The issue's bar: under 600 MB, and the TV answered within 100 ms.

**Kills during uploads** (:func:`run_upload_kills`): a phone sends a photo with an Idempotency-Key; the
server is killed (SIGKILL) a random moment later, started again, and the phone sends the same request again,
as the page does when its answer was lost. Then the history must hold that upload exactly once, and the
results folder nothing half written.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np

from examples import EXAMPLES_DIR
from lab.reliability.fuzz import crafted_png
from lab.serving import wait_for_app

PHOTO = EXAMPLES_DIR / "photos" / "alices-garden.jpg"
GAME = "alices-garden"
ALSO = 3
FLOOD_KINDS = ("png16", "jpeg")
TV_EVERY_S = 0.05
START_TIMEOUT_S = 120.0
REQUEST_TIMEOUT_S = 300.0
MEMORY_BAR_MB = 600
# An upload of the example photo takes about 0.2 s on loopback: kills fall before, in and after it.
KILL_WITHIN_S = 0.3
TV_BAR_MS = 100


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def server_process(state: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``garden-scorer serve`` over the state folder ``state`` on a free loopback port, once it answers."""
    port = _free_port()
    command = [sys.executable, "-m", "device.cli", "--state-dir", str(state), "serve", "--camera", "none"]
    command += ["--game", GAME, "--host", "127.0.0.1", "--port", str(port)]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_app(
            url,
            lambda: (
                None if child.poll() is None else f"the server ended while starting (exit {child.returncode})"
            ),
            START_TIMEOUT_S,
            poll_s=0.1,
        )
        yield child, url
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
            try:
                child.wait(15)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (Linux's VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc: the flood measures memory on Linux only")


def flood_photo(kind: str, megapixels: float) -> tuple[str, bytes, str]:
    """The picture every phone sends: (file name, bytes, content type)."""
    width = int((megapixels * 1e6 * 4 / 3) ** 0.5)
    height = int(width * 3 / 4)
    if kind == "png16":
        return "deep.png", crafted_png(width, height, 16, 2), "image/png"
    # A smooth picture: a real phone photo's size in pixels, a small file.
    ramp = np.linspace(0, 255, width, dtype=np.float32)
    image = np.repeat(ramp[None, :], height, axis=0).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", cv2.merge([image, image[::-1], image]), [cv2.IMWRITE_JPEG_QUALITY, 70])
    if not ok:
        raise RuntimeError("could not encode the flood's JPEG")
    return "big.jpg", data.tobytes(), "image/jpeg"


def run_flood(clients: int, megapixels: float, kind: str) -> dict[str, Any]:
    """See the module doc; ``kind`` "png16" or "jpeg"."""
    import tempfile

    name, photo, content_type = flood_photo(kind, megapixels)
    files = [("file", (name, photo, content_type))] + [("also", (name, photo, content_type))] * ALSO
    with tempfile.TemporaryDirectory(prefix="flood-") as state, server_process(Path(state)) as (child, url):
        # The models load with the first photo read: part of the server a flood meets.
        with PHOTO.open("rb") as first:
            httpx.post(
                f"{url}/api/score?game={GAME}", files={"file": (PHOTO.name, first, "image/jpeg")}, timeout=120
            )
        before = _peak_mb(child.pid)
        statuses: list[int] = []
        tv_ms: list[float] = []
        done = threading.Event()
        start = threading.Barrier(clients + 1)

        def phone() -> None:
            start.wait()
            try:
                with httpx.Client(timeout=REQUEST_TIMEOUT_S) as client:
                    statuses.append(client.post(f"{url}/api/score?game={GAME}", files=files).status_code)
            except httpx.HTTPError:
                statuses.append(0)

        def tv() -> None:
            with httpx.Client(base_url=url, timeout=30) as client:
                start.wait()
                while not done.is_set():
                    asked = time.perf_counter()
                    client.get("/api/tv").raise_for_status()
                    tv_ms.append((time.perf_counter() - asked) * 1000)
                    time.sleep(TV_EVERY_S)

        phones = [threading.Thread(target=phone) for _ in range(clients)]
        watcher = threading.Thread(target=tv)
        for thread in [*phones, watcher]:
            thread.start()
        for thread in phones:
            thread.join()
        done.set()
        watcher.join()
        peak = _peak_mb(child.pid)
    answers: dict[str, int] = {}
    for status in statuses:
        answers[str(status)] = answers.get(str(status), 0) + 1
    tv_sorted = sorted(tv_ms) or [0.0]
    return {
        "photo": f"{megapixels:g} MP {'16-bit PNG' if kind == 'png16' else 'JPEG'}",
        "photo_bytes": len(photo),
        "clients": clients,
        "photos_each": 1 + ALSO,
        "answers": answers,
        "peak_mb_before": round(before, 1),
        "peak_mb": round(peak, 1),
        "tv_requests": len(tv_ms),
        "tv_ms": {
            "p50": round(tv_sorted[len(tv_sorted) // 2], 1),
            "max": round(tv_sorted[-1], 1),
        },
    }


def _upload(url: str, files: Any, headers: dict[str, str], sent: list[int]) -> None:
    """One upload; its status joins ``sent`` if an answer comes (a killed server sends none)."""
    try:
        answer = httpx.post(f"{url}/api/score?game={GAME}", files=files, headers=headers, timeout=120)
        sent.append(answer.status_code)
    except httpx.HTTPError:
        pass


def run_upload_kills(rounds: int, seed: int) -> dict[str, Any]:
    """See the module doc: ``rounds`` kills, each followed by a restart and the same request sent again."""
    import sqlite3
    import tempfile

    from device.web.score import RESULTS_DIR

    rng = random.Random(seed)
    photo = PHOTO.read_bytes()
    problems: list[str] = []
    answered_before_kill = 0
    with tempfile.TemporaryDirectory(prefix="upload-kills-") as folder:
        state = Path(folder)
        for n in range(rounds):
            key = f"kill-round-{seed}-{n:04d}-upload"
            files = {"file": (PHOTO.name, photo, "image/jpeg")}
            headers = {"Idempotency-Key": key, "Cookie": "garden_player=the-same-phone-each-time"}
            with server_process(state) as (child, url):
                sent: list[int] = []
                thread = threading.Thread(target=_upload, args=(url, files, headers, sent))
                thread.start()
                time.sleep(rng.uniform(0.0, KILL_WITHIN_S))  # before, during or after the read and the save
                os.kill(child.pid, signal.SIGKILL)
                child.wait()
                thread.join()
                answered_before_kill += bool(sent)
            with server_process(state) as (_, url):
                again = httpx.post(f"{url}/api/score?game={GAME}", files=files, headers=headers, timeout=120)
                if again.status_code != 200:
                    problems.append(f"round {n}: the retry got {again.status_code}")
                leftovers = [p.name for p in (state / RESULTS_DIR).glob(".*")]
                if leftovers:
                    problems.append(f"round {n}: left over after the restart: {leftovers}")
        with sqlite3.connect(state / "history.sqlite") as conn:
            games = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    if games != rounds:
        problems.append(f"{rounds} uploads, each sent twice around a kill, stored as {games} games")
    return {
        "rounds": rounds,
        "answered_before_kill": answered_before_kill,
        "games": games,
        "problems": problems,
    }
