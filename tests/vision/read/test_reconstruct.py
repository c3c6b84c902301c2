"""Cells read together where the board says how many pieces they hold (vision.read.reconstruct.settle)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.profile import default_profile
from vision.read.classify import CellPredictions
from vision.read.reconstruct import PLACED_BY_COUNT, apart, settle
from vision.reader_api import (
    Counted,
    Distinct,
    Head,
    Known,
    Needs,
    OneEach,
    OneOf,
    Summed,
    Touching,
    likeliest,
)
from vision.readers import get_reader

MARKER = Head("marker", (".", "m"))
NOBLE = Head("noble", ("none", "red", "blue"))
FIGURE = Head("character", ("none", "emperor", "monk", "poet"))


def _predictions(heads: tuple[Head, ...], rows: dict[str, list[list[float]]]) -> CellPredictions:
    n = len(next(iter(rows.values())))
    keys = tuple(("coins", 0, c) for c in range(n))
    probabilities = {name: np.array(p, np.float32) for name, p in rows.items()}
    return CellPredictions(keys, heads, probabilities, np.zeros((n, 4), np.float32))


def test_a_faint_second_marker_gives_way_to_a_sure_one() -> None:
    pred = _predictions((MARKER,), {"marker": [[0.99, 0.01], [0.4, 0.6], [0.01, 0.99], [0.98, 0.02]]})
    group = OneOf("marker", ".", pred.keys)
    readings = settle(pred, [group]).readings()
    assert [readings[k]["marker"][0] for k in pred.keys] == [".", ".", "m", "."]
    # Odds 1.5 against 99 (and 0.01, 0.02): the sure space holds the marker with 98.5 %.
    assert readings[pred.keys[2]]["marker"][1] == pytest.approx(99 / (99 + 1.5 + 1 / 99 + 2 / 98), rel=1e-4)
    assert likeliest(readings, group) == 2


def test_the_likeliest_space_holds_the_marker_even_when_none_reads_it() -> None:
    # No space is above one half; the marker is still on the track, where it is likeliest.
    rows = [[0.95, 0.05]] * 6 + [[0.6, 0.4]] + [[0.95, 0.05]] * 5
    pred = _predictions((MARKER,), {"marker": rows})
    group = OneOf("marker", ".", pred.keys)
    settled = settle(pred, [group])
    readings = settled.readings()
    assert likeliest(readings, group) == 6
    np.testing.assert_allclose(settled.probabilities["marker"].sum(axis=1), 1.0, rtol=1e-6)


def test_a_cell_keeps_its_own_split_between_the_pieces_classes() -> None:
    pred = _predictions(
        (NOBLE,), {"noble": [[0.3, 0.6, 0.1], [0.9, 0.05, 0.05], [1.0, 0.0, 0.0], [0.5, 0.1, 0.4]]}
    )
    settled = settle(pred, [OneOf("noble", "none", pred.keys[:3])]).probabilities["noble"]
    assert settled[0, 1] / settled[0, 2] == pytest.approx(6.0, rel=1e-5)
    # Sure to be empty: no colour of its own, and its row still sums to one.
    assert settled[2].sum() == pytest.approx(1.0, rel=1e-6)
    assert settled[2, 0] > 0.999
    # Not in the group: as the classifier read it.
    np.testing.assert_array_equal(settled[3], pred.probabilities["noble"][3])
    assert settle(pred, []) is pred


def test_two_cells_read_as_one_unique_piece_hold_it_and_the_next_likeliest() -> None:
    pred = _predictions(
        (FIGURE,),
        {
            "character": [
                [0.02, 0.90, 0.05, 0.03],  # the emperor, surely
                [0.05, 0.60, 0.30, 0.05],  # the emperor again, or else the monk
                [0.97, 0.02, 0.01, 0.00],  # nobody
                [0.10, 0.50, 0.10, 0.30],  # in no group: left alone
            ]
        },
    )
    settled = settle(pred, [], [Distinct("character", "none", pred.keys[:3])])
    readings = settled.readings()
    assert [readings[k]["character"][0] for k in pred.keys] == ["emperor", "monk", "none", "emperor"]
    # Knowing the emperor stands elsewhere, the second cell is the monk with 0.30 / (0.05 + 0.30 + 0.05).
    assert readings[pred.keys[1]]["character"][1] == pytest.approx(0.30 / 0.40, rel=1e-5)
    p = settled.probabilities["character"]
    np.testing.assert_allclose(p[:3].sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(p[3], pred.probabilities["character"][3])


def test_distinct_pieces_are_arranged_for_the_likeliest_board_not_cell_by_cell() -> None:
    # Greedy, the surer emperor (0.60) would leave the other cell at 0.15 whatever it took: 0.09 in all.
    # Swapped, 0.40 (the monk) times 0.55 (the emperor) is 0.22.
    pred = _predictions((FIGURE,), {"character": [[0.0, 0.60, 0.40, 0.0], [0.15, 0.55, 0.15, 0.15]]})
    readings = settle(pred, [], [Distinct("character", "none", pred.keys)]).readings()
    assert [readings[k]["character"][0] for k in pred.keys] == ["monk", "emperor"]


def test_a_piece_nobody_owns_is_read_as_the_likeliest_owned_one_or_none() -> None:
    pred = _predictions(
        (FIGURE,), {"character": [[0.05, 0.70, 0.20, 0.05], [0.60, 0.35, 0.0, 0.05], [0.01, 0.95, 0.0, 0.04]]}
    )
    owned = Distinct("character", "none", pred.keys, frozenset({"monk", "poet"}))
    readings = settle(pred, [], [owned]).readings()
    assert [readings[k]["character"][0] for k in pred.keys] == ["monk", "none", "poet"]
    # Neither the emperor (nobody owns him) nor the poet (the third cell holds him): the monk, 0.20 / 0.25.
    assert readings[pred.keys[0]]["character"][1] == pytest.approx(0.20 / 0.25, rel=1e-5)


def test_an_owner_keeps_one_piece_off_the_board_so_its_others_stand_on_it() -> None:
    """Ann owns the emperor and the monk and keeps one on her card; neither is read anywhere, so one of them
    stands on the board: the monk, whose likeliest cell (the second) shows him at 0.30 against the
    emperor's best 0.10. Bo owns the poet alone, read nowhere: on his card. The placed cell reads the monk
    only just (``PLACED_BY_COUNT``), so it is flagged."""
    pred = _predictions(
        (FIGURE,),
        {
            "character": [
                [0.85, 0.10, 0.03, 0.02],
                [0.65, 0.03, 0.30, 0.02],
                [0.90, 0.05, 0.02, 0.03],
            ]
        },
    )
    owners = (frozenset({"emperor", "monk"}), frozenset({"poet"}))
    kept = Distinct("character", "none", pred.keys, frozenset().union(*owners), owners)
    readings = settle(pred, [], [kept]).readings()
    assert [readings[k]["character"][0] for k in pred.keys] == ["none", "monk", "none"]
    assert readings[pred.keys[1]]["character"][1] == pytest.approx(PLACED_BY_COUNT)
    # Read on the board already, the monk leaves the emperor on Ann's card: nothing is placed.
    seen = _predictions((FIGURE,), {"character": [[0.85, 0.10, 0.03, 0.02], [0.2, 0.0, 0.8, 0.0]]})
    readings = settle(seen, [], [Distinct("character", "none", seen.keys, owners[0], owners[:1])]).readings()
    assert [readings[k]["character"][0] for k in seen.keys] == ["none", "monk"]


def test_an_owner_seen_with_every_piece_on_the_board_keeps_its_least_likely_one_on_its_card() -> None:
    """Ann owns the emperor and the monk, read surely on the first cell and faintly (0.55, or the poet at
    0.40) on the second: one of hers is on her card, so the second cell holds Bo's poet, whom he must have
    standing (he owns the poet and the lady, and keeps one of them). The turned cell is flagged."""
    cast = Head("character", (*FIGURE.classes, "lady"))
    pred = _predictions(
        (cast,),
        {
            "character": [
                [0.05, 0.90, 0.03, 0.02, 0.0],
                [0.03, 0.02, 0.55, 0.40, 0.0],
                [0.90, 0.04, 0.03, 0.03, 0.0],
            ]
        },
    )
    owners = (frozenset({"emperor", "monk"}), frozenset({"poet", "lady"}))
    kept = Distinct("character", "none", pred.keys, frozenset().union(*owners), owners)
    readings = settle(pred, [], [kept]).readings()
    assert [readings[k]["character"][0] for k in pred.keys] == ["emperor", "poet", "none"]
    # The poet, held by the second cell, is struck; the monk, on Ann's card, could be here instead.
    assert readings[pred.keys[0]]["character"][1] == pytest.approx(0.90 / 0.98)
    assert readings[pred.keys[1]]["character"][1] == pytest.approx(PLACED_BY_COUNT)
    # Without the owners, Ann's two readings would stand.
    alone = settle(pred, [], [Distinct("character", "none", pred.keys)]).readings()
    assert [alone[k]["character"][0] for k in pred.keys] == ["emperor", "monk", "none"]


def test_which_of_an_owners_pieces_stands_stays_as_unsure_as_its_cell_read_it() -> None:
    """Ann owns the monk and the poet and keeps one on her card: the one tile read with a miniature shows the
    monk at 0.54, the poet at 0.44. The arrangement stands the monk there, but nothing else on the board
    says which of her two she kept, so the tile stays unsure (and flagged) rather than sure of the monk."""
    pred = _predictions((FIGURE,), {"character": [[0.02, 0.0, 0.54, 0.44], [0.97, 0.01, 0.01, 0.01]]})
    owners = (frozenset({"monk", "poet"}),)
    readings = settle(pred, [], [Distinct("character", "none", pred.keys, owners[0], owners)]).readings()
    name, confidence = readings[pred.keys[0]]["character"]
    assert name == "monk" and confidence == pytest.approx(0.54)
    assert readings[pred.keys[1]]["character"][0] == "none"


BIRD = Head("bird", ("no", "yes"))


def _birds(pred: CellPredictions, count: int) -> list[tuple[str, float]]:
    readings = settle(pred, [], [], [], [Counted("bird", "yes", pred.keys, count)]).readings()
    return [(readings[k]["bird"][0], round(readings[k]["bird"][1], 3)) for k in pred.keys]


def test_the_cards_count_the_decorations_the_likeliest_cells_show_them() -> None:
    """The camera saw a bird surely on the first cell, faintly (0.40) on the third and less (0.30) on the
    fourth: with three bird cards kept, the third and the fourth hold the other two, each only just
    (``PLACED_BY_COUNT``, so flagged)."""
    pred = _predictions((BIRD,), {"bird": [[0.05, 0.95], [0.9, 0.1], [0.6, 0.4], [0.7, 0.3]]})
    placed = round(PLACED_BY_COUNT, 3)
    assert _birds(pred, 3) == [("yes", 0.95), ("no", 0.9), ("yes", placed), ("yes", placed)]
    # As many as the camera saw: nothing changes. More cards than cells: every cell shows one.
    assert _birds(pred, 1) == [("yes", 0.95), ("no", 0.9), ("no", 0.6), ("no", 0.7)]
    assert [name for name, _ in _birds(pred, 9)] == ["yes"] * 4


def test_a_decoration_more_than_the_cards_say_is_taken_off_the_cell_least_sure_of_it() -> None:
    pred = _predictions((BIRD,), {"bird": [[0.05, 0.95], [0.2, 0.8], [0.9, 0.1]]})
    assert _birds(pred, 1) == [("yes", 0.95), ("no", round(PLACED_BY_COUNT, 3)), ("no", 0.9)]
    assert [name for name, _ in _birds(pred, 0)] == ["no"] * 3


def test_a_count_of_one_class_of_several_turns_a_cell_to_its_likeliest_other_class() -> None:
    pred = _predictions((NOBLE,), {"noble": [[0.1, 0.8, 0.1], [0.2, 0.5, 0.3], [0.9, 0.05, 0.05]]})
    readings = settle(pred, [], [], [], [Counted("noble", "red", pred.keys, 1)]).readings()
    assert [readings[k]["noble"][0] for k in pred.keys] == ["red", "blue", "none"]
    assert readings[pred.keys[1]]["noble"][1] == pytest.approx(PLACED_BY_COUNT)


ICONS = (Head("sun", ("0", "1", "2")), Head("moon", ("0", "1", "2")), Head("temple", ("0", "1", "2")))


def test_a_cells_counts_add_up_to_one_of_its_totals_the_likeliest_way() -> None:
    """A tile shows two icons or none. The first cell reads one sun and nothing else: a second icon is
    likelier a moon (0.30) than a temple or another sun. The second reads a sun, a moon and a temple: the
    temple, least sure, goes. The third reads two suns, as it should, and stays; so does an empty one."""
    pred = _predictions(
        ICONS,
        {
            "sun": [[0.1, 0.8, 0.1], [0.1, 0.9, 0.0], [0.0, 0.1, 0.9], [0.9, 0.1, 0.0]],
            "moon": [[0.7, 0.3, 0.0], [0.2, 0.8, 0.0], [1.0, 0.0, 0.0], [0.9, 0.1, 0.0]],
            "temple": [[0.8, 0.2, 0.0], [0.4, 0.6, 0.0], [1.0, 0.0, 0.0], [0.9, 0.1, 0.0]],
        },
    )
    fact = Summed(("sun", "moon", "temple"), pred.keys, frozenset({0, 2}))
    readings = settle(pred, [], [], [], [fact]).readings()
    counts = [tuple(readings[k][h][0] for h in ("sun", "moon", "temple")) for k in pred.keys]
    assert counts == [("1", "1", "0"), ("1", "1", "0"), ("2", "0", "0"), ("0", "0", "0")]
    assert readings[pred.keys[0]]["moon"][1] == pytest.approx(PLACED_BY_COUNT)
    assert readings[pred.keys[1]]["temple"][1] == pytest.approx(PLACED_BY_COUNT)
    assert readings[pred.keys[2]]["sun"][1] == pytest.approx(0.9)
    with pytest.raises(ValueError, match="count to be summed"):
        settle(pred, [], [], [], [Summed(("sun", "colour"), pred.keys, frozenset({1}))])


def test_a_slot_whose_one_icon_is_unsure_still_holds_one() -> None:
    pred = _predictions(
        ICONS,
        {
            "sun": [[0.68, 0.32, 0.0], [0.9, 0.1, 0.0]],
            "moon": [[0.7, 0.3, 0.0], [0.9, 0.1, 0.0]],
            "temple": [[0.7, 0.3, 0.0], [0.9, 0.1, 0.0]],
        },
    )
    readings = settle(pred, [], [], [], [Summed(("sun", "moon", "temple"), pred.keys, frozenset({0, 1}))])
    counts = [[readings.readings()[k][h][0] for h in ("sun", "moon", "temple")] for k in pred.keys]
    # Slot 0: no icon is 0.68 x 0.7^2 = 0.33, one icon 0.44, though the likeliest, a sun alone, reads
    # 0.32 x 0.7^2 = 0.16.
    assert counts[0] == ["1", "0", "0"]
    assert readings.readings()[pred.keys[0]]["sun"][1] == pytest.approx(PLACED_BY_COUNT)
    # Slot 1: no icon is 0.73, one 0.27.
    assert counts[1] == ["0", "0", "0"]


YES_NO = ("no", "yes")
GRASS, TREE, BIRD = Head("greenery", YES_NO), Head("tree", YES_NO), Head("bird", YES_NO)


def test_a_slot_seen_to_hold_a_tile_holds_its_icons_though_they_are_hidden() -> None:
    """Two slots read no icon likeliest (0.73 and 0.77): the first's tile is seen (0.97), so it holds one
    icon, the likeliest (the moon); the second's is not (0.1), so it stays empty. A third reads its sun
    surely but no tile: the two disagree, and the icon's is the surer evidence."""
    tile = Head("tile", YES_NO)
    pred = _predictions(
        (tile, *ICONS),
        {
            "tile": [[0.03, 0.97], [0.9, 0.1], [0.7, 0.3]],
            "sun": [[0.9, 0.1, 0.0], [0.9, 0.1, 0.0], [0.02, 0.98, 0.0]],
            "moon": [[0.85, 0.15, 0.0], [0.9, 0.1, 0.0], [1.0, 0.0, 0.0]],
            "temple": [[0.95, 0.05, 0.0], [0.95, 0.05, 0.0], [1.0, 0.0, 0.0]],
        },
    )
    fact = Summed(("sun", "moon", "temple"), pred.keys, frozenset({0, 1}), present=("tile", "yes"))
    readings = settle(pred, [], [], [], [fact]).readings()
    counts = [[readings[k][h][0] for h in ("tile", "sun", "moon", "temple")] for k in pred.keys]
    assert counts == [["yes", "0", "1", "0"], ["no", "0", "0", "0"], ["yes", "1", "0", "0"]]
    assert readings[pred.keys[0]]["moon"][1] == pytest.approx(PLACED_BY_COUNT)
    assert readings[pred.keys[2]]["tile"][1] == pytest.approx(PLACED_BY_COUNT)
    assert readings[pred.keys[1]]["tile"][1] == pytest.approx(0.9)
    with pytest.raises(ValueError, match="yes/no head 'sun'"):
        settle(pred, [], [], [], [Summed(("moon",), pred.keys, frozenset({0, 1}), present=("sun", "yes"))])


