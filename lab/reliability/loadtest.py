"""``garden-scorer-lab bench --reliability``'s HTTP figures: a bounded load on loopback, and schemathesis.

:func:`run_load` serves the real app (the upload scorer ``garden-scorer serve`` uses, with the shipped
models) under uvicorn on 127.0.0.1 in a thread. ``concurrency`` threads post rendered photos to
``POST /api/score`` while ``sse_clients`` TVs stay connected to ``/api/events``, fed by a live source that
publishes a score every ``event_interval_s``. Uploads are scored one at a time by design (see
device/web/score.py), so latency grows with concurrency while throughput stays that of one scorer.

Only the standard library speaks HTTP here, so the figures can be taken on a Pi without the dev tools.
:func:`run_schemathesis` needs the ``dev`` extra: it drives schemathesis's generated requests through the
app's own OpenAPI schema, in process (ASGI), and counts the 5xx answers and other failed checks.
"""

from __future__ import annotations

import http.client
import itertools
import json
import logging
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from device.live import Broadcaster, LiveEvent
from lab.serving import serve_in_thread

GAME = "alices-garden"
# A photo as a phone sends it is larger, but the Pi camera's 2304x1296 is what the scorer is sized for.
PHOTO_WH = (2304, 1296)


@contextmanager
def quiet(name: str) -> Iterator[None]:
    """Only errors from the logger ``name`` meanwhile."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def render_uploads(count: int, seed: int = 7) -> list[bytes]:
    """``count`` different rendered photos of an Alice's Garden board, as JPEG bytes."""
    from lab.synth.camera import PhotoOptions
    from lab.synth.render import RenderSpec, render_photo

    spec = RenderSpec((GAME,), seed, options=PhotoOptions(size_wh=PHOTO_WH, max_tilt_deg=30))
    return [render_photo(spec, index).jpeg for index in range(count)]


