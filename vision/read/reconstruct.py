"""Read the cells of a board together where the board itself says how many pieces they hold.

A classifier judges each cell alone; a coin track holds exactly one marker and a Sanssouci column exactly one
nobleman, so a faint "marker here" on one space and a sure one on another are not two markers but one: the
surer. :func:`settle` turns each cell's own probabilities into the probability that the group's one piece is
on it, given what every cell of the group shows. Where each piece is unique (a Tang Garden miniature), two
cells read as the same piece hold it and another: the cells are read as the likeliest arrangement of
distinct pieces. Where the board's printing fixes a cell (Sanssouci's row 1 is printed built), the cell reads
as the printing says unless it plainly shows otherwise. Where the hand entry says how many cells show a
thing (a Tang Garden decoration per card kept), the likeliest that many show it. Where a piece needs
something on its cell (a Tang Garden tree stands on greenery), the cell's two readings are read together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from vision.geometry import CellKey
from vision.read.classify import CellPredictions
from vision.reader_api import Counted, Distinct, Known, Needs, OneEach, OneOf, Summed, Touching

# Probabilities are kept this far from 0 and 1, so one cell read with certainty cannot divide by zero.
_EPSILON = 1e-6
# How much less likely a class the printing rules out is taken to be: a cell read against its printing a
# hundred times over keeps that reading, for the game's check to refuse (a board read the wrong way up shows
# every printed square wrong), while an unsure reading goes the printing's way.
AGAINST_PRINTING = 0.01
# A piece that only a count (the owners', the cards') puts on a cell, or takes off it, reads as barely
# likelier so than not: the cell alone saw otherwise, so the player is asked to check it. So too a terrain
# only its tile's edges show.
PLACED_BY_COUNT = 0.51
# The assignment cost of what cannot be: a card holding another owner's piece, or none.
_CARD = 1e6
# A cell printed once (:class:`OneEach`) may read, besides its own likeliest piece, any made of each head's
# this many likeliest classes: a misread is nearly always one head's second or third class.
_RIVALS = 3
# ... if it is this likely: a cell read surely keeps its reading, and the table is refused by its game.
_RIVAL_FLOOR = 1e-3


def settle(
    predictions: CellPredictions,
    groups: Sequence[OneOf],
    distinct: Sequence[Distinct] = (),
    known: Sequence[Known] = (),
    counted: Sequence[Counted | Summed] = (),
    needs: Sequence[Needs] = (),
    touching: Sequence[Touching] = (),
) -> CellPredictions:
    """``predictions`` with each group's cells read as one.

    ``known`` (fixed by the printing): each cell's classes outside the fact's are weighed by
    :data:`AGAINST_PRINTING`; this comes first, as a cell's own reading.

    ``groups`` (exactly one piece): if the cells' readings were independent, the chance the piece is on cell
    i, given that exactly one cell holds it, is proportional to i's odds of holding a piece, p_i / (1 - p_i).
    A cell keeps its own split between the piece's classes (a nobleman's colour).

    ``distinct`` (unique pieces): the arrangement of pieces (each at most once) and empty cells that the
    cells' own readings make likeliest is found; each cell then reads as it would knowing which pieces the
    others hold (those are struck from its probabilities), so its likeliest class is its piece in that
    arrangement. Where it names what each owner keeps off the board (exactly one piece, on its card), the
    arrangement is the likeliest in which each does so and all its other pieces stand: see :func:`_carded`.

    ``counted`` (a number of cells show a class): the cells likeliest to show it do, the others do not; each
    cell so turned reads :data:`PLACED_BY_COUNT` sure. A :class:`Summed` fact (a cell's counts on some heads
    add up to one of some totals): each of its cells reads its likeliest total (where the fact names a
    ``present`` head, a tile there or not, its reading weighed in), then the likeliest counts that make it
    (:func:`_summed`).

    ``needs`` (pieces that stand only with another thing): first, as evidence on each cell's own reading:
    a fact's heads read yes only with the head they need (:func:`_needs`); and last, where a count put a
    piece on a cell read without what it needs, that reads :data:`PLACED_BY_COUNT` sure.

    ``touching`` (edges that touch show the same): first of all, each edge's reading and the one it touches
    read together, then what a cell's piece shows read with its edges (:func:`_touching`).

    Cells in no group are unchanged."""
    if not groups and not distinct and not known and not counted and not needs and not touching:
        return predictions
    index = {key: i for i, key in enumerate(predictions.keys)}
    probabilities = {name: p.copy() for name, p in predictions.probabilities.items()}
    for edges in touching:
        _touching(predictions, index, probabilities, edges)
    for need in needs:
        _needs(predictions, index, probabilities, need)
    for fact in known:
        rows, p, classes = _group(predictions, index, probabilities, fact)
        weight = np.array([1.0 if name in fact.classes else AGAINST_PRINTING for name in classes], np.float32)
        weighed = p[rows] * weight
        p[rows] = weighed / np.clip(weighed.sum(axis=1, keepdims=True), _EPSILON, None)
    for group in groups:
        rows, p, classes = _group(predictions, index, probabilities, group)
        absent = classes.index(group.absent)
        here = np.clip(1.0 - p[rows, absent].astype(np.float64), _EPSILON, 1.0 - _EPSILON)
        odds = here / (1.0 - here)
        share = odds / odds.sum()
        piece = np.delete(p[rows], absent, axis=1).astype(np.float64)
        total = piece.sum(axis=1, keepdims=True)
        # A cell sure to be empty has no split of its own: an even one.
        split = np.where(total > 0, piece / np.where(total > 0, total, 1.0), 1.0 / piece.shape[1])
        p[rows] = np.insert(split * share[:, None], absent, 1.0 - share, axis=1).astype(np.float32)
    for unique in distinct:
        rows, p, classes = _group(predictions, index, probabilities, unique)
        allowed = set(classes) if unique.allowed is None else {unique.absent, *unique.allowed}
        struck = [i for i, name in enumerate(classes) if name not in allowed]
        absent = classes.index(unique.absent)
        owners = [[classes.index(n) for n in sorted(pieces) if n in classes] for pieces in unique.kept]
        owners = [owned for owned in owners if owned]
        if owners and sum(map(len, owners)) - len(owners) <= len(rows):
            p[rows] = _carded(p[rows], absent, struck, owners)
        else:
            p[rows] = _arranged(p[rows], absent, struck)
    for tally in counted:
        if isinstance(tally, Summed):
            _summed(predictions, index, probabilities, tally)
            continue
        rows, p, classes = _group(predictions, index, probabilities, tally)
        p[rows] = _counted(p[rows], classes.index(tally.present), tally.count)
    for need in needs:
        _needed_after_counts(predictions, index, probabilities, need)
    return CellPredictions(predictions.keys, predictions.heads, probabilities, predictions.embedding)


def _group(
    predictions: CellPredictions,
    index: dict[CellKey, int],
    probabilities: dict[str, NDArray[np.float32]],
    group: OneOf | Distinct | Known | Counted,
) -> tuple[NDArray[np.intp], NDArray[np.float32], tuple[str, ...]]:
    """The group's rows, its head's probabilities (to change in place) and the head's classes."""
    head = next((h for h in predictions.heads if h.name == group.head), None)
    wanted: frozenset[str]
    if isinstance(group, Known):
        wanted = group.classes
    else:
        wanted = frozenset({group.present} if isinstance(group, Counted) else {group.absent})
    if head is None or not wanted <= set(head.classes):
        named = ", ".join(repr(c) for c in sorted(wanted))
        raise ValueError(f"no head {group.head!r} with classes {named} to read a group by")
    rows = np.array([index[key] for key in group.keys], dtype=np.intp)
    return rows, probabilities[group.head], head.classes


