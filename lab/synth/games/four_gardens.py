"""Four Gardens in the synthetic world: the Scoreboard's God tracks with markers; the Extra-rewards tile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from lab.synth.art import (
    AA,
    ArtPack,
    Colour,
    Image,
    disc,
    label_text,
    paper,
    polygon,
    regular_polygon,
    stroke,
)
from lab.synth.scene import BoardDrawing, Piece, piece_top
from scoring import four_gardens as rules
from vision.geometry import BoardFrame, cell_center_mm, cell_rect_mm
from vision.profile import BoardProfile
from vision.readers.four_gardens import READER_SETUP, marker_spaces, reward_value

GAME = rules.GAME
REWARD_PROFILE = "four-gardens-reward"

GOD_COLOURS: dict[str, Colour] = {
    "red": (50, 55, 195),
    "purple": (135, 60, 120),
    "green": (70, 145, 60),
    "yellow": (40, 195, 225),
}
MARKER_COLOURS: dict[str, Colour] = {
    "white": (232, 235, 235),
    "black": (38, 38, 40),
    "orange": (30, 130, 245),
    "blue": (200, 110, 30),
}
# Drawn only in a state that asks for them, never in a random one: markers the shipped model has not seen,
# for trying out enrolment of a table's own colours.
UNSEEN_MARKER_COLOURS: dict[str, Colour] = {"pink": (175, 120, 240), "teal": (140, 140, 20)}
DRAWN_MARKER_COLOURS = {**MARKER_COLOURS, **UNSEEN_MARKER_COLOURS}
MARKER_DIAMETER_MM, MARKER_HEIGHT_MM = 10.0, 10.0
# Where 1-4 markers sharing a space stand, in mm from its centre: apart, so every one stays visible.
CROWD_OFFSETS_MM: tuple[tuple[tuple[float, float], ...], ...] = (
    ((0.0, 0.0),),
    ((-5.3, 0.0), (5.3, 0.0)),
    ((-5.3, -4.6), (5.3, -4.6), (0.0, 4.8)),
    ((-5.3, -5.3), (5.3, -5.3), (-5.3, 5.3), (5.3, 5.3)),
)

SPACE: Colour = (200, 228, 238)
TITLE: Colour = (40, 70, 110)
BOARD: Colour = (150, 185, 200)
REWARD: Colour = (60, 165, 215)
LEAF: Colour = (70, 160, 90)
STAR: Colour = (40, 200, 245)
LIGHT_INK: Colour = (235, 240, 240)
PLATE_RADIUS = 0.8  # the reward tile's number plate, in widths of its number box


def _plate(pack: ArtPack, tint: Colour | None = None) -> Colour:
    """What printed numbers sit on: light under a dark ink, dark under a light one; ``tint`` shows through."""
    b = SPACE if sum(pack.ink) < 384 else (60, 65, 70)
    if tint is None:
        return b
    return (
        round(0.75 * b[0] + 0.25 * tint[0]),
        round(0.75 * b[1] + 0.25 * tint[1]),
        round(0.75 * b[2] + 0.25 * tint[2]),
    )


def _corners(x0: float, y0: float, x1: float, y1: float, inset: float = 0.0) -> list[tuple[float, float]]:
    return [
        (x0 + inset, y0 + inset),
        (x1 - inset, y0 + inset),
        (x1 - inset, y1 - inset),
        (x0 + inset, y1 - inset),
    ]


def _rules_setup(profile: BoardProfile) -> dict[str, Any]:
    """The profile's setup as the rule engine takes it: without what only the reader uses."""
    return {k: v for k, v in profile.setup.items() if k not in READER_SETUP}


def _tracks(profile: BoardProfile) -> list[str]:
    return [str(t) for t in profile.setup.get("tracks", rules.DEFAULT_TRACKS)]


