"""Fuzzing the photo path, the upload endpoint and every stored-file loader with seeded, reproducible cases.

Each case is made from its own random generator, seeded by ``(seed, target, index)``, so any case can be
rebuilt alone (:func:`make_case`) and a run of N cases is the same run on every machine.

Targets and what a case does:

* ``image``: :func:`vision.image_io.decode_image` (every tenth case :func:`read_image` of a file) on JPEG and
  PNG files made by OpenCV or by hand (grey, alpha, 16-bit, palette, 1x1, headers declaring 60000x60000,
  a PNG of a few kilobytes that inflates to more than 64 megapixels), then truncated, bit-flipped, spliced
  and header-patched, and on things that are not images at all.
* ``upload``: ``POST /api/score?game=...`` of the real web app through FastAPI's TestClient: those photos,
  with wrong content types, bodies that are not multipart, missing or unknown games, bad profile names,
  ``hand`` fields that are not JSON objects, nested ten thousand deep or hold 5000-digit numbers. A scorer
  that reads nothing answers behind the real decoding; one case in fifty goes through the real pipeline
  (locating and classifying) instead.
* ``state``: a game state file through :func:`device.statefile.load_state_json`,
  :func:`scoring.registry.read_state` and the rules' ``score``, seeded from every example state.
* ``profile``, ``colour``: :func:`calibration.profiles.load_bundle` of a profile folder whose
  ``profile.json`` (each shipped profile as seed) or ``colour.json`` is mutated.
* ``enrolment``: :func:`calibration.enroll.load`, and every other case ``load_bundle`` of a folder holding it.
* ``camera``: :func:`calibration.camera.load`; ``table``: :func:`calibration.seats.load`;
  ``web-setup``: :meth:`device.web.gamesetup.SetupStore.open`.
* ``history``: :meth:`device.history.History.open` on a damaged copy of a real history file (truncated,
  bit-flipped, pages zeroed, a newer schema, a foreign SQLite file, rows with broken JSON), then listing,
  fetching, exporting and recording a game.

JSON files are mutated both as bytes (truncation, bit flips, inserted and deleted bytes, a BOM, invalid
UTF-8) and as trees (a field deleted, added, of the wrong type, huge, NaN or infinite, a 5000-digit
number, odd unicode, nested 100000 deep, a list of thousands, another field's value, an empty container).
A case applies one to three mutations; a few cases keep the seed file whole, so valid files are seen too.

Outcomes:

* ``ok``: the input was accepted and the result is valid (an image is 8-bit, 3-channel, of the size its
  header gives; an upload answered 200 with a game id; a loaded object has the types and shapes its users
  rely on, e.g. a finite 3x3 camera matrix and a positive image size).
* ``clear error``: the input was refused the way the project promises: an exception that is a
  :class:`ValueError` (ImageError, StateError, InvalidState, StoreError, NoBoardError and the plain
  ValueErrors some loaders raise all are) or a :class:`~device.history.HistoryError`, that was raised by
  the project's own code (the innermost traceback frame is a file of this project, not of json, numpy,
  OpenCV or sqlite3: so the message is one the project wrote, naming the file or field), with a non-empty
  message; or, for the web app, an HTTP 4xx whose JSON body has a non-empty ``detail``.
* failures: ``crash`` (any other exception: KeyError, TypeError, OverflowError, RecursionError,
  cv2.error, sqlite3.DatabaseError, a ValueError out of a library; or an HTTP 5xx), ``hang`` (the case
  took longer than its time limit; a SIGALRM watchdog interrupts Python code that runs on, a C call is
  only measured) and ``invalid`` (accepted, but the result breaks the rules above).

A report counts outcomes per target and lists the slowest case and every failing case, each minimised to
the single mutation that still fails the same way when one does.
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import random
import shutil
import signal
import sqlite3
import struct
import sys
import tempfile
import threading
import time
import traceback
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

import cv2
import numpy as np

from calibration import camera as camera_file
from calibration import enroll, seats
from calibration.profiles import load_bundle, save_colour, save_enrolment, save_profile
from calibration.statedir import StateDir
from device.history import HistoryError
from vision.image_io import MAX_PIXELS, decode_image, image_size, read_image

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("scoring", "vision", "calibration", "device", "models", "examples", "lab")

OK = "ok"
CLEAR = "clear error"
CRASH = "crash"
HANG = "hang"
INVALID = "invalid"
FAILURES = (CRASH, HANG, INVALID)

# A loader answers in milliseconds; even the real pipeline on a small photo answers in seconds on a Pi.
# The limits are far above both, so only a loop that does not end (or a pathological input) trips them.
CASE_LIMIT_S = 10.0
REAL_PIPELINE_LIMIT_S = 120.0
# One upload case in this many goes through the real reading pipeline instead of the fake scorer.
REAL_PIPELINE_EVERY = 50
MAX_LISTED_FAILURES = 50

TARGETS = (
    "image",
    "upload",
    "state",
    "profile",
    "colour",
    "enrolment",
    "camera",
    "table",
    "web-setup",
    "history",
)


# --- report ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzFailure:
    target: str
    index: int
    outcome: str
    description: str
    """What the case fed in, minimised to the one mutation that still fails when one does."""
    error: str


@dataclass
class FuzzReport:
    seed: int
    cases: int
    seconds: float
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per target, per outcome (ok, clear error, crash, hang, invalid), how many cases."""
    slowest_s: float = 0.0
    slowest: str = ""
    failures: list[FuzzFailure] = field(default_factory=list)
    """At most MAX_LISTED_FAILURES; ``failed`` counts them all."""
    failed: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --- cases ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """One change to a file's bytes; ``apply`` is deterministic, so a mutation can be replayed alone."""

    what: str
    apply: Callable[[bytes], bytes]


@dataclass(frozen=True)
class Upload:
    """One request to the upload endpoint."""

    body: str  # multipart, json, raw, none, two-files, many-fields, bad-boundary
    game: str | None
    profile: str | None
    photo: bytes
    file_type: str
    hand: str | None
    real: bool = False


