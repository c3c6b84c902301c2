from __future__ import annotations

import itertools

import numpy as np
import pytest

from lab.synth.art import get_pack
from lab.synth.games.kingdomino import KingdominoArtist
from lab.synth.render import RenderSpec, render_photo
from scoring import kingdomino as rules
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
