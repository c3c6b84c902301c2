"""The calibration page's API through TestClient: camera, board profile, enrolment from the inbox, seats, with
the real library code behind each (what the matching commands run)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from numpy.typing import NDArray

from calibration.camera import load
from calibration.enroll import Enrolment, unchanged_note
from calibration.profiles import load_bundle
from calibration.seats import assign
from calibration.seats import load as load_seats
from calibration.statedir import StateDir
from device.history import History
from device.inbox import INBOX_DIR, Inbox
from device.photo import ScoredBoard
from device.web import AppConfig, create_app
from device.web.calibrate import SMALL_OUTLINE
from lab.pairing import KIOSK_TOKEN, pair
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from tests.conftest import BASE_URL, LOCAL
from tests.support import ALICE_PHOTO, ALICE_TRUTH, charuco_photos
from vision.camera_model import CameraModel
from vision.geometry import quad_size
from vision.profile import default_profile as load_default

GAME = "alices-garden"


def _not_scoring(
    image: NDArray[np.uint8],
    game: str,
    hand: Mapping[str, Any],
    profile: str | None,
    also: object = (),
    /,
    *,
    corners: object = None,
) -> list[ScoredBoard]:
    raise AssertionError("the calibration pages never score")


@contextmanager
def _paired_client(state: StateDir) -> Iterator[TestClient]:
    """A client of a new app over ``state``, paired as the owner's phone."""
    app = create_app(AppConfig(state, _not_scoring, kiosk_token=KIOSK_TOKEN))
    with TestClient(app, base_url=BASE_URL, client=LOCAL) as client:
        pair(client, TestClient(app, base_url=BASE_URL, client=LOCAL))
        yield client


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return create_app(AppConfig(StateDir(tmp_path), _not_scoring, kiosk_token=KIOSK_TOKEN))


def _png(image: NDArray[np.uint8]) -> bytes:
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


BLANK = _png(np.full((540, 960, 3), 200, np.uint8))


def _camera_form(paths: list[Path], size: str = "7x5") -> dict[str, Any]:
    return {
        "files": [("photos", (p.name, p.read_bytes(), "image/jpeg")) for p in paths],
        "data": {"pattern": "charuco", "size": size, "square_mm": "30"},
    }


def test_camera_calibration_from_photos_of_a_charuco_board(
    local: TestClient, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    w, h, f = 960, 540, 600.0
    model = CameraModel(
        np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]]), np.array([-0.12, 0.05, 0, 0, 0.0]), (w, h)
    )
    photos = charuco_photos(tmp_path_factory.mktemp("charuco"), model, 6)
    form = _camera_form(photos)
    form["files"].append(("photos", ("../blank.png", BLANK, "image/png")))
    response = local.post("/api/calibrate/camera", **form)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["rms"] < 1.0 and result["size_wh"] == [w, h]
    assert result["fx"] == pytest.approx(f, rel=0.03) and result["fy"] == pytest.approx(f, rel=0.03)
    assert set(result["per_photo"]) == {f"{i + 1:02d}-{p.name}" for i, p in enumerate(photos)}
    assert result["rejected"] == {"07-blank.png": "no 7x5 charuco found"}
    saved = load(StateDir(tmp_path).camera)
    assert saved.rms == pytest.approx(result["rms"]) and saved.size_wh == (w, h)
    assert local.get("/api/calibrate").json()["camera"]["fx"] == pytest.approx(result["fx"])
    assert not list((tmp_path / "calibrate-uploads").iterdir())  # the photos went with their folder

    too_few = local.post("/api/calibrate/camera", **_camera_form(photos[:4]))
    assert too_few.status_code == 400 and "5 to 30 photos" in too_few.text
    bad_size = local.post("/api/calibrate/camera", **_camera_form(photos[:5], size="7by5"))
    assert bad_size.status_code == 400 and "COLSxROWS" in bad_size.text
    blank = [("photos", (f"b{i}.png", BLANK, "image/png")) for i in range(5)]
    unusable = local.post("/api/calibrate/camera", files=blank, data=form["data"])
    assert unusable.status_code == 422 and "found in 0 photo(s)" in unusable.text


