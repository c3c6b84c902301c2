"""The second look at cells read unsure: read again from crops cut a little off their place, averaged."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import BoardFrame, CellKey
from vision.profile import default_profile
from vision.read.cells import CellGrid, cut_cells
from vision.read.classify import CellPredictions, look_shifted, unsure_rows
from vision.read.rectify import Rectified
from vision.reader_api import Head, ShiftedLook

HEADS: tuple[Head, ...] = (Head("thing", ("no", "yes")), Head("piece", ("none", "a")))
LOOK = ShiftedLook(1.0, 0.99, skip=("piece",))
SIZE = 8
KEYS: tuple[CellKey, ...] = (("grid", 0, 0), ("grid", 0, 1), ("grid", 0, 2), ("slot", 0, 0))


def region_heads(region: str) -> tuple[str, ...]:
    # Only the piece means something on a slot: what the thing head says there is never read.
    return ("thing", "piece") if region == "grid" else ("piece",)


class BrightReader:
    """Reads the thing as there with a crop's mean brightness, the piece always unsure. Counts its crops."""

    game = "test"
    heads = HEADS
    crop_px = SIZE
    context_mm = 0.0
    lean_up = False
    model_id = "bright-reader"

    def __init__(self) -> None:
        self.read: list[int] = []

    def classify(self, cells: CellGrid) -> CellPredictions:
        self.read.append(len(cells.keys))
        bright = cells.crops_bgr.mean(axis=(1, 2, 3)) / 255
        thing = np.column_stack([1 - bright, bright])
        piece = np.tile([0.5, 0.5], (len(bright), 1))
        return CellPredictions(
            cells.keys,
            HEADS,
            {"thing": thing.astype(np.float32), "piece": piece.astype(np.float32)},
            np.zeros((len(bright), 2), np.float32),
        )


def _crops(levels: list[float]) -> np.ndarray:
    return np.stack([np.full((SIZE, SIZE, 3), round(v * 255), np.uint8) for v in levels])


# Each cell's brightness as its own crop shows it: sure there, unsure, sure not, and a slot's unsure thing.
OWN = {KEYS[0]: 1.0, KEYS[1]: 0.4, KEYS[2]: 0.0, KEYS[3]: 0.4}


def test_only_cells_unsure_on_their_regions_heads_are_read_again_and_averaged() -> None:
    reader = BrightReader()
    cuts: list[tuple[frozenset[CellKey], tuple[tuple[float, float], ...]]] = []

    def cut(keys: frozenset[CellKey], offsets: tuple[tuple[float, float], ...]) -> CellGrid:
        cuts.append((keys, offsets))
        chosen = [(k, x, y) for x, y in offsets for k in KEYS if k in keys]
        # Cut down and to the right, the thing shows more (it lies near that corner).
        return CellGrid(
            _crops([OWN[k] + (0.4 if x > 0 and y > 0 else 0.0) for k, x, y in chosen]),
            tuple(k for k, _, _ in chosen),
        )

    once = reader.classify(CellGrid(_crops([OWN[k] for k in KEYS]), KEYS))
    assert unsure_rows(once, LOOK, region_heads).tolist() == [1]
    again = look_shifted(reader, once, LOOK, region_heads, cut)
    assert reader.read == [4, 4]  # the one unsure cell, at four offsets in one call
    assert cuts == [(frozenset({KEYS[1]}), ((1.0, 1.0), (-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0)))]
    # Its own reading and the four moved ones, 0.4, 0.8, 0.4, 0.4, 0.4, averaged.
    np.testing.assert_allclose(again.probabilities["thing"][1], [0.52, 0.48], atol=0.01)
    for row in (0, 2, 3):
        np.testing.assert_array_equal(again.probabilities["thing"][row], once.probabilities["thing"][row])
    np.testing.assert_array_equal(again.probabilities["piece"], once.probabilities["piece"])
    np.testing.assert_array_equal(again.embedding, once.embedding)


def test_a_board_read_surely_is_read_once() -> None:
    reader = BrightReader()
    once = reader.classify(CellGrid(_crops([1.0, 0.0]), KEYS[:2]))

    def cut(keys: frozenset[CellKey], offsets: tuple[tuple[float, float], ...]) -> CellGrid:
        raise AssertionError("no cell is unsure: nothing to cut again")

    assert look_shifted(reader, once, LOOK, region_heads, cut) is once
    assert reader.read == [2]


@pytest.mark.parametrize("offset", [(1.0, 1.0), (-1.5, 0.5)])
def test_a_cell_cut_off_its_place_shows_the_board_moved_the_other_way(offset: tuple[float, float]) -> None:
    profile = default_profile("sanssouci")
    frame = BoardFrame(profile, 2.0)
    w, h = frame.size_wh
    image = np.random.default_rng(4).integers(0, 256, (h, w, 3), dtype=np.uint8)
    rect = Rectified(image, frame, np.eye(3))
    dx, dy = (round(v * frame.px_per_mm) for v in offset)
    moved = Rectified(np.roll(image, (-dy, -dx), axis=(0, 1)), frame, np.eye(3))
    key = ("grid", 2, 3)  # well inside the board: what the roll wraps round stays out of its crop
    shifted = cut_cells(rect, ("grid",), 14.0, 64, offsets_mm=((0.0, 0.0), offset), only=frozenset({key}))
    assert shifted.keys == (key, key)
    plain = cut_cells(rect, ("grid",), 14.0, 64)
    np.testing.assert_array_equal(shifted.crops_bgr[0], plain.crops_bgr[plain.keys.index(key)])
    plain = cut_cells(moved, ("grid",), 14.0, 64)
    np.testing.assert_array_equal(shifted.crops_bgr[1], plain.crops_bgr[plain.keys.index(key)])
