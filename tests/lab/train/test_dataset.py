"""Training crops of real photos: boards on a table at a slant, labelled in a truth file, and photos from
straight above seen again as at a slant."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.train.dataset import table_cells, tilted
from vision.readers import IGNORE, get_reader

TERRAINS = ("field", "forest", "lake", "grassland", "swamp")


def _square_colour(r: int, c: int) -> tuple[int, int, int]:
    return (40 + 40 * r, 60 + 40 * c, 220 - 30 * r)


def _table(tmp_path: Path) -> tuple[Path, Path, list[list[str]]]:
    """A folder of one photo of 5 x 5 squares, each its own colour, its outline marked; a truth file of its
    cells (the castle in the middle) and the game it was taken in."""
    folder = tmp_path / "table"
    folder.mkdir()
    photo = np.full((700, 700, 3), (30, 60, 90), np.uint8)
    for r in range(5):
        for c in range(5):
            top_left = (150 + 80 * c, 150 + 80 * r)
            cv2.rectangle(photo, top_left, (top_left[0] + 79, top_left[1] + 79), _square_colour(r, c), -1)
    cv2.imwrite(str(folder / "one.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 98])
    corners = [[150, 150], [550, 150], [550, 550], [150, 550]]
    (folder / "one.json").write_text(json.dumps({"corners_xy": corners}))
    cells = [[f"{TERRAINS[(r + c) % 5]}:{(r * c) % 3}" for c in range(5)] for r in range(5)]
    cells[2][2] = "castle"
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"photos": {"one": {"game": "evening", "cells": cells, "unsure": [[0, 4]]}}}))
    return folder, truth, cells


def test_a_table_photos_squares_are_cut_where_marked_and_labelled_by_its_truth(tmp_path: Path) -> None:
    folder, truth, cells = _table(tmp_path)
    cellset, names = table_cells("kingdomino", folder, truth, 2, 1)
    assert names == ("one",)
    assert len(cellset.crops) == 2 * 25
    reader = get_reader("kingdomino")
    terrain = reader.heads[0].classes
    crowns = reader.heads[1].classes
    for i, crop in enumerate(cellset.crops):
        r, c = divmod(i % 25, 5)
        # The square's own colour at the crop's middle: each crop is labelled with the square it shows.
        middle = crop[crop.shape[0] // 2, crop.shape[1] // 2].astype(int)
        assert np.abs(middle - _square_colour(r, c)).max() <= 12, (r, c)
        kind, _, count = cells[r][c].partition(":")
        if (r, c) == (0, 4):  # a square the labellers could not see teaches nothing
            assert cellset.targets["terrain"][i] == IGNORE and cellset.targets["crowns"][i] == IGNORE
        else:
            assert terrain[cellset.targets["terrain"][i]] == kind
            assert crowns[cellset.targets["crowns"][i]] == (count or "0")


def test_a_game_left_out_teaches_nothing(tmp_path: Path) -> None:
    folder, truth, _ = _table(tmp_path)
    with pytest.raises(ValueError, match="no photo"):
        table_cells("kingdomino", folder, truth, 2, 1, leave_out=("evening",))


@pytest.mark.parametrize("seed", range(4))
def test_a_photo_seen_at_a_slant_keeps_its_corners_on_the_boards_and_foreshortens_it(seed: int) -> None:
    photo = np.zeros((400, 400, 3), np.uint8)
    marks = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (255, 255, 255)]
    corners = np.array([(0.0, 0.0), (400.0, 0.0), (400.0, 400.0), (0.0, 400.0)])
    for (x, y), colour in zip(corners, marks, strict=True):
        cv2.circle(photo, (int(min(x, 399)), int(min(y, 399))), 60, colour, -1)
    seen, moved = tilted(photo, corners, np.random.default_rng(seed))
    h, w = seen.shape[:2]
    assert h < 400 and w <= 400
    middle = moved.mean(axis=0)
    for corner, colour in zip(moved, marks, strict=True):
        # A little inside the board from where its corner went, that corner's mark.
        x, y = corner + 0.1 * (middle - corner)
        assert tuple(seen[int(y), int(x)]) == pytest.approx(colour, abs=40)
    sides = np.linalg.norm(np.roll(moved, -1, axis=0) - moved, axis=1)
    # The far side narrowed: the board's opposite sides are no longer alike.
    assert max(abs(sides[0] - sides[2]), abs(sides[1] - sides[3])) > 0.04 * sides.max()
