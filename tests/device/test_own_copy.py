"""A household's own copy of a game: which way up its board lies is weighed, and asked where it is not sure;
the profile's geometry is the one its photos are read with."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

import device.learn
from calibration import teaching
from calibration.profiles import GridPlace, load_bundle, with_geometry
from calibration.statedir import StateDir
from calibration.teaching import TeachingPhoto
from device.learn import UnsureTurn, found_for_size, place_board
from device.photo import load_orienter
from device.serve import upload_scorer
from lab.bench import reshaped_profile
from lab.bench_own_copy import CopyRun, _photos
from lab.synth.camera import Photo, PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from scoring.core import StateError
from tests.support import run_cli
from vision.geometry import quad_size
from vision.pipeline import given_lens
from vision.profile import BoardProfile, default_profile
from vision.read.orient import rotations
from vision.read.upright import Turns

# Copies drawn in art no model learnt, each with its photo's seed: the last two are copies whose game's
# layout model alone turns them wrongly (the way profiles were made before the turn was weighed).
COPIES = {
    "alices-garden": (
        with_geometry(default_profile("alices-garden"), (210, 210), {"grid": GridPlace(9, 12, 24, 24)}),
        "gouache",
        5,
    ),
    "sanssouci": (reshaped_profile("sanssouci", 1), "linocut", 36),
    "zen-garden": (reshaped_profile("zen-garden", 2), "gouache", 67),
    "four-gardens": (reshaped_profile("four-gardens", 3), "gouache", 98),
}
LAYOUT_ALONE_WRONG = ("zen-garden", "four-gardens")


def _photo(game: str, index: int = 0) -> tuple[Photo, BoardProfile]:
    copy, pack, seed = COPIES[game]
    spec = RenderSpec((game,), seed, packs=(pack,), options=PhotoOptions(max_tilt_deg=35), reshaped=copy)
    return render_photo(spec, index), copy


def _off(corners: NDArray[np.float64], truth: NDArray[np.float64]) -> float:
    return float(np.linalg.norm(corners - truth, axis=1).max() / quad_size(truth))


@pytest.mark.parametrize("game", list(COPIES))
def test_a_copys_turn_is_weighed_from_its_grid_cells_and_layout(game: str) -> None:
    photo, copy = _photo(game)
    image = photo.decode()
    truth = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    corners, _ = place_board(image, copy, None)
    assert _off(corners, truth) < 0.05  # found, its top-left corner first
    if game in LAYOUT_ALONE_WRONG:
        guessed = load_orienter(game).orient(image, copy, truth, None).ideal_corners_xy
        assert _off(guessed, truth) > 0.5


def _unsure(*_: object) -> Turns:
    """The chances of a board no cue tells the turn of."""
    outline = np.array([(10.0, 10.0), (90.0, 10.0), (90.0, 90.0), (10.0, 90.0)])
    a, b, c, d = rotations(outline)
    return Turns((a, b, c, d), (0.25, 0.25, 0.25, 0.25))


def test_an_unsure_turn_is_asked_of_the_owner_never_taken(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    photo, copy = _photo("alices-garden")
    path = tmp_path / "board.jpg"
    path.write_bytes(photo.jpeg)
    monkeypatch.setattr(device.learn, "weigh_turns", _unsure)
    with pytest.raises(UnsureTurn) as asked:
        place_board(photo.decode(), copy, None)
    assert asked.value.turns.best == 0 and not asked.value.turns.sure

    state = tmp_path / "state"
    argv = ["--state-dir", str(state), "profile", "create", "mine", str(path), "--game", "alices-garden"]
    geometry = ["--size-mm", "210,210", "--grid-mm", "9,12,24"]
    code, _, err = run_cli(capsys, *argv, *geometry)
    assert code == 2 and "--turn" in err and "which way up" in err
    assert sorted(p.name for p in (state / "turns" / "mine").iterdir()) == [
        f"turn-{k}.png" for k in (1, 2, 3, 4)
    ]
    assert not (state / "profiles" / "mine").exists()  # nothing saved on a guess

    # The owner looks at the pictures and gives the upright one: the board found, turned as told.
    truth = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    turn = next(
        k for k in range(1, 5) if _off(np.roll(_found_outline(photo, copy), -(k - 1), 0), truth) < 0.05
    )
    code, out, err = run_cli(capsys, *argv, *geometry, "--turn", str(turn))
    assert code == 0, err
    assert not (state / "turns" / "mine").exists()
    assert load_bundle(StateDir(state), "mine").profile.size_mm == (210.0, 210.0)
    placed = np.array([[float(v) for v in xy.split(", ")] for xy in _corners_printed(out)])
    assert _off(placed, truth) < 0.05


def _found_outline(photo: Photo, copy: BoardProfile) -> NDArray[np.float64]:
    quad, _ = device.learn.find_board(photo.decode(), copy, None)
    return np.asarray(quad.corners_xy, np.float64)


def _corners_printed(out: str) -> list[str]:
    line = next(line for line in out.splitlines() if "board found at" in line)
    return line.split("board found at ")[1].split(";")[0].strip("()").split("), (")


def test_corners_given_from_the_photos_top_left_are_not_taken_where_the_board_is_surely_turned(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    photo, copy = _photo("alices-garden")
    path = tmp_path / "board.jpg"
    path.write_bytes(photo.jpeg)
    truth = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    upside_down = np.roll(truth, 2, 0)  # its bottom-right corner given first, as the photo's top left
    with pytest.raises(UnsureTurn, match="looks upright with corner 3") as asked:
        place_board(photo.decode(), copy, None, upside_down)
    assert asked.value.turns.best == 2
    # Given right, they are taken as they are; given with --turn, turned as told.
    assert _off(place_board(photo.decode(), copy, None, truth)[0], truth) == 0
    assert _off(place_board(photo.decode(), copy, None, upside_down, turn=3)[0], truth) == 0

    state = tmp_path / "state"
    corners = ",".join(f"{v:.1f}" for v in upside_down.ravel())
    argv = ["--state-dir", str(state), "profile", "create", "mine", str(path), "--game", "alices-garden"]
    code, _, err = run_cli(
        capsys, *argv, "--size-mm", "210,210", "--grid-mm", "9,12,24", "--corners", corners
    )
    assert code == 2 and "corners given" in err and "--turn" in err
    assert not (state / "profiles" / "mine").exists()


@pytest.mark.parametrize("quarter", [1, 3])
def test_corners_given_a_quarter_turn_off_are_asked_about_not_taken(quarter: int) -> None:
    # A board photographed turned, its corners given from the one nearest the photo's top left: the layout,
    # where it is sure, shows which corner is the top left; where it is not, the corners picture the board as
    # tall as it is wide and as wide as it is tall, which no turn of the typed size is.
    photo, copy = _photo("zen-garden")
    w, h = copy.size_mm
    assert abs(w / h - 1) > 0.08
    truth = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    image = photo.decode()
    with pytest.raises(UnsureTurn, match=f"upright with corner {quarter + 1} there") as asked:
        place_board(image, copy, None, np.roll(truth, quarter, 0))
    assert asked.value.turns.sure
    assert _off(place_board(image, copy, None, truth)[0], truth) == 0
    # Not sure of the layout (a copy read as if its board were bare tiles), the sides tell it.
    unsure = replace(asked.value.turns, chances=(0.25, 0.25, 0.25, 0.25), layout=None)
    assert not unsure.sure
    with (
        patch("device.learn.board_turns", return_value=unsure),
        pytest.raises(UnsureTurn, match=f"make the board {h:.0f} mm wide and {w:.0f} mm high"),
    ):
        place_board(image, copy, None, np.roll(truth, quarter, 0))


def test_true_corners_whose_sides_measure_a_quarter_turn_off_are_taken_when_the_layout_is_sure() -> None:
    # A copy's set-up photo tilted, no calibration: its sides, through a lens guessed from them, measure the
    # board taller than wide, but the layout is surely upright at the corners given, which are right.
    copy = reshaped_profile("four-gardens", 0)
    setup, _ = _photos(CopyRun("four-gardens", 0, fresh=0, played=0), copy)
    image = setup.decode()
    truth = np.array(setup.truth["boards"][0]["corners_xy"], np.float64)
    lens = given_lens(image, truth, [copy])
    assert device.learn._quarter_off(truth, copy, image.shape[1::-1], lens)
    assert _off(place_board(image, copy, None, truth)[0], truth) == 0


def test_a_profile_made_says_what_its_photo_shows_not_how_its_cells_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The set-up photo of a copy no game has taught: its cells read unsure, which the owner can do nothing
    # about while making the profile (an independent try was shown 20 such cells); the board's place is said.
    copy = reshaped_profile("alices-garden", 0)
    setup, _ = _photos(CopyRun("alices-garden", 0, fresh=0, played=0), copy)
    (tmp_path / "board.jpg").write_bytes(setup.jpeg)
    truth = np.array(setup.truth["boards"][0]["corners_xy"], np.float64)
    grid = copy.regions[0]
    measured = [*grid.origin_mm, grid.cell_mm[0], *grid.pitch_mm]
    argv = ["--state-dir", str(tmp_path / "state"), "profile", "create", "mine", str(tmp_path / "board.jpg")]
    code, out, err = run_cli(
        capsys,
        *argv,
        "--game",
        "alices-garden",
        "--size-mm",
        ",".join(f"{v:.2f}" for v in copy.size_mm),
        "--grid-mm",
        ",".join(f"{v:.2f}" for v in measured),
        "--corners",
        ",".join(f"{v:.0f}" for v in truth.ravel()),
    )
    assert code == 0, err
    assert "board found at" in out and "low confidence" not in out
    mine = load_bundle(StateDir(tmp_path / "state"), "mine").profile
    reading = device.learn.read_one_board(setup.decode(), mine, None, truth)
    assert any("low confidence" in flag for flag in reading.flags)  # what was left unsaid


def test_a_board_given_its_corners_is_seen_through_the_lens_its_sides_show() -> None:
    # A phone's wide lens and no calibration: the set-up photo's board is read through the lens its sides
    # bow by, as a board found is, where it was read straight (its grid 14 % of its size off at a corner).
    photo = render_photo(RenderSpec(("alices-garden",), 20261121), 47)
    truth = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    _, lens = place_board(photo.decode(), default_profile("alices-garden"), None, truth)
    assert lens is not None and lens.estimated
    ideal = photo.camera().undistort_px(truth)
    assert _off(lens.undistort_px(truth), ideal) < 0.02 and _off(truth, ideal) > 0.1


def test_a_teaching_photo_is_read_through_one_lens_its_sides_show(tmp_path: Path) -> None:
    # Read once per photo, not once per view: each view read for teaching moves the corners a little, and
    # a lens read from each would be another.
    photo = render_photo(RenderSpec(("alices-garden",), 20261121), 47)
    board = photo.truth["boards"][0]
    (tmp_path / "p.jpg").write_bytes(photo.jpeg)
    truth = np.array(board["corners_xy"], np.float64)
    kept = TeachingPhoto("1", tmp_path / "p.jpg", board["state"], truth, None)
    example = device.learn._example(kept, default_profile("alices-garden"), None)
    assert example.camera is not None and example.camera.estimated
    assert example.corners_xy is not None and np.array_equal(example.corners_xy, truth)
    _, lens = place_board(photo.decode(), default_profile("alices-garden"), None, truth)
    assert lens is not None and np.array_equal(example.camera.dist, lens.dist)


def test_a_turn_the_layout_model_denies_is_asked_even_where_the_grid_agrees_on_it() -> None:
    outline = np.array([(10.0, 10.0), (90.0, 10.0), (90.0, 90.0), (10.0, 90.0)])
    a, b, c, d = rotations(outline)
    # An outline found a little off the board: the grid's cues fit a wrong turn by a cell's shift.
    shifted = Turns((a, b, c, d), (0.0, 0.006, 0.994, 0.0), (0.893, 0.007, 0.003, 0.097))
    assert shifted.best == 2 and not shifted.sure
    assert Turns((a, b, c, d), (0.0, 0.006, 0.994, 0.0), (0.1, 0.1, 0.7, 0.1)).sure
    assert Turns((a, b, c, d), (0.0, 0.006, 0.994, 0.0)).sure  # no layout model: the cues alone


def test_corners_given_from_a_photos_top_left_are_refused_with_the_boards_order_once_it_is_known(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Profile made (its picture kept), then a game taught with corners typed from the photo's top left: every
    # cell would be learnt as another's. The profile's picture shows which corner is the board's.
    photo, _ = _photo("alices-garden")
    (tmp_path / "board.jpg").write_bytes(photo.jpeg)
    state = tmp_path / "state"
    made = ["profile", "create", "mine", str(tmp_path / "board.jpg"), "--game", "alices-garden"]
    code, _, err = run_cli(
        capsys, "--state-dir", str(state), *made, "--size-mm", "210,210", "--grid-mm", "9,12,24"
    )
    assert code == 0, err

    played, _ = _photo("alices-garden", 1)
    board = played.truth["boards"][0]
    (tmp_path / "game.jpg").write_bytes(played.jpeg)
    (tmp_path / "game.json").write_text(json.dumps(board["state"]))
    truth = np.array(board["corners_xy"], np.float64)
    typed = ",".join(f"{v:.0f}" for v in np.roll(truth, 1, 0).ravel())
    teach = ["enroll", str(tmp_path / "game.jpg"), str(tmp_path / "game.json"), "--profile", "mine"]
    code, _, err = run_cli(capsys, "--state-dir", str(state), *teach, "--corners", typed)
    assert code == 2 and "not at its top left" in err
    # Typed from the board's bottom left: that is its corner 4; its top left is the second given.
    assert "start at the board's corner 4" in err and "corner 2 as given" in err
    given = err.split("--corners ")[1].split()[0]
    assert given == ",".join(f"{v:.0f}" for v in truth.ravel())
    assert teaching.photos(StateDir(state), "mine") == []  # nothing kept to teach from
    score = ["score", str(tmp_path / "game.jpg"), "--game", "alices-garden", "--profile", "mine"]
    code, _, err = run_cli(capsys, "--state-dir", str(state), *score, "--corners", typed)
    assert code == 2 and "not at its top left" in err  # no score read from a board turned over
    # Given from the board's top left, they are taken.
    mine = load_bundle(StateDir(state), "mine").profile
    device.learn.check_corner_order(StateDir(state), mine, tmp_path / "game.jpg", truth)
    # On the pages alike: handles placed from the board's bottom left (the home page, or a result's "place
    # its corners", whose reading would replace the result) are refused, saying which handle goes where.
    score = upload_scorer(StateDir(state))
    image = played.decode()
    with pytest.raises(StateError, match=r"corner 2 as given .*: place handle 1 on the board's top-left"):
        score(image, "alices-garden", {}, "mine", corners=np.roll(truth, 1, 0))
    (board,) = score(image, "alices-garden", {}, "mine", corners=truth)
    assert board.breakdown is not None


def test_an_outline_of_the_games_board_shape_is_found_again_for_the_size_typed() -> None:
    # Found before the owner typed the size, an outline took the game's square board's shape: an independent
    # try's 250 x 205 mm board was outlined over its grid, not its plain margin, and its turn weighed wrong.
    copy = with_geometry(default_profile("alices-garden"), (250, 205), {"grid": GridPlace(14, 11, 24, 26)})
    spec = RenderSpec(
        ("alices-garden",), 11, packs=("gouache",), options=PhotoOptions(max_tilt_deg=25), reshaped=copy
    )
    photo = render_photo(spec, 0)
    image = photo.decode()
    truth = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    # The board's left 205 x 205 mm, a square as the game's board is, where the page's handles sat.
    mm = np.array([(0, 0), (250, 0), (250, 205), (0, 205)], np.float32)
    to_photo = cv2.getPerspectiveTransform(mm, truth.astype(np.float32))
    square = np.array([(0, 0), (205, 0), (205, 205), (0, 205)], np.float32).reshape(-1, 1, 2)
    inner = cv2.perspectiveTransform(square, to_photo).reshape(-1, 2).astype(np.float64)
    standard = default_profile("alices-garden")
    found = found_for_size(image, standard, copy, inner, None)
    # Which corner is its top left is weighed next (the turns): here, only where it lies.
    assert found is not None and min(_off(np.roll(found, k, axis=0), truth) for k in range(4)) < 0.03
    # An outline of the size typed (placed by hand, or found) is the owner's: kept.
    assert found_for_size(image, standard, copy, truth, None) is None
