"""A user's tile game taught from photos that do not show every tile face: a face never taught is still a
tile, not an empty cell, because it looks like no empty cell taught."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.enroll import (
    UNLIKE_BARE_TRUST,
    BareLooks,
    EnrolledClassifier,
    Enrolment,
    Example,
    HeadCorrection,
    enrol,
    fit,
    load,
    save,
)
from calibration.profiles import custom_profile
from vision.pipeline import read_photo
from vision.profile import BoardProfile
from vision.read.classify import CellPredictions
from vision.read.describe import DescribedCells
from vision.reader_api import LOW_CONFIDENCE
from vision.readers import Head, reader_for

LABELS = ("empty", "tile")
CELL_PX, SIDE = 48, 6
# Faces by (colour BGR, mark colour): the first two are taught, the third never. A pale yellow tile with a
# ring the card's colour lies nearer the card than the taught faces: taught as these are, it reads empty.
TAUGHT = (((40, 40, 200), (240, 240, 240)), ((60, 170, 60), (20, 20, 20)))
UNTAUGHT = ((150, 220, 230), (200, 215, 225))
Face = tuple[tuple[int, int, int], tuple[int, int, int]]
Layout = list[list[Face | None]]


def _board(faces: Layout, seed: int) -> np.ndarray:
    """A grid of printed cells (a pale card, a thin line round each), some under a tile: its colour and a
    mark (a ring) in another."""
    rng = np.random.default_rng(seed)
    image = np.zeros((SIDE * CELL_PX, SIDE * CELL_PX, 3), np.uint8)
    for r, row in enumerate(faces):
        for c, face in enumerate(row):
            x, y = c * CELL_PX, r * CELL_PX
            cell = image[y : y + CELL_PX, x : x + CELL_PX]
            cell[:] = (200, 215, 225)
            cv2.rectangle(cell, (0, 0), (CELL_PX - 1, CELL_PX - 1), (150, 160, 170), 1)
            if face is not None:
                colour, mark = face
                cv2.rectangle(cell, (4, 4), (CELL_PX - 5, CELL_PX - 5), colour, -1)
                cv2.circle(cell, (CELL_PX // 2, CELL_PX // 2), CELL_PX // 4, mark, 3)
    noise = rng.normal(0, 3, image.shape)
    return np.clip(image * rng.uniform(0.95, 1.05) + noise, 0, 255).astype(np.uint8)


def _layout(seed: int, faces: tuple[Face, ...]) -> Layout:
    rng = np.random.default_rng(seed)
    return [
        [faces[rng.integers(len(faces))] if rng.random() < 0.5 else None for _ in range(SIDE)]
        for _ in range(SIDE)
    ]


def _cells(layout: Layout) -> list[list[str]]:
    return [["empty" if face is None else "tile" for face in row] for row in layout]


def _state(layout: Layout) -> dict[str, Any]:
    return {
        "game": "custom-grid",
        "cells": _cells(layout),
        "setup": {"labels": list(LABELS), "points": {"tile": 1}},
    }


def _profile() -> BoardProfile:
    return custom_profile("mine", SIDE, SIDE, LABELS, {"tile": 1}, cell_mm=20.0, margin_mm=0.0)


def _corners(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    return np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float64)


def _read(
    profile: BoardProfile, enrolment: Enrolment, image: np.ndarray
) -> dict[tuple[int, int], tuple[str, float]]:
    reader = reader_for(profile)
    classifier = EnrolledClassifier(DescribedCells(reader.game), enrolment, reader.heads)
    board = read_photo(image, [profile], {reader.game: classifier}, {}, corners_xy=_corners(image))[0]
    return {(key[1], key[2]): reading["cell"] for key, reading in board.readings.items()}


def test_a_face_never_taught_is_read_as_a_tile_and_flagged() -> None:
    profile = _profile()
    examples = []
    for seed in (1, 2):
        layout = _layout(seed, TAUGHT)
        image = _board(layout, seed)
        examples.append(Example(image, _state(layout), _corners(image)))
    enrolment = enrol(profile, DescribedCells("custom-grid"), None, examples, views=4)
    correction = enrolment.corrections["cell"]
    assert correction.bare is not None and correction.bare.label == 0

    layout = _layout(3, (TAUGHT[0], UNTAUGHT))
    truth = _cells(layout)
    image = _board(layout, 3)
    untaught = [(r, c) for r, row in enumerate(layout) for c, face in enumerate(row) if face == UNTAUGHT]
    assert len(untaught) >= 4
    read = _read(profile, enrolment, image)
    # Without the bare cells' looks, the untaught face is read empty.
    alone = _read(profile, replace(enrolment, corrections={"cell": replace(correction, bare=None)}), image)
    assert sum(alone[cell][0] == "empty" for cell in untaught) >= len(untaught) // 2
    assert all(read[cell][0] == "tile" for cell in untaught)
    # It is a face the player never taught: its cells are flagged for checking.
    assert all(read[cell][1] < LOW_CONFIDENCE for cell in untaught)
    # Empty cells and the taught face read as before.
    assert all(
        read[(r, c)][0] == truth[r][c] for r in range(SIDE) for c in range(SIDE) if (r, c) not in untaught
    )


def _predicted(points: np.ndarray) -> CellPredictions:
    keys = tuple(("grid", 0, i) for i in range(len(points)))
    return CellPredictions(keys, (), {}, points.astype(np.float32))


def test_bare_looks_are_learnt_only_from_two_photos_showing_bare_cells() -> None:
    rng = np.random.default_rng(0)
    points = [rng.normal(0, 1, (20, 5)) + np.eye(5)[i % 2] * 6 for i in range(2)]
    truth = [{key: {"cell": i % 2} for i, key in enumerate(_predicted(p).keys)} for p in points]

    def taught(photos: list[int]) -> Enrolment:
        cells = [_predicted(p) for p in points]
        return fit(
            "custom-grid",
            (Head("cell", LABELS),),
            cells,
            truth,
            "m",
            photos=photos,
            scaled={"cell"},
            bare={"cell": 0},
        )

    assert taught([1, 2]).corrections["cell"].bare is not None
    # Both boards from one photo: nothing tells how far a bare cell of another photo may lie.
    assert taught([1, 1]).corrections["cell"].bare is None


def test_a_cell_read_bare_but_unlike_every_bare_look_is_read_as_its_likeliest_tile() -> None:
    # Every cell leans to empty; the bare looks lie round the origin.
    looks = BareLooks(0, np.array([[0.0, 0.0], [1.0, 0.0]]), 1.0)
    correction = HeadCorrection(np.zeros((2, 3)), np.array([2.0, 0.5, 0.0]), np.zeros(2), np.ones(2), looks)
    p = correction.probabilities(np.zeros((3, 3)), np.array([[0.5, 0.5], [1.9, 0.0], [5.0, 5.0]]))
    assert list(p.argmax(axis=1)) == [0, 0, 1]
    # Moved, it keeps the order of the other labels and is flagged: never surer than this.
    assert p[2, 1] > p[2, 2] > p[2, 0]
    assert p[2].max() <= UNLIKE_BARE_TRUST + (1 - UNLIKE_BARE_TRUST) / 3 + 1e-6 < LOW_CONFIDENCE
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)


def test_bare_looks_round_trip_and_bad_ones_are_refused(tmp_path: Path) -> None:
    looks = BareLooks(0, np.arange(8.0).reshape(2, 4), 3.5)
    correction = HeadCorrection(np.ones((4, 2)), np.zeros(2), np.zeros(4), np.ones(4), looks)
    save(Enrolment("custom-grid", {"cell": correction}, 10, 2, "m"), tmp_path / "e.json")
    kept = load(tmp_path / "e.json").corrections["cell"].bare
    assert kept is not None and kept.label == 0 and kept.reach == 3.5
    np.testing.assert_allclose(kept.looks, looks.looks)
    for bad in ({"label": 2}, {"looks": [[1.0, 2.0]]}, {"reach": -1.0}):
        data = correction.to_json()
        data["bare"] = {**data["bare"], **bad}
        broken = {**Enrolment("custom-grid", {}, 10, 2, "m").to_json(), "heads": {"cell": data}}
        (tmp_path / "b.json").write_text(json.dumps(broken))
        with pytest.raises(ValueError, match=r"heads\.cell\.bare"):
            load(tmp_path / "b.json")
