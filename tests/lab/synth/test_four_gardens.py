from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from lab.synth.art import PACKS, ArtPack, Image
from lab.synth.camera import PhotoOptions, photograph
from lab.synth.games.four_gardens import (
    MARKER_COLOURS,
    FourGardensArtist,
    FourGardensRewardArtist,
)
from lab.synth.scene import make_board
from scoring import four_gardens as rules
from tests.support import MIN_DIFFERENCE, mean_abs_difference, top_view
from vision.geometry import BoardFrame, cell_at_mm
from vision.profile import default_profile
from vision.readers import reader_for

ARTIST = FourGardensArtist()
PROFILE = default_profile("four-gardens")
REWARD = FourGardensRewardArtist()
REWARD_PROFILE = default_profile(REWARD.profile_name)
TRACKS = PROFILE.setup["tracks"]
PX = 4.0
SEEDS = range(30)


def _table(red_space: Mapping[str, int | None]) -> dict[str, Any]:
    """A table whose markers all sit on one red space (or are removed) and nowhere else."""
    players = [
        {
            "name": colour,
            "colour": colour,
            "positions": {t: red_space[colour] if t == "red" else None for t in TRACKS},
        }
        for colour in red_space
    ]
    return {"game": "four-gardens", "setup": dict(PROFILE.setup), "players": players}


def test_random_states_are_legal_scoreboards() -> None:
    counts: Counter[int] = Counter()
    markers = removed = 0
    for seed in SEEDS:
        state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
        table = rules.parse(state)
        assert rules.check(table) == ()
        assert rules.score(table).players  # it scores, not only parses
        counts[len(table.players)] += 1
        colours = [p.colour for p in table.players]
        assert len(set(colours)) == len(colours) and set(colours) <= set(MARKER_COLOURS)
        rewards = [v for p in table.players for v in p.extra_rewards]
        assert len(set(rewards)) == len(rewards) and all(1 <= v <= 9 for v in rewards)
        for p in table.players:
            assert list(p.positions) == TRACKS
            assert len(p.extra_rewards) <= 1
            for pos in p.positions.values():
                markers += 1
                removed += pos is None
                assert pos is None or 0 <= pos <= 11
    assert set(counts) == {2, 3, 4}
    assert 0 < removed < 0.1 * markers  # a removed marker happens, but rarely


def test_cell_labels_list_the_markers_on_each_space() -> None:
    for seed in SEEDS:
        state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
        table = rules.parse(state)
        cells = reader_for(PROFILE).cell_labels(PROFILE, state)
        assert set(cells) == {f"track:{t}" for t in TRACKS}
        for track in TRACKS:
            (row,) = cells[f"track:{track}"]
            assert len(row) == 12
            for space, label in enumerate(row):
                here = sorted(p.colour for p in table.players if p.positions[track] == space)
                assert label == ("+".join(here) if here else ".")
            on_track = sum(p.positions[track] is not None for p in table.players)
            assert sum(len(label.split("+")) for label in row if label != ".") == on_track


def test_draw_stands_every_marker_visibly_on_its_space() -> None:
    crowded = 0
    for seed in range(8):
        state = ARTIST.random_state(PROFILE, np.random.default_rng(seed))
        cells = reader_for(PROFILE).cell_labels(PROFILE, state)
        drawing = ARTIST.draw(PROFILE, state, PACKS["mosaic"], np.random.default_rng(seed), PX)
        w, h = BoardFrame(PROFILE, PX).size_wh
        assert drawing.image_bgr.shape == (h, w, 3)
        expected: Counter[tuple[str, int]] = Counter()
        for track in TRACKS:
            for space, label in enumerate(cells[f"track:{track}"][0]):
                if label != ".":
                    expected[track, space] = len(label.split("+"))
        found: Counter[tuple[str, int]] = Counter()
        for piece in drawing.pieces:
            hits = [(t, cell_at_mm(PROFILE.region(f"track:{t}"), piece.x_mm, piece.y_mm)) for t in TRACKS]
            ((track, (_, space)),) = [(t, cell) for t, cell in hits if cell is not None]
            found[track, space] += 1
            assert piece.diameter_mm == pytest.approx(10, abs=2) and piece.height_mm == pytest.approx(
                10, abs=2
            )
        assert found == expected
        for a, b in itertools.combinations(drawing.pieces, 2):
            # Markers that share a space stand apart, so none hides another seen from above.
            assert np.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) >= a.diameter_mm
        crowded += sum(n > 1 for n in found.values())
    assert crowded > 0  # the test did see shared spaces