def _carded(
    p: NDArray[np.float32], absent: int, struck: list[int], owners: list[list[int]]
) -> NDArray[np.float32]:
    """Cells' probabilities (n, classes) given the likeliest arrangement in which each owner keeps exactly
    one of its pieces (class indices) off the board, on its card, and every other piece it owns stands on
    one cell: an assignment of cells to pieces or "absent", and of each card to one of its owner's pieces,
    of greatest joint log-probability by the cells' readings (the ``struck`` classes are no piece that can
    be there). A cell then reads its piece against what else may be there (the pieces other cells hold
    struck); one the arrangement reads otherwise than its own likeliest class reads :data:`PLACED_BY_COUNT`
    sure, so that it is flagged."""
    n = len(p)
    pieces = [i for owned in owners for i in owned]
    allowed = p.copy()
    allowed[:, struck] = 0.0
    cost = -np.log(np.clip(allowed.astype(np.float64), _EPSILON, 1.0))
    # Rows: the cells, each owner's card, then fillers that take the empties the cells leave, so that every
    # piece is placed somewhere. Columns: each piece once, then one "absent" per cell.
    cells = np.hstack([cost[:, pieces], np.repeat(cost[:, [absent]], n, axis=1)])
    cards = np.array([[0.0 if i in owned else _CARD for i in pieces] + [_CARD] * n for owned in owners])
    spare = len(pieces) - len(owners)
    fillers = np.hstack([np.full((spare, len(pieces)), _CARD), np.zeros((spare, n))])
    rows, columns = linear_sum_assignment(np.vstack([cells, cards, fillers]))
    placed = {
        row: pieces[column] if column < len(pieces) else absent
        for row, column in zip(rows, columns, strict=True)
        if row < n
    }
    # Struck: what cannot be there, and the pieces other cells hold. A piece the arrangement keeps on a card
    # stays a rival: which of an owner's pieces is the kept one, the cells alone decide (a tile read 0.54
    # lady, 0.46 officer, both one player's, is still unsure, and flagged).
    taken = np.zeros_like(p)
    for row, piece in placed.items():
        if piece != absent:
            taken[row, piece] = 1.0
    out: NDArray[np.float32] = allowed * (1.0 - (taken.sum(axis=0, keepdims=True) - taken))
    out /= np.clip(out.sum(axis=1, keepdims=True), _EPSILON, None)
    for row, piece in placed.items():
        own = int(p[row].argmax())
        if own != piece:
            _turn(out[row], piece, own)
    return out


