"""Alice's Garden in the synthetic world: tetromino-filled boards drawn with procedural symbols."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lab.synth.art import ArtPack, Colour, Image, disc, label_text, paper, polygon, regular_polygon, stroke
from lab.synth.scene import BoardDrawing
from scoring import alices_garden as rules
from vision.geometry import BoardFrame, cell_rect_mm
from vision.profile import BoardProfile

GAME = rules.GAME

# The five free tetrominoes (O, L, T, I, S); rotations and flips are generated.
TETROMINOES = (
    ((0, 0), (0, 1), (1, 0), (1, 1)),
    ((0, 0), (1, 0), (2, 0), (2, 1)),
    ((0, 0), (0, 1), (0, 2), (1, 1)),
    ((0, 0), (1, 0), (2, 0), (3, 0)),
    ((0, 0), (0, 1), (1, 1), (1, 2)),
)
SYMBOLS = (rules.ROSE, rules.MUSHROOM, rules.TREE, rules.CHESS, rules.GARDENER)

GRASS: Colour = (90, 160, 95)
CHESS_LIGHT: Colour = (215, 225, 230)
CHESS_DARK: Colour = (70, 80, 90)
TILE: Colour = (200, 235, 245)


def _orientations(shape: tuple[tuple[int, int], ...]) -> list[tuple[tuple[int, int], ...]]:
    found = set()
    cells = list(shape)
    for flip in (False, True):
        pts = [(r, -c) if flip else (r, c) for r, c in cells]
        for _ in range(4):
            pts = [(c, -r) for r, c in pts]
            r0 = min(r for r, _ in pts)
            c0 = min(c for _, c in pts)
            found.add(tuple(sorted((r - r0, c - c0) for r, c in pts)))
    return sorted(found)


ORIENTED = [o for shape in TETROMINOES for o in _orientations(shape)]


def _setup(profile: BoardProfile) -> rules.AliceSpec:
    return rules.parse_spec(profile.setup, "setup")


class AliceArtist:
    game = GAME

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """Tetrominoes dropped at random until the board jams, then a few one-square bonus tiles."""
        spec = _setup(profile)
        grid = [[rules.EMPTY] * spec.cols for _ in range(spec.rows)]
        fill_target = rng.uniform(0.75, 1.0) * spec.rows * spec.cols
        # As a player would: from an empty square, try every way a tetromino covers it before giving up.
        stuck: set[tuple[int, int]] = set()
        while sum(row.count(rules.EMPTY) for row in grid) > spec.rows * spec.cols - fill_target:
            free = [
                (r, c)
                for r in range(spec.rows)
                for c in range(spec.cols)
                if grid[r][c] == rules.EMPTY and (r, c) not in stuck
            ]
            if not free:
                break
            r0, c0 = free[int(rng.integers(len(free)))]
            placed = False
            for shape in (ORIENTED[i] for i in rng.permutation(len(ORIENTED))):
                for dr, dc in shape:
                    cells = [(r0 - dr + r, c0 - dc + c) for r, c in shape]
                    if all(
                        0 <= r < spec.rows and 0 <= c < spec.cols and grid[r][c] == rules.EMPTY
                        for r, c in cells
                    ):
                        for r, c in cells:
                            grid[r][c] = SYMBOLS[rng.integers(len(SYMBOLS))]
                        placed = True
                        break
                if placed:
                    break
            if not placed:
                stuck.add((r0, c0))
        empties = [(r, c) for r in range(spec.rows) for c in range(spec.cols) if grid[r][c] == rules.EMPTY]
        for i in rng.permutation(len(empties))[: int(rng.integers(0, 4))]:
            r, c = empties[i]
            grid[r][c] = SYMBOLS[rng.integers(len(SYMBOLS))]
        board = rules.AliceBoard(tuple("".join(row) for row in grid), int(rng.integers(0, 2)), spec)
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
        image = paper(frame.size_wh, pack.colour((150, 190, 205)), pack.grain, rng)
        region = profile.region("grid")
        s = px_per_mm
        for r, c in region.cells():
            x0, y0, x1, y1 = (v * s for v in cell_rect_mm(region, r, c))
            on_path = c in board.spec.chess_columns
            ground = (CHESS_LIGHT if (r + c) % 2 else CHESS_DARK) if on_path else GRASS
            polygon(image, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], ground, pack, x1 - x0)
            label = board.rows[r][c]
            if label != rules.EMPTY:
                _tile(image, (x0, y0, x1, y1), label, pack, rng)
        _player_aid(image, profile, pack, s)
        return BoardDrawing(image, px_per_mm)


def _tile(
    image: Image, box: tuple[float, float, float, float], label: str, pack: ArtPack, rng: np.random.Generator
) -> None:
    x0, y0, x1, y1 = box
    size = x1 - x0
    inset = size * 0.03
    jitter = rng.normal(0, size * 0.01, 2)
    corners = (
        np.array(
            [
                (x0 + inset, y0 + inset),
                (x1 - inset, y0 + inset),
                (x1 - inset, y1 - inset),
                (x0 + inset, y1 - inset),
            ]
        )
        + jitter
    )
    polygon(image, corners, TILE, pack, size)
    centre = ((x0 + x1) / 2 + jitter[0], (y0 + y1) / 2 + jitter[1])
    draw_symbol(image, label, centre, size * 0.8, pack)


def draw_symbol(image: Image, label: str, centre: tuple[float, float], size: float, pack: ArtPack) -> None:
    """One Alice's Garden symbol; the pack's variant picks among three geometries per symbol."""
    cx, cy = centre
    r = size / 2
    v = pack.variant
    if label == rules.ROSE:
        if v == 0:
            for k in range(5):
                a = k * 2 * np.pi / 5
                disc(
                    image,
                    (cx + 0.4 * r * np.cos(a), cy + 0.4 * r * np.sin(a)),
                    0.35 * r,
                    (60, 40, 200),
                    pack,
                    size,
                )
        else:
            polygon(image, regular_polygon(centre, 0.8 * r, 6 + 2 * v, inner=0.55), (60, 40, 200), pack, size)
        disc(image, centre, 0.22 * r, (40, 200, 240), pack, size)
    elif label == rules.MUSHROOM:
        polygon(
            image,
            [
                (cx - 0.18 * r, cy),
                (cx + 0.18 * r, cy),
                (cx + 0.22 * r, cy + 0.75 * r),
                (cx - 0.22 * r, cy + 0.75 * r),
            ],
            (225, 235, 240),
            pack,
            size,
        )
        cap = regular_polygon((cx, cy), 0.75 * r, 3 + v, rotation_deg=-90) if v else None
        if cap is None:
            t = np.linspace(np.pi, 2 * np.pi, 24)
            cap = np.column_stack([cx + 0.8 * r * np.cos(t), cy + 0.6 * r * np.sin(t)])
        polygon(image, cap, (200, 90, 40), pack, size)
    elif label == rules.TREE:
        polygon(
            image,
            [
                (cx - 0.12 * r, cy + 0.2 * r),
                (cx + 0.12 * r, cy + 0.2 * r),
                (cx + 0.12 * r, cy + 0.85 * r),
                (cx - 0.12 * r, cy + 0.85 * r),
            ],
            (40, 70, 110),
            pack,
            size,
        )
        if v == 1:
            disc(image, (cx, cy - 0.15 * r), 0.6 * r, (50, 140, 40), pack, size)
        else:
            for k, w in enumerate((0.75, 0.6, 0.45)[: 2 + (v == 0)]):
                top = cy - 0.85 * r + k * 0.3 * r
                polygon(
                    image,
                    [(cx, top), (cx + w * r, top + 0.6 * r), (cx - w * r, top + 0.6 * r)],
                    (50, 140, 40),
                    pack,
                    size,
                )
    elif label == rules.CHESS:
        base = [
            (cx - 0.55 * r, cy + 0.8 * r),
            (cx + 0.55 * r, cy + 0.8 * r),
            (cx + 0.4 * r, cy + 0.55 * r),
            (cx - 0.4 * r, cy + 0.55 * r),
        ]
        polygon(image, base, (40, 40, 45), pack, size)
        if v == 2:  # a rook
            polygon(
                image,
                [
                    (cx - 0.3 * r, cy + 0.55 * r),
                    (cx + 0.3 * r, cy + 0.55 * r),
                    (cx + 0.35 * r, cy - 0.6 * r),
                    (cx - 0.35 * r, cy - 0.6 * r),
                ],
                (40, 40, 45),
                pack,
                size,
            )
        else:  # a pawn
            polygon(
                image,
                [
                    (cx - 0.25 * r, cy + 0.55 * r),
                    (cx + 0.25 * r, cy + 0.55 * r),
                    (cx + 0.1 * r, cy - 0.2 * r),
                    (cx - 0.1 * r, cy - 0.2 * r),
                ],
                (40, 40, 45),
                pack,
                size,
            )
            disc(image, (cx, cy - 0.4 * r), 0.3 * r, (40, 40, 45), pack, size)
    elif label == rules.GARDENER:
        card = [
            (cx - 0.45 * r, cy - 0.3 * r),
            (cx + 0.45 * r, cy - 0.3 * r),
            (cx + 0.45 * r, cy + 0.85 * r),
            (cx - 0.45 * r, cy + 0.85 * r),
        ]
        polygon(image, card, (235, 235, 240), pack, size)
        disc(image, (cx, cy - 0.55 * r), 0.28 * r, (150, 190, 235), pack, size)
        suit = regular_polygon((cx, cy + 0.28 * r), 0.28 * r, 4 if v != 1 else 3)
        polygon(image, suit, (40, 40, 200), pack, size, outline=False)
    else:
        raise ValueError(f"no art for Alice's Garden label {label!r}")


def _player_aid(image: Image, profile: BoardProfile, pack: ArtPack, s: float) -> None:
    """The strip of scoring reminders along the bottom edge: the board's asymmetry cue."""
    w_mm, h_mm = profile.size_mm
    grid = profile.region("grid")
    top = (grid.origin_mm[1] + grid.rows * grid.pitch_mm[1] + 8) * s
    bottom = (h_mm - 8) * s
    left, right = 12 * s, (w_mm - 12) * s
    polygon(
        image,
        [(left, top), (right, top), (right, bottom), (left, bottom)],
        (120, 200, 235),
        pack,
        bottom - top,
    )
    step = (right - left) / len(SYMBOLS)
    for i, label in enumerate(SYMBOLS):
        cx = left + step * (i + 0.5)
        draw_symbol(image, label, (cx - step * 0.18, (top + bottom) / 2), (bottom - top) * 0.55, pack)
        label_text(
            image,
            ("+5", "x2", "+8", "<>", "0")[i],
            (cx + step * 0.22, (top + bottom) / 2),
            (bottom - top) * 0.25,
            pack.ink,
        )
    stroke(image, [(left, top), (right, top)], pack.ink, max(1.0, s * 0.6))


ARTISTS = (AliceArtist(),)