def test_a_decoration_needs_its_terrain_and_is_evidence_for_it() -> None:
    pred = _predictions(
        (GRASS, TREE, BIRD),
        {
            "greenery": [[0.9, 0.1], [0.4, 0.6], [0.3, 0.7]],
            "tree": [[0.3, 0.7], [0.3, 0.7], [0.9, 0.1]],
            "bird": [[0.9, 0.1], [0.5, 0.5], [0.9, 0.1]],
        },
    )
    settled = settle(pred, [], needs=[Needs(("tree", "bird"), "greenery", "yes", pred.keys)]).probabilities
    # Z = p + (1 - p) (1 - t)(1 - b): the greenery reads p / Z, the tree p t / Z.
    z = 0.1 + 0.9 * 0.3 * 0.9
    assert settled["greenery"][0, 1] == pytest.approx(0.1 / z, rel=1e-5)
    assert settled["tree"][0, 1] == pytest.approx(0.1 * 0.7 / z, rel=1e-5)
    # Cell 0: a tree seen at 0.7 on a tile seen without greenery at 0.9: both are now unsure, either way.
    assert settled["greenery"][0, 1] < 0.5 and settled["tree"][0, 1] < 0.5
    z = 0.6 + 0.4 * 0.3 * 0.5
    assert settled["greenery"][1, 1] == pytest.approx(0.6 / z, rel=1e-5)
    assert settled["bird"][1, 1] == pytest.approx(0.3 / z, rel=1e-5)
    for name in ("greenery", "tree", "bird"):
        np.testing.assert_allclose(settled[name].sum(axis=1), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="no yes/no head 'water' with a class 'yes' to read a need by"):
        settle(pred, [], needs=[Needs(("tree",), "water", "yes", pred.keys)])


