from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from lab.reliability.fuzz import with_empty_scans
from lab.reliability.metadata import COMMENT, IPTC, SECRETS, XMP, personal_exif, segment
from tests.support import SHARED, with_exif_orientation
from vision import image_io
from vision.image_io import (
    MAX_DECODED_BYTES,
    MAX_PIXELS,
    MAX_SCANS,
    ImageError,
    check_image,
    decode_image,
    image_size,
    orientation,
    read_image,
    viewed_size,
    without_personal_metadata,
)


def _encode(image: np.ndarray, ext: str, params: list[int] | None = None) -> bytes:
    ok, buf = cv2.imencode(ext, image, params or [])
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


def test_decodes_gray_alpha_and_16_bit_pngs_to_8_bit_bgr_as_a_viewer_shows_them() -> None:
    gray = np.full((4, 5), 200, np.uint8)
    assert decode_image(_encode(gray, ".png")).shape == (4, 5, 3)
    bgra = np.zeros((4, 5, 4), np.uint8)
    bgra[..., 2] = 255
    bgra[..., 3] = 255
    out = decode_image(_encode(bgra, ".png"))
    assert out.shape == (4, 5, 3) and out[0, 0].tolist() == [0, 0, 255]
    deep = np.full((4, 5, 3), 65535, np.uint16)
    out = decode_image(_encode(deep, ".png"))
    assert out.dtype == np.uint8 and out[0, 0, 0] == 255
    deep_bgra = np.zeros((4, 5, 4), np.uint16)
    deep_bgra[..., 1] = 0x8000
    deep_bgra[..., 3] = 0xFFFF
    out = decode_image(_encode(deep_bgra, ".png"))
    assert out.shape == (4, 5, 3) and out.dtype == np.uint8
    assert out[0, 0].tolist() == [0, 128, 0]  # the high byte of each sample


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _grey_alpha_png(grey: int, alpha: int, width: int = 50, height: int = 40) -> bytes:
    """An 8-bit grey-and-alpha PNG (colour type 4) of one colour, which OpenCV does not write."""
    rows = (b"\0" + bytes([grey, alpha]) * width) * height
    return _png_header(width, height, colour=4) + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b"")


def test_a_transparent_png_is_read_over_white_as_a_viewer_shows_it() -> None:
    # Red under an alpha of nothing: blank in any viewer, and so it must be read (not as red tiles).
    hidden = np.zeros((40, 50, 4), np.uint8)
    hidden[..., 2] = 200
    assert decode_image(_encode(hidden, ".png")).tolist() == np.full((40, 50, 3), 255).tolist()
    # Half covered, 16-bit, grey with alpha: each shown halfway to white.
    half = hidden.copy()
    half[..., 3] = 128
    assert decode_image(_encode(half, ".png"))[0, 0].tolist() == [127, 127, 227]
    deep = np.zeros((40, 50, 4), np.uint16)
    deep[..., 3] = 0x8000
    assert decode_image(_encode(deep, ".png"))[0, 0].tolist() == [127, 127, 127]
    assert decode_image(_grey_alpha_png(0, 64))[0, 0].tolist() == [191, 191, 191]
    # Scaled as an opaque one is, and held to the same limits.
    assert decode_image(_encode(half, ".png"), long_side=20).shape == (20, 25, 3)


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