@dataclass(frozen=True)
class Case:
    target: str
    index: int
    description: str
    seed_bytes: bytes = b""
    mutations: tuple[Mutation, ...] = ()
    upload: Upload | None = None
    variant: int = 0
    """A target's own switch: which loader path (enrolment), or read_image instead of decode (image)."""

    def data(self, mutations: Sequence[Mutation] | None = None) -> bytes:
        out = self.seed_bytes
        for mutation in self.mutations if mutations is None else mutations:
            out = mutation.apply(out)
        return out


# --- byte mutations -------------------------------------------------------------------------------------


def _truncate(rng: random.Random, size: int) -> Mutation:
    at = rng.randrange(0, max(size, 1))
    return Mutation(f"truncated to {at} bytes", lambda b: b[:at])


def _flip(rng: random.Random, size: int) -> Mutation:
    flips = [(rng.randrange(0, max(size, 1)), rng.randrange(8)) for _ in range(rng.randint(1, 8))]

    def apply(b: bytes) -> bytes:
        out = bytearray(b)
        for pos, bit in flips:
            if pos < len(out):
                out[pos] ^= 1 << bit
        return bytes(out)

    return Mutation(f"bits flipped at {', '.join(f'{p}:{bit}' for p, bit in flips)}", apply)


def _insert(rng: random.Random, size: int) -> Mutation:
    at = rng.randrange(0, size + 1)
    junk = rng.choice(
        [
            bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))),
            b"\x00" * rng.randint(1, 64),
            b"\xff" * rng.randint(1, 8),
            b'"}],{[',
            "🌷\u202e".encode(),
        ]
    )
    return Mutation(f"{len(junk)} bytes {junk[:8]!r} inserted at {at}", lambda b: b[:at] + junk + b[at:])


def _delete(rng: random.Random, size: int) -> Mutation:
    at = rng.randrange(0, max(size, 1))
    n = rng.randint(1, 64)
    return Mutation(f"{n} bytes deleted at {at}", lambda b: b[:at] + b[at + n :])


def _duplicate(rng: random.Random, size: int) -> Mutation:
    at = rng.randrange(0, max(size, 1))
    n = rng.randint(1, 256)
    return Mutation(f"{n} bytes at {at} repeated", lambda b: b[: at + n] + b[at:])


def _prefix(rng: random.Random, size: int) -> Mutation:
    junk = rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\x80\x81", b"\x00", b" \n\t"])
    return Mutation(f"{junk!r} prepended", lambda b: junk + b)


def _replace_all(rng: random.Random, size: int) -> Mutation:
    junk = rng.choice(
        [
            b"",
            b"\x00" * rng.randint(1, 4096),
            bytes(rng.randrange(256) for _ in range(rng.randint(1, 512))),
            b"null",
            b"[]",
            b"{}",
            b'""',
            b"NaN",
            b"1e999",
            b"\xff\xd8\xff\xe0",
            b"\x89PNG\r\n\x1a\n",
            b"SQLite format 3\x00",
        ]
    )
    return Mutation(f"whole file replaced by {len(junk)} bytes {junk[:16]!r}", lambda b: junk)


BYTE_MUTATIONS = (_truncate, _flip, _flip, _insert, _delete, _duplicate, _prefix, _replace_all)


def byte_mutation(rng: random.Random, size: int) -> Mutation:
    return rng.choice(BYTE_MUTATIONS)(rng, size)


# --- JSON tree mutations --------------------------------------------------------------------------------

JsonPath = tuple[str | int, ...]
# Stand-ins replaced in the encoded text: what json.dumps cannot write (deep nesting, 5000 digits).
_SENTINEL = "\u0000fuzz-sentinel\u0000"


def _paths(tree: Any, path: JsonPath = ()) -> Iterator[JsonPath]:
    yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _paths(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _paths(value, (*path, i))


def _get(tree: Any, path: JsonPath) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def _set(tree: Any, path: JsonPath, value: Any) -> Any:
    """``tree`` with the value at ``path`` replaced (``tree`` itself is changed, or replaced at the root)."""
    if not path:
        return value
    _get(tree, path[:-1])[path[-1]] = value
    return tree


def _delete_at(tree: Any, path: JsonPath) -> Any:
    if not path:
        return None
    parent = _get(tree, path[:-1])
    del parent[path[-1]]
    return tree


WRONG_VALUES: tuple[Any, ...] = (None, True, False, 0, -1, 1.5, "x", "", [], {}, [1, 2, 3], {"a": 1}, [[]])
HUGE_VALUES: tuple[Any, ...] = (
    2**31,
    2**63,
    10**30,
    10**400,
    -(10**400),
    1e308,
    -1e308,
    1e-320,
    float("nan"),
    float("inf"),
    float("-inf"),
)
UNICODE_VALUES = ("ünïcödé", "🌷🌷", "\u202eevil", "\x00", "\ud800", "a" * 10_000, "../../etc", "名前")


def _tree_edit(rng: random.Random, tree: Any) -> tuple[str, Callable[[Any], tuple[Any, str | None]]]:
    """A description and an edit of a decoded tree; the edit may return text to put for the sentinel."""
    paths = list(_paths(tree))
    path = rng.choice(paths)
    where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path) or "(root)"
    kind = rng.choice(
        [
            *("wrong", "wrong", "huge", "huge", "unicode", "delete", "delete", "extra", "nest", "digits"),
            *("long", "string", "empty", "swap", "negate"),
        ]
    )
    if kind == "wrong":
        value = rng.choice(WRONG_VALUES)
        return f"{where} -> {value!r}", lambda t: (_set(t, path, json.loads(json.dumps(value))), None)
    if kind == "huge":
        value = rng.choice(HUGE_VALUES)
        return f"{where} -> {value!r:.40}", lambda t: (_set(t, path, value), None)
    if kind == "unicode":
        text = rng.choice(UNICODE_VALUES)
        return f"{where} -> {text[:20]!r}", lambda t: (_set(t, path, text), None)
    if kind == "delete":
        return f"{where} deleted", lambda t: (_delete_at(t, path), None)
    if kind == "extra":
        key = rng.choice(["extra", "__proto__", "", "🌷", "version"])
        value = rng.choice(WRONG_VALUES)

        def add(t: Any) -> tuple[Any, str | None]:
            target = _get(t, path)
            if isinstance(target, dict):
                target[key] = value
            elif isinstance(target, list):
                target.append(value)
            return t, None

        return f"{where} gains {key!r}: {value!r}", add
    if kind == "nest":
        depth = rng.choice([64, 1000, 100_000])
        return f"{where} -> nested {depth} deep", lambda t: (
            _set(t, path, _SENTINEL),
            "[" * depth + "]" * depth,
        )
    if kind == "digits":
        digits = rng.choice([400, 4301, 5000])
        return f"{where} -> a {digits}-digit number", lambda t: (_set(t, path, _SENTINEL), "9" * digits)
    if kind == "long":
        n = rng.choice([100, 1000, 5000])
        return f"{where} -> a list of {n}", lambda t: (_set(t, path, [_get(t, path)] * n), None)
    if kind == "string":
        return f"{where} -> as a string", lambda t: (_set(t, path, json.dumps(_get(t, path))), None)
    if kind == "empty":
        value = rng.choice([[], {}, ""])
        return f"{where} -> {value!r}", lambda t: (_set(t, path, value), None)
    if kind == "swap":
        other = rng.choice(paths)
        other_where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in other) or "(root)"
        return f"{where} -> the value of {other_where}", lambda t: (
            _set(t, path, json.loads(json.dumps(_get(t, other)))),
            None,
        )

    def negate(t: Any) -> tuple[Any, str | None]:
        value = _get(t, path)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return _set(t, path, -value if value else -1), None
        return t, None

    return f"{where} negated", negate


