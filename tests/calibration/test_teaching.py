"""A profile's teaching photos: kept once each, a photo without its state is none, reports round trip."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import teaching
from calibration.statedir import StateDir
from lab.reliability.metadata import SECRETS, with_personal_metadata

STATE = {"game": "custom-grid", "cells": [["a"]], "setup": {"labels": ["a"], "points": {}}}
QUAD = [[0, 0], [10, 0], [10, 10], [0, 10]]


def test_teaching_photos_are_kept_once_and_in_order(tmp_path: Path) -> None:
    state = StateDir(tmp_path / "state")
    photo = tmp_path / "p.jpg"
    photo.write_bytes(cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    first = teaching.add(state, "t", photo, STATE, None)
    assert teaching.add(state, "t", photo, STATE, None) == first  # the same photo, state and place
    second = teaching.add(state, "t", photo, STATE, QUAD)  # framed elsewhere: another board of it
    kept = teaching.photos(state, "t")
    assert [k.id for k in kept] == [first, second] == ["0001", "0002"]
    assert kept[0].corners_xy is None and kept[1].corners_xy is not None
    assert kept[1].corners_xy.tolist() == QUAD and kept[1].state == STATE
    # A photo whose state was never written (a power cut between the two) is not a teaching photo.
    (teaching.folder(state, "t") / "0003.jpg").write_bytes(b"half")
    assert len(teaching.photos(state, "t")) == 2
    teaching.remove(state, "t", first)
    assert [k.id for k in teaching.photos(state, "t")] == [second]
    assert teaching.add(state, "t", photo, STATE, None) == "0004"


def test_a_teaching_photo_keeps_its_picture_and_not_where_it_was_taken(tmp_path: Path) -> None:
    photo = tmp_path / "phone.jpg"
    photo.write_bytes(
        with_personal_metadata(cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    )
    assert all(secret in photo.read_bytes() for secret in SECRETS)
    ident = teaching.add(StateDir(tmp_path / "state"), "t", photo, STATE, None)
    (kept,) = teaching.photos(StateDir(tmp_path / "state"), "t")
    assert kept.id == ident and not [secret for secret in SECRETS if secret in kept.photo.read_bytes()]


def test_reports_round_trip_and_a_bad_one_names_itself(tmp_path: Path) -> None:
    state = StateDir(tmp_path)
    assert teaching.load_report(state, "t") is None
    report = teaching.TeachingReport(2, (teaching.LeftOut("0001", 25, 1), teaching.LeftOut("0002", 25, 0)))
    teaching.save_report(state, "t", report)
    assert teaching.load_report(state, "t") == report
    (state.profile("t") / teaching.REPORT_FILE).write_text(
        '{"kind": "teaching-report", "version": 1, "photos": 2, "left_out": [{"photo": "1"}]}'
    )
    with pytest.raises(ValueError, match="bad or missing field"):
        teaching.load_report(state, "t")