# Stripping personal metadata. A photo of noise, so that any change to how it decodes shows.
NOISE = _encode(np.random.default_rng(1).integers(0, 256, (40, 56, 3), dtype=np.uint8), ".jpg")
SOI, JFIF, JPEG_BODY = NOISE[:2], NOISE[2:20], NOISE[20:]  # OpenCV writes SOI, a JFIF APP0, then the image
PROGRESSIVE = _encode(UPRIGHT, ".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1, cv2.IMWRITE_JPEG_RST_INTERVAL, 1])


def _only_orientation(turn: int) -> bytes:
    """What is written where the photo was turned: EXIF, a TIFF header and one directory holding Orientation
    alone, and no next directory."""
    tiff = b"MM\0\x2a\0\0\0\x08"  # big-endian, the directory at 8
    # One entry: Orientation, a SHORT, one of them, its value.
    tiff += b"\0\x01" + b"\x01\x12\0\x03\0\0\0\x01\0" + bytes([turn]) + b"\0\0"
    tiff += b"\0\0\0\0"  # no next directory
    return b"\xff\xe1\x00\x22Exif\0\0" + tiff


def _same_pixels(before: bytes, after: bytes) -> None:
    """Decoded the same, as this module reads it and as OpenCV shows it (its EXIF orientation applied)."""
    assert np.array_equal(decode_image(before), decode_image(after))
    shown = [cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) for data in (before, after)]
    assert shown[0] is not None and shown[1] is not None
    assert np.array_equal(shown[0], shown[1])


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("jfif", [JFIF, b""], ids=["after-jfif", "phone-no-jfif"])
def test_personal_metadata_is_removed_and_the_orientation_kept(order: str, jfif: bytes) -> None:
    data = SOI + jfif + personal_exif(6, order) + XMP + IPTC + COMMENT + JPEG_BODY
    assert orientation(data) == 6 and all(secret in data for secret in SECRETS)
    stripped = without_personal_metadata(data)
    # The image copied byte for byte; only the orientation is written back, in a block of its own.
    assert stripped == SOI + jfif + _only_orientation(6) + JPEG_BODY
    assert not [secret for secret in SECRETS if secret in stripped]
    assert orientation(stripped) == 6 and viewed_size(stripped) == viewed_size(data) == (40, 56)
    _same_pixels(data, stripped)
    assert without_personal_metadata(stripped) == stripped


@pytest.mark.parametrize(
    "data",
    [
        NOISE,
        _encode(np.full((9, 7), 90, np.uint8), ".jpg"),
        PROGRESSIVE,
    ],
    ids=["colour", "grey", "progressive-with-restarts"],
)
def test_a_photo_without_metadata_is_copied_unchanged(data: bytes) -> None:
    assert without_personal_metadata(data) == data


@pytest.mark.parametrize("turn", [1, 9])  # 9: a damaged tag, which viewers ignore too
def test_an_upright_photo_keeps_no_exif_at_all(turn: int) -> None:
    data = SOI + JFIF + personal_exif(turn, "<") + JPEG_BODY
    stripped = without_personal_metadata(data)
    assert stripped == NOISE and orientation(stripped) == 1
    _same_pixels(data, stripped)


# Adobe's APP14, transform 0: the three components are RGB, not YCbCr (a decoder assumes YCbCr without it).
ADOBE_RGB = segment(0xEE, b"Adobe" + struct.pack(">HHHB", 100, 0, 0, 0))
ICC = segment(0xE2, b"ICC_PROFILE\0\x01\x01" + b"\0" * 128)


@pytest.mark.parametrize(
    ("added", "kept"),
    [
        ([ADOBE_RGB], [ADOBE_RGB]),
        ([JFIF, ICC, ADOBE_RGB, COMMENT], [JFIF, ICC, ADOBE_RGB]),
        # A multi-picture index (the pictures after the image's end), other APP14s: dropped.
        ([segment(0xE2, b"MPF\0II*\0"), ICC, segment(0xEE, b"Ducky\0\x01")], [ICC]),
        # A JFIF thumbnail may show what the photo no longer does; JFXX holds only a thumbnail.
        ([b"\xff\xe0\x00\x16" + JFIF[4:16] + b"\x01\x02Thumb!"], [JFIF]),  # 1x2 RGB
        ([JFIF, segment(0xE0, b"JFXX\0\x13" + b"Thumb!")], [JFIF]),
    ],
    ids=["adobe", "jfif-icc-adobe", "mpf-and-other-app14", "jfif-thumbnail", "jfxx"],
)
def test_the_segments_that_decide_how_a_jpeg_looks_are_kept(added: list[bytes], kept: list[bytes]) -> None:
    data = SOI + b"".join(added) + JPEG_BODY
    stripped = without_personal_metadata(data)
    assert stripped == SOI + b"".join(kept) + JPEG_BODY
    assert b"Thumb!" not in stripped
    _same_pixels(data, stripped)


def test_the_adobe_segment_changes_the_colours_so_it_must_be_kept() -> None:
    rgb = decode_image(SOI + ADOBE_RGB + JPEG_BODY)
    assert np.abs(rgb.astype(int) - decode_image(SOI + JPEG_BODY)).mean() > 10
    assert np.array_equal(decode_image(without_personal_metadata(SOI + ADOBE_RGB + JPEG_BODY)), rgb)