def _closest_rotation(found: NDArray[np.float64], truth: NDArray[np.float64]) -> float:
    """The largest corner distance, in the corners' order that fits best."""
    return min(float(np.linalg.norm(np.roll(found, k, 0) - truth, axis=1).max()) for k in range(4))


def test_a_board_profile_from_a_located_photo(local: TestClient, tmp_path: Path) -> None:
    with ALICE_PHOTO.open("rb") as photo:
        located = local.post(
            "/api/calibrate/profile/locate",
            files={"file": ("board.jpg", photo, "image/jpeg")},
            data={"game": GAME, "name": "kitchen", "setup": '{"chess_columns": [1, 6]}'},
        )
    assert located.status_code == 200, located.text
    found = located.json()
    truth = np.array(ALICE_TRUTH["corners_xy"])
    board_size = float(np.linalg.norm(truth - np.roll(truth, 1, 0), axis=1).mean())
    assert _closest_rotation(np.array(found["corners_xy"]), truth) < 0.02 * board_size
    assert found["size_wh"] == [1600, 900] and found["message"] is None
    preview = local.get(found["picture"])
    assert preview.status_code == 200 and preview.headers["content-type"] == "image/jpeg"

    request = {
        "token": found["token"],
        "game": GAME,
        "name": "kitchen",
        "setup": {"chess_columns": [1, 6]},
        "corners_xy": found["corners_xy"],
    }
    # Found from any corner: saved as found only where its first corner is the top left, else the page
    # asks which way up (the owner's tap is the turn).
    outline = np.array(found["corners_xy"], np.float64)
    turn = 1 + int(
        np.argmin([np.linalg.norm(np.roll(outline, -k, 0) - truth, axis=1).max() for k in range(4)])
    )
    if turn != 1:
        asked = local.post("/api/calibrate/profile", json=request)
        assert asked.status_code == 422 and f"upright with corner {turn}" in asked.json()["detail"]
    request["turn"] = turn
    made = local.post("/api/calibrate/profile", json=request)
    assert made.status_code == 200, made.text
    assert made.json()["colour_bgr"] is not None
    folder = tmp_path / "profiles" / "kitchen"
    assert {p.name for p in folder.iterdir()} == {"profile.json", "colour.json", "board.png"}
    assert load_bundle(StateDir(tmp_path), "kitchen").profile.setup["chess_columns"] == [1, 6]
    picture = local.get(made.json()["picture"])
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    listed = local.get("/api/profiles").json()
    assert listed == [
        {
            "name": "kitchen",
            "game": GAME,
            "colour": True,
            "enrolled_cells": None,
            "picture": made.json()["picture"],
            "teaching_photos": 0,
            "left_out": [],
            "reteaching": False,
        }
    ]
    again = local.post("/api/calibrate/profile", json=request)
    assert again.status_code == 409 and "replace" in again.text
    gone = local.post("/api/calibrate/profile", json={**request, "replace": True})
    assert gone.status_code == 404  # the photo was used up


def test_a_board_not_found_is_placed_by_hand(local: TestClient) -> None:
    located = local.post(
        "/api/calibrate/profile/locate",
        files={"file": ("blank.png", BLANK, "image/png")},
        data={"game": GAME},
    )
    assert located.status_code == 200, located.text
    assert located.json()["corners_xy"] is None and "no board found" in located.json()["message"]
    inside_out = [[0, 0], [959, 0], [0, 539], [959, 539]]
    bad = local.post(
        "/api/calibrate/profile",
        json={"token": located.json()["token"], "game": GAME, "corners_xy": inside_out},
    )
    assert bad.status_code == 422