EDGE_CLASSES = ("footpath", "rock", "wall")
TILE, ROCK = Head("tile", YES_NO), Head("rock", YES_NO)
EAST, WEST = Head("edge-E", EDGE_CLASSES), Head("edge-W", EDGE_CLASSES)


def _two_tiles(
    tile: list[list[float]], rock: list[list[float]], east0: list[float], west1: list[float]
) -> CellPredictions:
    """Two tiles side by side, 0 west of 1: only 0's east edge and 1's west edge are read (the others
    read footpath surely)."""
    path = [1.0, 0.0, 0.0]
    return _predictions(
        (TILE, ROCK, EAST, WEST),
        {"tile": tile, "rock": rock, "edge-E": [east0, path], "edge-W": [path, west1]},
    )


def _touch(pred: CellPredictions) -> Touching:
    k = pred.keys
    return Touching(
        "tile",
        "yes",
        ((k[0], "edge-E", k[1], "edge-W"),),
        frozenset({"wall"}),
        k,
        ("edge-E", "edge-W"),
        ("rock",),
    )


def test_touching_edges_read_together_and_tell_what_a_tile_shows() -> None:
    sure, half = [[0.0, 1.0], [0.0, 1.0]], [[0.5, 0.5], [0.5, 0.5]]
    # Tile 0's east edge is barely read as rock (a miniature hides it), tile 1's west edge surely.
    pred = _two_tiles(sure, half, [0.6, 0.35, 0.05], [0.02, 0.96, 0.02])
    settled = settle(pred, [], touching=[_touch(pred)]).probabilities
    a, b = np.array([0.6, 0.35, 0.05]), np.array([0.02, 0.96, 0.02])
    allowed = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]])
    joint = a[:, None] * b[None, :] * allowed
    np.testing.assert_allclose(settled["edge-E"][0], joint.sum(axis=1) / joint.sum(), rtol=1e-5)
    np.testing.assert_allclose(settled["edge-W"][1], joint.sum(axis=0) / joint.sum(), rtol=1e-5)
    assert settled["edge-E"][0].argmax() == 1
    # The crop's whole said nothing of rock (0.5): the edges show it, q = 1 - (1 - s_E)(1 - s_W), averaged.
    q = settled["edge-E"][0, 1]
    assert settled["rock"][0, 1] == pytest.approx((0.5 + q) / 2, rel=1e-5)
    assert settled["rock"][0, 1] > 0.6 and settled["rock"][1, 1] > 0.7
    for name in ("edge-E", "edge-W", "rock"):
        np.testing.assert_allclose(settled[name].sum(axis=1), 1.0, rtol=1e-6)


