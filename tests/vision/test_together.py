"""Several photos of one board read together: the cells' probabilities combined, then the board read once."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.photo import score_image
from examples import example_photos, example_views
from lab.bench import _exact, _render, format_table, run_bench, truth_slant_deg
from lab.synth.art import TRAINING_PACKS
from lab.synth.camera import Photo, PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from tests.support import run_cli, run_lab
from vision.geometry import cell_rect_mm, quad_size
from vision.image_io import read_image
from vision.pipeline import BoardReading, read_together
from vision.profile import default_profile
from vision.read.classify import CellPredictions, reordered, sure_disagreements, together, turn_order
from vision.readers import Head, sized_for

GAME = "tang-garden"
HEAD = Head("bird", ("no", "yes"))
KEYS = (("grid", 0, 0), ("grid", 0, 1))
SPEC = RenderSpec((GAME,), 20261121, packs=TRAINING_PACKS, options=PhotoOptions())


def _predictions(rows: list[list[float]], embedding: float = 0.0) -> CellPredictions:
    return CellPredictions(
        KEYS, (HEAD,), {"bird": np.array(rows, np.float32)}, np.full((len(KEYS), 2), embedding, np.float32)
    )


def test_a_piece_one_photo_sees_plainly_outweighs_one_that_sees_it_hidden() -> None:
    # Cell 0: hidden behind a miniature in the first photo (read near even), plain in the second. Cell 1:
    # bare in both.
    first = _predictions([[0.7, 0.3], [0.99, 0.01]], embedding=1.0)
    second = _predictions([[0.02, 0.98], [0.98, 0.02]], embedding=2.0)
    both = together([first, second])
    p = both.probabilities["bird"]
    assert p[0].argmax() == 1 and p[1].argmax() == 0
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
    # The geometric mean, normalised: sqrt(0.3 * 0.98) against sqrt(0.7 * 0.02).
    yes, no = np.sqrt(0.3 * 0.98), np.sqrt(0.7 * 0.02)
    assert p[0, 1] == pytest.approx(yes / (yes + no), rel=1e-5)
    assert both.keys == KEYS and both.embedding[0, 0] == 1.0


def test_a_class_one_photo_rules_out_at_zero_can_still_be_read_from_another() -> None:
    sure = _predictions([[1.0, 0.0], [1.0, 0.0]])
    seen = _predictions([[1e-9, 1.0], [1.0, 0.0]])
    p = together([sure, seen]).probabilities["bird"]
    assert np.isfinite(p).all()
    assert p[0, 1] == pytest.approx(0.5, abs=1e-3)


def test_cells_read_surely_otherwise_are_counted_once_each() -> None:
    first = CellPredictions(
        KEYS,
        (HEAD, Head("fish", ("no", "yes"))),
        {"bird": np.array([[0.95, 0.05], [0.95, 0.05]]), "fish": np.array([[0.95, 0.05], [0.6, 0.4]])},
        np.zeros((2, 2), np.float32),
    )
    # Cell 0 differs surely on both heads; cell 1 on the bird only surely, its fish unsure in the first.
    flipped = {"bird": np.array([[0.05, 0.95], [0.02, 0.98]]), "fish": np.array([[0.1, 0.9], [0.1, 0.9]])}
    other = replace(first, probabilities=flipped)
    assert sure_disagreements(first, other, 0.9) == 2
    assert sure_disagreements(first, first, 0.9) == 0
    assert sure_disagreements(first, other, 0.99) == 0


def test_a_photo_of_another_board_is_left_out_and_named() -> None:
    (first,), board = _views(0, 1)
    (second,), _ = _views(1, 1)
    (alone,) = score_image(first.decode(), GAME, board["state"], first.camera())
    (scored,) = score_image(first.decode(), GAME, board["state"], first.camera(), also=[second.decode()])
    (named,) = [f for f in scored.flags if f.startswith("photo 2 was left out")]
    assert "seems to show another board" in named
    # The first photo's board is read as from it alone.
    assert scored.state == alone.state


def test_photos_of_other_cells_are_not_read_together() -> None:
    other = CellPredictions(
        (("grid", 5, 5), ("grid", 0, 1)),
        (HEAD,),
        {"bird": np.full((2, 2), 0.5, np.float32)},
        np.zeros((2, 2), np.float32),
    )
    with pytest.raises(ValueError, match="different cells"):
        together([_predictions([[0.5, 0.5], [0.5, 0.5]]), other])


def _views(index: int, views: int) -> tuple[list[Photo], dict[str, Any]]:
    photos = [render_photo(SPEC, index, view) for view in range(views)]
    return photos, photos[0].truth["boards"][0]


def test_every_view_is_the_same_board_taken_by_the_same_camera_from_elsewhere() -> None:
    (first, second), board = _views(12, 2)
    # View 0 is the photo the set always had.
    assert first.jpeg == render_photo(SPEC, 12).jpeg
    assert second.truth["boards"][0]["state"] == board["state"]
    assert second.truth["camera"] == first.truth["camera"]
    assert second.truth["boards"][0]["corners_xy"] != board["corners_xy"]


def test_a_board_photographed_steeply_is_read_with_a_second_photo_from_above() -> None:
    # Benchmark photo 12 (Tang Garden): taken 41 degrees off straight above, where the miniatures hide what
    # the score needs (read alone, its score was wrong, flagged); its second view, 5 degrees off, sees it.
    (first, second), board = _views(12, 2)
    hand = board["state"]
    (scored,) = score_image(first.decode(), GAME, hand, first.camera(), also=[second.decode()])
    assert scored.reading.trusted
    assert _exact(GAME, board["state"], dict(scored.state))
    # Read from above too, the board is no longer flagged as seen only at a slant.
    assert not any("degrees off straight above" in f for f in scored.flags)
    # The reading is the first photo's board (its corners), with every photo's cells.
    truth = np.array(board["corners_xy"])
    assert np.abs(scored.reading.corners_xy - truth).max() < 0.02 * quad_size(truth)


def _reading(trusted: bool) -> tuple[BoardReading, dict[str, Any]]:
    """Photo 0's reading, as trusted as asked, and its hand entry."""
    (first,), board = _views(0, 1)
    (scored,) = score_image(first.decode(), GAME, board["state"], first.camera())
    return replace(scored.reading, trusted=trusted), board["state"]


