"""Decoding photos safely, and as their viewers show them: size limits are checked from the file header
before any pixel is decoded, and a JPEG is turned as its EXIF Orientation tag says.

A decode costs memory by the bytes it holds, not by the pixels: a 16-bit RGBA PNG holds 8 bytes a pixel where
a JPEG gives 3, and OpenCV holds a PNG twice while it decodes it. So the limit counts the bytes of the pixels
as the file stores them, or as the 8-bit BGR every later stage reads, whichever is more, times the copies the
decoder holds. Decodes take turns, one at a time in the whole process, so that several uploads at once cost
one decode's memory, not several.

A phone writes the picture as its sensor saw it and an Orientation tag (EXIF, in the JPEG's APP1 segment)
saying how to turn it for viewing; every viewer does, so a photo is read, and corners a player marks on it
are taken, the way the player sees it. Only JPEG and PNG are accepted (what phones upload and cameras write).
Every failure raises :class:`ImageError` saying what is wrong and what to do.

A phone's photo also says who took it, where and when (EXIF GPS position, time, camera serial, owner name;
XMP, IPTC): :func:`without_personal_metadata` removes that before a photo is kept or served, leaving the
compressed image untouched, so that it decodes to the same pixels and is shown the same way.
"""

from __future__ import annotations

import math
import re
import struct
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import Points

# A 64-megapixel phone photo is the largest thing a player may reasonably upload; as phone makers count them
# (a 9248 x 6936 sensor is 64.1 million pixels).
MAX_PIXELS = 64 * 2**20
MAX_BYTES = 60_000_000
# What decoding may hold: such a photo as 8-bit BGR (201 MB). A file of larger samples (16-bit, alpha) is
# counted at its own size, as a decoder may hold it so, and a PNG twice (below): the largest PNG is 33
# megapixels of 8-bit colour, 12 of 16-bit RGBA.
BGR_BYTES = 3
MAX_DECODED_BYTES = MAX_PIXELS * BGR_BYTES
# OpenCV decodes a PNG into a buffer of its own, then copies it out: it holds the image twice (measured).
_PNG_COPIES = 2
# OpenCV's flags reading 8-bit BGR at 1/1, 1/2, 1/4 and 1/8 of the size (libjpeg scales a JPEG while it
# decodes, at a fraction of the cost; a PNG is decoded whole, then scaled), the orientation left to us.
_REDUCED = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}
# A decode holds the whole image for a moment (a PNG twice over): one at a time in the process.
_DECODING = threading.Lock()

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers that carry the image size (baseline, progressive, lossless, ...).
_SOF_MARKERS = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
# Those of a progressive JPEG, which is decoded from scans that each refine every block: the decoder holds all
# the blocks' coefficients (two bytes each) at full size till the last scan, however much it scales the
# output (an 8192 x 8192 progressive CMYK JPEG of 1.1 MB held 783 MB when this was not counted).
_PROGRESSIVE = {0xC2, 0xC6, 0xCA, 0xCE}
_COEFFICIENT_BYTES = 2
# A progressive JPEG's scans are each a pass over all its coefficients: libjpeg writes 10, encoders tuned for
# size a few more; thousands of empty ones (100 bytes each) held the reader a minute per 1.5 MB.
MAX_SCANS = 64
_APP0, _APP1, _APP2, _APP14 = 0xE0, 0xE1, 0xE2, 0xEE
_COM, _SOS, _EOI = 0xFE, 0xDA, 0xD9
# Markers without a length: SOI, EOI, TEM and the restart markers.
_STANDALONE = {0xD8, 0xD9, 0x01, *range(0xD0, 0xD8)}
# The segments of the image itself: frames, Huffman and arithmetic tables, quantisation tables, scans, the
# number of lines, the restart interval, hierarchical progression. Decoders refuse any other marker that is
# not an APPn or a comment (libjpeg stops at it), so a stripped photo may not carry one either.
_JPEG_IMAGE_MARKERS = _SOF_MARKERS | _STANDALONE | {0xC4, 0xCC, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF}
# What ends a scan's entropy-coded data: a marker, i.e. 0xFF followed by neither a stuffed 0x00, a restart
# marker (which belongs to the scan) nor another 0xFF (a fill byte).
_SCAN_END = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
_EXIF = b"Exif\0\0"
_ORIENTATION_TAG = 0x0112
# A JFIF APP0 up to its thumbnail: identifier, version, density units, densities, thumbnail width and height.
_JFIF = b"JFIF\0"
_JFIF_LENGTH = 14
# The APPn segments that decide how the pixels look, by their identifiers: the colour profile (APP2), and
# Adobe's APP14, which tells how a 3- or 4-component image's colours are coded (RGB, YCbCr, CMYK, YCCK).
_JPEG_KEPT_APPS = {_APP2: b"ICC_PROFILE\0", _APP14: b"Adobe"}
# The ancillary PNG chunks that decide how the pixels look (transparency, colour, gamma, HDR, aspect, the
# frames of an animation); every other ancillary chunk is dropped (text, eXIf, tIME, private chunks).
_PNG_KEPT = {
    b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"cICP", b"mDCV", b"cLLI", b"sBIT", b"bKGD", b"pHYs",
    b"hIST", b"sPLT", b"acTL", b"fcTL", b"fdAT",
}  # fmt: skip
# Samples a pixel of each PNG colour type holds: grey, RGB, palette (given as RGB), grey + alpha, RGBA.
_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}
_PNG_ALPHA = {4, 6}
# What a transparent PNG is shown over, as a viewer's page shows it: white. Read as stored, a picture whose
# every pixel is transparent (blank in any viewer) would be read by the colours under its alpha.
_PAGE = 255
# Rows composited at a time: what the compositing holds beyond the image is bounded.
_ROWS = 256
_PNG_DEPTHS = {1, 2, 4, 8, 16}


