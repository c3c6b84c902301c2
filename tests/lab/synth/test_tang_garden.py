"""The Tang Garden artist: valid random tables, labels that match them, pictures that tell labels apart."""

from __future__ import annotations

import collections
import itertools
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from lab.synth.art import PACKS, ArtPack, Image, get_pack
from lab.synth.camera import PhotoOptions, photograph
from lab.synth.games import tang_garden as art
from lab.synth.scene import make_board
from scoring import tang_garden as rules
from scoring.core import InvalidState
from tests.support import load_example
from vision.geometry import BoardFrame, cell_at_mm, cell_rect_mm
from vision.profile import default_profile, dump_profile, parse_profile
from vision.readers import reader_for
from vision.readers import tang_garden as tang_reader

PROFILE = default_profile(rules.GAME)
ARTIST = art.TangArtist()
SEEDS = range(30)
# Mean absolute difference, in 0-255 levels, that two labels drawn on the same standard cell must exceed.
# 6 levels is a full-contrast change (ink against fill, some 150 levels) over 4% of the cell: 64 mm2 of a
# 40 mm garden tile, an 8 x 8 mm patch that the 1152-pixel photo still renders some 10 pixels across.
# Anything closer is a detail no classifier can be expected to read off a photo.
DISTINCT = 6.0
TREES = tuple(f"tree:{s}" for s in rules.DEFAULT_TREE_SPECIES)
LABELS = (*TREES, *(k for k in rules.DECORATION_KINDS if k != "tree"))
CELL_PX = 160  # a 40 mm garden tile at 4 px/mm
ICON_PX = 72  # the short side of an 18 mm small landscape slot at 4 px/mm
TOP_PX = 64  # a 16 mm character top at 4 px/mm
CROP_TOP_PX = 12  # the same top in the classifier's 64-pixel crop of 84 mm (vision/readers/tang_garden.py)


def state(seed: int, crowded: bool = False) -> Mapping[str, Any]:
    rng = np.random.default_rng(seed)
    return ARTIST.crowded_state(PROFILE, rng) if crowded else ARTIST.random_state(PROFILE, rng)


def mad(a: Image, b: Image) -> float:
    return float(np.mean(np.abs(a.astype(np.int16) - b.astype(np.int16))))


def assert_distinct(drawn: Mapping[str, Image], what: str) -> None:
    for (a, ia), (b, ib) in itertools.combinations(drawn.items(), 2):
        assert mad(ia, ib) > DISTINCT, f"{what} {a!r} and {b!r} look alike"


def blank(pack: ArtPack, colour: tuple[int, int, int], size: int) -> Image:
    cell = np.empty((size, size, 3), np.uint8)
    cell[:] = pack.colour(colour)
    return cell


def flatten(top: Image) -> Image:
    """A BGRA piece top over mid-grey, as the table might show through around it."""
    alpha = top[..., 3:4].astype(np.float32) / 255.0
    return (128 * (1 - alpha) + top[..., :3] * alpha).astype(np.uint8)


