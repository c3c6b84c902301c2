"""The board-mask stage: outlines from masks (pure geometry) and the shipped model on rendered photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from device.photo import load_segmenter
from lab.bench import FOUND_TOLERANCE, reshaped_profile
from lab.bench_own_copy import CopyRun, table_photo
from lab.synth.art import TRAINING_PACKS
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from lab.train.segment_data import FULL, IGNORE, board_size_mm, face_outline
from lab.train.segment_data import example as mask_example
from vision.geometry import quad_size
from vision.locate.board import MERGED_SOLID, locate, segmented_quads
from vision.locate.mask import BoardMasks, BoardSegmenter, input_size, outlines, segment_input
from vision.profile import default_profile


def _masks(
    boards: list[np.ndarray], size_wh: tuple[int, int] = (2304, 1296), inset: float = 0.1
) -> BoardMasks:
    """Masks as a perfect model would draw them for boards given by their corners (photo pixels)."""
    width, height, scale = input_size(size_wh)
    board = np.zeros((height, width), np.float32)
    core = np.zeros((height, width), np.float32)
    for corners in boards:
        small = (corners + 0.5) * scale - 0.5
        cv2.fillPoly(board, [np.round(small * 16).astype(np.int32)], 1.0, cv2.LINE_8, 4)
        centre = small.mean(axis=0)
        shrunk = centre + (small - centre) * (1 - 2 * inset)
        cv2.fillPoly(core, [np.round(shrunk * 16).astype(np.int32)], 1.0, cv2.LINE_8, 4)
    return BoardMasks(board, core, scale, size_wh)


def _error(found: np.ndarray, truth: np.ndarray) -> float:
    return min(float(np.max(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1))) for k in range(4))


def test_input_is_the_photo_scaled_to_the_model_width_and_padded() -> None:
    assert input_size((2304, 1296)) == (256, 144, 256 / 2304)
    assert input_size((4000, 3000))[:2] == (256, 192)
    image = np.full((1000, 1400, 3), 200, np.uint8)
    small, scale = segment_input(image)
    assert small.shape == (192, 256, 3)
    assert scale == pytest.approx(256 / 1400)
    # The photo's 183 rows are kept, the padding below them is black.
    assert small[:183].min() == 200 and small[183:].max() == 0


def test_a_board_outline_is_traced_to_within_a_few_photo_pixels() -> None:
    truth = np.array([(700.0, 300.0), (1400.0, 380.0), (1330.0, 1050.0), (640.0, 980.0)])
    (outline,) = outlines(_masks([truth]))
    assert not outline.cut
    # A model pixel is 9 photo pixels: the traced outline is within one (the edge search places it finer).
    assert _error(outline.corners_xy, truth) < 9.0


def test_boards_laid_edge_to_edge_are_told_apart_by_their_cores() -> None:
    left = np.array([(400.0, 300.0), (1000.0, 300.0), (1000.0, 900.0), (400.0, 900.0)])
    right = left + np.array([602.0, 0.0])  # two photo pixels apart: one blob in the face map
    masks = _masks([left, right])
    n, _ = cv2.connectedComponents((masks.board > 0.5).astype(np.uint8))
    assert n - 1 == 1
    found = outlines(masks)
    assert len(found) == 2
    for truth in (left, right):
        assert min(_error(o.corners_xy, truth) for o in found) < 13.5


def test_boards_joined_across_their_gap_fill_little_of_their_outline() -> None:
    single = np.array([(400.0, 300.0), (1000.0, 300.0), (1000.0, 900.0), (400.0, 900.0)])
    (alone,) = outlines(_masks([single], (4032, 3024)))
    assert alone.solid > MERGED_SOLID
    # Two boards a hand apart, one further down, the mask running across the gap between them (both maps),
    # as the shipped model draws gardens laid close on one table.
    other = single + np.array([700.0, 150.0])
    bridge = np.array([(1000.0, 500.0), (1100.0, 500.0), (1100.0, 800.0), (1000.0, 800.0)])
    (joined,) = outlines(_masks([single, other, bridge], (4032, 3024), inset=0.0))
    assert joined.solid < MERGED_SOLID


def test_a_board_running_off_the_photo_is_cut() -> None:
    truth = np.array([(1900.0, 300.0), (2600.0, 300.0), (2600.0, 1000.0), (1900.0, 1000.0)])
    (outline,) = outlines(_masks([truth]))
    assert outline.cut


def test_a_board_whose_glow_alone_touches_the_photos_edge_is_not_cut() -> None:
    # 33 photo pixels from the right edge (under four of the map's): the face map's glow runs on to the edge
    # along a stretch of the side, as the shipped model draws a board near the bottom edge; its outline does
    # not.
    truth = np.array([(1500.0, 300.0), (2270.0, 300.0), (2270.0, 1000.0), (1500.0, 1000.0)])
    masks = _masks([truth])
    masks.board[60:80, -4:] = 1.0
    (outline,) = outlines(masks)
    assert not outline.cut
    assert _error(outline.corners_xy, truth) < 9.0


def test_specks_and_an_empty_map_are_no_boards() -> None:
    assert outlines(_masks([])) == []
    speck = np.array([(1000.0, 600.0), (1020.0, 600.0), (1020.0, 620.0), (1000.0, 620.0)])
    assert outlines(_masks([speck], inset=0.0)) == []


def test_training_masks_trace_the_rendered_face() -> None:
    # The mask a board is taught with runs along the truth's corners (the lens bends the sides between).
    photo = render_photo(RenderSpec(("sanssouci",), 4), 0)
    board = photo.truth["boards"][0]
    outline = face_outline(board, photo.camera())
    for corner in board["corners_xy"]:
        assert np.min(np.linalg.norm(outline - corner, axis=1)) < 0.5
    assert board_size_mm(board) == default_profile("sanssouci").size_mm


def test_a_training_photo_teaches_each_face_and_its_core() -> None:
    image, target = mask_example((1, 3, TRAINING_PACKS))  # photo 3 of a set: two boards
    assert image.shape == (144, 256, 3) and target.shape == (2, 144, 256)
    faces, cores = target[0] > 0, target[1] > 0
    # Every core lies inside its face, a tenth of the board's size in from its sides.
    assert cores.any() and not (cores & ~faces).any()
    assert 0.3 < cores.sum() / faces.sum() < 0.8
    # A pixel an edge crosses is taught the share of it the face covers.
    taught = target[target != IGNORE]
    assert taught.max() == FULL and ((taught > 0) & (taught < FULL)).any()


GAMES = ("alices-garden", "sanssouci", "zen-garden", "four-gardens", "tang-garden")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [31, 32])
def test_the_shipped_model_finds_every_games_board(game: str, seed: int) -> None:
    photo = render_photo(RenderSpec((game,), seed, options=PhotoOptions()), 0)
    truth = np.array(photo.truth["boards"][0]["corners_xy"])
    camera = photo.camera()
    quads = segmented_quads(photo.decode(), load_segmenter(), camera)
    assert len(quads) == 1
    assert quads[0].in_frame and quads[0].method == "mask"
    assert _error(quads[0].corners_xy, truth) < FOUND_TOLERANCE * quad_size(truth)


def test_the_shipped_model_finds_boards_laid_side_by_side() -> None:
    photo = render_photo(RenderSpec(GAMES, 12, boards=3, options=PhotoOptions()), 1)
    camera = photo.camera()
    quads = locate(photo.decode(), camera, segmenter=load_segmenter())
    assert len(quads) == 3
    for board in photo.truth["boards"]:
        truth = np.array(board["corners_xy"])
        assert min(_error(q.corners_xy, truth) for q in quads) < FOUND_TOLERANCE * quad_size(truth)


def test_gardens_laid_close_that_the_mask_joins_are_found_apart() -> None:
    # An own copy's whole table (the own-copy bench's copy 4, its 17th table): four gardens a few fingers
    # apart, that the board-mask model outlines as one board of about their copy's shape.
    run = CopyRun("zen-garden", 4)
    copy = reshaped_profile(run.game, run.copy)
    photo = table_photo(run, copy, 17)
    image = photo.decode()
    assert len(load_segmenter().outlines(image)) == 1
    quads = locate(image, None, (copy.size_mm[0] / copy.size_mm[1],), segmenter=load_segmenter())
    assert len(quads) == 4
    for board in photo.truth["boards"]:
        truth = np.array(board["corners_xy"])
        assert min(_error(q.corners_xy, truth) for q in quads) < FOUND_TOLERANCE * quad_size(truth)


def test_an_empty_table_has_no_board_mask() -> None:
    table = np.full((900, 1600, 3), (60, 110, 40), np.uint8)
    table += np.random.default_rng(0).integers(0, 6, table.shape, dtype=np.uint8)
    assert load_segmenter().outlines(table) == []


def test_a_board_mask_model_trains_exports_and_loads(tmp_path: Path) -> None:
    # The recipe end to end on a few photos (needs the train extra; CI runs without it).
    pytest.importorskip("torch")
    from lab.train.boards import BoardsConfig, export_boards, fit
    from lab.train.segment_data import build_masks

    config = BoardsConfig(photos=4, val_photos=2, epochs=1, batch=2)
    data = build_masks(config.seed, config.photos, TRAINING_PACKS, workers=1)
    val = build_masks(config.val_seed, config.val_photos, TRAINING_PACKS, workers=1)
    assert data.images.shape == (4, 144, 256, 3) and data.targets.shape == (4, 2, 144, 256)
    net = fit(data, val, config, log=lambda _: None)
    path = tmp_path / "boards.onnx"
    export_boards(net, val, config, 1.0, path)
    segmenter = BoardSegmenter(path)
    # Any photo shape: the model's input height follows the photo's.
    for shape in ((1296, 2304, 3), (900, 1200, 3)):
        masks = segmenter.masks(np.zeros(shape, np.uint8))
        assert masks.board.shape == input_size((shape[1], shape[0]))[1::-1]
    assert "intersection over union" in path.with_suffix(".md").read_text()
