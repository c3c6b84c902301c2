from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.support import with_exif_orientation
from vision import image_io
from vision.image_io import (
    MAX_DECODED_BYTES,
    MAX_PIXELS,
    ImageError,
    check_image,
    decode_image,
    image_size,
    orientation,
    read_image,
)


def _encode(image: np.ndarray, ext: str) -> bytes:
    ok, buf = cv2.imencode(ext, image)
    assert ok
    return buf.tobytes()


def _png_header(width: int, height: int, depth: int = 8, colour: int = 2) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def test_jpeg_and_png_sizes_come_from_the_header() -> None:
    image = np.zeros((30, 50, 3), np.uint8)
    assert image_size(_encode(image, ".jpg")) == (50, 30)
    assert image_size(_encode(image, ".png")) == (50, 30)


def test_decodes_gray_alpha_and_16_bit_pngs_to_8_bit_bgr() -> None:
    gray = np.full((4, 5), 200, np.uint8)
    assert decode_image(_encode(gray, ".png")).shape == (4, 5, 3)
    bgra = np.zeros((4, 5, 4), np.uint8)
    bgra[..., 2] = 255
    out = decode_image(_encode(bgra, ".png"))
    assert out.shape == (4, 5, 3) and out[0, 0, 2] == 255
    deep = np.full((4, 5, 3), 65535, np.uint16)
    out = decode_image(_encode(deep, ".png"))
    assert out.dtype == np.uint8 and out[0, 0, 0] == 255
    deep_bgra = np.zeros((4, 5, 4), np.uint16)
    deep_bgra[..., 1] = 0x8000
    deep_bgra[..., 3] = 0x1234
    out = decode_image(_encode(deep_bgra, ".png"))
    assert out.shape == (4, 5, 3) and out.dtype == np.uint8
    assert out[0, 0].tolist() == [0, 128, 0]  # the high byte of each sample; alpha dropped


def _jpeg_header(width: int, height: int, components: int, precision: int = 8) -> bytes:
    """A JPEG's start and its frame header, with nothing decodable after."""
    sof = struct.pack(">BHHB", precision, height, width, components) + b"\x01\x11\x00" * components
    return b"\xff\xd8\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof + b"\xff\xd9"


@pytest.mark.parametrize(
    ("small", "large"),
    [
        # 16 megapixels pass the pixel limit. A PNG is held twice while decoded: 8-bit RGB takes 96 MB,
        # 16-bit RGBA 256 MB; 20 megapixels of 16-bit grey 122 MB, of 16-bit RGB 243 MB.
        (_png_header(4000, 4000), _png_header(4000, 4000, depth=16, colour=6)),
        (_png_header(4500, 4500, depth=16, colour=0), _png_header(4500, 4500, depth=16, colour=2)),
        # 56 megapixels of JPEG: colour takes 168 MB, CMYK 224 MB, 12-bit colour 336 MB.
        (_jpeg_header(8000, 7000, 3), _jpeg_header(8000, 7000, 4)),
        (_jpeg_header(8000, 7000, 1, precision=12), _jpeg_header(8000, 7000, 3, precision=12)),
    ],
)
def test_the_limit_counts_the_bytes_a_pixel_takes_not_only_the_pixels(small: bytes, large: bytes) -> None:
    width, height = image_size(large)
    assert width * height <= MAX_PIXELS
    with pytest.raises(ImageError, match=f"bytes, over the {MAX_DECODED_BYTES}-byte limit"):
        check_image(large)
    # The same pixels in fewer bytes pass the header's checks, and only then fail to decode (no pixels).
    assert check_image(small) == (width, height)
    with pytest.raises(ImageError, match="could not be decoded"):
        decode_image(small)


def test_a_png_header_of_no_valid_layout_is_refused() -> None:
    with pytest.raises(ImageError, match="bit depth 3, colour type 2"):
        check_image(_png_header(10, 10, depth=3))
    with pytest.raises(ImageError, match="bit depth 8, colour type 5"):
        check_image(_png_header(10, 10, colour=5))


def test_a_photo_larger_than_needed_is_decoded_reduced_and_still_turned_as_viewed() -> None:
    # Stored on its side, shown upright: 80x48 as viewed. A long side of 20 is enough: a quarter of it.
    data = with_exif_orientation(_encode(np.ascontiguousarray(np.rot90(UPRIGHT, 1)), ".jpg"), 6)
    assert check_image(data) == (80, 48)
    image = decode_image(data, long_side=20)
    assert image.shape == (12, 20, 3)
    assert image[1, 1].min() > 200 and image[-1, -1, 2] > 150 and image[-1, -1, 0] < 100
    assert decode_image(data, long_side=40).shape == (24, 40, 3)
    assert decode_image(data, long_side=41).shape == UPRIGHT.shape
    # A PNG too, though it is decoded whole first; never below one pixel on its short side.
    assert decode_image(_encode(UPRIGHT, ".png"), long_side=10).shape == (6, 10, 3)
    assert decode_image(_encode(np.zeros((3, 200, 3), np.uint8), ".png"), long_side=10).shape == (1, 100, 3)


