"""The bench counts a board read at another size than the truth's as wrongly read, not as a crash; it draws
Mighty Duel kingdoms and kingdoms laid among things of their art as asked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from device.photo import ScoredBoard, score_image
from lab import bench
from lab.bench import BenchResult, tally_found
from lab.cli import _real_tiles
from lab.synth.camera import PHONE_WH
from lab.synth.render import RenderSpec, render_photo
from scoring.core import StateError
from vision.profile import BoardProfile, default_profile
from vision.readers import reader_for
from vision.readers.kingdomino import sized


def test_a_kingdom_read_at_another_size_than_its_truth_counts_every_square_wrong() -> None:
    photo = render_photo(RenderSpec(("kingdomino",), 20261121), 0)
    board = photo.truth["boards"][0]
    corners = np.array(board["corners_xy"], np.float64)
    (match,) = score_image(photo.decode(), "kingdomino", {}, photo.camera(), corners_xy=corners)
    # The truth a Mighty Duel kingdom's (7 x 7): the 5 x 5 reading has no square where its squares are.
    duel = sized(default_profile("kingdomino"), {"setup": {"size": 7}})
    cells = {"grid": [["field:0"] * 7 for _ in range(7)]}
    result = BenchResult("kingdomino", ("meadow",), 1)
    tally_found(result, "kingdomino", duel, reader_for(duel), cells, board["state"], match, [match])
    assert (result.found, result.perfect) == (1, 0)
    assert result.cells == result.cell_errors == result.found_cell_errors == 49
    assert result.regions["grid"] == [0, 1]


def test_the_bench_reads_a_mighty_duel_kingdom_with_no_size_given(monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[tuple[int, int]] = []

    def scorer(
        image: object,
        game: str,
        hand: object,
        camera: object,
        profiles: list[BoardProfile],
        *_: object,
        **__: object,
    ) -> list[ScoredBoard]:
        told.extend((p.region("grid").rows, p.region("grid").cols) for p in profiles)
        return []

    monkeypatch.setattr(bench, "score_image", scorer)
    result = bench.run_bench("kingdomino", 1, 20261130, mighty_duel=True, workers=1)
    # Drawn 7 x 7 (its 49 squares counted), read as a player who left the set-up as it was: 5 x 5, no size.
    assert told == [(5, 5)]
    assert (result.boards, result.found, result.cells) == (1, 0, 49)
    assert "7 x 7 kingdoms (the Mighty Duel), read with no size given" in bench.format_table([result.table()])


def test_the_bench_reads_a_mighty_duel_kingdom_told_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    hands: list[object] = []

    def scorer(image: object, game: str, hand: object, *_: object, **__: object) -> list[ScoredBoard]:
        hands.append(hand)
        return []

    monkeypatch.setattr(bench, "score_image", scorer)
    result = bench.run_bench("kingdomino", 1, 20261130, mighty_duel=True, size_told=True, workers=1)
    # As a player who set the game up as a Mighty Duel on the page: the set-up's size sent with the photo.
    assert [h["setup"]["size"] for h in hands] == [7]  # type: ignore[index]
    assert "7 x 7 kingdoms (the Mighty Duel), told the set-up's size" in bench.format_table([result.table()])


def test_the_bench_lays_kingdoms_among_things_of_their_art_in_phone_photos(
    monkeypatch: pytest.MonkeyPatch, real_tiles: Path
) -> None:
    seen: list[tuple[int, ...]] = []

    def scorer(image: np.ndarray, *_: object, **__: object) -> list[ScoredBoard]:
        seen.append(image.shape)
        return []

    monkeypatch.setattr(bench, "score_image", scorer)
    result = bench.run_bench("kingdomino", 1, 20261130, clutter=real_tiles, workers=1)
    assert seen == [(*PHONE_WH[::-1], 3)]
    assert result.table()["clutter"] and (result.boards, result.found) == (1, 0)


def test_clutter_needs_the_real_tiles_photos(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import lab.train.classifier as recipes

    monkeypatch.setattr(recipes, "real_folder", lambda _: tmp_path / "absent")
    with pytest.raises(
        StateError, match="--clutter lays kingdomino's real tiles, and no photos of them are here"
    ):
        _real_tiles("kingdomino")
    with pytest.raises(StateError, match="no photos of them are here \\(none\\)"):
        _real_tiles("alices-garden")
