"""Alice's Garden's reader: one head over each square of the 6 x 8 grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import alices_garden
from vision.geometry import CellKey
from vision.profile import BoardProfile
from vision.reader_api import (
    CellLabels,
    Head,
    Known,
    ReaderBase,
    Reading,
    class_index,
    grid_classes,
)


class AliceReader(ReaderBase):
    game: str = alices_garden.GAME
    regions: tuple[str, ...] = ("grid",)
    printed_sure: bool = True
    # Its one fact: the chess path is printed down its columns, the grass elsewhere.
    ruled_out: str = "an empty chess square off the chess path's columns, or grass on them"
    # Empty squares look different on grass and on the chess path; both read as empty for scoring.
    heads: tuple[Head, ...] = (
        Head("cell", ("empty_grass", "empty_chess", "rose", "mushroom", "tree", "chess_piece", "gardener")),
    )
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

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        return {"grid": [list(row) for row in alices_garden.parse_board(state).rows]}


READERS = (AliceReader(),)