def test_photos_are_decoded_one_at_a_time_in_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    held = []
    real = cv2.imdecode

    def imdecode(buf: np.ndarray, flags: int) -> Any:
        held.append(image_io._DECODING.locked())
        return real(buf, flags)

    monkeypatch.setattr(cv2, "imdecode", imdecode)
    decode_image(_encode(UPRIGHT, ".jpg"))
    assert held == [True]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"GIF89a" + b"\0" * 20, "not a JPEG or PNG"),
        (_png_header(100_000, 100_000), "over the"),
        (_png_header(0, 10), "claims a size of 0x10"),
        (b"\x89PNG\r\n\x1a\n\0\0", "truncated before its header"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "truncated"),
        (b"\xff\xd8\x00\x00\x00\x00", "corrupt"),
        (_png_header(10, 10) + b"garbage", "could not be decoded"),
    ],
)
def test_bad_input_is_refused_with_a_reason(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        decode_image(data)


def test_truncated_jpeg_after_header_is_refused_or_decoded_whole() -> None:
    data = _encode(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8), ".jpg")
    try:
        out = decode_image(data[: len(data) // 2])
    except ImageError as exc:
        assert "decoded" in str(exc)
    else:  # libjpeg pads a cut-off scan: the picture is whole-sized, never a crash
        assert out.shape == (64, 64, 3)


def test_pixel_limit_is_checked_before_decoding() -> None:
    data = _encode(np.zeros((100, 100, 3), np.uint8), ".png")
    with pytest.raises(ImageError, match="10000 pixels, over the 9999-pixel limit"):
        decode_image(data, max_pixels=9999)


def test_read_image_names_the_file(tmp_path: object) -> None:
    with pytest.raises(ImageError, match=r"nope\.jpg: cannot read"):
        read_image("/nonexistent/nope.jpg")


# A photo as a player sees it: a bright block in its top-left corner, wider than tall.
UPRIGHT = np.zeros((48, 80, 3), np.uint8)
UPRIGHT[:16, :24] = 255
UPRIGHT[-8:, -8:] = (0, 0, 255)


@pytest.mark.parametrize(
    ("turn", "stored"),
    [
        # What the sensor wrote, for a viewer that turns it by ``turn`` to show UPRIGHT.
        (1, UPRIGHT),
        (3, np.ascontiguousarray(UPRIGHT[::-1, ::-1])),
        (6, np.ascontiguousarray(np.rot90(UPRIGHT, 1))),  # a portrait phone held upright: turned clockwise
        (8, np.ascontiguousarray(np.rot90(UPRIGHT, -1))),
        (2, np.ascontiguousarray(UPRIGHT[:, ::-1])),
        (5, np.ascontiguousarray(UPRIGHT.transpose(1, 0, 2))),
        (7, np.ascontiguousarray(UPRIGHT[::-1, ::-1].transpose(1, 0, 2))),
        (4, np.ascontiguousarray(UPRIGHT[::-1])),
    ],
)
@pytest.mark.parametrize("order", ["<", ">"])
def test_a_jpeg_is_read_as_its_exif_orientation_shows_it(turn: int, stored: np.ndarray, order: str) -> None:
    data = with_exif_orientation(_encode(stored, ".jpg"), turn, order)
    image = decode_image(data)
    assert image.shape == UPRIGHT.shape
    # JPEG blurs edges a little; the blocks are where the viewer shows them.
    assert np.abs(image.astype(int) - UPRIGHT.astype(int)).mean() < 4
    assert image[4, 4].min() > 200 and image[-3, -3, 2] > 200 and image[-3, -3, 0] < 60


def test_a_damaged_orientation_tag_leaves_the_photo_as_stored() -> None:
    jpeg = _encode(UPRIGHT, ".jpg")

    def app1(body: bytes) -> bytes:
        return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + jpeg[2:]

    for data in (
        with_exif_orientation(jpeg, 9),  # out of range
        app1(b"Exif\0\0XX*\0\x08\0\0\0"),  # neither byte order
        app1(b"Exif\0\0II*\0\xff\0\0\0"),  # its directory beyond the block
        app1(b"Exif\0\0II*\0\x08\0\0\0\x05\0"),  # five entries promised, none there
    ):
        assert decode_image(data).shape == UPRIGHT.shape


def test_the_size_limit_holds_before_decoding_a_turned_photo(tmp_path: Path) -> None:
    stored = np.zeros((40, 30, 3), np.uint8)
    data = with_exif_orientation(_encode(stored, ".jpg"), 6)
    assert image_size(data) == (30, 40) and orientation(data) == 6
    with pytest.raises(ImageError, match="over the 1000-pixel limit"):
        decode_image(data, max_pixels=1000)
    path = tmp_path / "portrait.jpg"
    path.write_bytes(data)
    assert read_image(str(path)).shape == (30, 40, 3)