def test_a_board_found_very_small_in_the_set_up_photo_is_said_to_check(local: TestClient) -> None:
    # An independent try's handles all sat on one chess square, under "Found the board". The example board
    # (a fifth of its photo) shrunk to a third of its width on the same table: 2 % of the photo.
    image = cv2.imread(str(ALICE_PHOTO))
    assert image is not None
    h, w = image.shape[:2]
    table = np.empty_like(image)
    table[:] = np.median(image[:, : w // 10].reshape(-1, 3), axis=0)
    small = cv2.resize(image, (w // 3, h // 3), interpolation=cv2.INTER_AREA)
    table[h // 2 : h // 2 + h // 3, w // 2 : w // 2 + w // 3] = small
    ok, jpeg = cv2.imencode(".jpg", table)
    assert ok
    answers = [
        local.post(
            "/api/calibrate/profile/locate",
            files={"file": ("board.jpg", data, "image/jpeg")},
            data={"game": GAME},
        ).json()
        for data in (ALICE_PHOTO.read_bytes(), jpeg.tobytes())
    ]
    assert answers[0]["corners_xy"] is not None and not answers[0]["flags"]
    assert answers[1]["corners_xy"] is not None
    assert answers[1]["flags"] == [SMALL_OUTLINE]


def test_a_set_up_photo_of_two_boards_is_placed_from_the_largest(local: TestClient) -> None:
    # An independent try: a set-up photo with a card taken for a second board answered "2 boards found ...
    # (or give its corners)" with no handles to give them by.
    spec = RenderSpec((GAME,), 0, boards=2, options=PhotoOptions(size_wh=(1280, 720), max_tilt_deg=20))
    photo = render_photo(spec, 0)
    located = local.post(
        "/api/calibrate/profile/locate",
        files={"file": ("two.jpg", photo.jpeg, "image/jpeg")},
        data={"game": GAME},
    )
    assert located.status_code == 200, located.text
    answer = located.json()
    assert answer["corners_xy"] is not None and answer["flags"][0].startswith("2 boards found")
    truths = [np.array(b["corners_xy"], np.float64) for b in photo.truth["boards"]]
    largest = max(truths, key=quad_size)
    assert np.linalg.norm(np.mean(answer["corners_xy"], axis=0) - largest.mean(axis=0)) < 5


def _inbox_pair(state: StateDir) -> str:
    """The example photo corrected to its truth with consent, as the result page leaves it in the inbox."""
    history = History.open(state.history)
    try:
        board = {"game": GAME, "corners_xy": ALICE_TRUTH["corners_xy"], "state": ALICE_TRUTH["state"]}
        game_id = history.record(GAME, [board], "corrected")
        record = history.get(game_id)
        Inbox(state).save(
            ALICE_PHOTO, record.played_at, game_id, [{**ALICE_TRUTH["state"], "game": GAME}], None
        )
    finally:
        history.close()
    return f"game{game_id}-board1"


def test_enrolment_from_the_inbox(tmp_path: Path) -> None:
    state = StateDir(tmp_path)
    suffix = _inbox_pair(state)
    with _paired_client(state) as local:
        inbox = local.get("/api/calibrate/inbox").json()["items"]
        assert [(i["game"], i["board"], i["id"].endswith(suffix)) for i in inbox] == [(GAME, 1, True)]
        request = {"profile": "table1", "game": GAME, "items": [inbox[0]["id"]]}
        enrolled = local.post("/api/calibrate/enrol", json=request)
        assert enrolled.status_code == 200, enrolled.text
        assert enrolled.json()["cells"] == 48 and enrolled.json()["photos"] == 1
        assert enrolled.json()["unchanged"] is None
        assert (tmp_path / "profiles" / "table1" / "enrolment.json").is_file()
        assert local.get("/api/calibrate/inbox").json()["items"] == []
        # The profile keeps its own copy: the inbox keeps nothing of it.
        assert [p.name for p in (tmp_path / INBOX_DIR).iterdir()] == []
        again = local.post("/api/calibrate/enrol", json=request)
        assert again.status_code == 404 and "enrolled already" in again.text


def test_enrolment_names_the_heads_it_left_to_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.web.calibrate as calibrate_web

    left = Enrolment(GAME, {}, 96, 2, "m", ("facing", "icon-moon"))
    monkeypatch.setattr(calibrate_web, "teach_profile", lambda *args: (left, None))
    state = StateDir(tmp_path)
    item = _inbox_pair(state)
    with _paired_client(state) as local:
        (listed,) = local.get("/api/calibrate/inbox").json()["items"]
        assert listed["id"].endswith(item)
        enrolled = local.post(
            "/api/calibrate/enrol", json={"profile": "t", "game": GAME, "items": [listed["id"]]}
        )
    assert enrolled.status_code == 200, enrolled.text
    assert enrolled.json()["unchanged"] == unchanged_note(left)
    assert unchanged_note(left).startswith("facing, icon-moon: corrected from some of the photos")


def test_seats_from_a_photo_of_the_table(local: TestClient, tmp_path: Path) -> None:
    from lab.synth.camera import PhotoOptions
    from lab.synth.render import RenderSpec, render_photo

    spec = RenderSpec((GAME,), 3, boards=2, options=PhotoOptions(max_tilt_deg=10))
    photo = render_photo(spec, 2)  # two whole boards side by side
    made = local.post(
        "/api/calibrate/seats",
        files={"file": ("table.png", _png(photo.decode()), "image/png")},
        data={"game": GAME, "players": ["Ann", "Bob"]},
    )
    assert made.status_code == 200, made.text
    result = made.json()
    assert [(s["name"], s["player"]) for s in result["seats"]] == [("seat 1", "Ann"), ("seat 2", "Bob")]
    assert len(result["boards"]) == 2 and result["size_wh"] == photo.truth["size_wh"]
    setup = load_seats(StateDir(tmp_path).table)
    truth = [np.array(b["corners_xy"]) for b in photo.truth["boards"]]
    assert sorted(m.seat or "" for m in assign(setup, truth, tuple(photo.truth["size_wh"]))) == [
        "seat 1",
        "seat 2",
    ]
    assert local.get("/api/calibrate").json()["seats"]["seats"][0]["player"] == "Ann"
    assert local.get(result["picture"]).status_code == 200
    one_name = local.post(
        "/api/calibrate/seats",
        files={"file": ("table.png", _png(photo.decode()), "image/png")},
        data={"game": GAME, "names": ["window"]},
    )
    assert one_name.status_code == 422 and "one per board" in one_name.text


@pytest.mark.parametrize(
    "path",
    [
        "/api/calibrate/camera",
        "/api/calibrate/profile/locate",
        "/api/calibrate/profile",
        "/api/calibrate/enrol",
        "/api/calibrate/seats",
    ],
)
def test_every_change_needs_a_paired_device(remote: TestClient, path: str) -> None:
    refused = remote.post(path)
    assert refused.status_code == 403 and "pair this phone" in refused.json()["detail"]
    # A device login that is not one of the paired devices' is no login.
    assert remote.post(path, headers={"Authorization": "Bearer made-up"}).status_code == 403


def test_names_and_tokens_cannot_leave_the_state_folder(local: TestClient) -> None:
    photo = {"file": ("blank.png", BLANK, "image/png")}
    assert (
        local.post(
            "/api/calibrate/profile/locate", files=photo, data={"game": GAME, "name": "../x"}
        ).status_code
        == 400
    )
    token = local.post("/api/calibrate/profile/locate", files=photo, data={"game": GAME}).json()["token"]
    corners = [[100, 100], [800, 100], [800, 500], [100, 500]]
    made = {"token": token, "game": GAME, "corners_xy": corners}
    assert local.post("/api/calibrate/profile", json={**made, "name": "../x"}).status_code == 400
    assert local.post("/api/calibrate/profile", json={**made, "token": "../../etc"}).status_code == 422
    assert local.get("/api/calibrate/uploads/..%2F..%2Fetc%2Fpasswd.jpg").status_code in (404, 422)
    assert local.get("/api/calibrate/uploads/0123.jpg").status_code == 422
    assert local.get("/api/profiles/..%2Fx/board.png").status_code == 404
    assert local.get("/api/profiles/X/board.png").status_code == 400
    enrol = {"profile": "p", "game": GAME, "items": ["../../etc/passwd"]}
    assert local.post("/api/calibrate/enrol", json=enrol).status_code == 422
    enrol = {"profile": "../x", "game": GAME, "items": ["20260101T000000Z-game1-board1"]}
    assert local.post("/api/calibrate/enrol", json=enrol).status_code == 400


def test_the_page_and_its_api_docs(local: TestClient) -> None:
    page = local.get("/calibrate")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["content-security-policy"]
    assert "/static/calibrate.js" in page.text and local.get("/static/calibrate.js").status_code == 200
    assert "http://" not in page.text and "https://" not in page.text
    for other in ("/", "/history", "/setup", "/result/1"):
        assert 'href="/calibrate"' in local.get(other).text
    paths = local.get("/openapi.json").json()["paths"]
    assert "multipart/form-data" in paths["/api/calibrate/camera"]["post"]["requestBody"]["content"]
    assert {"/api/calibrate/profile", "/api/calibrate/enrol", "/api/calibrate/inbox"} <= set(paths)
    status = local.get("/api/calibrate").json()
    assert status["camera"] is None and status["seats"] is None and status["max_upload_bytes"] > 0


def test_a_boards_size_and_its_grid_placed_on_the_photo_make_the_profiles_geometry(
    local: TestClient, tmp_path: Path
) -> None:
    corners = np.array(ALICE_TRUTH["corners_xy"])
    # The grid's outer corners where they lie in the photo: Alice's Garden's 8 x 6 cells of 25 mm, 25 mm in.
    to_photo = cv2.getPerspectiveTransform(
        np.array([(0, 0), (250, 0), (250, 250), (0, 250)], np.float32), corners.astype(np.float32)
    )
    grid_mm = np.array([[(25, 25), (225, 25), (225, 175), (25, 175)]], np.float32)
    grid_xy = cv2.perspectiveTransform(grid_mm, to_photo).reshape(4, 2).tolist()
    for size, scale in (([250, 250], 1.0), ([500, 500], 2.0)):
        request = {
            "token": _kept_photo(local),
            "game": GAME,
            "name": "measured",
            "corners_xy": corners.tolist(),
            "size_mm": size,
            "grid_xy": grid_xy,
            "replace": True,
        }
        made = local.post("/api/calibrate/profile", json=request)
        assert made.status_code == 200, made.text
        profile = load_bundle(StateDir(tmp_path), "measured").profile
        grid = profile.region("grid")
        assert profile.size_mm == (size[0], size[1])
        # A board twice the size with its grid in the same place in the photo: everything twice as large.
        assert grid.origin_mm == pytest.approx((25 * scale, 25 * scale), abs=0.2 * scale)
        assert grid.cell_mm == pytest.approx((25 * scale, 25 * scale), abs=0.1 * scale)
    # A grid placed partly off the board is refused, and says why.
    off = cv2.perspectiveTransform(grid_mm + 100, to_photo).reshape(4, 2).tolist()
    bad = {
        "token": _kept_photo(local),
        "game": GAME,
        "name": "m2",
        "corners_xy": corners.tolist(),
        "grid_xy": off,
    }
    response = local.post("/api/calibrate/profile", json=bad)
    assert response.status_code == 400 and "does not fit on the board" in response.json()["detail"]
    # Dragged, it may be the board's handle 1 that is off its top-left corner: the answer says so.
    assert "handle 1" in response.json()["detail"]


def _kept_photo(local: TestClient) -> str:
    """The example photo sent to the profile step's locate: its token."""
    with ALICE_PHOTO.open("rb") as photo:
        token: str = local.post(
            "/api/calibrate/profile/locate",
            files={"file": ("board.jpg", photo, "image/jpeg")},
            data={"game": GAME, "name": "measured"},
        ).json()["token"]
    return token


def test_the_printable_sheets_download_from_the_page(local: TestClient) -> None:
    response = local.get("/api/calibrate/sheet/charuco.pdf?paper=letter")
    assert response.status_code == 200 and response.content.startswith(b"%PDF-1.4")
    assert response.headers["content-type"] == "application/pdf"
    assert 'filename="garden-scorer-charuco-letter.pdf"' in response.headers["content-disposition"]
    # The caption says what to type on the page: the pattern's size and its square's side.
    caption = response.headers["x-sheet-caption"]
    assert "--size 7x5" in caption and "--square-mm" in caption
    assert local.get("/api/calibrate/sheet/stickers.pdf").status_code == 200
    assert local.get("/api/calibrate/sheet/poster.pdf").status_code == 400
    response = local.get("/api/calibrate/sheet/charuco.pdf?paper=B5")
    assert response.status_code == 400 and "unknown paper" in response.json()["detail"]
    # The page links them.
    page = local.get("/calibrate").text
    assert "/api/calibrate/sheet/charuco.pdf?paper=A4" in page and "/api/calibrate/sheet/stickers.pdf" in page


def _turned_by(picture: NDArray[np.uint8], upright: NDArray[np.uint8]) -> int:
    """How many quarter turns of the upright board the (square) picture is."""
    grey = [cv2.cvtColor(p, cv2.COLOR_BGR2GRAY).astype(np.float64) for p in (picture, upright)]
    small = [cv2.resize(g, (64, 64), interpolation=cv2.INTER_AREA) for g in grey]
    return int(
        np.argmax([np.corrcoef(small[0].ravel(), np.rot90(small[1], k).ravel())[0, 1] for k in range(4)])
    )


def test_no_turn_is_taken_on_corners_that_outline_another_shape_than_the_size_typed(
    local: TestClient,
) -> None:
    # An independent try's handles sat on part of its board and the table beside it, and the turn weighed
    # there was taken upside down as sure: corners of another shape than the board typed take none.
    board = {
        "token": _kept_photo(local),
        "game": GAME,
        "name": "odd",
        "corners_xy": ALICE_TRUTH["corners_xy"],
    }
    square = local.post("/api/calibrate/profile/turns", json={**board, "size_mm": [250, 250]}).json()
    assert square["sure"] and square["outline_off"] is None
    board["token"] = _kept_photo(local)
    oblong = local.post("/api/calibrate/profile/turns", json={**board, "size_mm": [250, 200]})
    assert oblong.status_code == 200, oblong.text
    asked = oblong.json()
    assert not asked["sure"] and asked["corners_xy"] is None
    assert asked["outline_off"].startswith("the handles do not outline a board of 250 x 200 mm")


def test_which_way_up_is_weighed_and_the_owners_choice_kept(
    local: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from device.web import calibrate
    from vision.read.rectify import board_homography, rectify
    from vision.read.upright import Turns

    truth = np.array(ALICE_TRUTH["corners_xy"], np.float64)
    image = cv2.imread(str(ALICE_PHOTO))
    assert image is not None
    profile = load_default(GAME)
    upright = rectify(image, profile, board_homography(profile, truth), None).image_bgr
    found = np.array(
        local.post(  # found from any corner: which way up is the next step
            "/api/calibrate/profile/locate",
            files={"file": ("board.jpg", ALICE_PHOTO.read_bytes(), "image/jpeg")},
            data={"game": GAME, "name": "upright"},
        ).json()["corners_xy"]
    )
    board = {"token": _kept_photo(local), "game": GAME, "name": "upright", "corners_xy": found.tolist()}
    weighed = local.post("/api/calibrate/profile/turns", json=board)
    assert weighed.status_code == 200, weighed.text
    turns = weighed.json()
    assert turns["sure"] and len(turns["turns"]) == 4
    assert turns["corners_xy"] is None  # the outline fits the board's size: read where it was placed
    assert sum(t["chance"] for t in turns["turns"]) == pytest.approx(1.0, abs=1e-3)
    for turn in turns["turns"]:
        shown = local.get(turn["picture"])
        assert shown.status_code == 200 and shown.headers["content-type"] == "image/jpeg"
    best = np.roll(found, -(turns["best"] - 1), 0)
    assert float(np.linalg.norm(best - truth, axis=1).max()) < 0.02 * 1000
    made = local.post("/api/calibrate/profile", json={**board, "turn": turns["best"]})
    assert made.status_code == 200, made.text
    kept = cv2.imread(str(tmp_path / "profiles" / "upright" / "board.png"))
    assert kept is not None and _turned_by(kept, upright) == 0

    # Where no cue is sure, the page asks, and the turn the owner taps is the one kept.
    def unsure(image: object, profile: object, outline: NDArray[np.float64], camera: object) -> Turns:
        a, b, c, d = (np.roll(np.asarray(outline, np.float64), -k, 0) for k in range(4))
        return Turns((a, b, c, d), (0.3, 0.3, 0.2, 0.2))

    monkeypatch.setattr(calibrate, "board_turns", unsure)
    board["token"] = _kept_photo(local)
    asked = local.post("/api/calibrate/profile/turns", json=board).json()
    assert not asked["sure"] and asked["best"] == 1
    other = turns["best"] % 4 + 1
    made = local.post("/api/calibrate/profile", json={**board, "turn": other, "replace": True})
    assert made.status_code == 200, made.text
    kept = cv2.imread(str(tmp_path / "profiles" / "upright" / "board.png"))
    assert kept is not None and _turned_by(kept, upright) != 0
    bad = local.post("/api/calibrate/profile", json={**board, "turn": 5, "replace": True})
    assert bad.status_code == 422
