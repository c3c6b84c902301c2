"""Each game's :class:`~vision.reader_api.Reader`, and the registry the pipeline, training and benchmarks
look a board's reader up in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import alices_garden, custom_grid, four_gardens, sanssouci, tang_garden, zen_garden
from vision import read_tang
from vision.cells import CellKey
from vision.profile import BoardProfile
from vision.read_four_gardens import READER_SETUP, FourGardensReader, RewardReader, is_reward_profile
from vision.read_tang import TangReader
from vision.reader_api import (
    IGNORE,
    Counted,
    Distinct,
    Head,
    Known,
    Needs,
    OneOf,
    Reader,
    Reading,
    ShiftedLook,
    Touching,
    TurnedLook,
    class_index,
    grid_classes,
    likeliest,
)

__all__ = ["IGNORE", "READERS", "Head", "Reader", "Reading", "get_reader", "reader_for", "rules_setup"]


class AliceReader:
    game: str = alices_garden.GAME
    regions: tuple[str, ...] = ("grid",)
    # Empty squares look different on grass and on the chess path; both read as empty for scoring.
    heads: tuple[Head, ...] = (
        Head("cell", ("empty_grass", "empty_chess", "rose", "mushroom", "tree", "chess_piece", "gardener")),
    )
    context_mm: float = 3.0
    crop_px: int = 32
    lean_up: bool = False
    turned_look: TurnedLook | None = None
    shifted_look: ShiftedLook | None = None
    slant_limit_deg: float | None = None
    _letters: Mapping[str, str] = {
        "empty_grass": alices_garden.EMPTY,
        "empty_chess": alices_garden.EMPTY,
        "rose": alices_garden.ROSE,
        "mushroom": alices_garden.MUSHROOM,
        "tree": alices_garden.TREE,
        "chess_piece": alices_garden.CHESS,
        "gardener": alices_garden.GARDENER,
    }

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("cell",)

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        return ()

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        return ()

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted, ...]:
        return ()

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        return ()

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        return ()

    def known(self, profile: BoardProfile) -> tuple[Known, ...]:
        # The chess path is printed down its columns: an empty square there is a path square, elsewhere grass.
        chess = alices_garden.parse_spec(profile.setup, "setup").chess_columns
        classes = frozenset(self.heads[0].classes)
        cells = profile.region("grid").cells()
        path = tuple(("grid", r, c) for r, c in cells if c in chess)
        grass = tuple(("grid", r, c) for r, c in cells if c not in chess)
        return Known("cell", path, classes - {"empty_grass"}), Known("cell", grass, classes - {"empty_chess"})

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        if label == alices_garden.EMPTY:
            spec = alices_garden.parse_spec(profile.setup, "setup")
            name = "empty_chess" if key[2] in spec.chess_columns else "empty_grass"
        else:
            name = next(k for k, v in self._letters.items() if v == label and not k.startswith("empty"))
        return {"cell": class_index(self.heads[0], name)}

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        cells = grid_classes(profile, readings, "grid", "cell")
        rows = ["".join(self._letters[v] for v in row) for row in cells]
        return {
            "game": self.game,
            "rows": rows,
            "unplaced_bonus_tiles": hand.get("unplaced_bonus_tiles", 0),
            "setup": dict(profile.setup),
        }

    def notes(self, profile: BoardProfile, readings: Mapping[CellKey, Reading]) -> tuple[str, ...]:
        return ()


NOBLE_COLOURS = ("red", "blue", "yellow", "green")


class SanssouciReader:
    game: str = sanssouci.GAME
    regions: tuple[str, ...] = ("terrace", "grid")
    heads: tuple[Head, ...] = (
        Head("square", (sanssouci.EMPTY, sanssouci.PREPRINTED, sanssouci.SYMBOL, sanssouci.GARDENER)),
        Head("noble", ("none", *NOBLE_COLOURS)),
    )
    # A nobleman's top lands up to a square's width from his footprint under a wide lens: half a square of
    # context on each side shows where his body rises from, which tells his square from the one he leans over
    # (at 6 mm, 0.28 % of cells were read with a neighbour's nobleman). 56 pixels keep the detail of 36 at 6
    # and cost 2.3 ms a board through the strided first layer (64 cost 2.9).
    context_mm: float = 14.0
    crop_px: int = 56
    lean_up: bool = True
    turned_look: TurnedLook | None = None
    shifted_look: ShiftedLook | None = None
    slant_limit_deg: float | None = None

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("noble",) if region == "terrace" else ("square", "noble")

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        # Each column has exactly one nobleman: on the terrace (row 0 of the column) or on one of its squares.
        grid = profile.region("grid")
        return tuple(
            OneOf("noble", "none", (("terrace", 0, c), *(("grid", r, c) for r in range(grid.rows))))
            for c in range(grid.cols)
        )

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        return ()

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted, ...]:
        return ()

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        return ()

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        return ()

    def known(self, profile: BoardProfile) -> tuple[Known, ...]:
        # Row 1 is printed built on every side, and so are the other squares a side's profile lists; where
        # it lists them, no other square is.
        grid = profile.region("grid")
        listed = sanssouci.parse_layout(dict(profile.setup), "profile.setup").preprinted
        printed = {(0, c) for c in range(grid.cols)} | set(listed or ())
        built = frozenset({sanssouci.PREPRINTED})
        facts = [Known("square", tuple(("grid", r, c) for r, c in sorted(printed)), built)]
        if listed is not None:
            rest = tuple(("grid", r, c) for r, c in grid.cells() if (r, c) not in printed)
            facts.append(Known("square", rest, frozenset(sanssouci.LABELS) - built))
        return tuple(facts)

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        square, _, colour = label.partition("+")
        noble = class_index(self.heads[1], colour or "none")
        # The terrace is one strip of board art: only who stands on it is read there.
        sq = IGNORE if key[0] == "terrace" else class_index(self.heads[0], square)
        return {"square": sq, "noble": noble}

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        rows = ["".join(row) for row in grid_classes(profile, readings, "grid", "square")]
        noblemen = [likeliest(readings, column) for column in self.exactly_one(profile)]
        return {
            "game": self.game,
            "rows": rows,
            "noblemen": noblemen,
            "missions": list(hand.get("missions", [])),
            "track_score": hand.get("track_score", 0),
            "setup": dict(profile.setup),
        }

    def notes(self, profile: BoardProfile, readings: Mapping[CellKey, Reading]) -> tuple[str, ...]:
        return ()


class ZenReader:
    """One Zen Garden board is one player's garden: :meth:`assemble` returns that player's entry."""

    game: str = zen_garden.GAME
    regions: tuple[str, ...] = ("grid", "coins")
    heads: tuple[Head, ...] = (
        Head("floor", tuple(zen_garden.FLOOR_LETTERS)),
        Head("path", tuple(zen_garden.PATH_LETTERS)),
        Head("corner", tuple(zen_garden.CORNERS)),
        Head("decor", tuple(zen_garden.DECOR_LETTERS)),
        Head("marker", (".", "m")),
    )
    context_mm: float = 3.0
    # Read through a strided first layer (its model card): 64 pixels cost what 32 would, and read as well as
    # 48 at full cost did (classify 4.7 -> 2.4 ms a board).
    crop_px: int = 64
    lean_up: bool = False
    turned_look: TurnedLook | None = None
    shifted_look: ShiftedLook | None = None
    slant_limit_deg: float | None = None

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("marker",) if region == "coins" else ("floor", "path", "corner", "decor")

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        # One coin marker, on the space of the coins held: space r * cols + c.
        return (OneOf("marker", ".", tuple(("coins", r, c) for r, c in profile.region("coins").cells())),)

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        return ()

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted, ...]:
        return ()

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        return ()

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        return ()

    def known(self, profile: BoardProfile) -> tuple[Known, ...]:
        return ()

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

    def notes(self, profile: BoardProfile, readings: Mapping[CellKey, Reading]) -> tuple[str, ...]:
        return ()


class CustomGridReader:
    """A user-defined grid game: one head whose classes are the labels the user named for the profile."""

    game: str = custom_grid.GAME
    regions: tuple[str, ...] = ("grid",)
    context_mm: float = 3.0
    crop_px: int = 32
    lean_up: bool = False
    turned_look: TurnedLook | None = None
    shifted_look: ShiftedLook | None = None
    slant_limit_deg: float | None = None

    def __init__(self, labels: tuple[str, ...]) -> None:
        self.heads: tuple[Head, ...] = (Head("cell", labels),)

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("cell",)

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        return ()

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        return ()

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted, ...]:
        return ()

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        return ()

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        return ()

    def known(self, profile: BoardProfile) -> tuple[Known, ...]:
        return ()

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        return {"cell": class_index(self.heads[0], label)}

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "game": self.game,
            "cells": grid_classes(profile, readings, "grid", "cell"),
            "setup": dict(profile.setup),
        }

    def notes(self, profile: BoardProfile, readings: Mapping[CellKey, Reading]) -> tuple[str, ...]:
        return ()


# Keyed by what a reader reads (its ``game``): a game's main board, or a companion object's profile name.
READERS: Mapping[str, Reader] = {
    r.game: r
    for r in (
        AliceReader(),
        SanssouciReader(),
        ZenReader(),
        FourGardensReader(),
        RewardReader(),
        TangReader(),
    )
}


def get_reader(game: str) -> Reader:
    try:
        return READERS[game]
    except KeyError:
        raise ValueError(f"no photo reader for {game!r} yet; readable games: {', '.join(READERS)}") from None


def reader_for(profile: BoardProfile) -> Reader:
    """The reader of a profile's board: its game's, or for a user-defined grid, one made from its labels."""
    if profile.game == four_gardens.GAME:
        # A Four Gardens photo shows the Scoreboard or an Extra-rewards tile, whose profile has a number.
        return RewardReader() if is_reward_profile(profile) else FourGardensReader.for_profile(profile)
    if profile.game == custom_grid.GAME:
        return CustomGridReader(custom_grid.parse_spec(profile.setup, "setup").labels)
    if profile.game == tang_garden.GAME:
        read_tang.landscape_icons(profile)  # checked now, not at the first photo
    return get_reader(profile.game)


# Set-up a profile carries for its reader, not for its game's rules: Four Gardens' marker colours, how many
# icons Tang Garden's landscape tiles show.
_READER_SETUP: Mapping[str, tuple[str, ...]] = {
    four_gardens.GAME: READER_SETUP,
    tang_garden.GAME: read_tang.READER_SETUP,
}


def rules_setup(game: str, setup: Mapping[str, Any]) -> dict[str, Any]:
    """A profile's set-up as its game's rules take it: without what only the reader uses."""
    return {k: v for k, v in setup.items() if k not in _READER_SETUP.get(game, ())}
