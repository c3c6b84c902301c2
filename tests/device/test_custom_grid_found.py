"""A player's own grid game, taught from two photos with its corners placed, then found and read in a third
with none: its profile keeps the board's picture, and the picture says where the board is and which way up."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.support import run_cli
from vision.geometry import quad_size

LABELS = ("sun", "rain", "leaf")
FACES = {"sun": ((40, 200, 240), "circle"), "rain": ((200, 120, 40), "cross"), "leaf": ((60, 160, 60), "bar")}
PX_PER_MM = 4
CELL_MM, MARGIN_MM, SIDE = 40, 25, 4
BOARD_PX = (2 * MARGIN_MM + SIDE * CELL_MM) * PX_PER_MM
PHOTO_WH = (1600, 1200)


def _board(cells: list[list[str]]) -> np.ndarray:
    """The board drawn from above: a printed margin (a title, a border, emblems: the same on every copy) and
    the grid's tiles, each label a colour with its own mark."""
    rng = np.random.default_rng(11)  # the printing, the same for every game
    board = np.full((BOARD_PX, BOARD_PX, 3), (70, 110, 150), np.uint8)
    for _ in range(60):
        x, y = (int(v) for v in rng.integers(10, BOARD_PX - 10, 2))
        colour = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.circle(board, (x, y), int(rng.integers(4, 18)), colour, -1)
    cv2.putText(board, "OUR GARDEN", (150, 70), cv2.FONT_HERSHEY_DUPLEX, 2.0, (20, 20, 20), 4)
    cv2.putText(board, "no. 7", (40, BOARD_PX - 30), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (240, 240, 240), 3)
    cv2.rectangle(board, (8, 8), (BOARD_PX - 9, BOARD_PX - 9), (30, 30, 30), 6)
    cell = CELL_MM * PX_PER_MM
    origin = MARGIN_MM * PX_PER_MM
    for r, row in enumerate(cells):
        for c, label in enumerate(row):
            colour, mark = FACES[label]
            x0, y0 = origin + c * cell, origin + r * cell
            cv2.rectangle(board, (x0 + 3, y0 + 3), (x0 + cell - 4, y0 + cell - 4), colour, -1)
            mid = (x0 + cell // 2, y0 + cell // 2)
            if mark == "circle":
                cv2.circle(board, mid, cell // 4, (250, 250, 250), 6)
            elif mark == "cross":
                cv2.line(board, (x0 + 30, y0 + 30), (x0 + cell - 30, y0 + cell - 30), (250, 250, 250), 8)
                cv2.line(board, (x0 + cell - 30, y0 + 30), (x0 + 30, y0 + cell - 30), (250, 250, 250), 8)
            else:
                cv2.rectangle(board, (x0 + 30, mid[1] - 8), (x0 + cell - 30, mid[1] + 8), (250, 250, 250), -1)
    return board


def _photo(board: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The board on a table, seen at a slant and turned (any way round): the photo and its corners (TL, TR,
    BR, BL of the board)."""
    rng = np.random.default_rng(seed)
    w, h = PHOTO_WH
    table = cv2.resize(rng.normal(0, 1, (h // 16, w // 16)), (w, h), interpolation=cv2.INTER_CUBIC)
    photo = np.clip(np.stack([150 + 20 * table, 160 + 20 * table, 170 + 20 * table], -1), 0, 255)
    photo = photo.astype(np.uint8)
    turn = float(rng.uniform(0, 2 * np.pi))
    middle = np.array([w / 2, h / 2]) + rng.uniform(-120, 120, 2)
    half = 330.0
    square = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64) * half
    spun = square @ np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]).T
    # A slant: the far side drawn narrower than the near one.
    squeeze = 1 - 0.18 * (spun[:, 1] + half * 1.5) / (3 * half)
    corners = middle + spun * np.column_stack([squeeze, squeeze * 0.85])
    drawn = np.array([(0, 0), (BOARD_PX, 0), (BOARD_PX, BOARD_PX), (0, BOARD_PX)], np.float32)
    homography = cv2.getPerspectiveTransform(drawn, corners.astype(np.float32))
    warped = cv2.warpPerspective(board, homography, (w, h), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full(board.shape[:2], 255, np.uint8), homography, (w, h)) > 128
    photo[inside] = warped[inside]
    return photo, corners


def _layout(seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [[LABELS[int(rng.integers(len(LABELS)))] for _ in range(SIDE)] for _ in range(SIDE)]


def _state(cells: list[list[str]]) -> dict[str, object]:
    return {"game": "custom-grid", "cells": cells, "setup": {"labels": list(LABELS), "points": {"sun": 1}}}


def test_a_taught_grid_is_found_and_read_with_no_corners_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, _state_dir: Path
) -> None:
    files, corner_args = [], []
    for i in range(2):
        photo, corners = _photo(_board(_layout(i)), seed=i)
        cv2.imwrite(str(tmp_path / f"{i}.jpg"), photo)
        (tmp_path / f"{i}.json").write_text(json.dumps(_state(_layout(i))))
        files += [str(tmp_path / f"{i}.jpg"), str(tmp_path / f"{i}.json")]
        corner_args += ["--corners", ",".join(f"{v:.1f}" for v in corners.ravel())]
    code, _, err = run_cli(
        capsys,
        *("enroll", "--profile", "ours", "--rows", str(SIDE), "--cols", str(SIDE)),
        *("--labels", ",".join(LABELS), "--points", "sun=1", "--cell-mm", str(CELL_MM)),
        *("--margin-mm", str(MARGIN_MM), *files, *corner_args),
    )
    assert code == 0, err
    assert (_state_dir / "profiles" / "ours" / "board.png").is_file()
    cells = _layout(7)
    photo, corners = _photo(_board(cells), seed=7)
    cv2.imwrite(str(tmp_path / "new.jpg"), photo)
    code, out, err = run_cli(
        capsys, "score", str(tmp_path / "new.jpg"), "--game", "custom-grid", "--profile", "ours", "--json"
    )
    assert code == 0, err
    (board,) = json.loads(out)["boards"]
    found = np.array(board["corners_xy"])
    # Top-left first, as the board's own: no layout model knows a player's board, its picture does.
    assert float(np.max(np.linalg.norm(found - corners, axis=1))) < 0.02 * quad_size(corners)
    assert board["state"]["cells"] == cells
    assert board["total"] == sum(row.count("sun") for row in cells)
    # Without its picture nothing says which way up the board lies: the player is asked for its corners.
    (_state_dir / "profiles" / "ours" / "board.png").unlink()
    code, _, err = run_cli(
        capsys, "score", str(tmp_path / "new.jpg"), "--game", "custom-grid", "--profile", "ours", "--json"
    )
    assert code == 2 and "which way up" in err and "give the corners" in err
