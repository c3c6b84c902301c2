"""Decoding photos safely: size limits are checked from the file header before any pixel is decoded.

Only JPEG and PNG are accepted (what phones upload and cameras write). Every failure raises
:class:`ImageError` saying what is wrong and what to do.
"""

from __future__ import annotations

import struct

import cv2
import numpy as np
from numpy.typing import NDArray

# A 64-megapixel phone photo is the largest thing a player may reasonably upload.
MAX_PIXELS = 64_000_000
MAX_BYTES = 60_000_000

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers that carry the image size (baseline, progressive, lossless, ...).
_SOF_MARKERS = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class ImageError(ValueError):
    """A photo could not be used: not an image, corrupt, or too large."""


def image_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` read from a JPEG or PNG header, without decoding pixels."""
    if data.startswith(_PNG_SIGNATURE):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageError("the PNG is truncated before its header; export or upload it again")
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    raise ImageError("not a JPEG or PNG image; send a photo as .jpg or .png")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ImageError("the JPEG is corrupt (bad marker); take or upload the photo again")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _SOF_MARKERS:
            if i + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        if length < 2:
            raise ImageError("the JPEG is corrupt (bad segment length); take or upload the photo again")
        i += 2 + length
    raise ImageError("the JPEG is truncated before its size is given; take or upload the photo again")


def decode_image(data: bytes, max_pixels: int = MAX_PIXELS) -> NDArray[np.uint8]:
    """An 8-bit BGR image from JPEG or PNG bytes, refusing huge, empty and corrupt files.

    16-bit and alpha PNGs are reduced to 8-bit BGR (alpha dropped), as every later stage expects.
    """
    if not data:
        raise ImageError("the file is empty; send a photo")
    if len(data) > MAX_BYTES:
        raise ImageError(
            f"the file is {len(data)} bytes, over the {MAX_BYTES}-byte limit; send a smaller photo"
        )
    width, height = image_size(data)
    if width < 1 or height < 1:
        raise ImageError(f"the image claims a size of {width}x{height}; it is corrupt")
    if width * height > max_pixels:
        raise ImageError(
            f"the image is {width}x{height} = {width * height} pixels, over the {max_pixels}-pixel limit; "
            "send a smaller photo"
        )
    buf = np.frombuffer(data, np.uint8)
    image = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ImageError("the image could not be decoded (corrupt or truncated); take or upload it again")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    if image.dtype != np.uint8:
        raise ImageError(f"unsupported pixel type {image.dtype}; send an 8- or 16-bit photo")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[0] != height or image.shape[1] != width:
        raise ImageError("the decoded image does not match its header; the file is corrupt")
    return np.ascontiguousarray(image, dtype=np.uint8)


def read_image(path: str, max_pixels: int = MAX_PIXELS) -> NDArray[np.uint8]:
    """:func:`decode_image` of a file, with the file's own errors turned into ImageError."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ImageError(f"{path}: cannot read the photo ({exc.strerror or exc})") from None
    try:
        return decode_image(data, max_pixels)
    except ImageError as exc:
        raise ImageError(f"{path}: {exc}") from None
