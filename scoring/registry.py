"""The one place that lists the games, and the uniform face every rule engine shows the rest of the code.

Each game is one :class:`GameEntry`: its rules, its kind, the name of its modules, the fields its players type
in and how a tap on a cell edits its state. Every layer asks this registry: the readers, the synthetic table
and the web app find a game's own module by :attr:`GameEntry.module` (``vision/readers/MODULE.py``,
``lab/synth/games/MODULE.py``), so adding a game touches its own files and this list only.

Two shapes of rules exist:

* board games (Alice's Garden, Sanssouci): each player's board scores on its own. A state file is one board,
  or a table ``{"game", "setup"?, "players": [{"name", ...board...}]}`` that scores every board alike.
* table games (Zen Garden, Four Gardens, Tang Garden): some rule compares players or the board is shared, so a
  state file is always the whole table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Generic, Protocol, TypeVar

from scoring import alices_garden, custom_grid, four_gardens, kingdomino, sanssouci, tang_garden, zen_garden
from scoring.core import Problem, ScoreBreakdown, StateError, TableScore, require_valid
from scoring.fields import JsonObject, as_list, as_object, as_str, get, item_path
from scoring.hand import Form

B = TypeVar("B")
T = TypeVar("T")


class GameRules(Protocol):
    """What the device and vision layers may call; each method is pure."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    def parse(self, data: object) -> object:
        """A typed state from decoded JSON; raises StateError naming the bad field."""
        ...

    def dump(self, state: Any) -> dict[str, Any]:
        """Decoded JSON that :meth:`parse` reads back to an equal state."""
        ...

    def check(self, state: Any) -> tuple[Problem, ...]:
        """Every rule problem of the state."""
        ...

    def score(self, state: Any) -> ScoreBreakdown | TableScore:
        """The breakdown; raises InvalidState when :meth:`check` finds problems."""
        ...


@dataclass(frozen=True)
class BoardsTable(Generic[B]):
    """Several players' independent boards, in seating order."""

    players: tuple[tuple[str, B], ...]


@dataclass(frozen=True)
class BoardGame(Generic[B]):
    """A game whose boards score independently; a table is a list of named boards."""

    name: str
    title: str
    parse_board: Callable[[object, str], B]
    dump_board: Callable[[B], dict[str, Any]]
    check_board: Callable[[B], tuple[Problem, ...]]
    score_board: Callable[[B], ScoreBreakdown]

    def parse(self, data: object) -> B | BoardsTable[B]:
        obj = as_object(data, "")
        if "players" not in obj:
            return self.parse_board(obj, "")
        unknown = sorted(set(obj) - {"game", "setup", "players"})
        if unknown:
            raise StateError(f"state: unknown field(s) {', '.join(unknown)} beside players")
        players: list[tuple[str, B]] = []
        for i, raw in enumerate(as_list(get(obj, "players", ""), "players")):
            path = item_path("players", i)
            entry = dict(as_object(raw, path))
            name = as_str(get(entry, "name", path, f"Player {i + 1}"), item_path(path, "name"))
            if "setup" in obj and "setup" not in entry:
                entry["setup"] = obj["setup"]
            players.append((name, self.parse_board(entry, path)))
        if not players:
            raise StateError("players: the table has no player")
        return BoardsTable(tuple(players))

    def dump(self, state: B | BoardsTable[B]) -> dict[str, Any]:
        if isinstance(state, BoardsTable):
            players = []
            for name, board in state.players:
                entry = self.dump_board(board)
                del entry["game"]
                players.append({"name": name, **entry})
            return {"game": self.name, "players": players}
        return self.dump_board(state)

    def check(self, state: B | BoardsTable[B]) -> tuple[Problem, ...]:
        if not isinstance(state, BoardsTable):
            return self.check_board(state)
        return tuple(
            replace(p, where=f"players[{i}].{p.where}" if p.where else f"players[{i}]")
            for i, (_, board) in enumerate(state.players)
            for p in self.check_board(board)
        )

    def score(self, state: B | BoardsTable[B]) -> ScoreBreakdown | TableScore:
        if not isinstance(state, BoardsTable):
            return self.score_board(state)
        require_valid(self.check(state))
        return TableScore(
            self.name,
            tuple(replace(self.score_board(board), player=name) for name, board in state.players),
        )


@dataclass(frozen=True)
class TableGame(Generic[T]):
    """A game scored a whole table at a time."""

    name: str
    title: str
    parse_table: Callable[[object], T]
    dump: Callable[[T], dict[str, Any]]
    check: Callable[[T], tuple[Problem, ...]]
    score: Callable[[T], TableScore]

    def parse(self, data: object) -> T:
        return self.parse_table(data)


class Kind(Enum):
    """What one photographed board is to the rules."""

    BOARD = "board"  # one player's board, scored on its own (Alice's Garden, Sanssouci, a custom grid)
    TABLE = "table"  # one player's board of a table whose rules compare players: a photo is the table
    SHARED_BOARD = "shared-board"  # the table's one board; what each player holds is typed in


