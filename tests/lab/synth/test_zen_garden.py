"""The Zen Garden artist: valid random tables, labels matching players[0], tiles that can be told apart."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from lab.synth.art import PACKS, ArtPack
from lab.synth.camera import PhotoOptions, photograph
from lab.synth.games import zen_garden as art
from lab.synth.scene import make_board
from scoring import zen_garden as rules
from vision.geometry import BoardFrame, cell_center_mm, cell_rect_mm
from vision.profile import default_profile
from vision.readers import reader_for

PROFILE = default_profile(rules.GAME)
ARTIST = art.ZenArtist()
SEEDS = range(30)
TILE_PX = 160  # a 40 mm tile at 4 px/mm, the scale training renders at

# A feature only counts as visible if the pixels it covers change by at least this much on average (of 255):
# well above the few levels of noise and JPEG loss the camera adds, so a model can see it in a photo.
VISIBLE_CHANGE = 20.0
MEDALLION_SHARE = np.pi * art.MEDALLION_RADIUS**2
ARC_SHARE = np.pi / 4 * (art.ARC_OUTER**2 - art.ARC_INNER**2)
# Each attribute changes at least the share of the tile its art covers, so a tile's mean difference must reach
# VISIBLE_CHANGE times that share. A floor shows wherever the arc and the decor do not; turning a tile moves
# the arc off its own place and onto another.
SHARE = {
    "floor": 1 - MEDALLION_SHARE - ARC_SHARE,
    "path": ARC_SHARE,
    "corner": 2 * ARC_SHARE,
    "decor": MEDALLION_SHARE,
}
STANDARD = rules.ZenTile("gravel", "stone", "SE", "gate")
VALUES = {"floor": rules.FLOORS, "path": rules.PATHS, "corner": rules.CORNERS, "decor": rules.DECORS}


def random_state(seed: int) -> dict[str, Any]:
    return dict(ARTIST.random_state(PROFILE, np.random.default_rng(seed)))


def tile(pack: ArtPack, change: Mapping[str, str], base: rules.ZenTile = STANDARD) -> np.ndarray:
    """``base`` with ``change`` applied, drawn with the same random texture every time."""
    drawn = art.draw_tile(replace(base, **change), pack, TILE_PX, np.random.default_rng(0))
    return drawn.astype(np.int16)


def mean_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


@pytest.mark.parametrize("seed", SEEDS)
def test_random_tables_are_valid(seed: int) -> None:
    state = random_state(seed)
    table = rules.parse(state)
    assert rules.check(table) == ()
    assert rules.MIN_PLAYERS <= len(table.players) <= rules.MAX_PLAYERS
    assert table.setup.boards == tuple(range(1, len(table.setup.boards) + 1))
    assert set(table.setup.preferences) == set(rules.PREFERENCE_SLOTS)


def test_random_tables_vary_like_real_games() -> None:
    tables = [rules.parse(random_state(seed)) for seed in SEEDS]
    assert {len(t.players) for t in tables} == {2, 3, 4}
    assert {len(t.setup.boards) for t in tables} == {1, 2, 3, 4, 5}
    assert len({t.players[0].coins for t in tables}) > 10
    corners = {tile.corner for t in tables for row in t.players[0].tiles for tile in row if tile}
    assert corners == set(rules.CORNERS)
    walkways = [rules.find_walkways(t.players[0].tiles, t.setup.walkway_corners)[0] for t in tables]
    assert sum(bool(w) for w in walkways) >= 10, "photographed gardens should often hold complete walkways"
    assert any(board.mission_points for t in tables for board in t.players)


@pytest.mark.parametrize("seed", range(5))
def test_cell_labels_are_players_0(seed: int) -> None:
    state = random_state(seed)
    garden = state["players"][0]
    labels = reader_for(PROFILE).cell_labels(PROFILE, state)
    assert labels["grid"] == [row.split(" ") for row in garden["tiles"]]
    coins = PROFILE.region("coins")
    assert len(labels["coins"]) == coins.rows
    assert all(len(row) == coins.cols for row in labels["coins"])
    marked = [
        r * coins.cols + c for r, row in enumerate(labels["coins"]) for c, v in enumerate(row) if v == "m"
    ]
    assert marked == [garden["coins"]]
    assert {v for row in labels["coins"] for v in row} <= {"m", "."}


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_draw_size_marker_and_determinism(pack: ArtPack) -> None:
    first = make_board(ARTIST, PROFILE, pack, np.random.default_rng(7), 4.0)
    again = make_board(ARTIST, PROFILE, pack, np.random.default_rng(7), 4.0)
    other = make_board(ARTIST, PROFILE, pack, np.random.default_rng(8), 4.0)
    image = first.drawing.image_bgr
    w, h = BoardFrame(PROFILE, 4.0).size_wh
    assert image.shape == (h, w, 3)
    assert image.dtype == np.uint8
    assert image.tobytes() == again.drawing.image_bgr.tobytes()
    assert image.tobytes() != other.drawing.image_bgr.tobytes()
    (marker,) = first.drawing.pieces
    coins = PROFILE.region("coins")
    value = first.state["players"][0]["coins"]
    assert (marker.x_mm, marker.y_mm) == cell_center_mm(coins, *divmod(value, coins.cols))
    assert 10 <= marker.diameter_mm <= 14
    assert 6 <= marker.height_mm <= 10


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
@pytest.mark.parametrize("attribute", list(VALUES))
def test_tiles_differ_in_every_attribute(pack: ArtPack, attribute: str) -> None:
    threshold = VISIBLE_CHANGE * SHARE[attribute]
    tiles = {v: tile(pack, {attribute: v}) for v in VALUES[attribute]}
    for a, b in itertools.combinations(VALUES[attribute], 2):
        diff = mean_difference(tiles[a], tiles[b])
        assert diff > threshold, (
            f"{pack.name}: {attribute} {a} vs {b} differ by {diff:.1f} <= {threshold:.1f}"
        )


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_paths_differ_on_every_floor(pack: ArtPack) -> None:
    # A sand path on a sand floor or a stone path on gravel is where paths are likeliest to blend in.
    threshold = VISIBLE_CHANGE * SHARE["path"]
    for floor in rules.FLOORS:
        base = rules.ZenTile(floor, "sand", "NW", "crane")
        for a, b in itertools.combinations(rules.PATHS, 2):
            diff = mean_difference(tile(pack, {"path": a}, base), tile(pack, {"path": b}, base))
            assert diff > threshold, f"{pack.name}: {a} vs {b} paths on {floor} differ by {diff:.1f}"


def test_a_walkway_block_draws_a_closed_ring() -> None:
    state = random_state(0)
    walkway = [["SsSEp", "SsSWb"], ["SsNEu", "SsNWg"]]
    rows = [row.split(" ") for row in state["players"][0]["tiles"]]
    for r, c in itertools.product(range(2), range(2)):
        rows[r][c] = walkway[r][c]
    state["players"][0]["tiles"] = [" ".join(row) for row in rows]
    pack = PACKS["meadow"]  # flat fill: the path's centre line shows its colour unmixed
    s = 4.0
    image = ARTIST.draw(PROFILE, state, pack, np.random.default_rng(0), s).image_bgr
    grid = PROFILE.region("grid")
    x0, _, x1, y1 = cell_rect_mm(grid, 0, 0)
    centre = np.array([x1, y1]) * s  # the corner the top-left tile's arc wraps
    radius = (x1 - x0) / 2 * s
    # Every direction round the block centre except the hairline gaps between the four tiles.
    angles = np.deg2rad([a for a in np.arange(0, 360, 2.0) if min(a % 90, 90 - a % 90) > 4])
    pts = np.round(centre + radius * np.column_stack([np.cos(angles), np.sin(angles)])).astype(int)
    on_ring = image[pts[:, 1], pts[:, 0]].astype(int)
    path_colour = np.array(pack.colour(art.SAND_PATH))
    assert np.all(np.abs(on_ring - path_colour).sum(axis=1) < 40)
    # ...and the ring is the path alone: half a path width further in lies the floor.
    inside = np.round(centre + 0.5 * radius * np.column_stack([np.cos(angles), np.sin(angles)])).astype(int)
    assert np.abs(image[inside[:, 1], inside[:, 0]].astype(int) - path_colour).sum(axis=1).mean() > 60


def test_a_photo_carries_the_labels() -> None:
    rng = np.random.default_rng(3)
    board = make_board(ARTIST, PROFILE, PACKS["ink"], rng, 4.0)
    photo = photograph([board], rng, PhotoOptions(size_wh=(1152, 648)))
    assert photo.decode().shape == (648, 1152, 3)
    (truth,) = photo.truth["boards"]
    assert truth["game"] == rules.GAME
    assert truth["cells"] == reader_for(PROFILE).cell_labels(PROFILE, board.state)
    assert truth["state"] == dict(board.state)
