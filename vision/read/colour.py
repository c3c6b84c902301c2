"""Colour: white balance and exposure normalised from the board's own printed background.

A different lamp, daylight or camera white balance than at enrolment shifts the colour of every cell, and the
classifiers read colour. Tiles cannot tell us the light (which tile lies where is what we want to know), but
the board's unprinted background can: its true colour is the colour it had when the profile was made. So the
background's colour is measured once when a board profile is made or enrolled (the reference), and every
later photo is scaled per channel until its background matches it again, so classification always sees the
light of enrolment.

The background is every part of the board outside the regions' cells (margins, borders, the space between
regions), kept a few millimetres away from the cells, so a tile leaning out of its square does not count, and
from the board's rim, so neither a slightly misplaced corner nor the table shows through.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scoring.fields import as_float, as_list, as_object, get, item_path, reject_unknown
from vision.geometry import BoardFrame
from vision.profile import BoardProfile
from vision.read.rectify import Rectified

# A channel clipped at either end no longer scales with the light, so it says nothing about the gain: at the
# top that is glare on the board's finish, at the bottom shadow or a sensor floor.
CLIPPED = 250
NEAR_BLACK = 8
# Less usable background than this share of the board is too little to trust for the whole picture's colour.
MIN_USABLE_SHARE = 0.02
# Enough to undo a warm lamp or an under-exposed shot; a photo of something other than the board must not be
# pushed further than that.
MIN_GAIN = 0.5
MAX_GAIN = 2.0


def background_mask(profile: BoardProfile, px_per_mm: float, margin_mm: float = 3.0) -> NDArray[np.bool_]:
    """The board's printed background in the rectified picture at ``px_per_mm``.

    True where a pixel lies wholly at least ``margin_mm`` inside the board's rim and at least ``margin_mm``
    from every existing cell of every region.
    """
    if margin_mm < 0:
        raise ValueError(f"margin_mm must not be negative, got {margin_mm}")
    frame = BoardFrame(profile, px_per_mm)
    w, h = frame.size_wh
    mask = np.zeros((h, w), dtype=np.bool_)
    width_mm, height_mm = profile.size_mm
    inner_mm = [(margin_mm, margin_mm), (width_mm - margin_mm, height_mm - margin_mm)]
    (x0, y0), (x1, y1) = frame.mm_to_px(inner_mm)
    # Pixel i covers [i, i + 1), so only whole pixels between the two bounds are inside the rim.
    mask[int(np.ceil(y0)) : max(0, int(np.floor(y1))), int(np.ceil(x0)) : max(0, int(np.floor(x1)))] = True
    for region in profile.regions:
        for r, c in region.cells():
            cx0, cy0, cx1, cy1 = frame.cell_box_px(region, r, c, context_mm=margin_mm)
            mask[cy0:cy1, cx0:cx1] = False
    return mask


@dataclass(frozen=True)
class BoardColour:
    """The background's robust colour: per-channel median BGR of its unclipped pixels.

    ``usable_share`` is the share of background pixels that were unclipped and so went into the median.
    """

    median_bgr: tuple[float, float, float]
    usable_share: float

    def to_json(self) -> dict[str, Any]:
        return {"median_bgr": list(self.median_bgr), "usable_share": self.usable_share}

    @classmethod
    def from_json(cls, data: object) -> BoardColour:
        """A colour from decoded JSON; a bad field raises ValueError naming it."""
        obj = as_object(data, "board_colour")
        reject_unknown(obj, ("median_bgr", "usable_share"), "board_colour")
        values = as_list(get(obj, "median_bgr", "board_colour"), "median_bgr", 3)
        b, g, r = (as_float(v, item_path("median_bgr", i), NEAR_BLACK, CLIPPED) for i, v in enumerate(values))
        share = as_float(get(obj, "usable_share", "board_colour"), "usable_share", 0.0, 1.0)
        return cls((b, g, r), share)


def measure(rect: Rectified, profile: BoardProfile) -> BoardColour | None:
    """The colour of ``rect``'s background, or None when too little of it is usable (covered, clipped)."""
    mask = background_mask(profile, rect.frame.px_per_mm)
    image = rect.image_bgr
    if image.shape[:2] != mask.shape:
        raise ValueError(
            f"rectified image is {image.shape[1]}x{image.shape[0]} px but profile {profile.name!r} at "
            f"{rect.frame.px_per_mm} px/mm is {mask.shape[1]}x{mask.shape[0]} px"
        )
    # Counted in histograms under a mask rather than gathered and sorted: 6.2 -> 1.5 ms a Tang Garden board.
    usable = cv2.inRange(image, (NEAR_BLACK,) * 3, (CLIPPED - 1,) * 3)
    usable[~mask] = 0
    count = cv2.countNonZero(usable)
    if count < MIN_USABLE_SHARE * mask.size:
        return None
    hists = (cv2.calcHist([image], [channel], usable, [256], [0, 256]).ravel() for channel in range(3))
    b, g, r = (_histogram_median(h) for h in hists)
    return BoardColour((b, g, r), count / int(np.count_nonzero(mask)))


def _histogram_median(counts: NDArray[np.float32]) -> float:
    """The median of the values 0-255 counted in ``counts``, as ``np.median`` of the values gives it."""
    below = np.cumsum(counts.astype(np.int64))
    n = int(below[-1])
    # The k-th smallest value (from 0) is the first whose count of values at or below it exceeds k.
    low, high = np.searchsorted(below, [(n - 1) // 2 + 1, n // 2 + 1])
    return (float(low) + float(high)) / 2


def normalise(
    rect: Rectified, reference: BoardColour, profile: BoardProfile
) -> tuple[Rectified, NDArray[np.float64]]:
    """``rect`` scaled per channel so its background takes ``reference``'s colour, and the BGR gains used.

    With no usable background the picture is returned as it is, with gains of 1.
    """
    measured = measure(rect, profile)
    if measured is None:
        return rect, np.ones(3, dtype=np.float64)
    ratio = np.asarray(reference.median_bgr, dtype=np.float64) / np.asarray(measured.median_bgr)
    gains = np.clip(ratio, MIN_GAIN, MAX_GAIN)

    # Each channel's 256 values scaled once, then looked up: scaling every pixel in floats took 9 ms a photo.
    table = np.clip(np.rint(np.arange(256, dtype=np.float64)[:, None] * gains), 0, 255).astype(np.uint8)
    lut = np.ascontiguousarray(table.reshape(1, 256, 3))

    def scaled(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        return np.asarray(cv2.LUT(image, lut), np.uint8)

    surround = None if rect.surround_bgr is None else scaled(rect.surround_bgr)
    return replace(rect, image_bgr=scaled(rect.image_bgr), surround_bgr=surround), gains
