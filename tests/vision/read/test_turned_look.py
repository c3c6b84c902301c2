"""The second look at cells that may hold a piece: read again turned by quarters and averaged."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read.cells import CellGrid
from vision.read.classify import CellPredictions, look_along_lean, look_turned
from vision.reader_api import COMPASS, Head, TurnedLook

HEADS: tuple[Head, ...] = (
    Head("piece", ("none", "a", "b")),
    Head("facing", COMPASS),
    Head("shade", ("light", "dark")),
)
LOOK = TurnedLook("piece", "none", compass=("facing",), unturned=("piece",))
SIZE = 12


class EdgeReader:
    """Reads a crop's facing from which edge is bright (top N, right E, bottom S, left W), with ``bias`` more
    belief in whatever lies at the crop's top, as a model that learnt one way up better would; a piece is
    there when anything is bright, an ``a`` when the bright bar is long. Counts the crops it reads."""

    game = "test"
    heads: tuple[Head, ...] = HEADS
    crop_px = SIZE
    context_mm = 0.0
    lean_up = False
    model_id = "edge-reader"

    def __init__(self, bias: float) -> None:
        self.bias = bias
        self.read: list[int] = []

    def classify(self, cells: CellGrid) -> CellPredictions:
        crops = cells.crops_bgr[..., 0].astype(np.float64) / 255
        self.read.append(len(crops))
        edges = np.stack(
            [crops[:, 0].mean(1), crops[:, :, -1].mean(1), crops[:, -1].mean(1), crops[:, :, 0].mean(1)], 1
        )
        facing = edges + 1e-6  # an unlit crop faces nowhere in particular
        facing /= facing.sum(1, keepdims=True)
        facing[:, 0] += self.bias
        facing /= facing.sum(1, keepdims=True)
        lit = crops.max((1, 2)) > 0.5
        long = edges.max(1) > 0.8
        piece = np.where(
            lit[:, None], np.where(long[:, None], [0.1, 0.7, 0.2], [0.1, 0.2, 0.7]), [0.9, 0.05, 0.05]
        )
        shade = np.tile([0.3, 0.7], (len(crops), 1))
        probabilities = {"piece": piece, "facing": facing, "shade": shade}
        return CellPredictions(
            cells.keys,
            HEADS,
            {k: v.astype(np.float32) for k, v in probabilities.items()},
            np.zeros((len(crops), 4), np.float32),
        )


def _crop(edge: str | None, length: int = SIZE) -> np.ndarray:
    crop = np.zeros((SIZE, SIZE, 3), np.uint8)
    if edge == "N":
        crop[0, :length] = 255
    elif edge == "E":
        crop[:length, -1] = 255
    elif edge == "S":
        crop[-1, :length] = 255
    elif edge == "W":
        crop[:length, 0] = 255
    return crop


def _cells(*edges: str | None) -> CellGrid:
    return CellGrid(np.stack([_crop(e) for e in edges]), tuple(("grid", 0, i) for i in range(len(edges))))


@pytest.mark.parametrize("facing", COMPASS)
def test_a_bias_towards_the_crops_top_averages_out_over_four_turns(facing: str) -> None:
    reader = EdgeReader(bias=3.0)
    cells = _cells(facing)
    once = reader.classify(cells)
    assert COMPASS[int(once.probabilities["facing"][0].argmax())] == "N"  # one look sees its own bias
    turned = look_turned(reader, cells, once, LOOK)
    facing_p = turned.probabilities["facing"][0]
    assert COMPASS[int(facing_p.argmax())] == facing
    assert facing_p.sum() == pytest.approx(1.0, abs=1e-5)


def test_only_cells_that_may_hold_a_piece_are_read_again_and_other_heads_stay() -> None:
    reader = EdgeReader(bias=0.0)
    cells = _cells(None, "E", None, "W")
    once = reader.classify(cells)
    turned = look_turned(reader, cells, once, LOOK)
    assert reader.read == [4, 6]  # the two lit cells, three more times in one call
    for name in ("piece", "facing"):
        np.testing.assert_array_equal(turned.probabilities[name][[0, 2]], once.probabilities[name][[0, 2]])
    np.testing.assert_array_equal(turned.probabilities["shade"], once.probabilities["shade"])
    np.testing.assert_array_equal(turned.embedding, once.embedding)
    assert [COMPASS[int(p.argmax())] for p in turned.probabilities["facing"][[1, 3]]] == ["E", "W"]


def test_an_unturned_head_is_the_mean_of_its_four_readings() -> None:
    class TurnSensitive(EdgeReader):
        """Reads a piece ``a`` only when its bar lies along the crop's top."""

        def classify(self, cells: CellGrid) -> CellPredictions:
            out = super().classify(cells)
            top = cells.crops_bgr[:, 0, :, 0].mean(1) > 128
            piece = np.where(top[:, None], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]).astype(np.float32)
            return CellPredictions(out.keys, out.heads, {**out.probabilities, "piece": piece}, out.embedding)

    reader = TurnSensitive(bias=0.0)
    cells = _cells("S")
    turned = look_turned(reader, cells, reader.classify(cells), LOOK)
    np.testing.assert_allclose(turned.probabilities["piece"][0], [0.0, 0.25, 0.75])


