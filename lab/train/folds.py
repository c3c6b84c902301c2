"""A model that learns from real photos, measured on real photos it never saw: ``garden-scorer-lab train
--game GAME --folds F`` trains F models, each leaving out the photos of a fold of the layouts (the physical
boards photographed), reads the left-out photos with it (:mod:`lab.bench_real`), and prints each fold, the
folds' mean and the worst. ``train --game GAME --leave-game-out`` trains one model per game played in the
recipe's table photos, each leaving that game's photos out, and scores them from the photo alone
(:func:`lab.bench_locate.run_scores`). The shipped model is then built on every photo by ``train --game
GAME``."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from lab.bench import BenchResult
from lab.bench_locate import load_outlines, load_truth, run_scores, tallied
from lab.bench_real import load_folder, read_photos
from lab.train.classifier import TrainConfig, real_folder, train
from scoring.core import StateError
from vision.profile import default_profile
from vision.read.classify import OnnxCellClassifier


def fold_layouts(layouts: list[str], folds: int, seed: int) -> list[list[str]]:
    """The layouts in ``folds`` groups of about equal size, drawn in a seeded order."""
    if not 2 <= folds <= len(layouts):
        raise StateError(f"--folds {folds}: give 2 to {len(layouts)} (the layouts photographed)")
    order = [layouts[i] for i in np.random.default_rng(seed).permutation(len(layouts))]
    return [sorted(order[k::folds]) for k in range(folds)]


def train_folds(
    game: str, config: TrainConfig, folds: int, log: Callable[[str], None] = print
) -> list[BenchResult]:
    if not config.real:
        raise StateError(f"{game}'s recipe learns from no real photos: nothing to leave out")
    folder = real_folder(config.real)
    photos = [p for p in load_folder(folder, whole_photo=True) if p.state.get("game") == game]
    groups = fold_layouts(sorted({p.layout for p in photos}), folds, config.seed)
    profile = default_profile(game)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for k, group in enumerate(groups, start=1):
            log(f"fold {k}: leaving out layouts {', '.join(group)}")
            path = train(game, replace(config, leave_out=tuple(group)), Path(scratch) / f"{game}.onnx", log)
            left_out = [p for p in photos if p.layout in group]
            results.append(read_photos(game, profile, OnnxCellClassifier(path), left_out, f"fold {k}"))
    return results


def train_game_folds(game: str, config: TrainConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Per game played in the recipe's table photos, a model that never saw that game's photos, and those
    photos scored with it as ``score`` scores them (no corners given): ``run_scores``' figures per game."""
    if not config.table:
        raise StateError(f"{game}'s recipe learns from no table photos: nothing to leave out")
    photos = load_outlines(real_folder(config.table))
    truth = load_truth(real_folder(config.table_truth), photos)
    games = sorted({truth[p.name]["game"] for p in photos})
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for played in games:
            log(f"leaving out the photos of {played}")
            fold = replace(config, leave_out_games=(played,))
            path = train(game, fold, Path(scratch) / f"{game}.onnx", log)
            left_out = [p for p in photos if truth[p.name]["game"] == played]
            scored = run_scores(game, left_out, truth, log, {game: OnnxCellClassifier(path)})
            rows += scored["rows"]
    return tallied(game, rows)
