"""Who may change a result, what the history keeps of who did, and uploads stored once however often they
are sent: the real app through TestClient, with a fake scorer.

``local`` is the owner's paired phone; ``remote`` and the clients made here are players' phones, not paired.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from calibration.statedir import StateDir
from device.history import History, LiveRecord
from device.photo import ScoredBoard
from device.web.score import CHANGE_CORRECTED, CHANGE_HAND, NOT_A_PHONES, NOT_YOURS
from tests.conftest import BASE_URL
from tests.device.web.conftest import AppFactory
from tests.fakes import FakeScore
from tests.support import EXAMPLES

PHOTO = EXAMPLES / "photos" / "alices-garden.jpg"
KEY = "0f6c1d0e9a8b4c2d8e7f6a5b4c3d2e1f"
SQUARE = [[10.0, 8.0], [60.0, 9.0], [59.0, 44.0], [11.0, 43.0]]


@pytest.fixture
def scorer(alice_boards: list[ScoredBoard]) -> FakeScore:
    return FakeScore(alice_boards)


@pytest.fixture
def app(make_app: AppFactory, scorer: FakeScore) -> FastAPI:
    return make_app(scorer)


def _phone(app: FastAPI, address: str) -> TestClient:
    """Another player's phone; not entered, as the fixtures' clients run the app's lifespan already."""
    return TestClient(app, base_url=BASE_URL, client=(address, 5000))


def _jpeg() -> bytes:
    return bytes(cv2.imencode(".jpg", np.full((64, 80, 3), 128, np.uint8))[1].tobytes())


