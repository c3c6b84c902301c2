"""Security checks over the whole app, route by route, so a route added later is covered without a new test:
what changes the scorer's set-up needs the PIN off this machine, and no path parameter reaches a file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from numpy.typing import NDArray

from calibration.statedir import StateDir
from device.photo import ScoredBoard
from device.web import AppConfig, create_app
from device.web.security import PIN_HEADER
from tests.conftest import LOCAL, REMOTE

PIN = "135790"
# What every player at the table may do from their phone: score a photo and correct its reading.
PLAYER_ACTIONS = {("POST", "/api/score"), ("POST", "/api/result/{game_id}/correct")}
MUTATING = {"POST", "PUT", "PATCH", "DELETE"}
TRAVERSALS = ("..", "../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e", "/etc/passwd", "a/../../b")


def _no_boards(
    image: NDArray[np.uint8], game: str, hand: object, profile: str | None, /
) -> list[ScoredBoard]:
    return []


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return create_app(AppConfig(StateDir(tmp_path), _no_boards, pin=PIN))


def _routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """Every operation the app publishes (pages left out of the spec are plain GETs of static files)."""
    for path, operations in app.openapi()["paths"].items():
        for method in operations:
            yield method.upper(), path


def _fill(path: str, value: str = "1") -> str:
    return re.sub(r"\{[^}]+\}", value, path)


def test_every_set_up_change_needs_the_pin_off_this_machine(app: FastAPI) -> None:
    admin = sorted((m, p) for m, p in _routes(app) if m in MUTATING and (m, p) not in PLAYER_ACTIONS)
    # The app has set-up routes to guard: an empty list would make this test pass for nothing.
    assert len(admin) >= 5, admin
    with TestClient(app, client=REMOTE) as remote, TestClient(app, client=LOCAL) as local:
        for method, path in admin:
            refused = remote.request(method, _fill(path))
            assert refused.status_code == 403, (method, path, refused.status_code)
            assert "PIN" in refused.json()["detail"]
            # On the scorer itself (its own screen and keyboard) the same call passes the guard: whatever
            # it answers then is about the request, not the PIN.
            assert local.request(method, _fill(path)).status_code != 403, (method, path)
            with_pin = remote.request(method, _fill(path), headers={PIN_HEADER: PIN})
            assert with_pin.status_code != 403, (method, path)


def test_player_actions_need_no_pin(app: FastAPI) -> None:
    assert set(_routes(app)) >= PLAYER_ACTIONS
    with TestClient(app, client=REMOTE) as remote:
        for method, path in PLAYER_ACTIONS:
            assert remote.request(method, _fill(path)).status_code != 403, path


def test_no_path_parameter_reaches_a_file(app: FastAPI) -> None:
    with_params = [(m, p) for m, p in _routes(app) if "{" in p]
    assert with_params
    with TestClient(app, client=LOCAL) as local:
        for method, path in with_params:
            for bad in TRAVERSALS:
                response = local.request(method, _fill(path, bad))
                # Refused as a malformed or unknown id: never served, never a server error.
                assert response.status_code in (400, 404, 405, 422), (method, path, bad, response.status_code)
                assert b"root:" not in response.content
