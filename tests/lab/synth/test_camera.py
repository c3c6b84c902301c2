from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lab.cli import main
from lab.synth.art import get_pack
from lab.synth.camera import PhotoOptions, photograph
from lab.synth.games import get_artist
from lab.synth.render import RenderSpec, render_photo
from lab.synth.scene import make_board
from vision.camera_model import CameraModel
from vision.geometry import apply_homography
from vision.profile import default_profile

SMALL = PhotoOptions(size_wh=(1152, 648))


def _camera(truth: dict[str, object]) -> CameraModel:
    cam = truth["camera"]
    assert isinstance(cam, dict)
    return CameraModel(np.array(cam["matrix"]), np.array(cam["dist"]), tuple(truth["size_wh"]))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(4))
def test_board_mm_to_image_and_back_within_half_a_pixel(seed: int) -> None:
    photo = render_photo(RenderSpec(("alices-garden",), seed, options=SMALL), 0)
    model = _camera(photo.truth)
    board = photo.truth["boards"][0]
    to_image = np.array(board["board_to_image"])
    rng = np.random.default_rng(seed)
    mm = rng.uniform([0, 0], default_profile("alices-garden").size_mm, (200, 2))
    image = model.distort_px(apply_homography(to_image, mm))
    back_mm = apply_homography(np.linalg.inv(to_image), model.undistort_px(image))
    # Compare in image pixels: map both back to the image to express the error where it is measured.
    again = model.distort_px(apply_homography(to_image, back_mm))
    assert np.max(np.linalg.norm(again - image, axis=1)) < 0.5
    # The recorded corners are the same projection of the board's corners.
    corners = model.distort_px(apply_homography(to_image, default_profile("alices-garden").corners_mm))
    np.testing.assert_allclose(corners, board["corners_xy"], atol=0.01)


def test_same_seed_same_photo_other_seed_other_photo() -> None:
    spec = RenderSpec(("alices-garden",), 7, options=SMALL)
    a, b, c = render_photo(spec, 3), render_photo(spec, 3), render_photo(spec, 4)
    assert a.jpeg == b.jpeg
    assert a.truth == b.truth
    assert a.jpeg != c.jpeg


@pytest.mark.parametrize("seed", range(4))
def test_truth_corners_land_on_the_drawn_board(seed: int) -> None:
    # The same scene photographed twice, once with a white board and once with a black one: the pixels that
    # differ are the board, so each truth corner must sit on the edge of that difference.
    profile = default_profile("alices-garden")
    board = make_board(
        get_artist("alices-garden"), profile, get_pack("meadow"), np.random.default_rng(seed), 4.0
    )
    shots = []
    for value in (255, 0):
        flat = replace(board.drawing, image_bgr=np.full_like(board.drawing.image_bgr, value))
        rng = np.random.default_rng(100 + seed)
        shots.append(
            photograph([replace(board, drawing=flat)], rng, PhotoOptions(size_wh=(1152, 648), effects=False))
        )
    assert shots[0].truth["boards"][0]["corners_xy"] == shots[1].truth["boards"][0]["corners_xy"]
    diff = np.abs(shots[0].decode().astype(int) - shots[1].decode().astype(int)).max(axis=2)
    corners = np.array(shots[0].truth["boards"][0]["corners_xy"])
    centre = corners.mean(axis=0)
    for corner in corners:
        towards = (centre - corner) / np.linalg.norm(centre - corner)
        for step, expect_board in ((3.0, True), (-3.0, False)):
            x, y = np.round(corner + step * towards).astype(int)
            # Inside, the two boards differ by far more than half their contrast; outside, only JPEG noise.
            assert (diff[y, x] > 100) == expect_board, (corner, step, diff[y, x])


def test_several_boards_all_in_frame_and_hands_hide_cells() -> None:
    spec = RenderSpec(("alices-garden",), 11, boards=4, options=PhotoOptions(size_wh=(1152, 648), hands=1.0))
    photo = render_photo(spec, 0)
    boards = photo.truth["boards"]
    assert len(boards) == 4
    for board in boards:
        xy = np.array(board["corners_xy"])
        assert np.all((xy >= 0) & (xy < [1152, 648]))
    assert sum(len(b["hidden_cells"]) for b in boards) > 0
    clear = render_photo(RenderSpec(("alices-garden",), 11, options=SMALL), 0)
    assert clear.truth["boards"][0]["hidden_cells"] == []


def test_truth_cells_match_the_state() -> None:
    photo = render_photo(RenderSpec(("alices-garden",), 5, options=SMALL), 1)
    board = photo.truth["boards"][0]
    assert ["".join(row) for row in board["cells"]["grid"]] == board["state"]["rows"]
    assert photo.decode().shape == (648, 1152, 3)


def test_render_command_writes_photos_truth_and_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set"
    sheet = tmp_path / "sheet.png"
    code = main(
        [
            "render",
            "--game",
            "alices-garden",
            "--count",
            "3",
            "--seed",
            "2",
            "--out",
            str(out),
            "--size",
            "640x360",
            "--workers",
            "1",
            "--contact-sheet",
            str(sheet),
        ]
    )
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        f"000{i}.{ext}" for i in range(3) for ext in ("jpg", "json")
    ]
    truth = json.loads((out / "0001.json").read_text())
    assert truth["image"] == "0001.jpg"
    assert truth["seed"] == 2
    assert sheet.stat().st_size > 10_000
    assert "Wrote 3 photos" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess"], "no synthetic art for 'chess'"),
        (["--game", "alices-garden", "--boards", "5"], "boards per photo must be 1 to 4"),
        (["--game", "alices-garden", "--art", "crayon"], "unknown art pack 'crayon'"),
    ],
)
def test_render_refuses_bad_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = main(["render", *argv, "--count", "1", "--out", str(tmp_path)])
    assert code == 2
    assert message in capsys.readouterr().err


def test_training_can_print_boards_in_random_variations_of_their_pack() -> None:
    from lab.synth.art import PACKS, varied
    from lab.synth.render import RenderSpec, render_photo

    plain = render_photo(RenderSpec(("alices-garden",), 5), 0)
    assert plain.truth["boards"][0]["art"] in PACKS
    # Without variation a photo is exactly what it was before variation existed.
    assert np.array_equal(
        render_photo(RenderSpec(("alices-garden",), 5, vary_art=0.0), 0).decode(), plain.decode()
    )
    varied_photo = render_photo(RenderSpec(("alices-garden",), 5, vary_art=1.0), 0)
    assert varied_photo.truth["boards"][0]["art"] == plain.truth["boards"][0]["art"] + "~"
    pack = PACKS["meadow"]
    prints = {varied(pack, np.random.default_rng(i)) for i in range(5)}
    assert len(prints) == 5 and all(p.fill == pack.fill and p.variant == pack.variant for p in prints)