def test_no_cell_with_a_piece_means_no_second_look() -> None:
    reader = EdgeReader(bias=0.0)
    cells = _cells(None, None)
    once = reader.classify(cells)
    assert look_turned(reader, cells, once, LOOK) is once
    assert reader.read == [2]


def test_a_compass_head_must_name_the_four_directions_clockwise() -> None:
    reader = EdgeReader(bias=0.0)
    cells = _cells("N")
    with pytest.raises(ValueError, match="turns as a compass"):
        look_turned(reader, cells, reader.classify(cells), TurnedLook("piece", "none", compass=("shade",)))


def test_a_look_naming_a_head_the_model_lacks_is_refused() -> None:
    reader = EdgeReader(bias=0.0)
    cells = _cells("N")
    with pytest.raises(ValueError, match="no head 'colour'"):
        look_turned(reader, cells, reader.classify(cells), TurnedLook("piece", "none", unturned=("colour",)))


def test_the_compass_is_read_again_from_the_moved_crops_of_the_cells_that_hold_a_piece() -> None:
    """The first cell's own crop shows its piece facing N, an "a" (a long bar); moved along the lean it shows
    a "b" facing E. The facing is the moved crop's; the piece, which each crop shows a part of, the average
    of both readings; the shade the own crop's. An empty cell is not cut again."""
    reader = EdgeReader(bias=0.0)
    cells = _cells("N", None)
    once = look_turned(reader, cells, reader.classify(cells), LOOK)
    asked: list[tuple[tuple[str, int, int], ...]] = []

    def moved(keys: tuple[tuple[str, int, int], ...]) -> CellGrid:
        asked.append(keys)
        return CellGrid(np.stack([_crop("E", length=4)] * len(keys)), keys)

    after = look_along_lean(reader, once, LOOK, moved)
    assert asked == [(("grid", 0, 0),)]
    assert COMPASS[int(after.probabilities["facing"][0].argmax())] == "E"
    np.testing.assert_array_equal(after.probabilities["facing"][1], once.probabilities["facing"][1])
    np.testing.assert_allclose(after.probabilities["piece"][0], [0.1, (0.7 + 0.2) / 2, (0.2 + 0.7) / 2])
    np.testing.assert_array_equal(after.probabilities["piece"][1], once.probabilities["piece"][1])
    np.testing.assert_array_equal(after.probabilities["shade"], once.probabilities["shade"])


def test_only_the_looks_regions_are_read_again() -> None:
    """A cell outside the regions where pieces stand (a landscape slot) is not read again, whatever the
    untaught gate head says there."""
    reader = EdgeReader(bias=0.0)
    crops = np.stack([_crop("N"), _crop("E")])
    cells = CellGrid(crops, (("grid", 0, 0), ("slot", 0, 0)))
    look = TurnedLook("piece", "none", compass=("facing",), unturned=("piece",), regions=("grid",))
    once = reader.classify(cells)
    turned = look_turned(reader, cells, once, look)
    assert reader.read == [2, 3]
    np.testing.assert_array_equal(turned.probabilities["facing"][1], once.probabilities["facing"][1])
