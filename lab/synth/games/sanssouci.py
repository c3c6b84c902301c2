"""Sanssouci in the synthetic world: a palace garden of coloured rows, tiles, gardeners and noblemen."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.synth.art import (
    ArtPack,
    Colour,
    Image,
    disc,
    ellipse_points,
    label_text,
    paper,
    polygon,
    regular_polygon,
    stroke,
)
from lab.synth.scene import BoardDrawing, Piece, piece_top
from scoring import sanssouci as rules
from scoring.grid import components4
from vision.geometry import BoardFrame, cell_center_mm, cell_rect_mm
from vision.profile import BoardProfile, Region
from vision.readers.sanssouci import player_colour

GAME = rules.GAME

ROW_COLOURS: tuple[Colour, ...] = (  # beige, white, grey, orange, fuchsia, turquoise (rows 1-6)
    (170, 212, 232),
    (242, 242, 240),
    (165, 165, 160),
    (50, 145, 240),
    (150, 50, 205),
    (185, 195, 50),
)
PLAYER_COLOURS: dict[str, Colour] = {
    "red": (40, 40, 200),
    "blue": (190, 110, 40),
    "yellow": (40, 210, 240),
    "green": (60, 160, 60),
}
NOBLE_DIAMETER_MM, NOBLE_HEIGHT_MM = 12.0, 22.0
MID_GAME = 0.25  # the share of boards drawn mid-game rather than finished
GARDENER_ARTWORKS = 3  # the real tile backs show several gardeners doing the same job
NUMERALS = ("II", "III", "IV")  # player-count mark on every tile back

HEDGE: Colour = (45, 100, 40)
LAWN: Colour = (80, 165, 95)
PATH: Colour = (160, 200, 220)
STONE: Colour = (175, 180, 185)
ROOF: Colour = (160, 95, 40)
POT: Colour = (60, 100, 190)
SAND: Colour = (110, 175, 215)
WATER: Colour = (225, 175, 70)
ROSE: Colour = (70, 40, 215)
LEAF: Colour = (70, 175, 95)
GRAPE: Colour = (125, 45, 115)
WOOD: Colour = (45, 85, 135)
TILE: Colour = (205, 232, 242)
TILE_BACK: Colour = (75, 120, 95)
SKIN: Colour = (150, 190, 235)
OVERALL: Colour = (150, 85, 45)
TERRACE: Colour = (195, 208, 215)
BOARD: Colour = (55, 95, 60)


def plate_colour(pack: ArtPack) -> Colour:
    """What printed numbers sit on: light under a dark ink, dark under a light one."""
    return TILE if sum(pack.ink) < 384 else (60, 65, 70)


def _shade(colour: Colour, k: float) -> Colour:
    return int(colour[0] * k), int(colour[1] * k), int(colour[2] * k)


def _corners(box: tuple[float, float, float, float], inset: float) -> list[tuple[float, float]]:
    """The corners of ``box`` (x0, y0, x1, y1) shrunk by ``inset`` on every side."""
    x0, y0, x1, y1 = box
    return [
        (x0 + inset, y0 + inset),
        (x1 - inset, y0 + inset),
        (x1 - inset, y1 - inset),
        (x0 + inset, y1 - inset),
    ]


def _box_px(region: Region, r: int, c: int, s: float) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = cell_rect_mm(region, r, c)
    return x0 * s, y0 * s, x1 * s, y1 * s


def _layout(profile: BoardProfile) -> rules.SanssouciLayout:
    return rules.parse_layout(dict(profile.setup), "profile.setup")


class SanssouciArtist:
    game = GAME

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """Tiles scattered over rows 2-6 (upper rows a little fuller), then each nobleman walked down."""
        layout = _layout(profile)
        rows, cols = rules.ROWS, rules.COLS
        grid = [[rules.PREPRINTED] * cols] + [[rules.EMPTY] * cols for _ in range(rows - 1)]
        printed = layout.preprinted
        if printed is None:
            # An unknown side: any square may be built, and the real sides have a few.
            count = int(rng.integers(0, 4))
            printed = frozenset((int(rng.integers(1, rows)), int(rng.integers(cols))) for _ in range(count))
        for r, c in printed:
            grid[r][c] = rules.PREPRINTED
        free = [(r, c) for r in range(1, rows) for c in range(cols) if grid[r][c] == rules.EMPTY]
        weights = np.array([1.0 - 0.08 * r for r, _ in free])
        # Some boards mid-game, as the live view reads them: fewer tiles, so more empty squares beside
        # noblemen (a nobleman leaning over an empty square must not make it look built).
        fill = rng.uniform(0.2, 0.55) if rng.random() < MID_GAME else rng.uniform(0.55, 1.0)
        gardeners = rng.uniform(0.0, 0.2)
        chosen = rng.choice(len(free), round(fill * len(free)), replace=False, p=weights / weights.sum())
        for i in chosen:
            r, c = free[i]
            grid[r][c] = rules.GARDENER if rng.random() < gardeners else rules.SYMBOL
        reach = {
            cell
            for area in components4(grid, lambda ch: ch in rules.COVERED)
            if any(r == 0 for r, _ in area)
            for cell in area
        }
        noblemen = []
        for c in range(cols):
            stands = [r + 1 for r in range(rows) if (r, c) in reach and grid[r][c] != rules.GARDENER]
            if rng.random() < 0.12:
                noblemen.append(rules.TERRACE)
            else:
                # Players walk noblemen deep for the points, so deeper rows are likelier.
                depth = np.array(stands, float)
                noblemen.append(int(rng.choice(stands, p=depth / depth.sum())))
        missions = sorted(int(m) + 1 for m in rng.choice(cols, 2, replace=False))
        board = rules.SanssouciBoard(
            tuple("".join(row) for row in grid),
            tuple(noblemen),
            tuple(missions),
            int(rng.integers(0, 150)),
            layout,
        )
        return rules.dump_board(board)

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        board = rules.parse_board(state)
        frame = BoardFrame(profile, px_per_mm)
        image = paper(frame.size_wh, pack.colour(BOARD), pack.grain, rng)
        s = px_per_mm
        grid = profile.region("grid")
        terrace = profile.region("terrace")
        symbols = board.layout.column_symbols
        w_mm = profile.size_mm[0]
        for r, colour in enumerate(ROW_COLOURS):
            _, y0, _, y1 = _box_px(grid, r, 0, s)
            polygon(image, _corners((6 * s, y0, (w_mm - 6) * s, y1), 0.0), colour, pack, y1 - y0)
            for x_mm in ((6 + grid.origin_mm[0]) / 2, w_mm - (6 + grid.origin_mm[0]) / 2):
                disc(image, (x_mm * s, (y0 + y1) / 2), 5.5 * s, plate_colour(pack), pack, y1 - y0)
                label_text(image, str(r + 1), (x_mm * s, (y0 + y1) / 2), 5 * s, pack.ink)
        for r, c in grid.cells():
            code = board.rows[r][c]
            artwork = int(rng.integers(GARDENER_ARTWORKS)) if code == rules.GARDENER else 0
            draw_square(image, _box_px(grid, r, c, s), code, symbols[c], ROW_COLOURS[r], artwork, pack, rng)
        _terrace(image, profile, symbols, pack, s)
        colour = PLAYER_COLOURS[player_colour(board)]
        # Wooden figures are not printed, so the pack leaves them alone; a darker rim reads as their edge.
        top = piece_top(round(NOBLE_DIAMETER_MM * s), colour, _shade(colour, 0.55))
        pieces = []
        for c, row in enumerate(board.noblemen):
            region, r = (terrace, 0) if row == rules.TERRACE else (grid, row - 1)
            x, y = cell_center_mm(region, r, c) + np.clip(rng.normal(0, 1.2, 2), -3, 3)
            pieces.append(Piece(float(x), float(y), NOBLE_DIAMETER_MM, NOBLE_HEIGHT_MM, top, colour))
        return BoardDrawing(image, px_per_mm, tuple(pieces))


def draw_square(
    image: Image,
    box: tuple[float, float, float, float],
    code: str,
    symbol: str,
    row_colour: Colour,
    artwork: int,
    pack: ArtPack,
    rng: np.random.Generator,
) -> None:
    """One garden square: an empty bed, preprinted garden art, a symbol tile or a gardener tile back."""
    x0, y0, x1, _ = box
    size = x1 - x0
    if code == rules.EMPTY:
        polygon(image, _corners(box, size * 0.07), _shade(row_colour, 0.88), pack, size)
    elif code == rules.PREPRINTED:
        _stamp(image, *_square_art(pack, round(size), code, "", 0, ""), round(x0), round(y0))
    elif code in (rules.SYMBOL, rules.GARDENER):
        jitter = rng.normal(0, size * 0.012, 2)
        numeral = NUMERALS[int(rng.integers(len(NUMERALS)))] if code == rules.GARDENER else ""
        art = _square_art(pack, round(size), code, symbol if code == rules.SYMBOL else "", artwork, numeral)
        _stamp(image, *art, round(x0 + jitter[0]), round(y0 + jitter[1]))
    else:
        raise ValueError(f"no art for Sanssouci square {code!r}")


@functools.lru_cache(maxsize=256)
def _square_art(
    pack: ArtPack, size: int, code: str, symbol: str, artwork: int, numeral: str
) -> tuple[Image, NDArray[np.float32]]:
    """A ``size``-pixel covered square and its coverage: preprinted art, a symbol tile or a gardener back.

    Squares of one kind look alike, so each is drawn once and stamped: a full garden would otherwise redraw
    some 450 glyph parts and take most of a board's time budget.
    """
    art = np.zeros((size, size, 3), np.uint8)
    mask = np.zeros((size, size), np.uint8)
    centre, r = (size / 2, size / 2), size / 2
    if code == rules.PREPRINTED:  # a lawn parterre with a clipped-hedge ornament around a flower bed
        lawn = np.array(_corners((0, 0, size, size), size * 0.03))
        polygon(art, lawn, LAWN, pack, size, outline=False)
        sides = (4, 24, 8)[pack.variant]
        rotation = -90.0 if pack.variant != 2 else -67.5
        polygon(art, regular_polygon(centre, 0.8 * r, sides, rotation), HEDGE, pack, size)
        polygon(art, regular_polygon(centre, 0.58 * r, sides, rotation), LAWN, pack, size)
        polygon(art, regular_polygon(centre, 0.38 * r, 6, inner=0.55), ROSE, pack, 0.6 * size)
        disc(art, centre, 0.12 * r, (60, 210, 240), pack, 0.6 * size)
        shapes = [lawn]
    else:
        face = np.array(_corners((0, 0, size, size), size * 0.04))
        # The tile's cut edge, seen past its face: what tells a laid tile from printed board art.
        edge = face + size * 0.035
        polygon(art, edge, (40, 50, 55), pack, size, outline=False)
        if code == rules.SYMBOL:
            polygon(art, face, TILE, pack, size)
            draw_symbol(art, symbol, centre, size * 0.78, pack)
        else:
            polygon(art, face, TILE_BACK, pack, size)
            draw_gardener(art, centre, size * 0.8, artwork, numeral, pack)
        shapes = [face, edge]
        width = max(1, round(pack.line * size))
        cv2.polylines(mask, [np.round(face * 16).astype(np.int32)], True, 255, width, cv2.LINE_AA, 4)
    for shape in shapes:
        cv2.fillPoly(mask, [np.round(shape * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    alpha = (mask[..., None] / np.float32(255)).astype(np.float32)
    art.setflags(write=False)
    alpha.setflags(write=False)
    return art, alpha


def _stamp(image: Image, art: Image, alpha: NDArray[np.float32], x: int, y: int) -> None:
    """Composite ``art`` with ``alpha`` onto ``image`` with its top-left corner at (x, y), clipped."""
    h, w = art.shape[:2]
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, image.shape[1]), min(y + h, image.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    a = alpha[y0 - y : y1 - y, x0 - x : x1 - x]
    roi = image[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + art[y0 - y : y1 - y, x0 - x : x1 - x] * a).astype(np.uint8)


@dataclass(frozen=True)
class _Pen:
    """Draws one glyph in its own unit square: (0, 0) at its centre, +-1 at its edges, y down.

    ``scale`` sets the outline weight and texture (see :func:`polygon`); ``fine`` parts (berries, roses,
    leaves) take a lighter line, which would otherwise swallow them in the heavy-lined packs.
    """

    image: Image
    centre: tuple[float, float]
    r: float
    pack: ArtPack
    scale: float

    def at(self, pts: Any) -> NDArray[np.float64]:
        return np.asarray(pts, dtype=np.float64).reshape(-1, 2) * self.r + self.centre

    def poly(self, pts: Any, colour: Colour, fine: bool = False, outline: bool = True) -> None:
        polygon(self.image, self.at(pts), colour, self.pack, self.scale * (0.6 if fine else 1.0), outline)

    def disc(self, x: float, y: float, radius: float, colour: Colour, fine: bool = False) -> None:
        self.poly(ellipse_points((x, y), (radius, radius)), colour, fine)

    def ellipse(
        self,
        x: float,
        y: float,
        axes: tuple[float, float],
        colour: Colour,
        start: float = 0.0,
        end: float = 360.0,
    ) -> None:
        self.poly(ellipse_points((x, y), axes, start=start, end=end, n=24), colour)

    def rect(self, x: float, half_w: float, top: float, bottom: float, colour: Colour) -> None:
        self.poly([(x - half_w, top), (x + half_w, top), (x + half_w, bottom), (x - half_w, bottom)], colour)

    def line(self, pts: Any, colour: Colour, width: float) -> None:
        """A thick line with the pack's ink edges (vines, posts, spiral walls)."""
        p = self.at(pts)
        stroke(self.image, p, self.pack.ink, width * self.r + 2 * max(1, round(self.pack.line * self.scale)))
        stroke(self.image, p, self.pack.colour(colour), width * self.r)


