"""The web app end to end: the real FastAPI app through TestClient, with a fake scorer and a fake live source,
and once with the real pipeline on a shipped example photo."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import struct
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from numpy.typing import NDArray

from calibration.statedir import StateDir
from device.cli import main
from device.history import CSV_FIELDS, History
from device.photo import ScoredBoard, score_image
from device.web.results import RESULTS_DIR, ResultStore
from device.web.score import MAX_ALSO, NOT_KEPT, enrolment_state, rescore
from device.web.tv import PHOTO_HOLD_S
from lab.pairing import pair
from scoring.core import ScoreBreakdown, TableScore
from scoring.registry import get_game, read_state
from tests.conftest import BASE_URL, LOCAL, REMOTE
from tests.device.web.conftest import AppFactory
from tests.fakes import FakeScore
from tests.support import EXAMPLES
from vision.pipeline import NoBoardError

PHOTO = EXAMPLES / "photos" / "alices-garden.jpg"
TRUTH = json.loads((EXAMPLES / "photos" / "alices-garden.json").read_text())["boards"][0]


def _alice_total(state: Mapping[str, Any]) -> int:
    rules = get_game("alices-garden")
    result = rules.score(rules.parse(state))
    assert isinstance(result, ScoreBreakdown)
    return result.total


@dataclass(frozen=True)
class FakeEvent:
    id: int
    kind: str
    payload: Mapping[str, Any]


@dataclass
class FakeEvents:
    """Replays its backlog to each new subscriber, then stays quiet (FastAPI's pings keep the stream up)."""

    backlog: list[FakeEvent]
    subscribed: int = 0
    unsubscribed: int = 0

    def subscribe(self) -> list[FakeEvent]:
        self.subscribed += 1
        return list(self.backlog)

    def unsubscribe(self, sub: list[FakeEvent], /) -> None:
        self.unsubscribed += 1

    async def next(self, sub: list[FakeEvent], timeout: float, /) -> FakeEvent | None:
        if sub:
            return sub.pop(0)
        await asyncio.sleep(min(timeout, 0.05))
        return None


@pytest.fixture
def fake(alice_boards: list[ScoredBoard]) -> FakeScore:
    return FakeScore(alice_boards)


@pytest.fixture
def app(make_app: AppFactory, fake: FakeScore) -> FastAPI:
    return make_app(fake)


def _jpeg(width: int = 80, height: int = 64) -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((height, width, 3), 128, np.uint8))
    assert ok
    return data.tobytes()


def _upload(
    client: TestClient,
    content: bytes,
    game: str = "alices-garden",
    kind: str = "image/jpeg",
    **data: str,
) -> Any:
    return client.post(f"/api/score?game={game}", files={"file": ("photo.jpg", content, kind)}, data=data)


def test_more_photos_of_the_board_are_sent_with_the_first_to_be_read_together(
    local: TestClient, fake: FakeScore
) -> None:
    files = [
        ("file", ("photo.jpg", _jpeg(), "image/jpeg")),
        ("also", ("side.jpg", _jpeg(96, 72), "image/jpeg")),
        ("also", ("other.png", cv2.imencode(".png", np.zeros((64, 80, 3), np.uint8))[1].tobytes())),
    ]
    response = local.post("/api/score?game=alices-garden", files=files)
    assert response.status_code == 200, response.text
    assert fake.calls[0][0] == (64, 80, 3)
    assert fake.also == [[(72, 96, 3), (64, 80, 3)]]
    # Without more photos, the first is read alone.
    assert _upload(local, _jpeg()).status_code == 200
    assert fake.also[-1] == []


def test_more_photos_than_a_pi_decodes_at_once_or_not_photos_are_refused(
    local: TestClient, fake: FakeScore
) -> None:
    first = ("file", ("photo.jpg", _jpeg(), "image/jpeg"))
    many = [first]
    many += [("also", (f"side{k}.jpg", _jpeg(), "image/jpeg")) for k in range(MAX_ALSO + 1)]
    response = local.post("/api/score?game=alices-garden", files=many)
    assert response.status_code == 400
    text = [first, ("also", ("notes.txt", b"hello", "text/plain"))]
    response = local.post("/api/score?game=alices-garden", files=text)
    assert response.status_code == 415 and "not a photo" in response.json()["detail"]
    response = local.post("/api/score?game=alices-garden", files=[first], data={"also": "a text"})
    assert response.status_code == 400 and "also: expected a photo file" in response.json()["detail"]
    broken = [first, ("also", ("side.jpg", b"not a jpeg", "image/jpeg"))]
    response = local.post("/api/score?game=alices-garden", files=broken)
    assert response.status_code == 400
    assert fake.calls == []


def _png(width: int, height: int) -> bytes:
    return cv2.imencode(".png", np.zeros((height, width, 3), np.uint8))[1].tobytes()


def test_a_result_is_read_again_with_more_photos_and_replaced(
    local: TestClient, fake: FakeScore, tmp_path: Path
) -> None:
    files = [
        ("file", ("photo.jpg", _jpeg(), "image/jpeg")),
        ("also", ("side.jpg", _jpeg(96, 72), "image/jpeg")),
    ]
    first = local.post(
        "/api/score?game=alices-garden", files=files, data={"hand": '{"unplaced_bonus_tiles": 2}'}
    )
    assert first.status_code == 200, first.text
    old_id = first.json()["game_id"]
    old = local.get(f"/api/history/{old_id}").json()
    assert local.get(f"/api/result/{old_id}").json()["more_photos"] == MAX_ALSO - 1

    response = local.post(
        f"/api/result/{old_id}/also", files=[("also", ("top.png", _png(80, 64), "image/png"))]
    )
    assert response.status_code == 200, response.text
    new_id = response.json()["game_id"]
    # Every kept photo is read again, in order, with the new one, the hand entry and profile of the first.
    assert fake.calls[-1] == ((64, 80, 3), "alices-garden", {"unplaced_bonus_tiles": 2}, None)
    assert fake.also[-1] == [(72, 96, 3), (64, 80, 3)]
    # The new reading replaces the result: same time, a new id, all three photos kept.
    assert local.get(f"/api/history/{old_id}").status_code == 404
    record = local.get(f"/api/history/{new_id}").json()
    assert record["played_at"] == old["played_at"] and record["source"] == "upload"
    store = ResultStore(StateDir(tmp_path))
    assert [p.name for p in store.photos(new_id)] == ["photo.jpg", "also-1.jpg", "also-2.png"]
    assert store.photos(new_id)[2].read_bytes() == _png(80, 64)
    assert not store.folder(old_id).exists()
    result = local.get(f"/api/result/{new_id}").json()
    assert result["more_photos"] == MAX_ALSO - 2 and result["boards"][0]["picture"]

    # Up to MAX_ALSO more photos in all.
    more = [("also", (f"m{k}.jpg", _jpeg(), "image/jpeg")) for k in range(MAX_ALSO - 1)]
    response = local.post(f"/api/result/{new_id}/also", files=more)
    assert response.status_code == 400 and f"at most {MAX_ALSO - 2}" in response.json()["detail"]
    last = local.post(f"/api/result/{new_id}/also", files=more[:1]).json()["game_id"]
    assert local.get(f"/api/result/{last}").json()["more_photos"] == 0
    response = local.post(f"/api/result/{last}/also", files=more[:1])
    assert response.status_code == 400 and "the most read together" in response.json()["detail"]


