"""The HTTP figures (lab/reliability/loadtest.py): a small load on the real app, and schemathesis on its
schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from calibration.statedir import StateDir
from device.web import AppConfig, create_app
from lab.pairing import KIOSK_TOKEN, pair
from lab.reliability.loadtest import multipart, run_load, run_schemathesis
from tests.conftest import BASE_URL


def test_concurrent_uploads_and_tvs_see_no_errors() -> None:
    result = run_load(12, 3, 2, photos=2)
    assert result["uploads"] == 12 and result["errors"] == 0, result["error_examples"]
    latency = result["latency_ms"]
    assert 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    sse = result["sse"]
    assert sse["stayed_connected"] == 2 and sse["all_got_events"]
    assert sse["out_of_order"] == 0 and sse["errors"] == []


def test_schemathesis_finds_no_server_error() -> None:
    pytest.importorskip("schemathesis")
    result = run_schemathesis(3)
    assert result["operations"] >= 20 and result["requests"] > 0
    assert result["server_errors"] == 0, result["server_error_examples"]
    assert result["schema_errors"] == []


def test_a_multipart_body_carries_the_photo_and_the_hand() -> None:
    body, kind = multipart(b"\xff\xd8photo", '{"track_score": 3}')
    boundary = kind.split("boundary=")[1]
    assert body.startswith(f"--{boundary}\r\n".encode()) and body.endswith(f"--{boundary}--\r\n".encode())
    assert b'name="file"; filename="photo.jpg"' in body and b"\xff\xd8photo" in body
    assert b'name="hand"\r\n\r\n{"track_score": 3}' in body


def test_a_game_id_too_large_for_the_history_is_refused_not_a_server_error(tmp_path: Path) -> None:
    """Found by schemathesis: ids beyond SQLite's integers failed the query with a 500."""
    app = create_app(AppConfig(StateDir(tmp_path), _no_scoring, kiosk_token=KIOSK_TOKEN))
    huge = 2**63
    with TestClient(app, base_url=BASE_URL, client=("127.0.0.1", 50000)) as client:
        pair(client, TestClient(app, base_url=BASE_URL))  # the owner's: past the guard, to the id's check
        for method, path in [
            ("GET", f"/api/history/{huge}"),
            ("DELETE", f"/api/history/{huge}"),
            ("GET", f"/api/result/{huge}"),
            ("GET", f"/api/result/{huge}/board/0.png"),
        ]:
            assert client.request(method, path).status_code == 422, path
        assert client.post(f"/api/result/{huge}/correct", json={"boards": [{}]}).status_code == 422
        assert client.get(f"/api/history/{huge - 1}").status_code == 404


def _no_scoring(*_: Any, **__: Any) -> list[Any]:
    raise AssertionError("nothing is uploaded here")
