from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.profiles import custom_profile
from lab.synth.games import get_artist
from vision.profile import default_profile
from vision.read.classify import CellPredictions
from vision.read.reconstruct import settle
from vision.readers import IGNORE, READERS, Reading, get_reader, reader_for


def _readings(game: str, cells: dict[str, list[list[str]]]) -> dict[tuple[str, int, int], Reading]:
    reader = get_reader(game)
    profile = default_profile(game)
    out: dict[tuple[str, int, int], Reading] = {}
    for name in reader.regions:
        for r, c in profile.region(name).cells():
            key = (name, r, c)
            targets = reader.targets(profile, key, cells[name][r][c])
            out[key] = {
                h.name: (h.classes[targets[h.name]] if targets[h.name] != IGNORE else h.classes[0], 0.99)
                for h in reader.heads
            }
    return out


# The shared boards (Four Gardens, Tang Garden) have their own round-trip tests beside their readers.
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("game", ["alices-garden", "sanssouci", "zen-garden", "kingdomino"])
def test_truth_labels_assemble_back_into_the_state(game: str, seed: int) -> None:
    artist = get_artist(game)
    profile = default_profile(game)
    state: dict[str, Any] = dict(artist.random_state(profile, np.random.default_rng(seed)))
    cells = reader_for(profile).cell_labels(profile, state)
    reader = get_reader(game)
    if game == "zen-garden":
        player = state["players"][0]
        hand = {"mission_points": player.get("mission_points", {})}
        got = reader.assemble(profile, _readings(game, dict(cells)), hand)
        assert got["tiles"] == player["tiles"]
        assert got["coins"] == player["coins"]
    elif game == "sanssouci":
        hand = {"missions": state["missions"], "track_score": state["track_score"]}
        got = reader.assemble(profile, _readings(game, dict(cells)), hand)
        assert got["rows"] == state["rows"]
        assert got["noblemen"] == state["noblemen"]
    elif game == "kingdomino":
        got = reader.assemble(profile, _readings(game, dict(cells)), {})
        assert got["cells"] == state["cells"]
        assert got["setup"] == state["setup"]
    else:
        got = reader.assemble(profile, _readings(game, dict(cells)), {"unplaced_bonus_tiles": 1})
        assert got["rows"] == state["rows"]
        assert got["unplaced_bonus_tiles"] == 1


def test_every_class_is_named_once_and_unknown_labels_are_refused() -> None:
    for reader in READERS.values():
        for head in reader.heads:
            assert len(set(head.classes)) == len(head.classes)
    with pytest.raises(ValueError, match="is not a class of head 'square'"):
        get_reader("sanssouci").targets(default_profile("sanssouci"), ("grid", 0, 0), "X")
    with pytest.raises(ValueError, match="no photo reader for 'chess'"):
        get_reader("chess")


def test_empty_alice_cells_split_into_grass_and_chess() -> None:
    reader = get_reader("alices-garden")
    profile = default_profile("alices-garden")
    assert reader.heads[0].classes[reader.targets(profile, ("grid", 0, 0), ".")["cell"]] == "empty_grass"
    assert reader.heads[0].classes[reader.targets(profile, ("grid", 0, 3), ".")["cell"]] == "empty_chess"
    assert reader.heads[0].classes[reader.targets(profile, ("grid", 0, 3), "C")["cell"]] == "chess_piece"


def test_each_region_reads_only_its_own_heads() -> None:
    for reader in READERS.values():
        names = {h.name for h in reader.heads}
        for region in reader.regions:
            assert set(reader.region_heads(region)) <= names
    assert get_reader("zen-garden").region_heads("coins") == ("marker",)
    assert get_reader("sanssouci").region_heads("terrace") == ("noble",)


def test_a_kingdoms_castle_and_bare_places_show_no_crowns() -> None:
    reader, profile = get_reader("kingdomino"), default_profile("kingdomino")
    crowns = reader.heads[1]
    for label in ("castle", "empty", "mine:0"):
        assert crowns.classes[reader.targets(profile, ("grid", 0, 0), label)["crowns"]] == "0"
    targets = reader.targets(profile, ("grid", 0, 0), "mine:3")
    assert reader.heads[0].classes[targets["terrain"]] == "mine" and crowns.classes[targets["crowns"]] == "3"


def _settled(reader: Any, profile: Any, head: str, rows: list[list[float]]) -> list[str]:
    """Each cell's class after the reader's counts, from per-cell probabilities ``rows`` on ``head`` (the
    grid's cells in order; every other head sure of its first class)."""
    keys = tuple(("grid", r, c) for r, c in profile.region("grid").cells())
    probabilities = {
        h.name: np.asarray(rows, np.float32)
        if h.name == head
        else np.eye(len(h.classes), dtype=np.float32)[np.zeros(len(keys), int)]
        for h in reader.heads
    }
    predictions = CellPredictions(keys, reader.heads, probabilities, np.zeros((len(keys), 1), np.float32))
    settled = settle(predictions, (), counted=reader.counted(profile, {})).readings()
    return [settled[key][head][0] for key in keys]


def test_a_kingdom_reads_exactly_one_castle_on_the_square_likeliest_to_show_it() -> None:
    reader, profile = get_reader("kingdomino"), default_profile("kingdomino")
    terrain = reader.heads[0]
    castle, swamp = terrain.classes.index("castle"), terrain.classes.index("swamp")
    cells = len(list(profile.region("grid").cells()))

    def cell(castle_p: float) -> list[float]:
        p = [0.0] * len(terrain.classes)
        p[castle], p[swamp] = castle_p, 1 - castle_p
        return p

    # Two squares read as castles: the surer keeps it, the other is its swamp.
    read = _settled(reader, profile, "terrain", [cell(0.9), cell(0.6)] + [cell(0.0)] * (cells - 2))
    assert read[:2] == ["castle", "swamp"] and read.count("castle") == 1
    # None read as a castle (a flat castle tile taken for a swamp): the likeliest one is.
    read = _settled(reader, profile, "terrain", [cell(0.1)] * 5 + [cell(0.3)] + [cell(0.0)] * (cells - 6))
    assert read.index("castle") == 5 and read.count("castle") == 1
    # Each square is read four ways, turned, and the two heads averaged over the four.
    look = reader.turned_look
    assert look is not None and set(look.unturned) == {"terrain", "crowns"} and not look.compass


def test_a_custom_grids_once_labels_are_read_on_exactly_one_cell() -> None:
    profile = custom_profile("mine", 2, 2, ["empty", "start", "pond"], {}, once=["start"])
    reader = reader_for(profile)
    rows = [[0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.0, 0.9, 0.1], [0.7, 0.0, 0.3]]
    # Two cells read as the starting tile: the surer keeps it, the other reads its next likeliest label.
    assert _settled(reader, profile, "cell", rows) == ["pond", "pond", "start", "empty"]
    free = custom_profile("mine", 2, 2, ["empty", "start", "pond"], {})
    assert _settled(reader_for(free), free, "cell", rows) == ["start", "pond", "start", "empty"]