class ImageError(ValueError):
    """A photo could not be used: not an image, corrupt, or too large."""


@dataclass(frozen=True)
class _Header:
    size: tuple[int, int]
    """``(width, height)`` as stored."""
    turn: int
    """The EXIF orientation."""
    pixel_bytes: int
    """What a pixel takes as the file stores it: its samples times their bytes (a 16-bit RGBA PNG: 8)."""
    copies: int = 1
    """How many copies of the image the decoder holds at once."""
    coefficients: int = 0
    """The bytes of a progressive JPEG's coefficients, held at full size while it is decoded."""
    scans: int = 1
    """A JPEG's scans (one for a baseline JPEG)."""
    transparent: bool = False
    """A PNG that may be transparent (an alpha channel, or a tRNS chunk): shown over a page, not as stored."""


def image_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` of the pixels as stored, read from a JPEG or PNG header without decoding them
    (a JPEG whose :func:`orientation` turns it a quarter is shown ``(height, width)``)."""
    return _header(data).size


def orientation(data: bytes) -> int:
    """The EXIF Orientation of a JPEG or PNG (1-8, as the EXIF standard numbers them; 1 where it names
    none): how a viewer turns the stored pixels to show them."""
    return _header(data).turn


def viewed_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` of the photo as viewers show it (its EXIF orientation applied), from its header."""
    return _viewed(_header(data))


def _viewed(header: _Header) -> tuple[int, int]:
    w, h = header.size
    return (h, w) if header.turn in (5, 6, 7, 8) else (w, h)


def _header(data: bytes) -> _Header:
    return _png_header(data) if _is_png(data) else _jpeg_header(data)


def _is_png(data: bytes) -> bool:
    """Whether ``data`` is a PNG rather than a JPEG; what is neither is refused."""
    if data.startswith(_PNG_SIGNATURE):
        return True
    if data.startswith(b"\xff\xd8"):
        return False
    raise ImageError("not a JPEG or PNG image; send a photo as .jpg or .png")


def _png_header(data: bytes) -> _Header:
    """The size and pixel layout, from the IHDR chunk (which a PNG must begin with)."""
    if len(data) < 26 or data[12:16] != b"IHDR":
        raise ImageError("the PNG is truncated before its header; export or upload it again")
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    if colour not in _PNG_CHANNELS or depth not in _PNG_DEPTHS:
        raise ImageError(
            f"the PNG's header is corrupt (bit depth {depth}, colour type {colour}); export or upload it "
            "again"
        )
    chunks = _png_chunks(data)
    # Held as 8-bit BGRA too, when it is shown over a page.
    transparent = colour in _PNG_ALPHA or b"tRNS" in chunks
    pixel_bytes = max(_PNG_CHANNELS[colour] * (2 if depth == 16 else 1), 4 if transparent else 0)
    return _Header(
        (int(width), int(height)),
        _png_orientation(chunks),
        pixel_bytes,
        _PNG_COPIES,
        transparent=transparent,
    )


def _png_chunks(data: bytes) -> dict[bytes, bytes]:
    """The chunks before a PNG's image data, by kind (the first of each)."""
    chunks: dict[bytes, bytes] = {}
    i = 8
    while i + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[i : i + 8])
        if kind == b"IDAT" or i + 12 + length > len(data):
            break
        chunks.setdefault(kind, data[i + 8 : i + 8 + length])
        i += 12 + length
    return chunks


