"""The fuzzer's fast subset (the full 10,000 cases run in ``garden-scorer-lab bench --reliability``), and the
loader bugs it found, each pinned by the input that broke it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from calibration import camera, enroll, seats
from calibration.statedir import StateDir
from calibration.store import StoreError
from device.history import History, HistoryError
from device.statefile import load_state_json
from device.web import AppConfig, create_app
from lab.reliability.fuzz import CLEAR, CRASH, FAILURES, OK, TARGETS, crafted_png, fuzz
from scoring.core import StateError
from scoring.fields import as_float
from tests.conftest import BASE_URL, LOCAL
from vision.image_io import ImageError, decode_image

FAST_CASES = 400
SEED = 20261122


def test_a_fast_subset_finds_no_crash_hang_or_invalid_result(tmp_path: Path) -> None:
    report = fuzz(FAST_CASES, SEED, workdir=tmp_path)
    assert report.failed == 0, [
        f"{f.target} #{f.index} {f.outcome}: {f.error} <- {f.description}" for f in report.failures
    ]
    for target in TARGETS:
        counts = report.counts[target]
        assert not set(counts) & set(FAILURES)
        # Both kinds of answer, or the target's cases would prove nothing (all refused, or all ignored).
        assert counts.get(OK, 0) > 0 and counts.get(CLEAR, 0) > 0, (target, counts)
    assert sum(sum(c.values()) for c in report.counts.values()) == FAST_CASES


def test_cases_are_reproducible_from_seed_and_index(tmp_path: Path) -> None:
    first = fuzz(20, 7, targets=("image", "state"), workdir=tmp_path / "a")
    again = fuzz(20, 7, targets=("image", "state"), workdir=tmp_path / "b")
    assert first.counts == again.counts


def test_a_decompression_bomb_is_refused_from_its_header() -> None:
    bomb = crafted_png(8200, 8200, depth=1)  # 67 megapixels in a few kilobytes
    assert len(bomb) < 20_000
    with pytest.raises(ImageError, match="pixel limit"):
        decode_image(bomb)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _stored(kind: str, **fields: Any) -> str:
    return json.dumps({"kind": kind, "version": 1, **fields})


CAMERA: dict[str, Any] = {
    "matrix": [[800, 0, 320], [0, 800, 240], [0, 0, 1]],
    "dist": [0, 0, 0, 0, 0],
    "rms": 0.3,
}


@pytest.mark.parametrize(
    ("name", "text", "load", "error"),
    [
        ("deep nesting", "[" * 100_000 + "]" * 100_000, camera.load, StoreError),
        ("5000 digits", '{"kind": "camera", "version": ' + "9" * 5000 + "}", camera.load, StoreError),
        ("infinite size", _stored("camera", **CAMERA, size_wh=[640, -1e999]), camera.load, ValueError),
        (
            "NaN matrix",
            _stored("camera", **{**CAMERA, "matrix": [[float("nan")] * 3] * 3}, size_wh=[1, 1]),
            camera.load,
            ValueError,
        ),
        (
            "per_photo a list",
            _stored("camera", **CAMERA, size_wh=[640, 480], per_photo=[1, 2]),
            camera.load,
            ValueError,
        ),
        (
            "zero focal length",
            _stored("camera", **{**CAMERA, "matrix": [[0, 0, 1], [0, 0, 1], [0, 0, 1]]}, size_wh=[9, 9]),
            camera.load,
            ValueError,
        ),
        (
            "bias of another size",
            _stored(
                "enrolment", game="g", cells=1, photos=1, heads={"t": {"weights": [[1, 2]], "bias": [1]}}
            ),
            enroll.load,
            ValueError,
        ),
        (
            "infinite count",
            _stored("enrolment", game="g", cells=1e999, photos=1, heads={}),
            enroll.load,
            ValueError,
        ),
        (
            "negative count",
            _stored("enrolment", game="g", cells=-4, photos=1, heads={}),
            enroll.load,
            ValueError,
        ),
        (
            "huge coordinate",
            _stored("table", game="g", seats=[{"name": "a", "polygon": [[10**400, 0]] * 3}]),
            seats.load,
            StoreError,
        ),
    ],
)
def test_damaged_files_raise_the_loaders_own_errors(
    tmp_path: Path, name: str, text: str, load: Callable[[Path], Any], error: type[Exception]
) -> None:
    path = _write(tmp_path / "file.json", text)
    with pytest.raises(error) as raised:
        load(path)
    assert str(path) in str(raised.value)


def test_huge_numbers_and_deep_nesting_in_state_files_are_state_errors(tmp_path: Path) -> None:
    with pytest.raises(StateError, match="unreadable JSON"):
        load_state_json(_write(tmp_path / "a.json", '{"game": ' + "9" * 5000 + "}"))
    with pytest.raises(StateError, match="nested too deeply"):
        load_state_json(_write(tmp_path / "b.json", "[" * 5000 + "]" * 5000))
    with pytest.raises(StateError, match="size_mm: a number of 401 digits is too large"):
        as_float(10**400, "size_mm")


def test_a_history_row_damaged_inside_is_reported_as_damage(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with History.open(path) as history:
        history.record("alices-garden", [{"total": 1}], "cli")
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE boards SET data = '{\"total\": '")
    with History.open(path) as history, pytest.raises(HistoryError, match="board 0 of game 1 is not"):
        history.list()
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DROP TABLE boards")
    with pytest.raises(HistoryError, match=r"damaged \(table\(s\) boards missing\)"):
        History.open(path)


def test_hand_fields_json_cannot_escape_as_a_server_error(tmp_path: Path) -> None:
    def score(*_: Any, **__: Any) -> list[Any]:
        return []

    app = create_app(AppConfig(StateDir(tmp_path), score))
    with TestClient(app, base_url=BASE_URL, client=LOCAL) as client:
        for hand in ('{"a": ' + "9" * 5000 + "}", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"):
            response = client.post(
                "/api/score?game=alices-garden",
                files={"file": ("a.png", crafted_png(4, 4))},
                data={"hand": hand},
            )
            assert response.status_code == 400 and response.json()["detail"].startswith("hand:")


def test_outcomes_are_named_as_the_module_doc_says() -> None:
    assert (OK, CLEAR, CRASH) == ("ok", "clear error", "crash")
