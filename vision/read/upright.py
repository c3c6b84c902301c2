"""Which way up a board lies where no model learnt its printing (a table's own copy of a game, in its own art
and proportions), weighed from what is known of it.

A located outline has four corner orders, one a turn. Three things tell them apart, none alone enough:

- **the grid's place**: a copy's grids lie where its profile says (its owner measured them), and the printed
  squares' edges run along those lines at the right turn only, where the margins round the grid differ (a
  player-aid strip, a track along one edge): the mean edge strength on the cell borders over that at the
  cells' middles;
- **the cells**: read at the right turn, each cell is a tile or a printed square the game's model knows, and
  it reads them surer than a grid laid over the margins, the strip or turned tiles: the cells' mean
  confidence;
- **the layout**: the game's orientation model (vision.read.orient), which learnt the game's own board: a
  copy keeps its layout, so it mostly still knows, but not surely (on copies no model learnt it picked the
  right turn of 78 of 96 photos).

Each is made a chance per turn with a temperature fitted on copies drawn in art no model learnt
(:data:`LAYOUT_T`, :data:`GRID_T`, :data:`CELLS_T`; docs/experiments.md), and they are multiplied: a turn is
taken only where its chance reaches :data:`SURE` and the layout model does not deny it (its own chance of
that turn below :data:`LAYOUT_FLOOR`); else the owner is asked (the four turns shown to choose from). The
veto is for an outline found a little off the board: the grid's cues then fit a wrong turn by the grid's
own period (a cell's shift) and agree on it, while the layout still sees the board. Fitted on three games
and tried on the fourth, in turn, that decided 157 of 160 copies, none wrongly, and asked of 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import Points
from vision.profile import BoardProfile, Region
from vision.read.cells import cut_cells
from vision.read.classify import CellClassifier
from vision.read.orient import OrientationModel, rotated_thumbnails, rotations
from vision.read.rectify import board_homography, rectify

# The temperatures that make each cue's four values chances: fitted (by likelihood) on 160 photos of copies
# in the held-out art, one game left out at a time; the same for every held-out game.
LAYOUT_T = 2.0
GRID_T = 0.1
CELLS_T = 0.005
# The chance a turn must reach to be taken without asking.
SURE = 0.99
# Below this chance by the layout model alone, a turn is not taken without asking: the least it gave the
# right turn of 160 copies in one held-out art was 0.035 (0.017 in the other; docs/experiments.md).
LAYOUT_FLOOR = 0.01
GRID_PX_PER_MM = 2.0
# Edges are blurred this much (pixels) first: a printed line is a pixel or two off where the grid puts it.
GRID_BLUR_PX = 1.0


@dataclass(frozen=True)
class Turns:
    """An outline's four turns (its corner orders in the photo's pixels, as
    :func:`vision.read.orient.rotations` lists them: turn ``k`` takes the outline's corner ``k`` as the top
    left) and each one's chance of being upright."""

    corners: tuple[Points, Points, Points, Points]
    chances: tuple[float, float, float, float]
    # The layout model's own chance of each turn (None: no model knows the game's layout).
    layout: tuple[float, float, float, float] | None = None

    @property
    def best(self) -> int:
        return int(np.argmax(self.chances))

    @property
    def sure(self) -> bool:
        """Whether the likeliest turn may be taken without asking the owner."""
        denied = self.layout is not None and self.layout[self.best] < LAYOUT_FLOOR
        return self.chances[self.best] >= SURE and not denied


def weigh_turns(
    image_bgr: NDArray[np.uint8],
    outline_xy: Points,
    profile: BoardProfile,
    camera: CameraModel | None,
    classifier: CellClassifier | None,
    orienter: OrientationModel | None,
    regions: tuple[str, ...] = (),
) -> Turns:
    """The chances of the outline's four turns (photo pixels, any corner first, seen through ``camera``);
    ``classifier`` reads the cells of ``regions`` (None: a game whose cells no model reads yet, a user's own
    grid), ``orienter`` knows the game's layout (None: no model learnt it)."""
    ideal = camera.undistort_px(outline_xy) if camera is not None else np.asarray(outline_xy, np.float64)
    options = rotations(ideal)
    chances = _log_soft(np.array([_grid_score(image_bgr, profile, c, camera) for c in options]) / GRID_T)
    if classifier is not None and regions:
        cells = np.array([_cells_score(image_bgr, profile, c, camera, classifier, regions) for c in options])
        chances += _log_soft(cells / CELLS_T)
    layout = None
    if orienter is not None:
        logits = orienter.logits(rotated_thumbnails(image_bgr, profile, ideal, camera))
        own = _log_soft(np.asarray(logits, np.float64) / LAYOUT_T)
        chances += own
        e, f, g, h = (float(v) for v in np.exp(own))
        layout = (e, f, g, h)
    chance = np.exp(_log_soft(chances))
    a, b, c, d = (float(v) for v in chance)
    turned = rotations(np.asarray(outline_xy, np.float64))
    return Turns((turned[0], turned[1], turned[2], turned[3]), (a, b, c, d), layout)


