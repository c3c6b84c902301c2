"""What one upload may cost: a bounded number let in to read photos, photos refused by the bytes they would
take, decoded reduced where larger than the reader needs and one after another; and a save cut short leaves
nothing behind once the app starts again."""

from __future__ import annotations

import json
import struct
import threading
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi import FastAPI, HTTPException
from fastapi.testclient import TestClient
from numpy.typing import NDArray

from calibration.statedir import StateDir
from device.photo import ScoredBoard, decode_photo
from device.web import AppConfig, create_app
from device.web.reading import BUSY, RETRY_AFTER_S, Reader, Waiting
from device.web.results import RESULTS_DIR, ResultStore
from lab.pairing import KIOSK_TOKEN
from tests.conftest import BASE_URL, REMOTE
from tests.device.web.conftest import AppFactory
from tests.support import EXAMPLES

PHOTO = EXAMPLES / "photos" / "alices-garden.jpg"
HANG_GUARD_S = 60.0  # a guard against a hang, not a speed


class Scorer:
    """Answers with the same boards; notes what it is given, in order, and may hold a reading until let go."""

    def __init__(self, boards: list[ScoredBoard]) -> None:
        self.boards = boards
        self.log: list[tuple[str, tuple[int, ...]]] = []
        self.corners: list[list[list[float]] | None] = []
        self.reading = threading.Event()
        self.go = threading.Event()
        self.go.set()

    def __call__(
        self,
        image: NDArray[np.uint8],
        game: str,
        hand: Mapping[str, Any],
        profile: str | None,
        also: Sequence[NDArray[np.uint8]] = (),
        /,
        *,
        corners: NDArray[np.float64] | None = None,
    ) -> list[ScoredBoard]:
        self.reading.set()
        assert self.go.wait(HANG_GUARD_S)
        self.log.append(("read", image.shape))
        self.corners.append(None if corners is None else corners.tolist())
        for photo in also:
            self.log.append(("read", photo.shape))
        return self.boards


@pytest.fixture
def scorer(alice_boards: list[ScoredBoard]) -> Scorer:
    return Scorer(alice_boards)


@pytest.fixture
def app(make_app: AppFactory, scorer: Scorer) -> FastAPI:
    return make_app(scorer)


def _jpeg(width: int = 80, height: int = 64) -> bytes:
    return bytes(cv2.imencode(".jpg", np.full((height, width, 3), 128, np.uint8))[1].tobytes())


def _upload(client: TestClient, photo: bytes, *also: bytes, **data: str) -> Any:
    files = [("file", ("photo.jpg", photo, "image/jpeg"))]
    files += [("also", (f"side{k}.jpg", more, "image/jpeg")) for k, more in enumerate(also)]
    return client.post("/api/score?game=alices-garden", files=files, data=data)


def test_a_place_to_read_photos_is_given_to_so_many_requests_and_freed_after() -> None:
    waiting = Waiting(2)
    with waiting.place(), waiting.place():
        with pytest.raises(HTTPException) as busy, waiting.place():
            pass
        assert busy.value.status_code == 503 and busy.value.detail == BUSY
        assert busy.value.headers == {"Retry-After": str(RETRY_AFTER_S)}
    with waiting.place(), waiting.place():
        pass
    with pytest.raises(ValueError, match="at least one"):
        Waiting(0)


def test_uploads_beyond_those_let_in_to_read_are_turned_away_unread(app: FastAPI, scorer: Scorer) -> None:
    # The app letting one request in to read photos.
    app.state.services = replace(app.state.services, reader=Reader(scorer, Waiting(1)))
    scorer.go.clear()
    answers: list[Any] = []
    with TestClient(app, base_url=BASE_URL, client=REMOTE) as client:
        first = threading.Thread(target=lambda: answers.append(_upload(client, _jpeg())))
        first.start()
        try:
            assert scorer.reading.wait(HANG_GUARD_S)
            # Its body is in, but the photo is neither decoded nor read: the one place is taken.
            busy = _upload(client, _png_header(60_000, 60_000, depth=8, colour=2))
            assert busy.status_code == 503 and busy.json()["detail"] == BUSY
            assert busy.headers["retry-after"] == str(RETRY_AFTER_S)
        finally:
            scorer.go.set()
            first.join(HANG_GUARD_S)
        assert [a.status_code for a in answers] == [200]
        # Its place is free again.
        assert _upload(client, _jpeg()).status_code == 200
    assert [entry for entry in scorer.log if entry[0] == "read"] == [("read", (64, 80, 3))] * 2


