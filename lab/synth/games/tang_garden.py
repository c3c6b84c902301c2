"""Tang Garden in the synthetic world: the shared garden board, its decorations, characters and landscapes.

Cell labels. Region ``grid``: ``...`` where no tile lies, else the tile token (``gw-``), then ``/KIND`` per
decoration on it (``/tree:SPECIES`` for a tree; several joined in sorted order, ``g--/bird/tree:pine``),
then ``@NAME:FACING`` for the character standing there (``gw-/lotus@poet:E``). Landscape regions
(``landscape-large:N``, ``landscape-small:E``, ...): the icons of the tile in that slot, sorted and joined by
``+`` (``dragon+sun``), or ``.`` for an empty slot.

Slots. The state lists each side's landscape tiles as slots 0-4; :func:`slot_cells` places them: the large
slots (the outer row) first, then the small ones (the inner row), each region's cells in reading order
(west to east on the N and S sides, north to south on E and W). So with the default profile slots 0-1 are
large and 2-4 small, as in ``examples/tang-garden.json``. A landscape tile is printed facing out of the
board, its top edge towards the table edge, as the characters facing that side see it.

Pieces. Characters stand as 30 mm tall, 16 mm wide miniatures in the south-east of their tile, leaving the
other three quarters to decorations. Seen from above each shows its identity (one of six colours with one
of six glyphs; the six advanced characters wear a sash and a rim of another colour, so two of one colour
differ in sash and glyph) and a white face with two eyes over the front two-fifths of its top, the way it
faces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
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
from lab.synth.scene import BoardDrawing, Mark, Piece
from scoring import tang_garden as rules
from vision.geometry import BoardFrame, cell_rect_mm
from vision.profile import BoardProfile, Region, default_profile
from vision.readers.tang_garden import (
    decoration_label,
    landscape_icons,
    landscape_slots,
    slot_cells,
    tang_setup,
    valid_table,
)

GAME = rules.GAME

BOARD: Colour = (168, 180, 176)
PRINT: Colour = (112, 124, 120)
SLOT: Colour = (140, 152, 148)
FOOTPATH: Colour = (160, 196, 216)
STONE: Colour = (190, 214, 228)
GREENERY: Colour = (70, 150, 80)
WATER: Colour = (200, 140, 60)
ROCK: Colour = (105, 118, 135)
# A rockery band: lavender with dark pebbles (a footpath's stones are pale). Grey, as the waterfall's
# rocks are, it read in a 64-pixel crop as the bare board or the tile's outline: rock edges were missed.
ROCKERY: Colour = (190, 130, 170)
PEBBLE: Colour = (70, 45, 65)
WALL: Colour = (50, 55, 180)
START_FRAME: Colour = (40, 165, 215)
BARK: Colour = (40, 70, 110)
CREAM: Colour = (215, 235, 242)
WHITE: Colour = (250, 250, 250)
SKY: Colour = (215, 222, 210)
HILLS: Colour = (150, 170, 140)

EDGE_COLOUR: Mapping[str, Colour] = {"greenery": GREENERY, "water": WATER, "rock": ROCKERY, "wall": WALL}
# A tile's corners clockwise from the north-west; edge k runs from corner k to corner k + 1 (N, E, S, W).
CORNERS = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
# Turns row vectors (x, y) a quarter clockwise on the board (y down): north to east.
QUARTER_TURN = np.array([[0.0, 1.0], [-1.0, 0.0]])
# Edges other than terrain: a tile of only footpaths and walls has no terrain at all.
PLAIN_EDGES = ("footpath", "wall")
# A grown garden's edges: how often one is a footpath, how often a tile's side is a wall, and how strongly
# the terrain fields pick an edge's terrain (higher: larger patches of one terrain).
FOOTPATH_SHARE, WALL_SHARE = 0.3, 0.06
TERRAIN_CONTRAST = 1.5
# The margin around a garden tile (a share of its side): the board shows between two tiles, so a crop's
# classifier can tell a tile's own edge band from its neighbour's just across the gap.
TILE_INSET = 0.05

CHARACTER_HEIGHT_MM = 30.0
CHARACTER_DIAMETER_MM = 16.0
# The character's footprint centre, as a fraction of the tile's side from its centre (south-east).
CHARACTER_OFFSET = 0.2
CHARACTER_COLOURS: tuple[Colour, ...] = (
    (50, 50, 195),
    (40, 175, 225),
    (90, 150, 40),
    (175, 95, 30),
    (145, 60, 125),
    (55, 50, 45),
)
CHARACTER_GLYPHS = ("disc", "diamond", "star", "bars", "ring", "cross")
# A character's face is the part of its top beyond a chord this many degrees above the centre's horizontal.
FACE_FROM_DEG = 10.0
# A character's glyph: dark on its colour, mid-grey on the darkest colour; either way darker than the face.
GLYPH_INK: Colour = (35, 30, 30)
GLYPH_ON_DARK: Colour = (150, 150, 150)
# Decoration anchors (fractions of the tile's side from its centre) and their sizes (fractions of the side).
ALONE_ANCHORS = ((-0.22, -0.22), (0.22, 0.22), (0.22, -0.22), (-0.22, 0.22))
BESIDE_CHARACTER = ((-0.22, -0.22), (0.22, -0.22), (-0.22, 0.22))
SINGLE_SIZE, SHARED_SIZE = 0.62, 0.42
# How often a decoration joins another on its tile; on crowded boards (training), that and how much likelier
# a character stands on a decorated tile than on a bare one.
SHARE, CROWDED_SHARE = 0.12, 1.0
CROWDED_BESIDE = 12.0

PLAYER_NAMES = ("Ann", "Bo", "Chen", "Dee")


class TangArtist:
    game = GAME

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """A garden grown tile by tile from the starting tile, then decorated, peopled and framed."""
        return self._state(profile, rng, crowded=False)

    def crowded_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """As :meth:`random_state`, but decorations share tiles often and characters stand by them: the small
        decorations a shared tile holds were missed ten times as often as a tile's lone one (100 photos:
        60 % of those beside a miniature, 50 % of pairs)."""
        return self._state(profile, rng, crowded=True)

    def _state(self, profile: BoardProfile, rng: np.random.Generator, crowded: bool) -> Mapping[str, Any]:
        setup = tang_setup(profile)
        tiles = _grow_garden(setup, rng)
        decorations = _decorate(setup, tiles, rng, CROWDED_SHARE if crowded else SHARE)
        cells = sorted(tiles)
        count = int(rng.integers(3, 10))
        names = [str(n) for n in rng.choice(rules.CHARACTERS, count, replace=False)]
        if crowded:
            decorated = {d.cell for d in decorations}
            weights = np.array([CROWDED_BESIDE if cell in decorated else 1.0 for cell in cells])
            spots = rng.choice(len(cells), count, replace=False, p=weights / weights.sum())
        else:
            spots = rng.choice(len(cells), count, replace=False)
        characters = tuple(
            rules.Character(name, cells[int(i)], rules.SIDES[int(rng.integers(4))])
            for name, i in zip(names, spots, strict=True)
        )
        sides = {}
        # Where the profile does not say how many icons a tile of a size shows, as the default profile does.
        shown = {**landscape_icons(default_profile(GAME)), **landscape_icons(profile)}
        for side in rules.SIDES:
            slots: list[rules.Slot] = []
            for region, _, _ in slot_cells(profile, side):
                size = "large" if region.name.startswith("landscape-large") else "small"
                icons = shown[size] if rng.random() < 0.8 else 0
                slots.append(
                    tuple(str(rules.ICONS[int(rng.integers(len(rules.ICONS)))]) for _ in range(icons))
                )
            sides[side] = tuple(slots)
        landscapes = rules.Landscapes(sides["N"], sides["E"], sides["S"], sides["W"])
        grid = tuple(
            tuple(tiles[(r, c)].token if (r, c) in tiles else rules.NO_TILE for c in range(setup.cols))
            for r in range(setup.rows)
        )
        players, carded = _players(setup, names, decorations, rng)
        characters = tuple(ch for ch in characters if ch.name not in carded)
        board = rules.TangBoard(grid, decorations, characters, landscapes)
        return rules.dump(rules.TangTable(setup, board, players))

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        table = valid_table(state)
        board = table.board
        frame = BoardFrame(profile, px_per_mm)
        s = px_per_mm
        image = paper(frame.size_wh, pack.colour(BOARD), pack.grain, rng)
        grid = profile.region("grid")
        _board_print(image, profile, pack, s)
        start = rules.start_cells(table.setup)
        tiles = {(r, c): rules.read_tile(board.tiles[r][c]) for r, c in grid.cells()}
        if all(tiles[cell] is not None for cell in start):
            (x0, y0, _, _), (_, _, x1, y1) = cell_rect_mm(grid, *start[0]), cell_rect_mm(grid, *start[3])
            box = (x0 * s, y0 * s, x1 * s, y1 * s)
            inset = (x1 - x0) * s * 0.01
            polygon(image, _rect(box, inset), START_FRAME, pack, (box[2] - box[0]) * 0.25)
        centres: dict[tuple[int, int], tuple[float, float]] = {}
        for r, c in grid.cells():
            tile = tiles[(r, c)]
            if tile is None:
                continue
            x0, y0, x1, y1 = _box_px(grid, r, c, s)
            jitter = rng.normal(0, (x1 - x0) * 0.008, 2) if (r, c) not in start else np.zeros(2)
            box = (x0 + jitter[0], y0 + jitter[1], x1 + jitter[0], y1 + jitter[1])
            _tile(image, box, tile, pack, rng, inset=0.06 if (r, c) in start else TILE_INSET)
            centres[(r, c)] = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        tile_px = grid.cell_mm[0] * s
        standing = {ch.cell for ch in board.characters}
        marks: list[Mark] = []
        if len(standing) < len(board.characters):
            raise ValueError("two characters share a tile; a miniature needs a tile of its own")
        on_tile: dict[tuple[int, int], list[str]] = {}
        for d in board.decorations:
            on_tile.setdefault(d.cell, []).append(decoration_label(d))
        for cell, labels in on_tile.items():
            anchors: Sequence[tuple[float, float]] = BESIDE_CHARACTER if cell in standing else ALONE_ANCHORS
            if len(labels) > len(anchors):
                raise ValueError(f"{len(labels)} decorations on tile {cell}; at most {len(anchors)} fit")
            size = SHARED_SIZE
            if len(labels) == 1 and cell not in standing:  # alone on its tile: centred and larger
                anchors, size = ((0.0, 0.0),), SINGLE_SIZE
            cx, cy = centres[cell]
            for label, (ax, ay) in zip(sorted(labels), anchors, strict=False):
                centre = (cx + ax * tile_px, cy + ay * tile_px)
                draw_decoration(image, label, centre, tile_px * size, pack, table.setup.tree_species)
                marks.append(
                    Mark(("grid", *cell), label, centre[0] / s, centre[1] / s, tile_px * size / 2 / s)
                )
        for side in rules.SIDES:
            for (region, r, c), slot in landscape_slots(profile, board.landscapes, side):
                if slot:
                    icons = _landscape_tile(image, cell_rect_mm(region, r, c), side, slot, pack, s)
                    marks += [Mark((region.name, r, c), icon, x, y, radius) for icon, (x, y, radius) in icons]
        pieces = []
        diameter_px = round(CHARACTER_DIAMETER_MM * s)
        for ch in board.characters:
            cx, cy = centres[ch.cell]
            body, sash = body_colours(ch.name)
            pieces.append(
                Piece(
                    cx / s + CHARACTER_OFFSET * grid.cell_mm[0],
                    cy / s + CHARACTER_OFFSET * grid.cell_mm[1],
                    CHARACTER_DIAMETER_MM,
                    CHARACTER_HEIGHT_MM,
                    character_top(ch.name, ch.facing, pack, diameter_px),
                    pack.colour(body),
                    None if sash is None else pack.colour(sash),
                )
            )
        return BoardDrawing(image, px_per_mm, tuple(pieces), tuple(marks))


def _grow_garden(setup: rules.TangSetup, rng: np.random.Generator) -> dict[tuple[int, int], rules.Tile]:
    """The starting tile plus 35-60 garden tiles, each laid beside one already down, every two touching
    edges alike (or one a wall), as the rulebook has players lay them."""
    rows, cols = setup.rows, setup.cols
    start = rules.start_cells(setup)
    placed = set(start)
    target = len(start) + int(rng.integers(35, 61))
    while len(placed) < min(target, rows * cols):
        frontier = sorted(
            {
                (r + dr, c + dc)
                for r, c in placed
                for dr, dc in rules.STEPS.values()
                if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr, c + dc) not in placed
            }
        )
        placed.add(frontier[int(rng.integers(len(frontier)))])
    fields = [
        cv2.resize(rng.normal(0, 1, (rows // 3 + 2, cols // 3 + 2)).astype(np.float32), (cols, rows))
        for _ in rules.TERRAINS
    ]

    def edge(cells: Sequence[tuple[int, int]]) -> str:
        """An edge between ``cells`` (one, at the border or a gap), its terrain likeliest where the fields
        are high, so that forests, lakes and rockeries form patches."""
        if rng.random() < FOOTPATH_SHARE:
            return "footpath"
        weights = np.exp(TERRAIN_CONTRAST * np.array([np.mean([f[rc] for rc in cells]) for f in fields]))
        return rules.TERRAINS[int(rng.choice(len(weights), p=weights / weights.sum()))]

    sides: dict[tuple[int, int], list[str]] = {cell: ["", "", "", ""] for cell in placed}
    for cell, side, other, back in rules.touching_edges(setup):
        if cell in placed and other in placed:
            # Laid against each other, both tiles show the same edge (Build the Garden).
            sides[cell][rules.SIDES.index(side)] = sides[other][rules.SIDES.index(back)] = edge((cell, other))
    for cell in sorted(placed):
        for k, value in enumerate(sides[cell]):
            if not value:  # the border, a gap, or within the starting tile
                sides[cell][k] = edge((cell,))
            if rng.random() < WALL_SHARE:  # a wall lies against whatever its neighbour shows
                sides[cell][k] = rules.WALL
    for cell in start:  # the starting tile is the richly coloured one: two terrains at least per quarter
        steps = enumerate(rules.STEPS.values())
        inner = [k for k, (dr, dc) in steps if (cell[0] + dr, cell[1] + dc) in start]
        while len(set(sides[cell]) & set(rules.TERRAINS)) < 2:
            sides[cell][inner[int(rng.integers(len(inner)))]] = rules.TERRAINS[int(rng.integers(3))]
    return {cell: rules.Tile.from_edges(sides[cell]) for cell in sorted(placed)}


def _decorate(
    setup: rules.TangSetup,
    tiles: Mapping[tuple[int, int], rules.Tile],
    rng: np.random.Generator,
    share: float,
) -> tuple[rules.Decoration, ...]:
    """10-35 decorations, trees the commonest, each on a tile whose terrain allows it; a decoration drawn
    for a decorated tile joins the one there with odds ``share``, else it is drawn again."""
    target = int(rng.integers(10, 36))
    kinds = rules.DECORATION_KINDS
    weights = np.array([3.0 if k == "tree" else 1.0 for k in kinds])
    placed: dict[tuple[int, int], list[rules.Decoration]] = {}
    for _ in range(400):
        if sum(len(v) for v in placed.values()) >= target:
            break
        kind = str(kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))])
        needed = rules.DECORATION_TERRAIN.get(kind)
        fits = [cell for cell, tile in sorted(tiles.items()) if needed is None or needed in tile.terrains]
        if not fits:
            continue
        cell = fits[int(rng.integers(len(fits)))]
        here = placed.get(cell, [])
        if len(here) >= 2 or (here and rng.random() > share):
            continue
        species = str(rng.choice(setup.tree_species)) if kind == "tree" else None
        decoration = rules.Decoration(cell, kind, species)
        if all(decoration_label(d) != decoration_label(decoration) for d in here):
            placed[cell] = [*here, decoration]
    return tuple(d for cell in sorted(placed) for d in placed[cell])


def _players(
    setup: rules.TangSetup,
    on_board: Sequence[str],
    decorations: Sequence[rules.Decoration],
    rng: np.random.Generator,
) -> tuple[tuple[rules.TangPlayer, ...], frozenset[str]]:
    """2-4 players, and the miniatures drawn ``on_board`` that stand on a card instead. As in the game,
    every miniature on the board was placed there by the player who influenced it, and each player always
    keeps one more, the active one, on its card; no character has two owners. Where none is left off the
    board to deal (nine drawn on it, four players), the player's own last one stands on its card instead.
    Every decoration on the board was placed from a card its player keeps (the rulebook's Place a
    Decoration), so the cards are the board's decorations dealt out: each type's in proportion to a taste
    for it drawn per player (:func:`_deal`).

    Draws from ``rng`` exactly what the version before did (which dealt some miniatures on the board to
    nobody, drew the cards at random and left a fourth player nothing on its card), so the boards drawn
    after it, and the models trained on them, stay as they were but for that fourth player's."""
    count = int(rng.integers(2, 5))
    on = [str(n) for n in rng.permutation(list(on_board))]
    off = [str(n) for n in rng.permutation([n for n in rules.CHARACTERS if n not in on_board])]
    drawn = []
    carded: list[str] = []
    for p in range(count):
        share = int(rng.integers(1, 4))  # the last player takes what is left on the board
        placed = len(on) if p == count - 1 else share
        owned = (*on[:placed], *off[p : p + 1])
        if not off[p : p + 1]:
            carded += on[placed - 1 : placed]
        on = on[placed:]
        species = rng.permutation(list(setup.tree_species))[
            : int(rng.integers(0, len(setup.tree_species) + 1))
        ]
        taste: dict[str, int] = {key: int(rng.integers(0, 4)) for key in rules.CARD_COUNTS}
        taste |= {f"tree:{sp}": int(rng.integers(1, 3)) for sp in species}
        drawn.append(
            (owned, taste, int(rng.integers(8, 46)), int(rng.integers(0, 7)), int(rng.integers(0, 4)))
        )
    hands = _deal(decorations, [taste for _, taste, *_ in drawn])
    players = tuple(
        rules.TangPlayer(
            name,
            coins,
            rules.TangCards(
                **{key: hand.get(key, 0) for key in rules.CARD_COUNTS},
                trees={t.partition(":")[2]: n for t, n in sorted(hand.items()) if t.startswith("tree:")},
            ),
            owned,
            tokens,
            cubes,
        )
        for name, hand, (owned, _, coins, tokens, cubes) in zip(
            PLAYER_NAMES[:count], hands, drawn, strict=True
        )
    )
    return players, frozenset(carded)


