"""Sanssouci: the end-of-game bonus of one palace garden, added to the score track.

Rulebook, "End of the Game": each completed row 2-6 scores 10 minus the row's value; each completed column
scores 5; each of the two mission cards scores the row value of that column's nobleman. Gardener tiles
count as covered. Ties go to the garden with more gardener tiles.

Which symbol heads which column and which squares are preprinted differ between the 8 board sides and are
not known from the rulebook, so they are data in :class:`SanssouciLayout`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, require_valid
from scoring.fields import as_int, as_list, as_object, as_str, get, item_path, reject_unknown
from scoring.grid import components4
from scoring.hand import Form, Number, Numbers

GAME = "sanssouci"
TITLE = "Sanssouci"

EMPTY, PREPRINTED, SYMBOL, GARDENER = ".", "#", "S", "G"
LABELS: Mapping[str, str] = {
    EMPTY: "empty square",
    PREPRINTED: "preprinted square",
    SYMBOL: "garden tile, symbol side",
    GARDENER: "garden tile, gardener side",
}
COVERED = frozenset({PREPRINTED, SYMBOL, GARDENER})

ROWS, COLS = 6, 9
TERRACE = 0
ROW_BONUS_BASE = 10
# The most the score track shows: its stone on 49, and the points card turned to 100.
MAX_TRACK_SCORE = 149
COLUMN_BONUS = 5

# The printed order of symbols may differ per board side; this is only the order the rulebook lists them.
DEFAULT_SYMBOLS = (
    "labyrinth",
    "statue",
    "pavilion",
    "topiary",
    "stairway",
    "fountain",
    "rose arch",
    "herb spiral",
    "grapevine",
)
ROW_COLOURS = ("beige", "white", "grey", "orange", "fuchsia", "turquoise")


# What the players type in (scoring.hand): the two mission cards dealt to you and where your marker stands.
HAND_FORM: Form = (
    Numbers(
        "missions",
        "Your two mission cards",
        ("first card", "second card"),
        1,
        COLS,
        hint="the column number printed on each mission card",
        distinct=True,
    ),
    Number(
        "track_score",
        "Your score on the score track",
        0,
        MAX_TRACK_SCORE,
        hint="where your marker stands, and 50 or 100 for your points card",
    ),
)


@dataclass(frozen=True)
class SanssouciLayout:
    """One side of a palace-garden board.

    ``preprinted`` lists the 0-based (row, col) squares printed as built; row 1 always is. ``None`` means the
    side's extra preprinted squares are not known, so any square outside row 1 may be ``#``.
    ``terrace_mission_points`` is what a mission scores when its nobleman never left the terrace (the
    rulebook is silent; 0 is the natural reading).
    """

    name: str = "unknown side"
    column_symbols: tuple[str, ...] = DEFAULT_SYMBOLS
    preprinted: frozenset[tuple[int, int]] | None = None
    terrace_mission_points: int = 0


@dataclass(frozen=True)
class SanssouciBoard:
    """A finished garden: ``rows`` from row 1 (beige, beside the terrace) down to row 6.

    ``noblemen[c]`` is the row (1-6) of column c's nobleman, 0 while he is on the terrace; ``missions`` are
    the 1-based columns named by the player's two mission cards; ``track_score`` is read off the score track
    (stone position plus the 50/100 points card).
    """

    rows: tuple[str, ...]
    noblemen: tuple[int, ...] = (TERRACE,) * COLS
    missions: tuple[int, ...] = ()
    track_score: int = 0
    layout: SanssouciLayout = field(default_factory=SanssouciLayout)


def to_text(board: SanssouciBoard) -> str:
    """The 6 garden rows, then one line with the row of each column's nobleman (0 = terrace)."""
    return "\n".join([*board.rows, " ".join(str(n) for n in board.noblemen)])


