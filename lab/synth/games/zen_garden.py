"""Zen Garden in the synthetic world: whole tables of 4 x 4 gardens, one garden board drawn and photographed.

The scoring state is a table (the majority compares players), but a photo shows one garden board, so
:meth:`ZenArtist.random_state` returns a whole table and the board drawn, labelled and photographed is
always ``players[0]``. Each tile is painted once with its path arc on the SE corner and then turned a
quarter turn at a time, as a player turns a real tile, so its floor texture and decor turn with the path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from lab.synth.art import (
    AA,
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
from scoring import zen_garden as rules
from vision.geometry import BoardFrame, cell_center_mm, cell_rect_mm
from vision.profile import BoardProfile

GAME = rules.GAME
COIN = "m"
NO_COIN = "."

BOARD: Colour = (78, 72, 62)
TRACK: Colour = (165, 198, 214)
GOLD: Colour = (95, 185, 225)
MEDALLION: Colour = (200, 178, 152)
FLOOR_COLOURS: Mapping[str, Colour] = {
    "sand": (140, 195, 222),
    "gravel": (168, 168, 163),
    "trees": (70, 145, 75),
    "clay": (55, 75, 170),
    "water": (200, 140, 60),
    "cherry-blossom": (205, 170, 245),
}
SAND_PATH: Colour = (215, 238, 248)
WOOD_PATH: Colour = (70, 145, 200)
STONE_PATH: Colour = (120, 112, 104)
MARKERS: tuple[Colour, ...] = ((40, 40, 45), (45, 50, 185), (170, 95, 40), (60, 140, 60), (60, 200, 230))

# The arc's centre line has radius half a tile, so in a 2 x 2 walkway the four arcs meet at the edge
# midpoints and join into one circle around the block's centre.
ARC_INNER, ARC_OUTER = 0.36, 0.64
# The decor sits in the quarter opposite the arc: 0.73 tile from the arc's corner, clear of its 0.64 edge.
DECOR_AT, MEDALLION_RADIUS = 0.3, 0.25
# np.rot90 turns counter-clockwise: the SE corner of the painted tile lands on the named corner.
QUARTER_TURNS: Mapping[str, int] = {"SE": 0, "NE": 1, "NW": 2, "SW": 3}
TILE_GAP_MM = 1.0
MARKER_DIAMETER_MM, MARKER_HEIGHT_MM = 12.0, 8.0

# Plausible gardens hold walkways far more often than corners drawn at random would (1 block in 256).
MAX_PLANTED_WALKWAYS = 3
PLAYER_NAMES = ("Ann", "Bo", "Cy", "Di")


def _base_setup(profile: BoardProfile) -> rules.ZenSetup:
    """The profile's geometry guesses (walkway corners, grid size); the Emperor tiles are drawn per table."""
    return rules.parse_setup({"boards": [1], **profile.setup}, "setup")


def _emperor_tiles() -> list[rules.EmperorTile]:
    return [rules.EmperorTile(a, v) for a, values in rules.ATTRIBUTES.items() for v in values]


