"""Kingdomino in the synthetic world: kingdoms grown domino by domino round a castle, drawn as terrain squares
with crowns, the flat castle tile and, on most, the 3D castle piece standing on it.

Real Kingdomino art is painted scenery; here each terrain is a colour with a texture of its own (furrows,
trees, waves, tufts, reeds, rocks) in the pack's printing, so a model learns terrains by colour and texture
and crowns as small yellow icons near a square's edge, wherever they lie.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from lab.synth.art import ArtPack, Colour, Image, disc, paper, polygon, regular_polygon, stroke
from lab.synth.scene import BoardDrawing, Piece, SyntheticBoard, make_board, piece_top
from scoring import kingdomino as rules
from scoring.core import StateError
from vision.geometry import BoardFrame, cell_rect_mm
from vision.image_io import read_image
from vision.profile import BoardProfile

GAME = rules.GAME

GROUND: Mapping[str, Colour] = {
    "field": (60, 190, 225),
    "forest": (45, 95, 40),
    "lake": (190, 120, 40),
    "grassland": (80, 190, 120),
    "swamp": (80, 120, 125),
    "mine": (70, 70, 75),
}
DETAIL: Mapping[str, Colour] = {
    "field": (30, 140, 190),
    "forest": (25, 60, 20),
    "lake": (230, 190, 120),
    "grassland": (40, 140, 70),
    "swamp": (40, 80, 70),
    "mine": (150, 150, 160),
}
CROWN: Colour = (30, 200, 245)
CASTLE_STONE: Colour = (185, 185, 190)
TABLE: Colour = (60, 95, 130)
# How often a square of each terrain shows 1, 2 or 3 crowns (the rest show none): a mine seldom shows none.
CROWN_ODDS: Mapping[str, tuple[float, float, float]] = {
    "field": (0.2, 0.0, 0.0),
    "forest": (0.2, 0.0, 0.0),
    "lake": (0.25, 0.0, 0.0),
    "grassland": (0.15, 0.12, 0.0),
    "swamp": (0.15, 0.12, 0.0),
    "mine": (0.3, 0.25, 0.1),
}
CASTLE_PIECE_MM = (28.0, 30.0)  # diameter, height
CARD: Colour = (225, 235, 240)
# A laid kingdom (``KingdominoArtist.laid``): at most this many of its squares left empty, and this many loose
# dominoes beside it (the draw line, a discard), with one card printed with the tiles' art.
MOST_EMPTY = 8
LOOSE_DOMINOES = (2, 4)
GAP = 0.015  # tiles lie loosely, a hairline of table between them (a share of a square's side)
PLAYER_COLOURS: tuple[Colour, ...] = ((40, 40, 200), (190, 110, 40), (40, 200, 230), (60, 160, 60))


def _terrain(rng: np.random.Generator, near: list[str]) -> str:
    # Players join like terrains: a square takes a neighbour's terrain more often than not.
    if near and rng.random() < 0.55:
        return near[int(rng.integers(len(near)))]
    return rules.TERRAINS[int(rng.integers(len(rules.TERRAINS)))]


def _crowns(rng: np.random.Generator, terrain: str) -> int:
    odds = CROWN_ODDS[terrain]
    roll = rng.random()
    for n, p in enumerate(odds, start=1):
        if roll < p:
            return n
        roll -= p
    return 0


class KingdominoArtist:
    game = GAME

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """Dominoes laid touching the kingdom until it is full or they no longer fit, a few discarded."""
        size = rules.parse_setup(profile.setup).size
        cells: list[list[str | None]] = [[None] * size for _ in range(size)]
        castle = (int(rng.integers(size)), int(rng.integers(size)))
        cells[castle[0]][castle[1]] = rules.CASTLE
        discard = rng.uniform(0.0, 0.15)
        for _ in range(size * size * 4):
            free = [(r, c) for r in range(size) for c in range(size) if cells[r][c] is None]
            if not free:
                break
            r, c = free[int(rng.integers(len(free)))]
            touches = [
                (r + dr, c + dc)
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= r + dr < size and 0 <= c + dc < size and cells[r + dr][c + dc] is not None
            ]
            if not touches:
                continue
            partners = [
                (r + dr, c + dc)
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= r + dr < size and 0 <= c + dc < size and cells[r + dr][c + dc] is None
            ]
            if not partners or rng.random() < discard:
                cells[r][c] = rules.EMPTY
                continue
            pr, pc = partners[int(rng.integers(len(partners)))]
            for sr, sc in ((r, c), (pr, pc)):
                near = [
                    str(cells[nr][nc]).partition(":")[0]
                    for nr, nc in ((sr - 1, sc), (sr + 1, sc), (sr, sc - 1), (sr, sc + 1))
                    if 0 <= nr < size
                    and 0 <= nc < size
                    and cells[nr][nc] not in (None, rules.CASTLE, rules.EMPTY)
                ]
                terrain = _terrain(rng, near)
                cells[sr][sc] = f"{terrain}:{_crowns(rng, terrain)}"
        grid = [[cell if cell is not None else rules.EMPTY for cell in row] for row in cells]
        return rules.dump_board(
            rules.parse_board({"game": GAME, "cells": grid, "setup": dict(profile.setup)})
        )

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        kingdom = rules.parse_board(state)
        frame = BoardFrame(profile, px_per_mm)
        image = paper(frame.size_wh, pack.colour(TABLE), pack.grain, rng)
        region = profile.region("grid")
        pieces = []
        for r, c in region.cells():
            if r >= len(kingdom.cells) or c >= len(kingdom.cells[r]):
                continue
            box = tuple(v * px_per_mm for v in cell_rect_mm(region, r, c))
            cell = kingdom.cells[r][c]
            if cell == rules.EMPTY:
                continue
            if isinstance(cell, rules.Square):
                _square(image, box, cell, pack, rng)
            else:
                _castle_tile(image, box, pack)
                # Most players stand the 3D castle on its tile; some leave it in the box.
                if rng.random() < 0.7:
                    x0, y0, x1, y1 = (v / px_per_mm for v in box)
                    diameter, height = CASTLE_PIECE_MM
                    colour = PLAYER_COLOURS[int(rng.integers(len(PLAYER_COLOURS)))]
                    top = piece_top(round(diameter * px_per_mm), colour, pack.ink)
                    pieces.append(Piece((x0 + x1) / 2, (y0 + y1) / 2, diameter, height, top, colour))
        return BoardDrawing(image, px_per_mm, tuple(pieces))

    def laid(
        self,
        profile: BoardProfile,
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
        tiles: Path,
    ) -> tuple[SyntheticBoard, list[SyntheticBoard]]:
        """A kingdom of real tiles (squares cut from the labelled photos in ``tiles``, :func:`real_squares`)
        laid on the table, 0 to :data:`MOST_EMPTY` of its squares left empty anywhere (corners too; each side
        of its frame keeps a tile, so that the frame is the kingdom's); beside it a card printed with the
        same art and loose dominoes."""
        squares = real_squares(tiles)
        state = self.random_state(profile, rng)
        cells = [list(row) for row in state["cells"]]
        empty = sum(row.count(rules.EMPTY) for row in cells)
        want = int(rng.integers(MOST_EMPTY + 1))
        laid = [
            (r, c)
            for r, row in enumerate(cells)
            for c, cell in enumerate(row)
            if cell not in (rules.CASTLE, rules.EMPTY)
        ]
        for k in rng.permutation(len(laid)):
            if empty >= want:
                break
            r, c = laid[k]
            was, cells[r][c] = cells[r][c], rules.EMPTY
            if _frame_kept(cells):
                empty += 1
            else:
                cells[r][c] = was
        # Each square a real one of its label (or, where the photos show none, of its terrain): the truth
        # is what the square shows.
        faces: dict[tuple[int, int], Image] = {}
        for r, row in enumerate(cells):
            for c, cell in enumerate(row):
                if cell != rules.EMPTY:
                    cells[r][c], faces[r, c] = _real_square(squares, cell, rng)
        state = rules.dump_board(rules.parse_board({**state, "cells": cells}))
        board = make_board(self, profile, pack, rng, px_per_mm, state)
        image = board.drawing.image_bgr.copy()
        region = profile.region("grid")
        for (r, c), face in faces.items():
            _paste(image, tuple(v * px_per_mm for v in cell_rect_mm(region, r, c)), face)
        drawing = replace(board.drawing, image_bgr=image, cover=_cover(profile, cells, px_per_mm))
        dominoes = [
            _loose_domino(profile, squares, rng, px_per_mm)
            for _ in range(int(rng.integers(LOOSE_DOMINOES[0], LOOSE_DOMINOES[1] + 1)))
        ]
        return replace(board, drawing=drawing), [_card(profile, pack, squares, rng, px_per_mm), *dominoes]


@cache
def real_squares(folder: Path) -> Mapping[str, tuple[Image, ...]]:
    """Every square of the real kingdoms photographed from straight above in ``folder`` (``NN.jpg``, the
    kingdom filling it, with ``NN.json``, its cells' labels), by label; empty places left out."""
    out: dict[str, list[Image]] = {}
    for labels in sorted(folder.glob("*.json")):
        photo = labels.with_suffix(".jpg")
        if not photo.exists():
            continue  # the folder's manifest
        image = read_image(str(photo))
        cells = json.loads(labels.read_text())["cells"]
        side = image.shape[0] // len(cells)
        for r, row in enumerate(cells):
            for c, label in enumerate(row):
                if label != rules.EMPTY:
                    out.setdefault(label, []).append(
                        image[r * side : (r + 1) * side, c * side : (c + 1) * side]
                    )
    if not out:
        raise StateError(
            f"{folder}: no labelled photos of real kingdoms there, to lay kingdoms of their tiles"
        )
    return {label: tuple(faces) for label, faces in out.items()}


def _real_square(
    squares: Mapping[str, tuple[Image, ...]], label: str, rng: np.random.Generator
) -> tuple[str, Image]:
    """A real square of ``label`` (else of its terrain, else any), turned any quarter as tiles are laid;
    with the label it shows."""
    terrain = label.partition(":")[0]
    pool = [label] if label in squares else [k for k in squares if k.partition(":")[0] == terrain]
    chosen = str(rng.choice(pool or sorted(squares)))
    faces = squares[chosen]
    face = np.rot90(faces[int(rng.integers(len(faces)))], int(rng.integers(4)))
    return chosen, np.ascontiguousarray(face)


def _laid(box: tuple[float, ...]) -> tuple[int, int, int, int]:
    """The pixels a tile laid in the square ``box`` covers, a hairline in from its edges (left, top, right,
    bottom; right and bottom not included)."""
    x0, y0, x1, y1 = box
    gap = (x1 - x0) * GAP
    return round(x0 + gap), round(y0 + gap), round(x1 - gap), round(y1 - gap)


def _paste(image: Image, box: tuple[float, ...], face: Image) -> None:
    """``face`` laid over the square ``box`` (pixels)."""
    a, b, c, d = _laid(box)
    image[b:d, a:c] = cv2.resize(face, (c - a, d - b), interpolation=cv2.INTER_CUBIC)


def _frame_kept(cells: list[list[str]]) -> bool:
    """Each side of the frame holds a tile: the kingdom's outer squares still span it."""
    sides = (cells[0], cells[-1], [row[0] for row in cells], [row[-1] for row in cells])
    return all(any(cell != rules.EMPTY for cell in side) for side in sides)


def _cover(profile: BoardProfile, cells: list[list[str]], px_per_mm: float) -> Image:
    """Where the kingdom's tiles lie: every square but the empty ones, a hairline apart."""
    frame = BoardFrame(profile, px_per_mm)
    cover = np.zeros(frame.size_wh[::-1], np.uint8)
    region = profile.region("grid")
    for r, c in region.cells():
        if cells[r][c] == rules.EMPTY:
            continue
        left, top, right, bottom = _laid(tuple(v * px_per_mm for v in cell_rect_mm(region, r, c)))
        cover[top:bottom, left:right] = 255
    return cover


def _prop(
    profile: BoardProfile, name: str, size_mm: tuple[float, float], drawing: BoardDrawing
) -> SyntheticBoard:
    # Not a board: its profile gives the camera its size alone, and the truth never lists it.
    return SyntheticBoard(replace(profile, name=name, size_mm=size_mm), "", {}, {}, drawing)


def _any_square(squares: Mapping[str, tuple[Image, ...]], rng: np.random.Generator) -> Image:
    return _real_square(squares, str(rng.choice(sorted(squares))), rng)[1]


def _loose_domino(
    profile: BoardProfile,
    squares: Mapping[str, tuple[Image, ...]],
    rng: np.random.Generator,
    px_per_mm: float,
) -> SyntheticBoard:
    """A domino of two squares as large as the kingdom's, lying apart (the draw line, a discard)."""
    side = profile.region("grid").cell_mm[0]
    h = round(side * px_per_mm)
    image = np.concatenate(
        [cv2.resize(_any_square(squares, rng), (h, h), interpolation=cv2.INTER_CUBIC) for _ in range(2)],
        axis=1,
    )
    cover = np.zeros(image.shape[:2], np.uint8)
    gap = round(h * GAP)
    cv2.rectangle(cover, (gap, gap), (2 * h - gap - 1, h - gap - 1), 255, -1)
    return _prop(profile, "loose domino", (2 * side, side), BoardDrawing(image, px_per_mm, cover=cover))


def _card(
    profile: BoardProfile,
    pack: ArtPack,
    squares: Mapping[str, tuple[Image, ...]],
    rng: np.random.Generator,
    px_per_mm: float,
) -> SyntheticBoard:
    """A card printed with the tiles' art (a score reference, the rules' cover): rows of small squares on
    pale card."""
    cols, rows = int(rng.integers(2, 4)), int(rng.integers(2, 5))
    side = rng.uniform(0.4, 0.7) * profile.region("grid").cell_mm[0]
    margin = side * 0.3
    w_mm, h_mm = cols * side + 2 * margin, rows * side * 1.3 + 2 * margin
    image = paper((round(w_mm * px_per_mm), round(h_mm * px_per_mm)), pack.colour(CARD), pack.grain, rng)
    s = side * px_per_mm
    for r in range(rows):
        for c in range(cols):
            x0, y0 = (margin + c * side) * px_per_mm, (margin + r * side * 1.3) * px_per_mm
            _paste(image, (x0, y0, x0 + s, y0 + s), _any_square(squares, rng))
    return _prop(profile, "reference card", (w_mm, h_mm), BoardDrawing(image, px_per_mm))


def _square(
    image: Image, box: tuple[float, ...], square: rules.Square, pack: ArtPack, rng: np.random.Generator
) -> None:
    x0, y0, x1, y1 = box
    side = x1 - x0
    gap = side * GAP
    polygon(
        image,
        [(x0 + gap, y0 + gap), (x1 - gap, y0 + gap), (x1 - gap, y1 - gap), (x0 + gap, y1 - gap)],
        GROUND[square.terrain],
        pack,
        side,
        outline=False,
    )
    _texture(image, box, square.terrain, pack, rng)
    # Crowns sit side by side near one edge of the square, which edge varies from tile to tile.
    if square.crowns:
        edge = int(rng.integers(4))
        size = side * rng.uniform(0.14, 0.19)
        for k in range(square.crowns):
            along = (k - (square.crowns - 1) / 2) * size * 1.15
            inset = side * 0.17
            centre = [
                ((x0 + x1) / 2 + along, y0 + inset),
                (x1 - inset, (y0 + y1) / 2 + along),
                ((x0 + x1) / 2 - along, y1 - inset),
                (x0 + inset, (y0 + y1) / 2 - along),
            ][edge]
            _crown(image, (float(centre[0]), float(centre[1])), size, pack)


def _texture(
    image: Image, box: tuple[float, ...], terrain: str, pack: ArtPack, rng: np.random.Generator
) -> None:
    x0, y0, x1, _ = box
    side = x1 - x0
    ink = pack.colour(DETAIL[terrain])
    for _ in range(int(rng.integers(5, 10))):
        cx, cy = x0 + rng.uniform(0.1, 0.9) * side, y0 + rng.uniform(0.1, 0.9) * side
        s = side * rng.uniform(0.06, 0.12)
        if terrain == "field":
            stroke(image, [(cx - 2 * s, cy), (cx + 2 * s, cy - s * 0.3)], ink, side * 0.02)
        elif terrain == "forest":
            polygon(
                image, regular_polygon((cx, cy), s, 3, rotation_deg=-90), DETAIL[terrain], pack, side * 0.2
            )
        elif terrain == "lake":
            stroke(
                image,
                [(cx - s, cy), (cx - s / 2, cy - s / 3), (cx, cy), (cx + s / 2, cy - s / 3), (cx + s, cy)],
                ink,
                side * 0.015,
            )
        elif terrain == "grassland":
            for dx in (-s / 3, 0.0, s / 3):
                stroke(image, [(cx + dx, cy), (cx + dx * 1.5, cy - s)], ink, side * 0.012)
        elif terrain == "swamp":
            stroke(image, [(cx, cy), (cx, cy - 1.5 * s)], ink, side * 0.015)
            disc(image, (cx, cy - 1.5 * s), s * 0.25, DETAIL[terrain], pack, side * 0.1)
        else:
            polygon(
                image,
                regular_polygon((cx, cy), s, 5, rotation_deg=float(rng.uniform(0, 72))),
                DETAIL[terrain],
                pack,
                side * 0.2,
            )


def _crown(image: Image, centre: tuple[float, float], size: float, pack: ArtPack) -> None:
    """A crown icon: a band with three points, in gold with the pack's ink round it."""
    cx, cy = centre
    w, h = size / 2, size / 2
    outline = [
        (cx - w, cy + h * 0.6),
        (cx - w, cy - h * 0.5),
        (cx - w / 2, cy),
        (cx, cy - h * 0.8),
        (cx + w / 2, cy),
        (cx + w, cy - h * 0.5),
        (cx + w, cy + h * 0.6),
    ]
    polygon(image, outline, CROWN, pack, size)


def _castle_tile(image: Image, box: tuple[float, ...], pack: ArtPack) -> None:
    x0, y0, x1, y1 = box
    side = x1 - x0
    gap = side * GAP
    polygon(
        image,
        [(x0 + gap, y0 + gap), (x1 - gap, y0 + gap), (x1 - gap, y1 - gap), (x0 + gap, y1 - gap)],
        (215, 225, 230),
        pack,
        side,
        outline=False,
    )
    # A keep with two towers, drawn from above as the printed tile shows it.
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    polygon(
        image,
        [
            (cx - 0.3 * side, cy - 0.2 * side),
            (cx + 0.3 * side, cy - 0.2 * side),
            (cx + 0.3 * side, cy + 0.3 * side),
            (cx - 0.3 * side, cy + 0.3 * side),
        ],
        CASTLE_STONE,
        pack,
        side,
    )
    for dx in (-0.3, 0.3):
        disc(image, (cx + dx * side, cy - 0.2 * side), 0.12 * side, CASTLE_STONE, pack, side)


ARTISTS = (KingdominoArtist(),)