def test_same_seed_same_picture_and_different_seeds_differ() -> None:
    pack = PACKS["linocut"]
    state = ARTIST.random_state(PROFILE, np.random.default_rng(4))
    a = ARTIST.draw(PROFILE, state, pack, np.random.default_rng(7), PX)
    b = ARTIST.draw(PROFILE, state, pack, np.random.default_rng(7), PX)
    assert a.image_bgr.tobytes() == b.image_bgr.tobytes()
    assert [(p.x_mm, p.y_mm) for p in a.pieces] == [(p.x_mm, p.y_mm) for p in b.pieces]
    other = make_board(ARTIST, PROFILE, pack, np.random.default_rng(5), PX)
    assert other.drawing.image_bgr.tobytes() != a.image_bgr.tobytes()
    assert other.state != state


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_marker_labels_are_distinguishable(pack: ArtPack) -> None:
    crowds = [{"white": None}] + [{c: 5} for c in MARKER_COLOURS]
    crowds += [{"black": 5, "white": 5}, {"blue": 5, "orange": 5}, {"orange": 5, "white": 5, "black": 5}]
    crowds += [dict.fromkeys(MARKER_COLOURS, 5)]
    red = PROFILE.region("track:red")
    x0, y0, x1, y1 = BoardFrame(PROFILE, PX).cell_box_px(red, 0, 5)
    crops = {}
    for crowd in crowds:
        state = _table(crowd)
        assert rules.check(rules.parse(state)) == ()
        label = reader_for(PROFILE).cell_labels(PROFILE, state)["track:red"][0][5]
        crops[label] = top_view(ARTIST.draw(PROFILE, state, pack, np.random.default_rng(0), PX))[y0:y1, x0:x1]
    assert len(crops) == len(crowds)
    for (la, a), (lb, b) in itertools.combinations(crops.items(), 2):
        assert mean_abs_difference(a, b) > MIN_DIFFERENCE, (la, lb, mean_abs_difference(a, b))


def test_unknown_track_or_marker_colour_is_refused() -> None:
    state = _table({"white": 3})
    state["players"][0]["colour"] = "pink"
    with pytest.raises(ValueError, match="marker colour 'pink'"):
        reader_for(PROFILE).cell_labels(PROFILE, state)
    state = _table({"white": 3})
    state["setup"] = {"tracks": ["red", "purple", "green", "teal"]}
    for p in state["players"]:
        p["positions"] = {"red": 1, "purple": 1, "green": 1, "teal": 1}
    with pytest.raises(ValueError, match="no art for God track 'teal'"):
        ARTIST.draw(PROFILE, state, PACKS["meadow"], np.random.default_rng(0), PX)


def test_a_photo_of_the_scoreboard_carries_its_truth() -> None:
    board = make_board(ARTIST, PROFILE, PACKS["meadow"], np.random.default_rng(21), PX)
    photo = photograph([board], np.random.default_rng(22), PhotoOptions(size_wh=(1152, 648)))
    assert photo.decode().shape == (648, 1152, 3)
    (truth,) = photo.truth["boards"]
    assert truth["profile"] == PROFILE.name
    assert truth["state"] == dict(board.state)
    assert truth["cells"] == reader_for(PROFILE).cell_labels(PROFILE, board.state)


def test_reward_tile_states_and_labels() -> None:
    assert REWARD.game == "four-gardens" and REWARD_PROFILE.game == REWARD.game
    assert REWARD_PROFILE.name == "four-gardens-reward"
    values = set()
    for seed in SEEDS:
        state = REWARD.random_state(REWARD_PROFILE, np.random.default_rng(seed))
        assert set(state) == {"tile", "value"} and state["tile"] == "extra-rewards"
        values.add(state["value"])
        assert reader_for(REWARD_PROFILE).cell_labels(REWARD_PROFILE, state) == {
            "number": [[str(state["value"])]]
        }
    assert values <= set(range(1, 10)) and len(values) >= 7
    for bad in ({"tile": "extra-rewards", "value": 0}, {"tile": "take-wilds", "value": 3}, {"value": "4"}):
        with pytest.raises(ValueError, match="Extra-rewards tile"):
            reader_for(REWARD_PROFILE).cell_labels(REWARD_PROFILE, bad)


def _tile(value: int, pack: ArtPack, seed: int = 0) -> Image:
    state = {"tile": "extra-rewards", "value": value}
    return REWARD.draw(REWARD_PROFILE, state, pack, np.random.default_rng(seed), PX).image_bgr


@pytest.mark.parametrize("pack", PACKS.values(), ids=list(PACKS))
def test_every_reward_digit_is_distinguishable(pack: ArtPack) -> None:
    w, h = BoardFrame(REWARD_PROFILE, PX).size_wh
    x0, y0, x1, y1 = BoardFrame(REWARD_PROFILE, PX).cell_box_px(REWARD_PROFILE.region("number"), 0, 0)
    tiles = {v: _tile(v, pack) for v in range(1, 10)}
    assert all(t.shape == (h, w, 3) for t in tiles.values())
    for (va, a), (vb, b) in itertools.combinations(tiles.items(), 2):
        assert mean_abs_difference(a[y0:y1, x0:x1], b[y0:y1, x0:x1]) > MIN_DIFFERENCE, (va, vb)
    # A tile can lie any way round: a 6 turned upside down must still not pass for a 9.
    assert mean_abs_difference(np.ascontiguousarray(tiles[6][::-1, ::-1]), tiles[9]) > MIN_DIFFERENCE
    assert _tile(4, pack).tobytes() == tiles[4].tobytes()
    assert _tile(4, pack, seed=1).tobytes() != tiles[4].tobytes()


def test_a_photo_of_a_reward_tile_carries_its_truth() -> None:
    board = make_board(REWARD, REWARD_PROFILE, PACKS["ink"], np.random.default_rng(31), PX)
    photo = photograph([board], np.random.default_rng(32), PhotoOptions(size_wh=(1152, 648)))
    (truth,) = photo.truth["boards"]
    assert truth["profile"] == "four-gardens-reward"
    assert truth["state"] == dict(board.state)
    assert truth["cells"] == {"number": [[str(board.state["value"])]]}