class FourGardensArtist:
    game = GAME

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """2-4 players whose markers spread around mid-track (they start near the left and climb)."""
        tracks = _tracks(profile)
        count = int(rng.integers(2, 5))
        colours = rng.choice(sorted(MARKER_COLOURS), count, replace=False)
        # The Extra-rewards pile holds distinct numbers, so two players never own the same one.
        rewards = rng.choice(np.arange(1, 10), count, replace=False)
        players: list[dict[str, Any]] = []
        for i, colour in enumerate(colours):
            positions: dict[str, int | None] = {}
            for track in tracks:
                spaces = profile.region(f"track:{track}").cols
                spot = round(rng.normal(spaces * 0.5, spaces * 0.25))
                positions[track] = None if rng.random() < 0.03 else int(np.clip(spot, 0, spaces - 1))
            players.append(
                {
                    "name": f"Player {i + 1}",
                    "colour": str(colour),
                    "positions": positions,
                    "extra_rewards": [int(rewards[i])] if rng.random() < 0.65 else [],
                    "completed_cards": int(rng.integers(5, 13)),
                    "largest_panorama": int(rng.integers(2, 6)),
                }
            )
        # Parsing takes the profile's setup through the rule engine's own validation.
        return rules.dump(rules.parse({"game": GAME, "setup": _rules_setup(profile), "players": players}))

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        table = rules.parse(state)
        frame = BoardFrame(profile, px_per_mm)
        image = paper(frame.size_wh, pack.colour(BOARD), pack.grain, rng)
        s = px_per_mm
        w_mm = profile.size_mm[0]
        for i, track in enumerate(table.setup.tracks):
            if track not in GOD_COLOURS:
                raise ValueError(f"no art for God track {track!r}; tracks: {', '.join(GOD_COLOURS)}")
            region = profile.region(f"track:{track}")
            god = GOD_COLOURS[track]
            top, bottom = (region.origin_mm[1] - 6) * s, (region.origin_mm[1] + region.cell_mm[1] + 6) * s
            polygon(image, _corners(8 * s, top, (w_mm - 6) * s, bottom), god, pack, bottom - top)
            emblem_x = (region.origin_mm[0] / 2 + 4) * s
            _emblem(image, emblem_x, (top + bottom) / 2, (bottom - top) * 0.36, i, pack)
            for r, c in region.cells():
                x0, y0, x1, y1 = (v * s for v in cell_rect_mm(region, r, c))
                size = x1 - x0
                polygon(image, _corners(x0, y0, x1, y1, size * 0.04), _plate(pack, god), pack, size * 0.6)
                value = str(table.setup.value(track, c))
                label_text(image, value, ((x0 + x1) / 2, (y0 + y1) / 2), (y1 - y0) * 0.36, pack.ink)
        _title(image, profile, pack, s)
        pieces = []
        for (track, pos), colours in marker_spaces(table, DRAWN_MARKER_COLOURS).items():
            cx, cy = cell_center_mm(profile.region(f"track:{track}"), 0, pos)
            spread = 1.5 if len(colours) == 1 else 0.2
            for colour, (dx, dy) in zip(colours, CROWD_OFFSETS_MM[len(colours) - 1], strict=True):
                jx, jy = np.clip(rng.normal(0, spread / 2, 2), -spread, spread)
                pieces.append(
                    Piece(
                        cx + dx + float(jx),
                        cy + dy + float(jy),
                        MARKER_DIAMETER_MM,
                        MARKER_HEIGHT_MM,
                        marker_top(colour, s),
                        DRAWN_MARKER_COLOURS[colour],
                    )
                )
        return BoardDrawing(image, px_per_mm, tuple(pieces))


def marker_top(colour: str, px_per_mm: float) -> Image:
    """A marker's top face: wooden markers are not printed, so the pack leaves them alone."""
    b = DRAWN_MARKER_COLOURS[colour]
    rim = int(b[0] * 0.6), int(b[1] * 0.6), int(b[2] * 0.6)  # a darker rim reads as the marker's edge
    return piece_top(round(MARKER_DIAMETER_MM * px_per_mm), b, rim)


def _emblem(image: Image, cx: float, cy: float, radius: float, index: int, pack: ArtPack) -> None:
    """A God's medallion with a star of 4 to 7 rays, one per track: tracks differ beyond their colour."""
    disc(image, (cx, cy), radius, _plate(pack), pack, 2 * radius)
    polygon(image, regular_polygon((cx, cy), radius * 0.75, 4 + index, inner=0.45), STAR, pack, 2 * radius)


