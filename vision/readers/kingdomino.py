"""Kingdomino's reader: each square's terrain (or the castle, or no square) and its crowns, two heads.

A kingdom has no printed board: its squares are the grid (the profile's one region), and its corners are the
outer corners of the squares' top faces. A kingdom scores alike whichever way up it lies, so no layout model
turns it (``turns_freely``): it is read from whichever corner was found first, or the corners a player gives.

A square has no up either: each is read four ways, turned by quarters, and its two heads averaged over the
four; a square read unsure is also read from crops cut a little off its place. A kingdom holds exactly one
castle: the square likeliest to show it does, and no other. On the real kingdoms' folds
(``docs/experiments.md``) these took the scores read exactly from 74 % of kingdoms to 89 %, and the wrong
scores given without a flag from 2 % to none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from scoring import kingdomino
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import (
    CellLabels,
    Counted,
    Head,
    Landmark,
    ReaderBase,
    Reading,
    ShiftedLook,
    Summed,
    TurnedLook,
    class_index,
    grid_classes,
)

TERRAIN_CLASSES = (*kingdomino.TERRAINS, kingdomino.CASTLE, kingdomino.EMPTY)
CROWN_CLASSES = tuple(str(n) for n in range(kingdomino.MAX_CROWNS + 1))


class KingdominoReader(ReaderBase):
    game: str = kingdomino.GAME
    regions: tuple[str, ...] = ("grid",)
    heads: tuple[Head, ...] = (Head("terrain", TERRAIN_CLASSES), Head("crowns", CROWN_CLASSES))
    # A crown is a sixth of a square's side: 96 pixels over the square and a little of its neighbours show
    # it some fifteen pixels across (at 64, crowns were misread half as often again: docs/experiments.md).
    context_mm: float = 2.0
    crop_px: int = 96
    turns_freely: bool = True
    # A square left empty at the kingdom's edge shows the table: on a cloth of a terrain's colour, flagged.
    edge_bare: tuple[str, str] | None = ("terrain", kingdomino.EMPTY)
    # A kingdom holds 8 to 25 squares (issue #60): fewer read is bare table or loose dominoes outlined.
    fewest_laid: int = 8
    # Another game's board read as a kingdom shows castles all over it, each square unlike a terrain; an
    # outline on bare table shows neither a castle nor a crown.
    landmark: Landmark | None = Landmark("terrain", kingdomino.CASTLE, "crowns", "0", "crown")
    ruled_out: str = "a kingdom has one castle"
    # The model learnt both heads from crops turned by quarters at random (the recipe's turned_heads).
    turned_look: TurnedLook | None = TurnedLook("terrain", kingdomino.EMPTY, unturned=("terrain", "crowns"))
    # A crown half cut off by a crop placed a millimetre off is read one way from one cut and another from the
    # next: an unsure square is read again from four cuts around it (Tang Garden's, as its icons are).
    shifted_look: ShiftedLook | None = ShiftedLook(1.0, 0.95)

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("terrain", "crowns")

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        # The castle and a bare place show no crown: the crowns head learns that too.
        terrain, _, crowns = label.partition(":")
        return {
            "terrain": class_index(self.heads[0], terrain),
            "crowns": class_index(self.heads[1], crowns or "0"),
        }

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted | Summed, ...]:
        # A flat castle tile's cobbles share a swamp's colours, and the 3D castle hides its square's art.
        grid = profile.region("grid")
        keys = tuple(("grid", r, c) for r in range(grid.rows) for c in range(grid.cols))
        return (Counted("terrain", kingdomino.CASTLE, keys, 1),)

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        terrains = grid_classes(profile, readings, "grid", "terrain")
        crowns = grid_classes(profile, readings, "grid", "crowns")
        cells = [
            [
                t if t in (kingdomino.CASTLE, kingdomino.EMPTY) else f"{t}:{n}"
                for t, n in zip(tr, cr, strict=True)
            ]
            for tr, cr in zip(terrains, crowns, strict=True)
        ]
        return {"game": self.game, "cells": cells, "setup": {**profile.setup, **_setup(hand)}}

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        kingdom = kingdomino.parse_board(state)
        return {"grid": [[kingdomino.cell_text(cell) for cell in row] for row in kingdom.cells]}


def _setup(hand: Mapping[str, Any]) -> Mapping[str, Any]:
    setup = hand.get("setup", {})
    return setup if isinstance(setup, Mapping) else {}


def sized(profile: BoardProfile, hand: Mapping[str, Any]) -> BoardProfile:
    """The profile of a kingdom as large as the set-up says (the hand entry's, else the profile's): the
    Mighty Duel's 7 x 7 frame, its squares as large as the profile's."""
    size = kingdomino.parse_setup({**profile.setup, **_setup(hand)}).size
    grid = profile.region("grid")
    if (grid.rows, grid.cols) == (size, size):
        return profile
    w, h = profile.size_mm
    sized_grid = replace(grid, rows=size, cols=size)
    return replace(
        profile,
        size_mm=(w * size / grid.cols, h * size / grid.rows),
        regions=tuple(sized_grid if r.name == "grid" else r for r in profile.regions),
        setup={**profile.setup, "size": size},
    )


def other_sizes(profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[BoardProfile, ...]:
    """Where the set-up does not say how large the kingdom is, the profile at each other size the game has:
    which one a kingdom in a photo is, its squares tell."""
    if "size" in _setup(hand):
        return ()
    own = profile.region("grid").rows
    return tuple(sized(profile, {"setup": {"size": n}}) for n in kingdomino.SIZES if n != own)


READERS = (KingdominoReader(),)