def _counted(p: NDArray[np.float32], present: int, count: int) -> NDArray[np.float32]:
    """Cells' probabilities (n, classes) given that exactly ``count`` of them (all, if fewer) show class
    ``present``: the ``count`` likeliest to. A cell that read otherwise reads :data:`PLACED_BY_COUNT` sure
    of its turn, the rest on its likeliest other class."""
    shows = np.zeros(len(p), dtype=bool)
    shows[np.argsort(-p[:, present], kind="stable")[:count]] = True
    out = p.copy()
    for cell in np.flatnonzero(shows != (p.argmax(axis=1) == present)):
        other = int(np.argmax(np.where(np.arange(p.shape[1]) == present, -1.0, p[cell])))
        _turn(out[cell], *((present, other) if shows[cell] else (other, present)))
    return out


def _logaddexp(a: float, b: float) -> float:
    """log(exp(a) + exp(b)), for Python floats (-inf for a nothing)."""
    high, low = (a, b) if a >= b else (b, a)
    return high if low == -math.inf else high + math.log1p(math.exp(low - high))


def _summed(
    predictions: CellPredictions,
    index: dict[CellKey, int],
    probabilities: dict[str, NDArray[np.float32]],
    fact: Summed,
) -> None:
    """Each cell of ``fact`` read as the likeliest counts on its heads (joint log-probability, each head
    alone) whose sum is the likeliest of its totals; a head so turned reads :data:`PLACED_BY_COUNT` sure of
    its count. A total is as likely as all the counts that make it: a landscape tile whose one icon is read
    a third each as a sun, a moon or a temple is one icon at 1 - 0.7^3 = 0.66, though "none" (0.34) beats
    each single reading (0.3 x 0.7^2 = 0.15). With a ``present`` head, "none" is as
    likely as the counts' none times its "no", "some" as their total times its "yes"; it reads as the total
    chosen says. Changes ``probabilities`` in place."""
    heads = {h.name: h for h in predictions.heads}
    try:
        values = [[int(c) for c in heads[name].classes] for name in fact.heads]
    except (KeyError, ValueError):
        raise ValueError(f"heads {', '.join(fact.heads)} must all be there and count to be summed") from None
    ceiling = max(fact.totals, default=0)
    present = None
    if fact.present is not None:
        name, yes = fact.present
        present = (name, _yes_index(predictions, name, yes, "a total"))
    rows = [index[key] for key in fact.keys]
    # As Python floats: the search below adds them one by one, where numpy's scalars cost ten times as much.
    every = [
        np.log(np.clip(probabilities[name][rows].astype(np.float64), _EPSILON, 1.0)).tolist()
        for name in fact.heads
    ]
    for j, row in enumerate(rows):
        logs = [head_logs[j] for head_logs in every]
        # Per running sum, the likeliest choice of classes so far and the log-probability of all of them: a
        # head of a few classes on a few heads.
        best: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}
        mass: dict[int, float] = {0: 0.0}
        for head_values, head_logs in zip(values, logs, strict=True):
            grown: dict[int, tuple[float, tuple[int, ...]]] = {}
            summed: dict[int, float] = {}
            for total, (score, chosen) in best.items():
                for k, value in enumerate(head_values):
                    if total + value > ceiling:
                        continue
                    if total + value not in grown or score + head_logs[k] > grown[total + value][0]:
                        grown[total + value] = (score + head_logs[k], (*chosen, k))
                    here = mass[total] + head_logs[k]
                    summed[total + value] = _logaddexp(summed.get(total + value, -math.inf), here)
            best, mass = grown, summed
        allowed = [t for t in fact.totals if t in best]
        if not allowed:
            continue
        if present is not None:
            # The presence head's reading is one more piece of evidence on "none" against "some".
            there = np.clip(probabilities[present[0]][row, present[1]], _EPSILON, 1.0 - _EPSILON)
            mass = {t: m + float(np.log(there if t else 1.0 - there)) for t, m in mass.items()}
        total = max(allowed, key=lambda t: mass[t])
        _, chosen = best[total]
        for name, k in zip(fact.heads, chosen, strict=True):
            own = int(probabilities[name][row].argmax())
            if own != k:
                _turn(probabilities[name][row], k, own)
        if present is not None:
            seen = probabilities[present[0]][row]
            shows = (present[1], 1 - present[1]) if total else (1 - present[1], present[1])
            if int(seen.argmax()) != shows[0]:
                _turn(seen, *shows)