class ZenArtist:
    """Zen Garden tables; the photographed garden is ``players[0]``.

    Labels: region ``grid`` holds ``players[0]``'s tile codes (``GtSEg``: floor, path, corner, decor);
    region ``coins`` holds ``m`` on the space of the coin value (space ``r * cols + c`` is value ``r * cols
    + c``) and ``.`` on every other space.
    """

    game = GAME

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """A finished table: 2-4 full gardens dealt from the 90 unique tiles, each with 0-25 coins.

        The level is 1-5 with Boards 1 to level in play, as the rulebook's levels are; four different Emperor
        tiles lie on Board 1, the missions' tiles are known half the time, and the point tiles taken agree
        with them (the 5 first, only by gardens that meet a known mission). Some 2 x 2 blocks get walkway
        corners, most of them with one path type, so that loops are common.
        """
        base = _base_setup(profile)
        players_n = int(rng.integers(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))
        combos = [(f, p, d) for f in rules.FLOORS for p in rules.PATHS for d in rules.DECORS]
        order = rng.permutation(len(combos))
        per_garden = base.rows * base.cols
        gardens = []
        for i in range(players_n):
            dealt = [combos[k] for k in order[i * per_garden : (i + 1) * per_garden]]
            gardens.append(_garden(dealt, base, rng))

        level = int(rng.integers(1, len(rules.BOARDS) + 1))
        emperors = _emperor_tiles()
        picks = [emperors[k] for k in rng.permutation(len(emperors))]
        preferences = dict(zip(rules.PREFERENCE_SLOTS, picks, strict=False))
        in_play = [m for board in range(1, level + 1) for m in rules.BOARD_MISSIONS.get(board, ())]
        missions: dict[str, tuple[rules.EmperorTile, rules.EmperorTile]] = {}
        if rng.random() < 0.5:  # the mission tiles are often not entered
            spare = iter(picks[len(preferences) :])
            missions = {m: (next(spare), next(spare)) for m in in_play}
        setup = replace(base, boards=tuple(range(1, level + 1)), preferences=preferences, missions=missions)

        points: list[dict[str, int]] = [{} for _ in gardens]
        for mission in in_play:
            eligible = [
                i
                for i, garden in enumerate(gardens)
                if mission not in missions
                or all(
                    rules.count_matching(garden, wanted) >= rules.MISSION_TARGET
                    for wanted in missions[mission]
                )
            ]
            takers = int(rng.integers(0, min(len(rules.POINT_TILES), len(eligible)) + 1))
            for k, i in enumerate(rng.permutation(eligible)[:takers]):
                points[int(i)][mission] = rules.POINT_TILES[k]

        boards = tuple(
            rules.ZenBoard(
                PLAYER_NAMES[i],
                tuple(tuple(garden[r * base.cols : (r + 1) * base.cols]) for r in range(base.rows)),
                int(rng.integers(0, rules.MAX_COINS + 1)),
                points[i],
            )
            for i, garden in enumerate(gardens)
        )
        return rules.dump(rules.ZenTable(setup, boards))

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        garden = rules.parse(state).players[0]
        frame = BoardFrame(profile, px_per_mm)
        s = px_per_mm
        image = paper(frame.size_wh, pack.colour(BOARD), pack.grain, rng)
        w_mm, h_mm = profile.size_mm
        inlay = _rect(6 * s, 6 * s, (w_mm - 6) * s, (h_mm - 6) * s)
        stroke(image, inlay, pack.colour(GOLD), max(1.0, 0.8 * s), closed=True)

        region = profile.region("grid")
        gx0, gy0, _, _ = cell_rect_mm(region, 0, 0)
        _, _, gx1, gy1 = cell_rect_mm(region, region.rows - 1, region.cols - 1)
        well = _rect((gx0 - 2) * s, (gy0 - 2) * s, (gx1 + 2) * s, (gy1 + 2) * s)
        polygon(image, well, _shade(BOARD, 0.6), pack, (gx1 - gx0) * s, outline=False)
        for r, c in region.cells():
            tile = garden.tiles[r][c]
            if tile is None:
                continue
            x0, y0, x1, _ = cell_rect_mm(region, r, c)
            size = round((x1 - x0 - TILE_GAP_MM) * s)
            patch = draw_tile(tile, pack, size, rng)
            slack = TILE_GAP_MM * s / 2
            jx, jy = np.clip(rng.normal(0, slack / 2, 2), -slack, slack)
            tx, ty = round((x0 + TILE_GAP_MM / 2) * s + jx), round((y0 + TILE_GAP_MM / 2) * s + jy)
            image[ty : ty + size, tx : tx + size] = patch

        _coin_track(image, profile, pack, s)
        coins = profile.region("coins")
        r, c = divmod(garden.coins, coins.cols)
        x_mm, y_mm = cell_center_mm(coins, r, c)
        colour = MARKERS[int(rng.integers(len(MARKERS)))]  # the marker is in its player's colour
        top = piece_top(round(MARKER_DIAMETER_MM * s), colour, pack.ink)
        marker = Piece(x_mm, y_mm, MARKER_DIAMETER_MM, MARKER_HEIGHT_MM, top, colour)
        return BoardDrawing(image, px_per_mm, (marker,))


