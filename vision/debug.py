"""Pictures of each vision stage, for ``garden-scorer debug`` and the web page."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.camera_model import CameraModel
from vision.geometry import Points, cell_rect_mm
from vision.locate.board import Quad
from vision.locate.mask import BoardMasks, segment_input
from vision.pipeline import BoardReading
from vision.profile import BoardProfile
from vision.read.cells import CellGrid
from vision.read.rectify import board_homography, rectify
from vision.readers import reader_for

GOOD = (60, 200, 60)
TURN_PX_PER_MM = 1.5  # a turn's picture: small enough for a phone to show four of
DOUBTFUL = (0, 160, 255)


def draw_quads(image: NDArray[np.uint8], quads: Sequence[Quad]) -> NDArray[np.uint8]:
    """The photo with each located outline, named by what found it (edges, mask, grid, picture...); an
    outline touching the frame's edge is drawn orange, and the top-left corner of one found the right way up
    (by stickers or its picture) is marked with a dot."""
    out = image.copy()
    width = max(2, image.shape[1] // 600)
    for i, quad in enumerate(quads):
        colour = GOOD if quad.in_frame else DOUBTFUL
        pts = np.round(quad.corners_xy * 16).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, width, cv2.LINE_AA, 4)
        if quad.oriented:
            top_left = tuple(int(v) for v in np.round(quad.corners_xy[0]))
            cv2.circle(out, top_left, 4 * width, colour, -1, cv2.LINE_AA)
        x, y = quad.corners_xy.min(axis=0)
        cv2.putText(
            out,
            f"#{i + 1} {quad.method}",
            (int(x), max(20, int(y) - 8)),
            cv2.FONT_HERSHEY_SIMPLEX,
            width * 0.6,
            colour,
            width,
            cv2.LINE_AA,
        )
    return out


def draw_masks(image: NDArray[np.uint8], masks: BoardMasks) -> NDArray[np.uint8]:
    """The photo as the board-mask model saw it, its boards' faces tinted green and their cores red, each
    of its pixels drawn 3 by 3 so they can be told apart."""
    small, _ = segment_input(image)
    out = small.astype(np.float32)
    out[..., 1] += 110 * masks.board
    out[..., 2] += 110 * masks.core
    big = cv2.resize(out, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST)
    return np.asarray(np.clip(big, 0, 255), np.uint8)


def draw_likeness(image: NDArray[np.uint8], likeness: NDArray[np.float32]) -> NDArray[np.uint8]:
    """The photo dimmed where its colours are not the board art's (``likeness``, 0-1 per pixel)."""
    weight = 0.2 + 0.8 * likeness[..., None]
    return np.asarray(np.clip(image.astype(np.float32) * weight, 0, 255), np.uint8)