def test_more_photos_of_a_result_are_refused_where_they_cannot_be_read_with_it(
    local: TestClient, fake: FakeScore, tmp_path: Path
) -> None:
    top = [("also", ("top.jpg", _jpeg(), "image/jpeg"))]
    game_id = _upload(local, _jpeg()).json()["game_id"]
    url = f"/api/result/{game_id}/also"
    calls = len(fake.calls)
    other = [("other", ("x.jpg", _jpeg(), "image/jpeg"))]
    response = local.post(url, files=other, data={"also": "a text"})
    assert response.status_code == 400 and "also: expected a photo file" in response.json()["detail"]
    response = local.post(url, files=other)
    assert response.status_code == 400 and "no photo" in response.json()["detail"]
    assert local.post(url, files=[("also", ("notes.txt", b"hi", "text/plain"))]).status_code == 415
    assert local.post(url, json={"also": []}).status_code == 415
    assert local.post(url, files=[("also", ("top.jpg", b"not a jpeg", "image/jpeg"))]).status_code == 400
    assert local.post("/api/result/999/also", files=top).status_code == 404
    assert len(fake.calls) == calls

    # A result corrected by hand keeps its corrections.
    state = local.get(f"/api/result/{game_id}").json()["boards"][0]["board"]["state"]
    corrected = local.post(f"/api/result/{game_id}/correct", json={"boards": [state]}).json()["game_id"]
    assert local.get(f"/api/result/{corrected}").json()["more_photos"] == 0
    response = local.post(f"/api/result/{corrected}/also", files=top)
    assert response.status_code == 409 and "corrected by hand" in response.json()["detail"]

    # A result whose photos are gone, or of several boards.
    gone = _upload(local, _jpeg()).json()["game_id"]
    ResultStore(StateDir(tmp_path)).delete(gone)
    response = local.post(f"/api/result/{gone}/also", files=top)
    assert response.status_code == 404 and "no longer kept" in response.json()["detail"]
    fake.boards = fake.boards * 2
    several = _upload(local, _jpeg()).json()["game_id"]
    assert local.get(f"/api/result/{several}").json()["more_photos"] == 0
    response = local.post(f"/api/result/{several}/also", files=top)
    assert response.status_code == 400 and "2 boards" in response.json()["detail"]
    assert len(fake.calls) == calls + 2

    # What the pipeline refuses is told as an upload's would be; the result stays.
    fake.boards = fake.boards[:1]
    kept = _upload(local, _jpeg()).json()["game_id"]
    fake.error = ValueError("photo 1 shows 2 boards of alices-garden: more photos are read with one")
    response = local.post(f"/api/result/{kept}/also", files=top)
    assert response.status_code == 400 and "shows 2 boards" in response.json()["detail"]
    fake.error = NoBoardError("no board found in the photo")
    assert local.post(f"/api/result/{kept}/also", files=top).status_code == 422
    assert local.get(f"/api/history/{kept}").status_code == 200


SQUARE = [[10.0, 8.0], [60.0, 9.0], [59.0, 44.0], [11.0, 43.0]]


def test_a_board_not_found_is_read_where_the_player_places_its_corners(
    local: TestClient, fake: FakeScore, tmp_path: Path
) -> None:
    # The home page sends the photo again with the corners dragged onto it.
    response = _upload(local, _jpeg(), corners=json.dumps(SQUARE))
    assert response.status_code == 200, response.text
    assert fake.corners[-1] == SQUARE
    game_id = response.json()["game_id"]
    result = local.get(f"/api/result/{game_id}").json()
    # The result page shows the photo as it was sent, at its size as viewed, to place the corners on.
    assert result["photo"] == {"url": f"/api/result/{game_id}/photo", "size_wh": [80, 64]}
    photo = local.get(result["photo"]["url"])
    assert photo.status_code == 200 and photo.content == _jpeg()
    assert photo.headers["content-type"] == "image/jpeg"

    moved = [[12.0, 8.0], [62.0, 10.0], [58.0, 45.0], [9.0, 44.0]]
    response = local.post(f"/api/result/{game_id}/corners", json={"corners_xy": moved})
    assert response.status_code == 200, response.text
    new_id = response.json()["game_id"]
    assert fake.corners[-1] == moved and fake.calls[-1][0] == (64, 80, 3)
    # The new reading replaces the result, its photo kept with it.
    assert local.get(f"/api/history/{game_id}").status_code == 404
    assert [p.name for p in ResultStore(StateDir(tmp_path)).photos(new_id)] == ["photo.jpg"]


