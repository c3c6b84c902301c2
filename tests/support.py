"""Helpers shared by the tests."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.camera import charuco_board
from lab.synth.camera import PhotoOptions, photograph
from lab.synth.scene import BoardDrawing, SyntheticBoard
from vision.camera_model import CameraModel
from vision.profile import BoardProfile

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
# The bundled example photo most command tests read, and its board's truth.
ALICE_PHOTO = EXAMPLES / "photos" / "alices-garden.jpg"
ALICE_TRUTH = json.loads((EXAMPLES / "photos" / "alices-garden.json").read_text())["boards"][0]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``garden-scorer ARGV``: the exit code and what it printed to stdout and stderr."""
    from device.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_lab(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``garden-scorer-lab ARGV``: the exit code and what it printed to stdout and stderr."""
    from lab.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def load_example(name: str) -> Any:
    return json.loads((EXAMPLES / name).read_text())


# Art comparisons happen at 2 px/mm, about the scale of a board in the default 2304x1296 photo, so detail
# the camera cannot resolve does not count. Read noise (sigma up to 5) averaged over the 2x2 pixels of that
# downsampling leaves sigma 2.5, so two noisy photos of one label differ by about 1.13 * 2.5 * sqrt(2) = 4
# grey levels on average; a label must differ from every other by at least twice that.
DRAW_PX = 4.0
COMPARE_PX = 2.0
MIN_DIFFERENCE = 8.0


def mean_abs_difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference of two drawings (made at DRAW_PX) compared at COMPARE_PX."""
    size = (round(a.shape[1] * COMPARE_PX / DRAW_PX), round(a.shape[0] * COMPARE_PX / DRAW_PX))
    sa = cv2.resize(a, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    sb = cv2.resize(b, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    return float(np.abs(sa - sb).mean())


def top_view(drawing: BoardDrawing) -> np.ndarray:
    """The board seen straight down, pieces included (their tops hide what is under them)."""
    image = drawing.image_bgr.copy()
    for piece in drawing.pieces:
        size = piece.top_bgra.shape[0]
        x0 = round(piece.x_mm * drawing.px_per_mm - size / 2)
        y0 = round(piece.y_mm * drawing.px_per_mm - size / 2)
        roi = image[y0 : y0 + size, x0 : x0 + size]
        alpha = piece.top_bgra[..., 3:4].astype(np.float32) / 255
        roi[:] = (roi * (1 - alpha) + piece.top_bgra[..., :3] * alpha).astype(np.uint8)
    return image


def charuco_photos(folder: Path, model: CameraModel, count: int) -> list[Path]:
    """``count`` photos of a printed 7x5 ChArUco board of 30 mm squares, taken by the camera ``model``."""
    cols, rows, square = 7, 5, 30.0
    ppm = 8.0
    image = charuco_board(cols, rows, square).generateImage(
        (round(cols * square * ppm), round(rows * square * ppm))
    )
    # A white margin, as printed: the pattern's outer squares need contrast to be found.
    image = cv2.copyMakeBorder(image, 80, 80, 80, 80, cv2.BORDER_CONSTANT, value=255)
    size = (cols * square + 20, rows * square + 20)
    profile = BoardProfile("charuco", "charuco", size, ())
    board = SyntheticBoard(
        profile, "print", {}, {}, BoardDrawing(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), ppm)
    )
    paths = []
    for i in range(count):
        photo = photograph(
            [board], np.random.default_rng([77, i]), PhotoOptions(size_wh=model.size_wh), model
        )
        path = folder / f"view{i:02d}.jpg"
        path.write_bytes(photo.jpeg)
        paths.append(path)
    return paths


def with_exif_orientation(jpeg: bytes, turn: int, order: str = "<") -> bytes:
    """``jpeg`` with an EXIF APP1 segment right after its SOI whose first directory holds Orientation
    ``turn`` (and one other tag before it, as cameras write them)."""
    mark = b"II" if order == "<" else b"MM"
    entries = struct.pack(order + "HHI4s", 0x010F, 2, 4, b"Cam\0")  # Make, an ASCII tag
    entries += struct.pack(order + "HHIH2x", 0x0112, 3, 1, turn)  # Orientation, a SHORT
    tiff = mark + struct.pack(order + "HI", 42, 8) + struct.pack(order + "H", 2) + entries + b"\0\0\0\0"
    body = b"Exif\0\0" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + jpeg[2:]
