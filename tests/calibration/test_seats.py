"""Seats: made from located boards, boards matched back to them, and the table file saved and checked."""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.seats import Seat, SeatMatch, TableSetup, assign, load, save, seats_from_boards
from calibration.store import StoreError

W, H = 2304, 1296

# Four boards round a table as the camera sees them, corners clockwise from top left, slightly turned.
NORTH = np.array([[950, 40], [1350, 50], [1345, 420], [945, 410]], np.float64)
WEST = np.array([[150, 450], [550, 440], [560, 840], [160, 850]], np.float64)
EAST = np.array([[1750, 440], [2150, 450], [2140, 850], [1740, 840]], np.float64)
SOUTH = np.array([[950, 880], [1350, 870], [1355, 1260], [955, 1270]], np.float64)
# Two boards side by side, 100 px apart: their seats grown by a quarter would overlap.
LEFT = np.array([[300, 400], [800, 400], [800, 900], [300, 900]], np.float64)
RIGHT = np.array([[900, 400], [1400, 400], [1400, 900], [900, 900]], np.float64)
# A board well away from both, a little higher.
FAR = np.array([[1700, 300], [2100, 300], [2100, 700], [1700, 700]], np.float64)


def _moved(board: np.ndarray, dx: float, dy: float) -> np.ndarray:
    return np.asarray(board + np.array([dx, dy]), np.float64)


def _pixels(seat: Seat, size_wh: tuple[int, int] = (W, H)) -> np.ndarray:
    return np.array(seat.polygon, np.float32) * np.array(size_wh, np.float32)


def _shared_area(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection area by OpenCV, independent of the module's own clipping."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area)


def _holds(seat: Seat, board: np.ndarray) -> bool:
    contour = _pixels(seat).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(contour, (float(x), float(y)), True) >= -0.01 for x, y in board)


def _round_table() -> TableSetup:
    # Listed out of reading order, so the names must come from where the boards lie.
    return seats_from_boards("alices_garden", [SOUTH, EAST, NORTH, WEST], (W, H))


# Making seats


def test_seats_are_named_in_reading_order_hold_their_boards_and_stay_in_the_photo() -> None:
    setup = _round_table()
    assert [s.name for s in setup.seats] == ["seat 4", "seat 3", "seat 1", "seat 2"]
    assert all(s.player is None for s in setup.seats)
    for seat, board in zip(setup.seats, [SOUTH, EAST, NORTH, WEST], strict=True):
        assert _holds(seat, board)
        assert all(0.0 <= v <= 1.0 for point in seat.polygon for v in point)
    # North and south boards lie near the top and bottom edges, so their grown seats were clipped there.
    assert min(y for _, y in setup.seats[2].polygon) == 0.0
    assert max(y for _, y in setup.seats[0].polygon) == 1.0
    # East is far from every edge: grown a quarter each way, its area is 1.25 squared times the board's.
    assert abs(cv2.contourArea(_pixels(setup.seats[1]))) == pytest.approx(
        1.25**2 * cv2.contourArea(EAST.astype(np.float32)), rel=1e-4
    )
    for i in range(4):
        for j in range(i + 1, 4):
            assert _shared_area(_pixels(setup.seats[i]), _pixels(setup.seats[j])) == 0.0


def test_two_boards_side_by_side_are_named_left_to_right() -> None:
    setup = seats_from_boards("zen_garden", [RIGHT, LEFT], (W, H), players=["Bob", "Alice"])
    assert [(s.name, s.player) for s in setup.seats] == [("seat 2", "Bob"), ("seat 1", "Alice")]


def test_close_boards_get_seats_shrunk_until_they_touch_and_others_keep_their_margin() -> None:
    setup = seats_from_boards("zen_garden", [LEFT, RIGHT, FAR], (W, H), names=["west", "middle", "east"])
    west, middle, east = (_pixels(s) for s in setup.seats)
    assert _shared_area(west, middle) < 1.0
    assert _holds(setup.seats[0], LEFT) and _holds(setup.seats[1], RIGHT) and _holds(setup.seats[2], FAR)
    # The 100 px gap is shared out: each 500 px board grows by 50 px a side, a factor of 1.2, not 1.25.
    assert west[:, 0].min() == pytest.approx(250, abs=0.5)
    assert west[:, 0].max() == pytest.approx(850, abs=0.5)
    assert middle[:, 0].min() == pytest.approx(850, abs=0.5)
    assert east[:, 0].min() == pytest.approx(1650, abs=0.01)
    assert east[:, 0].max() == pytest.approx(2150, abs=0.01)


def test_overlapping_boards_and_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match=r"boards_corners\[0\] and boards_corners\[1\] overlap"):
        seats_from_boards("g", [LEFT, LEFT + 200], (W, H))
    bowtie = LEFT[[0, 2, 1, 3]]
    with pytest.raises(ValueError, match=r"boards_corners\[1\]: .*in order round the board"):
        seats_from_boards("g", [FAR, bowtie], (W, H))
    with pytest.raises(ValueError, match=r"boards_corners\[0\]: the board's centre is outside the photo"):
        seats_from_boards("g", [_moved(LEFT, W, 0)], (W, H))
    with pytest.raises(ValueError, match=r"names and players: expected one per board \(2\)"):
        seats_from_boards("g", [LEFT, FAR], (W, H), names=["only one"])
    with pytest.raises(ValueError, match=r"seats\[1\]\.name: 'north' is already the name of seats\[0\]"):
        seats_from_boards("g", [LEFT, FAR], (W, H), names=["north", "north"])
    with pytest.raises(ValueError, match="boards_corners: a table set-up needs at least one board"):
        seats_from_boards("g", [], (W, H))


# Matching boards to seats


