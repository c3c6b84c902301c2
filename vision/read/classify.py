"""Classify every cell of a board in one batched call, behind a small interface.

:class:`OnnxCellClassifier` runs a model file from ``models/`` with onnxruntime: it reads the heads, classes
and crop geometry the training wrote into the model's metadata, checks its input and warms up at load.
Crops become model input in one place, :func:`vision.model_file.model_input`, for training and inference
alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from vision.geometry import CellKey
from vision.model_file import model_input, open_model
from vision.read.cells import CellGrid
from vision.reader_api import Head, Reading, ShiftedLook, TurnedLook

# Photos read together average their log-probabilities: one a model rounded to zero is taken as this, so
# that a class one photo rules out outright stays a class another photo can still show.
PROBABILITY_FLOOR = 1e-6
# Crops a model reads at once: a board's cells in one or two runs, and the memory of 64 crops' activations.
BATCH = 64


@dataclass(frozen=True)
class CellPredictions:
    """Per head, class probabilities (N, classes); the per-cell embedding (N, D) enrolment builds on."""

    keys: tuple[CellKey, ...]
    heads: tuple[Head, ...]
    probabilities: Mapping[str, NDArray[np.float32]]
    embedding: NDArray[np.float32]

    def __post_init__(self) -> None:
        n = len(self.keys)
        for head in self.heads:
            shape = self.probabilities[head.name].shape
            if shape != (n, len(head.classes)):
                raise ValueError(
                    f"head {head.name!r}: expected probabilities ({n}, {len(head.classes)}), got {shape}"
                )
        if self.embedding.shape[0] != n:
            raise ValueError(f"expected {n} embeddings, got {self.embedding.shape[0]}")

    def readings(self) -> dict[CellKey, Reading]:
        """Per cell, each head's most likely class and its probability."""
        # Per head over all cells at once: called per cell and head, numpy took 8.4 ms for Tang Garden's 84
        # cells of 25 heads (twice a photo), against 0.4 ms.
        best = {
            name: (p.argmax(axis=1).tolist(), p.max(axis=1).tolist())
            for name, p in self.probabilities.items()
        }
        return {
            key: {h.name: (h.classes[best[h.name][0][i]], best[h.name][1][i]) for h in self.heads}
            for i, key in enumerate(self.keys)
        }


def together(
    views: Sequence[CellPredictions], weights: Sequence[NDArray[np.float64]] | None = None
) -> CellPredictions:
    """One board's cells as several photos of it read them (the same cells, heads and classes in each):
    per head, the geometric mean of the photos' probabilities, normalised. A photo that sees a piece
    plainly outweighs one to which it is hidden and which reads every cell near alike: of 436 Tang Garden
    boards photographed twice from anywhere (up to 45 degrees off straight above), 427 were scored exactly
    with both read so, against 406 from the first photo alone; the mean of the probabilities did as well,
    and no board read right from the first photo was read wrong from both. ``weights``: per photo, how much
    each of its cells counts (a cell a glare washes out, less); equal where not given. The embedding is the
    first's."""
    first = views[0]
    for view in views[1:]:
        if view.keys != first.keys or view.heads != first.heads:
            raise ValueError("the photos' readings are of different cells or heads: read one board's photos")
    w = np.ones((len(views), len(first.keys))) if weights is None else np.asarray(weights, np.float64)
    w = (w / w.sum(axis=0, keepdims=True))[:, :, None]
    probabilities = {}
    for head in first.heads:
        logs = np.log(np.maximum([v.probabilities[head.name] for v in views], PROBABILITY_FLOOR))
        mean = (w * logs).sum(axis=0)
        p = np.exp(mean - mean.max(axis=1, keepdims=True))
        probabilities[head.name] = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
    return CellPredictions(first.keys, first.heads, probabilities, first.embedding)


def turn_order(first: CellPredictions, other: CellPredictions, turns_freely: bool) -> list[int] | None:
    """Which of ``other``'s cells is each of ``first``'s, ``other`` read as ``first`` reads its board, or
    None where it reads other cells. A board that reads alike whichever way up it lies (``turns_freely``: a
    kingdom) is read from whichever corner each photo met first, so a photo from another side of the table
    reads it turned: of the turns its grid allows (quarter turns of a square grid, half turns of another),
    the one under which the two photos read the cells most alike (the likelihood that both read each head's
    same class)."""
    if set(other.keys) != set(first.keys) or other.heads != first.heads:
        return None
    index = {key: i for i, key in enumerate(other.keys)}
    rows = 1 + max(r for _, r, _ in first.keys)
    cols = 1 + max(c for _, _, c in first.keys)

    def seen(r: int, c: int, turn: int) -> tuple[int, int]:
        """Where ``other`` sees ``first``'s cell (r, c): not turned, half, a quarter either way."""
        return ((r, c), (rows - 1 - r, cols - 1 - c), (cols - 1 - c, r), (c, rows - 1 - r))[turn]

    allowed = (4 if rows == cols else 2) if turns_freely else 1
    best: tuple[float, list[int]] | None = None
    for turn in range(allowed):
        order = [index.get((region, *seen(r, c, turn)), -1) for region, r, c in first.keys]
        if min(order) < 0:
            continue
        turned = reordered(other, first.keys, order)
        both = [(first.probabilities[h] * turned.probabilities[h]).sum(axis=1) for h in first.probabilities]
        alike = sum(float(np.log(np.maximum(same, PROBABILITY_FLOOR)).sum()) for same in both)
        if best is None or alike > best[0]:
            best = (alike, order)
    return None if best is None else best[1]