def _deal(
    decorations: Sequence[rules.Decoration], tastes: Sequence[Mapping[str, int]]
) -> list[dict[str, int]]:
    """Per player, its cards (``bird``, ``tree:pine``...): each type's decorations on the board shared out
    in proportion to the players' taste for it plus one half, by largest remainder (ties to the earlier
    player)."""
    on_board: dict[str, int] = {}
    for d in decorations:
        kind = f"tree:{d.species}" if d.kind == "tree" else d.kind
        on_board[kind] = on_board.get(kind, 0) + 1
    hands: list[dict[str, int]] = [{} for _ in tastes]
    for kind, n in on_board.items():
        weights = np.array([taste.get(kind, 0) + 0.5 for taste in tastes])
        quotas = n * weights / weights.sum()
        dealt = np.floor(quotas).astype(int)
        for p in sorted(range(len(tastes)), key=lambda p: (dealt[p] - quotas[p], p))[: n - int(dealt.sum())]:
            dealt[p] += 1
        for hand, k in zip(hands, dealt, strict=True):
            if k:
                hand[kind] = int(k)
    return hands


def _box_px(region: Region, r: int, c: int, s: float) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = cell_rect_mm(region, r, c)
    return x0 * s, y0 * s, x1 * s, y1 * s


def _rect(box: tuple[float, float, float, float], inset: float) -> list[tuple[float, float]]:
    x0, y0, x1, y1 = box
    return [
        (x0 + inset, y0 + inset),
        (x1 - inset, y0 + inset),
        (x1 - inset, y1 - inset),
        (x0 + inset, y1 - inset),
    ]


