"""A copy's grid fitted to the boards it was taught from.

An owner types or drags their copy's grid once, from one photo: 2 mm off, or a step 1 mm long, and every
cell's crop holds a strip of its neighbour's (after 8 steps, 8 mm of it). Teaching then learns the crops as
they fall, and later boards read worse for it (an independent try's own copy: 13 of 20 exact, 6 with its step
typed 27 mm for 26).

The games taught say what each cell shows. Under the right grid, cells that show the same thing look alike in
the model's features and unlike the rest; a grid off mixes each crop with its neighbour and blurs that. So
the board's grids are moved and stretched together within the board, each axis alone, to where the taught
cells' features part most by what the cells show (:func:`spread`), and kept there only where they part
clearly better (:data:`FIT_GAIN`).

Tried and not kept (experiments log): checking a typed grid against the set-up photo alone, before any state
is known (a printed pattern that repeats at another step looks as right as the grid); each grid fitted
alone (a grid of one row, a Four Gardens track or Sanssouci's terrace, shows too little to place it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from calibration.enroll import Example, example_labels, read_example
from scoring.core import StateError
from vision.geometry import cell_center_mm
from vision.pipeline import read_photo
from vision.profile import BoardProfile, Region, dump_profile, parse_profile
from vision.read.classify import CellClassifier
from vision.read.colour import BoardColour
from vision.read.orient import OrientationModel
from vision.readers import IGNORE, CellLabels, reader_for

FIRST_SHIFT_MM = 2.0  # the search's first step: a grid typed a few mm off
FIRST_STRETCH = 0.02  # of the grid's step: 1 mm in 40 mm
FINEST_SHIFT_MM = 0.25  # finer than a photo resolves at a phone's distance
FINEST_STRETCH = 0.0025
REACH_MM = 8.0  # farthest the grid is moved from where it was placed
REACH_STRETCH = 0.08  # most its step is stretched or shrunk
# How much lower (a share of it) each step of the search must bring the taught cells' spread: where the
# spread is flat (a grid whose cells hold a margin round their pieces), the grid stays where it was placed.
# Set in the experiments log's entry of 2026-12-01 (twenty-first session).
STEP_GAIN = 0.002
# A head judges a grid where two of its classes are shown on this many of the grid's cells each: fewer say
# little of how alike they look (a terrace of printed squares and one nobleman stays beside its garden).
LIKE_CELLS = 3
# How much a move costs, a share of the spread per mm its farthest cell moves: where one game's cells part
# about as well a few mm either way, the grid stays nearer where its owner placed it.
PULL_PER_MM = 0.005
# How much lower (a share of it) the spread must be where the search ends for the grid to be moved at all:
# one game's cells of a grid placed right part up to 3 % better a little off (Sanssouci's copies), a step
# typed 1 mm long or a board's size 5 mm off 5-16 % better back in place.
FIT_GAIN = 0.04


@dataclass(frozen=True)
class GridMove:
    """A move of a board's grids together: each axis stretched by ``stretch`` about ``centre_mm``, then
    shifted by ``shift_mm``."""

    shift_mm: tuple[float, float]
    stretch: tuple[float, float]
    centre_mm: tuple[float, float]

    def moved(self, profile: BoardProfile) -> BoardProfile:
        """``profile`` with its grids so moved; StateError where a cell would leave the board."""
        regions = tuple(self._region(r) for r in profile.regions)
        return parse_profile(dump_profile(replace(profile, regions=regions)))

    def _region(self, region: Region) -> Region:
        (sx, sy), (cx, cy), (dx, dy) = self.stretch, self.centre_mm, self.shift_mm
        ox, oy = region.origin_mm
        return replace(
            region,
            origin_mm=(round(cx + (ox - cx) * sx + dx, 2), round(cy + (oy - cy) * sy + dy, 2)),
            cell_mm=(round(region.cell_mm[0] * sx, 3), round(region.cell_mm[1] * sy, 3)),
            pitch_mm=(round(region.pitch_mm[0] * sx, 3), round(region.pitch_mm[1] * sy, 3)),
        )


def said(before: BoardProfile, after: BoardProfile) -> str:
    """What fitting did to a board's grids, in an owner's words (as typed: the first square's corner, the
    step across and down, in mm from the board's top-left corner)."""
    moved = [(b, a) for b, a in zip(before.regions, after.regions, strict=True) if b != a]

    def place(region: Region) -> str:
        (x, y), (across, down) = region.origin_mm, region.pitch_mm
        return f"{x:.1f}, {y:.1f}, step {across:.1f}" + (
            "" if round(across, 1) == round(down, 1) else f", {down:.1f}"
        )

    grids = "its grid moved" if len(before.regions) == 1 else "its grids moved"
    return f"{grids} to fit the boards taught: " + "; ".join(
        f"{'' if len(before.regions) == 1 else b.name + ' '}{place(a)} mm (was {place(b)})" for b, a in moved
    )


def _ends(region: Region) -> NDArray[np.float64]:
    """The centres of the grid's corner cells (mm): the farthest any of its cells moves is one of theirs."""
    return np.array(
        [cell_center_mm(region, r, c) for r in (0, region.rows - 1) for c in (0, region.cols - 1)]
    )


def spread(
    profile: BoardProfile,
    classifier: CellClassifier,
    boards: Sequence[tuple[Example, CellLabels]],
    reference: BoardColour | None = None,
) -> float:
    """How little the taught cells part by what they show in the model's features, read under ``profile``'s
    grids (each board at its corners, each cell's truth in its labels): per head, the features' scatter
    about each class's mean over their scatter about the mean of all (0: every class one point; 1: classes
    no apart), averaged over the heads that show two classes on :data:`LIKE_CELLS` cells each; ValueError
    where none does."""
    reader = reader_for(profile)
    features: list[NDArray[np.float64]] = []
    targets: list[Mapping[str, int]] = []
    for example, labels in boards:
        reading = read_photo(
            example.image,
            [profile],
            {reader.game: classifier},
            {},
            example.camera,
            corners_xy=example.corners_xy,
            references={reader.game: reference} if reference is not None else None,
        )[0]
        predictions = reading.predictions
        embedding = predictions.embedding.astype(np.float64)
        features.append(embedding / np.maximum(np.linalg.norm(embedding, axis=1, keepdims=True), 1e-9))
        keys = predictions.keys
        targets.extend(reader.targets(profile, key, labels[key[0]][key[1]][key[2]]) for key in keys)
    points = np.concatenate(features)
    ratios = []
    for head in reader.heads:
        classes = np.array([t.get(head.name, IGNORE) for t in targets])
        shown = classes != IGNORE
        _, counts = np.unique(classes[shown], return_counts=True)
        if np.count_nonzero(counts >= LIKE_CELLS) < 2:
            continue
        x, y = points[shown], classes[shown]
        total = float(((x - x.mean(axis=0)) ** 2).sum())
        within = sum(float(((x[y == c] - x[y == c].mean(axis=0)) ** 2).sum()) for c in np.unique(y))
        ratios.append(within / max(total, 1e-12))
    if not ratios:
        raise ValueError("the boards taught show one kind of cell only: nothing to fit a grid to")
    return float(np.mean(ratios))


def fitted_grid(
    profile: BoardProfile,
    classifier: CellClassifier,
    orienter: OrientationModel | None,
    examples: Sequence[Example],
    reference: BoardColour | None = None,
) -> BoardProfile | None:
    """``profile`` with its grids where they part the taught boards' cells best (``classifier``: the shipped
    model, read in the profile's light ``reference``); None where they stay.

    Each board lies where it was given or, given none, where it is found under the grids as placed: by its
    picture and outline, not its grids."""
    boards = []
    for i, given in enumerate(examples, start=1):
        placed = given
        if given.corners_xy is None:
            found = read_example(i, given, profile, classifier, orienter, False, reference)
            placed = replace(given, corners_xy=found.corners_xy)
        boards.append((placed, example_labels(i, given, profile)))

    def cost(moved: BoardProfile | None) -> float:
        return np.inf if moved is None else spread(moved, classifier, boards, reference)

    fitted = _searched(profile, cost)
    if fitted == profile or not all(
        _helps(profile, fitted, classifier, board, reference) for board in boards
    ):
        return None
    return fitted


def _helps(
    before: BoardProfile,
    after: BoardProfile,
    classifier: CellClassifier,
    board: tuple[Example, CellLabels],
    reference: BoardColour | None,
) -> bool:
    """Whether ``after``'s grids part one taught board's cells no worse than ``before``'s: a move that one
    board alone wants (a board found a few per cent off, its corners where they are not) is no grid's."""
    try:
        return spread(after, classifier, [board], reference) <= spread(before, classifier, [board], reference)
    except ValueError:
        return True  # a board that shows too little to judge by has no say


Values = tuple[float, float, float, float]


def _searched(profile: BoardProfile, cost: Callable[[BoardProfile | None], float]) -> BoardProfile:
    """``profile`` with its grids moved where their cost, pulled towards where they were, is least: a pattern
    search from no move, each of its four values (shift across, down; stretch across, down) a step either
    way, the best taken where it helps by :data:`STEP_GAIN`, else the steps halved; kept where it helps by
    :data:`FIT_GAIN`. Grids whose taught cells show too little to judge them by (:func:`spread`) stay."""
    try:
        here = unmoved = cost(profile)
    except ValueError:
        return profile
    ends = np.concatenate([_ends(r) for r in profile.regions])
    lo, hi = ends.min(axis=0), ends.max(axis=0)
    centre = (float(lo[0] + hi[0]) / 2, float(lo[1] + hi[1]) / 2)

    def moved(values: Values) -> BoardProfile | None:
        try:
            return GridMove(values[:2], values[2:], centre).moved(profile)
        except StateError:
            return None  # a cell off the board

    def pulled(values: Values) -> float:
        (dx, dy, sx, sy), (cx, cy) = values, centre
        farthest = np.hypot(dx + (ends[:, 0] - cx) * (sx - 1), dy + (ends[:, 1] - cy) * (sy - 1)).max()
        return cost(moved(values)) * (1 + PULL_PER_MM * float(farthest))

    start: Values = (0.0, 0.0, 1.0, 1.0)
    best = start
    steps = [FIRST_SHIFT_MM, FIRST_SHIFT_MM, FIRST_STRETCH, FIRST_STRETCH]
    finest = [FINEST_SHIFT_MM, FINEST_SHIFT_MM, FINEST_STRETCH, FINEST_STRETCH]
    reach = [REACH_MM, REACH_MM, REACH_STRETCH, REACH_STRETCH]
    while any(s >= f for s, f in zip(steps, finest, strict=True)):
        tried = []
        for i, step in enumerate(steps):
            for sign in (-1.0, 1.0) if step >= finest[i] else ():
                values = list(best)
                values[i] += sign * step
                if abs(values[i] - start[i]) <= reach[i] + 1e-9:
                    near: Values = (values[0], values[1], values[2], values[3])
                    tried.append((pulled(near), near))
        lowest, where = min(tried, default=(np.inf, best))
        if lowest < here * (1 - STEP_GAIN):
            here, best = lowest, where
        else:
            steps = [s / 2 for s in steps]
    if here > unmoved * (1 - FIT_GAIN):
        return profile
    found = moved(best)
    assert found is not None  # no move, or one whose cost was finite
    return found