def _labyrinth(pen: _Pen, v: int) -> None:
    sides, rotation = ((4, -45.0), (32, 0.0), (6, 0.0))[v]
    for k, ring in enumerate((0.92, 0.72, 0.52, 0.32, 0.14)):
        # The pack's ink would outline every ring alike; the path rings stay bare to read as gravel.
        pen.poly(regular_polygon((0, 0), ring, sides, rotation), PATH if k % 2 else HEDGE, outline=k % 2 == 0)
    for top, bottom in ((-0.95, -0.3), (0.12, 0.6)):
        pen.poly([(-0.09, top), (0.09, top), (0.09, bottom), (-0.09, bottom)], PATH, outline=False)


def _statue(pen: _Pen, v: int) -> None:
    pen.rect(0, 0.5, 0.62, 0.9, STONE)
    pen.rect(0, 0.32, 0.4, 0.62, STONE)
    if v == 0:  # a figure on a plinth, arm raised
        pen.poly([(-0.15, -0.45), (0.15, -0.45), (0.26, 0.4), (-0.26, 0.4)], STONE)
        pen.disc(0, -0.62, 0.2, STONE)
        pen.poly([(0.12, -0.35), (0.5, -0.75), (0.58, -0.66), (0.18, -0.2)], STONE)
    elif v == 1:  # a column bearing a globe
        pen.rect(0, 0.16, -0.4, 0.4, STONE)
        pen.disc(0, -0.62, 0.27, STONE)
    else:  # an obelisk
        pen.poly([(-0.22, 0.4), (0.22, 0.4), (0.12, -0.62), (0, -0.92), (-0.12, -0.62)], STONE)