def _yes_index(predictions: CellPredictions, name: str, yes: str, purpose: str) -> int:
    """The index of class ``yes`` on the yes/no head ``name``, which reads ``purpose``."""
    head = next((h for h in predictions.heads if h.name == name), None)
    if head is None or len(head.classes) != 2 or yes not in head.classes:
        raise ValueError(f"no yes/no head {name!r} with a class {yes!r} to read {purpose} by")
    return head.classes.index(yes)


def _need_classes(predictions: CellPredictions, fact: Needs) -> tuple[int, dict[str, int]]:
    """The index of class ``fact.yes`` on the needed head, and on each of the heads that need it."""

    def yes(name: str) -> int:
        return _yes_index(predictions, name, fact.yes, "a need")

    return yes(fact.needed), {name: yes(name) for name in fact.heads}


def _needs(
    predictions: CellPredictions,
    index: dict[CellKey, int],
    probabilities: dict[str, NDArray[np.float32]],
    fact: Needs,
) -> None:
    """Each cell's ``fact.heads`` and the head they need, read together: of the ways its readings may be
    (each taken as independent of the others), those with a head at yes and the needed one at no cannot be.
    With needed-yes read p and each head yes read d_i, the chance of needed-yes is p / Z and of head i's yes
    p d_i / Z, where Z = p + (1 - p) times the chance that no head reads yes. Changes ``probabilities`` in
    place."""
    needed, yes = _need_classes(predictions, fact)
    rows = np.array([index[key] for key in fact.keys], dtype=np.intp)
    p = probabilities[fact.needed][rows, needed].astype(np.float64)
    none = np.ones(len(rows))
    for name, k in yes.items():
        none *= 1.0 - probabilities[name][rows, k]
    z = np.clip(p + (1.0 - p) * none, _EPSILON, None)
    for name, k in yes.items():
        heads = probabilities[name]
        heads[rows, k] = p * heads[rows, k] / z
        heads[rows, 1 - k] = 1.0 - heads[rows, k]
    own = probabilities[fact.needed]
    own[rows, needed] = p / z
    own[rows, 1 - needed] = 1.0 - own[rows, needed]


def _needed_after_counts(
    predictions: CellPredictions,
    index: dict[CellKey, int],
    probabilities: dict[str, NDArray[np.float32]],
    fact: Needs,
) -> None:
    """A cell where one of ``fact.heads`` reads yes and the needed head no (read together by
    :func:`_needs`, only a count can have put the piece there) reads the needed head yes, only just.
    Changes ``probabilities`` in place."""
    needed, yes = _need_classes(predictions, fact)
    rows = np.array([index[key] for key in fact.keys], dtype=np.intp)
    shown = np.zeros(len(rows), dtype=bool)
    for name, k in yes.items():
        shown |= probabilities[name][rows].argmax(axis=1) == k
    own = probabilities[fact.needed]
    for row in rows[shown & (own[rows].argmax(axis=1) != needed)]:
        _turn(own[row], needed, 1 - needed)


