"""Sanssouci's reader: what each garden square holds, and where each column's nobleman stands (on the
terrace or on a square), read by two heads."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

from scoring import sanssouci
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import (
    IGNORE,
    CellLabels,
    Head,
    Known,
    OneOf,
    ReaderBase,
    Reading,
    class_index,
    grid_classes,
    likeliest,
)

NOBLE_COLOURS = ("red", "blue", "yellow", "green")


def player_colour(board: sanssouci.SanssouciBoard) -> str:
    """The noblemen's colour: the scoring JSON has no colour field, so the truth of a board (drawn or taught)
    derives it from the board itself."""
    names = sorted(NOBLE_COLOURS)
    return names[zlib.crc32("".join(board.rows).encode()) % len(names)]


class SanssouciReader(ReaderBase):
    game: str = sanssouci.GAME
    regions: tuple[str, ...] = ("terrace", "grid")
    printed_sure: bool = True
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

    def region_heads(self, region: str) -> tuple[str, ...]:
        return ("noble",) if region == "terrace" else ("square", "noble")

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        # Each column has exactly one nobleman: on the terrace (row 0 of the column) or on one of its squares.
        grid = profile.region("grid")
        return tuple(
            OneOf("noble", "none", (("terrace", 0, c), *(("grid", r, c) for r in range(grid.rows))))
            for c in range(grid.cols)
        )

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

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        board = sanssouci.parse_board(state)
        colour = player_colour(board)
        terrace = ["." + (f"+{colour}" if n == sanssouci.TERRACE else "") for n in board.noblemen]
        grid = [
            [ch + (f"+{colour}" if board.noblemen[c] == r + 1 else "") for c, ch in enumerate(row)]
            for r, row in enumerate(board.rows)
        ]
        return {"terrace": [terrace], "grid": grid}


READERS = (SanssouciReader(),)