@pytest.mark.parametrize("crowded", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_states_are_valid_plausible_tables(seed: int, crowded: bool) -> None:
    data = state(seed, crowded)
    table = rules.parse(json.loads(json.dumps(data)))
    assert rules.check(table) == ()
    board = table.board
    assert (table.setup.rows, table.setup.cols) == (PROFILE.setup["rows"], PROFILE.setup["cols"])
    tiles = [(r, c) for r, row in enumerate(board.tiles) for c, t in enumerate(row) if t != rules.NO_TILE]
    start = rules.start_cells(table.setup)
    assert set(start) <= set(tiles)
    assert 35 <= len(tiles) - len(start) <= 60
    assert 10 <= len(board.decorations) <= 35
    assert all(d.species in table.setup.tree_species for d in board.decorations if d.kind == "tree")
    assert 3 <= len(board.characters) <= 9
    assert len({ch.cell for ch in board.characters}) == len(board.characters)
    for side in rules.SIDES:
        slots = board.landscapes.side(side)
        assert len(slots) == rules.MAX_SLOTS_PER_SIDE
        assert [len(s) for s in slots if s] == [2 if i < 2 else 1 for i, s in enumerate(slots) if s]
    assert 2 <= len(table.players) <= 4
    owned = [name for p in table.players for name in p.characters]
    assert len(owned) == len(set(owned))


def test_random_states_cover_the_vocabulary() -> None:
    tables = [rules.parse(state(seed)) for seed in SEEDS]
    decorations = {tang_reader.decoration_label(d) for t in tables for d in t.board.decorations}
    assert decorations == set(LABELS)
    assert {ch.name for t in tables for ch in t.board.characters} == set(rules.CHARACTERS)
    assert {ch.facing for t in tables for ch in t.board.characters} == set(rules.SIDES)
    slots = [slot for t in tables for side in rules.SIDES for slot in t.board.landscapes.side(side)]
    icons = {icon for slot in slots for icon in slot}
    assert icons == set(rules.ICONS)
    tiles = [rules.read_tile(tok) for t in tables for row in t.board.tiles for tok in row]
    assert None in tiles
    assert {tile.terrains for tile in tiles if tile} == {
        tuple(t for t, keep in zip(rules.TERRAINS, keeps, strict=True) if keep)
        for keeps in itertools.product((False, True), repeat=3)
    }
    assert {edge for tile in tiles if tile for edge in tile.edges} == set(rules.EDGES)
    shared = [
        cell
        for t in tables
        for cell in {d.cell for d in t.board.decorations}
        if sum(d.cell == cell for d in t.board.decorations) > 1
    ]
    assert shared, "two decorations on one tile should turn up now and then"


def test_touching_edges_match_unless_one_is_a_wall() -> None:
    laid = walls = 0
    for seed in SEEDS:
        table = rules.parse(state(seed))
        for cell, side, other, back in rules.touching_edges(table.setup):
            tile, neighbour = rules.tile_at(table.board, cell), rules.tile_at(table.board, other)
            if tile is None or neighbour is None:
                continue
            edge, facing = tile.edges[rules.SIDES.index(side)], neighbour.edges[rules.SIDES.index(back)]
            laid += 1
            walls += rules.WALL in (edge, facing)
            assert edge == facing or rules.WALL in (edge, facing), (seed, cell, other)
    # Most edges touch another tile, and a few of those are walls against something else.
    assert laid > 50 * len(SEEDS) and 0 < walls < laid / 5


def test_crowded_states_put_decorations_together_and_characters_beside_them() -> None:
    def counts(crowded: bool) -> tuple[int, int, int]:
        together = beside = total = 0
        for seed in SEEDS:
            board = rules.parse(state(seed, crowded)).board
            per_tile = collections.Counter(d.cell for d in board.decorations)
            standing = {ch.cell for ch in board.characters}
            total += len(board.decorations)
            together += sum(n for n in per_tile.values() if n > 1)
            beside += sum(n for cell, n in per_tile.items() if cell in standing)
        return together, beside, total

    together, beside, total = counts(False)
    crowded_together, crowded_beside, crowded_total = counts(True)
    # Same garden sizes and decoration counts, far more of them sharing a tile or standing by a miniature.
    assert abs(crowded_total - total) < 0.2 * total
    assert crowded_together > 3 * together and crowded_beside > 1.5 * beside


def test_only_artists_that_crowd_render_crowded_boards() -> None:
    from lab.synth.render import RenderSpec, render_photo

    with pytest.raises(ValueError, match="no crowded boards are drawn for alices-garden"):
        RenderSpec(("alices-garden", rules.GAME), 5, crowded=0.5)
    # Without crowding a photo is what it was before crowding existed; crowded, its board is another.
    plain = render_photo(RenderSpec((rules.GAME,), 5), 0).truth["boards"][0]
    assert render_photo(RenderSpec((rules.GAME,), 5, crowded=0.0), 0).truth["boards"][0] == plain
    crowded = render_photo(RenderSpec((rules.GAME,), 5, crowded=1.0), 0).truth["boards"][0]
    assert crowded["state"] != plain["state"]
    assert crowded["cells"] == reader_for(PROFILE).cell_labels(PROFILE, crowded["state"])


@pytest.mark.parametrize("seed", range(10))
def test_cell_labels_agree_with_the_state(seed: int) -> None:
    data = state(seed)
    board = rules.parse(data).board
    labels = reader_for(PROFILE).cell_labels(PROFILE, data)
    assert set(labels) == {r.name for r in PROFILE.regions}
    grid = labels["grid"]
    tokens = [[label.partition("/")[0].partition("@")[0] for label in row] for row in grid]
    assert tokens == [list(row) for row in board.tiles]
    flat = [label for row in grid for label in row]
    assert sum(label.count("/") for label in flat) == len(board.decorations)
    assert sum(label.count("@") for label in flat) == len(board.characters)
    for ch in board.characters:
        assert grid[ch.cell[0]][ch.cell[1]].endswith(f"@{ch.name}:{ch.facing}")
    for d in board.decorations:
        assert f"/{tang_reader.decoration_label(d)}" in grid[d.cell[0]][d.cell[1]]
    for side in rules.SIDES:
        shown = [labels[r.name][i][j] for r, i, j in tang_reader.slot_cells(PROFILE, side)]
        icons = sum(len(label.split("+")) for label in shown if label != ".")
        assert icons == sum(len(slot) for slot in board.landscapes.side(side))
        assert shown.count(".") == sum(not slot for slot in board.landscapes.side(side))


def test_cell_labels_of_the_example() -> None:
    labels = reader_for(PROFILE).cell_labels(PROFILE, load_example("tang-garden.json"))
    assert labels["grid"][2][7] == "g--/tree:maple@officer:E"
    assert labels["grid"][7][4] == "--r/pavilion@architect:S"
    assert labels["grid"][0][0] == "..."
    assert labels["grid"][5][5] == "---"
    assert labels["landscape-large:N"] == [["dragon+sun", "dragon+temple"]]
    assert labels["landscape-small:N"] == [["village", "animal", "construction"]]
    # The east side has four tiles, so its last small slot is empty.
    assert labels["landscape-small:E"] == [["village"], ["waterfall"], ["."]]
    assert labels["landscape-large:E"] == [["moon+waterfall"], ["animal+animal"]]


def test_several_decorations_on_a_tile_are_labelled_in_sorted_order() -> None:
    data = dict(load_example("tang-garden.json"))
    data["decorations"] = [
        {"cell": [1, 0], "kind": "tree", "species": "pine"},
        {"cell": [1, 0], "kind": "bird"},
    ]
    assert reader_for(PROFILE).cell_labels(PROFILE, data)["grid"][1][0] == "g--/bird/tree:pine"


def test_slots_run_large_then_small_in_reading_order() -> None:
    cells = [(region.name, r, c) for region, r, c in tang_reader.slot_cells(PROFILE, "W")]
    assert cells == [
        ("landscape-large:W", 0, 0),
        ("landscape-large:W", 1, 0),
        ("landscape-small:W", 0, 0),
        ("landscape-small:W", 1, 0),
        ("landscape-small:W", 2, 0),
    ]
    too_many = rules.Landscapes(north=(("sun",),) * 6)
    with pytest.raises(ValueError, match="6 landscape tiles"):
        tang_reader.landscape_slots(PROFILE, too_many, "N")


def test_draw_size_pieces_and_determinism() -> None:
    pack = get_pack("meadow")
    data = state(1)
    first = ARTIST.draw(PROFILE, data, pack, np.random.default_rng(5), 2.0)
    again = ARTIST.draw(PROFILE, data, pack, np.random.default_rng(5), 2.0)
    other = ARTIST.draw(PROFILE, state(2), pack, np.random.default_rng(6), 2.0)
    w, h = BoardFrame(PROFILE, 2.0).size_wh
    assert first.image_bgr.shape == (h, w, 3)
    assert first.image_bgr.tobytes() == again.image_bgr.tobytes()
    assert [p.top_bgra.tobytes() for p in first.pieces] == [p.top_bgra.tobytes() for p in again.pieces]
    assert first.image_bgr.tobytes() != other.image_bgr.tobytes()
    board = rules.parse(data).board
    assert len(first.pieces) == len(board.characters)
    grid = PROFILE.region("grid")
    for piece, ch in zip(first.pieces, board.characters, strict=True):
        assert cell_at_mm(grid, piece.x_mm, piece.y_mm) == ch.cell
        assert (piece.height_mm, piece.diameter_mm) == (art.CHARACTER_HEIGHT_MM, art.CHARACTER_DIAMETER_MM)


def test_the_example_draws_in_every_pack() -> None:
    for pack in PACKS.values():
        drawing = ARTIST.draw(PROFILE, load_example("tang-garden.json"), pack, np.random.default_rng(0), 1.0)
        assert drawing.image_bgr.shape[:2] == BoardFrame(PROFILE, 1.0).size_wh[::-1]
        assert len(drawing.pieces) == 6


def test_draw_refuses_what_it_cannot_show() -> None:
    pack = get_pack("meadow")
    data = dict(load_example("tang-garden.json"))
    data["characters"] = [
        {"name": "poet", "cell": [1, 0], "facing": "N"},
        {"name": "monk", "cell": [1, 0], "facing": "S"},
    ]
    with pytest.raises(ValueError, match="share a tile"):
        ARTIST.draw(PROFILE, data, pack, np.random.default_rng(0), 1.0)
    with pytest.raises(ValueError, match="no art"):
        art.draw_decoration(blank(pack, art.FOOTPATH, 40), "tree:oak", (20, 20), 20, pack)
    data["characters"] = [{"name": "poet", "cell": [0, 0], "facing": "N"}]  # a space with no tile
    with pytest.raises(InvalidState):
        ARTIST.draw(PROFILE, data, pack, np.random.default_rng(0), 1.0)


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_decorations_and_trees_look_different(pack: ArtPack) -> None:
    drawn = {}
    for label in LABELS:
        cell = blank(pack, art.FOOTPATH, CELL_PX)
        art.draw_decoration(cell, label, (CELL_PX / 2, CELL_PX / 2), CELL_PX * art.SINGLE_SIZE, pack)
        drawn[label] = cell
    assert_distinct(drawn, "decorations")


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_landscape_icons_look_different(pack: ArtPack) -> None:
    drawn = {}
    for icon in rules.ICONS:
        cell = blank(pack, art.SKY, ICON_PX)
        art.draw_icon(cell, icon, (ICON_PX / 2, ICON_PX / 2), ICON_PX * 0.85, pack)
        drawn[icon] = cell
    assert_distinct(drawn, "landscape icons")


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_characters_and_their_facings_look_different(pack: ArtPack) -> None:
    tops = {name: flatten(art.character_top(name, "N", pack, TOP_PX)) for name in rules.CHARACTERS}
    assert_distinct(tops, "characters")
    for name in rules.CHARACTERS:
        tops = {f: flatten(art.character_top(name, f, pack, TOP_PX)) for f in rules.SIDES}
        assert_distinct(tops, f"facings of the {name}")


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_the_facing_wedge_points_the_right_way(pack: ArtPack) -> None:
    c = (TOP_PX - 1) / 2
    d = 0.75 * TOP_PX / 2
    probes = {"N": (c, c - d), "E": (c + d, c), "S": (c, c + d), "W": (c - d, c)}
    for name in rules.CHARACTERS:
        for facing in rules.SIDES:
            top = flatten(art.character_top(name, facing, pack, TOP_PX)).astype(np.float32)
            light = {
                side: float(top[round(y) - 2 : round(y) + 3, round(x) - 2 : round(x) + 3].mean())
                for side, (x, y) in probes.items()
            }
            assert max(light, key=lambda side: light[side]) == facing, (name, facing, light)


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_the_facing_shows_at_the_size_a_crop_sees_a_top(pack: ArtPack) -> None:
    """At some 12 pixels across, the half of a top that a character faces is clearly the whiter (its least
    channel the higher): a wedge at the rim once vanished at that size and facing was read at chance."""
    half = CROP_TOP_PX // 2
    for name in rules.CHARACTERS:
        for facing in rules.SIDES:
            top = flatten(art.character_top(name, facing, pack, TOP_PX))
            small = cv2.resize(top, (CROP_TOP_PX, CROP_TOP_PX), interpolation=cv2.INTER_AREA)
            white = small.min(axis=2).astype(np.float32)
            halves = {
                "N": white[:half].mean(),
                "E": white[:, half:].mean(),
                "S": white[half:].mean(),
                "W": white[:, :half].mean(),
            }
            behind = rules.SIDES[(rules.SIDES.index(facing) + 2) % len(rules.SIDES)]
            assert halves[facing] - halves[behind] > 15, (name, facing, halves)


def test_every_character_has_a_body_of_its_own() -> None:
    """A miniature's body is the largest patch of it a photo shows: no two characters share body colour and
    sash (the advanced six wear a sash of their band's colour over the starting six's colours)."""
    looks = {art.body_colours(name) for name in rules.CHARACTERS}
    assert len(looks) == len(rules.CHARACTERS)


def test_a_photo_of_a_random_board_carries_its_labels() -> None:
    rng = np.random.default_rng(11)
    board = make_board(ARTIST, PROFILE, get_pack("ink"), rng, 3.0)
    photo = photograph([board], rng, PhotoOptions(size_wh=(1152, 648)))
    assert photo.decode().shape == (648, 1152, 3)
    truth = photo.truth["boards"][0]
    assert truth["game"] == rules.GAME
    assert truth["cells"] == reader_for(PROFILE).cell_labels(PROFILE, board.state)
    assert rules.check(rules.parse(truth["state"])) == ()


def test_the_profile_stays_valid_and_holds_every_slot() -> None:
    profile = parse_profile(json.loads(json.dumps(dump_profile(PROFILE))))
    assert profile.region("grid").rows == rules.TangSetup().rows
    for side in rules.SIDES:
        assert len(tang_reader.slot_cells(profile, side)) == rules.MAX_SLOTS_PER_SIDE


@pytest.mark.parametrize("turns", range(4))
def test_a_point_of_a_turned_patch_is_found_in_the_patch(turns: int) -> None:
    patch = np.arange(12).reshape(3, 4)
    local = np.rot90(patch, k=turns)
    for y, x in itertools.product(range(local.shape[0]), range(local.shape[1])):
        px, py = art._unturned((x + 0.5, y + 0.5), (local.shape[1], local.shape[0]), turns)
        assert patch[int(py), int(px)] == local[y, x]


def test_the_truth_says_how_much_of_each_decoration_and_icon_shows() -> None:
    """Miniatures 30 mm tall, photographed at a slant, hide part of what lies round them: each decoration and
    landscape icon is a mark in the truth with the share of it that shows; with the miniatures lifted off,
    all of every mark shows."""
    rng = np.random.default_rng(3)
    board = make_board(ARTIST, PROFILE, get_pack("meadow"), rng, 3.0, state(4, crowded=True))
    parsed = rules.parse(board.state).board
    icons = sum(len(slot) for side in rules.SIDES for slot in parsed.landscapes.side(side))
    options = PhotoOptions(size_wh=(1152, 648), effects=False)
    marks = photograph([board], np.random.default_rng(8), options).truth["boards"][0]["marks"]
    assert len(marks) == len(parsed.decorations) + icons
    labels = collections.Counter(m["label"] for m in marks if m["cell"][0] == "grid")
    assert labels == collections.Counter(tang_reader.decoration_label(d) for d in parsed.decorations)
    for mark in marks:
        region, r, c = mark["cell"]
        x0, y0, x1, y1 = cell_rect_mm(PROFILE.region(region), r, c)
        assert x0 < mark["centre_mm"][0] < x1 and y0 < mark["centre_mm"][1] < y1, mark
        assert 0.0 <= mark["shown"] <= 1.0
    assert min(m["shown"] for m in marks) < 0.9
    bare = replace(board, drawing=replace(board.drawing, pieces=()))
    marks = photograph([bare], np.random.default_rng(8), options).truth["boards"][0]["marks"]
    assert {m["shown"] for m in marks} == {1.0}