def _garden(
    dealt: list[tuple[str, str, str]], setup: rules.ZenSetup, rng: np.random.Generator
) -> list[rules.ZenTile]:
    """``dealt`` laid out row-major with random corners, a few blocks turned into walkways."""
    rows, cols = setup.rows, setup.cols
    corners: list[str | None] = [None] * (rows * cols)
    cells: list[tuple[str, str, str] | None] = [None] * (rows * cols)
    unused = list(dealt)
    for _ in range(int(rng.integers(0, MAX_PLANTED_WALKWAYS + 1))):
        r, c = int(rng.integers(rows - 1)), int(rng.integers(cols - 1))
        block = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]
        if any(corners[k] is not None for k in block):
            continue
        for k, corner in zip(block, setup.walkway_corners, strict=True):
            corners[k] = corner
        by_path = [p for p in rules.PATHS if sum(t[1] == p for t in unused) >= len(block)]
        if by_path and rng.random() < 0.75:
            path = by_path[int(rng.integers(len(by_path)))]
            for k in block:
                chosen = next(t for t in unused if t[1] == path)
                cells[k] = chosen
                unused.remove(chosen)
    rest = iter([unused[k] for k in rng.permutation(len(unused))])
    garden = []
    for k in range(rows * cols):
        floor, path, decor = cells[k] or next(rest)
        corner = corners[k] or rules.CORNERS[int(rng.integers(len(rules.CORNERS)))]
        garden.append(rules.ZenTile(floor, path, corner, decor))
    return garden


def _shade(colour: Colour, factor: float) -> Colour:
    b, g, r = (min(255, int(v * factor)) for v in colour)
    return b, g, r


def _dot(image: Image, centre: tuple[float, float], radius: float, colour: Colour) -> None:
    """An anti-aliased filled circle at sub-pixel precision, outside the pack's fill (texture specks)."""
    cv2.circle(
        image, (round(centre[0] * 16), round(centre[1] * 16)), max(16, round(radius * 16)), colour, -1, AA, 4
    )


def _arc(radius: float, size: float, start: float = 180.0, end: float = 270.0, n: int = 24) -> np.ndarray:
    """Points of a circle arc around the painted tile's SE corner, the corner every path wraps."""
    return ellipse_points((size, size), (radius, radius), start=start, end=end, n=n)


def draw_tile(tile: rules.ZenTile, pack: ArtPack, size: int, rng: np.random.Generator) -> Image:
    """One garden tile, ``size`` pixels square, turned so that its path wraps ``tile.corner``."""
    patch = np.empty((size, size, 3), np.uint8)
    floor = pack.colour(FLOOR_COLOURS[tile.floor])
    patch[:] = floor
    polygon(patch, _rect(0, 0, size, size), FLOOR_COLOURS[tile.floor], pack, size, outline=False)
    _floor_motif(patch, tile.floor, floor, rng)
    _path(patch, tile.path, pack, rng)
    centre = (DECOR_AT * size, DECOR_AT * size)
    disc(patch, centre, MEDALLION_RADIUS * size, MEDALLION, pack, size * 0.3)
    draw_decor(patch, tile.decor, centre, size * 0.4, pack)
    edge = max(1.0, pack.line * size * 0.3)
    stroke(patch, _rect(0, 0, size - 1, size - 1), pack.ink, edge, closed=True)
    return np.ascontiguousarray(np.rot90(patch, QUARTER_TURNS[tile.corner]))


def _floor_motif(patch: Image, floor: str, colour: Colour, rng: np.random.Generator) -> None:
    """The floor's own pattern, so that floors differ by more than a hue the pack may shift.

    Raked lines (sand), pebbles (gravel), canopies (trees), pavers (clay), ripples (water), blossoms.
    """
    size = patch.shape[0]
    thin = max(1.0, size * 0.012)
    if floor == "sand":
        xs = np.linspace(0, size, 24)
        phase = rng.uniform(0, 2 * np.pi)
        for y in np.arange(0.05, 1.0, 0.09) * size:
            ys = y + 0.015 * size * np.sin(xs / size * 3 * np.pi + phase)
            stroke(patch, np.column_stack([xs, ys]), _shade(colour, 0.8), thin)
    elif floor == "gravel":
        for k, (x, y, r) in enumerate(rng.uniform(0, 1, (60, 3))):
            _dot(
                patch,
                (x * size, y * size),
                (0.012 + 0.018 * r) * size,
                _shade(colour, 0.7 if k % 2 else 1.25),
            )
    elif floor == "trees":
        for x, y, r in rng.uniform(0, 1, (6, 3)):
            cx, cy, radius = (0.1 + 0.8 * x) * size, (0.1 + 0.8 * y) * size, (0.09 + 0.06 * r) * size
            _dot(patch, (cx, cy), radius, _shade(colour, 0.65))
            _dot(patch, (cx - 0.25 * radius, cy - 0.25 * radius), 0.55 * radius, _shade(colour, 1.2))
    elif floor == "clay":
        step = size / 8
        for k in range(1, 8):
            stroke(patch, [(0, k * step), (size, k * step)], _shade(colour, 0.65), thin)
        for k in range(8):
            for x in np.arange((k % 2) * step, size, 2 * step):
                stroke(patch, [(x, k * step), (x, (k + 1) * step)], _shade(colour, 0.65), thin)
    elif floor == "water":
        for x, y in rng.uniform(0.12, 0.88, (5, 2)):
            for radius in (0.035, 0.07, 0.105):
                pts = ellipse_points((x * size, y * size), (radius * size, radius * size), n=28)
                stroke(patch, pts, _shade(colour, 1.35), thin, closed=True)
    elif floor == "cherry-blossom":
        petal = _shade(colour, 1.25)
        for x, y in rng.uniform(0.08, 0.92, (10, 2)):
            for a in np.arange(5) * 2 * np.pi / 5:
                petal_at = ((x + 0.042 * np.cos(a)) * size, (y + 0.042 * np.sin(a)) * size)
                _dot(patch, petal_at, 0.032 * size, petal)
            _dot(patch, (x * size, y * size), 0.018 * size, _shade(colour, 0.55))
    else:
        raise ValueError(f"no art for Zen Garden floor {floor!r}")


