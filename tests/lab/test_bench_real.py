"""``garden-scorer-lab bench --photos``: real photos whose states are known, read, or taught and read by
layout folds. Here the "real" photos are made in the test: a user's grid game of coloured tiles."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.bench_real import as_custom_grid, load_folder, run_real, summary
from scoring.core import StateError
from tests.support import run_lab
from vision.readers import get_reader

COLOURS = {"field": (60, 190, 225), "lake": (200, 90, 30), "forest": (40, 110, 40), "empty": (150, 150, 150)}
LABELS = ["field", "forest", "lake"]


def _grid_photo(cells: list[list[str]], rng: np.random.Generator, cell_px: int = 48) -> np.ndarray:
    """A board photographed square on: each cell its tile's colour, a darker rim, some light and noise."""
    rows, cols = len(cells), len(cells[0])
    image = np.zeros((rows * cell_px, cols * cell_px, 3), np.float32)
    for r, row in enumerate(cells):
        for c, label in enumerate(row):
            tile = np.array(COLOURS[label], np.float32) * rng.uniform(0.85, 1.1)
            image[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px] = tile * 0.6
            image[r * cell_px + 4 : (r + 1) * cell_px - 4, c * cell_px + 4 : (c + 1) * cell_px - 4] = tile
    image += rng.normal(0, 4, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def _folder(tmp_path: Path, layouts: int = 3, per_layout: int = 2, labels: list[str] = LABELS) -> Path:
    """Kingdomino-like states (terrains, no crowns) of ``layouts`` boards, each photographed ``per_layout``
    times."""
    folder = tmp_path / "photos"
    folder.mkdir()
    rng = np.random.default_rng(3)
    manifest = {}
    for layout in range(layouts):
        cells = [[labels[int(rng.integers(len(labels)))] for _ in range(4)] for _ in range(4)]
        for k in range(per_layout):
            name = f"{layout}{k}"
            cv2.imwrite(str(folder / f"{name}.jpg"), _grid_photo(cells, rng))
            state = {
                "game": "kingdomino",
                "cells": [[label if label == "empty" else f"{label}:0" for label in row] for row in cells],
            }
            (folder / f"{name}.json").write_text(json.dumps(state))
            manifest[name] = {"layout": layout}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_a_grid_game_taught_from_some_layouts_reads_the_others(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("a", "b", "c"):
        cells = (
            [["lake", "field"], ["forest", "lake"]]
            if name != "c"
            else [["field", "field"], ["lake", "forest"]]
        )
        cv2.imwrite(str(folder / f"{name}.jpg"), _grid_photo(cells, np.random.default_rng(ord(name))))
        state = {"game": "custom-grid", "cells": cells, "setup": {"labels": LABELS, "points": {"field": 2}}}
        (folder / f"{name}.json").write_text(json.dumps(state))
    (folder / "manifest.json").write_text(
        json.dumps({"a": {"layout": 1}, "b": {"layout": 1}, "c": {"layout": 2}})
    )
    photos = load_folder(folder, whole_photo=True)
    assert [p.layout for p in photos] == ["1", "1", "2"]
    assert photos[0].corners_xy is not None and photos[0].corners_xy[2].tolist() == [96, 96]
    results = run_real("custom-grid", photos, teach_layouts=1, folds=2)
    assert [r.photos for r in results] == [1, 2]  # layout 2 read when layout 1 was taught, and back
    assert all(r.enroll_s is not None for r in results)
    tables = [r.table() for r in results]
    assert all(t["cell_error_pct"] == 0 for t in tables)
    figures = summary(tables)
    assert figures["folds"] == 2
    assert figures["worst"]["cell_error_pct"] == max(t["cell_error_pct"] for t in tables)
    assert "boards_in_view_pct" not in tables[0]  # what a real photo hides is not known


def test_the_command_teaches_by_folds_and_writes_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    out = tmp_path / "real.json"
    args = (
        "bench",
        "--photos",
        str(folder),
        "--whole-photo",
        "--custom-grid",
        "--teach",
        "1",
        "--folds",
        "2",
    )
    code, printed, _ = run_lab(capsys, *args, "--json", str(out))
    assert code == 0
    assert "fold 1" in printed and "fold 2" in printed and "Over 2 folds: mean / worst" in printed
    data = json.loads(out.read_text())
    assert len(data["results"]) == 2 and data["results"][0]["game"] == "custom-grid"
    assert set(data["summary"]["head_error_mean_pct"]) == {"cell"}
    # Read as its own game, a custom grid needs teaching first.
    code, _, err = run_lab(capsys, "bench", "--photos", str(folder), "--whole-photo", "--custom-grid")
    assert code == 2 and "give --teach K" in err


def test_a_fold_can_leave_a_face_untaught_and_count_its_cells_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, layouts=4, labels=[*LABELS, "empty", "empty"])
    photos = as_custom_grid(load_folder(folder, whole_photo=True), tiles=True)
    assert photos[0].state["setup"]["labels"] == ["empty", "tile"]
    assert {label for p in photos for row in p.state["cells"] for label in row} == {"empty", "tile"}
    out = tmp_path / "untaught.json"
    args = ("bench", "--photos", str(folder), "--whole-photo", "--custom-grid", "--tiles", "--teach", "2")
    code, printed, _ = run_lab(capsys, *args, "--folds", "3", "--untaught", "--json", str(out))
    assert code == 0 and "untaught face err %" in printed
    data = json.loads(out.read_text())
    # The faces in turn, each fold leaving one out of its teaching photos.
    assert [r["untaught"]["face"] for r in data["results"]] == LABELS
    errors = [r["untaught"]["cell_error_pct"] for r in data["results"]]
    assert data["summary"]["untaught_cell_error_pct"]["worst"] == max(errors)
    # A face untaught is read as the tile it is, not as an empty cell.
    assert max(errors) == 0
    code, _, err = run_lab(capsys, *args[:5], "--teach", "2", "--untaught")
    assert code == 2 and "--tiles" in err


def test_corners_come_from_a_map_or_a_file_per_photo(tmp_path: Path) -> None:
    folder = _folder(tmp_path, layouts=1, per_layout=2)
    quad = [[1, 2], [90, 2], [90, 90], [1, 90]]
    (folder / "corners.json").write_text(json.dumps({"00": quad}))
    (folder / "01.corners.json").write_text(json.dumps({"corners_xy": quad[::-1]}))
    photos = {p.name: p for p in load_folder(folder)}
    assert photos["00"].corners_xy is not None and photos["00"].corners_xy.tolist() == quad
    assert photos["01"].corners_xy is not None and photos["01"].corners_xy.tolist() == quad[::-1]
    grid = as_custom_grid(list(photos.values()))
    assert grid[0].state["game"] == "custom-grid" and set(grid[0].state["setup"]["labels"]) <= set(LABELS)


def test_bad_folders_are_refused_with_a_reason(tmp_path: Path) -> None:
    with pytest.raises(StateError, match="no such folder"):
        load_folder(tmp_path / "nowhere")
    with pytest.raises(StateError, match=r"no NAME\.jpg"):
        load_folder(tmp_path)
    folder = _folder(tmp_path, layouts=1)
    photos = as_custom_grid(load_folder(folder, whole_photo=True))
    with pytest.raises(StateError, match="leave some to read"):
        run_real("custom-grid", photos, teach_layouts=1)


def test_each_fold_teaches_what_its_first_layout_does_not_show() -> None:
    from lab.bench_real import RealPhoto, _folds

    shows = {"a": {"x"}, "b": {"x", "y"}, "c": {"z"}, "d": {"y", "z"}, "e": {"x", "y", "z"}}
    photos = [RealPhoto(name, Path(name), {}, name, None) for name in shows]
    folds = _folds(photos, shows, 2, 5, seed=0)
    assert len(folds) == 5 and all(len(set(f)) == 2 for f in folds)
    for fold in folds:
        # Every label is taught wherever two layouts can show it all, as a player is asked to.
        assert set().union(*(shows[layout] for layout in fold)) == {"x", "y", "z"}, fold
    # Every layout is taught by some fold before any fold starts from one taught already.
    first_repeat = next(i for i, f in enumerate(folds) if f[0] in {la for g in folds[:i] for la in g})
    assert {la for f in folds[:first_repeat] for la in f} == set(shows)


def test_real_photos_become_training_cells_and_folds_split_the_layouts(tmp_path: Path) -> None:
    from lab.train.dataset import real_cells
    from lab.train.folds import fold_layouts

    folder = tmp_path / "kingdoms"
    folder.mkdir()
    rng = np.random.default_rng(5)
    cells = [["castle", *["lake:1"] * 4], *[["field:0", "forest:2", "mine:3", "swamp:0", "empty"]] * 4]
    colours = {"castle": "field", "empty": "lake", "mine": "forest", "swamp": "field"}
    for name in ("a", "b"):
        tiles = [[c.partition(":")[0] for c in row] for row in cells]
        image = _grid_photo([[colours.get(t, t) for t in row] for row in tiles], rng)
        cv2.imwrite(str(folder / f"{name}.jpg"), image)
        (folder / f"{name}.json").write_text(json.dumps({"game": "kingdomino", "cells": cells}))
    (folder / "manifest.json").write_text(json.dumps({"a": {"layout": 1}, "b": {"layout": 2}}))
    data, names = real_cells("kingdomino", folder, views=3, seed=0, leave_out=("2",))
    assert names == ("a",)
    crop = get_reader("kingdomino").crop_px
    assert data.crops.shape == (3 * 25, crop, crop, 3) and data.thumbs.shape[0] == 0
    crowns = data.targets["crowns"].reshape(3, 5, 5)
    assert crowns[:, 0].tolist() == [[0, 1, 1, 1, 1]] * 3  # the castle shows none, each lake one
    assert crowns[:, 1].tolist() == [[0, 2, 3, 0, 0]] * 3
    with pytest.raises(ValueError, match="no photo of kingdomino"):
        real_cells("kingdomino", folder, views=1, seed=0, leave_out=("1", "2"))
    groups = fold_layouts([str(n) for n in range(7)], 3, seed=1)
    assert sorted(layout for group in groups for layout in group) == [str(n) for n in range(7)]
    assert sorted(map(len, groups)) == [2, 2, 3]
    with pytest.raises(StateError, match="give 2 to 7"):
        fold_layouts([str(n) for n in range(7)], 8, seed=1)