def _upload(client: TestClient, key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    files = {"file": ("photo.jpg", _jpeg(), "image/jpeg")}
    return client.post("/api/score?game=alices-garden", files=files, headers=headers)


def _state(client: TestClient, game_id: int) -> dict[str, Any]:
    state: dict[str, Any] = client.get(f"/api/result/{game_id}").json()["boards"][0]["board"]["state"]
    return state


def test_the_same_upload_sent_twice_is_stored_once(remote: TestClient, scorer: FakeScore) -> None:
    first = _upload(remote, KEY)
    assert first.status_code == 200, first.text
    again = _upload(remote, KEY)
    assert again.status_code == 200 and again.json() == first.json()
    assert [g["id"] for g in remote.get("/api/history").json()] == [first.json()["game_id"]]
    assert len(scorer.calls) == 1  # the retry is not read again
    # Another key, or none, is another upload.
    other = _upload(remote, KEY[::-1]).json()["game_id"]
    unkeyed = [_upload(remote).json()["game_id"] for _ in range(2)]
    assert len({first.json()["game_id"], other, *unkeyed}) == 4 and len(scorer.calls) == 4
    assert _upload(remote, "not a key").status_code == 422


def test_a_retry_that_lost_its_answer_and_cookie_finds_its_result_and_may_change_it(app: FastAPI) -> None:
    first = _upload(_phone(app, "192.168.1.30"), KEY).json()
    # The answer and its player cookie never reached the phone: it sends the photo again, without either.
    retry = _phone(app, "192.168.1.30")
    again = _upload(retry, KEY)
    assert again.status_code == 200 and again.json() == first
    assert "garden_player" in again.cookies
    state = _state(retry, first["game_id"])
    assert retry.post(f"/api/result/{first['game_id']}/correct", json={"boards": [state]}).status_code == 200
    # The key is no pass from elsewhere: another phone sending it uploads anew.
    assert _upload(_phone(app, "192.168.1.31"), KEY).json()["game_id"] != first["game_id"]


def test_a_read_again_sent_twice_replaces_the_result_once(remote: TestClient, scorer: FakeScore) -> None:
    game_id = _upload(remote).json()["game_id"]
    url = f"/api/result/{game_id}/hand"
    headers = {"Idempotency-Key": KEY}
    first = remote.post(url, json={"hand": {"unplaced_bonus_tiles": 2}}, headers=headers)
    assert first.status_code == 200, first.text
    # The first answer lost: the retry names a result that is replaced, and is answered with the new one.
    again = remote.post(url, json={"hand": {"unplaced_bonus_tiles": 2}}, headers=headers)
    assert again.status_code == 200 and again.json() == first.json()
    assert [g["id"] for g in remote.get("/api/history").json()] == [first.json()["game_id"]]
    assert len(scorer.calls) == 2


def test_only_the_phone_that_sent_the_photo_or_a_paired_phone_may_change_its_result(
    app: FastAPI, local: TestClient, remote: TestClient, scorer: FakeScore
) -> None:
    game_id = _upload(remote).json()["game_id"]
    state = _state(remote, game_id)
    other = _phone(app, "192.168.1.30")
    assert other.get(f"/api/result/{game_id}").json()["change_refused"] == NOT_YOURS
    assert remote.get(f"/api/result/{game_id}").json()["change_refused"] is None
    calls = len(scorer.calls)
    changes: list[tuple[str, dict[str, Any]]] = [
        ("correct", {"json": {"boards": [state]}}),
        ("preview", {"json": {"boards": [state]}}),
        ("hand", {"json": {"hand": {"unplaced_bonus_tiles": 2}}}),
        ("corners", {"json": {"corners_xy": SQUARE}}),
        ("also", {"files": [("also", ("side.jpg", _jpeg(), "image/jpeg"))]}),
    ]
    for path, body in changes:
        refused = other.post(f"/api/result/{game_id}/{path}", **body)
        assert refused.status_code == 403 and refused.json()["detail"] == NOT_YOURS, path
    assert len(scorer.calls) == calls
    assert [g["id"] for g in remote.get("/api/history").json()] == [game_id]

    corrected = remote.post(f"/api/result/{game_id}/correct", json={"boards": [state]})
    assert corrected.status_code == 200, corrected.text
    # The owner's paired phone may change any result; the phone that sent it still may after a change.
    owners = local.post(f"/api/result/{corrected.json()['game_id']}/correct", json={"boards": [state]})
    assert owners.status_code == 200, owners.text
    assert remote.get(f"/api/result/{owners.json()['game_id']}").json()["change_refused"] is None


def test_a_result_from_the_table_camera_is_changed_by_a_paired_phone_only(
    tmp_path: Path, local: TestClient, remote: TestClient, alice_boards: list[ScoredBoard]
) -> None:
    with History.open(StateDir(tmp_path).history) as history:
        game_id = LiveRecord(history).scored([alice_boards[0].to_json()])
    assert game_id is not None
    state = _state(remote, game_id)
    refused = remote.post(f"/api/result/{game_id}/correct", json={"boards": [state]})
    assert refused.status_code == 403 and refused.json()["detail"] == NOT_A_PHONES
    assert local.post(f"/api/result/{game_id}/correct", json={"boards": [state]}).status_code == 200


def test_the_result_lists_who_changed_it_and_when(local: TestClient, remote: TestClient) -> None:
    before = datetime.now(UTC)
    game_id = _upload(remote).json()["game_id"]
    assert remote.get(f"/api/result/{game_id}").json()["changes"] == []
    read_again = remote.post(f"/api/result/{game_id}/hand", json={"hand": {"unplaced_bonus_tiles": 3}})
    second = read_again.json()["game_id"]
    state = _state(remote, second)
    third = local.post(f"/api/result/{second}/correct", json={"boards": [state]}).json()["game_id"]
    changes = remote.get(f"/api/result/{third}").json()["changes"]
    assert [(c["what"], c["who"]) for c in changes] == [
        (CHANGE_HAND, "the phone that sent the photo"),
        (CHANGE_CORRECTED, "the paired phone “owner's phone”"),
    ]
    times = [datetime.fromisoformat(c["at"]) for c in changes]
    assert before <= times[0] <= times[1] <= datetime.now(UTC)
