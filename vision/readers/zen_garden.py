"""Zen Garden's reader: each tile's floor, path, corner and decoration, and the coin marker's space."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import zen_garden
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import (
    IGNORE,
    CellLabels,
    Head,
    OneEach,
    OneOf,
    ReaderBase,
    Reading,
    ShiftedLook,
    class_index,
    likeliest,
)

# The coin track's classes: no marker, the marker.
NO_COIN, COIN = ".", "m"


class ZenReader(ReaderBase):
    """One Zen Garden board is one player's garden: :meth:`assemble` returns that player's entry."""

    game: str = zen_garden.GAME
    regions: tuple[str, ...] = ("grid", "coins")
    printed_sure: bool = True
    heads: tuple[Head, ...] = (
        Head("floor", tuple(zen_garden.FLOOR_LETTERS), zen_garden.FLOOR_LETTERS),
        Head(
            "path",
            tuple(zen_garden.PATH_LETTERS),
            {k: f"{v} path" for k, v in zen_garden.PATH_LETTERS.items()},
        ),
        # The path's corner shows in the picture itself.
        Head("corner", tuple(zen_garden.CORNERS), dict.fromkeys(zen_garden.CORNERS, "")),
        Head("decor", tuple(zen_garden.DECOR_LETTERS), zen_garden.DECOR_LETTERS),
        Head("marker", (NO_COIN, COIN)),
    )
    # Read through a strided first layer (its model card): 64 pixels cost what 32 would, and read as well as
    # 48 at full cost did (classify 4.7 -> 2.4 ms a board).
    crop_px: int = 64
    # A decoration a few pixels across in a whole table's photo (a gate, a bench) is read surely one way from
    # one cut and the other from a cut a millimetre off: a tile read below 0.99 is read again from four cuts
    # around it (Tang Garden's and Kingdomino's look; docs/experiments.md, Zen Garden).
    shifted_look: ShiftedLook | None = ShiftedLook(1.0, 0.99)
    # Each of the 90 tiles is printed once (the corner is where its path bends, not which tile it is).
    one_each: OneEach | None = OneEach("grid", ("floor", "path", "decor"))

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("marker",) if region == "coins" else ("floor", "path", "corner", "decor")

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        # One coin marker, on the space of the coins held: space r * cols + c.
        return (OneOf("marker", ".", tuple(("coins", r, c) for r, c in profile.region("coins").cells())),)

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        out = {h.name: IGNORE for h in self.heads}
        if key[0] == "coins":
            out["marker"] = class_index(self.heads[4], label)
        elif label != zen_garden.EMPTY_CODE:
            out["floor"] = class_index(self.heads[0], label[0])
            out["path"] = class_index(self.heads[1], label[1])
            out["corner"] = class_index(self.heads[2], label[2:4])
            out["decor"] = class_index(self.heads[3], label[4])
        return out

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        grid = profile.region("grid")
        rows = []
        for r in range(grid.rows):
            codes = []
            for c in range(grid.cols):
                reading = readings[("grid", r, c)]
                codes.append("".join(reading[h][0] for h in ("floor", "path", "corner", "decor")))
            rows.append(" ".join(codes))
        coins = self.exactly_one(profile)[0]
        _, r, c = coins.keys[likeliest(readings, coins)]
        coin_value = r * profile.region("coins").cols + c
        return {"tiles": rows, "coins": coin_value, "mission_points": dict(hand.get("mission_points", {}))}

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        # A board is one player's garden: the state's first player (a table state names that player first).
        garden = zen_garden.parse(state).players[0]
        coins = profile.region("coins")
        return {
            "grid": [[zen_garden.tile_code(tile) for tile in row] for row in garden.tiles],
            "coins": [
                [COIN if r * coins.cols + c == garden.coins else NO_COIN for c in range(coins.cols)]
                for r in range(coins.rows)
            ],
        }


READERS = (ZenReader(),)
