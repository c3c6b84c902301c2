"""The state folder, stored board profiles, ``profile create``, ``enroll`` and ``score --profile``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.enroll import Enrolment, unchanged_note
from calibration.profiles import GridPlace, load_bundle, new_profile, with_geometry
from calibration.statedir import StateDir, check_name, default_state_dir
from calibration.store import StoreError
from lab.bench import reshaped_profile
from scoring.core import StateError
from scoring.registry import get_game
from tests.support import ALICE_PHOTO, ALICE_TRUTH, EXAMPLES, run_cli
from vision.profile import default_profile

PHOTO, TRUTH = ALICE_PHOTO, ALICE_TRUTH
_run = run_cli


def test_state_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GARDEN_SCORER_STATE_DIR")
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "xdg" / "garden-scorer"
    monkeypatch.setenv("STATE_DIRECTORY", f"{tmp_path / 'systemd'}:{tmp_path / 'other'}")
    assert default_state_dir() == tmp_path / "systemd"
    monkeypatch.setenv("GARDEN_SCORER_STATE_DIR", str(tmp_path / "mine"))
    assert default_state_dir() == tmp_path / "mine"
    assert StateDir.resolve(tmp_path / "flag").root == tmp_path / "flag"


@pytest.mark.parametrize("name", ["../etc", "a/b", "", "Kitchen", "x" * 65, ".hidden", "a b"])
def test_names_that_could_leave_the_state_folder_are_refused(name: str) -> None:
    with pytest.raises(StoreError, match="lower-case letters"):
        check_name(name)
    assert check_name("kitchen-table_2") == "kitchen-table_2"


def test_game_setup_is_checked_by_the_rules_when_the_profile_is_made() -> None:
    profile = new_profile("mine", "alices-garden", {"chess_columns": [1, 6]})
    assert profile.setup["chess_columns"] == [1, 6]
    with pytest.raises(StateError, match="setup"):
        new_profile("mine", "alices-garden", {"chess_colums": [1, 6]})


def test_a_four_gardens_table_names_its_own_marker_colours_and_must_enrol_a_new_one(tmp_path: Path) -> None:
    import numpy as np

    from calibration.enroll import Enrolment, HeadCorrection
    from calibration.profiles import save_enrolment, save_profile
    from device.photo import load_classifier, profile_models

    # Marker colours are the reader's, not the rules': the profile keeps them and its reader checks them.
    profile = new_profile("cafe", "four-gardens", {"markers": ["pink", "black"]})
    assert profile.setup["markers"] == ["pink", "black"]
    with pytest.raises(StateError, match="name each marker colour once"):
        new_profile("cafe", "four-gardens", {"markers": ["pink", "pink"]})
    state = StateDir(tmp_path)
    save_profile(state, profile)
    # Pink is no colour the shipped model knows: scoring waits for an enrolment, and says so.
    with pytest.raises(StateError, match="read for pink, which the shipped model has not learnt"):
        profile_models(state, "four-gardens", "cafe")
    heads = ("pink", "black")
    correction = HeadCorrection(np.zeros((96, 2)), np.zeros(2))
    # An enrolment fitted to the model of an earlier version is refused, and the message says what to do.
    save_enrolment(state, "cafe", Enrolment("four-gardens", dict.fromkeys(heads, correction), 40, 2, "old"))
    with pytest.raises(StateError, match=r"profile 'cafe': .* another four-gardens model .* enrol again"):
        profile_models(state, "four-gardens", "cafe")
    model = load_classifier("four-gardens").model_id
    save_enrolment(state, "cafe", Enrolment("four-gardens", dict.fromkeys(heads, correction), 40, 2, model))
    models = profile_models(state, "four-gardens", "cafe")
    assert [h.name for h in models["classifiers"]["four-gardens"].heads] == list(heads)


def test_profile_create_stores_the_board_its_colour_and_picture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    code, out, err = _run(
        capsys,
        "--state-dir",
        str(state),
        "profile",
        "create",
        "kitchen",
        str(PHOTO),
        "--game",
        "alices-garden",
    )
    assert code == 0, err
    assert "board found" in out
    folder = state / "profiles" / "kitchen"
    assert {p.name for p in folder.iterdir()} == {"profile.json", "colour.json", "board.png"}
    bundle = load_bundle(StateDir(state), "kitchen")
    assert bundle.profile.game == "alices-garden"
    assert bundle.colour is not None and bundle.enrolment is None
    code, out, _ = _run(capsys, "--state-dir", str(state), "profile", "list")
    assert "kitchen: Alice's Garden; learnt: colour" in out
    # A second profile of the same name needs --force.
    code, _, err = _run(
        capsys, "--state-dir", str(state), "profile", "create", "kitchen", "--game", "alices-garden"
    )
    assert code == 2 and "--force" in err


def test_enroll_names_the_heads_left_to_the_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.learn

    left = Enrolment("alices-garden", {}, 96, 2, "m", ("cell",))
    monkeypatch.setattr(device.learn, "_enrol", lambda *args, **kwargs: (left, [(96, 3)]))
    truth_state = tmp_path / "truth.json"
    truth_state.write_text(json.dumps(TRUTH["state"]))
    args = ("enroll", "--profile", "t", "--game", "alices-garden", str(PHOTO), str(truth_state))
    code, out, err = _run(capsys, "--state-dir", str(tmp_path / "state"), *args)
    assert code == 0, err
    assert f"The model's own reading kept for {unchanged_note(left)}" in out
    assert "taught without photo 0001, it reads 3 of its 96 cells wrong" in out


def test_enroll_takes_corners_once_for_all_photos_or_once_per_photo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.learn

    seen: list[list[object]] = []

    def enrol(
        state: object, profile: object, examples: list[Any], stickers: bool
    ) -> tuple[Enrolment, list[tuple[int, int]]]:
        seen.append([None if e.corners_xy is None else e.corners_xy.tolist() for e in examples])
        return Enrolment("alices-garden", {}, 96, len(examples), "m"), []

    monkeypatch.setattr(device.learn, "_enrol", enrol)
    truth_state = tmp_path / "truth.json"
    truth_state.write_text(json.dumps(TRUTH["state"]))
    other = tmp_path / "other.jpg"
    # Another photo of the same board (the same picture, saved again).
    other.write_bytes(
        cv2.imencode(".jpg", cv2.imread(str(PHOTO)), [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    )
    pairs = (str(PHOTO), str(truth_state), str(other), str(truth_state))
    a, b = "1,2,30,2,30,40,1,40", "5,6,50,6,50,60,5,60"

    def base(run: str) -> tuple[str, ...]:
        return ("--state-dir", str(tmp_path / run), "enroll", "--profile", "t", "--game", "alices-garden")

    assert _run(capsys, *base("1"), *pairs)[0] == 0
    assert _run(capsys, *base("2"), "--corners", a, *pairs)[0] == 0
    assert _run(capsys, *base("3"), "--corners", a, "--corners", b, *pairs)[0] == 0
    quad_a = [[1.0, 2.0], [30.0, 2.0], [30.0, 40.0], [1.0, 40.0]]
    quad_b = [[5.0, 6.0], [50.0, 6.0], [50.0, 60.0], [5.0, 60.0]]
    assert seen == [[None, None], [quad_a, quad_a], [quad_a, quad_b]]
    # Teaching photos add up: the profile learns from those it had and the new ones, each photo once.
    assert _run(capsys, *base("3"), "--corners", a, "--corners", b, *pairs)[0] == 0
    assert seen[-1] == [quad_a, quad_b]
    assert _run(capsys, *base("3"), "--corners", b, str(PHOTO), str(truth_state))[0] == 0
    assert seen[-1] == [quad_a, quad_b, quad_b]
    code, _, err = _run(capsys, *base("4"), "--corners", a, "--corners", b, "--corners", a, *pairs)
    assert code == 2 and "--corners given 3 times for 2 photos" in err


def test_enroll_then_score_with_the_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    truth_state = tmp_path / "truth.json"
    truth_state.write_text(json.dumps(TRUTH["state"]))
    code, out, err = _run(
        capsys, "enroll", "--profile", "table1", "--game", "alices-garden", str(PHOTO), str(truth_state)
    )
    assert code == 0, err
    assert "Enrolled 'table1' from its 1 teaching photo(s), 48 cells" in out
    assert "own reading kept" not in out  # one photo cannot tell a correction that does not hold
    unplaced = TRUTH["state"]["unplaced_bonus_tiles"]
    code, out, err = _run(
        capsys,
        "score",
        str(PHOTO),
        "--game",
        "alices-garden",
        "--profile",
        "table1",
        "--json",
        "--set",
        f"unplaced_bonus_tiles={unplaced}",
    )
    assert code == 0, err
    board = json.loads(out)["boards"][0]
    rules = get_game("alices-garden")
    assert board["state"]["rows"] == TRUTH["state"]["rows"]
    assert board["total"] == rules.score(rules.parse(TRUTH["state"])).total  # type: ignore[union-attr]


def test_a_new_profile_takes_its_light_from_the_first_enrolment_photo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Boards scored with the profile are brought to its background colour; the enrolment must have read its
    # photos in that same light, so a profile made by enrolling is given the first photo's.
    truth_state = tmp_path / "truth.json"
    truth_state.write_text(json.dumps(TRUTH["state"]))
    state = tmp_path / "state"
    args = ("--state-dir", str(state), "enroll", "--profile", "table1", "--game", "alices-garden")
    code, _, err = _run(capsys, *args, str(PHOTO), str(truth_state))
    assert code == 0, err
    colour = load_bundle(StateDir.resolve(state), "table1").colour
    assert colour is not None and all(40 < v < 255 for v in colour.median_bgr)
    # A darker photo enrolled later is read in the profile's light: the colour stays the profile's.
    dark = tmp_path / "dark.png"
    photo = cv2.imread(str(PHOTO))
    assert photo is not None
    cv2.imwrite(str(dark), (photo.astype(np.float64) * 0.7).astype(np.uint8))
    code, _, err = _run(capsys, *args, str(dark), str(truth_state))
    assert code == 0, err
    assert load_bundle(StateDir.resolve(state), "table1").colour == colour


def test_enroll_refuses_odd_files_wrong_game_and_unknown_profiles(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = _run(capsys, "enroll", "--profile", "p", "--game", "alices-garden", str(PHOTO))
    assert code == 2 and "pairs" in err
    wrong = tmp_path / "zen.json"
    wrong.write_text((EXAMPLES / "zen-garden.json").read_text())
    code, _, err = _run(capsys, "enroll", "--profile", "p", "--game", "alices-garden", str(PHOTO), str(wrong))
    assert code == 2 and "expected a alices-garden state" in err
    code, _, err = _run(capsys, "enroll", "--profile", "p", str(PHOTO), str(wrong))
    assert code == 2 and "give --game" in err
    code, _, err = _run(capsys, "score", str(PHOTO), "--game", "alices-garden", "--profile", "nope")
    assert code == 2 and "no profile named 'nope'" in err


def test_a_damaged_profile_names_its_file(tmp_path: Path) -> None:
    state = StateDir(tmp_path)
    folder = state.profile("broken")
    folder.mkdir(parents=True)
    (folder / "profile.json").write_text('{"version": 1, "name": "broken", "game": "alices-garden"}')
    with pytest.raises(StoreError, match=r"broken/profile.json"):
        load_bundle(state, "broken")
    (folder / "profile.json").write_text("{not json")
    with pytest.raises(StoreError, match="unreadable"):
        load_bundle(state, "broken")


def test_seats_from_a_photo_of_the_laid_out_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from calibration.seats import assign, load, reading_order
    from lab.synth.camera import PhotoOptions
    from lab.synth.render import RenderSpec, render_photo

    spec = RenderSpec(("alices-garden",), 3, boards=2, options=PhotoOptions(max_tilt_deg=10))
    photo = render_photo(spec, 2)  # two whole boards side by side
    cv2.imwrite(str(tmp_path / "table.png"), photo.decode())
    code, out, err = _run(
        capsys, "seats", str(tmp_path / "table.png"), "--game", "alices-garden", "--players", "Ann,Bob"
    )
    assert code == 0, err
    assert "Saved 2 seat(s)" in out
    setup = load(StateDir.resolve().table)
    truth = [np.array(b["corners_xy"]) for b in photo.truth["boards"]]
    size = tuple(photo.truth["size_wh"])
    matches = assign(setup, truth, size)
    assert sorted(m.seat for m in matches if m.seat) == ["seat 1", "seat 2"]
    by_seat = {s.name: s.player for s in setup.seats}
    # Reading order: the board further left (or higher) is seat 1 and Ann's.
    first = reading_order(truth)[0]
    assert by_seat[matches[first].seat or ""] == "Ann"


def test_a_real_boards_size_and_grids_are_given_to_its_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    argv = ["--state-dir", str(state), "profile", "create", "real", "--game", "sanssouci"]
    code, _, err = _run(
        capsys,
        *argv,
        "--size-mm",
        "310,250",
        "--grid-mm",
        "terrace=25,13,28.5",
        "--grid-mm",
        "grid=25,60,28.5,29",
    )
    assert code == 0, err
    profile = load_bundle(StateDir(state), "real").profile
    assert profile.size_mm == (310.0, 250.0)
    terrace, grid = profile.region("terrace"), profile.region("grid")
    assert (terrace.origin_mm, terrace.cell_mm, terrace.pitch_mm) == (
        (25.0, 13.0),
        (28.5, 28.5),
        (28.5, 28.5),
    )
    assert (grid.origin_mm, grid.cell_mm, grid.pitch_mm) == ((25.0, 60.0), (28.5, 28.5), (29.0, 29.0))
    # Read with the profile, the board is the real one's size and its cells where it says.
    from device.photo import profile_models, score_image
    from vision.read.cells import cut_cells

    models = profile_models(StateDir(state), "sanssouci", "real")
    image = np.full((900, 1600, 3), (100, 130, 160), np.uint8)  # a photo in colour: a grey one is refused
    corners = np.array([(400.0, 150.0), (1020.0, 150.0), (1020.0, 650.0), (400.0, 650.0)])
    (board,) = score_image(image, "sanssouci", {}, None, corners_xy=corners, **models)
    rect = board.reading.rectified
    assert rect.frame.profile.size_mm == (310.0, 250.0)
    cells = cut_cells(rect, ("grid",), 0.0, 8)
    assert len(cells.keys) == grid.rows * grid.cols

    for bad, says in (
        (["--grid-mm", "25,13,28"], "2 grids (terrace, grid): name the one placed, e.g. --grid-mm terrace="),
        (["--grid-mm", "moat=1,2,3"], "no grid 'moat'"),
        (
            ["--grid-mm", "grid=25,100,28"],
            "its 6 rows at a 28 mm step reach 268 mm from the board's top edge",
        ),
        (["--grid-mm", "grid=25,8,28"], "the terrace grid does not fit on the board: it starts"),
        (["--grid-mm", "grid=25,60,30,28"], "no larger than its step"),
    ):
        code, _, err = _run(capsys, *argv, "--force", *bad)
        assert code == 2 and says in err, err
    with pytest.raises(SystemExit):
        _run(capsys, *argv, "--force", "--size-mm", "0,240")


@pytest.mark.parametrize("game", ["alices-garden", "sanssouci", "zen-garden", "four-gardens"])
def test_one_grid_measured_on_a_copy_places_the_others(game: str) -> None:
    # A copy of the board at another size and proportions, its printing scaled and moved: its owner measures
    # the board and one grid, the others follow it.
    copy = reshaped_profile(game, 5)
    base = default_profile(game)
    first = copy.regions[0]
    measured = GridPlace(*first.origin_mm, first.cell_mm[0], *first.pitch_mm)
    made = with_geometry(base, copy.size_mm, {first.name: measured})
    assert made.size_mm == copy.size_mm
    for got, want, was in zip(made.regions, copy.regions, base.regions, strict=True):
        assert got.name == want.name
        assert got.origin_mm == pytest.approx(want.origin_mm) and got.origin_mm != pytest.approx(
            was.origin_mm
        )
        assert got.cell_mm == pytest.approx(want.cell_mm) and got.pitch_mm == pytest.approx(want.pitch_mm)
    # With only the board's size, every grid is scaled with it.
    scaled = with_geometry(base, (base.size_mm[0] * 0.9, base.size_mm[1] * 0.8), {})
    for got, was in zip(scaled.regions, base.regions, strict=True):
        assert got.origin_mm == pytest.approx((was.origin_mm[0] * 0.9, was.origin_mm[1] * 0.8))
        assert got.cell_mm == pytest.approx((was.cell_mm[0] * 0.8, was.cell_mm[1] * 0.8))


def test_a_grids_rows_may_step_unlike_its_columns() -> None:
    zen = default_profile("zen-garden")
    typed = GridPlace.typed([19, 194, 12, 12.5, 14])
    coins = with_geometry(zen, None, {"coins": typed}).region("coins")
    assert coins.pitch_mm == (12.5, 14.0) and coins.cell_mm == (12.0, 12.0)
    assert GridPlace.typed([1, 2, 3]) == GridPlace(1, 2, 3, 3, None)
    with pytest.raises(StateError, match="3 to 5 numbers"):
        GridPlace.typed([1, 2])
    with pytest.raises(StateError, match="no larger than its step"):
        with_geometry(zen, None, {"coins": GridPlace(19, 194, 12, 12.5, 11)})