def test_a_terrain_read_surely_against_its_edges_reads_unsure() -> None:
    # Tile 0's crop reads no rock at 0.999, its east edge rock at 0.75 and tile 1's west edge rock surely.
    pred = _two_tiles(
        [[0.0, 1.0], [0.0, 1.0]], [[0.999, 0.001], [0.01, 0.99]], [0.25, 0.75, 0.0], [0.0, 1.0, 0.0]
    )
    rock = settle(pred, [], touching=[_touch(pred)]).probabilities["rock"]
    assert 0.4 < rock[0, 1] < 0.6  # the reading is either way, so the tile is flagged


def test_a_terrain_an_edge_reads_likeliest_reads_just_yes() -> None:
    # Tile 0's crop reads no rock at 0.9, its east edge rock likeliest (0.6); cell 1 holds no tile. Averaged,
    # rock would read no (0.35), against the edge: it reads yes, just, and so is flagged.
    tiles, rock_read, far = [[0.0, 1.0], [1.0, 0.0]], [[0.9, 0.1], [1.0, 0.0]], [0.0, 1.0, 0.0]
    pred = _two_tiles(tiles, rock_read, [0.35, 0.6, 0.05], far)
    readings = settle(pred, [], touching=[_touch(pred)]).readings()
    read, sure = readings[pred.keys[0]]["rock"]
    assert read == "yes" and sure == pytest.approx(PLACED_BY_COUNT)
    # An edge that reads rock only second likeliest leaves the average as it is.
    second = _two_tiles(tiles, rock_read, [0.55, 0.4, 0.05], far)
    averaged = settle(second, [], touching=[_touch(second)]).probabilities["rock"]
    assert averaged[0, 1] == pytest.approx((0.1 + 0.4) / 2, rel=1e-5)