def _pts(
    centre: tuple[float, float], r: float, unit: Sequence[tuple[float, float]] | NDArray[np.float64]
) -> NDArray[np.float64]:
    """Unit-square glyph coordinates (-1..1, y down) scaled by ``r`` about ``centre``."""
    return np.asarray(unit, dtype=np.float64).reshape(-1, 2) * r + np.asarray(centre, dtype=np.float64)


def _board_print(image: Image, profile: BoardProfile, pack: ArtPack, s: float) -> None:
    """The monochrome printing under the tiles: spaces, landscape slots, a frame and the compass."""
    ink = pack.colour(PRINT)
    grid = profile.region("grid")
    x0, y0, _, _ = cell_rect_mm(grid, 0, 0)
    _, _, x1, y1 = cell_rect_mm(grid, grid.rows - 1, grid.cols - 1)
    stroke(image, _rect((x0 * s, y0 * s, x1 * s, y1 * s), -3 * s), ink, 0.8 * s, closed=True)
    stroke(image, _rect((x0 * s, y0 * s, x1 * s, y1 * s), -1.5 * s), ink, 0.4 * s, closed=True)
    for r, c in grid.cells():
        box = _box_px(grid, r, c, s)
        stroke(image, _rect(box, 1.5 * s), ink, 0.4 * s, closed=True)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        stroke(image, regular_polygon((cx, cy), 4 * s, 4, rotation_deg=0), ink, 0.4 * s, closed=True)
    for side in rules.SIDES:
        for region, r, c in slot_cells(profile, side):
            box = _box_px(region, r, c, s)
            # Printed flat like the rest of the board, so without the pack's fill texture.
            recess = np.round(np.array(_rect(box, 0)) * 16).astype(np.int32)
            cv2.fillPoly(image, [recess], _colour(pack, SLOT), cv2.LINE_AA, 4)
            stroke(image, _rect(box, 0), ink, 0.5 * s, closed=True)
    _compass(image, (26 * s, 26 * s), 20 * s, pack)