def tree_mutation(rng: random.Random, data: bytes) -> Mutation | None:
    """A structural mutation of the JSON in ``data``; None when ``data`` is not JSON."""
    try:
        tree = json.loads(data)
    except (ValueError, RecursionError):
        return None
    what, edit = _tree_edit(rng, tree)
    ascii_only = rng.random() < 0.5

    def apply(b: bytes) -> bytes:
        try:
            current = json.loads(b)
            current, fill = edit(current)
        except (ValueError, RecursionError, LookupError, TypeError):
            return b  # replayed alone on another file: the path may not exist there
        text = json.dumps(current, allow_nan=True, ensure_ascii=ascii_only)
        if fill is not None:
            text = text.replace(json.dumps(_SENTINEL, ensure_ascii=ascii_only), fill)
        return text.encode("utf-8", "surrogatepass")

    return Mutation(what, apply)


def json_case(target: str, index: int, rng: random.Random, seeds: Sequence[tuple[str, bytes]]) -> Case:
    name, seed = rng.choice(seeds)
    if rng.random() < 0.05:
        return Case(target, index, f"{name} unchanged", seed)
    mutations: list[Mutation] = []
    data = seed
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutation = tree_mutation(rng, data) if rng.random() < 0.65 else None
        if mutation is None:
            mutation = byte_mutation(rng, len(data))
        mutations.append(mutation)
        data = mutation.apply(data)
    return Case(target, index, f"{name}: " + "; ".join(m.what for m in mutations), seed, tuple(mutations))