def draw_reading(reading: BoardReading, captions: bool = True) -> NDArray[np.uint8]:
    """The rectified board with every cell outlined and (``captions``) labelled; low-confidence cells in
    orange. The web app's pictures go without: its page says each cell in words, in its own text."""
    rect = reading.rectified
    scale = 2
    image = cv2.resize(rect.image_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    s = rect.frame.px_per_mm * scale
    low = set(reading.low_confidence)
    reader = reader_for(reading.profile)
    for key, values in reading.readings.items():
        region = rect.frame.profile.region(key[0])
        x0, y0, x1, y1 = (round(v * s) for v in cell_rect_mm(region, key[1], key[2]))
        colour = DOUBTFUL if key in low else GOOD
        _outline(image, (x0, y0, x1, y1), colour, 2 if key in low else 1)
        if not captions:
            continue
        heads = {h.name: h for h in reader.heads}
        words = cell_words({head: heads[head].word(values[head][0]) for head in reader.region_heads(key[0])})
        if words:
            _caption(image, words, (x0, y0, x1, y1), colour)
    return np.asarray(image, dtype=np.uint8)


def draw_turn(
    image: NDArray[np.uint8], corners_xy: Points, profile: BoardProfile, camera: CameraModel | None
) -> NDArray[np.uint8]:
    """The board as it reads at one of its turns (``corners_xy``, photo pixels, its top left first), its
    grids' cells outlined where the profile places them: the owner sees which turn lays them on the printed
    squares."""
    ideal = camera.undistort_px(corners_xy) if camera is not None else np.asarray(corners_xy, np.float64)
    rect = rectify(image, profile, board_homography(profile, ideal), camera, TURN_PX_PER_MM)
    out = rect.image_bgr.copy()
    for region in profile.regions:
        for r, c in region.cells():
            x0, y0, x1, y1 = (round(v * TURN_PX_PER_MM) for v in cell_rect_mm(region, r, c))
            _outline(out, (x0, y0, x1, y1), GOOD, 1)
    return np.asarray(out, np.uint8)


def _outline(
    image: NDArray[np.uint8], box: tuple[int, int, int, int], colour: tuple[int, int, int], width: int
) -> None:
    """A cell's outline in ``colour`` over a dark band: seen on any art, a green one on a green lawn too
    (an independent try lost the grid's green lines on its own green board)."""
    x0, y0, x1, y1 = box
    cv2.rectangle(image, (x0, y0), (x1, y1), (0, 0, 0), width + 2)
    cv2.rectangle(image, (x0, y0), (x1, y1), colour, width)


def cell_words(values: dict[str, str]) -> list[str]:
    """What a cell shows, in words: nothing for what the picture shows plainly (an empty square, a marker
    not there), a present marker by its head's name (a track space's ``orange: yes`` is "orange")."""
    out = []
    for head, value in values.items():
        if not value or value in ("none", ".", "no") or value.startswith("empty"):
            continue
        out.append((head if value == "yes" else value).replace("_", " ").replace("-", " "))
    return out


FONT = cv2.FONT_HERSHEY_SIMPLEX
SMALLEST_TEXT = 0.4  # font scale: below this a caption is not read on a phone


def _caption(
    image: NDArray[np.uint8], words: list[str], box: tuple[int, int, int, int], colour: tuple[int, int, int]
) -> None:
    """``words`` at the foot of the cell ``box``, one to a line, light on a dark band, as large as the
    cell's width allows (never smaller than :data:`SMALLEST_TEXT`: a long word runs past the cell)."""
    x0, y0, x1, y1 = box
    width = max(1, x1 - x0 - 6)
    widest = max(cv2.getTextSize(w, FONT, 1.0, 1)[0][0] for w in words)
    scale = float(np.clip(width / widest, SMALLEST_TEXT, 0.8))
    thickness = 2 if scale >= 0.6 else 1
    height = cv2.getTextSize("Ag", FONT, scale, thickness)[0][1] + 6
    top = max(y0, y1 - height * len(words) - 2)
    for i, word in enumerate(words):
        base = top + height * (i + 1) - 3
        text_w = cv2.getTextSize(word, FONT, scale, thickness)[0][0]
        cv2.rectangle(image, (x0 + 1, base - height + 3), (x0 + text_w + 6, base + 3), (20, 28, 22), -1)
        light = (255, 255, 255) if colour == GOOD else colour
        cv2.putText(image, word, (x0 + 3, base), FONT, scale, light, thickness, cv2.LINE_AA)


def cell_sheet(cells: CellGrid, columns: int = 12) -> NDArray[np.uint8]:
    """Every crop the classifier saw, in reading order."""
    n = len(cells.keys)
    if not n:
        return np.zeros((8, 8, 3), np.uint8)
    size = cells.crops_bgr.shape[1]
    rows = -(-n // columns)
    sheet = np.full((rows * (size + 2), columns * (size + 2), 3), 40, np.uint8)
    for i, crop in enumerate(cells.crops_bgr):
        r, c = divmod(i, columns)
        sheet[r * (size + 2) : r * (size + 2) + size, c * (size + 2) : c * (size + 2) + size] = crop
    return sheet