def _compass(image: Image, centre: tuple[float, float], radius: float, pack: ArtPack) -> None:
    """A compass rose in the north-west corner whose long solid arm points north: the orientation cue."""
    cx, cy = centre
    ink = pack.colour(PRINT)
    stroke(image, ellipse_points(centre, (radius * 0.62, radius * 0.62)), ink, radius * 0.04, closed=True)
    polygon(
        image, regular_polygon(centre, radius * 0.55, 4, rotation_deg=-45, inner=0.3), BOARD, pack, radius
    )
    north = [(cx, cy - radius * 0.95), (cx + radius * 0.18, cy), (cx - radius * 0.18, cy)]
    polygon(image, north, (40, 40, 40), pack, radius)
    south = [(cx, cy + radius * 0.6), (cx + radius * 0.14, cy), (cx - radius * 0.14, cy)]
    polygon(image, south, BOARD, pack, radius)
    label_text(image, "N", (cx + radius * 0.5, cy - radius * 0.62), radius * 0.32, pack.ink)


def _edges(tile: rules.Tile, rng: np.random.Generator) -> list[str]:
    """The N, E, S, W edges of a tile: its own where it has them, else edges showing exactly its terrains
    (a hand-written state's tile), the rest footpaths and walls."""
    if tile.edges:
        return list(tile.edges)
    terrains = list(tile.terrains)
    edges = list(terrains)
    while len(edges) < 4:
        if terrains and rng.random() < 0.55:
            edges.append(terrains[int(rng.integers(len(terrains)))])
        else:
            edges.append(PLAIN_EDGES[int(rng.random() < 0.3)])
    return [edges[int(i)] for i in rng.permutation(4)]


def _tile(
    image: Image,
    box: tuple[float, float, float, float],
    tile: rules.Tile,
    pack: ArtPack,
    rng: np.random.Generator,
    inset: float,
) -> None:
    """A garden tile: a footpath square framed by four edge bands, one per edge, in the edge's colour."""
    x0, y0, x1, y1 = box
    size = x1 - x0
    h = size / 2 - size * inset
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    _fill(image, _rect(box, size * inset), FOOTPATH, pack)
    edges = _edges(tile, rng)
    for k, edge in enumerate(edges):
        if edge != "footpath":
            depth = 0.12 if edge == "wall" else 0.3
            outer = [CORNERS[k], CORNERS[(k + 1) % 4]]
            band = [*outer, outer[1] * (1 - depth), outer[0] * (1 - depth)]
            _fill(image, _pts(centre, h, band), EDGE_COLOUR[edge], pack)
    lo = np.ceil(np.array(centre) - h).astype(int)
    hi = np.floor(np.array(centre) + h).astype(int)
    _texture(image[lo[1] : hi[1], lo[0] : hi[0]], pack, size)
    turn = np.eye(2)
    for edge in edges:
        along = np.array([1.0, 0.0]) @ turn
        _edge_texture(image, edge, _pts(centre, h, _edge_marks(edge, rng) @ turn), along, size, pack)
        turn = turn @ QUARTER_TURN  # on to the next edge
    stroke(image, _rect(box, size * inset), pack.ink, max(1.0, pack.line * size * 0.5), closed=True)


def _fill(
    image: Image, pts: Sequence[tuple[float, float]] | NDArray[np.float64], colour: Colour, pack: ArtPack
) -> None:
    """A polygon in ``colour`` as the pack prints it, but without its texture (see :func:`_texture`)."""
    contour = np.round(np.asarray(pts, dtype=np.float64).reshape(-1, 2) * 16).astype(np.int32)
    cv2.fillPoly(image, [contour], _colour(pack, colour), cv2.LINE_AA, 4)


def _texture(patch: Image, pack: ArtPack, scale: float) -> None:
    """Give the flat colours of ``patch`` the pack's fill texture, in place, in one pass.

    :func:`polygon` textures each shape it fills with a blend over the shape's bounding box; a board has
    hundreds of tile and landscape shapes, and texturing them one by one took most of the drawing time.
    """
    h, w = patch.shape[:2]
    if h > 0 and w > 0:
        gain = _shade(pack, max(h, w), round(scale))[:h, :w]
        patch[:] = cv2.multiply(patch, gain, scale=1 / 128)


@lru_cache(maxsize=32)
def _shade(pack: ArtPack, size: int, scale: int) -> Image:
    """What :func:`polygon` does to a fill colour, measured on mid-grey: the texture as a gain (128 = 1)."""
    grey = np.full((size + 4, size + 4, 3), 128, np.uint8)
    polygon(grey, _rect((2, 2, size + 2, size + 2), 0), (128, 128, 128), pack, scale, outline=False)
    return np.ascontiguousarray(grey[2 : size + 2, 2 : size + 2])


def _edge_marks(edge: str, rng: np.random.Generator) -> NDArray[np.float64]:
    """Where the texture marks of the north band lie (unit coordinates), to be turned onto the edge."""
    if edge in ("footpath", "wall"):
        return np.array([(x, -0.85 if edge == "footpath" else -0.94) for x in (-0.45, 0.0, 0.45)])
    return np.column_stack([np.sort(rng.uniform(-0.55, 0.55, 3)), np.full(3, -0.84)])


