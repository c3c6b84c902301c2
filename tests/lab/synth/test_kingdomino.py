from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lab.synth.art import get_pack
from lab.synth.camera import PhotoOptions, Placement, gap_mm, place_boards, place_props
from lab.synth.games.kingdomino import KingdominoArtist
from lab.synth.render import RenderSpec, render_photo
from lab.synth.scene import SyntheticBoard, make_board
from scoring import kingdomino as rules
from tests.lab.conftest import REAL_TILE_COLOURS
from vision.geometry import BoardFrame, cell_rect_mm
from vision.profile import default_profile
from vision.readers import reader_for

PROFILE = default_profile("kingdomino")
ARTIST = KingdominoArtist()


@pytest.mark.parametrize("seed", range(30))
def test_random_kingdoms_are_legal_and_mostly_laid(seed: int) -> None:
    state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
    kingdom = rules.parse_board(state)
    assert rules.check(kingdom) == ()
    cells = [cell for row in kingdom.cells for cell in row]
    assert len(cells) == 25 and cells.count(rules.CASTLE) == 1
    assert cells.count(rules.EMPTY) <= 8
    # Players join like terrains: some property of two squares or more forms on every board.
    assert max(len(area) for _, area in rules.properties(kingdom)) >= 2


def test_kingdoms_show_every_terrain_and_crown_count_across_seeds() -> None:
    seen = set()
    for seed in range(40):
        for row in ARTIST.random_state(PROFILE, np.random.default_rng(seed))["cells"]:
            seen.update(row)
    squares = {v for v in seen if ":" in v}
    assert {v.partition(":")[0] for v in squares} == set(rules.TERRAINS)
    assert {v.partition(":")[2] for v in squares} == {"0", "1", "2", "3"}


def test_squares_are_drawn_in_their_terrains_colours_and_the_castle_piece_stands_on_its_tile() -> None:
    state = {
        "game": "kingdomino",
        "cells": [
            ["field:0", "forest:0", "lake:0", "grassland:0", "swamp:0"],
            ["mine:0", "castle", *["mine:0"] * 3],
        ]
        + [["empty"] * 5] * 3,
    }
    drawings = [
        ARTIST.draw(PROFILE, state, get_pack("meadow"), np.random.default_rng(s), 3.0) for s in range(6)
    ]
    image = drawings[0].image_bgr
    assert image.shape == (*BoardFrame(PROFILE, 3.0).size_wh[::-1], 3)
    region = PROFILE.region("grid")

    def mean(r: int, c: int) -> np.ndarray:
        x0, y0, x1, y1 = (round(v * 3.0) for v in cell_rect_mm(region, r, c))
        return np.asarray(image[y0 + 10 : y1 - 10, x0 + 10 : x1 - 10].reshape(-1, 3).mean(axis=0))

    colours = [mean(0, c) for c in range(5)] + [mean(1, 0)]
    for a, b in itertools.combinations(colours, 2):
        assert np.abs(a - b).sum() > 30
    pieces = [p for d in drawings for p in d.pieces]
    assert pieces, "some kingdoms stand the 3D castle on its tile"
    x0, y0, x1, y1 = cell_rect_mm(region, 1, 1)
    assert all(x0 < p.x_mm < x1 and y0 < p.y_mm < y1 for p in pieces)


def test_a_rendered_photos_truth_is_its_readers_labels() -> None:
    photo = render_photo(RenderSpec(("kingdomino",), 4), 0)
    board = photo.truth["boards"][0]
    assert board["cells"] == reader_for(PROFILE).cell_labels(PROFILE, board["state"])


@pytest.mark.parametrize("seed", range(8))
def test_a_laid_kingdom_shows_the_table_where_squares_are_empty_and_its_real_squares_elsewhere(
    real_tiles: Path, seed: int
) -> None:
    board, props = ARTIST.laid(PROFILE, get_pack("meadow"), np.random.default_rng(seed), 2.0, real_tiles)
    cells = board.state["cells"]
    empty = [(r, c) for r in range(5) for c in range(5) if cells[r][c] == rules.EMPTY]
    assert len(empty) <= 8
    # Each side of the frame keeps a tile, so that the frame found is the kingdom's.
    for side in (cells[0], cells[-1], [row[0] for row in cells], [row[-1] for row in cells]):
        assert any(cell != rules.EMPTY for cell in side)
    region = PROFILE.region("grid")
    cover, image = board.drawing.cover, board.drawing.image_bgr
    assert cover is not None
    for r, c in region.cells():
        x0, y0, x1, y1 = (round(v * 2.0) for v in cell_rect_mm(region, r, c))
        middle = (
            slice((y0 + y1) // 2 - 5, (y0 + y1) // 2 + 5),
            slice((x0 + x1) // 2 - 5, (x0 + x1) // 2 + 5),
        )
        if (r, c) in empty:
            assert cover[middle].max() == 0
            continue
        assert cover[middle].min() == 255
        # The truth is the label of the square laid there.
        shown = image[middle].reshape(-1, 3).mean(axis=0)
        assert np.abs(shown - REAL_TILE_COLOURS[cells[r][c]]).max() < 12
        # Tiles lie a hairline apart: the table shows between neighbours.
        if c + 1 < 5 and cells[r][c + 1] != rules.EMPTY:
            assert cover[(y0 + y1) // 2, x1 - 1 : x1 + 1].max() == 0
    # Beside it, a card and 2-4 loose dominoes, none of them a board of the truth.
    names = [p.profile.name for p in props]
    assert names[0] == "reference card" and 2 <= names.count("loose domino") == len(names) - 1 <= 4
    assert all(p.state == {} for p in props)


def test_things_laid_beside_a_kingdom_lie_near_it_and_apart() -> None:
    rng = np.random.default_rng(3)
    kingdom = make_board(ARTIST, PROFILE, get_pack("meadow"), rng, 1.0)
    small = replace(PROFILE, name="loose domino", size_mm=(90.0, 45.0))
    props = [SyntheticBoard(small, "", {}, {}, kingdom.drawing) for _ in range(5)]
    (placed,) = place_boards([kingdom], rng)
    laid = place_props([placed], props, rng)
    assert len(laid) == 5

    def outline(p: Placement) -> np.ndarray:
        w, h = p.board.profile.size_mm
        corners = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float64)
        return (np.column_stack([corners, np.ones(4)]) @ p.board_to_world().T)[:, :2]

    for i, p in enumerate(laid):
        assert 5 <= gap_mm(outline(p), outline(placed)) <= 80
        assert all(gap_mm(outline(p), outline(q)) >= 5 for q in laid[i + 1 :])


def test_a_photo_of_a_laid_kingdom_lists_the_kingdom_alone(real_tiles: Path) -> None:
    options = PhotoOptions((1600, 1200), max_tilt_deg=65, min_tilt_deg=45)
    photo = render_photo(RenderSpec(("kingdomino",), 5, options=options, clutter=real_tiles), 0)
    (board,) = photo.truth["boards"]
    assert board["cells"] == reader_for(PROFILE).cell_labels(PROFILE, board["state"])
    with pytest.raises(ValueError, match="alices-garden: a printed board"):
        RenderSpec(("alices-garden",), 5, clutter=real_tiles)