def _pagoda(image: Image, cx: float, base: float, height: float, pack: ArtPack) -> None:
    """The game's rotating pagoda, three roofs high."""
    tier = height / 3
    for k in range(3):
        y = base - k * tier
        half = height * (0.5 - 0.1 * k)
        polygon(
            image, _corners(cx - half * 0.6, y - tier * 0.5, cx + half * 0.6, y), SPACE, pack, height * 0.5
        )
        roof = [
            (cx - half, y - tier * 0.45),
            (cx + half, y - tier * 0.45),
            (cx + half * 0.55, y - tier),
            (cx - half * 0.55, y - tier),
        ]
        polygon(image, roof, GOD_COLOURS["red"], pack, height * 0.5)


def _title(image: Image, profile: BoardProfile, pack: ArtPack, s: float) -> None:
    """The title band across the top edge: the Scoreboard's orientation cue."""
    w_mm = profile.size_mm[0]
    first = min(r.origin_mm[1] for r in profile.regions)
    top, bottom = 5 * s, (first - 10) * s
    height = bottom - top
    polygon(image, _corners(8 * s, top, (w_mm - 6) * s, bottom), TITLE, pack, height)
    _pagoda(image, 24 * s, bottom - height * 0.1, height * 0.8, pack)
    label_text(image, "FOUR GARDENS", (w_mm * s / 2, (top + bottom) / 2), height * 0.45, LIGHT_INK)
    rule = bottom - height * 0.12
    stroke(image, [(40 * s, rule), ((w_mm - 20) * s, rule)], LIGHT_INK, max(1.0, 0.5 * s))


class FourGardensRewardArtist:
    """The Extra-rewards bonus tile, photographed as its own little board (profile ``four-gardens-reward``).

    A tile has no scoring state of its own (its number feeds a player's ``extra_rewards``), so its state is
    the plain dict ``{"tile": "extra-rewards", "value": N}`` with N from 1 to 9; its one cell reads
    ``str(N)``.
    """

    game = GAME
    profile_name = REWARD_PROFILE

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        return {"tile": "extra-rewards", "value": int(rng.integers(1, 10))}

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        value = reward_value(state)
        frame = BoardFrame(profile, px_per_mm)
        image = paper(frame.size_wh, pack.colour(REWARD), pack.grain, rng)
        w, h = frame.size_wh
        border = 1.5 * px_per_mm
        polygon(image, _corners(0, 0, w, h, border), REWARD, pack, w * 0.5)
        x0, y0, x1, y1 = (v * px_per_mm for v in cell_rect_mm(profile.region("number"), 0, 0))
        # The star and its leaves fill the strip above the plate: the tile's top, whatever the digit.
        strip = (y0 + y1) / 2 - PLATE_RADIUS * (x1 - x0)
        polygon(
            image, regular_polygon((w / 2, strip * 0.52), strip * 0.4, 5, inner=0.45), STAR, pack, w * 0.4
        )
        for side in (-1, 1):
            leaf = regular_polygon(
                (w / 2 + side * strip * 0.85, strip * 0.58), strip * 0.25, 2, side * 30, 0.4
            )
            polygon(image, leaf, LEAF, pack, w * 0.3)
        draw_digit(image, value, (x0, y0, x1, y1), pack)
        return BoardDrawing(image, px_per_mm)


# label_text prints one typeface; a tile's numeral face belongs to its printing style, one per variant.
DIGIT_FONTS = (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX)


def draw_digit(image: Image, value: int, box: tuple[float, float, float, float], pack: ArtPack) -> None:
    """The tile's big number filling ``box`` on a plate; a 6 or 9 is underlined to survive any rotation."""
    x0, y0, x1, y1 = box
    size = x1 - x0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    disc(image, (cx, cy), size * PLATE_RADIUS, _plate(pack), pack, size)
    font = DIGIT_FONTS[pack.variant]
    scale = size * 0.76 / 22.0
    weight = max(1, round(size * (0.11 if pack.variant != 1 else 0.08)))
    text = str(value)
    (tw, th), _ = cv2.getTextSize(text, font, scale, weight)
    baseline = cy + th / 2 - size * 0.06
    cv2.putText(image, text, (round(cx - tw / 2), round(baseline)), font, scale, pack.ink, weight, AA)
    if value in (6, 9):
        y = baseline + size * 0.15
        stroke(image, [(cx - tw * 0.45, y), (cx + tw * 0.45, y)], pack.ink, weight)


ARTISTS = (FourGardensArtist(), FourGardensRewardArtist())
