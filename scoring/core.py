"""Types every rule engine shares: score lines, breakdowns, tables, problems and their errors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scoring.words import paths_said, where_said


@dataclass(frozen=True)
class ScoreLine:
    """One line of a breakdown, checkable against the rulebook.

    Example:
        >>> ScoreLine("Roses", "area of 3 at r1c2: 3^2", 9).points
        9
    """

    rule: str
    detail: str
    points: int


@dataclass(frozen=True)
class ScoreBreakdown:
    """Everything one player scored, line by line.

    ``tiebreak`` holds the game's tie-break keys (higher wins), in rulebook order.
    """

    game: str
    lines: tuple[ScoreLine, ...]
    player: str | None = None
    tiebreak: tuple[int, ...] = ()
    tiebreak_rule: str = ""

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)


@dataclass(frozen=True)
class TableScore:
    """The scores of every player at one table, with their ranks (1 = winner, ties share a rank)."""

    game: str
    players: tuple[ScoreBreakdown, ...]
    ranks: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.ranks:
            object.__setattr__(self, "ranks", rank_players(self.players))
        if len(self.ranks) != len(self.players):
            raise ValueError(f"ranks has {len(self.ranks)} entries for {len(self.players)} players")


def rank_players(players: Sequence[ScoreBreakdown]) -> tuple[int, ...]:
    """Competition ranking by total, then tie-break keys; equal keys share a rank.

    Example:
        >>> a = ScoreBreakdown("g", (ScoreLine("x", "", 5),), "A")
        >>> b = ScoreBreakdown("g", (ScoreLine("x", "", 7),), "B")
        >>> rank_players([a, b])
        (2, 1)
    """
    keys = [(p.total, *p.tiebreak) for p in players]
    return tuple(1 + sum(other > key for other in keys) for key in keys)


@dataclass(frozen=True)
class Problem:
    """Something wrong with a state: ``code`` is stable for programs, ``where`` names the field."""

    code: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    @property
    def said(self) -> str:
        """As a player reads it: the field and any other named in the message in words."""
        message = paths_said(self.message)
        return f"{where_said(self.where)}: {message}" if self.where else message


class StateError(ValueError):
    """A state could not be read: malformed JSON, a missing or mistyped field, an unknown game."""


class InvalidState(ValueError):
    """A state was read but breaks the rules, so it is refused rather than scored."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


def require_valid(problems: Sequence[Problem]) -> None:
    """Raise :class:`InvalidState` when ``problems`` is not empty."""
    if problems:
        raise InvalidState(problems)