def reordered(predictions: CellPredictions, keys: tuple[CellKey, ...], order: list[int]) -> CellPredictions:
    """``predictions``' cells ``order`` (indices), named ``keys``."""
    return CellPredictions(
        keys,
        predictions.heads,
        {name: p[order] for name, p in predictions.probabilities.items()},
        predictions.embedding[order],
    )


def sure_disagreements(
    first: CellPredictions, other: CellPredictions, sure: float, among: NDArray[np.bool_] | None = None
) -> int:
    """How many cells (of ``among``, where given) the two readings (of the same cells and heads) each read
    at least ``sure`` as different classes on some head."""
    differ = np.zeros(len(first.keys), bool)
    for head in first.heads:
        a, b = first.probabilities[head.name], other.probabilities[head.name]
        differ |= (a.argmax(axis=1) != b.argmax(axis=1)) & (a.max(axis=1) >= sure) & (b.max(axis=1) >= sure)
    if among is not None:
        differ &= np.asarray(among, bool)
    return int(differ.sum())


class CellClassifier(Protocol):
    """Anything that turns a frame's cell crops into per-head class probabilities."""

    game: str
    heads: tuple[Head, ...]
    crop_px: int
    context_mm: float
    lean_up: bool
    # Which model's outputs these are: an enrolment's corrections read one model's embedding.
    model_id: str

    def classify(self, cells: CellGrid) -> CellPredictions: ...


def _softmax(x: NDArray[np.float32]) -> NDArray[np.float32]:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float32)


class OnnxCellClassifier:
    """A trained model file: ``classify`` runs all of a frame's cells in one onnxruntime call."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self.session, info = open_model(path, threads)
        # The file's digest: any retrained model is another, even one exported from the same weights.
        self.model_id = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        self.game = str(info["game"])
        self.heads = tuple(Head(h["name"], tuple(h["classes"])) for h in info["heads"])
        self.crop_px = int(info["crop_px"])
        self.context_mm = float(info["context_mm"])
        self.lean_up = bool(info.get("lean_up", False))
        self.info = info
        inputs = self.session.get_inputs()
        if len(inputs) != 1 or list(inputs[0].shape[1:]) != [3, self.crop_px, self.crop_px]:
            raise ValueError(f"{path}: model input {inputs[0].shape} does not match crop size {self.crop_px}")
        self._input = inputs[0].name
        self._outputs = [o.name for o in self.session.get_outputs()]
        expected = {h.name for h in self.heads} | {"embedding"}
        if set(self._outputs) != expected:
            raise ValueError(f"{path}: model outputs {self._outputs} do not match heads {sorted(expected)}")
        self._run(np.zeros((1, self.crop_px, self.crop_px, 3), np.uint8))  # warm-up: first runs are slow

    def _run(self, crops: NDArray[np.uint8]) -> dict[str, NDArray[np.float32]]:
        # In batches of BATCH crops: a board read from several looks is hundreds of crops, whose activations
        # at once took a few hundred MB, which onnxruntime's arena then keeps (a Pi has under a GB).
        parts = [
            self.session.run(self._outputs, {self._input: model_input(crops[i : i + BATCH])})
            for i in range(0, len(crops), BATCH)
        ]
        return {
            name: np.concatenate([np.asarray(part[k], dtype=np.float32) for part in parts])
            for k, name in enumerate(self._outputs)
        }

    def classify(self, cells: CellGrid) -> CellPredictions:
        if cells.crops_bgr.shape[1:3] != (self.crop_px, self.crop_px):
            raise ValueError(
                f"crops are {cells.crops_bgr.shape[1:3]}, the model reads {self.crop_px}x{self.crop_px}"
            )
        if not len(cells.keys):
            empty = {h.name: np.zeros((0, len(h.classes)), np.float32) for h in self.heads}
            return CellPredictions((), self.heads, empty, np.zeros((0, 0), np.float32))
        out = self._run(cells.crops_bgr)
        probabilities = {h.name: _softmax(out[h.name]) for h in self.heads}
        return CellPredictions(cells.keys, self.heads, probabilities, out["embedding"])


def gated(predictions: CellPredictions, look: TurnedLook) -> NDArray[np.intp]:
    """The rows of the cells ``look`` gates: in its regions, likelier to hold a piece than not."""
    absent = look.absent_index(predictions.heads)
    likely = predictions.probabilities[look.gate][:, absent] < 0.5
    if look.regions:
        likely &= np.array([key[0] in look.regions for key in predictions.keys], bool)
    return np.flatnonzero(likely)


def look_along_lean(
    classifier: CellClassifier,
    predictions: CellPredictions,
    look: TurnedLook,
    cut: Callable[[tuple[CellKey, ...]], CellGrid],
) -> CellPredictions:
    """``predictions`` with the cells ``look`` gates read again, four ways as :func:`look_turned` reads, from
    the crops ``cut`` gives for those of their keys it cuts (moved along a standing piece's lean:
    :func:`vision.read.cells.cut_along_lean`): the compass heads as the moved crops read them, the unturned
    heads the average of those and the cell's own crops' (each shows part of the piece), the other heads as
    the cell's own crops read them."""
    if not look.compass:
        return predictions
    cells = cut(tuple(predictions.keys[i] for i in gated(predictions, look)))
    if not cells.keys:
        return predictions
    rows = [predictions.keys.index(key) for key in cells.keys]
    moved = look_turned(classifier, cells, classifier.classify(cells), look).probabilities
    probabilities = {name: p.copy() for name, p in predictions.probabilities.items()}
    for name in look.compass:
        probabilities[name][rows] = moved[name]
    for name in look.unturned:
        probabilities[name][rows] = (probabilities[name][rows] + moved[name]) / 2
    return CellPredictions(predictions.keys, predictions.heads, probabilities, predictions.embedding)