def _touching(
    predictions: CellPredictions,
    index: dict[CellKey, int],
    probabilities: dict[str, NDArray[np.float32]],
    fact: Touching,
) -> None:
    """Two touching edges read a and b: of the ways they may be together (each taken as independent of the
    other), those where they differ and neither is free cannot be, so each edge reads its share of the
    ways left. Where the other cell may hold no piece (its gate reads yes g), the edge keeps its own
    reading with the chance 1 - g. Then a cell's ``shows`` head read p, and its edges shown the class with
    the chance q = 1 - prod(1 - s_k), reads (p + q) / 2 where it holds a piece (with the chance 1 - g it
    keeps p): two readings of one thing, the crop's whole and its edges', averaged, so that where they
    disagree the cell reads unsure and is flagged. Pooled as independent evidence instead (p q / (p q +
    (1 - p)(1 - q))), a terrain head sure at 0.999 outweighed edges at 0.75 and the tile read surely wrong.
    Where an edge reads the class likeliest and the average says no, the cell reads it just
    (:data:`PLACED_BY_COUNT`, flagged), so that no tile reads an edge of water and no water (the figures:
    docs/experiments.md). Changes ``probabilities`` in place."""
    heads = {h.name: h for h in predictions.heads}
    missing = [n for n in (fact.gate, *fact.sides, *fact.shows) if n not in heads]
    missing += [n for _, a, _, b in fact.pairs for n in (a, b) if n not in heads]
    if missing or fact.yes not in heads[fact.gate].classes:
        named = ", ".join(repr(n) for n in sorted(set(missing)))
        raise ValueError(f"no heads {named} or no class {fact.yes!r} of {fact.gate!r} to read edges by")
    yes = heads[fact.gate].classes.index(fact.yes)
    gate = probabilities[fact.gate][:, yes].astype(np.float64)
    grouped: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for key, head, other, other_head in fact.pairs:
        grouped.setdefault((head, other_head), []).append((index[key], index[other]))
    before = {name: probabilities[name].copy() for pair in grouped for name in pair}
    for (head, other_head), cells in grouped.items():
        classes = heads[head].classes
        if heads[other_head].classes != classes:
            raise ValueError(f"edge heads {head!r} and {other_head!r} read different classes")
        free = np.array([c in fact.free for c in classes])
        allowed = np.eye(len(classes), dtype=bool) | free[:, None] | free[None, :]
        i, j = np.array(cells, dtype=np.intp).T
        a = before[head][i].astype(np.float64)
        b = before[other_head][j].astype(np.float64)
        joint = a[:, :, None] * b[:, None, :] * allowed
        total = np.clip(joint.sum(axis=(1, 2)), _EPSILON, None)[:, None]
        probabilities[head][i] = gate[j, None] * joint.sum(axis=2) / total + (1.0 - gate[j, None]) * a
        probabilities[other_head][j] = gate[i, None] * joint.sum(axis=1) / total + (1.0 - gate[i, None]) * b
    rows = np.array([index[key] for key in fact.keys], dtype=np.intp)
    for name in fact.shows:
        shown = heads[name].classes.index(fact.yes)
        none = np.ones(len(rows))
        edge_shows = np.zeros(len(rows), dtype=bool)
        for side in fact.sides:
            edges, k = probabilities[side][rows], heads[side].classes.index(name)
            none *= 1.0 - edges[:, k]
            edge_shows |= edges.argmax(axis=1) == k
        p = probabilities[name][rows, shown].astype(np.float64)
        both = (p + 1.0 - none) / 2.0
        # The reading stays whole: a cell shows what one of its edges reads likeliest, if only just.
        both = np.where(edge_shows, np.maximum(both, PLACED_BY_COUNT), both)
        averaged = gate[rows] * both + (1.0 - gate[rows]) * p
        probabilities[name][rows, shown] = averaged
        probabilities[name][rows, 1 - shown] = 1.0 - averaged


def _turn(cell: NDArray[np.float32], to: int, against: int) -> None:
    """``cell`` (one cell's probabilities, changed in place) read as class ``to`` only just, against class
    ``against``: a count turned it, so it is flagged."""
    cell[:] = 0.0
    cell[to], cell[against] = PLACED_BY_COUNT, 1.0 - PLACED_BY_COUNT