def _pavilion(pen: _Pen, v: int) -> None:
    pen.rect(0, 0.8, 0.62, 0.86, STONE)
    for x in (-0.6, -0.2, 0.2, 0.6):
        pen.rect(x, 0.08, -0.08, 0.62, (235, 240, 240))
    if v == 0:  # a dome
        pen.ellipse(0, -0.08, (0.78, 0.78), ROOF, start=180)
        pen.disc(0, -0.9, 0.08, (60, 200, 235))
    elif v == 1:  # a temple pediment
        pen.poly([(-0.9, -0.08), (0.9, -0.08), (0, -0.85)], ROOF)
    else:  # a two-tier pagoda roof
        pen.poly([(-0.95, -0.08), (0.95, -0.08), (0.45, -0.42), (-0.45, -0.42)], ROOF)
        pen.poly([(-0.6, -0.42), (0.6, -0.42), (0, -0.92)], ROOF)


def _topiary(pen: _Pen, v: int) -> None:
    if v == 0:  # stacked clipped balls
        for y, radius in ((0.2, 0.42), (-0.3, 0.32), (-0.7, 0.22)):
            pen.disc(0, y, radius, LEAF)
    elif v == 1:  # a clipped cone
        pen.poly([(-0.5, 0.5), (0.5, 0.5), (0, -0.92)], LEAF)
    else:  # a ball on a trunk
        pen.rect(0, 0.07, -0.2, 0.5, WOOD)
        pen.disc(0, -0.35, 0.52, LEAF)
    pen.poly([(-0.42, 0.45), (0.42, 0.45), (0.3, 0.9), (-0.3, 0.9)], POT)


