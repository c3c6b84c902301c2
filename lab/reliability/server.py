"""The real server as a process of its own (``garden-scorer serve --camera none``): what a crowd of uploads
costs it, and what a kill -9 in the middle of an upload leaves behind.

**Flood** (:func:`run_flood`): ``clients`` phones each send one photo with three ``also`` photos at once, all
the same picture: a 16-bit RGB PNG of ``megapixels`` (refused from its header by the bytes its pixels take)
or a JPEG of as many (decoded, reduced, and read). Meanwhile a TV asks ``/api/tv`` every
:data:`TV_EVERY_S` on a kept-open connection. The figures: the server's peak memory (``VmHWM``: resident,
the models loaded by a first upload before the flood included), each answer's status, and the TV's
latencies. The issue's bar: under 600 MB, and the TV answered within 100 ms.

**Memory under attack** (:func:`run_memory`): each request an attack sent, and the heaviest a player or the
owner sends, once and three at once, on a server whose models are loaded; the server's peak memory over
each (``VmHWM``, reset before each with ``/proc/PID/clear_refs``). The issue's bar: under
:data:`ATTACK_BAR_MB` for any of them.

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
ATTACK_BAR_MB = 400
# An upload of the example photo takes about 0.2 s on loopback: kills fall before, in and after it.
KILL_WITHIN_S = 0.3
TV_BAR_MS = 100


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def server_process(
    state: Path, token_file: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``garden-scorer serve`` over the state folder ``state`` on a free loopback port, once it answers;
    ``token_file``: the kiosk's token (to pair an owner with)."""
    port = _free_port()
    command = [sys.executable, "-m", "device.cli", "--state-dir", str(state), "serve", "--camera", "none"]
    command += ["--game", GAME, "--host", "127.0.0.1", "--port", str(port)]
    if token_file is not None:
        command += ["--kiosk-token-file", str(token_file)]
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

        def phone(k: int) -> None:
            # Each phone a client of its own, as on a LAN (the scorer limits what one may hold at once).
            transport = httpx.HTTPTransport(local_address=f"127.0.7.{k + 2}")
            start.wait()
            try:
                with httpx.Client(timeout=REQUEST_TIMEOUT_S, transport=transport) as client:
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

        phones = [threading.Thread(target=phone, args=(k,)) for k in range(clients)]
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


