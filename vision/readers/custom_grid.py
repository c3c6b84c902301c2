"""A user-defined grid game's reader, made from the labels its profile names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import custom_grid
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import (
    CellLabels,
    Counted,
    Head,
    ReaderBase,
    Reading,
    Summed,
    class_index,
    grid_classes,
)

# The label of a cell with no tile, by the name the README gives it.
BARE_LABEL = "empty"


class CustomGridReader(ReaderBase):
    """A user-defined grid game: one head whose classes are the labels the user named for the profile;
    ``once``: the labels every board shows on exactly one cell, each read on the cell likeliest to show it.
    A label named ``empty`` is a cell with no tile: one unlike every empty cell taught is a tile.
    ``turns_freely``: a grid of bare tiles (no printed board) reads and scores alike whichever way up it
    lies (the rules count labels), so it is found by its grid and read from any corner, as a kingdom (one
    of unequal sides from a long side's)."""

    game: str = custom_grid.GAME
    regions: tuple[str, ...] = ("grid",)

    def __init__(
        self, labels: tuple[str, ...], once: tuple[str, ...] = (), turns_freely: bool = False
    ) -> None:
        self.heads: tuple[Head, ...] = (Head("cell", labels),)
        self.once = once
        self.turns_freely = turns_freely
        self.bare = BARE_LABEL if BARE_LABEL in labels else None

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("cell",)

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        return {"cell": class_index(self.heads[0], label)}

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted | Summed, ...]:
        # Taught from a couple of photos, a starting tile is a few examples against dozens of others: read
        # one board at a time it was taken for a tile of like colours and back (docs/experiments.md).
        grid = profile.region("grid")
        keys = tuple(("grid", r, c) for r in range(grid.rows) for c in range(grid.cols))
        return tuple(Counted("cell", label, keys, 1) for label in self.once)

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "game": self.game,
            "cells": grid_classes(profile, readings, "grid", "cell"),
            "setup": dict(profile.setup),
        }

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        # A user-defined grid's state is its cells' labels.
        return {"grid": [list(row) for row in custom_grid.parse_board(state).cells]}


def reader_for(profile: BoardProfile) -> CustomGridReader:
    spec = custom_grid.parse_spec(profile.setup, "setup")
    # A grid of bare tiles: its grid finder gives a grid of unequal sides from a long side's corner.
    return CustomGridReader(spec.labels, spec.once, profile.tiles_only)


READERS: tuple[CustomGridReader, ...] = ()  # made per profile, from its labels