@dataclass(frozen=True)
class Picker:
    """How a tap on a picture's cell edits the state.

    Cell (r, c) of ``region`` is character c of row r's string in the state field ``field`` (or item c of
    row r's list); ``labels`` maps each value to its name, or, when ``None``, the state's own
    ``setup.labels`` name them (a user-defined game). ``piece``: (state field, name) of a piece each column
    holds one of, the field listing per column the row it stands on, counted from 1 (0: off the grid, at its
    start; Sanssouci's noblemen on the terrace).
    """

    region: str
    field: str
    labels: Mapping[str, str] | None
    piece: tuple[str, str] | None = None

    def for_state(self, state: Mapping[str, Any]) -> Picker | None:
        """This picker with its labels, or ``None`` where a state names none."""
        if self.labels is not None:
            return self
        setup = state.get("setup")
        labels = setup.get("labels") if isinstance(setup, Mapping) else None
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            return None
        return replace(self, labels={label: label for label in labels})

    def to_json(self) -> dict[str, Any]:
        labels = dict(self.labels or {})
        out = {"kind": "cells", "region": self.region, "field": self.field, "labels": labels}
        if self.piece is not None:
            out["piece"] = {"field": self.piece[0], "name": self.piece[1]}
        return out


@dataclass(frozen=True)
class TilePicker:
    """How a tap on a cell edits a tile of several parts (a Zen Garden tile: floor, path, corner, decor).

    Cell (r, c) of ``region`` is word c of row r's string in the state field ``field`` (words separated by
    spaces); a word is its parts' letters one after another, each part's letters at ``start`` and named by
    its ``labels``, or ``empty`` for no tile.
    """

    region: str
    field: str
    parts: tuple[tuple[str, int, Mapping[str, str]], ...]  # (name, start, letters -> words)
    empty: str

    def for_state(self, state: Mapping[str, Any]) -> TilePicker:
        return self

    def to_json(self) -> dict[str, Any]:
        parts = [{"name": n, "start": s, "labels": dict(labels)} for n, s, labels in self.parts]
        return {
            "kind": "tiles",
            "region": self.region,
            "field": self.field,
            "parts": parts,
            "empty": self.empty,
        }


@dataclass(frozen=True)
class MarkerPicker:
    """How a tap on a track space edits a shared board's state: whose markers stand there.

    Space c of region ``prefix + TRACK`` holds player i's marker when the state's
    ``players[i][field][TRACK]`` is c (None: the marker is on no space of that track).
    """

    prefix: str
    field: str

    def for_state(self, state: Mapping[str, Any]) -> MarkerPicker:
        return self

    def to_json(self) -> dict[str, Any]:
        return {"kind": "markers", "prefix": self.prefix, "field": self.field}


@dataclass(frozen=True)
class SpacePicker:
    """How a tap on a garden space edits what lies there: its tile, a decoration, a character (Tang Garden).

    Space (r, c) of ``region`` is word c of row r's string in the state field ``field`` (a tile's token,
    ``empty`` for none, named by ``tile_words``; a token in the reader's edge form is named edge by edge,
    its letters by ``edge_words``); its decoration and its character are the items of the state's
    ``decorations`` and ``characters`` whose ``cell`` is ``[r, c]``. A tree decoration names its species,
    which the state's ``setup.tree_species`` lists.
    """

    region: str
    field: str
    tile_words: Mapping[str, str]
    edge_words: Mapping[str, str]
    empty: str
    decorations: tuple[str, ...]
    characters: tuple[str, ...]
    facings: Mapping[str, str]
    species: tuple[str, ...]

    def for_state(self, state: Mapping[str, Any]) -> SpacePicker:
        setup = state.get("setup")
        species = setup.get("tree_species") if isinstance(setup, Mapping) else None
        if isinstance(species, list) and species and all(isinstance(s, str) for s in species):
            return replace(self, species=tuple(species))
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "spaces",
            "region": self.region,
            "field": self.field,
            "tiles": dict(self.tile_words),
            "edges": dict(self.edge_words),
            "empty": self.empty,
            "decorations": list(self.decorations),
            "characters": list(self.characters),
            "facings": dict(self.facings),
            "species": list(self.species),
        }


# How a tap on a result's cell edits a game's state, whichever kind of cell it is.
AnyPicker = Picker | TilePicker | MarkerPicker | SpacePicker


@dataclass(frozen=True)
class GameEntry:
    """Everything the layers above the rules ask about one game."""

    rules: GameRules
    kind: Kind
    # The game's module name: scoring/MODULE.py, vision/readers/MODULE.py, lab/synth/games/MODULE.py.
    module: str
    # The top-level state fields a photo cannot show, typed in by the players (hand entry).
    hand_fields: tuple[str, ...]
    # The profile set-up's parser (the rulebook's open questions), raising StateError naming the bad field.
    parse_setup: Callable[[object], object]
    # How a tap on a cell of the result's picture edits the state: a cell's value, a tile's parts, or whose
    # markers stand on a track space, or what lies on a garden space; None: corrected as JSON.
    picker: AnyPicker | None = None
    # The hand-entry fields as a form, in the rulebook's words (:mod:`scoring.hand`).
    hand_form: Form = ()

    @property
    def name(self) -> str:
        return self.rules.name