def test_corners_that_place_no_board_are_refused(local: TestClient, fake: FakeScore, tmp_path: Path) -> None:
    calls = len(fake.calls)
    for corners in ("[[1, 2], [3, 4]]", "not json", '{"x": 1}', json.dumps([[0, 0, 0]] * 4)):
        response = _upload(local, _jpeg(), corners=corners)
        assert response.status_code == 400 and "four [x, y] pixel pairs" in response.json()["detail"]
    outside = [[10, 8], [600, 9], [59, 44], [11, 43]]
    response = _upload(local, _jpeg(), corners=json.dumps(outside))
    assert response.status_code == 400 and "80 x 64 pixels" in response.json()["detail"]
    assert len(fake.calls) == calls
    assert local.post("/api/result/999/corners", json={"corners_xy": SQUARE}).status_code == 404
    assert local.get("/api/result/999/photo").status_code == 404

    game_id = _upload(local, _jpeg()).json()["game_id"]
    response = local.post(f"/api/result/{game_id}/corners", json={"corners_xy": SQUARE[:3]})
    assert response.status_code == 422
    # A result corrected by hand keeps its corrections; one of several boards is not one board's corners.
    state = local.get(f"/api/result/{game_id}").json()["boards"][0]["board"]["state"]
    corrected = local.post(f"/api/result/{game_id}/correct", json={"boards": [state]}).json()["game_id"]
    response = local.post(f"/api/result/{corrected}/corners", json={"corners_xy": SQUARE})
    assert response.status_code == 409 and "corrected by hand" in response.json()["detail"]
    fake.boards = fake.boards * 2
    several = _upload(local, _jpeg()).json()["game_id"]
    response = local.post(f"/api/result/{several}/corners", json={"corners_xy": SQUARE})
    assert response.status_code == 400 and "2 boards" in response.json()["detail"]
    # A result whose photos are gone: nothing to place them on.
    fake.boards = fake.boards[:1]
    gone = _upload(local, _jpeg()).json()["game_id"]
    ResultStore(StateDir(tmp_path)).delete(gone)
    assert local.get(f"/api/result/{gone}").json()["photo"] is None
    response = local.post(f"/api/result/{gone}/corners", json={"corners_xy": SQUARE})
    assert response.status_code == 404 and "no longer kept" in response.json()["detail"]
    assert local.get(f"/api/result/{gone}/photo").status_code == 404


