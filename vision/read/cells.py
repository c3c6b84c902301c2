"""Cells: every classified cell of a rectified board cut out with a little context, all at one size."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import CellKey, cell_rect_mm
from vision.profile import BoardProfile
from vision.read.rectify import Rectified


@dataclass(frozen=True)
class CellGrid:
    """``crops_bgr`` is (N, size, size, 3) uint8; ``keys[i]`` says which region cell crop i is."""

    crops_bgr: NDArray[np.uint8]
    keys: tuple[CellKey, ...]

    def __post_init__(self) -> None:
        if self.crops_bgr.ndim != 4 or self.crops_bgr.shape[3] != 3 or len(self.keys) != len(self.crops_bgr):
            raise ValueError(
                f"crops must be (N, size, size, 3) with one key each; got {self.crops_bgr.shape} for "
                f"{len(self.keys)} keys"
            )


def margin_mm(profile: BoardProfile, context_mm: float, lean_up: bool) -> float:
    """How far beyond the board the crops of its edge cells reach when turned (``lean_up``; 0 when not):
    a board read so is rectified with this much round it, so a standing piece on an edge space leaning off
    the board is seen whole. (Upright crops keep the board's repeated edge, as their models learnt.)"""
    if not lean_up:
        return 0.0
    largest = max(max(r.cell_mm) for r in profile.regions)
    return float((largest / 2 + context_mm) * np.sqrt(2))


def cut_cells(
    rectified: Rectified,
    regions: tuple[str, ...],
    context_mm: float,
    size_px: int,
    lean_up: bool = False,
    offsets_mm: tuple[tuple[float, float], ...] = ((0.0, 0.0),),
    only: frozenset[CellKey] | None = None,
) -> CellGrid:
    """Each existing cell of ``regions`` (of those, the ones in ``only`` when given), grown by ``context_mm``
    on every side, resized to ``size_px``; cut that far (x, y) off the cell's place at each of
    ``offsets_mm`` in turn (the cells once each at the first offset, then at the next...).

    The context lets a classifier see a piece that leans out of its square and the edges of its neighbours;
    beyond the board's edge a crop shows what the rectified picture holds there (:func:`margin_mm`),
    the border repeated past that. With ``lean_up`` each crop is turned about its centre so that "away from
    the camera's foot" points up: a standing piece's top, drawn displaced that way, always lies above its
    footprint, and a neighbour's top leaning over this cell comes in from below, whatever the camera's
    position.
    """
    s = rectified.frame.px_per_mm
    foot = rectified.foot_mm if lean_up else None
    off = int(np.ceil(max(abs(v) for offset in offsets_mm for v in offset) * s))
    if foot is None:
        pad = int(np.ceil(context_mm * s)) + 1 + off
    else:  # room for a turned crop's corners round a cell on the board's edge
        pad = int(np.ceil(margin_mm(rectified.frame.profile, context_mm, True) * s)) + 3 + off
    # One padded copy of the whole board serves every offset.
    padded = rectified.padded(pad)
    crops = []
    keys: list[CellKey] = []
    for dx, dy in offsets_mm:
        for name in regions:
            region = rectified.frame.profile.region(name)
            for r, c in region.cells():
                if only is not None and (name, r, c) not in only:
                    continue
                x0, y0, x1, y1 = cell_rect_mm(region, r, c)
                box = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)
                if foot is not None:
                    crops.append(_turned(padded, pad, s, box, context_mm, size_px, foot))
                else:
                    crops.append(_upright(padded, pad, s, box, context_mm, size_px))
                keys.append((name, r, c))
    return _grid(crops, keys, size_px)


