"""What a request may send (``device.web.bodies``): the owner's routes refused before their body is read,
bodies held to their route's size and to a pace, JSON to its depth, and places to be received per client."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import Message

from device.web import bodies
from device.web.bodies import JSON_BODY_BYTES, MAX_JSON_DEPTH, TOO_SLOW, json_depth
from lab.pairing import pair
from lab.serving import serve_in_thread
from tests.conftest import BASE_URL, LOCAL, REMOTE
from tests.device.web.conftest import AppFactory
from tests.support import EXAMPLES

HANG_GUARD_S = 60  # a guard against a hang, not a speed
PHOTO = EXAMPLES / "photos" / "alices-garden.jpg"


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b"{}", 1),
        (b'{"a": [[1], {"b": []}]}', 4),
        (b'"[[[[[["', 0),  # brackets in a string are text
        (b'["\\"[[[", [2]]', 2),  # an escaped quote does not end the string
        (b"1", 0),
    ],
)
def test_json_depth_counts_the_nesting_outside_strings(text: bytes, depth: int) -> None:
    assert json_depth(text) == depth


def _asgi_request(
    app: FastAPI, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, bytes, bool]:
    """``app`` called as uvicorn calls it; its status, body, and whether it asked for the request's body
    (which ``body=None`` refuses to give)."""
    asked = False
    sent: list[Message] = []

    async def receive() -> Message:
        nonlocal asked
        asked = True
        if body is None:
            raise AssertionError("the body was read")
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: dict[str, Any] = {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in {"host": "127.0.0.1", **headers}.items()],
        "client": REMOTE,
        "server": ("127.0.0.1", 8080),
        "scheme": "http",
        "root_path": "",
    }
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"), asked


def test_an_owners_route_is_refused_to_a_stranger_before_its_body_is_read(make_app: AppFactory) -> None:
    app = make_app()
    for method, path, kind, status, why in [
        # Photos: refused as the owner's; JSON of that size: refused by its size, before the route is asked.
        ("POST", "/api/calibrate/camera", "multipart/form-data; boundary=x", 403, b"pair this phone"),
        ("POST", "/api/calibrate/seats", "multipart/form-data; boundary=x", 403, b"pair this phone"),
        ("PUT", "/api/setup", "application/json", 413, b"the 256 kB the scorer takes"),
        ("POST", "/api/calibrate/enrol", "application/json", 413, b"the 256 kB the scorer takes"),
    ]:
        # 20 MB said, none sent: the answer comes without a byte of it read.
        headers = {"content-type": kind, "content-length": str(20 * 2**20)}
        answered, answer, asked = _asgi_request(app, method, path, headers)
        assert answered == status and why in answer and not asked, path


def test_a_body_over_its_routes_limit_is_refused_in_words(make_app: AppFactory) -> None:
    app = make_app(max_upload_bytes=100_000)
    stranger = TestClient(app, base_url=BASE_URL, client=REMOTE)
    owner = TestClient(app, base_url=BASE_URL, client=REMOTE)
    pair(owner, TestClient(app, base_url=BASE_URL, client=LOCAL))
    # The attack: a pairing request of nested empty lists, 20 MB without a login (1.3 GB to parse).
    nested = b'{"code":"1","name":"x","z":[' + b"[]," * (JSON_BODY_BYTES // 3) + b"[]]}"
    for client, path, method in [(stranger, "/api/pair", "POST"), (owner, "/api/setup", "PUT")]:
        refused = client.request(method, path, content=nested, headers={"content-type": "application/json"})
        assert refused.status_code == 413 and "over the 256 kB the scorer takes" in refused.json()["detail"]
    # Photos take up to the upload limit, and no more.
    photo = stranger.post(
        "/api/score?game=alices-garden", files={"file": ("a.jpg", bytes(100_001), "image/jpeg")}
    )
    assert (
        photo.status_code == 413
        and "over the 98 kB the scorer takes; send a smaller" in photo.json()["detail"]
    )
    # A JSON route takes no photo-sized body of another kind either.
    other = owner.put(
        "/api/setup", content=bytes(JSON_BODY_BYTES + 1), headers={"content-type": "text/plain"}
    )
    assert other.status_code == 413


def test_json_nested_too_deep_is_refused_before_any_parser_meets_it(make_app: AppFactory) -> None:
    app = make_app()
    owner = TestClient(app, base_url=BASE_URL, client=REMOTE)
    pair(owner, TestClient(app, base_url=BASE_URL, client=LOCAL))
    deep = '{"game": null, "hand": {"x": ' + "[" * 5000 + "]" * 5000 + "}}"
    refused = owner.put("/api/setup", content=deep, headers={"content-type": "application/json"})
    assert refused.status_code == 400 and f"over {MAX_JSON_DEPTH} levels" in refused.json()["detail"]
    # A state as deep as a real one passes on to the route's own checks.
    fine = owner.put("/api/setup", json={"game": None, "hand": {"x": [[[[[[[[1]]]]]]]]}})
    assert fine.status_code == 200, fine.text


def test_a_body_that_stops_arriving_is_answered_408(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A second of grace, then at least 10 kB a second: a byte now and then falls behind at once.
    monkeypatch.setattr(bodies, "BODY_GRACE_S", 1.0)
    monkeypatch.setattr(bodies, "MIN_BODY_RATE", 10_000)
    head = (
        "POST /api/score?game=alices-garden HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n"
    )
    with serve_in_thread(make_app()) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0)) as phone:
            phone.sendall(head.encode())
            phone.sendall(b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n')
            answer = b""
            # A byte every 0.2 s, as the attack sent one every 5 s, until the scorer answers.
            phone.settimeout(0.2)
            for _ in range(HANG_GUARD_S * 5):
                try:
                    phone.sendall(b"x")
                    answer += phone.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if b"\r\n\r\n" in answer:
                    break
            phone.settimeout(HANG_GUARD_S)
            head_end = answer.index(b"\r\n\r\n") + 4
            length = int(answer.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            while len(answer) < head_end + length:
                answer += phone.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert TOO_SLOW in json.loads(answer[head_end:])["detail"]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999", '"\\ud800"'])
def test_json_that_is_not_standard_is_refused_not_answered_500(make_app: AppFactory, value: str) -> None:
    """Python reads NaN and lone surrogates; JSON allows neither, and an answer quoting them fails (#58)."""
    client = TestClient(make_app(), base_url=BASE_URL, client=REMOTE)
    for path, text in [("/api/pair", f'{{"code": {value}, "name": "x"}}'), ("/api/pair", value)]:
        refused = client.post(path, content=text, headers={"content-type": "application/json"})
        assert refused.status_code == 400, (text, refused.text)
        assert "not standard" in refused.json()["detail"] or "UTF-16" in refused.json()["detail"]


def test_senders_that_trickle_make_room_for_a_phone_and_hold_no_small_request(make_app: AppFactory) -> None:
    """Eight photo bodies from four addresses, each a byte now and then, took every place (#58): the slowest
    makes room for a phone, and pairing or the kiosk's sign-in never wait for a place."""
    from device.web.bodies import MADE_ROOM, RECEIVING_TOTAL

    head = (
        b"POST /api/score?game=alices-garden HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n"
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n'
    )
    with serve_in_thread(make_app()) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = []
        for k in range(RECEIVING_TOTAL):
            sock = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.8.{k // 2 + 2}", 0))
            sock.sendall(head)
            slow.append(sock)
        try:
            time.sleep(1.5)  # past their first second: they have shown how slowly they send
            with httpx.Client(
                base_url=url, transport=httpx.HTTPTransport(local_address="127.0.9.2"), timeout=HANG_GUARD_S
            ) as phone:
                small = phone.post("/api/pair", json={"code": "1234 5678", "name": "x"})
                assert small.status_code == 403  # compared, not kept waiting
                photo = PHOTO.read_bytes()
                sent = phone.post(
                    "/api/score?game=alices-garden", files={"file": ("a.jpg", photo, "image/jpeg")}
                )
                assert sent.status_code != 503, sent.text
            answers = []
            for sock in slow:
                sock.settimeout(0.5)
                try:
                    answers.append(sock.recv(4096))
                except TimeoutError:
                    answers.append(b"")
            made_room = [a for a in answers if a.startswith(b"HTTP/1.1 408")]
            assert len(made_room) == 1 and MADE_ROOM.encode() in made_room[0]
        finally:
            for sock in slow:
                sock.close()