def test_boards_nudged_during_play_stay_in_their_seats() -> None:
    setup = _round_table()
    nudged = [_moved(NORTH, 40, -25), _moved(WEST, -30, 35), _moved(EAST, 45, 30), _moved(SOUTH, -20, -40)]
    matches = assign(setup, nudged, (W, H))
    assert [m.seat for m in matches] == ["seat 1", "seat 2", "seat 3", "seat 4"]
    assert matches[0].reason == "centre inside seat 'seat 1'"


def test_boards_are_matched_after_a_change_of_resolution() -> None:
    setup = _round_table()
    half = [b / 2 for b in (EAST, NORTH, SOUTH, WEST)]
    assert [m.seat for m in assign(setup, half, (W // 2, H // 2))] == ["seat 3", "seat 1", "seat 4", "seat 2"]


def test_a_board_outside_every_seat_has_none() -> None:
    corner = np.array([[1800, 1000], [2250, 1000], [2250, 1280], [1800, 1280]], np.float64)
    matches = assign(_round_table(), [NORTH, corner], (W, H))
    assert matches[0].seat == "seat 1"
    assert matches[1].seat is None
    assert matches[1].reason.startswith("outside every seat: its centre is at (0.879, 0.880)")


def test_two_boards_in_one_seat_both_have_none() -> None:
    matches = assign(_round_table(), [WEST, NORTH, _moved(WEST, 30, 20)], (W, H))
    assert matches == [
        SeatMatch(None, "two boards in seat 'seat 2'"),
        SeatMatch("seat 1", "centre inside seat 'seat 1'"),
        SeatMatch(None, "two boards in seat 'seat 2'"),
    ]


def test_where_seats_overlap_the_one_covering_most_of_the_board_wins() -> None:
    left = Seat("left", "Ann", ((0.0, 0.0), (0.6, 0.0), (0.6, 1.0), (0.0, 1.0)))
    right = Seat("right", "Ben", ((0.4, 0.0), (1.0, 0.0), (1.0, 1.0), (0.4, 1.0)))
    setup = TableSetup("g", (left, right))
    # Centre x 0.44 lies in both; 0.28 of the board's width is in "left", 0.18 in "right".
    board = np.array([[0.30, 0.4], [0.58, 0.4], [0.58, 0.6], [0.30, 0.6]]) * [W, H]
    [match] = assign(setup, [board], (W, H))
    assert match == SeatMatch("left", "centre inside seats 'left', 'right'; 'left' covers most of the board")
    [match] = assign(setup, [_moved(board, 0.12 * W, 0)], (W, H))
    assert match.seat == "right"


# The table file


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    setup = seats_from_boards("four_gardens", [WEST, EAST], (W, H), players=["Ann", None])
    path = tmp_path / "state" / "table.json"
    save(setup, path)
    data = json.loads(path.read_text())
    assert (data["kind"], data["version"], data["game"]) == ("table", 1, "four_gardens")
    assert data["seats"][1]["player"] is None
    assert load(path) == setup


def _good() -> dict[str, Any]:
    return seats_from_boards("g", [WEST, NORTH, EAST], (W, H), names=["west", "north", "east"]).to_json()


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda d: d.pop("seats"), r"seats: missing"),
        (lambda d: d.update(seats=[]), r"seats: expected at least one seat"),
        (lambda d: d.update(game=None), r"game: expected the name of a game"),
        (
            lambda d: d["seats"][2].update(name="west"),
            r"seats\[2\]\.name: 'west' is already the name of seats\[0\]",
        ),
        (lambda d: d["seats"][1].update(name=" "), r"seats\[1\]\.name: expected a name"),
        (lambda d: d["seats"][1].update(player=7), r"seats\[1\]\.player: expected a name or null, got 7"),
        (
            lambda d: d["seats"][1].update(polygon=[[0.1, 0.1], [0.2, 0.2]]),
            r"seats\[1\]\.polygon: expected at least 3 points in 0\.\.1, got 2",
        ),
        (
            lambda d: operator.setitem(d["seats"][0]["polygon"][2], 0, 1.2),
            r"seats\[0\]\.polygon\[2\]: \(1\.2, .*\) is outside 0\.\.1",
        ),
        (
            lambda d: operator.setitem(d["seats"][0]["polygon"], 1, [0.5, True]),
            r"seats\[0\]\.polygon\[1\]: expected \[x, y\]",
        ),
        (
            lambda d: d["seats"][0].update(polygon=[[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]]),
            r"seats\[0\]\.polygon: encloses no area",
        ),
        (
            lambda d: d["seats"][0].update(polygon=[[0.1, 0.1], [0.3, 0.2], [0.5, 0.1], [0.3, 0.5]]),
            r"seats\[0\]\.polygon: not convex",
        ),
        (lambda d: d.update(kind="camera"), r"kind is 'camera', expected 'table'"),
        (lambda d: d.update(version=2), r"version 2 of table files is not readable by this build"),
    ],
)
def test_load_names_the_bad_field(
    tmp_path: Path, spoil: Callable[[dict[str, Any]], object], message: str
) -> None:
    data = _good()
    spoil(data)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    with pytest.raises(StoreError, match=message) as caught:
        load(path)
    assert str(caught.value).startswith(str(path))


def test_saving_leaves_no_temporary_files_even_when_a_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "table.json"
    first = seats_from_boards("g", [LEFT], (W, H))
    save(first, path)
    save(seats_from_boards("g", [LEFT, FAR], (W, H)), path)
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]

    def power_cut(src: object, dst: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr("calibration.store.os.replace", power_cut)
    with pytest.raises(OSError, match="power cut"):
        save(first, path)
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]
    assert len(load(path).seats) == 2
