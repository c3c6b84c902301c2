from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pytest

from lab.synth.art import PACKS, ArtPack, Image, paper
from lab.synth.camera import PhotoOptions, photograph
from lab.synth.games.sanssouci import (
    BOARD,
    GARDENER_ARTWORKS,
    GLYPHS,
    PLAYER_COLOURS,
    ROW_COLOURS,
    SanssouciArtist,
    draw_square,
    draw_symbol,
)
from lab.synth.scene import make_board
from scoring import sanssouci as rules
from tests.support import MIN_DIFFERENCE, mean_abs_difference, top_view
from vision.geometry import BoardFrame, cell_at_mm
from vision.profile import default_profile
from vision.readers import reader_for
from vision.readers.sanssouci import player_colour

ARTIST = SanssouciArtist()
PROFILE = default_profile("sanssouci")
PX = 4.0
SEEDS = range(30)


def _board(seed: int) -> rules.SanssouciBoard:
    return rules.parse_board(ARTIST.random_state(PROFILE, np.random.default_rng(seed)))


def test_random_states_are_legal_gardens_mostly_finished() -> None:
    gardeners = terrace = deep = mid_game = 0
    for seed in SEEDS:
        state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
        board = rules.parse_board(state)
        assert rules.check(board) == ()
        assert board.rows[0] == rules.PREPRINTED * rules.COLS
        covered = sum(ch in rules.COVERED for row in board.rows[1:] for ch in row)
        assert 0.19 <= covered / 45 <= 1.0
        mid_game += covered / 45 < 0.54
        assert state["setup"]["column_symbols"] == PROFILE.setup["column_symbols"]
        assert len(set(board.missions)) == 2
        assert 0 <= board.track_score < 150
        gardeners += rules.gardener_count(board)
        terrace += board.noblemen.count(rules.TERRACE)
        deep += sum(n >= 3 for n in board.noblemen)
    # Plausible gardens have some gardener tiles, a few idle noblemen and many that walked far; a few are
    # drawn mid-game (the live view reads those too).
    assert 0 < mid_game < len(SEEDS) / 2
    assert gardeners > 0
    assert 0 < terrace < 30 * 9 / 4
    assert deep > 30 * 9 / 3


def test_a_known_board_side_keeps_its_preprinted_squares() -> None:
    setup = {**PROFILE.setup, "preprinted": [[2, 4], [5, 9]]}
    profile = dataclasses.replace(PROFILE, setup=setup)
    for seed in range(10):
        board = rules.parse_board(ARTIST.random_state(profile, np.random.default_rng(seed)))
        assert rules.check(board) == ()
        printed = {(r, c) for r, row in enumerate(board.rows[1:], 1) for c, ch in enumerate(row) if ch == "#"}
        assert printed == {(1, 3), (4, 8)}


def test_cell_labels_follow_the_state() -> None:
    for seed in SEEDS:
        state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
        board = rules.parse_board(state)
        colour = player_colour(board)
        cells = reader_for(PROFILE).cell_labels(PROFILE, state)
        assert set(cells) == {"terrace", "grid"}
        assert len(cells["terrace"]) == 1 and len(cells["terrace"][0]) == 9
        assert len(cells["grid"]) == 6 and all(len(row) == 9 for row in cells["grid"])
        for c in range(9):
            column = [cells["terrace"][0][c]] + [cells["grid"][r][c] for r in range(6)]
            nobles = [i for i, label in enumerate(column) if "+" in label]
            assert nobles == [board.noblemen[c]]  # index 0 is the terrace, as in the state
            assert column[nobles[0]].endswith(f"+{colour}")
        codes = [[label.split("+")[0] for label in row] for row in cells["grid"]]
        assert ["".join(row) for row in codes] == list(board.rows)


def test_player_colour_is_stable_and_uses_every_colour() -> None:
    board = rules.SanssouciBoard(
        ("#########", "S.S.S.S..", "SSSSSSSSS", "..S.S.S..", "..S.G.S..", "....S.S..")
    )
    # crc32 is the same in every process and Python version, unlike hash(): truth files stay reproducible.
    assert player_colour(board) == "blue"
    assert {player_colour(_board(seed)) for seed in SEEDS} == set(PLAYER_COLOURS)