def _stairway(pen: _Pen, v: int) -> None:
    steps, rise = 4, 0.425
    if v == 0:  # a flight rising to the right
        pts = [(-0.85, 0.85)]
        for k in range(steps):
            x, y = -0.85 + k * rise, 0.85 - (k + 1) * rise
            pts += [(x, y), (x + rise, y)]
        pen.poly([*pts, (0.85, 0.85)], SAND)
    else:  # a terraced flight, straight (1) or tapering (2)
        taper = 0.08 if v == 2 else 0.0
        for k in range(steps):
            half, top = 0.9 - 0.18 * k, 0.85 - (k + 1) * 0.42
            pen.poly(
                [(-half + taper, top), (half - taper, top), (half, top + 0.42), (-half, top + 0.42)], SAND
            )
    pen.disc(0.6 if v == 0 else 0.0, -0.85, 0.1, STONE)


def _fountain(pen: _Pen, v: int) -> None:
    if v == 2:  # a round pool seen from above
        pen.disc(0, 0, 0.88, STONE)
        pen.disc(0, 0, 0.68, WATER)
        for a in np.arange(8) * np.pi / 4:
            pen.disc(0.42 * np.cos(a), 0.42 * np.sin(a), 0.07, (245, 235, 200))
        pen.disc(0, 0, 0.18, STONE)
        return
    pen.ellipse(0, -0.1, (0.14, 0.8), WATER)
    for side in (-1, 1):
        pen.disc(side * 0.45, -0.45, 0.1, WATER)
    if v == 1:  # a second, upper bowl
        pen.ellipse(0, -0.15, (0.4, 0.18), STONE, end=180)
    pen.rect(0, 0.12, 0.3, 0.7, STONE)
    pen.ellipse(0, 0.3, (0.85, 0.5), STONE, end=180)


