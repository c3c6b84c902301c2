"""Photos an older version kept with their GPS position are rewritten without it once, as the app starts."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.statedir import StateDir
from device.privacy import DONE_FILE
from device.web import AppConfig, create_app
from device.web.results import RESULTS_DIR
from lab.pairing import KIOSK_TOKEN
from lab.reliability.metadata import SECRETS, with_personal_metadata
from tests.fakes import FakeScore
from vision.image_io import decode_image, orientation


def test_photos_kept_before_are_rewritten_without_their_metadata_once(tmp_path: Path) -> None:
    picture = cv2.imencode(".jpg", np.random.default_rng(3).integers(0, 256, (40, 60, 3), np.uint8))[1]
    phone = with_personal_metadata(picture.tobytes(), turn=6)
    kept = [
        tmp_path / RESULTS_DIR / "7" / "photo.jpg",
        tmp_path / RESULTS_DIR / "7" / "also-1.jpg",
        tmp_path / "enrolment-inbox" / "20261128T200000Z-game7.jpg",
        tmp_path / "profiles" / "kitchen" / "teaching" / "0001.jpg",
    ]
    for path in kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(phone)
    not_a_photo = tmp_path / RESULTS_DIR / "7" / "photo.png"
    not_a_photo.write_bytes(b"half a file")

    create_app(AppConfig(StateDir(tmp_path), FakeScore(), kiosk_token=KIOSK_TOKEN))
    for path in kept:
        data = path.read_bytes()
        assert not [s for s in SECRETS if s in data], path
        # The same picture, turned as before.
        assert orientation(data) == 6 and np.array_equal(decode_image(data), decode_image(phone))
    assert not_a_photo.read_bytes() == b"half a file"
    assert (tmp_path / DONE_FILE).is_file()
    # Once: a photo written there later by hand is not looked at again.
    kept[0].write_bytes(phone)
    create_app(AppConfig(StateDir(tmp_path), FakeScore(), kiosk_token=KIOSK_TOKEN))
    assert kept[0].read_bytes() == phone
