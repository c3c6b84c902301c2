"""``garden-scorer-lab bench --photos FOLDER --locate``: boards found with no corners given, against outlines
marked by hand. Here the photos are rendered and their outlines are the renderer's truth; one is marked off by
a tenth of the board, as a careless hand might."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.photo import load_classifier
from lab.bench_locate import (
    Outlined,
    _cells_wrong,
    as_phone_photo,
    corner_error,
    emptied,
    load_outlines,
    run_scores,
)
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from scoring.core import StateError
from tests.support import ROOT, SHARED, run_lab


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    spec = RenderSpec(("alices-garden",), 7, options=PhotoOptions(size_wh=(1600, 900), max_tilt_deg=20))
    # Photos of a standard lens: a phone's, whose slight curvature finding needs no calibration for.
    photos = [p for p in (render_photo(spec, i) for i in range(12)) if p.truth["camera"]["dist"][0] > -0.1]
    for index, photo in enumerate(photos[:3]):
        (folder / f"{index}.jpg").write_bytes(photo.jpeg)
        corners = np.array(photo.truth["boards"][0]["corners_xy"])
        if index == 2:
            corners[0] += 0.1 * (corners[2] - corners[0])
        # Marked round the other way, from another corner: which corner is first is not the finder's business.
        marked = np.roll(corners[::-1], 1, axis=0)
        (folder / f"{index}.json").write_text(json.dumps({"corners_xy": marked.tolist(), "grid": [5, 5]}))
    return folder


def test_boards_are_found_near_their_marked_outlines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    out_json = tmp_path / "locate.json"
    code, out, _ = run_lab(
        capsys,
        "bench",
        "--photos",
        str(folder),
        "--locate",
        "--game",
        "alices-garden",
        "--json",
        str(out_json),
    )
    assert code == 0
    result = json.loads(out_json.read_text())
    assert result["photos"] == 3 and result["proposed"] == 3
    # Two found within 3 %; the outline marked a tenth off is not.
    assert result["found"] == 2
    errors = [row["error"] for row in result["rows"]]
    assert max(errors[:2]) < 0.01 and errors[2] > 0.05
    assert "found (every corner within 3%) in 2 of 3 photos" in out


def test_phone_photos_are_timed_photo_to_score_on_one_core_against_a_drawn_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    cores = os.sched_getaffinity(0)
    out_json = tmp_path / "phone.json"
    code, out, _ = run_lab(
        capsys,
        "bench",
        "--photos",
        str(folder),
        "--locate",
        "--game",
        "alices-garden",
        "--phone",
        "--json",
        str(out_json),
    )
    assert code == 0
    # The bench pins itself to one core and gives the others back.
    assert os.sched_getaffinity(0) == cores
    result = json.loads(out_json.read_text())
    assert [row["photo"] for row in result["rows"]] == ["0", "1", "2"]
    assert result["photo_wh"] == [4032, 3024] and result["drawn"]["game"] == "alices-garden"
    assert result["ratio_to_drawn"] == pytest.approx(result["median_ms"] / result["drawn"]["ms"])
    assert "a 4032 x 3024 phone JPEG, photo -> score on one core" in out


def test_a_phone_photo_is_a_12_megapixel_jpeg() -> None:
    data = as_phone_photo(np.zeros((90, 160, 3), np.uint8))
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    assert data[:2] == b"\xff\xd8" and image.shape == (3024, 4032, 3)


def test_a_corner_error_is_the_farthest_corners_share_of_the_board() -> None:
    truth = np.array([(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)])
    moved = truth.copy()
    moved[2] += (3.0, 4.0)
    assert corner_error(moved, truth) == pytest.approx(0.05)
    # Any first corner, either way round.
    assert corner_error(np.roll(moved[::-1], 2, axis=0), truth) == pytest.approx(0.05)


def test_a_folder_without_outlines_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(StateError, match="no such folder"):
        load_outlines(tmp_path / "missing")
    (tmp_path / "a.jpg").write_bytes(b"")
    with pytest.raises(StateError, match=r"no NAME\.jpg with a NAME\.json"):
        load_outlines(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps({"corners_xy": [[0, 0], [1, 1]]}))
    with pytest.raises(StateError, match="four"):
        load_outlines(tmp_path)
    code, _, err = run_lab(capsys, "bench", "--photos", str(tmp_path), "--locate")
    assert code != 0 and "--game" in err


def _laid_kingdom() -> tuple[np.ndarray, np.ndarray]:
    """5 x 5 squares of 80 pixels, each its own colour, on a plain table; their outline."""
    photo = np.full((600, 600, 3), (30, 60, 90), np.uint8)
    for r in range(5):
        for c in range(5):
            colour = (60 + 7 * r, 120 + 20 * c, 200 - 10 * r)
            cv2.rectangle(photo, (100 + 80 * c, 100 + 80 * r), (179 + 80 * c, 179 + 80 * r), colour, -1)
    return photo, np.array([(100.0, 100.0), (500.0, 100.0), (500.0, 500.0), (100.0, 500.0)])


@pytest.mark.parametrize("seed", range(4))
def test_squares_taken_away_are_the_outer_rings_and_show_the_table(seed: int) -> None:
    photo, corners = _laid_kingdom()
    out = emptied(photo, corners, 5, 7, seed)
    bare = {
        (r, c) for r in range(5) for c in range(5) if (out[140 + 80 * r, 140 + 80 * c] == (30, 60, 90)).all()
    }
    assert len(bare) == 7
    assert all(r in (0, 4) or c in (0, 4) for r, c in bare)
    # Every side keeps a square: the frame stays where the outline marks it.
    for side in (
        {(0, c) for c in range(5)},
        {(4, c) for c in range(5)},
        {(r, 0) for r in range(5)},
        {(r, 4) for r in range(5)},
    ):
        assert side - bare


def test_cells_are_counted_wrong_with_the_kingdom_turned_as_it_reads_best() -> None:
    truth = [["castle", "lake:1"], ["forest:0", "empty"]]
    read = [row[::-1] for row in truth[::-1]]  # the same kingdom, read from the opposite corner
    assert _cells_wrong(read, truth, set()) == 0
    read[0][0] = "mine:2"  # the truth's "empty"
    assert _cells_wrong(read, truth, set()) == 1
    assert _cells_wrong(read, truth, {(1, 1)}) == 0
    assert _cells_wrong([["castle"]], truth, set()) == 4


class _Counting:
    """The shipped Kingdomino model, counting the frames it reads."""

    def __init__(self) -> None:
        self.model = load_classifier("kingdomino")
        self.frames = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def classify(self, cells: Any) -> Any:
        self.frames += 1
        return self.model.classify(cells)


def test_a_folds_model_is_the_one_that_reads_the_photos_it_scores(tmp_path: Path) -> None:
    spec = RenderSpec(("kingdomino",), 7, options=PhotoOptions(size_wh=(1600, 1200), max_tilt_deg=20))
    photo = render_photo(spec, 0)
    path = tmp_path / "kd.jpg"
    path.write_bytes(photo.jpeg)
    board = photo.truth["boards"][0]
    outlined = Outlined("kd", path, np.array(board["corners_xy"]))
    truth = {"kd": {"game": "drawn", "cells": board["state"]["cells"]}}
    model = _Counting()
    result = run_scores("kingdomino", [outlined], truth, lambda line: None, {"kingdomino": model})
    assert model.frames > 0
    assert result["all"]["found"] == 1 and result["by_game"]["drawn"]["photos"] == 1


REAL_TABLES = SHARED / "data" / "kingdomino-table"


@pytest.mark.skipif(not REAL_TABLES.is_dir(), reason="shared/data/kingdomino-table is not here")
def test_real_kingdoms_are_scored_from_the_photo_alone_against_their_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "scores.json"
    truth = ROOT / "lab" / "truth" / "kingdomino-table.json"
    args = ("bench", "--photos", str(REAL_TABLES), "--locate", "--game", "kingdomino")
    code, out, _ = run_lab(capsys, *args, "--truth", str(truth), "--json", str(out_json))
    assert code == 0
    result = json.loads(out_json.read_text())
    assert result["all"]["found"] == 14
    # Every wrong score is flagged; the cells' count is what the table prints, per game and in all.
    assert result["all"]["silent"] == 0
    assert set(result["by_game"]) == {"2020-11-02 evening", "2020-11-23, 13:28", "2020-11-23, 13:44"}
    assert f"| all | 14 | 14 | {result['all']['cells_wrong']} of 350" in out