def _path(patch: Image, path: str, pack: ArtPack, rng: np.random.Generator) -> None:
    """The quarter-ring path around the SE corner: raked sand, wooden planks or stepping stones."""
    size = patch.shape[0]
    inner, outer = ARC_INNER * size, ARC_OUTER * size
    if path == "stone":  # stepping stones: the floor shows between them
        gap = 3.0
        for k in range(4):
            a0 = 180 + 22.5 * k + gap / 2
            a1 = a0 + 22.5 - gap
            slab = np.vstack(
                [_arc(outer - 0.015 * size, size, a0, a1, 8), _arc(inner + 0.015 * size, size, a1, a0, 8)]
            )
            polygon(patch, slab, _shade(STONE_PATH, rng.uniform(0.85, 1.15)), pack, 0.3 * size)
        return
    band = np.vstack([_arc(outer, size), _arc(inner, size)[::-1]])
    if path == "sand":
        polygon(patch, band, SAND_PATH, pack, size * 0.3, outline=False)
        for radius in (0.45, 0.55):
            stroke(
                patch, _arc(radius * size, size), _shade(pack.colour(SAND_PATH), 0.8), max(1.0, size * 0.012)
            )
    elif path == "wood":
        polygon(patch, band, WOOD_PATH, pack, size * 0.3, outline=False)
        seam = _shade(pack.colour(WOOD_PATH), 0.55)
        for a in np.deg2rad(np.arange(190, 270, 10)):
            ends = [(size + r * np.cos(a), size + r * np.sin(a)) for r in (inner, outer)]
            stroke(patch, ends, seam, max(1.0, size * 0.015))
    else:
        raise ValueError(f"no art for Zen Garden path {path!r}")
    edge = max(1.0, pack.line * size * 0.5)
    stroke(patch, _arc(outer, size), pack.ink, edge)
    stroke(patch, _arc(inner, size), pack.ink, edge)