def _edge_texture(
    image: Image,
    edge: str,
    marks: NDArray[np.float64],
    along: NDArray[np.float64],
    size: float,
    pack: ArtPack,
) -> None:
    """Bushes, ripples, stones or bricks at ``marks`` on an edge running ``along``; drawn straight with
    OpenCV as they are too small for the pack's fill texture to show, and a tile has a dozen of them."""
    across = np.array([along[1], -along[0]])  # towards the tile's outside
    thin = max(1, round(size * 0.012))
    for point in marks:
        if edge == "water":
            d = size * 0.05
            wave = [point + along * d * k + across * d * 0.5 * (k % 2) for k in range(-2, 3)]
            stroke(image, wave, _colour(pack, (235, 200, 140)), thin + 1)
        elif edge == "wall":
            d = size * 0.035
            stroke(image, [point - across * d, point + across * d], _colour(pack, (30, 30, 110)), thin + 1)
        else:
            fill = {"greenery": (40, 110, 50), "rock": PEBBLE, "footpath": STONE}[edge]
            centre = tuple(np.round(point * 16).astype(int))
            radius = round(size * (0.04 if edge == "footpath" else 0.05) * 16)
            cv2.circle(image, centre, radius, _colour(pack, fill), -1, cv2.LINE_AA, 4)
            if edge == "footpath":  # pale stones need an edge against the pale path
                cv2.circle(image, centre, radius, pack.ink, thin, cv2.LINE_AA, 4)


@cache
def _colour(pack: ArtPack, base: Colour) -> Colour:
    """``pack.colour``, remembered: the tile textures ask for the same few colours hundreds of times."""
    return pack.colour(base)


def draw_decoration(
    image: Image,
    label: str,
    centre: tuple[float, float],
    size: float,
    pack: ArtPack,
    species: Sequence[str] = rules.DEFAULT_TREE_SPECIES,
) -> None:
    """One decoration by its cell label (``bird``, ``tree:pine``); ``species`` orders the tree designs."""
    kind, _, name = label.partition(":")
    if kind == "tree":
        if name not in species:
            raise ValueError(f"no art for a tree of species {name!r}; the setup lists {', '.join(species)}")
        index = list(species).index(name)
        if index >= len(TREES):
            raise ValueError(f"only {len(TREES)} tree designs exist; {name!r} is species {index + 1}")
        TREES[index](image, centre, size / 2, pack)
    elif kind in DECORATIONS:
        DECORATIONS[kind](image, centre, size / 2, pack)
    else:
        raise ValueError(f"no art for Tang Garden decoration {label!r}")


def _trunk(image: Image, c: tuple[float, float], r: float, pack: ArtPack, top: float = 0.3) -> None:
    polygon(image, _pts(c, r, [(-0.1, top), (0.1, top), (0.13, 0.9), (-0.13, 0.9)]), BARK, pack, r)


