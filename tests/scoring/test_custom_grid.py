"""A user-defined grid game: its rules by hand, then enrolled from photos and scored from a new one."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profiles import ENROLMENT_FILE
from calibration.statedir import StateDir
from device.cli import main
from device.learn import outdated
from device.web.reteach import Reteacher
from scoring import custom_grid
from scoring.core import InvalidState, StateError
from scoring.registry import read_state

LABELS = ["empty", "flower", "pond"]
SETUP = {"labels": LABELS, "points": {"flower": 2, "pond": -1}}


def _board(cells: list[list[str]]) -> custom_grid.CustomBoard:
    return custom_grid.parse_board({"game": "custom-grid", "cells": cells, "setup": SETUP})


def test_points_per_label_by_hand() -> None:
    result = custom_grid.score(_board([["flower", "pond"], ["flower", "empty"]]))
    assert [(line.rule, line.detail, line.points) for line in result.lines] == [
        ("flower", "2 x 2 points", 4),
        ("pond", "1 x -1 points", -1),
    ]
    assert result.total == 3


def test_unknown_labels_and_ragged_rows_are_problems() -> None:
    board = _board([["flower", "tulip"], ["empty"]])
    codes = {(p.code, p.where) for p in custom_grid.check(board)}
    assert codes == {("grid-size", "cells"), ("unknown-label", "cells[0][1]")}
    with pytest.raises(InvalidState):
        custom_grid.score(board)


def test_a_label_every_board_shows_once() -> None:
    setup = {**SETUP, "once": ["pond"]}
    board = custom_grid.parse_board({"game": "custom-grid", "cells": [["pond", "flower"]], "setup": setup})
    assert board.spec.once == ("pond",) and custom_grid.check(board) == ()
    assert custom_grid.dump_board(board)["setup"]["once"] == ["pond"]
    # Left out of a game that has none, so that its states read as before.
    assert "once" not in custom_grid.dump_board(_board([["pond"]]))["setup"]
    for cells in ([["flower", "empty"]], [["pond", "pond"]]):
        twice = custom_grid.parse_board({"game": "custom-grid", "cells": cells, "setup": setup})
        shown = sum(row.count("pond") for row in cells)
        assert [(p.code, p.message) for p in custom_grid.check(twice)] == [
            ("once-label", f"every board shows 'pond' on exactly one cell, not {shown}")
        ]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"labels": ["only"]}, "at least two"),
        ({"labels": ["a", "a"]}, "distinct"),
        ({"labels": ["a", "b"], "points": {"c": 1}}, "points"),
        ({"labels": ["a", "b"], "points": {"a": "x"}}, r"points\.a"),
        ({"labels": ["a", "b"], "once": ["c"]}, r"once: name distinct labels of this game \(a, b\)"),
        ({"labels": ["a", "b"], "once": ["a", "a"]}, "once"),
    ],
)
def test_bad_setup_names_the_field(setup: dict[str, object], message: str) -> None:
    with pytest.raises(StateError, match=message):
        read_state({"game": "custom-grid", "cells": [["a"]], "setup": setup})


# A board the test draws itself: what a user's own game could look like, never seen by any model. It lies
# where a fixed camera sees it in every photo, so the user marks its corners once.
CELL_PX, MARGIN_PX, ROWS, COLS = 60, 30, 3, 4
CORNERS = np.array([(300.0, 200.0), (860.0, 190.0), (870.0, 640.0), (290.0, 650.0)])


def _photo(cells: list[list[str]], rng: np.random.Generator) -> np.ndarray:
    h, w = 2 * MARGIN_PX + ROWS * CELL_PX, 2 * MARGIN_PX + COLS * CELL_PX
    board = np.full((h, w, 3), (170, 200, 215), np.uint8)
    for r, row in enumerate(cells):
        for c, label in enumerate(row):
            x0, y0 = MARGIN_PX + c * CELL_PX, MARGIN_PX + r * CELL_PX
            cv2.rectangle(board, (x0, y0), (x0 + CELL_PX - 1, y0 + CELL_PX - 1), (90, 110, 120), 2)
            cx, cy = (int(v) for v in np.array([x0, y0]) + CELL_PX // 2 + rng.integers(-3, 4, 2))
            if label == "flower":
                cv2.circle(board, (cx, cy), 18, (40, 40, 210), -1)
                cv2.circle(board, (cx, cy), 6, (40, 220, 240), -1)
            elif label == "pond":
                cv2.rectangle(board, (cx - 18, cy - 14), (cx + 18, cy + 14), (200, 120, 40), -1)
    photo = np.full((720, 960, 3), (60, 90, 120), np.uint8)
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    m = cv2.getPerspectiveTransform(src, CORNERS.astype(np.float32))
    cv2.warpPerspective(board, m, (960, 720), photo, borderMode=cv2.BORDER_TRANSPARENT)
    return np.clip(photo + rng.normal(0, 3, photo.shape), 0, 255).astype(np.uint8)


def _save(tmp_path: Path, name: str, rng: np.random.Generator) -> tuple[str, str, list[list[str]]]:
    cells = [[LABELS[int(rng.integers(len(LABELS)))] for _ in range(COLS)] for _ in range(ROWS)]
    cv2.imwrite(str(tmp_path / f"{name}.png"), _photo(cells, rng))
    (tmp_path / f"{name}.json").write_text(
        json.dumps({"game": "custom-grid", "cells": cells, "setup": SETUP})
    )
    return str(tmp_path / f"{name}.png"), str(tmp_path / f"{name}.json"), cells


def test_enrol_a_users_own_game_and_score_a_new_photo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(5)
    corners = ",".join(f"{v:.1f}" for v in CORNERS.ravel())
    pairs = [p for i in range(3) for p in _save(tmp_path, f"enrol{i}", rng)[:2]]
    grid = f"--rows {ROWS} --cols {COLS} --labels empty,flower,pond --cell-mm 30 --margin-mm 15".split()
    points = ["--points", "flower=2", "--points", "pond=-1"]
    code = main(["enroll", "--profile", "mine", *pairs, "--corners", corners, *grid, *points])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Enrolled 'mine' from its 3 teaching photo(s), 36 cells" in out
    # Each photo read by the profile taught from the other two: a board of these tiles it has not seen.
    for ident in ("0001", "0002", "0003"):
        assert f"taught without photo {ident}, it reads 0 of its 12 cells wrong" in out
    for i in range(3):
        photo, _, cells = _save(tmp_path, f"new{i}", rng)
        code = main(
            ["score", photo, "--game", "custom-grid", "--profile", "mine", "--corners", corners, "--json"]
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        board = json.loads(out)["boards"][0]
        assert board["state"]["cells"] == cells
        flowers = sum(row.count("flower") for row in cells)
        ponds = sum(row.count("pond") for row in cells)
        assert board["total"] == 2 * flowers - ponds
    # Every stage's picture, for a board only its profile knows how to read.
    debug_dir = tmp_path / "debug"
    argv = [
        "debug",
        photo,
        "--game",
        "custom-grid",
        "--profile",
        "mine",
        "--corners",
        corners,
        "--out",
        str(debug_dir),
    ]
    assert main(argv) == 0, capsys.readouterr().err
    labels = cv2.imread(str(debug_dir / "4-board1-labels.png"))
    assert labels is not None and labels.shape[0] > 100
    assert (debug_dir / "3-board1-cells.png").is_file()


def test_a_users_plain_board_needs_its_corners_or_stickers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(6)
    photo, state, _ = _save(tmp_path, "a", rng)
    corners = ",".join(f"{v:.1f}" for v in CORNERS.ravel())
    assert (
        main(
            [
                "enroll",
                "--profile",
                "g",
                photo,
                state,
                "--corners",
                corners,
                "--rows",
                "3",
                "--cols",
                "4",
                "--labels",
                "empty,flower,pond",
            ]
        )
        == 0
    )
    capsys.readouterr()
    # The same photo is found by the picture its profile keeps of it; another game on this bare board, with
    # no printing of its own, is not.
    assert main(["score", photo, "--game", "custom-grid", "--profile", "g"]) == 0
    other, _, _ = _save(tmp_path, "b", rng)
    capsys.readouterr()
    assert main(["score", other, "--game", "custom-grid", "--profile", "g"]) == 2
    assert "which way up this board lies" in capsys.readouterr().err
    assert main(["enroll", "--profile", "h", photo, state, "--rows", "3", "--labels", "a,b"]) == 2
    assert "all of --rows, --cols and --labels" in capsys.readouterr().err
    grid = ["--rows", "3", "--cols", "4", "--labels", "empty,flower,pond"]
    assert main(["enroll", "--profile", "k", photo, state, *grid, "--once", "castle"]) == 2
    assert "once: name distinct labels of this game (empty, flower, pond)" in capsys.readouterr().err


def test_a_profile_taught_on_an_older_version_is_taught_again_from_its_photos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], _state_dir: Path
) -> None:
    rng = np.random.default_rng(7)
    corners = ",".join(f"{v:.1f}" for v in CORNERS.ravel())
    pairs = [p for i in range(2) for p in _save(tmp_path, f"enrol{i}", rng)[:2]]
    grid = f"--rows {ROWS} --cols {COLS} --labels empty,flower,pond --cell-mm 30 --margin-mm 15".split()
    assert main(["enroll", "--profile", "old", *pairs, "--corners", corners, *grid]) == 0
    state = StateDir(_state_dir)
    assert not outdated(state, "old")
    # As a version that described cells otherwise wrote it.
    path = state.profile("old") / ENROLMENT_FILE
    path.write_text(json.dumps(json.loads(path.read_text()) | {"model": "described-1"}))
    assert outdated(state, "old")
    photo, _, cells = _save(tmp_path, "new", rng)
    capsys.readouterr()
    argv = ["score", photo, "--game", "custom-grid", "--profile", "old", "--corners", corners, "--json"]
    assert main(argv) == 2
    assert "`garden-scorer enroll --profile old` teaches it again" in capsys.readouterr().err
    # The web app teaches it again when it starts ...
    reteacher = Reteacher(state, threading.Lock())
    assert reteacher.schedule_outdated() == ["old"]
    assert reteacher.wait() and not reteacher.failed and not outdated(state, "old")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["boards"][0]["state"]["cells"] == cells
    assert reteacher.schedule_outdated() == []
    # ... and so does `enroll` given no new photo, from the two it kept.
    path.write_text(json.dumps(json.loads(path.read_text()) | {"model": "described-1"}))
    assert main(["enroll", "--profile", "old"]) == 0
    assert "Enrolled 'old' from its 2 teaching photo(s)" in capsys.readouterr().out
    assert main(argv) == 0
    assert main(["enroll", "--profile", "old", "--corners", corners]) == 2
    assert "--corners goes with photos" in capsys.readouterr().err
