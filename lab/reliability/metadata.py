"""Photos as phones write them, with what their metadata tells of who took them, where and when: for the
tests and the attack suite, which check that no stored or served photo still says it."""

from __future__ import annotations

import struct

# Strings no stripped photo may still hold.
SECRETS = [b"SN-CAMERA-5551234", b"MAKERNOTE-SECRET", b"Jane Owner", b"2024:05:01 12:34:56", b"xmpmeta"]
SECRETS += [b"GPSLatitude", b"IPTC-CAPTION", b"COMMENT-SECRET", b"Ultra-secret-phone"]


def segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def ifd(order: str, entries: list[tuple[int, int, int, bytes]], at: int) -> bytes:
    """A TIFF image directory at offset ``at`` of its TIFF block, its values of more than four bytes right
    after it. An entry is ``(tag, type, count, value in the block's byte order)``."""
    table = struct.pack(order + "H", len(entries))
    values = b""
    values_at = at + 2 + 12 * len(entries) + 4
    for tag, kind, count, value in entries:
        if len(value) <= 4:
            table += struct.pack(order + "HHI", tag, kind, count) + value.ljust(4, b"\0")
        else:
            table += struct.pack(order + "HHII", tag, kind, count, values_at + len(values))
            values += value + b"\0" * (len(value) % 2)
    return table + struct.pack(order + "I", 0) + values


def personal_exif(turn: int, order: str) -> bytes:
    """An APP1 EXIF segment as a phone writes one: camera, owner, time and orientation in the first directory,
    the camera's serial and a maker note in the EXIF directory, a GPS position in the GPS directory."""

    def text(tag: int, value: bytes) -> tuple[int, int, int, bytes]:
        return tag, 2, len(value) + 1, value + b"\0"

    def degrees(tag: int, d: int, m: int, s: int) -> tuple[int, int, int, bytes]:
        return tag, 5, 3, struct.pack(order + "6I", d, 1, m, 1, s, 100)

    exif = [
        text(0x9003, b"2024:05:01 12:34:56"),
        (0x927C, 7, 32, b"MAKERNOTE-SECRET".ljust(32, b"\xee")),
        text(0xA431, b"SN-CAMERA-5551234"),
    ]
    gps = [text(1, b"N"), degrees(2, 51, 28, 3842), text(3, b"W"), degrees(4, 0, 7, 4113)]

    def first(exif_at: int, gps_at: int) -> list[tuple[int, int, int, bytes]]:
        return [
            text(0x010F, b"Ultra-secret-phone"),
            (0x0112, 3, 1, struct.pack(order + "H", turn)),
            text(0x013B, b"Jane Owner"),
            (0x8769, 4, 1, struct.pack(order + "I", exif_at)),
            (0x8825, 4, 1, struct.pack(order + "I", gps_at)),
        ]

    exif_at = 8 + len(ifd(order, first(0, 0), 8))
    exif_ifd = ifd(order, exif, exif_at)
    gps_at = exif_at + len(exif_ifd)
    tiff = (b"II" if order == "<" else b"MM") + struct.pack(order + "HI", 42, 8)
    tiff += ifd(order, first(exif_at, gps_at), 8) + exif_ifd + ifd(order, gps, gps_at)
    return segment(0xE1, b"Exif\0\0" + tiff)


XMP = segment(0xE1, b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><exif:GPSLatitude>51,28N</exif:GPSLatitude>")
IPTC = segment(0xED, b"Photoshop 3.0\x008BIM\x04\x04\0\0\0\0\0\x10\x1c\x02\x78\0\x0cIPTC-CAPTION")
COMMENT = segment(0xFE, b"COMMENT-SECRET")


def with_personal_metadata(jpeg: bytes, turn: int = 1) -> bytes:
    """``jpeg`` (as OpenCV writes one: SOI, a JFIF APP0 of 18 bytes, then the image) as a phone would keep
    it: EXIF with its camera, owner, time, serial, maker note, orientation ``turn`` and GPS position, XMP,
    IPTC and a comment; :data:`SECRETS` are in it."""
    if jpeg[2:4] != b"\xff\xe0":
        raise ValueError("expected a JPEG that starts with a JFIF segment, as OpenCV writes one")
    body = jpeg[2 + 2 + struct.unpack(">H", jpeg[4:6])[0] :]
    return jpeg[:2] + personal_exif(turn, ">") + XMP + IPTC + COMMENT + body