def _pine(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    _trunk(image, c, r, pack)
    green = (50, 100, 30)
    if pack.variant == 2:
        for y, w in ((0.25, 0.85), (-0.2, 0.65), (-0.6, 0.42)):
            polygon(image, _pts(c, r, ellipse_points((0, y), (w, 0.22))), green, pack, r)
        return
    tiers = ((0.9, -0.95), (0.75, -0.6), (0.6, -0.25))[: 3 - pack.variant]
    for w, top in reversed(tiers):
        polygon(image, _pts(c, r, [(0, top), (w, top + 0.7), (-w, top + 0.7)]), green, pack, r)


def _bamboo(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    green = (90, 185, 120)
    xs = ((-0.45, 0.0, 0.45), (-0.25, 0.3), (-0.6, -0.2, 0.2, 0.6))[pack.variant]
    for i, x in enumerate(xs):
        top = -0.9 + 0.15 * (i % 2)
        polygon(
            image,
            _pts(c, r, [(x - 0.09, top), (x + 0.09, top), (x + 0.09, 0.9), (x - 0.09, 0.9)]),
            green,
            pack,
            r,
        )
        for y in np.arange(top + 0.35, 0.9, 0.4):
            stroke(image, _pts(c, r, [(x - 0.11, y), (x + 0.11, y)]), pack.ink, max(1.0, r * 0.05))
        leaf = ellipse_points((x + 0.22, top + 0.15), (0.22, 0.07), angle_deg=-30, n=16)
        polygon(image, _pts(c, r, leaf), (60, 150, 80), pack, r)


def _maple(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    red = (40, 80, 215)
    stroke(image, _pts(c, r, [(0, 0.2), (0.1, 0.95)]), pack.colour(BARK), r * 0.1)
    if pack.variant == 2:
        for x, y in ((-0.42, -0.15), (0.42, -0.15), (0, -0.5)):
            polygon(image, _pts(c, r, regular_polygon((x, y), 0.45, 5, inner=0.5)), red, pack, r)
        return
    polygon(
        image, _pts(c, r, regular_polygon((0, -0.1), 0.85, 5 + 2 * pack.variant, inner=0.5)), red, pack, r
    )


def _willow(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    _trunk(image, c, r, pack, top=-0.3)
    yellow_green = (90, 200, 170)
    polygon(
        image,
        _pts(c, r, ellipse_points((0, -0.35), (0.8, 0.55), start=180, end=360, n=24)),
        yellow_green,
        pack,
        r,
    )
    strands = (5, 7, 4)[pack.variant]
    for x in np.linspace(-0.7, 0.7, strands):
        strand = [(x - 0.07, -0.4), (x + 0.07, -0.4), (x + 0.04, 0.55), (x - 0.04, 0.55)]
        polygon(image, _pts(c, r, strand), yellow_green, pack, r)


def _plum(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    stroke(
        image,
        _pts(c, r, [(-0.1, 0.95), (0.05, 0.3), (-0.45, -0.2), (-0.2, -0.7)]),
        pack.colour(BARK),
        r * 0.16,
    )
    stroke(image, _pts(c, r, [(0.05, 0.3), (0.5, -0.3)]), pack.colour(BARK), r * 0.12)
    spots = (
        ((-0.45, -0.2), (-0.2, -0.7), (0.5, -0.3)),
        ((-0.45, -0.2), (-0.2, -0.7), (0.5, -0.3), (0.1, 0.35)),
        ((-0.3, -0.45), (0.45, -0.2)),
    )[pack.variant]
    petal = 0.16 if pack.variant != 2 else 0.24
    for x, y in spots:
        for k in range(5):
            a = k * 2 * np.pi / 5 - np.pi / 2
            disc(
                image,
                _pts(c, r, [(x + petal * np.cos(a), y + petal * np.sin(a))])[0],
                r * petal * 0.85,
                (190, 140, 245),
                pack,
                r,
            )
        disc(image, _pts(c, r, [(x, y)])[0], r * petal * 0.5, (60, 200, 240), pack, r)


TREES = (_pine, _bamboo, _maple, _willow, _plum)


def _peony(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    for angle in (35, 145):
        leaf = ellipse_points(
            (0.55 * np.cos(np.deg2rad(angle)), 0.55 * np.sin(np.deg2rad(angle))),
            (0.4, 0.16),
            angle_deg=angle,
            n=20,
        )
        polygon(image, _pts(c, r, leaf), (60, 140, 60), pack, r)
    outer, inner = ((8, 6), (10, 7), (7, 5))[pack.variant]
    for count, dist, size, colour in (
        (outer, 0.5, 0.33, (110, 40, 200)),
        (inner, 0.25, 0.24, (160, 110, 235)),
    ):
        for k in range(count):
            a = k * 2 * np.pi / count
            disc(
                image, _pts(c, r, [(dist * np.cos(a), dist * np.sin(a) - 0.1)])[0], r * size, colour, pack, r
            )
    disc(image, _pts(c, r, [(0, -0.1)])[0], r * 0.14, (60, 200, 240), pack, r)


def _bird(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    flip = np.array([-1.0 if pack.variant == 2 else 1.0, 1.0])  # which way the bird looks

    def at(pts: Sequence[tuple[float, float]] | NDArray[np.float64]) -> NDArray[np.float64]:
        return _pts(c, r, np.asarray(pts, dtype=np.float64) * flip)

    white, grey, orange = (235, 235, 230), (150, 150, 150), (40, 140, 240)
    polygon(image, at([(-0.5, 0.2), (-0.95, 0.45), (-0.85, 0.1)]), (40, 40, 40), pack, r)
    for x in (-0.05, 0.15):  # legs
        stroke(image, at([(x, 0.4), (x, 0.9)]), pack.colour(orange), r * 0.07)
    polygon(image, at(ellipse_points((0, 0.15), (0.6, 0.35), angle_deg=-15, n=24)), white, pack, r)
    if pack.variant == 1:  # wing raised
        polygon(image, at([(-0.3, 0.0), (0.15, 0.05), (-0.2, -0.75)]), grey, pack, r)
    else:
        polygon(image, at(ellipse_points((-0.1, 0.15), (0.38, 0.18), angle_deg=-10, n=20)), grey, pack, r)
    polygon(image, at([(0.62, -0.4), (0.98, -0.3), (0.62, -0.22)]), orange, pack, r)
    polygon(image, at(ellipse_points((0.5, -0.35), (0.22, 0.22), n=20)), white, pack, r)
    polygon(image, at(ellipse_points((0.47, -0.5), (0.1, 0.08), n=12)), (40, 40, 210), pack, r, outline=False)


def _lotus(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    pad = np.vstack([[(0.0, 0.1)], ellipse_points((0, 0.1), (0.9, 0.8), start=-60, end=240, n=32)])
    polygon(image, _pts(c, r, pad), (60, 150, 70), pack, r)
    petals = (6, 8, 5)[pack.variant]
    polygon(image, _pts(c, r, regular_polygon((0, 0.0), 0.6, petals, inner=0.35)), (205, 175, 250), pack, r)
    disc(image, _pts(c, r, [(0, 0)])[0], r * 0.16, (60, 200, 240), pack, r)


def _fish(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    angle = (0.0, -25.0, 25.0)[pack.variant]
    turn = np.deg2rad(angle)
    # Enlarged: a koi is long and thin, and at the common scale it would look smaller than the rest.
    rot = 1.15 * np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])

    def at(pts: Sequence[tuple[float, float]] | NDArray[np.float64]) -> NDArray[np.float64]:
        return _pts(c, r, (np.asarray(pts, dtype=np.float64) + np.array([0.08, 0.0])) @ rot)

    polygon(image, at([(-0.5, 0.0), (-0.95, -0.4), (-0.95, 0.4)]), (30, 110, 230), pack, r)
    polygon(image, at(ellipse_points((0.05, 0), (0.62, 0.3), n=28)), (40, 135, 245), pack, r)
    polygon(image, at(ellipse_points((0.05, -0.05), (0.2, 0.12), n=16)), WHITE, pack, r, outline=False)
    polygon(image, at([(0.0, -0.25), (-0.3, -0.45), (-0.25, -0.2)]), (30, 110, 230), pack, r)
    polygon(
        image, at(ellipse_points((0.45, -0.08), (0.06, 0.06), n=10)), (20, 20, 20), pack, r, outline=False
    )


def _bridge(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    rise = (0.75, 0.6, 0.9)[pack.variant]
    outer = ellipse_points((0, 0.6), (0.95, rise), start=180, end=360, n=28)
    inner = ellipse_points((0, 0.6), (0.62, rise * 0.62), start=360, end=180, n=28)
    polygon(image, _pts(c, r, np.vstack([outer, inner])), (40, 45, 180), pack, r)
    rail = ellipse_points((0, 0.4), (0.95, rise + 0.1), start=195, end=345, n=20)
    stroke(image, _pts(c, r, rail), pack.colour((30, 30, 120)), r * 0.08)
    for t in np.linspace(200, 340, 5):
        a = np.deg2rad(t)
        x = 0.95 * np.cos(a)
        top = 0.4 + (rise + 0.1) * np.sin(a)
        bottom = 0.6 + rise * np.sin(a)
        stroke(image, _pts(c, r, [(x * 0.95, top), (x * 0.95, bottom)]), pack.colour((30, 30, 120)), r * 0.07)
    stroke(image, _pts(c, r, [(-1.0, 0.75), (1.0, 0.75)]), pack.colour(WATER), r * 0.08)


def _pavilion(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    polygon(
        image,
        _pts(c, r, [(-0.85, 0.65), (0.85, 0.65), (0.85, 0.85), (-0.85, 0.85)]),
        (150, 160, 165),
        pack,
        r,
    )
    for x in (-0.55, 0.55):
        polygon(
            image,
            _pts(c, r, [(x - 0.08, -0.1), (x + 0.08, -0.1), (x + 0.08, 0.65), (x - 0.08, 0.65)]),
            (40, 40, 170),
            pack,
            r,
        )
    roof_colour = (85, 70, 35)
    tiers = ((0.0, 1.0),) if pack.variant != 2 else ((0.0, 1.0), (-0.45, 0.7))
    for y, w in tiers:
        roof = [
            (-w, y - 0.05),
            (-0.75 * w, y - 0.2),
            (-0.45 * w, y - 0.55),
            (0.45 * w, y - 0.55),
            (0.75 * w, y - 0.2),
            (w, y - 0.05),
            (0.7 * w, y + 0.08),
            (-0.7 * w, y + 0.08),
        ]
        polygon(image, _pts(c, r, roof), roof_colour, pack, r)
    top = -0.6 if pack.variant != 2 else -1.05
    disc(image, _pts(c, r, [(0, top)])[0], r * 0.1, (40, 165, 215), pack, r)


DECORATIONS = {
    "peony": _peony,
    "bird": _bird,
    "lotus": _lotus,
    "fish": _fish,
    "bridge": _bridge,
    "pavilion": _pavilion,
}


def body_colours(name: str) -> tuple[Colour, Colour | None]:
    """A miniature's body colour and its sash's: the advanced six wear a sash of their band's colour, so
    that one and the starting character of its colour differ in the largest patch a photo shows of them."""
    index = rules.CHARACTERS.index(name)
    colour = CHARACTER_COLOURS[index % len(CHARACTER_COLOURS)]
    if index < len(CHARACTER_COLOURS):
        return colour, None
    return colour, CHARACTER_COLOURS[(index + 3) % len(CHARACTER_COLOURS)]


def character_top(name: str, facing: str, pack: ArtPack, diameter_px: int) -> Image:
    """A character's top face (BGRA), drawn facing north and turned to ``facing``.

    Sized for the classifier's crop, where a top is some 12 pixels across: its colour (on the advanced six
    with a rim of the band's colour, their sash's), a dark glyph at the back, and a white face (with two
    eyes) filling the front two-fifths, so the top is bright in front and dark behind. A 1 mm band or a
    small wedge at the rim vanished at that scale, and a pale glyph looked like a face: advanced characters
    were taken for the starting ones of their colour, and the facing was read at chance.
    """
    index = rules.CHARACTERS.index(name)
    colour = CHARACTER_COLOURS[index % len(CHARACTER_COLOURS)]
    # The advanced six reuse the starting six's colours with a band of the colour three along and glyphs
    # shifted by three, so two characters of one colour differ in band and glyph.
    advanced = index >= len(CHARACTER_COLOURS)
    glyph = CHARACTER_GLYPHS[(index + 3 * advanced) % len(CHARACTER_GLYPHS)]
    band = CHARACTER_COLOURS[(index + 3) % len(CHARACTER_COLOURS)]
    size = max(diameter_px, 8)
    r = size / 2
    c = r - 0.5  # OpenCV puts pixel centres on integers
    canvas = np.empty((size, size, 3), np.uint8)
    canvas[:] = pack.colour(band if advanced else colour)
    # Thin outlines: at photo scale a top is some 20 pixels across and heavy ink would swallow the glyph.
    fine = size * 0.3
    if advanced:
        disc(canvas, (c, c), 0.8 * r, colour, pack, fine)
    # The face: the disc's front two-fifths, cut off by a chord, white with two dark eyes.
    face = ellipse_points((c, c), (r, r), start=FACE_FROM_DEG, end=180 - FACE_FROM_DEG, n=24)
    face[:, 1] = 2 * c - face[:, 1]  # the arc over the top (y down)
    polygon(canvas, face, WHITE, pack, fine)
    for x in (-0.28, 0.28):
        disc(canvas, _pts((c, c), r, [(x, -0.55)])[0], 0.12 * r, (30, 30, 30), pack, fine)
    # The glyph is darker than its ground, never pale: a pale glyph at the back read as a second face.
    mark = GLYPH_ON_DARK if sum(colour) < 3 * 90 else GLYPH_INK
    for shape, hole in _glyph(glyph):
        polygon(canvas, _pts((c, c + 0.3 * r), 0.3 * r, shape), colour if hole else mark, pack, fine)
    stroke(
        canvas,
        ellipse_points((c, c), (r - 1, r - 1)),
        pack.ink,
        max(1.0, size * pack.line * 0.6),
        closed=True,
    )
    alpha = np.zeros((size, size), np.uint8)
    cv2.circle(alpha, (round(c * 16), round(c * 16)), round(r * 16), 255, -1, cv2.LINE_AA, 4)
    top = np.dstack([canvas, alpha])
    return np.ascontiguousarray(np.rot90(top, k=-rules.SIDES.index(facing)))


def _glyph(glyph: str) -> list[tuple[NDArray[np.float64], bool]]:
    """A character glyph's polygons in unit coordinates, each flagged when it is a hole (the ring's)."""
    if glyph == "ring":
        return [(ellipse_points((0, 0), (1, 1)), False), (ellipse_points((0, 0), (0.5, 0.5)), True)]
    return [(shape, False) for shape in _glyph_shapes(glyph)]


def _glyph_shapes(glyph: str) -> list[NDArray[np.float64]]:
    if glyph == "disc":
        return [ellipse_points((0, 0), (1, 1))]
    if glyph == "diamond":
        return [regular_polygon((0, 0), 1.2, 4)]
    if glyph == "star":
        return [regular_polygon((0, 0), 1.25, 5, inner=0.45)]
    if glyph == "cross":
        arm = np.array([(-0.35, -1.0), (0.35, -1.0), (0.35, -0.35)])
        return [np.vstack([arm @ np.linalg.matrix_power(QUARTER_TURN, k) for k in range(4)])]
    return [np.array([(x - 0.25, -1), (x + 0.25, -1), (x + 0.25, 1), (x - 0.25, 1)]) for x in (-0.45, 0.45)]


def draw_icon(image: Image, icon: str, centre: tuple[float, float], size: float, pack: ArtPack) -> None:
    """One landscape icon on its round cream badge."""
    if icon not in ICONS:
        raise ValueError(f"no art for Tang Garden landscape icon {icon!r}")
    disc(image, centre, size / 2, CREAM, pack, size)
    ICONS[icon](image, centre, size * 0.36, pack)


def _construction(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    if pack.variant == 1:  # a brick wall
        for row in range(3):
            y = -0.6 + row * 0.42
            shift = 0.0 if row % 2 else 0.3
            for x in np.arange(-0.9 + shift, 0.9, 0.6):
                brick = [(x, y), (min(x + 0.55, 0.9), y), (min(x + 0.55, 0.9), y + 0.37), (x, y + 0.37)]
                polygon(image, _pts(c, r, brick), (50, 90, 180), pack, r)
        return
    turn = np.deg2rad(-40)
    rot = np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
    handle = np.array([(-0.1, -0.3), (0.1, -0.3), (0.1, 0.95), (-0.1, 0.95)]) @ rot
    head = np.array([(-0.55, -0.75), (0.55, -0.75), (0.55, -0.35), (-0.55, -0.35)]) @ rot
    polygon(image, _pts(c, r, handle), BARK, pack, r)
    polygon(image, _pts(c, r, head), (110, 110, 115), pack, r)


def _animal(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    brown = (50, 80, 130)
    polygon(image, _pts(c, r, ellipse_points((0, 0.35), (0.45, 0.38), n=24)), brown, pack, r)
    four = ((-0.62, -0.15), (-0.22, -0.55), (0.22, -0.55), (0.62, -0.15))
    toes = ((-0.5, -0.3), (0.0, -0.6), (0.5, -0.3)) if pack.variant == 1 else four
    for x, y in toes:
        disc(image, _pts(c, r, [(x, y)])[0], r * 0.2, brown, pack, r)


def _dragon(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    waves = (1.5, 1.0, 2.0)[pack.variant]
    x = np.linspace(-0.95, 0.35, 24)
    y = 0.32 * np.sin((x + 0.95) * np.pi * waves / 1.3) + 0.2
    thick = np.linspace(0.08, 0.22, 24)
    gold = (40, 175, 225)
    for k in range(3, 22, 5):  # spines along the back
        back = y[k] - thick[k]
        spine = [(x[k] - 0.1, back), (x[k], back - 0.28), (x[k] + 0.1, back)]
        polygon(image, _pts(c, r, spine), gold, pack, r)
    body = np.vstack([np.column_stack([x, y - thick]), np.column_stack([x, y + thick])[::-1]])
    red = (40, 40, 200)
    polygon(image, _pts(c, r, body), red, pack, r)
    hx, hy = 0.6, float(y[-1]) - 0.1
    for dx in (-0.12, 0.08):
        polygon(
            image,
            _pts(c, r, [(hx + dx - 0.07, hy - 0.2), (hx + dx - 0.12, hy - 0.62), (hx + dx + 0.07, hy - 0.2)]),
            gold,
            pack,
            r,
        )
    head = [
        (hx - 0.3, hy - 0.22),
        (hx + 0.2, hy - 0.25),
        (hx + 0.42, hy - 0.05),
        (hx + 0.12, hy + 0.0),
        (hx + 0.42, hy + 0.15),
        (hx + 0.15, hy + 0.28),
        (hx - 0.3, hy + 0.22),
    ]
    polygon(image, _pts(c, r, head), red, pack, r)
    disc(image, _pts(c, r, [(hx + 0.02, hy - 0.1)])[0], r * 0.07, gold, pack, r)


def _sun(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    rays = (12, 8, 16)[pack.variant]
    polygon(image, _pts(c, r, regular_polygon((0, 0), 0.95, rays, inner=0.65)), (30, 130, 240), pack, r)
    disc(image, c, r * 0.55, (40, 210, 250), pack, r)


def _moon(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    outer = ellipse_points((0, 0), (0.85, 0.85), start=60, end=300, n=32)
    inner = ellipse_points((0.8, 0), (0.84, 0.84), start=243, end=117, n=32)
    polygon(image, _pts(c, r, np.vstack([outer, inner])), (235, 215, 175), pack, r)
    if pack.variant == 1:
        polygon(
            image, _pts(c, r, regular_polygon((0.55, -0.45), 0.3, 4, inner=0.4)), (235, 215, 175), pack, r
        )


def _village(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    houses = (
        ((-0.4, 0.3, 0.5), (0.45, 0.45, 0.4))
        if pack.variant != 1
        else ((-0.55, 0.4, 0.36), (0.0, 0.25, 0.42), (0.58, 0.45, 0.34))
    )
    for x, base, w in houses:
        wall = [(x - w, base - w * 0.9), (x + w, base - w * 0.9), (x + w, base + 0.4), (x - w, base + 0.4)]
        polygon(image, _pts(c, r, wall), (110, 170, 215), pack, r)
        roof = [(x - w * 1.2, base - w * 0.85), (x, base - w * 2.0), (x + w * 1.2, base - w * 0.85)]
        polygon(image, _pts(c, r, roof), (90, 70, 50), pack, r)


def _temple(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    tiers = (3, 2, 4)[pack.variant]
    step = 1.5 / tiers
    for k in range(tiers):
        w = 0.95 - k * 0.55 / max(tiers - 1, 1)
        y = 0.8 - k * step
        wall = [(-w * 0.6, y - step * 0.6), (w * 0.6, y - step * 0.6), (w * 0.6, y), (-w * 0.6, y)]
        polygon(image, _pts(c, r, wall), (50, 50, 190), pack, r)
        roof = [(-w, y - step * 0.5), (w, y - step * 0.5), (w * 0.6, y - step), (-w * 0.6, y - step)]
        polygon(image, _pts(c, r, roof), (60, 60, 60), pack, r)
    stroke(image, _pts(c, r, [(0, 0.8 - tiers * step), (0, -0.95)]), pack.colour((60, 60, 60)), r * 0.1)


def _waterfall(image: Image, c: tuple[float, float], r: float, pack: ArtPack) -> None:
    polygon(image, _pts(c, r, [(-0.95, 0.9), (-0.9, -0.7), (-0.3, -0.85), (-0.3, 0.9)]), ROCK, pack, r)
    polygon(image, _pts(c, r, [(0.3, 0.9), (0.3, -0.85), (0.85, -0.6), (0.95, 0.9)]), ROCK, pack, r)
    polygon(image, _pts(c, r, [(-0.3, -0.85), (0.3, -0.85), (0.3, 0.7), (-0.3, 0.7)]), WATER, pack, r)
    for x in (-0.12, 0.12):
        stroke(image, _pts(c, r, [(x, -0.7), (x, 0.6)]), pack.colour(WHITE), r * 0.07)
    polygon(image, _pts(c, r, ellipse_points((0, 0.72), (0.55, 0.18), n=20)), WHITE, pack, r)


ICONS = {
    "construction": _construction,
    "animal": _animal,
    "dragon": _dragon,
    "sun": _sun,
    "moon": _moon,
    "village": _village,
    "temple": _temple,
    "waterfall": _waterfall,
}


def _landscape_tile(
    image: Image,
    rect_mm: tuple[float, float, float, float],
    side: str,
    slot: rules.Slot,
    pack: ArtPack,
    s: float,
) -> list[tuple[str, tuple[float, float, float]]]:
    """A landscape tile in its slot, drawn upright in its own frame and turned to face out of ``side``; per
    icon, where its badge lies on the board (x, y, radius in mm)."""
    x0, y0, x1, y1 = (round(v * s) for v in rect_mm)
    turns = rules.SIDES.index(side)
    # Turn the slot's patch so the tile's top faces the table edge, draw, and turn it back (lossless).
    local = np.ascontiguousarray(np.rot90(image[y0:y1, x0:x1], k=turns))
    h, w = local.shape[:2]
    local[:] = _colour(pack, SKY)
    hills = [(0, 1), (0, 0.75), (0.2, 0.45), (0.4, 0.7), (0.65, 0.35), (0.85, 0.65), (1, 0.5), (1, 1)]
    _fill(local, np.array(hills) * (w, h), HILLS, pack)
    _texture(local, pack, w)
    stroke(local, _rect((0, 0, w, h), 0.5), pack.ink, max(1.0, pack.line * h), closed=True)
    badges = []
    for k, icon in enumerate(slot):
        centre = (w * (k + 0.5) / len(slot), h / 2)
        draw_icon(local, icon, centre, h * 0.85, pack)
        x, y = _unturned(centre, (w, h), turns)
        badges.append((icon, ((x0 + x) / s, (y0 + y) / s, h * 0.85 / 2 / s)))
    image[y0:y1, x0:x1] = np.rot90(local, k=-turns)
    return badges


def _unturned(point: tuple[float, float], size_wh: tuple[int, int], turns: int) -> tuple[float, float]:
    """Where ``point`` of an image turned by ``np.rot90(patch, k=turns)`` (``size_wh``) lies in ``patch``."""
    (x, y), (w, h) = point, size_wh
    for _ in range(turns):
        # One quarter back: rot90's column x of its row y is the patch's row x, counted from its right.
        x, y, w, h = h - y, x, h, w
    return x, y


ARTISTS = (TangArtist(),)