def test_a_photo_whose_board_is_unclear_is_left_out_and_one_photo_stands_alone() -> None:
    good, hand = _reading(True)
    bad, _ = _reading(False)
    together = read_together({1: bad, 2: good}, hand)
    assert together.readings == good.readings and together.corners_xy is good.corners_xy
    assert "photo 1 was left out: its board is cut off or unclear there" in together.flags
    assert read_together({1: bad}) is bad
    with pytest.raises(ValueError, match="no photo"):
        read_together({})


def test_photos_of_boards_of_other_games_are_not_read_together() -> None:
    good, _ = _reading(True)
    other = replace(good, profile=replace(good.profile, game="alices-garden"))
    with pytest.raises(ValueError, match="different boards"):
        read_together({1: good, 2: other})


def test_score_reads_the_example_photos_of_one_board_together(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The bundled pair (the README's command): benchmark photo 12 and its second view, as above.
    views = example_views()["tang-garden"]
    folder = views[0].parent
    truth = json.loads((folder / "tang-garden.json").read_text())
    hand, camera = str(folder / "tang-garden.json"), str(folder / "camera.json")
    common = ("--game", GAME, "--hand", hand, "--calibration", camera, "--json")
    code, printed, _ = run_cli(capsys, "score", str(views[0]), "--also", str(views[1]), *common)
    assert code == 0
    (read,) = json.loads(printed)["boards"]
    assert _exact(GAME, truth, read["state"])
    # A second photo with no board in it is named, and the board read from the photos that show it.
    size = read_image(str(views[0])).shape
    blank = tmp_path / "table.png"
    cv2.imwrite(str(blank), np.full(size, (40, 110, 60), np.uint8))
    code, printed, _ = run_cli(capsys, "score", str(views[0]), "--also", str(blank), *common)
    assert code == 0
    (alone,) = json.loads(printed)["boards"]
    assert any(f.startswith("photo 2 was not read: no board found") for f in alone["flags"])
    # A first photo with no board is an error that names it.
    code, _, err = run_cli(capsys, "score", str(blank), "--also", str(views[1]), *common)
    assert code == 2 and "photo 1: no board found" in err


def test_the_bench_reads_each_board_from_as_many_photos_as_asked() -> None:
    one = run_bench(GAME, 1, 20261121, workers=1).table()
    two = run_bench(GAME, 1, 20261121, workers=1, views=2).table()
    assert one["views"] == 1 and two["views"] == 2
    assert "2 photos of each board read together" in format_table([two])
    assert "photos of each board" not in format_table([one])
    assert "degrees off straight above" not in format_table([two]).split("read together")[1]
    assert two["boards"] == one["boards"] == 1 and two["board_found_pct"] == 100.0


def test_the_bench_takes_the_further_photos_from_above_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    spec = RenderSpec((GAME,), 20261121)
    above = replace(spec, options=replace(spec.options, max_tilt_deg=5.0))
    profile = default_profile(GAME)
    slants = []
    for index in range(4):
        first, anywhere = _render((spec, spec, index, 2))
        same, second = _render((spec, above, index, 2))
        # The first photo and the boards are the bench's as ever; only the further photo's pose is drawn
        # nearer straight above.
        assert same.jpeg == first.jpeg
        assert second.truth["boards"][0]["state"] == anywhere.truth["boards"][0]["state"]
        slants.append(truth_slant_deg(profile, anywhere.truth["boards"][0], anywhere.camera()))
        assert truth_slant_deg(profile, second.truth["boards"][0], second.camera()) <= 5.0
    assert max(slants) > 5.0  # the further photos come from anywhere otherwise
    table = run_bench(GAME, 1, 20261121, workers=1, views=2, also_tilt_deg=5.0).table()
    assert table["also_tilt_deg"] == 5.0
    assert "the others from at most 5 degrees off straight above" in format_table([table])
    code, _, err = run_lab(capsys, "bench", "--game", GAME, "--count", "1", "--views-from-above", "5")
    assert code == 2 and "--views 2 or more" in err


def _grid(rows: int, cols: int, classes: list[int]) -> CellPredictions:
    """A grid's cells, each read surely as its class (row by row), one head of four classes."""
    keys = tuple(("grid", r, c) for r in range(rows) for c in range(cols))
    sure = np.full((len(keys), 4), 0.01, np.float32)
    sure[np.arange(len(keys)), classes] = 0.97
    head = Head("terrain", ("a", "b", "c", "d"))
    return CellPredictions(keys, (head,), {"terrain": sure}, np.arange(len(keys), dtype=np.float32)[:, None])


def _classes(predictions: CellPredictions) -> list[int]:
    return [int(i) for i in predictions.probabilities["terrain"].argmax(axis=1)]


def _turned_to(first: CellPredictions, other: CellPredictions, turns_freely: bool) -> CellPredictions | None:
    """``other``'s cells in ``first``'s order, as :func:`vision.pipeline.read_together` reads them."""
    order = turn_order(first, other, turns_freely)
    return None if order is None else reordered(other, first.keys, order)


def test_a_board_with_no_top_photographed_from_another_side_is_read_turned_back() -> None:
    # A 3 x 3 kingdom, and the same read from a photo taken a quarter turn round the table.
    grid = np.array([[0, 1, 2], [3, 0, 1], [2, 3, 3]])
    first = _grid(3, 3, grid.ravel().tolist())
    quarter = _grid(3, 3, np.rot90(grid, -1).ravel().tolist())
    turned = _turned_to(first, quarter, turns_freely=True)
    assert turned is not None and turned.keys == first.keys
    assert _classes(turned) == _classes(first)
    # The embedding follows its cells: the first's top-left cell is the quarter turn's top-right (2).
    assert turned.embedding[:, 0].tolist() == [2, 5, 8, 1, 4, 7, 0, 3, 6]
    # A board with a top is read as each photo's reading says.
    kept = _turned_to(first, quarter, turns_freely=False)
    assert kept is not None and _classes(kept) == _classes(quarter)
    # A grid of unequal sides turns only by halves.
    wide = np.array([[0, 1, 2], [3, 3, 0]])
    flipped = _grid(2, 3, wide[::-1, ::-1].ravel().tolist())
    half = _turned_to(_grid(2, 3, wide.ravel().tolist()), flipped, True)
    assert half is not None and _classes(half) == wide.ravel().tolist()
    # Other cells are another board.
    assert _turned_to(first, _grid(2, 3, wide.ravel().tolist()), turns_freely=True) is None


def test_a_kingdom_photographed_from_each_side_of_the_table_is_read_together() -> None:
    # The bundled kingdom's photo, and it turned half round (the photo of a player across the table): each
    # read alone gives the same score; read together, neither is taken for another board.
    photo = read_image(str(next(p for p in example_photos() if p.stem == "kingdomino")))
    (alone,) = score_image(photo, "kingdomino")
    across = np.ascontiguousarray(photo[::-1, ::-1])
    (other,) = score_image(across, "kingdomino")
    assert other.breakdown is not None and alone.breakdown is not None
    assert other.breakdown.total == alone.breakdown.total and other.state != alone.state
    (both,) = score_image(photo, "kingdomino", also=[across])
    assert not any("left out" in f for f in both.flags)
    assert both.state == alone.state and both.breakdown == alone.breakdown


def _glared(
    photo: np.ndarray, corners: np.ndarray, squares: list[tuple[int, int]], white: float = 0.9
) -> np.ndarray:
    """``photo`` with a glare washing out ``squares`` (row, column) of the 5 x 5 kingdom at ``corners``,
    each pixel ``white`` of the way to white."""
    grid = np.array([[0, 0], [5, 0], [5, 5], [0, 5]], np.float32)
    to_photo = cv2.getPerspectiveTransform(grid, corners.astype(np.float32))
    out = photo.astype(np.float32)
    for r, c in squares:
        square = np.array([[[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]]], np.float32)
        mask = np.zeros(photo.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(cv2.perspectiveTransform(square, to_photo)[0]).astype(np.int32), 1)
        out[mask > 0] = white * 250 + (1 - white) * out[mask > 0]
    return out.astype(np.uint8)


def test_a_kingdoms_squares_a_glare_washes_out_are_read_from_the_photo_without_it() -> None:
    # Five squares with crowns washed out by a lamp in one photo read as crownless, surely: read with a clean
    # second photo by the plain geometric mean, the kingdom scored 10 for 28. Each photo's square weighs by
    # how little of it the glare washes out: the clean photo's crowns stand, whichever photo comes first.
    path = next(p for p in example_photos() if p.stem == "kingdomino")
    photo = read_image(str(path))
    corners = np.array(json.loads(path.with_suffix(".json").read_text())["boards"][0]["corners_xy"])
    glared = _glared(photo, corners, [(1, 0), (3, 3), (2, 0), (0, 0), (2, 2)])
    (clean,) = score_image(photo, "kingdomino")
    (washed,) = score_image(glared, "kingdomino")
    assert clean.breakdown is not None and washed.breakdown is not None
    assert washed.breakdown.total < clean.breakdown.total - 10
    for first, second in ((glared, photo), (photo, glared)):
        (both,) = score_image(first, "kingdomino", also=[second])
        assert both.breakdown is not None and both.breakdown.total == clean.breakdown.total


def test_squares_a_glare_washes_out_are_no_sign_of_another_board() -> None:
    # A second photo whose glare washed 6 of the kingdom's 25 squares almost white, each read surely as
    # something else than the first photo reads it, was left out as "another board" (6 > a fifth of 25), and
    # the first photo's reading stood alone. Washed out, those squares say nothing: the photo is kept, and
    # they are read from the first.
    photo = read_image(str(next(p for p in example_photos() if p.stem == "kingdomino")))
    (alone,) = score_image(photo, "kingdomino")
    first = alone.reading
    washed = [("grid", 0, 0), ("grid", 1, 0), ("grid", 2, 2), ("grid", 3, 3), ("grid", 4, 2), ("grid", 0, 4)]
    picture = first.rectified.image_bgr.copy()
    s = first.rectified.frame.px_per_mm
    chances = {k: v.copy() for k, v in first.predictions.probabilities.items()}
    for key in washed:
        x0, y0, x1, y1 = cell_rect_mm(first.profile.region("grid"), key[1], key[2])
        picture[round(y0 * s) : round(y1 * s), round(x0 * s) : round(x1 * s)] = 245
        i = first.predictions.keys.index(key)
        for p in chances.values():  # surely the class after the one the first photo reads
            other = (int(p[i].argmax()) + 1) % p.shape[1]
            p[i, :] = 0.0
            p[i, other] = 1.0
    glared = replace(
        first,
        rectified=replace(first.rectified, image_bgr=picture),
        predictions=replace(first.predictions, probabilities=chances),
    )
    both = read_together({1: first, 2: glared})
    assert not any("left out" in f for f in both.flags)
    assert both.state == first.state


def test_a_photo_of_a_kingdom_found_at_another_size_is_left_out_not_refused() -> None:
    # With no size set, one photo may find a kingdom 5 x 5 and another 7 x 7: the first photo's stands.
    photo = read_image(str(next(p for p in example_photos() if p.stem == "kingdomino")))
    (alone,) = score_image(photo, "kingdomino")
    seven = sized_for(alone.reading.profile, {"setup": {"size": 7}})
    assert seven.regions[0].rows == 7
    larger = replace(alone.reading, profile=seven)
    together = read_together({1: alone.reading, 2: larger})
    assert together.state == alone.reading.state
    assert "photo 2 was left out: its board was read as 7 x 7 cells, photo 1's as 5 x 5 cells" in (
        together.flags
    )


def test_a_further_photo_of_several_boards_is_left_out_and_named() -> None:
    (first,), board = _views(0, 1)
    several = render_photo(replace(SPEC, boards=2), 3)
    (alone,) = score_image(first.decode(), GAME, board["state"], first.camera())
    (scored,) = score_image(
        first.decode(), GAME, board["state"], first.camera(), also=[several.decode(), first.decode()]
    )
    assert scored.state == alone.state
    assert (
        "photo 2 was left out: it shows 2 boards, and photos read together must each show the one board alone"
        in scored.flags
    )
    assert not any(f.startswith("photo 3") for f in scored.flags)
    # A first photo of several boards read with others: which board is meant is not known.
    with pytest.raises(ValueError, match="photo 1 shows 2 boards"):
        score_image(several.decode(), GAME, board["state"], several.camera(), also=[first.decode()])