def _png_orientation(chunks: dict[bytes, bytes]) -> int:
    """The Orientation tag of a PNG's eXIf chunk (which comes before its image data); 1 where there is none.
    Viewers turn a PNG by it as they turn a JPEG (Safari, and Chromium since 2024)."""
    exif = chunks.get(b"eXIf")
    return 1 if exif is None else _exif_orientation(exif)


def _jpeg_header(data: bytes) -> _Header:
    """The stored size, pixel layout and EXIF orientation, from the segments before the first frame; what
    a progressive one's coefficients take, and the scans."""
    turn = 1
    frame: _Header | None = None
    scans = 0
    for marker, start, end in _jpeg_segments(data):
        if marker in _SOF_MARKERS and frame is None:
            frame = _jpeg_frame(data, marker, start, end, turn)
        elif marker == _SOS:
            scans += 1
        elif marker == _APP1 and frame is None and data[start + 4 : start + 10] == _EXIF:
            turn = _exif_orientation(data[start + 10 : end])
    if frame is None:
        raise ImageError("the JPEG is truncated before its size is given; take or upload the photo again")
    return replace(frame, scans=scans)


def _jpeg_frame(data: bytes, marker: int, start: int, end: int, turn: int) -> _Header:
    if end < start + 10:
        raise ImageError("the JPEG is corrupt (bad segment length); take or upload the photo again")
    # Sample precision (8 or 12 bits, 16 lossless), size, and components (grey 1, colour 3, CMYK 4), then each
    # component's id, sampling factors (horizontal, vertical: 4 bits each) and table.
    precision, height, width, components = struct.unpack(">BHHB", data[start + 4 : start + 10])
    if end < start + 10 + 3 * components:
        raise ImageError("the JPEG is corrupt (bad frame header); take or upload the photo again")
    sampling = [divmod(data[start + 11 + 3 * k], 16) for k in range(components)]
    coefficients = 0
    if marker in _PROGRESSIVE and sampling:
        most_h, most_v = max(h for h, _ in sampling) or 1, max(v for _, v in sampling) or 1
        for h, v in sampling:
            # Whole 8 x 8 blocks of each component at its own sampling, 64 coefficients each.
            across = math.ceil(math.ceil(width * h / most_h) / 8)
            down = math.ceil(math.ceil(height * v / most_v) / 8)
            coefficients += across * down * 64 * _COEFFICIENT_BYTES
    return _Header(
        (int(width), int(height)), turn, components * (2 if precision > 8 else 1), coefficients=coefficients
    )