def test_draw_places_one_nobleman_per_column_on_his_square() -> None:
    state = ARTIST.random_state(PROFILE, np.random.default_rng(3))
    board = rules.parse_board(state)
    cells = reader_for(PROFILE).cell_labels(PROFILE, state)
    drawing = ARTIST.draw(PROFILE, state, PACKS["meadow"], np.random.default_rng(3), PX)
    w, h = BoardFrame(PROFILE, PX).size_wh
    assert drawing.image_bgr.shape == (h, w, 3)
    assert len(drawing.pieces) == 9
    colour = PLAYER_COLOURS[player_colour(board)]
    for c, piece in enumerate(drawing.pieces):
        region = PROFILE.region("terrace" if board.noblemen[c] == rules.TERRACE else "grid")
        r, col = cell_at_mm(region, piece.x_mm, piece.y_mm) or (-1, -1)
        assert col == c
        assert "+" in cells[region.name][r][col]
        assert piece.height_mm == pytest.approx(22, abs=3) and piece.diameter_mm == pytest.approx(12, abs=2)
        middle = piece.top_bgra[piece.top_bgra.shape[0] // 2, piece.top_bgra.shape[1] // 2]
        assert tuple(middle[:3]) == colour and middle[3] == 255


def test_same_seed_same_picture_and_different_seeds_differ() -> None:
    pack = PACKS["ink"]
    state = ARTIST.random_state(PROFILE, np.random.default_rng(5))
    a = ARTIST.draw(PROFILE, state, pack, np.random.default_rng(9), PX)
    b = ARTIST.draw(PROFILE, state, pack, np.random.default_rng(9), PX)
    assert a.image_bgr.tobytes() == b.image_bgr.tobytes()
    assert [(p.x_mm, p.y_mm) for p in a.pieces] == [(p.x_mm, p.y_mm) for p in b.pieces]
    other = make_board(ARTIST, PROFILE, pack, np.random.default_rng(6), PX)
    assert other.drawing.image_bgr.tobytes() != a.image_bgr.tobytes()
    assert other.state != state


def _square(code: str, symbol: str, row: int, artwork: int, pack: ArtPack) -> Image:
    """One 28 mm square on the board's paper; the same seed gives every variant the same grain."""
    rng = np.random.default_rng(0)
    size = round(28 * PX)
    image = paper((size, size), pack.colour(BOARD), pack.grain, rng)
    draw_square(image, (0, 0, size, size), code, symbol, ROW_COLOURS[row], artwork, pack, rng)
    return image


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_every_square_label_is_distinguishable(pack: ArtPack) -> None:
    squares: dict[tuple[str, str], Image] = {
        (".", f"row {r + 1}"): _square(".", "", r, 0, pack) for r in range(6)
    }
    squares["#", "preprinted"] = _square("#", "", 1, 0, pack)
    squares |= {("S", symbol): _square("S", symbol, 1, 0, pack) for symbol in GLYPHS}
    squares |= {("G", f"artwork {a}"): _square("G", "", 1, a, pack) for a in range(GARDENER_ARTWORKS)}
    for (ka, a), (kb, b) in itertools.combinations(squares.items(), 2):
        difference = mean_abs_difference(a, b)
        if ka[0] != kb[0] or ka[0] == "S":
            # Different labels, and the nine column symbols among themselves.
            assert difference > MIN_DIFFERENCE, (ka, kb, difference)
        else:
            # Empty squares of different rows and gardener artworks share a label; they need only not be
            # copies (the grain and jitter are the same, so any real drawing difference shows).
            assert difference > 1.0, (ka, kb, difference)


def _with_noble(state: dict[str, Any], row: int) -> dict[str, Any]:
    return {**state, "noblemen": [row, *state["noblemen"][1:]]}


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_noblemen_are_distinguishable_on_the_terrace(pack: ArtPack) -> None:
    by_colour: dict[str, dict[str, Any]] = {}
    for seed in SEEDS:
        state = dict(ARTIST.random_state(PROFILE, np.random.default_rng(seed)))
        by_colour.setdefault(player_colour(rules.parse_board(state)), state)
    frame = BoardFrame(PROFILE, PX)
    terrace = PROFILE.region("terrace")
    x0, y0, x1, y1 = frame.cell_box_px(terrace, 0, 0)
    crops = {}
    first = next(iter(by_colour.values()))
    # Row 1 is all preprinted, so a nobleman may always stand there instead of on the terrace.
    variants = {"": _with_noble(first, 1)} | {c: _with_noble(s, rules.TERRACE) for c, s in by_colour.items()}
    for colour, state in variants.items():
        label = reader_for(PROFILE).cell_labels(PROFILE, state)["terrace"][0][0]
        assert label == ("." if not colour else f".+{colour}")
        crops[label] = top_view(ARTIST.draw(PROFILE, state, pack, np.random.default_rng(0), PX))[y0:y1, x0:x1]
    assert len(crops) == 5
    for (la, a), (lb, b) in itertools.combinations(crops.items(), 2):
        assert mean_abs_difference(a, b) > MIN_DIFFERENCE, (la, lb, mean_abs_difference(a, b))


def test_unknown_art_is_refused() -> None:
    image = np.zeros((40, 40, 3), np.uint8)
    with pytest.raises(ValueError, match="no art for Sanssouci symbol 'gnome'"):
        draw_symbol(image, "gnome", (20, 20), 30, PACKS["meadow"])
    with pytest.raises(ValueError, match="no art for Sanssouci square 'X'"):
        draw_square(
            image, (0, 0, 40, 40), "X", "statue", ROW_COLOURS[0], 0, PACKS["meadow"], np.random.default_rng(0)
        )


def test_a_photo_of_the_board_carries_its_truth() -> None:
    board = make_board(ARTIST, PROFILE, PACKS["linocut"], np.random.default_rng(11), PX)
    photo = photograph([board], np.random.default_rng(12), PhotoOptions(size_wh=(1152, 648)))
    assert photo.decode().shape == (648, 1152, 3)
    (truth,) = photo.truth["boards"]
    assert truth["game"] == "sanssouci"
    assert truth["state"] == dict(board.state)
    assert truth["cells"] == reader_for(PROFILE).cell_labels(PROFILE, board.state)
    corners = np.array(truth["corners_xy"])
    assert np.all((corners >= 0) & (corners <= [1152, 648]))