# --- images ---------------------------------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes, crc_ok: bool = True) -> bytes:
    crc = zlib.crc32(kind + body) ^ (0 if crc_ok else 1)
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def crafted_png(
    width: int,
    height: int,
    depth: int = 8,
    colour: int = 0,
    rows: Iterator[bytes] | None = None,
    palette: bytes = b"",
) -> bytes:
    """A PNG made by hand, so its header may say anything; ``rows`` are filtered scanlines (None: zeros)."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    packer = zlib.compressobj(9)
    if rows is None:
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour, 1)
        row = bytes(1 + (width * channels * depth + 7) // 8)
        # Compressed a row at a time: a bomb's 8 MB of scanlines never exist at once, only its few KB.
        idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    else:
        idat = b"".join(packer.compress(r) for r in rows) + packer.flush()
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
    if palette:
        out += _chunk(b"PLTE", palette)
    return out + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def crafted_jpeg_header(width: int, height: int) -> bytes:
    """The start of a baseline JPEG whose frame declares ``width`` x ``height``, and nothing decodable."""
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    app0 = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", len(app0) + 2)
        + app0
        + b"\xff\xc0"
        + struct.pack(">H", len(sof) + 2)
        + sof
        + b"\xff\xd9"
    )


def with_empty_scans(jpeg: bytes, scans: int) -> bytes:
    """A progressive JPEG with ``scans`` more scans before its end, each refining nothing (an end-of-band
    run over the whole luma plane) in a few bytes: every one is still a pass over all the blocks."""
    if not jpeg.endswith(b"\xff\xd9"):
        raise ValueError("not a whole JPEG")
    # An AC Huffman table (class 1, id 3) of one code, '0', for the longest end-of-band run (symbol 0xE0).
    table = bytes([0x13, 1, *([0] * 15), 0xE0])
    dht = b"\xff\xc4" + struct.pack(">H", 2 + len(table)) + table
    # A scan of the luma alone, AC bands 1-63, through that table; its data the code and 14 run bits, padded.
    sos = b"\xff\xda" + struct.pack(">H", 8) + bytes([1, 1, 0x03, 1, 63, 0])
    bits = "0" + "1" * 14
    bits += "1" * (-len(bits) % 8)
    data = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8)).replace(b"\xff", b"\xff\x00")
    return jpeg[:-2] + dht + (sos + data) * scans + b"\xff\xd9"


def _encoded(ext: str, image: np.ndarray[Any, Any], params: Sequence[int] = ()) -> bytes:
    ok, buf = cv2.imencode(ext, image, list(params))
    if not ok:
        raise RuntimeError(f"OpenCV could not encode a {ext} fuzz seed")
    return bytes(buf.tobytes())


def base_image(rng: random.Random) -> tuple[str, bytes]:
    """A photo file to start from: valid ones of every pixel layout, and hostile or foreign headers."""
    w, h = rng.choice([(1, 1), (2, 3), (17, 9), (64, 48), (96, 80)])
    pixels = np.random.default_rng(rng.randrange(2**32))
    colour = pixels.integers(0, 256, (h, w, 3), dtype=np.uint8)
    kind = rng.choice(
        [
            *("jpeg", "jpeg", "jpeg-grey", "jpeg-progressive", "png", "png", "png-grey", "png-rgba"),
            *("png-16", "png-16-rgba", "png-grey-alpha", "png-palette", "huge-png", "huge-jpeg", "bomb"),
            "not-image",
        ]
    )
    if kind == "jpeg":
        return f"{w}x{h} JPEG", _encoded(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(5, 100)])
    if kind == "jpeg-grey":
        return f"{w}x{h} grey JPEG", _encoded(".jpg", colour[..., 0])
    if kind == "jpeg-progressive":
        return f"{w}x{h} progressive JPEG", _encoded(".jpg", colour, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    if kind == "png":
        return f"{w}x{h} PNG", _encoded(".png", colour)
    if kind == "png-grey":
        return f"{w}x{h} grey PNG", _encoded(".png", colour[..., 0])
    if kind == "png-rgba":
        alpha = pixels.integers(0, 256, (h, w, 1), dtype=np.uint8)
        return f"{w}x{h} RGBA PNG", _encoded(".png", np.concatenate([colour, alpha], axis=2))
    if kind == "png-16":
        return f"{w}x{h} 16-bit PNG", _encoded(".png", colour.astype(np.uint16) * 257)
    if kind == "png-16-rgba":
        deep = pixels.integers(0, 65536, (h, w, 4), dtype=np.uint16)
        return f"{w}x{h} 16-bit RGBA PNG", _encoded(".png", deep)
    if kind == "png-grey-alpha":
        rows = (b"\x00" + bytes(pixels.integers(0, 256, 2 * w, dtype=np.uint8)) for _ in range(h))
        return f"{w}x{h} grey+alpha PNG", crafted_png(w, h, 8, 4, rows)
    if kind == "png-palette":
        rows = (b"\x00" + bytes(pixels.integers(0, 4, w, dtype=np.uint8)) for _ in range(h))
        return f"{w}x{h} palette PNG", crafted_png(w, h, 8, 3, rows, bytes(range(12)))
    if kind == "huge-png":
        w, h = rng.choice([(60000, 60000), (2**32 - 1, 1), (1, 2**31), (0, 100), (8001, 8000)])
        return f"PNG header declaring {w}x{h}", crafted_png(w, h, 8, 2, iter([b"\x00" * 7]))
    if kind == "huge-jpeg":
        w, h = rng.choice([(60000, 60000), (65535, 1000), (0, 10), (10, 0), (8001, 8000)])
        return f"JPEG header declaring {w}x{h}", crafted_jpeg_header(w, h)
    if kind == "bomb":
        w, h = rng.choice([(8200, 8200), (20000, 20000), (65000, 1100)])
        # 1-bit grey zeros: a few kilobytes of file for tens of megapixels of image.
        return f"decompression bomb PNG {w}x{h} (1-bit)", crafted_png(w, h, 1, 0)
    junk = rng.choice(
        [
            *(
                b"",
                b"\x00",
                b"shopping list: eggs",
                b"GIF89a\x01\x00\x01\x00",
                b"BM" + bytes(60),
                b"\xff\xd8",
            ),
            *(b"\x89PNG\r\n\x1a\n", b"RIFF\x00\x00\x00\x00WEBPVP8 ", b"%PDF-1.4", bytes(range(256))),
        ]
    )
    return f"not an image: {junk[:12]!r}", junk


def _patch_png_size(rng: random.Random) -> Mutation:
    w, h = rng.choice([(0, 1), (1, 0), (2**31, 2), (9000, 9000), (4096, 4096), (1, 60000), (100, 100)])
    fix_crc = rng.random() < 0.7

    def apply(b: bytes) -> bytes:
        if not b.startswith(b"\x89PNG\r\n\x1a\n") or len(b) < 33:
            return b
        ihdr = bytearray(b[12:29])
        ihdr[4:12] = struct.pack(">II", w, h)
        crc = struct.pack(">I", zlib.crc32(bytes(ihdr))) if fix_crc else b[29:33]
        return b[:12] + bytes(ihdr) + crc + b[33:]

    return Mutation(f"PNG header patched to {w}x{h} ({'with' if fix_crc else 'stale'} CRC)", apply)


def _patch_jpeg_size(rng: random.Random) -> Mutation:
    w, h = rng.choice([(0, 1), (1, 0), (65535, 65535), (2048, 1536), (1, 1), (200, 3)])

    def apply(b: bytes) -> bytes:
        for marker in (b"\xff\xc0", b"\xff\xc2"):
            at = b.find(marker, 2)
            if at > 0 and at + 9 <= len(b):
                return b[: at + 5] + struct.pack(">HH", h, w) + b[at + 9 :]
        return b

    return Mutation(f"JPEG frame patched to {w}x{h}", apply)


def image_case(target: str, index: int, rng: random.Random) -> Case:
    name, data = base_image(rng)
    mutations: list[Mutation] = []
    if rng.random() < 0.6:
        for _ in range(rng.choice([1, 1, 2, 3])):
            roll = rng.random()
            if roll < 0.15:
                mutation = _patch_png_size(rng)
            elif roll < 0.3:
                mutation = _patch_jpeg_size(rng)
            else:
                mutation = byte_mutation(rng, len(data))
            mutations.append(mutation)
    description = "; ".join([name, *(m.what for m in mutations)])
    return Case(target, index, description, data, tuple(mutations), variant=int(index % 10 == 0))


def upload_case(index: int, rng: random.Random) -> Case:
    photo_case = image_case("upload", index, rng)
    photo = photo_case.data()
    body = rng.choice(
        ["multipart"] * 12 + ["json", "raw", "none", "two-files", "many-fields", "bad-boundary"]
    )
    game = rng.choice(
        ["alices-garden"] * 6
        + ["sanssouci", "zen-garden", "custom-grid", "chess", "", None, "Ålice", "a" * 300]
    )
    profile = rng.choice([None] * 8 + ["kitchen", "../etc", "", "A", "a" * 100, "🌷"])
    file_type = rng.choice(
        ["image/jpeg"] * 4
        + ["image/png", "application/octet-stream", "text/plain", "", "image/gif"]
        + ["application/json", "image/jpeg; charset=utf-8", "IMAGE/PNG"]
    )
    hand = rng.choice(
        [None] * 6
        + ["{}", '{"unplaced_bonus_tiles": 1}', "", "   ", "[1, 2]", "not json", "null", "NaN"]
        + ['{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"a": ' + "9" * 5000 + "}", '{"a": 1e999}']
        + ['{"a": "\\ud800"}', '{"a": "\\u0000"}']
    )
    real = index % REAL_PIPELINE_EVERY == 0
    if real:
        # The real pipeline on a whole example photo, often damaged: the path a phone's upload takes.
        example = rng.choice(sorted((PROJECT_ROOT / "examples" / "photos").glob("*.jpg")))
        photo = example.read_bytes()
        muts = [byte_mutation(rng, len(photo)) for _ in range(rng.choice([0, 1, 1, 2]))]
        for m in muts:
            photo = m.apply(photo)
        name = "; ".join([example.name, *(m.what for m in muts)])
        body, game, profile, file_type, hand = "multipart", example.stem, None, "image/jpeg", None
    else:
        name = photo_case.description
    upload = Upload(body, game, profile, photo, file_type, hand, real)
    description = (
        f"{'real pipeline, ' if real else ''}{body} body, game={game!r}, profile={profile!r}, "
        f"file type {file_type!r}, hand={(hand or '')[:30]!r}, photo: {name}"
    )
    return Case("upload", index, description, upload=upload)


# --- seeds for the file targets -------------------------------------------------------------------------


@dataclass
class Context:
    """Everything a run shares: the work folder, seed files and the web apps (made on first use)."""

    root: Path
    seeds: dict[str, list[tuple[str, bytes]]]
    stack: ExitStack
    clients: dict[bool, Any] = field(default_factory=dict)
    setup_warnings: list[logging.LogRecord] = field(default_factory=list)

    @property
    def case_dir(self) -> Path:
        return self.root / "case"

    def fresh_case_dir(self) -> Path:
        shutil.rmtree(self.case_dir, ignore_errors=True)
        self.case_dir.mkdir(parents=True)
        return self.case_dir


def _seed_files(root: Path) -> dict[str, list[tuple[str, bytes]]]:
    """Valid files of every kind, written by the project's own savers."""
    from device.history import History
    from device.web.gamesetup import GameSetup, SetupStore
    from examples import example_states
    from vision.profile import parse_profile
    from vision.read.colour import BoardColour

    state = StateDir(root / "seeds")
    seeds: dict[str, list[tuple[str, bytes]]] = {}
    seeds["state"] = [(p.name, p.read_bytes()) for p in example_states()]
    profiles = []
    for path in sorted((PROJECT_ROOT / "vision" / "profiles").glob("*.json")):
        profile = parse_profile(json.loads(path.read_text(encoding="utf-8")))
        saved = save_profile(state, replace(profile, name=path.stem))
        profiles.append((f"profile {path.name}", saved.read_bytes()))
    seeds["profile"] = profiles
    save_colour(state, "alices-garden", BoardColour((120.0, 131.5, 140.25), 0.8))
    seeds["colour"] = [("colour.json", (state.profile("alices-garden") / "colour.json").read_bytes())]
    correction = enroll.HeadCorrection(np.linspace(-1, 1, 12).reshape(4, 3), np.array([0.1, -0.2, 0.3]))
    enrolment = enroll.Enrolment("alices-garden", {"tile": correction, "symbol": correction}, 48, 2, "fuzz")
    save_enrolment(state, "alices-garden", enrolment)
    seeds["enrolment"] = [
        ("enrolment.json", (state.profile("alices-garden") / "enrolment.json").read_bytes())
    ]
    matrix = np.array([[812.5, 0.0, 320.0], [0.0, 810.0, 240.0], [0.0, 0.0, 1.0]])
    calibration = camera_file.Calibration(
        matrix, np.array([0.1, -0.05, 0.001, 0.0, 0.01]), (640, 480), 0.31, "standard", {"a.jpg": 0.3}, {}
    )
    camera_file.save(calibration, state.camera)
    seeds["camera"] = [("camera.json", state.camera.read_bytes())]
    square = ((0.05, 0.05), (0.45, 0.05), (0.45, 0.5), (0.05, 0.5))
    other = ((0.55, 0.05), (0.95, 0.05), (0.95, 0.5), (0.55, 0.5))
    table = seats.TableSetup(
        "alices-garden", (seats.Seat("seat 1", "Ann", square), seats.Seat("seat 2", None, other))
    )
    seats.save(table, state.table)
    seeds["table"] = [("table.json", state.table.read_bytes())]
    store = SetupStore.open(state)
    store.save(GameSetup(game="alices-garden", players=["Ann", "Bo"], hand={"unplaced_bonus_tiles": 1}))
    seeds["web-setup"] = [("web-setup.json", store.path.read_bytes())]
    with History.open(state.history) as history:
        for n in range(4):
            boards = [
                {"game": "alices-garden", "total": 10 * n + s, "state": {"rows": ["RR"]}} for s in range(3)
            ]
            first = history.record("alices-garden", boards, "upload", ["Ann", "Bo", "Cy"])
        history.record("alices-garden", boards, "corrected", replaces=first)
    seeds["history"] = [
        ("history.sqlite", state.history.read_bytes()),
        *_damaged_histories(root, state.history),
    ]
    return seeds