def _jpeg_segments(data: bytes) -> Iterator[tuple[int, int, int]]:
    """The segments of a JPEG after its SOI, in order, as ``(marker, start, end)``: ``data[start:end]`` is
    the segment from its 0xFF, and a start of scan (SOS) runs on over the scan's entropy-coded data, to the
    next marker. Ends after EOI, or where the data ends after a whole segment or within a scan (a decoder
    reads a scan cut short); a JPEG that cannot be walked so is refused, never half read."""
    i = 2
    while i < len(data):
        if data[i] != 0xFF:
            raise ImageError("the JPEG is corrupt (bad marker); take or upload the photo again")
        if i + 2 > len(data):
            break
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in _STANDALONE:
            yield marker, i, i + 2
            if marker == _EOI:
                return
            i += 2
            continue
        if i + 4 > len(data):
            break
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if length < 2:
            raise ImageError("the JPEG is corrupt (bad segment length); take or upload the photo again")
        end = i + 2 + length
        if end > len(data):
            break
        if marker == _SOS:
            scan_end = _SCAN_END.search(data, end)
            end = len(data) if scan_end is None else scan_end.start()
        yield marker, i, end
        i = end
    if i < len(data):
        raise ImageError("the JPEG is truncated within a segment; take or upload the photo again")


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


def without_personal_metadata(data: bytes) -> bytes:
    """The same JPEG or PNG without the metadata that can say who took it, where, when and with what (EXIF
    with its GPS position, time and camera serial; XMP; IPTC; comments; PNG text; thumbnails), so that a
    kept or served photo gives away only its picture.

    Lossless: the compressed image is copied byte for byte, with what decides how it looks (a JPEG's
    tables, JFIF, ICC profile and Adobe colour coding; a PNG's critical, colour and transparency chunks),
    so it decodes to the same pixels; the EXIF orientation is kept in an EXIF block of that tag alone (a
    JPEG's APP1, a PNG's eXIf), so that viewers turn it as before. Anything after the image's end is
    dropped (phones put more pictures, videos and metadata there). Refuses what is not a whole JPEG or PNG
    rather than half clean it.
    """
    return _png_without_metadata(data) if _is_png(data) else _jpeg_without_metadata(data)


def _jpeg_without_metadata(data: bytes) -> bytes:
    turn = _jpeg_header(data).turn
    kept = [data[:2]]
    exif_at = 1  # right after SOI, or after the JFIF APP0 that must come first
    scanned = False
    for marker, start, end in _jpeg_segments(data):
        body = data[start + 4 : end]
        if marker == _APP0:
            if body.startswith(_JFIF) and len(body) >= _JFIF_LENGTH:
                # JFIF decides how colour is coded; its thumbnail may show what the photo no longer does.
                kept.append(b"\xff\xe0" + struct.pack(">H", _JFIF_LENGTH + 2) + body[:12] + b"\0\0")
                if len(kept) == 2:
                    exif_at = 2
        elif 0xE0 <= marker <= 0xEF or marker == _COM:
            if marker in _JPEG_KEPT_APPS and body.startswith(_JPEG_KEPT_APPS[marker]):
                kept.append(data[start:end])
        elif marker in _JPEG_IMAGE_MARKERS:
            kept.append(data[start:end])
            scanned = scanned or marker == _SOS
        else:
            raise ImageError(
                f"the JPEG is corrupt (unknown marker 0x{marker:02X}); take or upload the photo again"
            )
    if not scanned:
        raise ImageError("the JPEG is truncated before its image data; take or upload the photo again")
    if turn != 1:
        kept.insert(exif_at, _exif_segment(turn))
    return b"".join(kept)


def _orientation_tiff(turn: int) -> bytes:
    """EXIF holding the Orientation tag alone: a TIFF header, then one directory of one entry (Orientation, a
    SHORT) and no next directory."""
    return b"MM" + struct.pack(">HI", 42, 8) + struct.pack(">HHHIH2xI", 1, _ORIENTATION_TAG, 3, 1, turn, 0)