def test_metadata_between_scans_and_after_the_end_is_removed() -> None:
    second_scan = PROGRESSIVE.index(b"\xff\xda", PROGRESSIVE.index(b"\xff\xda") + 2)
    # A comment between two scans; after the end, a phone's trailer and a second picture with its own EXIF.
    trailer = b"SEFH Ultra-secret-phone" + SOI + personal_exif(1, ">") + JPEG_BODY
    data = PROGRESSIVE[:second_scan] + COMMENT + PROGRESSIVE[second_scan:] + trailer
    stripped = without_personal_metadata(data)
    assert stripped == PROGRESSIVE
    _same_pixels(data, stripped)


def test_a_jpeg_cut_within_its_image_keeps_what_is_there() -> None:
    cut = len(JPEG_BODY) // 2
    data = SOI + personal_exif(3, "<") + JPEG_BODY[:cut]
    assert without_personal_metadata(data) == SOI + _only_orientation(3) + JPEG_BODY[:cut]


PNG = _encode(np.random.default_rng(2).integers(0, 256, (20, 30, 3), dtype=np.uint8), ".png")
PNG_IHDR_END = 8 + 25  # the signature and the IHDR chunk
PNG_LOOKS = _chunk(b"gAMA", struct.pack(">I", 45455)) + _chunk(b"pHYs", struct.pack(">IIB", 3780, 3780, 1))
PNG_PERSONAL = [
    _chunk(b"tEXt", b"Author\0Jane Owner"),
    _chunk(b"zTXt", b"Comment\0\0" + zlib.compress(b"COMMENT-SECRET")),
    _chunk(b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta>GPSLatitude</x:xmpmeta>"),
    _chunk(b"eXIf", personal_exif(6, ">")[10:]),
    _chunk(b"tIME", struct.pack(">HBBBBB", 2024, 5, 1, 12, 34, 56)),
    _chunk(b"prVt", b"Ultra-secret-phone"),  # a private chunk: who knows what it says
]


def test_png_text_exif_and_time_are_removed_and_the_orientation_kept() -> None:
    head, rest = PNG[:PNG_IHDR_END], PNG[PNG_IHDR_END:]
    data = head + PNG_PERSONAL[0] + PNG_LOOKS + b"".join(PNG_PERSONAL[1:]) + rest + b"after the end"
    assert orientation(data) == 6
    stripped = without_personal_metadata(data)
    # Only the orientation is written back, in an eXIf chunk of its own: viewers turn a PNG by it too.
    assert stripped == head + _chunk(b"eXIf", _only_orientation(6)[10:]) + PNG_LOOKS + rest
    assert b"Jane Owner" not in stripped and b"tIME" not in stripped and b"SN-CAMERA" not in stripped
    assert orientation(stripped) == 6
    assert np.array_equal(decode_image(stripped), decode_image(data))
    assert np.array_equal(decode_image(stripped), cv2.rotate(decode_image(PNG), cv2.ROTATE_90_CLOCKWISE))
    assert without_personal_metadata(PNG) == PNG
    assert without_personal_metadata(stripped) == stripped


@pytest.mark.parametrize(
    ("turn", "stored"),
    [
        (6, np.ascontiguousarray(np.rot90(UPRIGHT, 1))),
        (8, np.ascontiguousarray(np.rot90(UPRIGHT, -1))),
        (3, np.ascontiguousarray(UPRIGHT[::-1, ::-1])),
    ],
)
def test_a_png_is_read_as_its_exif_orientation_shows_it(turn: int, stored: np.ndarray) -> None:
    png = _encode(stored, ".png")
    data = png[:PNG_IHDR_END] + _chunk(b"eXIf", personal_exif(turn, "<")[10:]) + png[PNG_IHDR_END:]
    assert viewed_size(data) == (UPRIGHT.shape[1], UPRIGHT.shape[0])
    assert np.array_equal(decode_image(data), UPRIGHT)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a JPEG or PNG"),
        (b"GIF89a" + b"\0" * 20, "not a JPEG or PNG"),
        (b"\x89PNG\r\n\x1a\n\0\0", "PNG is truncated before its header"),
        (PNG[:-12], "PNG is truncated"),  # no IEND
        (PNG[:-6], "PNG is truncated"),  # IEND cut short
        (PNG[:PNG_IHDR_END] + b"\0\0\0\0\x01\x02\x03\x04" + PNG[PNG_IHDR_END:], "bad chunk type"),
        (SOI, "JPEG is truncated before its size"),
        (b"\xff\xd8\x00\x00\x00\x00", "bad marker"),
        (SOI + b"\xff\xe1\x00\x01" + JPEG_BODY, "bad segment length"),
        # A marker no decoder reads (libjpeg stops at it): what it holds is not known to be harmless.
        (SOI + segment(0xF0, b"Ultra-secret-phone") + JPEG_BODY, "unknown marker 0xF0"),
        (SOI + segment(0x72, b"Ultra-secret-phone") + JPEG_BODY, "unknown marker 0x72"),
        (SOI + personal_exif(6, "<")[:50], "JPEG is truncated within a segment"),
        (SOI + JFIF + b"\xff", "JPEG is truncated within a segment"),
        (NOISE[: NOISE.index(b"\xff\xda")], "JPEG is truncated before its image data"),  # no scan
        (_jpeg_header(10, 10, 3), "JPEG is truncated before its image data"),  # SOF then EOI
        (SOI + JFIF + b"\xff\xd9", "JPEG is truncated before its size"),
    ],
)
def test_what_cannot_be_walked_whole_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        without_personal_metadata(data)


