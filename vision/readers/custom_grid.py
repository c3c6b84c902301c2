"""A user-defined grid game's reader, made from the labels its profile names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import custom_grid
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import CellLabels, Head, ReaderBase, Reading, class_index, grid_classes


class CustomGridReader(ReaderBase):
    """A user-defined grid game: one head whose classes are the labels the user named for the profile."""

    game: str = custom_grid.GAME
    regions: tuple[str, ...] = ("grid",)

    def __init__(self, labels: tuple[str, ...]) -> None:
        self.heads: tuple[Head, ...] = (Head("cell", labels),)

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("cell",)

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

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        # A user-defined grid's state is its cells' labels.
        return {"grid": [list(row) for row in custom_grid.parse_board(state).cells]}


def reader_for(profile: BoardProfile) -> CustomGridReader:
    return CustomGridReader(custom_grid.parse_spec(profile.setup, "setup").labels)


READERS: tuple[CustomGridReader, ...] = ()  # made per profile, from its labels
