"""The serve wiring: the demo replay camera through the live scorer, and uploads with a profile."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.statedir import StateDir
from device.camera import ReplayCamera
from device.serve import live_scorer, open_live_camera, upload_scorer
from examples import REPLAY_DIR
from scoring.registry import get_game
from vision.camera_model import CameraModel
from vision.image_io import read_image


def _truth_total(path: Path) -> int:
    """The photo's true score with nothing entered by hand (as the camera alone sees it)."""
    state = json.loads(path.with_suffix(".json").read_text())["boards"][0]["state"]
    state = {**state, "unplaced_bonus_tiles": 0}
    rules = get_game("alices-garden")
    return rules.score(rules.parse(state)).total  # type: ignore[union-attr]


def test_the_demo_table_is_scored_live_as_its_photos_say(tmp_path: Path) -> None:
    scorer = live_scorer(StateDir(tmp_path), "alices-garden", None)
    photos = sorted(REPLAY_DIR.glob("*.jpg"))
    published = []
    with ReplayCamera(REPLAY_DIR, hold=5) as camera:
        for _ in range(5 * len(photos)):
            published += [e for e in scorer.feed(camera.read()) if e.kind == "score"]
    totals = [e.payload["boards"][0]["total"] for e in published]
    assert totals == [_truth_total(p) for p in photos]


def test_the_demo_camera_loops_and_holds_each_photo() -> None:
    camera = open_live_camera(f"replay:{REPLAY_DIR}")
    assert isinstance(camera, ReplayCamera) and camera.loop and camera.hold > 1
    camera.close()


def test_uploads_are_scored_with_a_stored_profile_or_refused_clearly(tmp_path: Path) -> None:
    from calibration.store import StoreError

    score = upload_scorer(StateDir(tmp_path))
    photo = sorted(REPLAY_DIR.glob("*.jpg"))[0]
    boards = score(read_image(str(photo)), "alices-garden", {}, None)
    assert boards[0].to_json()["total"] == _truth_total(photo)
    with pytest.raises(StoreError, match="no profile named 'kitchen'"):
        score(np.zeros((10, 10, 3), np.uint8), "alices-garden", {}, "kitchen")


def test_uploads_use_the_table_cameras_calibration_only_for_its_own_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.serve as serve_module

    matrix = np.array([[1000.0, 0.0, 320.0], [0.0, 1000.0, 240.0], [0.0, 0.0, 1.0]])
    table = CameraModel(matrix, np.zeros(5), (640, 480))
    monkeypatch.setattr(serve_module, "state_camera", lambda _state: table)
    seen: list[CameraModel | None] = []

    def read(image: object, game: str, hand: object, camera: CameraModel | None, **_: object) -> list[object]:
        seen.append(camera)
        return []

    monkeypatch.setattr(serve_module, "score_image", read)
    score = upload_scorer(StateDir(tmp_path))
    score(np.zeros((480, 640, 3), np.uint8), "alices-garden", {}, None)
    # A phone's photo is of another size: the table camera's lens is not its lens.
    score(np.zeros((3024, 4032, 3), np.uint8), "alices-garden", {}, None)
    assert seen == [table, None]
