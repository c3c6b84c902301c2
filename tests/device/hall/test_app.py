"""The hall's web app without a broker: its JSON, its page and files, its event stream and its limits, fed
messages as the listener hands them over."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from device.hall.app import (
    STREAMS_PER_CLIENT,
    HallOptions,
    HallServices,
    banner,
    create_hall_app,
)
from device.hall.feed import Feed
from device.hall.listen import Evening, Hall
from device.hall.store import HallStore
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import topic
from device.web.places import Places
from tests.device.hall.support import EVENING, WAIT_S, played, serving

NOW = EVENING + timedelta(hours=1)
BASE_URL = "http://127.0.0.1"


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        yield Hall(store, Feed(), Evening(hours=12), clock=lambda: NOW)


@pytest.fixture
def client(hall: Hall) -> Iterator[TestClient]:
    with TestClient(create_hall_app(hall), base_url=BASE_URL) as client:
        yield client


def _evening(hall: Hall) -> None:
    """Three tables: one playing, one finished and gone offline, one playing a game of its own."""
    hall.receive(topic("table-1", "available"), b"online")
    live = played("table-1", "live-1", [("Alice", 31), ("Bob", 44), (None, 44)], minutes=50, finished=False)
    hall.receive(topic("table-1", "score"), live.payload())
    hall.receive(topic("table-2", "available"), b"offline")
    hall.receive(
        topic("table-2", "score"), played("table-2", "r1", [("Cleo", 12), ("Dan", 9)], minutes=20).payload()
    )
    hall.receive(
        topic("table-2", "result"), played("table-2", "r1", [("Cleo", 12), ("Dan", 9)], minutes=20).payload()
    )
    own = played("table-10", "x", [("Eve", 5)], game="my-own-game", minutes=59)
    hall.receive(topic("table-10", "score"), own.payload())


def test_the_hall_says_every_tables_game_players_and_the_standings(hall: Hall, client: TestClient) -> None:
    _evening(hall)
    state = client.get("/api/hall").json()
    assert state["connected"] is False
    assert state["since"] == (NOW - timedelta(hours=12)).isoformat()
    assert state["number"] == hall.feed.number()
    tables = {t["name"]: t for t in state["tables"]}
    assert sorted(tables) == ["table-1", "table-10", "table-2"]
    one = tables["table-1"]
    assert (one["online"], one["game"], one["title"], one["finished"]) == (
        True,
        "alices-garden",
        "Alice's Garden",
        False,
    )
    # Both holding 44 lead, the seat with no name too.
    assert one["players"] == [
        {"name": "Alice", "total": 31, "leads": False},
        {"name": "Bob", "total": 44, "leads": True},
        {"name": None, "total": 44, "leads": True},
    ]
    assert one["age_s"] == 600.0
    assert tables["table-2"]["online"] is False and tables["table-2"]["finished"] is True
    # A game the hall does not know is named as the table said it; one player alone does not lead.
    assert tables["table-10"]["title"] == "my-own-game"
    assert tables["table-10"]["players"] == [{"name": "Eve", "total": 5, "leads": False}]
    assert state["standings"] == [
        {"rank": 1, "name": "Cleo", "games": 1, "wins": 1, "points": 12},
        {"rank": 2, "name": "Dan", "games": 1, "wins": 0, "points": 9},
    ]


def test_the_page_and_its_files_are_served_with_the_scorers_headers(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    for name in ("hall.js", "hall.css", "style.css", "common.js"):
        assert f"/static/{name}" in page.text
        assert client.get(f"/static/{name}").status_code == 200, name
    assert client.get("/static/tv.js").status_code == 404
    assert client.get("/static/..%2Fapp.py").status_code == 404


def test_the_hall_only_reads(client: TestClient) -> None:
    for method in ("POST", "PUT", "DELETE"):
        assert client.request(method, "/api/hall").status_code == 405


def test_a_name_the_hall_does_not_answer_to_is_refused(client: TestClient) -> None:
    # A page of another site whose name was pointed at the hall (DNS rebinding) reads nothing.
    assert client.get("/api/hall", headers={"host": "evil.example"}).status_code == 421


def _events(stream: httpx.Response) -> Iterator[tuple[str, str]]:
    kind = ""
    for line in stream.iter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield kind, line.removeprefix("data: ")


def test_a_change_reaches_a_following_screen(hall: Hall) -> None:
    with (
        serving(create_hall_app(hall)) as url,
        httpx.Client(base_url=url, timeout=WAIT_S) as http,
        http.stream("GET", "/api/hall/events") as stream,
    ):
        assert stream.status_code == 200
        # The screen is following once its stream is answered.
        hall.receive(topic("table-1", "score"), played("table-1", "r1").payload())
        hall.receive(topic("table-1", "result"), played("table-1", "r1").payload())
        hall.set_connected(True)
        seen: dict[str, Any] = {}
        for kind, data in _events(stream):
            seen[kind] = json.loads(data)
            if len(seen) == 3:
                break
    table = seen["table"]["table"]
    assert table["name"] == "table-1"
    assert table["players"][1] == {"name": "Bob", "total": 20, "leads": True}
    assert seen["standings"]["standings"][0] == {
        "rank": 1,
        "name": "Bob",
        "games": 1,
        "wins": 1,
        "points": 20,
    }
    # Each change numbered: the standings' after the table's.
    assert seen["standings"]["number"] > seen["table"]["number"] > 0
    assert seen["broker"] == {"connected": True}


def test_screens_past_the_limit_are_told_to_come_back_later(hall: Hall) -> None:
    app = create_hall_app(hall)
    app.state.hall = replace(app.state.hall, streams=Places(STREAMS_PER_CLIENT, STREAMS_PER_CLIENT))
    assert isinstance(app.state.hall, HallServices)
    with serving(app) as url:
        port = int(url.rsplit(":", 1)[1])
        held = [_open_stream(port) for _ in range(STREAMS_PER_CLIENT)]
        try:
            assert all(status == 200 for _, status in held)
            _, refused = _open_stream(port)
            assert refused == 503
        finally:
            for sock, _ in held:
                sock.close()
        # Places are given back as screens leave.
        _wait_for_place(port)


def _open_stream(port: int) -> tuple[socket.socket, int]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
    sock.sendall(b"GET /api/hall/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return sock, int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0


def _wait_for_place(port: int) -> None:
    from tests.device.hall.support import wait_until

    def one_more() -> bool:
        sock, status = _open_stream(port)
        sock.close()
        return status == 200

    wait_until(one_more, "a place for a screen once the others left")


SETTINGS = MqttSettings.from_url("mqtt://hall@broker.local")


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"evening_hours": 0}, "more than 0"),
        ({"port": 70000}, "--port"),
        ({"client_id": "the hall"}, "--client-id"),
        ({"allowed_hosts": ("http://hall.lan",)}, "--allowed-host"),
    ],
)
def test_options_that_cannot_be_are_refused_saying_what_to_give(
    tmp_path: Path, changes: dict[str, Any], said: str
) -> None:
    with pytest.raises(ValueError, match=said):
        HallOptions(SETTINGS, tmp_path / "hall.sqlite", **changes)


def test_the_banner_says_where_the_page_is_and_what_the_hall_reads(tmp_path: Path) -> None:
    options = HallOptions(SETTINGS, tmp_path / "hall.sqlite", host="0.0.0.0", allowed_hosts=("hall.lan",))
    lines = banner(options)
    assert lines[0] == "garden-scorer hall: http://127.0.0.1:8090/"
    assert "mqtt://hall@broker.local:1883" in lines[1] and "last 12 hours" in lines[1]
    since = banner(replace(options, evening_start=EVENING))
    assert "since 2025-03-01T20:00:00+00:00" in since[1]