@pytest.mark.parametrize(
    "data",
    [
        SOI + personal_exif(6, "<") + XMP + IPTC + COMMENT + JPEG_BODY,
        PNG[:PNG_IHDR_END] + b"".join(PNG_PERSONAL) + PNG[PNG_IHDR_END:],
    ],
    ids=["jpeg", "png"],
)
def test_a_cut_or_damaged_photo_is_refused_or_stripped_whole(data: bytes) -> None:
    for n in range(len(data)):
        try:
            stripped = without_personal_metadata(data[:n])
        except ImageError:
            continue
        assert not [secret for secret in SECRETS if secret in stripped]
    rng = np.random.default_rng(3)
    for _ in range(300):
        damaged = bytearray(data)
        for at in rng.integers(0, len(data), rng.integers(1, 4)):
            damaged[at] = int(rng.integers(0, 256))
        try:
            stripped = without_personal_metadata(bytes(damaged))
        except ImageError:
            continue
        # Damage may make a metadata block look like part of the image; it is then copied as such, and the
        # photo still decodes as before (or not at all).
        assert without_personal_metadata(stripped) == stripped
        try:
            before = decode_image(bytes(damaged))
        except ImageError:
            continue
        assert np.array_equal(decode_image(stripped), before)


TABLE_PHOTOS = sorted((SHARED / "data" / "kingdomino-table").glob("*.jpg"))


@pytest.mark.skipif(not TABLE_PHOTOS, reason="shared/data/kingdomino-table is not here")
@pytest.mark.parametrize("path", TABLE_PHOTOS, ids=lambda path: path.name)
def test_real_phone_photos_are_stripped_and_read_the_same(path: Path) -> None:
    data = path.read_bytes()
    stripped = without_personal_metadata(data)
    assert len(stripped) <= len(data) and stripped.endswith(b"\xff\xd9")
    assert orientation(stripped) == orientation(data) and viewed_size(stripped) == viewed_size(data)
    assert np.array_equal(decode_image(stripped), decode_image(data))


def test_a_progressive_jpeg_counts_the_coefficients_its_decoder_holds() -> None:
    # A progressive JPEG is decoded from scans that each refine every block: its coefficients are held at
    # full size, however much the output is reduced. Counted, a large one is refused before decoding.
    image = np.random.default_rng(3).integers(0, 255, (2000, 2000, 3), np.uint8)
    full = [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444]
    baseline = _encode(image, ".jpg", full)
    progressive = _encode(image, ".jpg", [*full, cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    budget = (
        20_000_000  # the pixels as BGR take 12 MB; the coefficients 3 x 250 x 250 blocks x 128 bytes more
    )
    assert check_image(baseline, max_bytes=budget) == (2000, 2000)
    with pytest.raises(ImageError, match="a progressive JPEG of 2000x2000: decoding it takes 36000000 bytes"):
        check_image(progressive, max_bytes=budget)
    assert decode_image(progressive, max_bytes=40_000_000).shape == (2000, 2000, 3)


def test_a_jpeg_of_too_many_scans_is_refused_before_decoding() -> None:
    image = np.random.default_rng(4).integers(0, 255, (64, 64, 3), np.uint8)
    progressive = _encode(image, ".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    assert decode_image(with_empty_scans(progressive, 10)).shape == (64, 64, 3)
    with pytest.raises(ImageError, match=f"coded in {MAX_SCANS + 11} scans"):
        check_image(with_empty_scans(progressive, MAX_SCANS + 11 - _scans(progressive)))


def _scans(jpeg: bytes) -> int:
    return jpeg.count(b"\xff\xda")