def look_turned(
    classifier: CellClassifier, cells: CellGrid, predictions: CellPredictions, look: TurnedLook
) -> CellPredictions:
    """``predictions`` with the cells ``look`` gates read again from their crops turned by one, two and three
    quarters clockwise: its heads' probabilities become the average over the four readings, a compass head's
    turned back first (what a crop turned a quarter clockwise reads as E faces N)."""
    rows = gated(predictions, look)
    if not len(rows):
        return predictions
    keys = tuple(cells.keys[i] for i in rows)
    probabilities = {name: p.copy() for name, p in predictions.probabilities.items()}
    for name in (*look.compass, *look.unturned):
        probabilities[name][rows] /= 4
    # One batched call for the three turns.
    turned = np.concatenate([np.rot90(cells.crops_bgr[rows], k=-q, axes=(1, 2)) for q in (1, 2, 3)])
    again = classifier.classify(CellGrid(np.ascontiguousarray(turned), keys * 3)).probabilities
    n = len(rows)
    for quarters in (1, 2, 3):
        part = slice((quarters - 1) * n, quarters * n)
        for name in look.compass:
            probabilities[name][rows] += np.roll(again[name][part], -quarters, axis=1) / 4
        for name in look.unturned:
            probabilities[name][rows] += again[name][part] / 4
    return CellPredictions(predictions.keys, predictions.heads, probabilities, predictions.embedding)


def unsure_rows(
    predictions: CellPredictions, look: ShiftedLook, region_heads: Callable[[str], tuple[str, ...]]
) -> NDArray[np.intp]:
    """The rows of the cells ``look`` reads again: some head of their region, ``look.skip`` aside, below
    ``look.sure``."""
    by_region: dict[str, list[int]] = {}
    for i, key in enumerate(predictions.keys):
        by_region.setdefault(key[0], []).append(i)
    unsure = np.zeros(len(predictions.keys), bool)
    for region, rows in by_region.items():
        heads = [h for h in region_heads(region) if h not in look.skip]
        if heads:
            best = np.min([predictions.probabilities[h][rows].max(axis=1) for h in heads], axis=0)
            unsure[rows] = best < look.sure
    return np.flatnonzero(unsure)


def look_shifted(
    classifier: CellClassifier,
    predictions: CellPredictions,
    look: ShiftedLook,
    region_heads: Callable[[str], tuple[str, ...]],
    cut: Callable[[frozenset[CellKey], tuple[tuple[float, float], ...]], CellGrid],
) -> CellPredictions:
    """``predictions`` with the cells :func:`unsure_rows` names read again from the crops ``cut`` gives for
    them at ``look``'s offsets: every head but ``look.skip`` the average of the cell's own reading and its
    moved ones."""
    rows = unsure_rows(predictions, look, region_heads)
    if not len(rows):
        return predictions
    moved = cut(frozenset(predictions.keys[i] for i in rows), look.offsets_mm())
    again = classifier.classify(moved).probabilities
    where = {key: i for i, key in enumerate(predictions.keys)}
    moved_rows = [where[key] for key in moved.keys]
    reads = np.bincount(moved_rows, minlength=len(predictions.keys)).astype(np.float32)
    probabilities = {name: p.copy() for name, p in predictions.probabilities.items()}
    for name, p in probabilities.items():
        if name in look.skip:
            continue
        total = np.zeros_like(p)
        np.add.at(total, moved_rows, again[name])
        p[rows] = (p[rows] + total[rows]) / (1 + reads[rows, None])
    return CellPredictions(predictions.keys, predictions.heads, probabilities, predictions.embedding)
