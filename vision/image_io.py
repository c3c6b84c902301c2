"""Decoding photos safely, and as their viewers show them: size limits are checked from the file header
before any pixel is decoded, and a JPEG is turned as its EXIF Orientation tag says.

A phone writes the picture as its sensor saw it and an Orientation tag (EXIF, in the JPEG's APP1 segment)
saying how to turn it for viewing; every viewer does, so a photo is read, and corners a player marks on it
are taken, the way the player sees it. Only JPEG and PNG are accepted (what phones upload and cameras write).
Every failure raises :class:`ImageError` saying what is wrong and what to do.
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
_APP1 = 0xE1
_EXIF = b"Exif\0\0"
_ORIENTATION_TAG = 0x0112


class ImageError(ValueError):
    """A photo could not be used: not an image, corrupt, or too large."""


def image_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` of the pixels as stored, read from a JPEG or PNG header without decoding them
    (a JPEG whose :func:`orientation` turns it a quarter is shown ``(height, width)``)."""
    return _header(data)[0]


def orientation(data: bytes) -> int:
    """The EXIF Orientation of a JPEG or PNG (1-8, as the EXIF standard numbers them; 1 where it names
    none): how a viewer turns the stored pixels to show them."""
    return _header(data)[1]


def viewed_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` of the photo as viewers show it (its EXIF orientation applied), from its header."""
    w, h = image_size(data)
    return (h, w) if orientation(data) in (5, 6, 7, 8) else (w, h)


def _header(data: bytes) -> tuple[tuple[int, int], int]:
    if data.startswith(_PNG_SIGNATURE):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageError("the PNG is truncated before its header; export or upload it again")
        width, height = struct.unpack(">II", data[16:24])
        return (int(width), int(height)), 1
    if data.startswith(b"\xff\xd8"):
        return _jpeg_header(data)
    raise ImageError("not a JPEG or PNG image; send a photo as .jpg or .png")


def _jpeg_header(data: bytes) -> tuple[tuple[int, int], int]:
    """The stored size and the EXIF orientation, from the segments before the first frame."""
    turn = 1
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
            return (int(width), int(height)), turn
        if length < 2:
            raise ImageError("the JPEG is corrupt (bad segment length); take or upload the photo again")
        if marker == _APP1 and data[i + 4 : i + 10] == _EXIF:
            turn = _exif_orientation(data[i + 10 : i + 2 + length])
        i += 2 + length
    raise ImageError("the JPEG is truncated before its size is given; take or upload the photo again")


def _exif_orientation(tiff: bytes) -> int:
    """The Orientation tag of an EXIF block's first image directory; 1 where it is missing or unreadable
    (a damaged tag must not cost the photo: it is then shown as stored, as viewers do)."""
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None or len(tiff) < 8:
        return 1
    (first,) = struct.unpack(order + "I", tiff[4:8])
    if first + 2 > len(tiff):
        return 1
    (count,) = struct.unpack(order + "H", tiff[first : first + 2])
    for k in range(count):
        entry = first + 2 + 12 * k
        if entry + 12 > len(tiff):
            return 1
        tag, kind, _, value = struct.unpack(order + "HHI2s2x", tiff[entry : entry + 12])
        if tag == _ORIENTATION_TAG:
            (turn,) = struct.unpack(order + "H", value)
            return int(turn) if kind == 3 and 1 <= turn <= 8 else 1
    return 1


def _as_viewed(image: NDArray[np.uint8], turn: int) -> NDArray[np.uint8]:
    """The stored pixels turned as EXIF orientation ``turn`` tells a viewer to."""
    if turn in (5, 6, 7, 8):
        # A quarter turn: 6 clockwise, 8 anticlockwise; 5 (a transpose) and 7 are those mirrored.
        image = cv2.rotate(
            image, cv2.ROTATE_90_CLOCKWISE if turn in (5, 6) else cv2.ROTATE_90_COUNTERCLOCKWISE
        )
        return image[:, ::-1] if turn in (5, 7) else image
    if turn == 2:
        return image[:, ::-1]
    if turn == 3:
        return image[::-1, ::-1]
    if turn == 4:
        return image[::-1]
    return image


def decode_image(data: bytes, max_pixels: int = MAX_PIXELS) -> NDArray[np.uint8]:
    """An 8-bit BGR image from JPEG or PNG bytes as viewers show it (EXIF orientation applied), refusing
    huge, empty and corrupt files before decoding them.

    16-bit and alpha PNGs are reduced to 8-bit BGR (alpha dropped), as every later stage expects.
    """
    if not data:
        raise ImageError("the file is empty; send a photo")
    if len(data) > MAX_BYTES:
        raise ImageError(
            f"the file is {len(data)} bytes, over the {MAX_BYTES}-byte limit; send a smaller photo"
        )
    (width, height), turn = _header(data)
    if width < 1 or height < 1:
        raise ImageError(f"the image claims a size of {width}x{height}; it is corrupt")
    if width * height > max_pixels:
        raise ImageError(
            f"the image is {width}x{height} = {width * height} pixels, over the {max_pixels}-pixel limit; "
            "send a smaller photo"
        )
    buf = np.frombuffer(data, np.uint8)
    # As stored (IMREAD_UNCHANGED ignores the orientation), so that the header's size checks the pixels.
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
    return np.ascontiguousarray(_as_viewed(image, turn), dtype=np.uint8)


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