def _damaged_histories(root: Path, good: Path) -> list[tuple[str, bytes]]:
    """History files damaged in ways bit flips rarely reach: wrong rows, a newer schema, a foreign file."""
    edits = {
        "history with a board's JSON broken": "UPDATE boards SET data = '{\"total\": ' WHERE seat = 1",
        "history with a board's JSON a list": "UPDATE boards SET data = '[1, 2]' WHERE seat = 0",
        "history with a time that is not a time": "UPDATE games SET played_at = 'yesterday' WHERE id = 2",
        "history with text as a total": "UPDATE boards SET total = 'many' WHERE seat = 2",
        "history from a newer build": "PRAGMA user_version = 99",
        "history without its boards table": "DROP TABLE boards",
        "history with a game's time NULL-ish": "UPDATE games SET played_at = '' WHERE id = 3",
    }
    out = []
    for i, (name, sql) in enumerate(edits.items()):
        path = root / f"damaged-{i}.sqlite"
        shutil.copyfile(good, path)
        conn = sqlite3.connect(path)
        conn.execute(sql)
        conn.commit()
        conn.close()
        out.append((name, path.read_bytes()))
    foreign = root / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.commit()
    conn.close()
    out.append(("a SQLite file of another program", foreign.read_bytes()))
    return out


