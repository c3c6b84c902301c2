"""The one place that lists the games, and the uniform face every rule engine shows the rest of the code.

Two shapes of game exist:

* board games (Alice's Garden, Sanssouci): each player's board scores on its own. A state file is one board,
  or a table ``{"game", "setup"?, "players": [{"name", ...board...}]}`` that scores every board alike.
* table games (Zen Garden, Four Gardens, Tang Garden): some rule compares players or the board is shared, so a
  state file is always the whole table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from scoring import alices_garden, custom_grid, four_gardens, sanssouci, tang_garden, zen_garden
from scoring.core import Problem, ScoreBreakdown, StateError, TableScore, require_valid
from scoring.fields import JsonObject, as_list, as_object, as_str, get, item_path

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


GAMES: Mapping[str, GameRules] = {
    rules.name: rules
    for rules in (
        BoardGame(
            alices_garden.GAME,
            alices_garden.TITLE,
            alices_garden.parse_board,
            alices_garden.dump_board,
            alices_garden.check,
            alices_garden.score,
        ),
        BoardGame(
            sanssouci.GAME,
            sanssouci.TITLE,
            sanssouci.parse_board,
            sanssouci.dump_board,
            sanssouci.check,
            sanssouci.score,
        ),
        TableGame(
            zen_garden.GAME,
            zen_garden.TITLE,
            zen_garden.parse,
            zen_garden.dump,
            zen_garden.check,
            zen_garden.score,
        ),
        TableGame(
            four_gardens.GAME,
            four_gardens.TITLE,
            four_gardens.parse,
            four_gardens.dump,
            four_gardens.check,
            four_gardens.score,
        ),
        TableGame(
            tang_garden.GAME,
            tang_garden.TITLE,
            tang_garden.parse,
            tang_garden.dump,
            tang_garden.check,
            tang_garden.score,
        ),
        BoardGame(
            custom_grid.GAME,
            custom_grid.TITLE,
            custom_grid.parse_board,
            custom_grid.dump_board,
            custom_grid.check,
            custom_grid.score,
        ),
    )
}


def get_game(name: str) -> GameRules:
    """The rules of ``name``; an unknown name raises StateError listing the known games."""
    try:
        return GAMES[name]
    except KeyError:
        raise StateError(f"game: unknown game {name!r}; known games: {', '.join(GAMES)}") from None


def read_state(data: object) -> tuple[GameRules, object]:
    """The rules named by a decoded state file's ``game`` field, and the state parsed by them."""
    obj: JsonObject = as_object(data, "")
    rules = get_game(as_str(get(obj, "game", ""), "game"))
    return rules, rules.parse(obj)