def _arranged(p: NDArray[np.float32], absent: int, struck: list[int]) -> NDArray[np.float32]:
    """Cells' probabilities (n, classes) given the likeliest arrangement of distinct pieces: an assignment
    of cells to pieces (each once) or to "absent" (any number) of greatest joint log-probability; the
    ``struck`` classes are no piece that can be there."""
    n = len(p)
    p = p.copy()
    p[:, struck] = 0.0
    cost = -np.log(np.clip(p.astype(np.float64), _EPSILON, 1.0))
    pieces = np.delete(np.arange(p.shape[1]), absent)
    # Columns: each piece once, then one "absent" per cell, so every cell may be empty.
    matrix = np.hstack([cost[:, pieces], np.repeat(cost[:, [absent]], n, axis=1)])
    cells, columns = linear_sum_assignment(matrix)
    chosen = columns < len(pieces)
    taken = np.zeros(p.shape)
    taken[cells[chosen], pieces[columns[chosen]]] = 1.0
    # Per cell, the pieces the other cells hold.
    elsewhere = taken.sum(axis=0, keepdims=True) - taken
    out: NDArray[np.float64] = p.astype(np.float64) * (1.0 - elsewhere)
    out /= np.clip(out.sum(axis=1, keepdims=True), _EPSILON, None)
    return out.astype(np.float32)


def apart(
    boards: Sequence[CellPredictions], fact: OneEach
) -> tuple[list[CellPredictions], list[frozenset[CellKey]]]:
    """The boards' predictions read so that no two cells of ``fact.region``, on any of them, show the same
    piece, and per board the cells that read alike at first (each cell of each such pair), to be checked.

    Where no two cells read alike, the boards are returned as they are. Else the likeliest arrangement of
    distinct pieces is found, each cell reading one made of its heads' :data:`_RIVALS` likeliest classes and
    at least :data:`_RIVAL_FLOOR` likely: an assignment of cells to pieces of greatest joint
    log-probability. A cell the arrangement reads otherwise than its own likeliest reads
    :data:`PLACED_BY_COUNT` sure on each head it turns, so that it is flagged; one no such piece is left for
    keeps its own reading (the game's check then refuses the table)."""
    cells = [
        (b, i) for b, board in enumerate(boards) for i, key in enumerate(board.keys) if key[0] == fact.region
    ]
    alike: list[set[CellKey]] = [set() for _ in boards]

    def own(b: int, i: int) -> tuple[int, ...]:
        return tuple(int(boards[b].probabilities[h][i].argmax()) for h in fact.heads)

    seen: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for cell in cells:
        seen.setdefault(own(*cell), []).append(cell)
    for group in seen.values():
        for b, i in group if len(group) > 1 else ():
            alike[b].add(boards[b].keys[i])
    if not any(alike):
        return list(boards), [frozenset() for _ in boards]
    columns: dict[tuple[int, ...], int] = {}
    costs: list[dict[int, float]] = []
    for b, i in cells:
        rows = [boards[b].probabilities[h][i].astype(np.float64) for h in fact.heads]
        tops = [np.argsort(-row, kind="stable")[:_RIVALS] for row in rows]
        options: dict[int, float] = {}
        for piece in np.stack(np.meshgrid(*tops, indexing="ij"), axis=-1).reshape(-1, len(rows)):
            likely = math.prod(float(row[c]) for row, c in zip(rows, piece, strict=True))
            if likely >= _RIVAL_FLOOR or tuple(piece) == tuple(row.argmax() for row in rows):
                cost = -math.log(max(likely, _EPSILON))
                options[columns.setdefault(tuple(int(c) for c in piece), len(columns))] = cost
        costs.append(options)
    matrix = np.full((len(cells), len(columns)), _CARD)
    for row, options in enumerate(costs):
        for column, cost in options.items():
            matrix[row, column] = cost
    rows, chosen = linear_sum_assignment(matrix)
    pieces = list(columns)
    out = [{h: p.copy() for h, p in board.probabilities.items()} for board in boards]
    for row, column in zip(rows, chosen, strict=True):
        b, i = cells[row]
        before = own(b, i)
        if matrix[row, column] >= _CARD or pieces[column] == before:
            continue
        for head, to, against in zip(fact.heads, pieces[column], before, strict=True):
            if to != against:
                _turn(out[b][head][i], to, against)
    return [
        CellPredictions(board.keys, board.heads, probabilities, board.embedding)
        for board, probabilities in zip(boards, out, strict=True)
    ], [frozenset(keys) for keys in alike]