def _rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def draw_decor(image: Image, decor: str, centre: tuple[float, float], size: float, pack: ArtPack) -> None:
    """One decor glyph; the pack's variant picks among three geometries per decor.

    Parts are drawn at the scale of half the glyph: at its full size the heavy-line packs would ink over
    thin parts such as posts and slats.
    """
    cx, cy = centre
    r = size / 2
    v = pack.variant
    black = (40, 40, 45)
    if decor == "pagoda":
        tiers = (3, 2, 4)[v]
        step = 1.45 * r / tiers
        roof_colour = (95, 105, 35)
        for k in range(tiers):
            base = cy + 0.85 * r - k * step
            half = (0.9 - 0.5 * k / tiers) * r
            eave = base - 0.5 * step
            polygon(image, _rect(cx - 0.45 * half, eave, cx + 0.45 * half, base), (120, 200, 235), pack, r)
            roof = [
                (cx - half - 0.1 * r, eave - 0.12 * r),
                (cx - 0.3 * half, eave - 0.5 * step),
                (cx + 0.3 * half, eave - 0.5 * step),
                (cx + half + 0.1 * r, eave - 0.12 * r),
                (cx + half, eave),
                (cx - half, eave),
            ]
            polygon(image, roof, roof_colour, pack, r)
        spire_base = cy + 0.85 * r - tiers * step
        stroke(image, [(cx, spire_base), (cx, cy - 0.95 * r)], pack.colour(roof_colour), max(1.0, 0.08 * r))
    elif decor == "bench":
        wood = (40, 85, 140)
        if v == 1:  # a backless bench: a thick slab on two blocks
            polygon(image, _rect(cx - 0.9 * r, cy - 0.2 * r, cx + 0.9 * r, cy + 0.15 * r), wood, pack, r)
            for x in (cx - 0.55 * r, cx + 0.55 * r):
                polygon(image, _rect(x - 0.17 * r, cy + 0.15 * r, x + 0.17 * r, cy + 0.7 * r), wood, pack, r)
            return
        for x in (cx - 0.65 * r, cx + 0.65 * r):
            polygon(image, _rect(x - 0.1 * r, cy - 0.8 * r, x + 0.1 * r, cy + 0.8 * r), wood, pack, r)
        slats = ((-0.75, -0.42),) if v == 0 else ((-0.8, -0.6), (-0.48, -0.28))
        for top, bottom in slats:
            polygon(image, _rect(cx - 0.85 * r, cy + top * r, cx + 0.85 * r, cy + bottom * r), wood, pack, r)
        polygon(image, _rect(cx - 0.95 * r, cy, cx + 0.95 * r, cy + 0.22 * r), wood, pack, r)
    elif decor == "buddha":
        gold = (40, 170, 220)
        if v == 1:  # a lotus seat instead of a halo
            polygon(
                image,
                regular_polygon((cx, cy + 0.7 * r), 0.45 * r, 7, inner=0.5),
                (170, 140, 235),
                pack,
                r,
            )
        else:
            disc(image, (cx, cy - 0.4 * r), 0.5 * r, (150, 225, 245), pack, r)
        polygon(image, ellipse_points((cx, cy + 0.15 * r), (0.42 * r, 0.5 * r)), gold, pack, r)
        polygon(image, ellipse_points((cx, cy + 0.58 * r), (0.85 * r, 0.25 * r)), gold, pack, r)
        disc(image, (cx, cy - 0.45 * r), 0.26 * r, gold, pack, r)
        disc(image, (cx, cy - 0.74 * r), 0.1 * r, gold, pack, r)
        if v == 2:  # hands folded in the lap
            disc(image, (cx, cy + 0.42 * r), 0.14 * r, (60, 140, 200), pack, r)
    elif decor == "gate":
        red = (40, 60, 210)
        for side in (-1, 1):
            foot, head = cx + side * 0.58 * r, cx + side * 0.48 * r
            post = [
                (foot - 0.1 * r, cy + 0.9 * r),
                (foot + 0.1 * r, cy + 0.9 * r),
                (head + 0.08 * r, cy - 0.6 * r),
                (head - 0.08 * r, cy - 0.6 * r),
            ]
            polygon(image, post, red, pack, r)
        lift = 0.0 if v == 2 else 0.15 * r
        lintel = [
            (cx - r, cy - 0.85 * r - lift),
            (cx, cy - 0.8 * r),
            (cx + r, cy - 0.85 * r - lift),
            (cx + 0.9 * r, cy - 0.62 * r),
            (cx - 0.9 * r, cy - 0.62 * r),
        ]
        polygon(image, lintel, black if v == 0 else red, pack, r)
        beams = ((-0.4, -0.28),) if v != 2 else ((-0.45, -0.35), (-0.2, -0.1))
        for b0, b1 in beams:
            polygon(image, _rect(cx - 0.75 * r, cy + b0 * r, cx + 0.75 * r, cy + b1 * r), red, pack, r)
        if v == 1:  # the name plaque between the beams
            polygon(image, _rect(cx - 0.14 * r, cy - 0.62 * r, cx + 0.14 * r, cy - 0.28 * r), black, pack, r)
    elif decor == "crane":
        _crane(image, centre, size, pack)
    else:
        raise ValueError(f"no art for Zen Garden decor {decor!r}")