ENTRIES: Mapping[str, GameEntry] = {
    entry.name: entry
    for entry in (
        GameEntry(
            BoardGame(
                alices_garden.GAME,
                alices_garden.TITLE,
                alices_garden.parse_board,
                alices_garden.dump_board,
                alices_garden.check,
                alices_garden.score,
            ),
            Kind.BOARD,
            "alices_garden",
            ("unplaced_bonus_tiles",),
            lambda data: alices_garden.parse_spec(data, "setup"),
            Picker("grid", "rows", alices_garden.LABELS),
            alices_garden.HAND_FORM,
        ),
        GameEntry(
            BoardGame(
                sanssouci.GAME,
                sanssouci.TITLE,
                sanssouci.parse_board,
                sanssouci.dump_board,
                sanssouci.check,
                sanssouci.score,
            ),
            Kind.BOARD,
            "sanssouci",
            ("missions", "track_score"),
            lambda data: sanssouci.parse_layout(data, "setup"),
            Picker("grid", "rows", sanssouci.LABELS, ("noblemen", "nobleman")),
            sanssouci.HAND_FORM,
        ),
        GameEntry(
            TableGame(
                zen_garden.GAME,
                zen_garden.TITLE,
                zen_garden.parse,
                zen_garden.dump,
                zen_garden.check,
                zen_garden.score,
            ),
            Kind.TABLE,
            "zen_garden",
            ("mission_points",),
            zen_garden.parse_setup,
            TilePicker("grid", "tiles", zen_garden.TILE_PARTS, zen_garden.EMPTY_CODE),
            hand_form=zen_garden.HAND_FORM,
        ),
        GameEntry(
            TableGame(
                four_gardens.GAME,
                four_gardens.TITLE,
                four_gardens.parse,
                four_gardens.dump,
                four_gardens.check,
                four_gardens.score,
            ),
            Kind.SHARED_BOARD,
            "four_gardens",
            ("players",),
            four_gardens.parse_setup,
            MarkerPicker("track:", "positions"),
            hand_form=four_gardens.HAND_FORM,
        ),
        GameEntry(
            TableGame(
                tang_garden.GAME,
                tang_garden.TITLE,
                tang_garden.parse,
                tang_garden.dump,
                tang_garden.check,
                tang_garden.score,
            ),
            Kind.SHARED_BOARD,
            "tang_garden",
            ("players",),
            lambda data: tang_garden.parse_setup(data, "setup"),
            SpacePicker(
                "grid",
                "tiles",
                tang_garden.TILE_WORDS,
                tang_garden.EDGE_NAMES,
                tang_garden.NO_TILE,
                tang_garden.DECORATION_KINDS,
                tang_garden.CHARACTERS,
                tang_garden.FACING_WORDS,
                tang_garden.DEFAULT_TREE_SPECIES,
            ),
            tang_garden.HAND_FORM,
        ),
        GameEntry(
            BoardGame(
                kingdomino.GAME,
                kingdomino.TITLE,
                kingdomino.parse_board,
                kingdomino.dump_board,
                kingdomino.check,
                kingdomino.score,
            ),
            Kind.BOARD,
            "kingdomino",
            (),
            lambda data: kingdomino.parse_setup(data, "setup"),
            Picker("grid", "cells", kingdomino.CELL_LABELS),
            kingdomino.HAND_FORM,
        ),
        GameEntry(
            BoardGame(
                custom_grid.GAME,
                custom_grid.TITLE,
                custom_grid.parse_board,
                custom_grid.dump_board,
                custom_grid.check,
                custom_grid.score,
            ),
            Kind.BOARD,
            "custom_grid",
            (),
            lambda data: custom_grid.parse_spec(data, "setup"),
            Picker("grid", "cells", None),
        ),
    )
}
GAMES: Mapping[str, GameRules] = {name: entry.rules for name, entry in ENTRIES.items()}


def get_entry(name: str) -> GameEntry:
    """The registry entry of ``name``; an unknown name raises StateError listing the known games."""
    try:
        return ENTRIES[name]
    except KeyError:
        raise StateError(f"game: unknown game {name!r}; known games: {', '.join(ENTRIES)}") from None


def get_game(name: str) -> GameRules:
    """The rules of ``name``; an unknown name raises StateError listing the known games."""
    return get_entry(name).rules


def read_state(data: object) -> tuple[GameRules, object]:
    """The rules named by a decoded state file's ``game`` field, and the state parsed by them."""
    obj: JsonObject = as_object(data, "")
    rules = get_game(as_str(get(obj, "game", ""), "game"))
    return rules, rules.parse(obj)