def multipart(photo: bytes, hand: str | None = None) -> tuple[bytes, str]:
    """A multipart/form-data body with the photo in ``file`` (and ``hand``); returns it and its type."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n".encode()
        + photo
        + b"\r\n"
    ]
    if hand is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="hand"\r\n\r\n{hand}\r\n'.encode()
        )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


@dataclass
class _Upload:
    status: int | None
    seconds: float
    error: str | None = None


def phone_address(index: int) -> str:
    """The loopback address phone ``index`` of a load sends from: each phone is a client of its own, as on a
    LAN (the scorer limits what one client may hold at once)."""
    return f"127.0.{1 + index // 250}.{2 + index % 250}"


def _uploader(
    url: str, jobs: Iterator[bytes], lock: threading.Lock, out: list[_Upload], timeout: float, address: str
) -> None:
    host, port = _host_port(url)

    def connect() -> http.client.HTTPConnection:
        return http.client.HTTPConnection(host, port, timeout=timeout, source_address=(address, 0))

    connection = connect()
    try:
        while True:
            with lock:
                photo = next(jobs, None)
            if photo is None:
                return
            body, kind = multipart(photo)
            started = time.perf_counter()
            try:
                connection.request("POST", f"/api/score?game={GAME}", body, {"Content-Type": kind})
                response = connection.getresponse()
                answer = response.read()
                error = None if response.status == 200 else answer[:200].decode(errors="replace")
                if error is None and "game_id" not in json.loads(answer):
                    error = "no game_id in the answer"
                result = _Upload(response.status, time.perf_counter() - started, error)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                result = _Upload(None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
                connection.close()
                connection = connect()
            with lock:
                out.append(result)
    finally:
        connection.close()


@dataclass
class _Tv:
    """An SSE client that stays connected for the whole load; counts events and checks their ids rise."""

    url: str
    address: str = "127.0.0.1"
    events: int = 0
    connects: int = 0
    disconnects: int = 0
    out_of_order: int = 0
    missed: int = 0
    errors: list[str] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        host, port = _host_port(self.url)
        last: int | None = None
        while not self.stop.is_set():
            connection = http.client.HTTPConnection(host, port, timeout=1.0, source_address=(self.address, 0))
            try:
                connection.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
                response = connection.getresponse()
                if response.status != 200:
                    raise http.client.HTTPException(f"/api/events answered {response.status}")
                self.connects += 1
                self.ready.set()
                while not self.stop.is_set():
                    try:
                        line = response.readline()
                    except TimeoutError:
                        continue
                    if not line:
                        raise http.client.HTTPException("the event stream ended")
                    if line.startswith(b"id:"):
                        number = int(line[3:].strip())
                        if last is not None and number <= last:
                            self.out_of_order += 1
                        elif last is not None:
                            self.missed += number - last - 1
                        last = number
                        self.events += 1
            except (OSError, http.client.HTTPException, ValueError) as exc:
                if not self.stop.is_set():
                    self.disconnects += 1
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                    time.sleep(0.1)
            finally:
                connection.close()


def _publisher(source: Broadcaster, interval_s: float, stop: threading.Event) -> None:
    """A stand-in for the live loop: a score every ``interval_s``, as a busy table gives."""
    for n in itertools.count(1):
        if stop.wait(interval_s):
            return
        payload = {"boards": [], "totals": {"board 1": n % 50}}
        source.publish(LiveEvent("score", n, time.time(), payload))


def _percentile(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)) * 1000, 1) if values else None


def run_load(
    uploads: int,
    concurrency: int,
    sse_clients: int,
    *,
    photos: int = 4,
    event_interval_s: float = 0.1,
    timeout_s: float = 120.0,
    score: Any = None,
) -> dict[str, Any]:
    """``uploads`` photo uploads from ``concurrency`` threads while ``sse_clients`` TVs listen.

    ``score`` replaces the real upload scorer (tests); latencies are in ms. ``errors`` counts answers other
    than 200 and requests that failed outright; each TV must stay connected and see rising ids.
    """
    from calibration.statedir import StateDir
    from device.serve import upload_scorer
    from device.web import AppConfig, create_app

    if uploads < 1 or concurrency < 1 or sse_clients < 0:
        raise ValueError(
            f"expected uploads, concurrency >= 1, sse_clients >= 0; got {uploads, concurrency, sse_clients}"
        )
    bodies = render_uploads(min(photos, uploads))
    source = Broadcaster(queue_size=64)
    with tempfile.TemporaryDirectory(prefix="loadtest-") as tmp:
        state = StateDir(Path(tmp))
        app = create_app(AppConfig(state, score or upload_scorer(state), source))
        with serve_in_thread(app) as url:
            stop = threading.Event()
            publisher = threading.Thread(
                target=_publisher, args=(source, event_interval_s, stop), daemon=True
            )
            # Each TV a screen of its own, after the phones' addresses.
            tvs = [_Tv(url, phone_address(concurrency + i)) for i in range(sse_clients)]
            tv_threads = [threading.Thread(target=tv.run, daemon=True) for tv in tvs]
            for thread in [publisher, *tv_threads]:
                thread.start()
            for tv in tvs:
                tv.ready.wait(10.0)
            results: list[_Upload] = []
            lock = threading.Lock()
            jobs = (bodies[i % len(bodies)] for i in range(uploads))
            workers = [
                threading.Thread(
                    target=_uploader,
                    args=(url, jobs, lock, results, timeout_s, phone_address(i)),
                    daemon=True,
                )
                for i in range(concurrency)
            ]
            started = time.perf_counter()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            elapsed = time.perf_counter() - started
            # Give the TVs a last event before judging them.
            time.sleep(2 * event_interval_s)
            stop.set()
            for tv in tvs:
                tv.stop.set()
            for thread in [publisher, *tv_threads]:
                thread.join(5.0)
    ok = [r.seconds for r in results if r.error is None]
    errors = [r for r in results if r.error is not None]
    return {
        "uploads": len(results),
        "concurrency": concurrency,
        "scorer": "fake" if score is not None else "real (shipped models)",
        "photo_wh": list(PHOTO_WH),
        "seconds": round(elapsed, 1),
        "throughput_per_s": round(len(ok) / elapsed, 2),
        "latency_ms": {
            "p50": _percentile(ok, 50),
            "p99": _percentile(ok, 99),
            "max": _percentile(ok, 100),
        },
        "errors": len(errors),
        "error_rate": round(len(errors) / max(len(results), 1), 4),
        "error_examples": sorted({f"{r.status}: {r.error}" for r in errors})[:5],
        "sse": {
            "clients": sse_clients,
            "stayed_connected": sum(tv.connects == 1 and tv.disconnects == 0 for tv in tvs),
            "all_got_events": all(tv.events > 0 for tv in tvs),
            "events_min": min((tv.events for tv in tvs), default=0),
            "events_max": max((tv.events for tv in tvs), default=0),
            "missed": sum(tv.missed for tv in tvs),
            "out_of_order": sum(tv.out_of_order for tv in tvs),
            "errors": sorted({e for tv in tvs for e in tv.errors})[:5],
        },
    }


# Paths schemathesis leaves alone: endless streams, whatever the request.
STREAMS = ("/api/events", "/api/preview.mjpg")


def run_schemathesis(
    max_examples: int, *, negative: bool = True, score: Any = None, seed: int | None = None
) -> dict[str, Any]:
    """Schemathesis's generated requests for every operation of the app's OpenAPI schema, in process.

    Each operation gets ``max_examples`` valid requests and, with ``negative``, as many invalid ones, sent
    from a paired device so the owner's endpoints are reached. The app has no live source (its two endless
    streams answer 404; the load test covers the event stream) and ``score`` (default: the real upload
    scorer). ``seed`` picks the examples (each seed other ones, the same on every machine); None: Hypothesis's
    own fixed choice. Counts answers by status, the 5xx ones (there must be none) and every other failed
    check.
    """
    import hypothesis
    import schemathesis
    from fastapi.testclient import TestClient
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode
    from schemathesis.core.failures import Failure, FailureGroup
    from schemathesis.core.result import Err

    from calibration.statedir import StateDir
    from device.serve import upload_scorer
    from device.web import AppConfig, create_app
    from lab.pairing import KIOSK_TOKEN, pair

    modes = [GenerationMode.POSITIVE, *([GenerationMode.NEGATIVE] if negative else [])]
    statuses: dict[str, int] = {}
    server_errors: list[str] = []
    failures: dict[str, int] = {}
    operations: list[str] = []
    schema_errors: list[str] = []
    unsatisfiable: list[str] = []
    started = time.perf_counter()
    # Invalid multipart headers are what negative cases are made of: the parser's warning for each is noise.
    with quiet("python_multipart.multipart"), tempfile.TemporaryDirectory(prefix="schemathesis-") as tmp:
        state = StateDir(Path(tmp))
        # Schemathesis calls the app by the name "testserver", which it must answer to here.
        config = AppConfig(
            state, score or upload_scorer(state), kiosk_token=KIOSK_TOKEN, allowed_hosts=("testserver",)
        )
        app = create_app(config)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        url = "http://127.0.0.1"
        login = pair(TestClient(app, base_url=url), TestClient(app, base_url=url))
        headers = {"Authorization": f"Bearer {login}"}

        def check(case: Any) -> None:
            try:
                response = case.call(headers=headers)
            except Exception as exc:  # the app raised through the transport: as bad as a 500
                server_errors.append(f"{case.operation.label}: {type(exc).__name__}: {exc}"[:300])
                return
            code = response.status_code
            statuses[str(code)] = statuses.get(str(code), 0) + 1
            if code >= 500:
                server_errors.append(f"{case.operation.label} -> {code}: {response.text[:200]}")
            try:
                case.validate_response(response, headers=headers)
            except FailureGroup as group:
                for failure in group.exceptions:
                    name = f"{case.operation.label} -> {code}: {failure.code} {failure.title}"
                    failures[name] = failures.get(name, 0) + 1
            except Failure as failure:
                name = f"{case.operation.label} -> {code}: {failure.code} {failure.title}"
                failures[name] = failures.get(name, 0) + 1

        for result in schema.get_all_operations():
            if isinstance(result, Err):
                schema_errors.append(str(result.err())[:200])
                continue
            operation = result.ok()
            if operation.path in STREAMS:
                continue
            operations.append(operation.label)
            for mode in modes:
                run = settings(
                    max_examples=max_examples,
                    deadline=None,
                    database=None,
                    derandomize=seed is None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )(given(operation.as_strategy(generation_mode=mode))(check))
                if seed is not None:
                    run = hypothesis.seed(seed + len(operations) * len(modes) + modes.index(mode))(run)
                try:
                    run()
                except Unsatisfiable:
                    # No invalid request exists for an operation without parameters or body.
                    unsatisfiable.append(f"{operation.label} ({mode.value})")
    return {
        "operations": len(operations),
        "max_examples": max_examples,
        "seed": seed,
        "modes": [m.value for m in modes],
        "requests": sum(statuses.values()),
        "seconds": round(time.perf_counter() - started, 1),
        "statuses": dict(sorted(statuses.items())),
        "server_errors": len(server_errors),
        "server_error_examples": server_errors[:10],
        "failed_checks": sum(failures.values()),
        "failed_check_kinds": dict(sorted(failures.items())),
        "schema_errors": schema_errors,
        "no_negative_cases": len(unsatisfiable),
    }