def _crane(image: Image, centre: tuple[float, float], size: float, pack: ArtPack) -> None:
    """A crane standing (variant 0), in flight (1) or folded from paper (2)."""
    cx, cy = centre
    r = size / 2
    white, crown, beak = (245, 245, 240), (40, 40, 220), (60, 140, 200)
    black = pack.colour((40, 40, 45))
    width = max(1.0, 0.1 * r)
    if pack.variant == 2:
        polygon(
            image,
            [(cx - 0.9 * r, cy - 0.3 * r), (cx - 0.1 * r, cy + 0.2 * r), (cx, cy + 0.6 * r)],
            white,
            pack,
            r,
        )
        polygon(
            image,
            [(cx + 0.9 * r, cy - 0.7 * r), (cx + 0.1 * r, cy + 0.2 * r), (cx, cy + 0.6 * r)],
            white,
            pack,
            r,
        )
        body = [
            (cx - 0.45 * r, cy + 0.35 * r),
            (cx, cy - 0.9 * r),
            (cx + 0.45 * r, cy + 0.35 * r),
            (cx, cy + 0.6 * r),
        ]
        polygon(image, body, (80, 60, 200), pack, r)
        disc(image, (cx + 0.75 * r, cy - 0.6 * r), 0.1 * r, crown, pack, r)
    elif pack.variant == 1:  # seen from above in flight, as on a crane crest
        for side in (-1, 1):
            wing = [
                (cx, cy - 0.2 * r),
                (cx + side * 0.95 * r, cy - 0.45 * r),
                (cx + side * 0.75 * r, cy + 0.05 * r),
                (cx, cy + 0.25 * r),
            ]
            polygon(image, wing, white, pack, r)
            tip = [wing[1], wing[2], (cx + side * 0.6 * r, cy - 0.3 * r)]
            polygon(image, tip, (40, 40, 45), pack, r)
        for dx in (-0.08, 0.08):
            stroke(image, [(cx + dx * r, cy + 0.4 * r), (cx + 2 * dx * r, cy + 0.95 * r)], black, width * 0.6)
        polygon(image, ellipse_points((cx, cy + 0.05 * r), (0.17 * r, 0.45 * r)), white, pack, r)
        stroke(image, [(cx, cy - 0.35 * r), (cx, cy - 0.75 * r)], black, width * 1.5)
        disc(image, (cx, cy - 0.8 * r), 0.13 * r, crown, pack, r)
    else:
        for dx in (-0.05, 0.12):
            stroke(image, [(cx + dx * r, cy + 0.2 * r), (cx + dx * r, cy + 0.95 * r)], black, width * 0.6)
        tail = [(cx - 0.35 * r, cy), (cx - 0.85 * r, cy + 0.35 * r), (cx - 0.3 * r, cy + 0.3 * r)]
        polygon(image, tail, (40, 40, 45), pack, r)
        polygon(image, ellipse_points((cx, cy + 0.05 * r), (0.5 * r, 0.3 * r), -20), white, pack, r)
        neck = [(cx + 0.35 * r, cy - 0.1 * r), (cx + 0.5 * r, cy - 0.45 * r), (cx + 0.42 * r, cy - 0.75 * r)]
        stroke(image, neck, black, width * 1.5)
        stroke(
            image, [(cx + 0.42 * r, cy - 0.75 * r), (cx + 0.8 * r, cy - 0.7 * r)], pack.colour(beak), width
        )
        disc(image, (cx + 0.42 * r, cy - 0.78 * r), 0.11 * r, crown, pack, r)


def _coin_track(image: Image, profile: BoardProfile, pack: ArtPack, s: float) -> None:
    """Coin spaces 0-25 in reading order along the bottom edge: the board's orientation cue."""
    region = profile.region("coins")
    x0, y0, _, _ = cell_rect_mm(region, 0, 0)
    _, _, x1, y1 = cell_rect_mm(region, region.rows - 1, region.cols - 1)
    band = _rect((x0 - 3) * s, (y0 - 3) * s, (x1 + 3) * s, (y1 + 3) * s)
    polygon(image, band, TRACK, pack, region.cell_mm[1] * s)
    space = pack.colour(GOLD)
    for r, c in region.cells():
        cx0, cy0, cx1, cy1 = (v * s for v in cell_rect_mm(region, r, c))
        centre = ((cx0 + cx1) / 2, (cy0 + cy1) / 2)
        radius = (cx1 - cx0) / 2
        _dot(image, centre, radius, space)
        stroke(
            image, ellipse_points(centre, (radius, radius), n=28), pack.ink, max(1.0, 0.25 * s), closed=True
        )
        label_text(image, str(r * region.cols + c), centre, radius * 0.75, pack.ink)


ARTISTS = (ZenArtist(),)