def _exif_segment(turn: int) -> bytes:
    """A JPEG's APP1 segment of :func:`_orientation_tiff`."""
    body = _EXIF + _orientation_tiff(turn)
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def _exif_chunk(turn: int) -> bytes:
    """A PNG's eXIf chunk of :func:`_orientation_tiff`."""
    tiff = _orientation_tiff(turn)
    return struct.pack(">I", len(tiff)) + b"eXIf" + tiff + struct.pack(">I", zlib.crc32(b"eXIf" + tiff))


def _png_without_metadata(data: bytes) -> bytes:
    turn = _png_header(data).turn
    kept = [data[:8]]
    i = 8
    while i + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[i : i + 8])
        end = i + 12 + length
        if end > len(data):
            break
        if not kind.isalpha():
            raise ImageError("the PNG is corrupt (bad chunk type); export or upload it again")
        # A critical chunk (upper-case first letter) is needed to decode the image; an ancillary one is kept
        # only where it decides how the image looks.
        if not kind[0] & 0x20 or kind in _PNG_KEPT:
            kept.append(data[i:end])
        if kind == b"IHDR" and turn != 1:
            kept.append(_exif_chunk(turn))  # so that viewers turn it as before
        if kind == b"IEND":
            return b"".join(kept)
        i = end
    raise ImageError("the PNG is truncated (it has no end); export or upload it again")


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


def check_image(
    data: bytes,
    max_pixels: int = MAX_PIXELS,
    long_side: int | None = None,
    max_bytes: int = MAX_DECODED_BYTES,
) -> tuple[int, int]:
    """``(width, height)`` of the photo as viewed, once its header shows that :func:`decode_image` may decode
    it with the same ``long_side`` and ``max_bytes``: a JPEG or PNG, not empty, within the limits. Refuses a
    bad photo before any work is spent on it."""
    return _viewed(_checked(data, max_pixels, long_side, max_bytes))


def _checked(data: bytes, max_pixels: int, long_side: int | None, max_bytes: int) -> _Header:
    if not data:
        raise ImageError("the file is empty; send a photo")
    if len(data) > MAX_BYTES:
        raise ImageError(
            f"the file is {len(data)} bytes, over the {MAX_BYTES}-byte limit; send a smaller photo"
        )
    header = _header(data)
    width, height = header.size
    if width < 1 or height < 1:
        raise ImageError(f"the image claims a size of {width}x{height}; it is corrupt")
    if width * height > max_pixels:
        raise ImageError(
            f"the image is {width}x{height} = {width * height} pixels, over the {max_pixels}-pixel limit; "
            "send a smaller photo"
        )
    if header.scans > MAX_SCANS:
        raise ImageError(
            f"the JPEG is coded in {header.scans} scans, over the {MAX_SCANS} a photo needs; save it again "
            "as a JPEG from a photo app"
        )
    needed = _held(header, _reduction(width, height, long_side))
    if needed > max_bytes:
        kind = "a progressive JPEG" if header.coefficients else "the image"
        instead = "a plain (baseline) JPEG" if header.coefficients else "a JPEG"
        raise ImageError(
            f"{kind} of {width}x{height}: decoding it takes {needed} bytes, over the {max_bytes}-byte limit; "
            f"send a smaller photo, or save it as {instead}"
        )
    return header