def _huge_png() -> bytes:
    ihdr = struct.pack(">II", 100_000, 100_000) + bytes([8, 2, 0, 0, 0])
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def test_upload_answers_like_the_cli_and_records_the_result(
    local: TestClient, fake: FakeScore, alice_boards: list[ScoredBoard]
) -> None:
    response = _upload(local, _jpeg(), hand='{"unplaced_bonus_tiles": 1}')
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"game_id", "boards"}
    assert body["boards"] == [b.to_json() for b in alice_boards]
    assert fake.calls == [((64, 80, 3), "alices-garden", {"unplaced_bonus_tiles": 1}, None)]

    record = local.get(f"/api/history/{body['game_id']}").json()
    assert record["source"] == "upload"
    assert [b["board"] for b in record["boards"]] == body["boards"]

    result = local.get(f"/api/result/{body['game_id']}").json()
    board = result["boards"][0]
    assert result["title"] == "Alice's Garden" and result["photo_kept"]
    assert board["picker"]["field"] == "rows" and board["picker"]["labels"]["R"] == "rose"
    assert len(board["cells"]) == 48 and all(0 <= v <= 1 for c in board["cells"] for v in c["box"])
    assert board["read_state"] == alice_boards[0].state
    picture = local.get(board["picture"])
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    image = cv2.imdecode(np.frombuffer(picture.content, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[0] > 400


def _real(
    image: NDArray[np.uint8],
    game: str,
    hand: Mapping[str, Any],
    profile: str | None,
    also: Sequence[NDArray[np.uint8]] = (),
    /,
    *,
    corners: NDArray[np.float64] | None = None,
) -> list[ScoredBoard]:
    """The app's scorer as the real pipeline, with the shipped models (no profile)."""
    return score_image(image, game, hand, corners_xy=corners, also=also)


def test_the_real_pipeline_gives_what_score_json_prints(
    make_app: AppFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(make_app(_real), base_url=BASE_URL, client=LOCAL) as client:
        response = _upload(client, PHOTO.read_bytes())
    assert response.status_code == 200, response.text
    assert main(["score", str(PHOTO), "--game", "alices-garden", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert response.json()["boards"] == cli["boards"]
    assert cli["boards"][0]["total"] == _alice_total(TRUTH["state"])


@pytest.mark.parametrize(
    ("content", "kind", "status", "message"),
    [
        (b"", "image/jpeg", 400, "empty"),
        (PHOTO.read_bytes()[:600], "image/jpeg", 400, "truncated"),
        (PHOTO.read_bytes()[:100], "image/jpeg", 400, "truncated"),
        (b"shopping list: eggs", "image/jpeg", 400, "not a JPEG or PNG"),
        (b"shopping list: eggs", "text/plain", 415, "text/plain, not a photo"),
        (_huge_png(), "image/png", 400, "pixel limit"),
        # Said at the size it was sent, though the reader would shrink so long a photo before reading it.
        (_jpeg(20_000, 50), "image/jpeg", 400, "only 20000 x 50 pixels, too small to read a board"),
    ],
)
def test_bad_photos_are_refused_with_the_reason(
    local: TestClient, fake: FakeScore, content: bytes, kind: str, status: int, message: str
) -> None:
    response = _upload(local, content, kind=kind)
    assert response.status_code == status
    assert message in response.json()["detail"]
    assert not fake.calls
    assert local.get("/api/history").json() == []


def test_bad_requests_get_a_clear_4xx(local: TestClient, fake: FakeScore) -> None:
    response = _upload(local, _jpeg(), game="chess")
    assert response.status_code == 400 and "known games: alices-garden" in response.json()["detail"]
    response = local.post("/api/score?game=alices-garden&profile=../etc", files={"file": ("a.jpg", _jpeg())})
    assert response.status_code == 400 and "profile name" in response.json()["detail"]
    # A profile this scorer has not: said in a phone's words, no folder, no command to run.
    said = local.post("/api/score?game=alices-garden&profile=nope", files={"file": ("a.jpg", _jpeg())})
    assert said.status_code == 400
    assert said.json()["detail"].startswith("this scorer has no board profile named 'nope'")
    assert "garden-scorer" not in said.json()["detail"] and "/" not in said.json()["detail"]
    response = local.post("/api/score?game=alices-garden", json={"file": "x"})
    assert response.status_code == 415
    response = local.post(
        "/api/score?game=alices-garden", content=_jpeg(), headers={"content-type": "image/jpeg"}
    )
    assert response.status_code == 415
    response = local.post("/api/score?game=alices-garden", data={"hand": "{}"}, files={"other": ("a", b"x")})
    assert response.status_code == 400 and "field 'file'" in response.json()["detail"]
    response = _upload(local, _jpeg(), hand="[1, 2]")
    assert response.status_code == 400 and "hand" in response.json()["detail"]
    # A hand entry the game's form would refuse is refused before the photo is read or kept, in its words.
    response = _upload(local, _jpeg(), game="sanssouci", hand='{"missions": [2, 14], "track_score": 30}')
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "Your two mission cards, second card: 14 is not possible; it is 1 to 9"
    )
    response = local.post("/api/score", files={"file": ("a.jpg", _jpeg())})
    assert response.status_code == 422  # no game
    assert not fake.calls  # nothing was read, so nothing was kept


def test_no_board_and_scorer_errors_are_4xx(local: TestClient, fake: FakeScore) -> None:
    fake.error = NoBoardError("no board found in the photo: make sure the whole board is in view")
    response = _upload(local, _jpeg())
    assert response.status_code == 422 and "no board found" in response.json()["detail"]
    fake.error = ValueError("no photo reader for 'tang-garden' yet")
    response = _upload(local, _jpeg(), game="tang-garden")
    assert response.status_code == 400 and "no photo reader" in response.json()["detail"]


def test_too_large_bodies_are_refused_before_decoding(make_app: AppFactory, fake: FakeScore) -> None:
    with TestClient(make_app(fake, max_upload_bytes=10_000), base_url=BASE_URL, client=LOCAL) as client:
        declared = _upload(client, bytes(20_000))
        assert declared.status_code == 413 and "over the 10 kB the scorer takes" in declared.json()["detail"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: only counting while reading catches it
            yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n'
            for _ in range(30):
                yield bytes(1000)

        streamed = client.post(
            "/api/score?game=alices-garden",
            content=chunks(),
            headers={"content-type": "multipart/form-data; boundary=b"},
        )
        assert streamed.status_code == 413 and "over the 10 kB the scorer takes" in streamed.json()["detail"]
        assert _upload(client, _jpeg()).status_code == 200
    assert len(fake.calls) == 1


def test_a_correction_is_rescored_by_the_rules_and_replaces_the_result(
    local: TestClient, alice_boards: list[ScoredBoard], tmp_path: Path
) -> None:
    first = _upload(local, _jpeg()).json()
    state = dict(first["boards"][0]["state"])
    assert state["rows"][0][0] == "."
    state["rows"] = ["R" + state["rows"][0][1:], *state["rows"][1:]]

    response = local.post(
        f"/api/result/{first['game_id']}/correct", json={"boards": [state], "consent": True}
    )
    assert response.status_code == 200, response.text
    corrected = response.json()
    board = corrected["boards"][0]
    assert board["total"] == _alice_total(state) != first["boards"][0]["total"]
    assert board["state"] == state and board["flags"] == ["corrected by hand"]
    assert board["corners_xy"] == first["boards"][0]["corners_xy"]
    assert corrected["enrolment_saved"]

    assert local.get(f"/api/history/{first['game_id']}").status_code == 404
    record = local.get(f"/api/history/{corrected['game_id']}").json()
    assert record["source"] == "corrected" and record["boards"][0]["total"] == board["total"]
    result = local.get(f"/api/result/{corrected['game_id']}").json()
    assert result["boards"][0]["read_state"] == alice_boards[0].state  # what the picture shows
    assert local.get(result["boards"][0]["picture"]).status_code == 200

    inbox = {p.suffix: p for p in (tmp_path / "enrolment-inbox").iterdir()}
    assert sorted(inbox) == [".jpg", ".json"]
    assert inbox[".jpg"].read_bytes() == _jpeg()
    rules, parsed = read_state(json.loads(inbox[".json"].read_text()))
    assert rules.name == "alices-garden" and parsed == rules.parse(state)


def test_a_correction_read_with_a_profile_teaches_it_in_the_background(
    local: TestClient, tmp_path: Path
) -> None:
    from calibration.profiles import new_profile, save_profile

    state = StateDir(tmp_path)
    save_profile(state, new_profile("kitchen", "alices-garden", {}))
    photo = ("photo.jpg", PHOTO.read_bytes(), "image/jpeg")
    first = local.post("/api/score?game=alices-garden&profile=kitchen", files={"file": photo}).json()
    truth = TRUTH["state"]
    response = local.post(
        f"/api/result/{first['game_id']}/correct", json={"boards": [truth], "consent": True}
    )
    assert response.status_code == 200, response.text
    assert response.json()["enrolment_saved"] and response.json()["reteaching"] == "kitchen"
    # Not left in the inbox: the profile it was read with learns from it.
    assert not (tmp_path / "enrolment-inbox").exists()
    deadline = time.monotonic() + 120  # guards against a hang, not a speed
    while True:
        (profile,) = local.get("/api/profiles").json()
        if not profile["reteaching"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert not profile["reteaching"]
    assert profile["teaching_photos"] == 1 and profile["enrolled_cells"] == 48
    assert profile["left_out"] == []  # one photo: nothing to teach from without it
    (kept,) = (tmp_path / "profiles" / "kitchen" / "teaching").glob("*.jpg")
    assert kept.read_bytes() == PHOTO.read_bytes()


def test_a_correction_not_of_the_profiles_board_is_refused_before_it_teaches(
    local: TestClient, tmp_path: Path
) -> None:
    from calibration.profiles import new_profile, save_profile

    save_profile(StateDir(tmp_path), new_profile("kitchen", "alices-garden", {}))
    photo = ("photo.jpg", PHOTO.read_bytes(), "image/jpeg")
    first = local.post("/api/score?game=alices-garden&profile=kitchen", files={"file": photo}).json()
    truth = dict(TRUTH["state"])
    # A row more than the board has: the rules score it, but taught from it every cell would learn another's.
    longer = {
        **truth,
        "rows": [*truth["rows"], truth["rows"][0]],
        "setup": {**truth.get("setup", {}), "rows": 7},
    }
    url = f"/api/result/{first['game_id']}/correct"
    refused = local.post(url, json={"boards": [longer], "consent": True})
    assert refused.status_code == 422, refused.text
    assert "7 rows of 8 cells, the board 6 rows of 8" in refused.json()["detail"]
    assert [g["id"] for g in local.get("/api/history").json()] == [first["game_id"]]
    assert not (tmp_path / "profiles" / "kitchen" / "teaching").exists()
    # Not kept to teach, it is only a score: corrected as the player says.
    assert local.post(url, json={"boards": [longer]}).status_code == 200


def test_a_changed_board_is_scored_at_once_and_nothing_is_kept(local: TestClient) -> None:
    first = _upload(local, _jpeg()).json()
    url = f"/api/result/{first['game_id']}/preview"
    state = dict(first["boards"][0]["state"])
    state["rows"] = ["R" + state["rows"][0][1:], *state["rows"][1:]]
    answer = local.post(url, json={"boards": [state]})
    assert answer.status_code == 200, answer.text
    (board,) = answer.json()["boards"]
    assert board["total"] == _alice_total(state) != first["boards"][0]["total"]
    assert board["state"] == state and board["lines"]
    # Nothing kept: the result stays as it was read until the player saves the change.
    assert [g["id"] for g in local.get("/api/history").json()] == [first["game_id"]]
    assert (
        local.get(f"/api/result/{first['game_id']}").json()["boards"][0]["board"]["total"]
        == (first["boards"][0]["total"])
    )
    state["rows"] = ["X" + state["rows"][0][1:], *state["rows"][1:]]
    refused = local.post(url, json={"boards": [state]})
    assert refused.status_code == 422 and "X" in refused.json()["detail"]


def test_a_correction_that_cannot_be_scored_changes_nothing(local: TestClient) -> None:
    first = _upload(local, _jpeg()).json()
    url = f"/api/result/{first['game_id']}/correct"
    state = dict(first["boards"][0]["state"])
    state["rows"] = ["X" + state["rows"][0][1:], *state["rows"][1:]]
    assert local.post(url, json={"boards": [state]}).status_code == 422
    assert local.post(url, json={"boards": [state, state]}).status_code == 422
    assert local.post(url, json={"boards": [{**state, "game": "sanssouci"}]}).status_code == 422
    assert local.post("/api/result/999/correct", json={"boards": [state]}).status_code == 404
    assert [g["id"] for g in local.get("/api/history").json()] == [first["game_id"]]


def test_a_table_game_is_rescored_as_one_table() -> None:
    example = json.loads((EXAMPLES / "zen-garden.json").read_text())
    players = example["players"]
    hand = {"setup": example["setup"]}
    boards = [{"game": "zen-garden", "flags": ["1 cell(s) read with low confidence"]} for _ in players]
    expected = get_game("zen-garden").score(read_state(example)[1])
    assert isinstance(expected, TableScore)
    out = rescore("zen-garden", boards, players, hand)
    assert [b["total"] for b in out] == [p.total for p in expected.players]
    assert all(b["flags"] == ["corrected by hand"] for b in out)
    second = enrolment_state("zen-garden", players, 1, hand)
    assert [p["name"] for p in second["players"]] == ["Bo", "Ann", "Cy"]
    read_state(second)


@pytest.mark.parametrize("game", ["four-gardens", "tang-garden"])
def test_a_shared_board_is_rescored_for_every_player(game: str) -> None:
    example = json.loads((EXAMPLES / f"{game}.json").read_text())
    expected = get_game(game).score(read_state(example)[1])
    assert isinstance(expected, TableScore)
    (out,) = rescore(game, [{"game": game, "flags": []}], [example], {})
    assert out["total"] is None and out["lines"] == []
    assert [(p["player"], p["total"], p["rank"]) for p in out["players"]] == [
        (p.player, p.total, rank) for p, rank in zip(expected.players, expected.ranks, strict=True)
    ]


def test_history_lists_and_exports(local: TestClient) -> None:
    ids = [_upload(local, _jpeg()).json()["game_id"] for _ in range(2)]
    assert [g["id"] for g in local.get("/api/history").json()] == ids[::-1]
    assert [g["id"] for g in local.get("/api/history?limit=1&offset=1").json()] == ids[:1]
    exported = local.get("/api/history.json")
    assert "attachment" in exported.headers["content-disposition"]
    assert [g["id"] for g in exported.json()] == ids
    rows = list(csv.reader(io.StringIO(local.get("/api/history.csv").text)))
    assert tuple(rows[0]) == CSV_FIELDS and [int(r[0]) for r in rows[1:]] == ids
    assert local.get("/api/history/999").status_code == 404
    assert local.get("/api/history/abc").status_code == 422
    assert local.get("/api/result/0").status_code == 422


def test_the_owners_tasks_need_a_paired_device_and_players_upload_without(
    local: TestClient, remote: TestClient, tmp_path: Path
) -> None:
    game_id = _upload(remote, _jpeg()).json()["game_id"]  # scoring is for everyone
    assert (tmp_path / "web-results" / str(game_id)).is_dir()
    url = f"/api/history/{game_id}"
    refused = remote.delete(url)
    assert refused.status_code == 403 and "pair this phone" in refused.json()["detail"]
    assert remote.put("/api/setup", json={"game": "sanssouci"}).status_code == 403
    assert (tmp_path / "web-results" / str(game_id)).is_dir()
    assert local.delete(url).status_code == 204  # the owner's paired phone
    assert not (tmp_path / "web-results" / str(game_id)).exists()


def test_the_game_setup_is_stored_and_used_by_uploads(
    local: TestClient, fake: FakeScore, make_app: AppFactory, tmp_path: Path
) -> None:
    setup = {"game": "alices-garden", "players": [" Ann "], "hand": {"unplaced_bonus_tiles": 2}}
    saved = local.put("/api/setup", json=setup)
    assert saved.status_code == 200 and saved.json()["players"] == ["Ann"]
    assert json.loads((tmp_path / "web-setup.json").read_text())["kind"] == "web-setup"
    game_id = _upload(local, _jpeg()).json()["game_id"]
    assert fake.calls[-1][2] == {"unplaced_bonus_tiles": 2}
    assert local.get(f"/api/history/{game_id}").json()["boards"][0]["player"] == "Ann"
    with TestClient(make_app(), base_url=BASE_URL, client=LOCAL) as restarted:
        assert restarted.get("/api/setup").json() == {**setup, "players": ["Ann"]}
    bad = local.put("/api/setup", json={"game": "chess"})
    assert bad.status_code == 422 and "unknown game" in bad.text
    # A hand entry the game's form would refuse is not saved.
    bad = local.put("/api/setup", json={"game": "alices-garden", "hand": {"unplaced_bonus_tiles": -1}})
    assert bad.status_code == 400
    assert bad.json()["detail"] == "Bonus tiles you could not place: -1 is not possible; it is 0 to 30"
    assert local.get("/api/setup").json()["hand"] == {"unplaced_bonus_tiles": 2}
    assert local.put("/api/setup", json={"players": ["x"] * 9}).status_code == 422


def test_who_is_playing_is_any_phones_to_say_and_names_the_boards(
    local: TestClient, remote: TestClient, make_app: AppFactory, tmp_path: Path
) -> None:
    assert remote.get("/api/players").json() == {"players": []}
    # A phone that is not paired names the players, as it sends a photo: no owner needed.
    named = remote.put("/api/players", json={"players": [" Ann ", "Bo"]})
    assert named.status_code == 200 and named.json() == {"players": ["Ann", "Bo"]}
    assert json.loads((tmp_path / "web-players.json").read_text())["kind"] == "web-players"
    with TestClient(make_app(), base_url=BASE_URL, client=LOCAL) as restarted:
        assert restarted.get("/api/players").json() == {"players": ["Ann", "Bo"]}
    assert remote.put("/api/players", json={"players": ["x"] * 9}).status_code == 422
    # The photo's one board is Bo's, as the phone says; the set-up's names give way.
    local.put("/api/setup", json={"game": "alices-garden", "players": ["Cy"]})
    game_id = _upload(remote, _jpeg(), players='["Bo"]').json()["game_id"]
    assert local.get(f"/api/history/{game_id}").json()["boards"][0]["player"] == "Bo"
    # Names for more boards than the photo holds: the set-up's, as with none, and the result says so.
    sent = _upload(remote, _jpeg(), players='["Ann", "Bo"]').json()
    assert local.get(f"/api/history/{sent['game_id']}").json()["boards"][0]["player"] == "Cy"
    assert sent["boards"][0]["flags"][-1].startswith("2 players were named but 1 board found")
    for bad in ('"Bo"', "[]", '[""]', "[1]", "not json"):
        refused = _upload(remote, _jpeg(), players=bad)
        assert refused.status_code == 400 and refused.json()["detail"].startswith("players: expected"), bad


def _sse_lines(client: TestClient, headers: Mapping[str, str], want: int) -> list[str]:
    """The stream's first ``want`` non-empty lines; fails instead of hanging when they do not come."""
    deadline = time.monotonic() + 60  # a guard against a hang, not a speed limit
    lines: list[str] = []
    with client.stream("GET", "/api/events", headers=dict(headers)) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():  # pings every 50 ms let the deadline be checked
            if line:
                lines.append(line)
            if len(lines) >= want or time.monotonic() > deadline:
                break
    return lines


def test_events_stream_live_results_and_resume(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fastapi.routing._PING_INTERVAL", 0.05)
    events = FakeEvents(
        [
            FakeEvent(1, "status", {"message": "the board is covered"}),
            FakeEvent(2, "score", {"game": "alices-garden", "boards": [{"player": "Ann", "total": 31}]}),
        ]
    )
    with TestClient(make_app(events=events), base_url=BASE_URL, client=REMOTE) as client:
        lines = _sse_lines(client, {}, 7)
        assert lines[0] == "event: status" and lines[2] == "id: 1"
        assert json.loads(lines[1].removeprefix("data: ")) == events.backlog[0].payload
        assert lines[4] == "event: score" and lines[6] == "id: 2"
        assert json.loads(lines[5].removeprefix("data: ")) == events.backlog[1].payload
        resumed = _sse_lines(client, {"Last-Event-ID": "1"}, 3)
        assert resumed[0] == "event: score" and resumed[2] == "id: 2"
        assert _sse_lines(client, {"Last-Event-ID": "2"}, 1) == [": ping"]
        assert client.get("/api/tv").json()["live"] is True
    assert events.unsubscribed == events.subscribed == 3


def test_events_come_from_the_live_loops_broadcaster(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from device.live import Broadcaster, LiveEvent

    monkeypatch.setattr("fastapi.routing._PING_INTERVAL", 0.05)
    hub = Broadcaster()
    board = {"game": "alices-garden", "seat": "seat 1", "player": "Ann", "total": 31}
    hub.publish(LiveEvent("score", 7, 0.0, {"boards": [board], "totals": {"seat 1": 31}}))
    with TestClient(make_app(events=hub), base_url=BASE_URL, client=REMOTE) as client:
        lines = _sse_lines(client, {}, 3)
    assert lines[0] == "event: score" and lines[2] == "id: 7"
    assert json.loads(lines[1].removeprefix("data: "))["boards"] == [board]


def test_the_tv_shows_the_latest_upload_without_a_live_source(
    remote: TestClient, alice_boards: list[ScoredBoard]
) -> None:
    assert remote.get("/api/events").status_code == 404
    nothing = {"live": False, "latest": None, "photo": None, "hold_s": PHOTO_HOLD_S}
    assert remote.get("/api/tv").json() == nothing
    game_id = _upload(remote, _jpeg()).json()["game_id"]
    tv = remote.get("/api/tv").json()
    assert tv["latest"]["id"] == game_id and tv["latest"]["title"] == "Alice's Garden"
    assert tv["latest"]["boards"][0]["total"] == alice_boards[0].to_json()["total"]


def test_the_tv_is_told_the_photo_stored_last_and_its_age(local: TestClient, tmp_path: Path) -> None:
    """Uploaded or corrected (a new id, the first's time), by the scorer's clock; the camera's games are not
    photos."""
    first = _upload(local, _jpeg()).json()
    state = first["boards"][0]["state"]
    corrected = local.post(f"/api/result/{first['game_id']}/correct", json={"boards": [state]}).json()
    with History.open(StateDir(tmp_path).history) as history:
        history.record("alices-garden", [], "live")
        history.record("alices-garden", [], "live", when=datetime.now(UTC) - timedelta(hours=1))
    photo = local.get("/api/tv").json()["photo"]
    assert photo["id"] == corrected["game_id"] and photo["title"] == "Alice's Garden"
    assert datetime.fromisoformat(photo["played_at"]) < datetime.fromisoformat(photo["stored_at"])
    assert 0 <= photo["age_s"] < PHOTO_HOLD_S
    with History.open(StateDir(tmp_path).history) as history:
        old = history.record("alices-garden", [], "cli", when=datetime.now(UTC) - timedelta(days=1))
    photo = local.get("/api/tv").json()["photo"]
    assert photo["id"] == old and photo["age_s"] >= timedelta(days=1).total_seconds()


@pytest.mark.parametrize("path", ["/", "/tv", "/history", "/setup", "/result/1"])
def test_pages_are_served_with_their_own_scripts_only(local: TestClient, path: str) -> None:
    response = local.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    for src in ("/static/common.js", "/static/style.css"):
        assert src in response.text
        assert local.get(src).status_code == 200
    assert "http://" not in response.text and "https://" not in response.text


def test_upload_page_opens_the_phone_camera_and_docs_describe_the_api(local: TestClient) -> None:
    assert 'capture="environment"' in local.get("/").text
    assert local.get("/docs").status_code == 200
    schema = local.get("/openapi.json").json()
    upload = schema["paths"]["/api/score"]["post"]
    assert "multipart/form-data" in upload["requestBody"]["content"]
    assert {"/api/history", "/api/events", "/api/result/{game_id}/correct"} <= set(schema["paths"])


def test_the_oldest_results_make_room_within_the_bytes_kept(
    alice_boards: list[ScoredBoard], tmp_path: Path
) -> None:
    ResultStore(StateDir(tmp_path / "one")).save(1, _jpeg(), alice_boards, {}, None)
    folder = sum(p.stat().st_size for p in (tmp_path / "one" / RESULTS_DIR / "1").iterdir())
    store = ResultStore(StateDir(tmp_path), keep_bytes=2 * folder)
    for game_id in (1, 2, 3):
        store.save(game_id, _jpeg(), alice_boards, {}, None)
    assert sorted(p.name for p in store.root.iterdir()) == ["2", "3"]
    assert store.picture(1, 0) is None and store.meta(1) == {}
    assert store.picture(3, 0) is not None and store.photo(3) == store.folder(3) / "photo.jpg"
    # However little room there is, the newest result keeps its photo.
    ResultStore(StateDir(tmp_path), keep_bytes=1).save(4, _jpeg(), alice_boards, {}, None)
    assert sorted(p.name for p in store.root.iterdir()) == ["4"]


def test_a_result_keeps_its_photo_through_an_evenings_uploads(tmp_path: Path) -> None:
    store = ResultStore(StateDir(tmp_path))
    evening = range(1, 61)
    for game_id in evening:
        store.save(game_id, _jpeg(2304, 1296), [], {}, None)
    assert all(store.photo(game_id) is not None for game_id in evening)


def test_a_photo_no_longer_kept_is_said_so_in_words(local: TestClient, tmp_path: Path) -> None:
    game_id = _upload(local, _jpeg()).json()["game_id"]
    ResultStore(StateDir(tmp_path)).delete(game_id)
    result = local.get(f"/api/result/{game_id}").json()
    assert not result["photo_kept"] and result["photo"] is None
    assert all(board["picture"] is None for board in result["boards"])
    gone = local.get(f"/api/result/{game_id}/photo")
    assert gone.status_code == 404
    assert gone.json()["detail"] == f"no photo of game {game_id} is kept ({NOT_KEPT})"


def test_the_live_preview_streams_the_cameras_latest_picture_to_the_owner_alone(make_app: AppFactory) -> None:
    picture = np.full((1296, 2304, 3), (40, 120, 200), np.uint8)
    app = make_app(preview=lambda: picture)
    # The camera shows the room: a phone that is not paired, or a program on the Pi itself, sees nothing.
    for address in (REMOTE, LOCAL):
        refused = TestClient(app, base_url=BASE_URL, client=address).get("/api/preview.mjpg")
        assert refused.status_code == 403 and "pair this phone" in refused.json()["detail"]
    with TestClient(app, base_url=BASE_URL) as client:
        pair(client, TestClient(app, base_url=BASE_URL, client=LOCAL))
        with client.stream("GET", "/api/preview.mjpg") as response:
            assert response.headers["content-type"] == "multipart/x-mixed-replace; boundary=frame"
            head = b""
            for chunk in response.iter_bytes():
                head += chunk
                if len(head) > 2000:
                    break
        assert head.startswith(b"--frame\r\nContent-Type: image/jpeg\r\n")
        jpeg = head[head.index(b"\r\n\r\n") + 4 :]
        assert jpeg.startswith(b"\xff\xd8")
        # Without a camera there is none to show, even to the owner (the same state folder: still paired).
        without = TestClient(make_app(), base_url=BASE_URL, cookies=client.cookies)
        assert without.get("/api/preview.mjpg").status_code == 404


def test_the_api_docs_need_no_internet(local: TestClient) -> None:
    page = local.get("/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text and "https://" not in page.text
    assert local.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert local.get("/docs-assets/swagger-ui.css").status_code == 200
    assert local.get("/openapi.json").json()["info"]["title"] == "garden-scorer"


def test_a_result_is_read_again_with_what_the_photo_cannot_show_typed_in(
    local: TestClient, fake: FakeScore, tmp_path: Path
) -> None:
    game_id = _upload(local, _jpeg(), hand='{"unplaced_bonus_tiles": 1}').json()["game_id"]
    assert local.get(f"/api/result/{game_id}").json()["hand"] == {"unplaced_bonus_tiles": 1}
    calls = len(fake.calls)
    response = local.post(f"/api/result/{game_id}/hand", json={"hand": {"unplaced_bonus_tiles": 40}})
    assert response.status_code == 400
    assert response.json()["detail"] == "Bonus tiles you could not place: 40 is not possible; it is 0 to 30"
    assert len(fake.calls) == calls and local.get(f"/api/result/{game_id}").status_code == 200

    response = local.post(f"/api/result/{game_id}/hand", json={"hand": {"unplaced_bonus_tiles": 2}})
    assert response.status_code == 200, response.text
    new_id = response.json()["game_id"]
    # The kept photo is read again with the new entry, and the reading replaces the result.
    assert fake.calls[-1][2] == {"unplaced_bonus_tiles": 2}
    assert local.get(f"/api/result/{new_id}").json()["hand"] == {"unplaced_bonus_tiles": 2}
    assert local.get(f"/api/history/{game_id}").status_code == 404

    assert local.post("/api/result/999/hand", json={"hand": {}}).status_code == 404
    assert local.post(f"/api/result/{new_id}/hand", json={"other": 1}).status_code == 422
    state = local.get(f"/api/result/{new_id}").json()["boards"][0]["board"]["state"]
    corrected = local.post(f"/api/result/{new_id}/correct", json={"boards": [state]}).json()["game_id"]
    response = local.post(f"/api/result/{corrected}/hand", json={"hand": {}})
    assert response.status_code == 409 and "edit its state" in response.json()["detail"]
    gone = _upload(local, _jpeg()).json()["game_id"]
    ResultStore(StateDir(tmp_path)).delete(gone)
    response = local.post(f"/api/result/{gone}/hand", json={"hand": {}})
    assert response.status_code == 404 and "no longer kept" in response.json()["detail"]


def test_a_mighty_duel_kingdom_set_up_on_the_page_is_scored_as_7_x_7(make_app: AppFactory) -> None:
    from lab.synth.camera import PhotoOptions
    from lab.synth.render import RenderSpec, render_photo
    from vision.profile import default_profile
    from vision.readers.kingdomino import sized

    seven = sized(default_profile("kingdomino"), {"setup": {"size": 7}})
    spec = RenderSpec(("kingdomino",), 3, options=PhotoOptions((1600, 1200), 25), reshaped=seven)
    ok, jpeg = cv2.imencode(".jpg", render_photo(spec, 0).decode())
    assert ok
    hand = json.dumps({"setup": {"size": 7}})
    with TestClient(make_app(_real), base_url=BASE_URL, client=LOCAL) as client:
        response = _upload(client, jpeg.tobytes(), "kingdomino", hand=hand)
        assert response.status_code == 200, response.text
        (board,) = response.json()["boards"]
        assert len(board["state"]["cells"]) == 7 and board["total"] is not None
        # The page's form asks for the size, in the players' words.
        form = client.get("/api/games").json()
    kingdomino = next(g for g in form if g["name"] == "kingdomino")
    (setup,) = kingdomino["hand_form"]
    assert setup["fields"][0]["label"] == "Squares along a kingdom's side"


def test_an_outline_that_is_no_board_is_left_out_of_a_correction(
    make_app: AppFactory, alice_boards: list[ScoredBoard]
) -> None:
    # A table of two gardens and an outline the scorer took for a third: a second look at the first garden
    # (its tiles, each printed once, seen twice). Kept, the table breaks the rules; left out, it scores.
    example = json.loads((EXAMPLES / "zen-garden.json").read_text())
    gardens = [{k: v for k, v in p.items() if k != "name"} for p in example["players"][:2]]
    reading = alice_boards[0].reading  # the pictures are drawn from it; the states are the gardens'
    read = [ScoredBoard(reading, state, None, ()) for state in [*gardens, gardens[0]]]
    with TestClient(make_app(FakeScore(read)), base_url=BASE_URL, client=LOCAL) as client:
        first = _upload(client, _jpeg(), game="zen-garden", hand=json.dumps({"setup": example["setup"]}))
        game = first.json()["game_id"]
        kept_all = client.post(f"/api/result/{game}/correct", json={"boards": [*gardens, gardens[0]]})
        assert kept_all.status_code == 422 and "unique" in kept_all.text
        # Said in words: the tiles by their garden, row and column, not by their fields' paths.
        assert "player 3, row 1, column 1" in kept_all.text and "players[" not in kept_all.text
        left_out = {"boards": [*gardens, None]}
        preview = client.post(f"/api/result/{game}/preview", json=left_out)
        assert preview.status_code == 200, preview.text
        assert [b["state"] for b in preview.json()["boards"]] == gardens
        corrected = client.post(f"/api/result/{game}/correct", json=left_out)
        assert corrected.status_code == 200, corrected.text
        new = corrected.json()["game_id"]
        assert [b["state"] for b in corrected.json()["boards"]] == gardens
        assert all(b["total"] is not None for b in corrected.json()["boards"])
        assert len(client.get(f"/api/history/{new}").json()["boards"]) == 2
        result = client.get(f"/api/result/{new}").json()
        assert [b["read_state"] for b in result["boards"]] == gardens
        assert all(client.get(b["picture"]).status_code == 200 for b in result["boards"])
        assert client.get(f"/api/result/{new}/board/2.png").status_code == 404
        nothing = client.post(f"/api/result/{new}/correct", json={"boards": [None, None]})
        assert nothing.status_code == 422 and "delete the game" in nothing.text


def test_the_cells_that_look_like_one_are_told_on_every_board(local: TestClient) -> None:
    # The drawn example is read right: each cell's look-alikes are the other cells of its label, never itself.
    game = _upload(local, _jpeg()).json()["game_id"]
    board = local.get(f"/api/result/{game}").json()["boards"][0]
    rows, cells = board["read_state"]["rows"], board["cells"]
    label = [rows[r][c] for _, r, c in (cell["key"] for cell in cells)]
    offered = 0
    for k in range(len(cells)):
        found = local.get(f"/api/result/{game}/board/0/alike/{k}")
        assert found.status_code == 200, found.text
        alike = [(x["board"], x["cell"]) for x in found.json()["cells"]]
        assert (0, k) not in alike and all(b == 0 and label[j] == label[k] for b, j in alike)
        offered += len(alike)
    assert offered >= len(cells)  # most cells have look-alikes: tiles of a kind are printed alike
    assert local.get(f"/api/result/{game}/board/0/alike/{len(cells)}").status_code == 404
    assert local.get(f"/api/result/{game}/board/1/alike/0").status_code == 404


def test_a_boards_looks_follow_it_when_another_is_left_out(
    tmp_path: Path, alice_boards: list[ScoredBoard]
) -> None:
    (read,) = alice_boards
    # A second board whose cells look alike in other pairs: its embedding's cells in reverse order.
    predictions = read.reading.predictions
    flipped = replace(predictions, embedding=predictions.embedding[::-1].copy())
    other = replace(read, reading=replace(read.reading, predictions=flipped))
    store = ResultStore(StateDir(tmp_path))
    store.save(7, _jpeg(), [read, other], {}, None)
    on_other = store.alike(7, 1, 0)
    assert on_other and on_other != store.alike(7, 0, 0)
    store.keep_boards(7, [1])
    assert store.alike(7, 0, 0) == [(0, k) for b, k in on_other if b == 1]
    assert store.alike(7, 1, 0) is None
    assert sorted(p.name for p in store.folder(7).iterdir() if p.suffix != ".jpg") == [
        "board-0.png",
        "looks-0.npy",
        "result.json",
    ]