def _reset_peak(pid: int) -> None:
    """The process's peak resident memory set back to what it holds now (Linux 4.0 and later)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc: memory is measured on Linux only")


def attack_requests(big_jpeg: bytes) -> dict[str, tuple[bool, Any]]:
    """The requests :func:`run_memory` sends, each as (sent by the owner, ``httpx.Client.request``
    arguments); ``big_jpeg``: the largest photo a phone sends."""
    nested = b'{"code":"1","name":"x","z":[' + b"[]," * (20 * 2**20 // 3) + b"[]]}"
    # A JPEG of noise: 2000 x 2000, 4.7 MB, where the board finders find boards everywhere (an attack's).
    pixels = np.random.default_rng(58).integers(0, 256, (2000, 2000, 3), np.uint8)
    noise = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    flat = np.tile(np.linspace(0, 255, 5600, dtype=np.float32).astype(np.uint8)[None, :, None], (5600, 1, 3))
    flat_png = cv2.imencode(".png", flat, [cv2.IMWRITE_PNG_COMPRESSION, 9])[1].tobytes()
    deep = b'{"code":"1","name":"x","z":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    as_json = {"content-type": "application/json"}
    multipart = {"content-type": "multipart/form-data; boundary=b"}
    score = f"/api/score?game={GAME}"
    return {
        "20 MB of nested lists to /api/pair": (
            False,
            ("POST", "/api/pair", {"content": nested, "headers": as_json}),
        ),
        "20 MB of nested lists to PUT /api/setup": (
            False,
            ("PUT", "/api/setup", {"content": nested, "headers": as_json}),
        ),
        "JSON 100000 deep to /api/pair": (
            False,
            ("POST", "/api/pair", {"content": deep, "headers": as_json}),
        ),
        "20 MB of form fields to /api/score": (
            False,
            (
                "POST",
                score,
                {"content": b"--b\r\n" + b"x" * (20 * 2**20 - 20) + b"\r\n--b--\r\n", "headers": multipart},
            ),
        ),
        "the largest photo and 3 more to /api/score": (
            False,
            (
                "POST",
                score,
                {
                    "files": [("file", ("a.jpg", big_jpeg, "image/jpeg"))]
                    + [("also", ("b.jpg", big_jpeg, "image/jpeg"))] * ALSO
                },
            ),
        ),
        "4 photos of noise to Tang Garden (every look of many crops)": (
            False,
            (
                "POST",
                "/api/score?game=tang-garden",
                {
                    "files": [("file", ("n.jpg", noise, "image/jpeg"))]
                    + [("also", ("n.jpg", noise, "image/jpeg"))] * 3
                },
            ),
        ),
        "a 5600 x 5600 PNG of little detail (105 KB)": (
            False,
            ("POST", score, {"files": {"file": ("flat.png", flat_png, "image/png")}}),
        ),
        "a 16-bit PNG bomb to /api/score": (
            False,
            ("POST", score, {"files": {"file": ("deep.png", crafted_png(7000, 7000, 16, 6), "image/png")}}),
        ),
        "the largest photo to the owner's profile/locate": (
            True,
            (
                "POST",
                "/api/calibrate/profile/locate",
                {"data": {"game": GAME}, "files": {"file": ("a.jpg", big_jpeg, "image/jpeg")}},
            ),
        ),
        "the largest photo to the owner's seats": (
            True,
            (
                "POST",
                "/api/calibrate/seats",
                {"data": {"game": GAME}, "files": {"file": ("a.jpg", big_jpeg, "image/jpeg")}},
            ),
        ),
    }


def _at_once(url: str, cookies: httpx.Cookies | None, senders: int, request: Any) -> list[int]:
    """``request`` (``httpx.Client.request`` arguments) sent by ``senders`` phones at once, each from an
    address of its own; their statuses, 0 for none."""
    method, path, arguments = request
    answers: list[int] = []

    def send(k: int) -> None:
        transport = httpx.HTTPTransport(local_address=f"127.0.6.{k + 2}")
        with httpx.Client(
            base_url=url, transport=transport, cookies=cookies, timeout=REQUEST_TIMEOUT_S
        ) as client:
            try:
                answers.append(client.request(method, path, **arguments).status_code)
            except httpx.HTTPError:
                answers.append(0)

    threads = [threading.Thread(target=send, args=(k,)) for k in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(answers)


def run_memory(megapixels: float) -> dict[str, Any]:
    """See the module doc: the peak memory over each request of :func:`attack_requests`, alone and three at
    once, from other loopback addresses standing for phones; its photos are of ``megapixels``."""
    import tempfile

    from lab.pairing import KIOSK_TOKEN, pair

    _, big_jpeg, _ = flood_photo("jpeg", megapixels)
    requests = attack_requests(big_jpeg)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="memory-") as folder:
        token = Path(folder) / "kiosk-token"
        token.write_text(KIOSK_TOKEN)
        with server_process(Path(folder) / "state", token) as (child, url):
            owner = httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S)
            pair(owner, httpx.Client(base_url=url))
            with PHOTO.open("rb") as first:  # the models load with the first photo read
                owner.post(f"/api/score?game={GAME}", files={"file": (PHOTO.name, first, "image/jpeg")})
            out["resident_mb_loaded"] = round(_resident_mb(child.pid), 1)
            for name, (as_owner, request) in requests.items():
                out[name] = {}
                for at_once in (1, 3):
                    _reset_peak(child.pid)
                    answers = _at_once(url, owner.cookies if as_owner else None, at_once, request)
                    out[name][str(at_once)] = {"peak_mb": round(_peak_mb(child.pid), 1), "answers": answers}
            owner.close()
    peaks = [v["peak_mb"] for name, by in out.items() if isinstance(by, dict) for v in by.values()]
    out["worst_peak_mb"] = max(peaks)
    return out


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

    from device.web.results import RESULTS_DIR

    rng = random.Random(seed)
    photo = PHOTO.read_bytes()
    problems: list[str] = []
    answered_before_kill = 0
    with tempfile.TemporaryDirectory(prefix="upload-kills-") as folder:
        state = Path(folder)
        for n in range(rounds):
            key = f"kill-round-{seed}-{n:04d}-upload"
            files = {"file": (PHOTO.name, photo, "image/jpeg")}
            # The phone's retry is known by its key from its address (its player cookie, which the scorer
            # issues, is not kept between these one-off requests).
            headers = {"Idempotency-Key": key}
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