def _log_soft(values: NDArray[np.float64]) -> NDArray[np.float64]:
    top = float(values.max())
    return np.asarray(values - top - np.log(np.exp(values - top).sum()), np.float64)


def _grid_score(
    image_bgr: NDArray[np.uint8], profile: BoardProfile, corners: Points, camera: CameraModel | None
) -> float:
    """How much more the rectified board's edges run along its grids' cell borders than through their
    cells' middles (a log ratio, the grids' cells weighing each)."""
    rect = rectify(image_bgr, profile, board_homography(profile, corners), camera, GRID_PX_PER_MM)
    grey = cv2.GaussianBlur(
        cv2.cvtColor(rect.image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), GRID_BLUR_PX
    )
    across = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))  # vertical edges
    down = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))  # horizontal ones
    total = weight = 0.0
    for region in profile.regions:
        cells = len(region.cells())
        total += cells * _region_score(across, down, region)
        weight += cells
    return total / weight if weight else 0.0


def _region_score(across: NDArray[np.float32], down: NDArray[np.float32], region: Region) -> float:
    (x0, y0), (cw, ch), (pw, ph) = region.origin_mm, region.cell_mm, region.pitch_mm
    x1 = x0 + (region.cols - 1) * pw + cw
    y1 = y0 + (region.rows - 1) * ph + ch
    borders_x = sorted(
        {x0 + k * pw for k in range(region.cols)} | {x0 + k * pw + cw for k in range(region.cols)}
    )
    middles_x = [x0 + k * pw + cw / 2 for k in range(region.cols)]
    borders_y = sorted(
        {y0 + k * ph for k in range(region.rows)} | {y0 + k * ph + ch for k in range(region.rows)}
    )
    middles_y = [y0 + k * ph + ch / 2 for k in range(region.rows)]
    upright = (_lines(across, borders_x, (y0, y1)) + 1e-3) / (_lines(across, middles_x, (y0, y1)) + 1e-3)
    level = (_lines(down.T, borders_y, (x0, x1)) + 1e-3) / (_lines(down.T, middles_y, (x0, x1)) + 1e-3)
    return float(np.log(upright) + np.log(level)) / 2


def _lines(edges: NDArray[np.float32], places_mm: list[float], span_mm: tuple[float, float]) -> float:
    """The mean edge strength along columns of ``edges`` at ``places_mm`` over ``span_mm`` of its rows, each
    the strongest of the three pixels round it (a printed line is not exactly where the grid says)."""
    s = GRID_PX_PER_MM
    rows = edges[int(span_mm[0] * s) : int(span_mm[1] * s)]
    found = [
        float(rows[:, i - 1 : i + 2].max(axis=1).mean())
        for i in (round(x * s) for x in places_mm)
        if 1 <= i < edges.shape[1] - 1 and len(rows)
    ]
    return float(np.mean(found)) if found else 0.0


def _cells_score(
    image_bgr: NDArray[np.uint8],
    profile: BoardProfile,
    corners: Points,
    camera: CameraModel | None,
    classifier: CellClassifier,
    regions: tuple[str, ...],
) -> float:
    """How surely the game's model reads the cells at this turn: over the cells, the mean of each one's
    least sure head."""
    rect = rectify(image_bgr, profile, board_homography(profile, corners), camera)
    predictions = classifier.classify(cut_cells(rect, regions, classifier.context_mm, classifier.crop_px))
    sure = [min(p for _, p in reading.values()) for reading in predictions.readings().values()]
    return float(np.mean(sure)) if sure else 0.0