def test_slow_bodies_hold_no_place_to_read_and_few_places_to_be_received(
    app: FastAPI, scorer: Scorer
) -> None:
    """What four slow uploads did (issue #58): a phone whose body trickles in holds a place to be received,
    at most two from one address, never a place to read photos; other phones upload meanwhile."""
    from device.web.bodies import RECEIVING_BUSY, RECEIVING_PER_CLIENT

    release = threading.Event()
    started = threading.Semaphore(0)

    def trickle() -> Iterator[bytes]:
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n'
        started.release()
        assert release.wait(HANG_GUARD_S)
        yield b"\r\n--b--\r\n"

    slow = TestClient(app, base_url=BASE_URL, client=("192.168.1.66", 4000))
    answers: list[int] = []

    def send() -> None:
        sent = slow.post(
            "/api/score?game=alices-garden",
            content=trickle(),
            headers={"content-type": "multipart/form-data; boundary=b"},
        )
        answers.append(sent.status_code)

    senders = [threading.Thread(target=send) for _ in range(RECEIVING_PER_CLIENT)]
    for sender in senders:
        sender.start()
    try:
        for _ in senders:
            assert started.acquire(timeout=HANG_GUARD_S)
        # A third from the same address is turned away before its body is read...
        third = slow.post("/api/score?game=alices-garden", files={"file": ("a.jpg", _jpeg(), "image/jpeg")})
        assert third.status_code == 503 and third.json()["detail"] == RECEIVING_BUSY
        # ... while another phone uploads and is read as ever.
        other = TestClient(app, base_url=BASE_URL, client=("192.168.1.67", 4000))
        assert _upload(other, _jpeg()).status_code == 200
    finally:
        release.set()
        for sender in senders:
            sender.join(HANG_GUARD_S)
    # The slow ones, once in, are no photo: refused as such, not stuck.
    assert sorted(answers) == [400] * RECEIVING_PER_CLIENT


def _png_header(width: int, height: int, depth: int, colour: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def test_a_photo_is_refused_by_the_bytes_it_would_take_before_any_is_read(
    remote: TestClient, scorer: Scorer
) -> None:
    # 36 megapixels, within the pixel limit, but 16-bit RGBA: 576 MB while decoded.
    deep = _png_header(6000, 6000, depth=16, colour=6)
    for files in [(deep,), (_jpeg(), deep)]:
        response = _upload(remote, *files)
        assert response.status_code == 400 and "576000000 bytes, over the" in response.json()["detail"]
    assert scorer.log == []


def test_a_photo_larger_than_the_reader_needs_is_read_reduced_its_corners_in_the_photos_pixels(
    remote: TestClient, scorer: Scorer, alice_boards: list[ScoredBoard], monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.photo

    monkeypatch.setattr(device.photo, "READ_LONG_SIDE", 32)
    placed = [[12.0, 8.0], [120.0, 10.0], [116.0, 90.0], [8.0, 88.0]]
    response = _upload(remote, _jpeg(128, 96), corners=json.dumps(placed))
    assert response.status_code == 200, response.text
    # Read at a quarter of its size, with the corners placed on it as the player saw it.
    assert scorer.log == [("read", (24, 32, 3))]
    assert scorer.corners == [(np.array(placed) / 4).tolist()]
    # The board's corners come back in the photo's pixels, where the result page draws them.
    read = np.array(alice_boards[0].to_json()["corners_xy"])
    assert np.allclose(response.json()["boards"][0]["corners_xy"], read * 4, atol=0.05)
    result = remote.get(f"/api/result/{response.json()['game_id']}").json()
    assert result["photo"]["size_wh"] == [128, 96]
    # Longer still than the largest Pi camera's frame, a photo is shrunk to it whatever the reduction.
    monkeypatch.setattr(device.photo, "READ_MOST_SIDE", 20)
    scorer.log.clear()
    assert _upload(remote, _jpeg(128, 96)).status_code == 200
    assert scorer.log == [("read", (15, 20, 3))]


def test_more_photos_are_decoded_one_after_another_as_they_are_read(
    remote: TestClient, scorer: Scorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def noted(data: bytes) -> NDArray[np.uint8]:
        image = decode_photo(data)
        scorer.log.append(("decoded", image.shape))
        return image

    monkeypatch.setattr("device.web.score.decode_photo", noted)
    response = _upload(remote, _jpeg(80, 64), _jpeg(96, 72), _jpeg(112, 84))
    assert response.status_code == 200, response.text
    first, second, third = (64, 80, 3), (72, 96, 3), (84, 112, 3)
    assert scorer.log == [
        ("decoded", first),
        ("read", first),
        ("decoded", second),
        ("read", second),
        ("decoded", third),
        ("read", third),
    ]


def test_a_result_saved_only_in_part_leaves_nothing_once_the_app_starts_again(
    tmp_path: Path, scorer: Scorer
) -> None:
    root = tmp_path / RESULTS_DIR
    # What ResultStore.save writes before it renames the folder into place, cut short by a kill.
    half = root / ".7.k2j4x9a1"
    half.mkdir(parents=True)
    (half / "photo.jpg").write_bytes(_jpeg())
    kept = root / "6"
    kept.mkdir()
    (kept / "photo.jpg").write_bytes(_jpeg())
    app = create_app(AppConfig(StateDir(tmp_path), scorer, kiosk_token=KIOSK_TOKEN))
    assert sorted(p.name for p in root.iterdir()) == ["6"]
    with TestClient(app, base_url=BASE_URL, client=REMOTE) as client:
        assert _upload(client, _jpeg()).status_code == 200
    assert not [p for p in root.iterdir() if p.name.startswith(".")]
    assert ResultStore(StateDir(tmp_path)).sweep() == []