def _rose_arch(pen: _Pen, v: int) -> None:
    if v == 0:  # a round arch
        t = np.linspace(np.pi, 2 * np.pi, 24)
        crown = np.column_stack([0.62 * np.cos(t), -0.1 + 0.62 * np.sin(t)])
    elif v == 1:  # a pointed arch
        crown = np.array([(-0.62, -0.1), (-0.45, -0.55), (0, -0.85), (0.45, -0.55), (0.62, -0.1)])
    else:  # a square pergola
        crown = np.array([(-0.62, -0.1), (-0.62, -0.7), (0.62, -0.7), (0.62, -0.1)])
    pen.line(np.vstack([[(-0.62, 0.85)], crown, [(0.62, 0.85)]]), LEAF, 0.2)
    i = len(crown) // 4
    for x, y in [(-0.62, 0.3), (0.62, 0.3), (0, crown[:, 1].min()), crown[i], crown[-1 - i]]:
        pen.disc(x, y, 0.17, ROSE, fine=True)


def _herb_spiral(pen: _Pen, v: int) -> None:
    if v == 1:  # a square spiral
        pts = [(0.0, 0.0)]
        for k in range(6):
            dx, dy = ((1, 0), (0, 1), (-1, 0), (0, -1))[k % 4]
            length = 0.32 * (k // 2 + 1)
            pts.append((pts[-1][0] + dx * length, pts[-1][1] + dy * length))
        spiral = np.array(pts)
        spiral -= (spiral.min(axis=0) + spiral.max(axis=0)) / 2
        herbs = spiral[2:]
    else:
        t = np.linspace(0, 2.3 * 2 * np.pi, 80)
        rad = 0.1 + 0.72 * t / t[-1]
        spiral = np.column_stack([rad * np.cos(t), rad * np.sin(t)])
        # Herbs tuck into the stone wall; variant 2 crowds them, like a well-grown bed.
        herbs = spiral[30 :: 12 if v == 0 else 6]
    pen.line(spiral, STONE, 0.14)
    for x, y in herbs:
        pen.poly(ellipse_points((x, y - 0.08), (0.07, 0.13)), LEAF, fine=True)


def _grapevine(pen: _Pen, v: int) -> None:
    if v == 2:  # on a trellis
        for x in (-0.72, 0.72):
            pen.line([(x, -0.9), (x, 0.9)], WOOD, 0.1)
        pen.line([(-0.85, -0.62), (0.85, -0.62)], WOOD, 0.1)
    pen.line([(0, -0.35), (0.1, -0.85)], WOOD, 0.08)
    pen.poly(regular_polygon((0.35, -0.58), 0.3, 5, inner=0.6), LEAF)
    # Variant 1 has fewer, fatter berries: a table grape rather than a wine grape.
    rows, grape = ((4, 3, 2, 1), 0.14) if v != 1 else ((3, 2, 1), 0.2)
    for row, count in enumerate(rows):
        for i in range(count):
            pen.disc(
                (i - (count - 1) / 2) * 2 * grape, -0.3 + grape + row * 1.8 * grape, grape, GRAPE, fine=True
            )


GLYPHS: dict[str, Callable[[_Pen, int], None]] = {
    "labyrinth": _labyrinth,
    "statue": _statue,
    "pavilion": _pavilion,
    "topiary": _topiary,
    "stairway": _stairway,
    "fountain": _fountain,
    "rose arch": _rose_arch,
    "herb spiral": _herb_spiral,
    "grapevine": _grapevine,
}


def draw_symbol(image: Image, symbol: str, centre: tuple[float, float], size: float, pack: ArtPack) -> None:
    """One of the nine column symbols; the pack's variant picks among three geometries per symbol."""
    try:
        glyph = GLYPHS[symbol]
    except KeyError:
        raise ValueError(f"no art for Sanssouci symbol {symbol!r}; symbols: {', '.join(GLYPHS)}") from None
    # These glyphs carry more detail than a tile's outline weight allows; a lighter line keeps them legible.
    glyph(_Pen(image, centre, size / 2, pack, 0.6 * size), pack.variant)


def draw_gardener(
    image: Image, centre: tuple[float, float], size: float, artwork: int, numeral: str, pack: ArtPack
) -> None:
    """A tile's back: a gardener at work (``artwork`` picks the job) and the player-count numeral."""
    pen = _Pen(image, centre, size / 2, pack, 0.6 * size)
    label_text(image, numeral, tuple(pen.at((-0.7, -0.82))[0]), 0.2 * pen.r, (235, 240, 240))
    for x in (-0.15, 0.15):
        pen.rect(x, 0.09, 0.5, 0.9, OVERALL)
    pen.poly([(-0.25, -0.3), (0.25, -0.3), (0.32, 0.55), (-0.32, 0.55)], OVERALL)
    pen.disc(0, -0.48, 0.2, SKIN)
    if pack.variant == 0:  # a straw hat
        pen.ellipse(0, -0.62, (0.36, 0.08), SAND)
        pen.ellipse(0, -0.66, (0.17, 0.14), SAND, start=180)
    elif pack.variant == 1:  # a cap
        pen.ellipse(0, -0.58, (0.21, 0.17), ROSE, start=180)
    else:  # a kerchief
        pen.poly([(-0.22, -0.55), (0.22, -0.55), (0, -0.75)], ROSE)
    side = -1 if artwork == 1 else 1  # the watering gardener faces the other way
    hand = side * 0.42
    pen.line([(side * 0.2, -0.2), (hand, 0)], SKIN, 0.1)
    if artwork == 0:  # raking
        pen.line([(hand - 0.05, -0.85), (hand + 0.12, 0.75)], WOOD, 0.07)
        pen.rect(hand + 0.12, 0.25, 0.72, 0.84, STONE)
    elif artwork == 1:  # watering
        pen.poly([(hand - 0.05, 0.05), (hand - 0.4, 0.05), (hand - 0.45, 0.45), (hand, 0.45)], STONE)
        pen.line([(hand - 0.4, 0.35), (hand - 0.75, 0.05)], STONE, 0.07)
        pen.disc(hand - 0.8, 0.2, 0.05, WATER)
    else:  # pushing a wheelbarrow
        pen.poly([(hand, 0.15), (hand + 0.5, 0.1), (hand + 0.4, 0.45), (hand + 0.05, 0.45)], WOOD)
        pen.disc(hand + 0.3, 0.62, 0.15, (60, 60, 60))
        pen.disc(hand + 0.25, 0.05, 0.12, LEAF)


def _terrace(image: Image, profile: BoardProfile, symbols: tuple[str, ...], pack: ArtPack, s: float) -> None:
    """The palace terrace with its balustrade (the board's top) and the column-symbol medallions under it."""
    w_mm = profile.size_mm[0]
    terrace = profile.region("terrace")
    grid = profile.region("grid")
    top = terrace.origin_mm[1] - 6
    bottom = terrace.origin_mm[1] + terrace.cell_mm[1] + 2
    polygon(
        image, _corners((6 * s, top * s, (w_mm - 6) * s, bottom * s), 0.0), TERRACE, pack, (bottom - top) * s
    )
    # The balustrade, one comb-shaped outline: a rail and its posts.
    rail = [(6.0, top + 0.3), (w_mm - 6, top + 0.3), (w_mm - 6, top + 1.5)]
    for x in np.arange(w_mm - 9, 7, -6):
        rail += [(x + 1.1, top + 1.5), (x + 1.1, top + 5), (x - 1.1, top + 5), (x - 1.1, top + 1.5)]
    rail.append((6.0, top + 1.5))
    polygon(image, np.array(rail) * s, STONE, pack, 6 * s)
    medallion_y = (bottom + grid.origin_mm[1]) / 2
    for c, symbol in enumerate(symbols):
        x0, y0, x1, y1 = _box_px(terrace, 0, c, s)
        spot = ellipse_points(((x0 + x1) / 2, (y0 + y1) / 2 + 2 * s), (0.4 * (x1 - x0), 0.34 * (y1 - y0)))
        polygon(image, spot, _shade(TERRACE, 0.85), pack, x1 - x0)
        centre = ((x0 + x1) / 2, medallion_y * s)
        disc(image, centre, 6.5 * s, TILE, pack, 13 * s)
        draw_symbol(image, symbol, centre, 10.5 * s, pack)


ARTISTS = (SanssouciArtist(),)