def test_an_edge_with_no_tile_across_it_keeps_its_own_reading() -> None:
    # Cell 1 holds no tile (its gate reads no surely): its edge head's reading says nothing of cell 0's.
    pred = _two_tiles([[0.0, 1.0], [1.0, 0.0]], [[0.9, 0.1], [1.0, 0.0]], [0.7, 0.3, 0.0], [0.0, 1.0, 0.0])
    settled = settle(pred, [], touching=[_touch(pred)]).probabilities
    np.testing.assert_allclose(settled["edge-E"][0], [0.7, 0.3, 0.0], atol=1e-6)
    # Nor does a space without a tile come to show rock from its edges.
    assert settled["rock"][1, 1] == pytest.approx(0.0, abs=1e-5)
    # A wall lies against anything: a sure wall leaves the other edge as it was read.
    walled = _two_tiles([[0.0, 1.0], [0.0, 1.0]], [[0.9, 0.1], [0.9, 0.1]], [0.7, 0.3, 0.0], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(
        settle(walled, [], touching=[_touch(walled)]).probabilities["edge-E"][0], [0.7, 0.3, 0.0], atol=1e-6
    )
    with pytest.raises(ValueError, match="no heads 'edge-N'"):
        settle(pred, [], touching=[replace(_touch(pred), sides=("edge-N",))])


def test_a_decoration_the_cards_place_brings_its_terrain_flagged() -> None:
    pred = _predictions(
        (GRASS, TREE, BIRD),
        {
            "greenery": [[0.8, 0.2], [0.9, 0.1], [0.1, 0.9]],
            "tree": [[0.6, 0.4], [0.9, 0.1], [0.95, 0.05]],
            "bird": [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]],
        },
    )
    needs = [Needs(("tree", "bird"), "greenery", "yes", pred.keys)]
    # Read together, tile 0's tree (0.4) and greenery (0.2) are both doubtful, but it is the likeliest tree.
    readings = settle(pred, [], [], [], [Counted("tree", "yes", pred.keys, 1)], needs=needs).readings()
    k = pred.keys
    for head in ("tree", "greenery"):
        assert readings[k[0]][head][0] == "yes"
        assert readings[k[0]][head][1] == pytest.approx(PLACED_BY_COUNT)
    assert readings[k[1]]["greenery"][0] == "no" and readings[k[2]]["greenery"][0] == "yes"
    assert [readings[key]["tree"][0] for key in k[1:]] == ["no", "no"]


