"""Printable targets at exact millimetre scale: the ChArUco calibration board and the board corner stickers.

PNG files carry their resolution (pHYs) so a print dialog keeps the scale; PDF pages place the image at its
exact size in points. Print at 100 % ("actual size"), then check one square with a ruler.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import charuco_board
from vision.locate.stickers import MAX_BOARDS, STICKER_MM, marker_image

PAPERS_MM = {"A4": (210.0, 297.0), "A3": (297.0, 420.0), "letter": (215.9, 279.4)}
DPI = 300
MARGIN_MM = 10.0


def _px(mm: float) -> int:
    return round(mm * DPI / 25.4)


def charuco_sheet(paper: str, cols: int = 7, rows: int = 5) -> tuple[NDArray[np.uint8], str]:
    """The largest whole-millimetre ChArUco board of ``cols`` x ``rows`` squares that fits the paper."""
    w_mm, h_mm = PAPERS_MM[paper]
    # Landscape fits a wider board; the square size is whole millimetres so it can be typed in exactly.
    w_mm, h_mm = max(w_mm, h_mm), min(w_mm, h_mm)
    square = float(int(min((w_mm - 2 * MARGIN_MM) / cols, (h_mm - 2 * MARGIN_MM) / rows)))
    board = charuco_board(cols, rows, square)
    image = board.generateImage((_px(cols * square), _px(rows * square)))
    page = np.full((_px(h_mm), _px(w_mm)), 255, np.uint8)
    y, x = (page.shape[0] - image.shape[0]) // 2, (page.shape[1] - image.shape[1]) // 2
    page[y : y + image.shape[0], x : x + image.shape[1]] = image
    caption = (
        f"ChArUco {cols}x{rows} squares of {square:g} mm: "
        f"--pattern charuco --size {cols}x{rows} --square-mm {square:g}"
    )
    cv2.putText(
        page, caption, (_px(MARGIN_MM), _px(h_mm - 4)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 0, 2, cv2.LINE_AA
    )
    return page, caption


def sticker_sheet(paper: str, boards: int = 4) -> tuple[NDArray[np.uint8], str]:
    """Corner stickers for ``boards`` boards: each row is one board's TL, TR, BR, BL, cut along the lines."""
    if not 1 <= boards <= MAX_BOARDS:
        raise ValueError(f"stickers exist for 1 to {MAX_BOARDS} boards")
    w_mm, h_mm = PAPERS_MM[paper]
    page = np.full((_px(h_mm), _px(w_mm)), 255, np.uint8)
    step = STICKER_MM + 8
    for b in range(boards):
        for k, corner in enumerate(("TL", "TR", "BR", "BL")):
            x, y = _px(MARGIN_MM + k * step), _px(MARGIN_MM + 6 + b * (step + 4))
            side = _px(STICKER_MM)
            if y + side > page.shape[0]:
                raise ValueError(f"{boards} boards' stickers do not fit on {paper}")
            page[y : y + side, x : x + side] = marker_image(4 * b + k, side)
            cv2.rectangle(page, (x, y), (x + side, y + side), 180, 1)
            cv2.putText(page, f"board {b + 1} {corner}", (x, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 0, 2)
    caption = f"Corner stickers, {STICKER_MM:g} mm: each sticker's outer corner on the board's corner"
    cv2.putText(
        page, caption, (_px(MARGIN_MM), _px(h_mm - 4)), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2, cv2.LINE_AA
    )
    return page, caption


def _png_with_dpi(gray: NDArray[np.uint8]) -> bytes:
    ok, buf = cv2.imencode(".png", gray)
    if not ok:
        raise RuntimeError("PNG encoding failed")
    data = buf.tobytes()
    ppm = round(DPI / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    # pHYs must come before the image data: right after the 33-byte signature + IHDR.
    return data[:33] + chunk + data[33:]


def _pdf(gray: NDArray[np.uint8], paper: str) -> bytes:
    """A one-page PDF of the paper's size with the sheet printed at exactly DPI pixels per inch."""
    paper_w, paper_h = PAPERS_MM[paper]
    if gray.shape[1] > gray.shape[0]:
        paper_w, paper_h = paper_h, paper_w
    page_w, page_h = paper_w * 72 / 25.4, paper_h * 72 / 25.4
    w_pt, h_pt = gray.shape[1] * 72 / DPI, gray.shape[0] * 72 / DPI
    pixels = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    content = f"q {w_pt:.3f} 0 0 {h_pt:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.3f} {page_h:.3f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {gray.shape[1]} /Height {gray.shape[0]} "
        "/ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n".encode()
        + pixels
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


SHEETS = ("charuco", "stickers")


def sheet(kind: str, paper: str, pdf: bool = True) -> tuple[bytes, str]:
    """The ``kind`` sheet (charuco or stickers) for ``paper``, as a PDF (else a PNG), and its caption."""
    if paper not in PAPERS_MM:
        raise ValueError(f"unknown paper {paper!r}: {', '.join(PAPERS_MM)}")
    if kind == "charuco":
        page, caption = charuco_sheet(paper)
    elif kind == "stickers":
        page, caption = sticker_sheet(paper)
    else:
        raise ValueError(f"unknown sheet {kind!r}: {' or '.join(SHEETS)}")
    return (_pdf(page, paper) if pdf else _png_with_dpi(page)), caption


def write_sheet(kind: str, paper: str, out: Path) -> str:
    """Write the ``kind`` sheet (charuco or stickers), PNG or PDF by ``out``'s suffix; returns its caption."""
    suffix = out.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ValueError(f"{out}: write a .png or a .pdf")
    data, caption = sheet(kind, paper, pdf=suffix == ".pdf")
    out.write_bytes(data)
    return caption