def _held(header: _Header, scale: int) -> int:
    """The bytes the decoder holds at once: a JPEG is scaled while it is decoded, a PNG decoded whole (and
    held twice) before it is scaled; each pixel as the file stores it or as 8-bit BGR, whichever is more;
    and a progressive JPEG's coefficients."""
    width, height = header.size
    if header.copies == 1:
        width, height = -(-width // scale), -(-height // scale)
    return width * height * max(header.pixel_bytes, BGR_BYTES) * header.copies + header.coefficients


def _reduction(width: int, height: int, long_side: int | None) -> int:
    """The largest of 1, 2, 4 and 8 that leaves the image's long side at least ``long_side``."""
    if long_side is None:
        return 1
    fits = [s for s in _REDUCED if max(width, height) // s >= long_side and min(width, height) >= s]
    return max(fits, default=1)


def decode_image(
    data: bytes,
    max_pixels: int = MAX_PIXELS,
    long_side: int | None = None,
    max_bytes: int = MAX_DECODED_BYTES,
    most_side: int | None = None,
) -> NDArray[np.uint8]:
    """An 8-bit BGR image from JPEG or PNG bytes as viewers show it (EXIF orientation applied), refusing
    huge, empty and corrupt files before decoding them (``max_bytes``: what the decoder may hold).

    16-bit PNGs are reduced to 8-bit BGR, as every later stage expects, and transparent ones shown over
    white, as a viewer's page shows them. With
    ``long_side``, a photo of twice, four or eight times that on its long side is decoded halved, quartered
    or eighthed; with ``most_side``, one still longer than that is then shrunk to it (the image is then that
    much smaller than :func:`viewed_size` says).
    """
    header = _checked(data, max_pixels, long_side, max_bytes)
    width, height = header.size
    scale = _reduction(width, height, long_side)
    with _DECODING:
        # As stored (the orientation ignored), so that the header's size checks the pixels.
        flags = cv2.IMREAD_UNCHANGED if header.transparent else _REDUCED[scale]
        image = cv2.imdecode(np.frombuffer(data, np.uint8), flags | cv2.IMREAD_IGNORE_ORIENTATION)
        if image is None:
            raise ImageError("the image could not be decoded (corrupt or truncated); take or upload it again")
        if header.transparent:
            image = _over_page(image, scale)
        # Scaled, a side is rounded up (JPEG) or down (PNG).
        if abs(image.shape[0] * scale - height) >= scale or abs(image.shape[1] * scale - width) >= scale:
            raise ImageError("the decoded image does not match its header; the file is corrupt")
        h, w = image.shape[:2]
        if most_side is not None and max(h, w) > most_side:
            shrink = most_side / max(h, w)
            size = (max(1, round(w * shrink)), max(1, round(h * shrink)))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        # Turned under the lock too: a quarter turn copies the whole image.
        return np.ascontiguousarray(_as_viewed(image, header.turn), dtype=np.uint8)


def _over_page(image: NDArray[Any], scale: int) -> NDArray[np.uint8]:
    """A PNG decoded as stored (any depth, any channels, alpha kept) as 8-bit BGR shown over a white page,
    then scaled down by ``scale`` as the decoder would have."""
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        out = np.empty((*image.shape[:2], 3), np.uint8)
        for top in range(0, image.shape[0], _ROWS):
            rows = image[top : top + _ROWS]
            alpha = rows[:, :, 3:].astype(np.uint16)
            shown = rows[:, :, :3] * alpha + _PAGE * (255 - alpha)
            out[top : top + _ROWS] = (shown + 127) // 255
        image = out
    if scale > 1:
        h, w = image.shape[:2]
        image = cv2.resize(image, (w // scale, h // scale), interpolation=cv2.INTER_AREA)
    return np.asarray(image, np.uint8)


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


def sample_points(image: NDArray[np.uint8], pts: Points) -> NDArray[np.float32]:
    """Bilinear samples of a (multi-channel) image at points, as (N, channels)."""
    # remap's maps must stay under 32767 pixels a side: many points go in as rows of a 2-D map.
    n = len(pts)
    width = min(n, 4096)
    padded = np.zeros((-(-n // width) * width, 2), np.float32)
    padded[:n] = pts
    xs = padded[:, 0].reshape(-1, width)
    ys = padded[:, 1].reshape(-1, width)
    out = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.float32).reshape(len(padded), -1)[:n]