SQUARE = Head("square", (".", "#", "S", "G"))


def test_an_unsure_cell_reads_as_its_printing_says_a_plain_contrary_one_keeps_its_reading() -> None:
    pred = _predictions(
        (SQUARE,),
        {
            "square": [
                [0.53, 0.47, 0.0, 0.0],
                [0.0, 0.999, 0.001, 0.0],
                [0.0, 0.001, 0.999, 0.0],
                [0.6, 0.4, 0, 0],
            ]
        },
    )
    settled = settle(pred, [], [], [Known("square", pred.keys[:3], frozenset({"#"}))])
    readings = settled.readings()
    assert [readings[k]["square"][0] for k in pred.keys] == ["#", "#", "S", "."]
    # 0.47 against 0.53 weighed by AGAINST_PRINTING (0.01).
    assert readings[pred.keys[0]]["square"][1] == pytest.approx(0.47 / (0.47 + 0.0053), rel=1e-4)
    # A board read the wrong way up shows its printed row as tiles: the reading stands, for check to refuse.
    assert readings[pred.keys[2]]["square"][1] == pytest.approx(0.00999 / (0.00999 + 0.001), rel=1e-3)
    np.testing.assert_allclose(settled.probabilities["square"].sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(settled.probabilities["square"][3], pred.probabilities["square"][3])


def test_sanssouci_row_1_is_printed_and_a_listed_side_fixes_every_square() -> None:
    reader = get_reader("sanssouci")
    profile = default_profile("sanssouci")
    grid = profile.region("grid")
    (row_1,) = reader.known(profile)
    assert row_1 == Known("square", tuple(("grid", 0, c) for c in range(grid.cols)), frozenset({"#"}))
    side = replace(profile, setup={**profile.setup, "preprinted": [[3, 4], [6, 9]]})
    printed, rest = reader.known(side)
    assert set(printed.keys) == {*row_1.keys, ("grid", 2, 3), ("grid", 5, 8)}
    assert rest.classes == frozenset({".", "S", "G"})
    assert len(rest.keys) == grid.rows * grid.cols - grid.cols - 2
    assert not set(rest.keys) & set(printed.keys)
    alice = default_profile("alices-garden")
    path, grass = get_reader("alices-garden").known(alice)
    assert {c for _, _, c in path.keys} == {3, 4}
    assert "empty_grass" not in path.classes and "empty_chess" in path.classes
    assert "empty_chess" not in grass.classes and len(grass.classes) == 6
    assert len(path.keys) + len(grass.keys) == len(alice.region("grid").cells())
    assert get_reader("zen-garden").known(default_profile("zen-garden")) == ()


def test_a_group_on_a_head_the_model_lacks_is_refused() -> None:
    pred = _predictions((MARKER,), {"marker": [[0.5, 0.5]]})
    with pytest.raises(ValueError, match="no head 'noble'"):
        settle(pred, [OneOf("noble", "none", pred.keys)])
    with pytest.raises(ValueError, match="classes 'none'"):
        settle(pred, [OneOf("marker", "none", pred.keys)])
    with pytest.raises(ValueError, match="no head 'character'"):
        settle(pred, [], [Distinct("character", "none", pred.keys)])
    with pytest.raises(ValueError, match="classes '#'"):
        settle(pred, [], [], [Known("marker", pred.keys, frozenset({"#"}))])
    with pytest.raises(ValueError, match="classes 'yes'"):
        settle(pred, [], [], [], [Counted("marker", "yes", pred.keys, 1)])


def test_the_grid_games_groups_cover_their_tracks_and_columns() -> None:
    zen = default_profile("zen-garden")
    (coins,) = get_reader("zen-garden").exactly_one(zen)
    assert set(coins.keys) == {("coins", r, c) for r, c in zen.region("coins").cells()}
    sanssouci = default_profile("sanssouci")
    columns = get_reader("sanssouci").exactly_one(sanssouci)
    grid = sanssouci.region("grid")
    assert len(columns) == grid.cols
    assert columns[2].keys == (("terrace", 0, 2), *(("grid", r, 2) for r in range(grid.rows)))
    assert get_reader("alices-garden").exactly_one(default_profile("alices-garden")) == ()
    assert get_reader("sanssouci").distinct(sanssouci, {}) == ()


FLOOR = Head("floor", ("g", "s", "w"))
DECOR = Head("decor", (".", "l", "r", "b"))
TILES = OneEach("grid", ("floor", "decor"))


def _board(rows: dict[str, list[list[float]]]) -> CellPredictions:
    n = len(rows["floor"])
    keys = tuple(("grid", 0, c) for c in range(n))
    probabilities = {name: np.array(p, np.float32) for name, p in rows.items()}
    return CellPredictions(keys, (FLOOR, DECOR), probabilities, np.zeros((n, 4), np.float32))


def _tiles(board: CellPredictions) -> list[tuple[str, str]]:
    read = board.readings()
    return [(read[k]["floor"][0], read[k]["decor"][0]) for k in board.keys]


def test_a_tile_read_as_one_on_another_board_reads_as_its_likeliest_unused_one() -> None:
    # Board 2's cell reads sand + lantern, as board 1's sure cell shows; its second floor (water) is free.
    one = _board(
        {
            "floor": [[0.05, 0.9, 0.05], [0.9, 0.05, 0.05]],
            "decor": [[0.02, 0.9, 0.04, 0.04], [0.9, 0.02, 0.04, 0.04]],
        }
    )
    two = _board({"floor": [[0.3, 0.6, 0.1]], "decor": [[0.02, 0.9, 0.04, 0.04]]})
    assert _tiles(one)[0] == _tiles(two)[0] == ("s", "l")
    (first, second), alike = apart([one, two], TILES)
    assert _tiles(first) == _tiles(one)
    assert _tiles(second) == [("g", "l")]
    # The turned head reads just likelier (so flagged); the head it kept is as the classifier read it.
    assert second.readings()[("grid", 0, 0)]["floor"][1] == pytest.approx(PLACED_BY_COUNT)
    assert second.readings()[("grid", 0, 0)]["decor"][1] == pytest.approx(0.9)
    # Both cells that read alike are named for checking, each on its own board.
    assert alike == [frozenset({("grid", 0, 0)}), frozenset({("grid", 0, 0)})]


def test_which_of_two_alike_tiles_turns_is_the_one_whose_turn_costs_least() -> None:
    # Both read sand + lantern; the first is the less sure of its floor, so it turns, though it comes first.
    board = _board(
        {
            "floor": [[0.45, 0.55, 0.0], [0.02, 0.96, 0.02]],
            "decor": [[0.02, 0.9, 0.04, 0.04], [0.02, 0.9, 0.04, 0.04]],
        }
    )
    (settled,), alike = apart([board], TILES)
    assert _tiles(settled) == [("g", "l"), ("s", "l")]
    assert alike == [frozenset(board.keys)]


def test_tiles_all_read_apart_are_left_as_the_classifier_read_them() -> None:
    board = _board({"floor": [[0.6, 0.3, 0.1], [0.1, 0.6, 0.3]], "decor": [[0.5, 0.3, 0.1, 0.1]] * 2})
    (settled,), alike = apart([board], TILES)
    assert settled is board
    assert alike == [frozenset()]


def test_a_tile_with_no_free_piece_among_its_likeliest_keeps_its_own_reading() -> None:
    # Both read grass surely: no other floor is likely enough to be read instead, so the table is left for
    # the game's check to refuse.
    sure = [[0.9995, 0.0004, 0.0001]]
    board = _board({"floor": sure * 2, "decor": [[1.0, 0.0, 0.0, 0.0]] * 2})
    (settled,), alike = apart([board], OneEach("grid", ("floor",)))
    assert _tiles(settled) == [("g", "."), ("g", ".")]
    assert alike == [frozenset(board.keys)]
