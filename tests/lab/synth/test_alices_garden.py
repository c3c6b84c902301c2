from __future__ import annotations

import itertools

import numpy as np
import pytest

from lab.synth.art import PACKS, get_pack, paper
from lab.synth.games.alices_garden import SYMBOLS, AliceArtist, draw_symbol
from scoring import alices_garden as rules
from vision.geometry import BoardFrame
from vision.profile import default_profile
from vision.readers import reader_for

PROFILE = default_profile("alices-garden")
ARTIST = AliceArtist()


@pytest.mark.parametrize("seed", range(30))
def test_random_states_are_plausible_finished_boards(seed: int) -> None:
    state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
    board = rules.parse_board(state)
    assert rules.check(board) == ()
    cells = "".join(board.rows)
    # Tetrominoes dropped until the board jams leave most of it covered, never all of it empty.
    assert cells.count(rules.EMPTY) <= 0.35 * len(cells)
    assert reader_for(PROFILE).cell_labels(PROFILE, state) == {"grid": [list(row) for row in board.rows]}


def test_states_vary_between_seeds() -> None:
    states = {tuple(ARTIST.random_state(PROFILE, np.random.default_rng(s))["rows"]) for s in range(10)}
    assert len(states) == 10


def test_drawing_size_and_determinism() -> None:
    state = ARTIST.random_state(PROFILE, np.random.default_rng(1))
    draw = [
        ARTIST.draw(PROFILE, state, get_pack("ink"), np.random.default_rng(s), 4.0).image_bgr
        for s in (5, 5, 6)
    ]
    assert draw[0].shape == (*BoardFrame(PROFILE, 4.0).size_wh[::-1], 3)
    assert np.array_equal(draw[0], draw[1])
    assert not np.array_equal(draw[0], draw[2])


def _symbol(label: str, pack_name: str) -> np.ndarray:
    pack = get_pack(pack_name)
    cell = paper((100, 100), (200, 235, 245), 0.0, np.random.default_rng(0))
    draw_symbol(cell, label, (50.0, 50.0), 80.0, pack)
    return cell.astype(np.float32)


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_every_symbol_is_distinguishable_in_every_pack(pack: str) -> None:
    # A mean difference of 8 grey levels over a whole cell is far above JPEG and sensor noise (about 2-3).
    for a, b in itertools.combinations(SYMBOLS, 2):
        assert np.abs(_symbol(a, pack) - _symbol(b, pack)).mean() > 8, (pack, a, b)


def test_packs_draw_the_same_symbol_differently() -> None:
    for label in SYMBOLS:
        for a, b in itertools.combinations(sorted(PACKS), 2):
            assert np.abs(_symbol(label, a) - _symbol(label, b)).mean() > 3, (label, a, b)


def test_unknown_label_has_no_art() -> None:
    with pytest.raises(ValueError, match="no art"):
        _symbol("X", "ink")