def make_case(ctx: Context, target: str, seed: int, index: int) -> Case:
    """Case ``index`` of ``target`` in the run seeded ``seed``; the same arguments give the same case."""
    rng = random.Random(f"{seed}:{target}:{index}")
    if target == "image":
        return image_case(target, index, rng)
    if target == "upload":
        return upload_case(index, rng)
    if target == "history":
        return _history_case(index, rng, ctx.seeds["history"])
    case = json_case(target, index, rng, ctx.seeds[target])
    return Case(case.target, index, case.description, case.seed_bytes, case.mutations, variant=index % 2)


def _history_case(index: int, rng: random.Random, seeds: Sequence[tuple[str, bytes]]) -> Case:
    name, seed = seeds[0] if rng.random() < 0.7 else rng.choice(seeds)
    size = len(seed)
    mutations: list[Mutation] = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3]) if name == "history.sqlite" else rng.choice([0, 0, 1])):
        roll = rng.random()
        if roll < 0.2:
            # SQLite's header (100 bytes) and page boundaries are where damage matters most.
            at = rng.randrange(0, 100)
            bit = rng.randrange(8)
            mutations.append(Mutation(f"header bit {at}:{bit} flipped", _flip_at(at, bit)))
        elif roll < 0.35:
            page = rng.randrange(max(size // 4096, 1))
            mutations.append(Mutation(f"page {page} zeroed", _zero_page(page)))
        elif roll < 0.5:
            at = 4096 * rng.randrange(max(size // 4096, 1))
            mutations.append(Mutation(f"truncated to {at} bytes (a page boundary)", _cut(at)))
        else:
            mutations.append(byte_mutation(rng, size))
    description = "; ".join([name, *(m.what for m in mutations)])
    return Case("history", index, description, seed, tuple(mutations))


def _cut(at: int) -> Callable[[bytes], bytes]:
    return lambda b: b[:at]


def _flip_at(at: int, bit: int) -> Callable[[bytes], bytes]:
    def apply(b: bytes) -> bytes:
        if at >= len(b):
            return b
        return b[:at] + bytes([b[at] ^ (1 << bit)]) + b[at + 1 :]

    return apply


def _zero_page(page: int) -> Callable[[bytes], bytes]:
    return lambda b: (
        b[: page * 4096] + bytes(len(b[page * 4096 : (page + 1) * 4096])) + b[(page + 1) * 4096 :]
    )


# --- running a case -------------------------------------------------------------------------------------


def _run_image(ctx: Context, case: Case, data: bytes) -> Any:
    if case.variant:
        path = ctx.fresh_case_dir() / "photo.jpg"
        path.write_bytes(data)
        return ("image", data, read_image(str(path)))
    return ("image", data, decode_image(data))


def _check_image(result: Any) -> str | None:
    _, data, image = result
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        return f"decoded to {type(image).__name__} {getattr(image, 'shape', '')}, not 8-bit BGR"
    w, h = image_size(data)
    if image.shape[:2] != (h, w) or w * h > MAX_PIXELS:
        return f"decoded {image.shape[1]}x{image.shape[0]}, the header says {w}x{h}"
    return None


def _fake_score(
    image: Any,
    game: str,
    hand: Mapping[str, Any],
    profile: str | None,
    also: Sequence[Any] = (),
    /,
    *,
    corners: Any = None,
) -> list[Any]:
    return []  # accepted, no board: what is under test is everything around the scorer


def _real_score(
    image: Any,
    game: str,
    hand: Mapping[str, Any],
    profile: str | None,
    also: Sequence[Any] = (),
    /,
    *,
    corners: Any = None,
) -> list[Any]:
    from device.photo import score_image

    return score_image(image, game, hand, corners_xy=corners, also=also)


def _client(ctx: Context, real: bool) -> Any:
    if real not in ctx.clients:
        from fastapi.testclient import TestClient

        from device.web import AppConfig, create_app
        from lab.pairing import KIOSK_TOKEN, pair

        state = StateDir(ctx.root / ("web-real" if real else "web-fake"))
        app = create_app(AppConfig(state, _real_score if real else _fake_score, kiosk_token=KIOSK_TOKEN))
        url = "http://127.0.0.1"
        client = ctx.stack.enter_context(TestClient(app, base_url=url, client=("127.0.0.1", 50000)))
        # The owner's phone: the fuzzed requests reach the owner's routes too.
        pair(client, TestClient(app, base_url=url, client=("127.0.0.1", 50000)))
        ctx.clients[real] = client
    return ctx.clients[real]


def _run_upload(ctx: Context, case: Case, data: bytes) -> Any:
    up = case.upload
    assert up is not None
    client = _client(ctx, up.real)
    params = {k: v for k, v in (("game", up.game), ("profile", up.profile)) if v is not None}
    form = {"hand": up.hand} if up.hand is not None else {}
    files: Any = {"file": ("photo.jpg", up.photo, up.file_type)}
    if up.body == "json":
        return client.post("/api/score", params=params, json={"file": up.photo.hex()[:64]})
    if up.body == "raw":
        return client.post(
            "/api/score", params=params, content=up.photo, headers={"content-type": up.file_type}
        )
    if up.body == "none":
        return client.post("/api/score", params=params)
    if up.body == "two-files":
        files = [("file", ("a.jpg", up.photo, up.file_type)), ("file", ("b.jpg", up.photo, up.file_type))]
    if up.body == "many-fields":
        form = {**form, **{f"extra{i}": "x" for i in range(8)}}
    if up.body == "bad-boundary":
        headers = {"content-type": "multipart/form-data; boundary=nothing-here"}
        return client.post("/api/score", params=params, content=up.photo, headers=headers)
    return client.post("/api/score", params=params, files=files, data=form)


def _check_upload(response: Any) -> str | None:
    body = response.json()
    if not isinstance(body, dict) or not isinstance(body.get("game_id"), int):
        return f"200 without a game id: {str(body)[:80]}"
    return None


def _state_file(ctx: Context, name: str, data: bytes) -> Path:
    path = ctx.fresh_case_dir() / name
    path.write_bytes(data)
    return path


def _run_state(ctx: Context, case: Case, data: bytes) -> Any:
    from device.statefile import load_state_json
    from scoring.registry import read_state

    rules, state = read_state(load_state_json(_state_file(ctx, "state.json", data)))
    return rules.score(state)


def _check_state(result: Any) -> str | None:
    from scoring.core import ScoreBreakdown, TableScore

    boards = result.players if isinstance(result, TableScore) else (result,)
    for board in boards:
        if not isinstance(board, ScoreBreakdown) or not isinstance(board.total, int):
            return f"scored to {type(board).__name__}, not a breakdown with a whole-number total"
    return None


def _bundle_dir(ctx: Context, files: Mapping[str, bytes]) -> StateDir:
    state = StateDir(ctx.fresh_case_dir() / "state")
    folder = state.profile("p")
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return state


def _alice_profile(ctx: Context) -> bytes:
    return next(data for name, data in ctx.seeds["profile"] if name.endswith("alices-garden.json"))


def _run_profile(ctx: Context, case: Case, data: bytes) -> Any:
    return load_bundle(_bundle_dir(ctx, {"profile.json": data}), "p")


def _run_colour(ctx: Context, case: Case, data: bytes) -> Any:
    return load_bundle(_bundle_dir(ctx, {"profile.json": _alice_profile(ctx), "colour.json": data}), "p")


def _run_enrolment(ctx: Context, case: Case, data: bytes) -> Any:
    if case.variant:
        files = {"profile.json": _alice_profile(ctx), "enrolment.json": data}
        return load_bundle(_bundle_dir(ctx, files), "p").enrolment
    return enroll.load(_state_file(ctx, "enrolment.json", data))


def _check_bundle(result: Any) -> str | None:
    from calibration.profiles import ProfileBundle

    if not isinstance(result, ProfileBundle):
        return f"loaded as {type(result).__name__}"
    sizes = [result.profile.size_mm, *(v for r in result.profile.regions for v in (r.origin_mm, r.cell_mm))]
    if not all(math.isfinite(v) for pair in sizes for v in pair):
        return "a profile size or position is not finite"
    if result.colour is not None and not all(math.isfinite(v) for v in result.colour.median_bgr):
        return "a colour is not finite"
    return None


def _check_enrolment(result: Any) -> str | None:
    if not isinstance(result, enroll.Enrolment):
        return f"loaded as {type(result).__name__}"
    for name, c in result.corrections.items():
        if c.weights.ndim != 2 or c.bias.shape != (c.weights.shape[1],):
            return f"head {name}: weights {c.weights.shape} and bias {c.bias.shape} do not fit together"
        if not (np.isfinite(c.weights).all() and np.isfinite(c.bias).all()):
            return f"head {name}: weights or bias not finite"
    if result.cells < 0 or result.photos < 0:
        return f"negative counts: {result.cells} cells, {result.photos} photos"
    return None


def _run_camera(ctx: Context, case: Case, data: bytes) -> Any:
    return camera_file.load(_state_file(ctx, "camera.json", data))


def _check_camera(result: Any) -> str | None:
    if not isinstance(result, camera_file.Calibration):
        return f"loaded as {type(result).__name__}"
    k, (w, h) = result.matrix, result.size_wh
    if not (np.isfinite(k).all() and np.isfinite(result.dist).all()):
        return "matrix or distortion not finite"
    if k[0, 0] <= 0 or k[1, 1] <= 0:
        return f"focal lengths {k[0, 0]}, {k[1, 1]} not positive"
    if w < 1 or h < 1 or w * h > MAX_PIXELS:
        return f"image size {w}x{h} is not a camera's"
    if not math.isfinite(result.rms) or result.rms < 0:
        return f"rms {result.rms} is not an error"
    return None


def _run_table(ctx: Context, case: Case, data: bytes) -> Any:
    return seats.load(_state_file(ctx, "table.json", data))


def _check_table(result: Any) -> str | None:
    if not isinstance(result, seats.TableSetup):
        return f"loaded as {type(result).__name__}"
    return None


def _run_web_setup(ctx: Context, case: Case, data: bytes) -> Any:
    from device.web.gamesetup import SETUP_FILE, SetupStore

    state = StateDir(ctx.fresh_case_dir())
    (state.root / SETUP_FILE).write_bytes(data)
    ctx.setup_warnings.clear()
    store = SetupStore.open(state)
    if ctx.setup_warnings:
        # The set-up store's documented refusal: a warning naming the file, and an empty set-up.
        raise _Refused(ctx.setup_warnings[0].getMessage())
    return store


def _check_web_setup(result: Any) -> str | None:
    from device.web.gamesetup import GameSetup

    return None if isinstance(result.current, GameSetup) else f"set-up is {type(result.current).__name__}"


def _run_history(ctx: Context, case: Case, data: bytes) -> Any:
    from device.history import History

    path = ctx.fresh_case_dir() / "history.sqlite"
    path.write_bytes(data)
    with History.open(path) as history:
        games = history.list(limit=10_000)
        for game in games:
            history.get(game.id)
        history.export_json(io.StringIO())
        history.export_csv(io.StringIO())
        new_id = history.record("alices-garden", [{"total": 1}, {"total": None}], "fuzz", ["A", "B"])
        return games, history.get(new_id)


def _check_history(result: Any) -> str | None:
    games, new = result
    if len(new.boards) != 2:
        return f"a game recorded with 2 boards reads back with {len(new.boards)}"
    for game in games:
        if not isinstance(game.id, int) or not all(isinstance(b.data, Mapping) for b in game.boards):
            return f"game {game.id} reads back with a board that is not an object"
    return None


def _no_check(result: Any) -> str | None:
    return None


@dataclass(frozen=True)
class Target:
    run: Callable[[Context, Case, bytes], Any]
    check: Callable[[Any], str | None]


TARGET_RUNNERS: Mapping[str, Target] = {
    "image": Target(_run_image, _check_image),
    "upload": Target(_run_upload, _no_check),
    "state": Target(_run_state, _check_state),
    "profile": Target(_run_profile, _check_bundle),
    "colour": Target(_run_colour, _check_bundle),
    "enrolment": Target(_run_enrolment, _check_enrolment),
    "camera": Target(_run_camera, _check_camera),
    "table": Target(_run_table, _check_table),
    "web-setup": Target(_run_web_setup, _check_web_setup),
    "history": Target(_run_history, _check_history),
}


class _Refused(ValueError):
    """A loader's refusal that is not an exception of its own (the set-up store's logged warning)."""


class _Timeout(BaseException):
    """Raised by the watchdog; a BaseException, so no loader's ``except Exception`` can swallow it."""


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    # Signals reach only the main thread; elsewhere a case is still timed, just not interrupted.
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def fire(signum: int, frame: FrameType | None) -> None:
        raise _Timeout(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _raised_by_project(tb: TracebackType | None) -> bool:
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return False
    try:
        relative = Path(last.tb_frame.f_code.co_filename).resolve().relative_to(PROJECT_ROOT)
    except ValueError:
        return False
    return relative.parts[0] in PROJECT_PACKAGES


def classify_error(exc: BaseException) -> str:
    """``clear error`` or ``crash`` for an exception a case raised (see the module doc)."""
    clear = isinstance(exc, ValueError | HistoryError) and _raised_by_project(exc.__traceback__)
    return CLEAR if clear and str(exc).strip() else CRASH


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:200]}"


def _classify_response(response: Any) -> tuple[str, str]:
    status = response.status_code
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    if 200 <= status < 300:
        return OK, ""
    if 400 <= status < 500 and detail:
        return CLEAR, f"HTTP {status}: {str(detail)[:200]}"
    return CRASH, f"HTTP {status}: {response.text[:200]}"


def run_case(ctx: Context, case: Case, mutations: Sequence[Mutation] | None = None) -> tuple[str, str, float]:
    """The case's outcome, what went wrong (or the refusal's message) and its time in seconds."""
    target = TARGET_RUNNERS[case.target]
    limit = REAL_PIPELINE_LIMIT_S if case.upload is not None and case.upload.real else CASE_LIMIT_S
    start = time.perf_counter()
    try:
        with _watchdog(limit):
            result = target.run(ctx, case, case.data(mutations))
    except _Timeout:
        ctx.clients.clear()  # a request cut off may leave its app mid-call: later cases get a new one
        return HANG, f"interrupted after {limit} s", time.perf_counter() - start
    except RecursionError as exc:
        return CRASH, _short(exc), time.perf_counter() - start
    except Exception as exc:
        return classify_error(exc), _short(exc) + _where(exc), time.perf_counter() - start
    elapsed = time.perf_counter() - start
    if elapsed > limit:
        return HANG, f"took {elapsed:.1f} s, over the {limit} s limit", elapsed
    if case.target == "upload":
        outcome, detail = _classify_response(result)
        if outcome == OK and (why := _check_upload(result)):
            return INVALID, why, elapsed
        return outcome, detail, elapsed
    why = target.check(result)
    return (INVALID, why, elapsed) if why else (OK, "", elapsed)


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or classify_error(exc) == CLEAR:
        return ""
    last = frames[-1]
    return f" (at {Path(last.filename).name}:{last.lineno})"


def _minimise(ctx: Context, case: Case, outcome: str, error: str) -> str:
    """The case's description cut to one mutation that fails the same way, when one does."""
    if len(case.mutations) < 2:
        return case.description
    kind = error.split(":", maxsplit=1)[0]
    for mutation in case.mutations:
        again, again_error, _ = run_case(ctx, case, [mutation])
        if again == outcome and again_error.split(":", maxsplit=1)[0] == kind:
            seed_name = case.description.split(":")[0].split(";")[0]
            return f"{seed_name}: {mutation.what} (minimised from {len(case.mutations)} mutations)"
    return case.description


@contextmanager
def _quiet() -> Iterator[list[logging.LogRecord]]:
    """OpenCV's and the web app's warnings off for the run; the set-up store's warnings collected."""
    captured: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            captured.append(record)

    loggers = [logging.getLogger(n) for n in ("device.web.gamesetup", "device.web.score", "device.web")]
    saved = [(lg, lg.propagate) for lg in loggers]
    handler = Collect()
    loggers[0].addHandler(handler)
    for lg in loggers:
        lg.propagate = False
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    # libpng, libjpeg and python-multipart complain on stderr about every corrupt input, thousands of
    # lines a run; what went wrong with a case is in the report.
    sys.stderr.flush()
    saved_fd = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield captured
    finally:
        sys.stderr.flush()
        os.dup2(saved_fd, 2)
        os.close(saved_fd)
        os.close(devnull)
        cv2.utils.logging.setLogLevel(level)
        loggers[0].removeHandler(handler)
        for lg, propagate in saved:
            lg.propagate = propagate


def fuzz(cases: int, seed: int, targets: Sequence[str] = TARGETS, workdir: Path | None = None) -> FuzzReport:
    """Run ``cases`` cases, spread evenly over ``targets`` in turn, and report them."""
    unknown = sorted(set(targets) - set(TARGET_RUNNERS))
    if unknown:
        raise ValueError(f"unknown fuzz target(s) {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    start = time.perf_counter()
    report = FuzzReport(seed, cases, 0.0, {t: {} for t in targets})
    with ExitStack() as stack, _quiet() as warnings:
        root = (
            Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="garden-fuzz-")))
            if workdir is None
            else workdir
        )
        ctx = Context(root, _seed_files(root), stack, setup_warnings=warnings)
        for i in range(cases):
            target = targets[i % len(targets)]
            case = make_case(ctx, target, seed, i // len(targets))
            outcome, error, elapsed = run_case(ctx, case)
            counts = report.counts[target]
            counts[outcome] = counts.get(outcome, 0) + 1
            if elapsed > report.slowest_s:
                report.slowest_s, report.slowest = elapsed, f"{target} #{case.index}: {case.description}"
            if outcome in FAILURES:
                report.failed += 1
                if len(report.failures) < MAX_LISTED_FAILURES:
                    description = _minimise(ctx, case, outcome, error)
                    report.failures.append(FuzzFailure(target, case.index, outcome, description, error))
    report.seconds = round(time.perf_counter() - start, 2)
    report.slowest_s = round(report.slowest_s, 4)
    return report


def run_fuzz(cases: int, seed: int) -> dict[str, Any]:
    """:func:`fuzz` over every target, as JSON-ready figures for ``garden-scorer-lab bench --reliability``."""
    return fuzz(cases, seed).to_json()