def cut_along_lean(
    rectified: Rectified,
    keys: tuple[CellKey, ...],
    context_mm: float,
    size_px: int,
    top_mm: float,
    along: float,
) -> CellGrid:
    """Those of the cells ``keys`` where a piece ``top_mm`` tall standing on the centre is seen leaning by
    more than the context (its top may leave the cell's own crop), cut as :func:`cut_cells` cuts them
    upright but moved ``along`` that lean (a share of it: at 1 the top lies in the crop's middle, at 0.5
    half-way between the middle and the foot). None where the camera's place is not known."""
    s = rectified.frame.px_per_mm
    foot, height = rectified.foot_mm, rectified.camera_height_mm
    # A camera not well above the tops would see them from the side: no lean to follow then.
    if foot is None or height is None or height <= 2 * top_mm:
        return _grid([], [], size_px)
    boxes, moved, furthest = [], [], 0.0
    for key in keys:
        x0, y0, x1, y1 = cell_rect_mm(rectified.frame.profile.region(key[0]), key[1], key[2])
        lean = (np.array([(x0 + x1) / 2, (y0 + y1) / 2]) - foot) * top_mm / (height - top_mm)
        if np.abs(lean).max() <= context_mm:
            continue
        shift = lean * along
        boxes.append((x0 + shift[0], y0 + shift[1], x1 + shift[0], y1 + shift[1]))
        moved.append(key)
        furthest = max(furthest, float(np.abs(shift).max()))
    # Room round the board for a moved crop of an edge cell (what the photo shows there is repeated).
    pad = int(np.ceil((furthest + context_mm) * s)) + 1
    padded = rectified.padded(pad)
    crops = [_upright(padded, pad, s, box, context_mm, size_px) for box in boxes]
    return _grid(crops, moved, size_px)


def _grid(crops: list[NDArray[np.uint8]], keys: list[CellKey], size_px: int) -> CellGrid:
    stack = np.stack(crops) if crops else np.zeros((0, size_px, size_px, 3), np.uint8)
    return CellGrid(np.asarray(stack, dtype=np.uint8), tuple(keys))


def _upright(
    padded: NDArray[np.uint8],
    pad: int,
    px_per_mm: float,
    rect_mm: tuple[float, float, float, float],
    context_mm: float,
    size_px: int,
) -> NDArray[np.uint8]:
    """The board's box ``rect_mm`` grown by ``context_mm``, from the board ``padded`` by ``pad`` pixels."""
    x0, y0, x1, y1 = rect_mm
    s = px_per_mm
    box = (
        round((x0 - context_mm) * s) + pad,
        round((y0 - context_mm) * s) + pad,
        round((x1 + context_mm) * s) + pad,
        round((y1 + context_mm) * s) + pad,
    )
    patch = padded[box[1] : box[3], box[0] : box[2]]
    return np.asarray(cv2.resize(patch, (size_px, size_px), interpolation=cv2.INTER_AREA), np.uint8)


def _turned(
    padded: NDArray[np.uint8],
    pad: int,
    px_per_mm: float,
    rect_mm: tuple[float, float, float, float],
    context_mm: float,
    size_px: int,
    foot_mm: NDArray[np.float64],
) -> NDArray[np.uint8]:
    """One cell's crop (as :func:`cut_cells` cuts it) turned so that the direction away from ``foot_mm``
    points up: brought to the crop's scale first (area averaging, as the upright crops are), then turned."""
    x0, y0, x1, y1 = rect_mm
    centre_mm = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    away = centre_mm - foot_mm
    norm = float(np.linalg.norm(away))
    up = away / norm if norm > 1e-6 else np.array([0.0, -1.0])
    # Crop axes in the source: its y axis (down) runs towards the foot, its x axis keeps the turn proper.
    ex, ey = np.array([-up[1], up[0]]), -up
    half = max(x1 - x0, y1 - y0) / 2 + context_mm  # mm
    scale = size_px / (2 * half * px_per_mm)  # crop pixels per rectified pixel
    radius = int(np.ceil(half * np.sqrt(2) * px_per_mm)) + 2
    cx, cy = (int(np.rint(v * px_per_mm)) + pad for v in centre_mm)
    patch = padded[cy - radius : cy + radius, cx - radius : cx + radius]
    small = cv2.resize(patch, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    # The cell's centre in the scaled patch (continuous coordinates: pixel i spans [i, i + 1)).
    centre = (centre_mm * px_per_mm + pad - np.array([cx - radius, cy - radius])) * np.array(
        [small.shape[1] / patch.shape[1], small.shape[0] / patch.shape[0]]
    )
    # Crop pixel (u, v) shows the scaled patch at centre + ex (u + 0.5 - S/2) + ey (v + 0.5 - S/2) - 0.5.
    offset = centre - 0.5 + (ex + ey) * (0.5 - size_px / 2)
    matrix = np.column_stack([ex, ey, offset])
    out = cv2.warpAffine(
        small,
        matrix,
        (size_px, size_px),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(out, dtype=np.uint8)
