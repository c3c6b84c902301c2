from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import calibrate, load, save
from calibration.sheets import write_sheet
from calibration.store import StoreError, read_versioned, sweep_temporaries, write_json_atomic
from device.cli import main
from tests.support import SHARED, charuco_photos
from vision.camera_model import CameraModel

REAL = SHARED / "data" / "opencv-calibration"
real_photos = sorted(REAL.glob("left*.jpg"))


@pytest.mark.skipif(not real_photos, reason="shared/data/opencv-calibration is not here")
def test_real_chessboard_photos_calibrate_like_opencv() -> None:
    cal = calibrate(real_photos, "chessboard", (9, 6), 25.0)
    # OpenCV's own run on these photos: RMS 0.4087 px, fx 536.07, fy 536.02.
    assert cal.rms < 0.5
    assert cal.matrix[0, 0] == pytest.approx(536.07, rel=0.005)
    assert cal.matrix[1, 1] == pytest.approx(536.02, rel=0.005)
    assert len(cal.per_photo) == 13 and not cal.rejected


def test_rendered_charuco_set_recovers_the_focal_length(tmp_path: Path) -> None:
    w, h = 1600, 900
    f = 1000.0
    model = CameraModel(
        np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]]), np.array([-0.12, 0.05, 0, 0, 0.0]), (w, h)
    )
    cal = calibrate(charuco_photos(tmp_path, model, 14), "charuco", (7, 5), 30.0)
    assert len(cal.per_photo) >= 8
    assert cal.matrix[0, 0] == pytest.approx(f, rel=0.01)
    assert cal.matrix[1, 1] == pytest.approx(f, rel=0.01)
    assert cal.rms < 1.0


def test_photos_without_the_pattern_are_named(tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"nope")
    with pytest.raises(ValueError, match=r"found in 0 photo\(s\).*blank.png: no 9x6 chessboard found"):
        calibrate([blank, bad], "chessboard", (9, 6), 25.0)
    with pytest.raises(ValueError, match="unknown pattern"):
        calibrate([blank], "dots", (9, 6), 25.0)


@pytest.mark.skipif(not real_photos, reason="shared/data/opencv-calibration is not here")
def test_calibrate_command_saves_a_file_score_can_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "camera.json"
    code = main(
        [
            "calibrate",
            "camera",
            *map(str, real_photos),
            "--pattern",
            "chessboard",
            "--size",
            "9x6",
            "--square-mm",
            "25",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert "RMS reprojection error 0.40" in capsys.readouterr().out
    cal = load(out)
    assert cal.size_wh == (640, 480)
    assert cal.camera().matrix[0, 0] == pytest.approx(536.07, rel=0.005)


def test_store_is_versioned_and_refuses_strangers(tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    write_json_atomic(path, {"kind": "camera", "version": 1, "x": 1})
    assert read_versioned(path, "camera", (1,))["x"] == 1
    assert not list(tmp_path.glob(".*tmp"))  # no temporary file is left behind
    with pytest.raises(StoreError, match="kind is 'camera', expected 'profile'"):
        read_versioned(path, "profile", (1,))
    write_json_atomic(path, {"kind": "camera", "version": 9})
    with pytest.raises(StoreError, match="version 9 of camera files is not readable"):
        read_versioned(path, "camera", (1,))
    with pytest.raises(StoreError, match="no such file"):
        read_versioned(tmp_path / "missing.json", "camera", (1,))
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(StoreError, match="unreadable"):
        read_versioned(tmp_path / "broken.json", "camera", (1,))


def test_temporaries_left_by_a_killed_writer_are_swept_but_not_a_write_under_way(tmp_path: Path) -> None:
    import os
    import time

    (tmp_path / "profiles" / "p").mkdir(parents=True)
    old = [tmp_path / ".camera.json.k3j_x.tmp", tmp_path / "profiles" / "p" / ".profile.json.a1.tmp"]
    fresh = tmp_path / ".table.json.zz9.tmp"
    kept = [tmp_path / "camera.json", tmp_path / "notes.tmp", fresh]
    for path in [*old, *kept]:
        path.write_text("{")
    an_hour_ago = time.time() - 3600
    for path in [*old, tmp_path / "notes.tmp"]:
        os.utime(path, (an_hour_ago, an_hour_ago))
    assert sorted(sweep_temporaries(tmp_path)) == sorted(old)
    assert all(p.exists() for p in kept) and not any(p.exists() for p in old)
    assert sweep_temporaries(tmp_path / "nowhere") == []


def test_saved_calibration_round_trips_and_bad_fields_are_named(tmp_path: Path) -> None:
    from calibration.camera import Calibration

    cal = Calibration(np.eye(3), np.zeros(5), (640, 480), 0.3, "standard", {"a.jpg": 0.3}, {})
    save(cal, tmp_path / "c.json")
    again = load(tmp_path / "c.json")
    assert again.size_wh == (640, 480) and again.rms == 0.3
    data = json.loads((tmp_path / "c.json").read_text())
    data["matrix"] = [[1, 2], [3, 4]]
    (tmp_path / "c.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="matrix must be 3x3"):
        load(tmp_path / "c.json")


def test_sheets_are_at_exact_scale(tmp_path: Path) -> None:
    png = tmp_path / "charuco.png"
    caption = write_sheet("charuco", "A4", png)
    assert "--square-mm 38" in caption
    data = png.read_bytes()
    assert b"pHYs" in data[:80]
    image = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    assert image is not None and image.shape == (round(210 * 300 / 25.4), round(297 * 300 / 25.4))
    pdf = tmp_path / "stickers.pdf"
    write_sheet("stickers", "A4", pdf)
    text = pdf.read_bytes()
    assert text.startswith(b"%PDF-1.4") and text.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.276 841.890]" in text
    with pytest.raises(ValueError, match=r"\.png or a \.pdf"):
        write_sheet("charuco", "A4", tmp_path / "x.gif")