def from_text(text: str, missions: tuple[int, ...] = (), track_score: int = 0) -> SanssouciBoard:
    """A board from :func:`to_text`'s form: 6 grid lines, then a line of 9 noblemen rows.

    Example:
        >>> b = from_text("#########\\n" + "S" * 9 + "\\n" + ".........\\n" * 4 + "0 2 0 0 0 0 0 0 1")
        >>> b.noblemen[1], b.rows[1]
        (2, 'SSSSSSSSS')
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    noblemen = tuple(int(v) for v in lines[-1].split())
    return SanssouciBoard(tuple(lines[:-1]), noblemen, missions, track_score)


def parse_layout(data: object, path: str) -> SanssouciLayout:
    """The board side a profile's or a state's ``setup`` object describes."""
    obj = as_object(data, path)
    reject_unknown(obj, ("name", "column_symbols", "preprinted", "terrace_mission_points"), path)
    default = SanssouciLayout()
    name = as_str(get(obj, "name", path, default.name), item_path(path, "name"))
    sym_path = item_path(path, "column_symbols")
    raw_symbols = as_list(get(obj, "column_symbols", path, list(default.column_symbols)), sym_path, COLS)
    symbols = tuple(as_str(v, item_path(sym_path, i)) for i, v in enumerate(raw_symbols))
    preprinted: frozenset[tuple[int, int]] | None = None
    if obj.get("preprinted") is not None:
        pre_path = item_path(path, "preprinted")
        cells = []
        for i, raw in enumerate(as_list(obj["preprinted"], pre_path)):
            cell_path = item_path(pre_path, i)
            r, c = as_list(raw, cell_path, 2)
            # Files count rows and columns from 1, as printed on the board.
            cells.append((as_int(r, cell_path, 1, ROWS) - 1, as_int(c, cell_path, 1, COLS) - 1))
        preprinted = frozenset(cells)
    terrace = as_int(
        get(obj, "terrace_mission_points", path, default.terrace_mission_points),
        item_path(path, "terrace_mission_points"),
        0,
        6,
    )
    return SanssouciLayout(name, symbols, preprinted, terrace)


def _dump_layout(layout: SanssouciLayout) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": layout.name,
        "column_symbols": list(layout.column_symbols),
        "terrace_mission_points": layout.terrace_mission_points,
    }
    if layout.preprinted is not None:
        data["preprinted"] = [[r + 1, c + 1] for r, c in sorted(layout.preprinted)]
    return data


def parse_board(data: object, path: str = "") -> SanssouciBoard:
    """A board from decoded JSON; errors name the field (``players[1].noblemen[4]``)."""
    obj = as_object(data, path)
    reject_unknown(obj, ("game", "name", "rows", "noblemen", "missions", "track_score", "setup"), path)
    layout = parse_layout(obj["setup"], item_path(path, "setup")) if "setup" in obj else SanssouciLayout()
    rows_path = item_path(path, "rows")
    rows = tuple(
        as_str(v, item_path(rows_path, i)) for i, v in enumerate(as_list(get(obj, "rows", path), rows_path))
    )
    nob_path = item_path(path, "noblemen")
    raw_nobles = as_list(get(obj, "noblemen", path, [TERRACE] * COLS), nob_path, COLS)
    noblemen = tuple(as_int(v, item_path(nob_path, i), 0, ROWS) for i, v in enumerate(raw_nobles))
    mis_path = item_path(path, "missions")
    raw_missions = as_list(get(obj, "missions", path, []), mis_path)
    missions = tuple(as_int(v, item_path(mis_path, i), 1, COLS) for i, v in enumerate(raw_missions))
    track = as_int(get(obj, "track_score", path, 0), item_path(path, "track_score"), 0)
    return SanssouciBoard(rows, noblemen, missions, track, layout)


def dump_board(board: SanssouciBoard) -> dict[str, Any]:
    return {
        "game": GAME,
        "rows": list(board.rows),
        "noblemen": list(board.noblemen),
        "missions": list(board.missions),
        "track_score": board.track_score,
        "setup": _dump_layout(board.layout),
    }


def _grid_problems(board: SanssouciBoard) -> list[Problem]:
    problems: list[Problem] = []
    if len(board.rows) != ROWS:
        problems.append(Problem("grid-size", "rows", f"expected {ROWS} rows, got {len(board.rows)}"))
    for r, row in enumerate(board.rows):
        if len(row) != COLS:
            problems.append(Problem("grid-size", f"rows[{r}]", f"expected {COLS} squares, got {len(row)}"))
        for c, ch in enumerate(row):
            if ch not in LABELS:
                known = ", ".join(f"{k} {v}" for k, v in LABELS.items())
                problems.append(
                    Problem("unknown-label", f"rows[{r}][{c}]", f"unknown square {ch!r}; expected {known}")
                )
    return problems


def _layout_problems(board: SanssouciBoard) -> list[Problem]:
    problems: list[Problem] = []
    if len(set(board.layout.column_symbols)) != COLS:
        problems.append(Problem("bad-setup", "setup.column_symbols", "each column needs its own symbol"))
    if board.rows and board.rows[0] != PREPRINTED * COLS:
        problems.append(
            Problem(
                "layout-mismatch",
                "rows[0]",
                "the beige row is printed whole: none of its squares can hold a tile or be empty",
            )
        )
    mask = board.layout.preprinted
    for r, row in enumerate(board.rows[1:], start=1):
        for c, ch in enumerate(row):
            if mask is None:
                continue
            if (ch == PREPRINTED) != ((r, c) in mask):
                expected = "preprinted" if (r, c) in mask else "not preprinted"
                problems.append(
                    Problem(
                        "layout-mismatch",
                        f"rows[{r}][{c}]",
                        f"board side {board.layout.name!r} has this square {expected}",
                    )
                )
    return problems


def _reachable(board: SanssouciBoard) -> set[tuple[int, int]]:
    # A nobleman only ever walks over covered squares starting from row 1, which is all preprinted, so any
    # square he stands on must join row 1 through covered squares.
    areas = components4(board.rows, lambda ch: ch in COVERED)
    return {cell for area in areas if any(r == 0 for r, _ in area) for cell in area}


def _noble_problems(board: SanssouciBoard) -> list[Problem]:
    problems: list[Problem] = []
    if len(board.noblemen) != COLS:
        return [Problem("grid-size", "noblemen", f"expected {COLS} noblemen, got {len(board.noblemen)}")]
    reachable = _reachable(board)
    for c, row in enumerate(board.noblemen):
        where = f"noblemen[{c}]"
        if row == TERRACE:
            continue
        if not 1 <= row <= ROWS:
            problems.append(Problem("impossible-position", where, f"row {row} is not 0 (terrace) to {ROWS}"))
            continue
        square = board.rows[row - 1][c]
        if square == EMPTY:
            problems.append(Problem("impossible-position", where, f"stands on an empty square in row {row}"))
        elif square == GARDENER:
            problems.append(Problem("impossible-position", where, f"ends on a gardener tile in row {row}"))
        elif (row - 1, c) not in reachable:
            problems.append(
                Problem(
                    "impossible-position", where, f"row {row} cannot be reached from the terrace over tiles"
                )
            )
    return problems


def _mission_problems(board: SanssouciBoard) -> list[Problem]:
    problems: list[Problem] = []
    if len(board.missions) != 2:
        # Most often none were typed in: say what to enter.
        got = "none entered" if not board.missions else f"{len(board.missions)} entered"
        problems.append(
            Problem("impossible-count", "missions", f"enter your 2 mission cards' columns ({got})")
        )
    if len(set(board.missions)) != len(board.missions):
        problems.append(Problem("impossible-count", "missions", "the same mission card twice"))
    for i, col in enumerate(board.missions):
        if not 1 <= col <= COLS:
            problems.append(Problem("unknown-label", f"missions[{i}]", f"column {col} is not 1 to {COLS}"))
    return problems


def check(board: SanssouciBoard) -> tuple[Problem, ...]:
    """Every problem that makes the garden unscorable (an empty tuple when it is fine)."""
    problems = _grid_problems(board)
    if problems:
        # Later checks index the grid; a malformed grid would only add noise to the report.
        return tuple(problems)
    problems += _layout_problems(board)
    problems += _noble_problems(board)
    problems += _mission_problems(board)
    if board.track_score < 0:
        problems.append(Problem("impossible-count", "track_score", "cannot be negative"))
    elif board.track_score > MAX_TRACK_SCORE:
        problems.append(
            Problem(
                "impossible-count",
                "track_score",
                f"the score track shows at most {MAX_TRACK_SCORE} (49 on the track and the 100 card)",
            )
        )
    return tuple(problems)


def gardener_count(board: SanssouciBoard) -> int:
    return sum(row.count(GARDENER) for row in board.rows)


def score(board: SanssouciBoard) -> ScoreBreakdown:
    """The track score plus the end-of-game bonus; raises InvalidState if :func:`check` finds problems.

    Example:
        >>> rows = ["#" * 9, "S" * 9] + ["." * 9] * 4
        >>> b = SanssouciBoard(tuple(rows), (0, 2) + (0,) * 7, (2, 3), track_score=20)
        >>> [(line.rule, line.points) for line in score(b).lines if line.points]
        [('Score track', 20), ('Completed row 2 (white)', 8), ('Mission: statue', 2)]
    """
    require_valid(check(board))
    lines = [ScoreLine("Score track", "points scored during the game", board.track_score)]
    for r in range(1, ROWS):  # row 1 is preprinted, so it earns no bonus
        if all(ch in COVERED for ch in board.rows[r]):
            value = r + 1
            lines.append(
                ScoreLine(
                    f"Completed row {value} ({ROW_COLOURS[r]})",
                    f"{ROW_BONUS_BASE} - {value}",
                    ROW_BONUS_BASE - value,
                )
            )
    symbols = board.layout.column_symbols
    for c in range(COLS):
        if all(row[c] in COVERED for row in board.rows):
            lines.append(
                ScoreLine(f"Completed column {c + 1} ({symbols[c]})", "all 6 squares covered", COLUMN_BONUS)
            )
    for col in board.missions:
        noble = board.noblemen[col - 1]
        if noble == TERRACE:
            detail = "nobleman still on the terrace"
            points = board.layout.terrace_mission_points
        else:
            detail = f"nobleman in row {noble} ({ROW_COLOURS[noble - 1]})"
            points = noble
        lines.append(ScoreLine(f"Mission: {symbols[col - 1]}", detail, points))
    gardeners = gardener_count(board)
    return ScoreBreakdown(GAME, tuple(lines), tiebreak=(gardeners,), tiebreak_rule="more gardener tiles")
