"""The contract between a game's board and the cell classifier: heads, classes, and the Reader protocol.

A :class:`Reader` names the profile regions to classify, the classifier heads (each a list of classes), the
crop geometry, how a truth cell label (as the synthetic table writes it) becomes a class per head, and how
per-cell readings plus hand-entered fields assemble into the scoring module's state JSON. Training and
inference share it, so the two can never disagree on what a class means. Each game's reader lives in
:mod:`vision.readers` or a module of its own, registered there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from vision.geometry import CellKey
from vision.profile import BoardProfile

IGNORE = -1  # a head that says nothing about this cell (e.g. tile floor on a coin-track space)
# Below this, a cell's reading is shown to the player as uncertain instead of trusted silently.
LOW_CONFIDENCE = 0.9

Reading = Mapping[str, tuple[str, float]]  # head -> (class, confidence)
# Region name -> rows of truth cell labels ("" where no cell exists), as a reader's ``targets`` takes them.
CellLabels = Mapping[str, list[list[str]]]


def check_fits(profile: BoardProfile, labels: CellLabels) -> None:
    """Refuse a state whose grids are not this board's (another row, a shorter one): taught from it, every
    cell past the difference would learn another's label. ValueError names the first that differs."""
    for region in profile.regions:
        rows = labels.get(region.name)
        if rows is None:
            continue
        if len(rows) != region.rows or any(len(row) != region.cols for row in rows):
            widths = sorted({len(row) for row in rows})
            shown = "/".join(str(w) for w in widths) or "no"
            raise ValueError(
                f"the state's {region.name} has {len(rows)} rows of {shown} cells, the board "
                f"{region.rows} rows of {region.cols}"
            )


# The classes of a facing head, clockwise from north: a quarter turn clockwise moves each to the next.
COMPASS = ("N", "E", "S", "W")


@dataclass(frozen=True)
class Head:
    name: str
    classes: tuple[str, ...]
    # What a class is called for the players (a result's captions), where its name is a code (Zen Garden's
    # floor "B" is "cherry blossom"); "" leaves it unsaid. Classes not listed are shown as they are.
    words: Mapping[str, str] | None = field(default=None, compare=False)

    def word(self, value: str) -> str:
        return self.words.get(value, value) if self.words is not None else value


@dataclass(frozen=True)
class OneOf:
    """A fact of the board, not of a cell: exactly one of ``keys`` shows a piece on head ``head`` (any class
    but ``absent``), as a coin track holds one coin marker."""

    head: str
    absent: str
    keys: tuple[CellKey, ...]


@dataclass(frozen=True)
class Distinct:
    """A fact of the board, not of a cell: each piece on head ``head`` (any class but ``absent``) is unique,
    so no two of ``keys`` show the same one, as a Tang Garden miniature stands on the board once at most.
    ``allowed``: the only pieces that can be there (the ones the players say they own), or ``None``.
    ``kept``: per owner, the pieces it owns, of which it keeps exactly one off the board (a Tang Garden
    player's active character, on its card), so all the others stand on it."""

    head: str
    absent: str
    keys: tuple[CellKey, ...]
    allowed: frozenset[str] | None = None
    kept: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True)
class Known:
    """A fact of the board's printing, not of a cell: cells ``keys`` show one of ``classes`` on head ``head``
    (Sanssouci's row 1 is printed built). Read with :func:`vision.read.reconstruct.settle`, where a reading
    against it stands only if it is far likelier: a board read the wrong way up still fails its game's
    check rather than being made to pass it."""

    head: str
    keys: tuple[CellKey, ...]
    classes: frozenset[str]


@dataclass(frozen=True)
class Counted:
    """A fact the hand entry gives, not a cell: exactly ``count`` of ``keys`` show ``present`` on head
    ``head``, as a Tang Garden board holds one bird for each bird card the players keep (each decoration is
    placed from a card its player keeps)."""

    head: str
    present: str
    keys: tuple[CellKey, ...]
    count: int


@dataclass(frozen=True)
class Landmark:
    """A piece every board of the game holds exactly once (a kingdom's castle), read as ``present`` on
    ``head``, and a mark every real board shows somewhere (a crown), absent where a cell reads ``unmarked``
    on ``marks``. A board on which several cells are each read surely as the piece, alone, is no board of
    the game (another game's board, read as one); nor is one on which the piece is nowhere seen and no cell
    shows a mark (an outline on bare table, or on part of another game's board). Neither is scored
    (:data:`vision.pipeline.LANDMARKS_MANY`, :data:`vision.pipeline.LANDMARK_SEEN`)."""

    head: str
    present: str
    marks: str
    unmarked: str
    mark: str  # the mark in the players' words


@dataclass(frozen=True)
class Summed:
    """A fact of the pieces, not of a cell: on each of ``keys`` the numbers ``heads`` read (their classes
    are counts) add up to one of ``totals``, as a Tang Garden landscape tile shows as many icons as the
    table's tiles of its size do, or none in an empty slot."""

    heads: tuple[str, ...]
    keys: tuple[CellKey, ...]
    totals: frozenset[int]
    # A yes/no head that reads whether the piece is there at all, and its "yes" class: the total is 0 just
    # where it reads otherwise (a landscape tile whose icon a miniature hides is still seen as a tile).
    present: tuple[str, str] | None = None


@dataclass(frozen=True)
class Needs:
    """A fact of play, not of a cell: on each of ``keys``, each of the yes/no heads ``heads`` reads ``yes``
    only where the yes/no head ``needed`` does, as a Tang Garden tree stands only on a tile with greenery."""

    heads: tuple[str, ...]
    needed: str
    yes: str
    keys: tuple[CellKey, ...]


@dataclass(frozen=True)
class Touching:
    """A fact of play, not of a cell: pieces laid side by side show the same along the edges that touch,
    unless either edge is one of ``free``, as two Tang Garden tiles show the same terrain along their shared
    edge unless one is a wall (the rulebook's Build the Garden). ``pairs``: (a cell, the head reading its
    edge that touches, the other cell, the head reading its edge); the edge heads share their classes. An
    edge holds another only where the yes/no head ``gate`` reads ``yes`` on both cells.

    ``shows``: yes/no heads named after an edge class (a terrain), each reading whether some edge of a
    cell's piece shows that class; ``sides``: the heads of a cell's edges, on each of ``keys``. A piece's
    edges are evidence of what it shows, so each cell's ``shows`` heads are read with its ``sides``."""

    gate: str
    yes: str
    pairs: tuple[tuple[CellKey, str, CellKey, str], ...]
    free: frozenset[str] = frozenset()
    keys: tuple[CellKey, ...] = ()
    sides: tuple[str, ...] = ()
    shows: tuple[str, ...] = ()


@dataclass(frozen=True)
class OneEach:
    """A fact of the game's pieces, not of a board: each piece is printed once, so no two cells of
    ``region``, on any of the table's boards, show the same classes on all of ``heads``, as no two Zen
    Garden tiles show the same floor, path and decoration. Read with
    :func:`vision.read.reconstruct.apart`."""

    region: str
    heads: tuple[str, ...]


@dataclass(frozen=True)
class TurnedLook:
    """Cells likely to hold a piece (head ``gate`` below even odds of ``absent``) are read again from their
    crop turned by each quarter, and some heads' readings averaged over the four: those whose model learnt
    them from crops so turned. ``compass`` heads name directions clockwise from north (N, E, S, W), which turn
    with the crop; ``unturned`` heads read the same whichever way up the crop is (a miniature's identity).
    One reading of a small cue (a miniature's face, some 24 pixels across) errs where its average over
    four does not.

    ``top_mm``: how tall the pieces stand. When given, the compass heads are read (four ways) from crops
    moved ``along`` (a share) of a piece's lean instead (:func:`vision.read.cells.cut_along_lean`), so that a
    top leaning out of its cell's crop is seen whole, and the unturned heads from both crops, averaged."""

    gate: str
    absent: str
    compass: tuple[str, ...] = ()
    unturned: tuple[str, ...] = ()
    top_mm: float = 0.0
    along: float = 0.5
    # The regions whose cells may hold a piece (every region when empty): elsewhere the gate head was never
    # taught, and what it says means nothing.
    regions: tuple[str, ...] = ()

    def absent_index(self, heads: tuple[Head, ...]) -> int:
        """The class index of ``absent`` on the gate head, once ``heads`` (a model's) hold every head this
        names and each compass head's classes are :data:`COMPASS`."""
        by_name = {h.name: h for h in heads}
        missing = [n for n in (self.gate, *self.compass, *self.unturned) if n not in by_name]
        if missing:
            raise ValueError(f"no head {', '.join(map(repr, missing))} to read turned")
        for name in self.compass:
            if by_name[name].classes != COMPASS:
                raise ValueError(f"head {name!r} turns as a compass, but its classes are not {COMPASS}")
        return class_index(by_name[self.gate], self.absent)


@dataclass(frozen=True)
class ShiftedLook:
    """Cells read unsure (any head of their region, ``skip`` aside, below ``sure``) are read again from four
    crops cut ``shift_mm`` off their place along each diagonal, and those heads' probabilities averaged over
    the five: a detail a few pixels across (a small decoration in a tile's corner, an icon) is read one way
    from one cut and another from the next, within the corner error the classifier learnt to forgive, and
    the average errs less than any one. ``skip``: heads read otherwise (a :class:`TurnedLook`'s), left as
    the cell's own crop reads them."""

    shift_mm: float
    sure: float
    skip: tuple[str, ...] = ()

    def offsets_mm(self) -> tuple[tuple[float, float], ...]:
        d = self.shift_mm
        return ((d, d), (-d, -d), (d, -d), (-d, d))


class Reader(Protocol):
    game: str
    regions: tuple[str, ...]
    heads: tuple[Head, ...]
    context_mm: float
    crop_px: int
    # Crops turned so that a standing piece's top lies above its footprint (see vision.read.cells.cut_cells).
    lean_up: bool
    # Which cells are read again turned by quarters, and which heads are averaged (None: no second look).
    turned_look: TurnedLook | None
    # Which cells are read again from crops cut a little off their place, averaged (None: read once).
    shifted_look: ShiftedLook | None
    # Beyond how many degrees off straight above a photo reads its boards measurably worse (its standing
    # pieces hide more), so that the player is told to take it from above (None: any slant reads alike).
    slant_limit_deg: float | None
    # The board reads and scores alike whichever way up it lies (a Kingdomino kingdom): no layout model turns
    # it, and any corner found may stand first.
    turns_freely: bool
    # The class of a cell with no tile, in heads a player teaches alone (a user's own labels): taught, its
    # looks tell a tile of a face never taught from a bare cell (calibration.enroll.BareLooks).
    bare: str | None
    # (head, class) of a square with no tile on a board laid tile by tile (a kingdom): on the outer ring such
    # a square shows the table, and one read otherwise that looks like the table beyond it is flagged
    # (vision.read.bare). None: the board is printed whole.
    edge_bare: tuple[str, str] | None
    # Such a board read with fewer tiles than this (squares not ``edge_bare``'s class) is none: an outline on
    # bare table or on a few loose tiles. 0: any.
    fewest_laid: int
    # The piece each board holds once (None: none): several cells read surely as it are no board of its game.
    landmark: Landmark | None
    # What the board's facts rule out, in its game's words: said where a cell read surely alone is read
    # otherwise with the rest of the board.
    ruled_out: str
    # A board of the game is read surely, its printing known to the models (drawn boards in art no model
    # learnt, no calibration: at most 7 % of cells unsure, the turn at least 0.99 sure, 160 boards of Alice's
    # Garden, Sanssouci, Zen Garden and Four Gardens): a board read with many cells unsure, or its turn in
    # doubt, may be another game's or none, and is not scored. An independent try saw a bare table, a window
    # and kingdoms scored as Alice's Garden, 22-37 of 48 cells unsure or the turn 0.9-0.99 sure. Tang
    # Garden from one slanted photo reads up to 46 % of a drawn board unsure: not so.
    printed_sure: bool
    # Each piece printed once (None: pieces may repeat): a photo's boards are read apart by it.
    one_each: OneEach | None

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        """Class index per head for a truth cell label (:data:`IGNORE` where a head does not apply)."""
        ...

    def region_heads(self, region: str) -> tuple[str, ...]:
        """The heads that mean something on a cell of ``region`` (the others are never trained there)."""
        ...

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        """The groups of cells of which exactly one holds a piece (read together: see
        :func:`vision.read.reconstruct.settle`)."""
        ...

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        """The groups of cells whose pieces are each unique, and which pieces the hand-entered fields allow
        (read together: see :func:`vision.read.reconstruct.settle`)."""
        ...

    def known(self, profile: BoardProfile) -> tuple[Known, ...]:
        """What the board's printing fixes about some cells (read with
        :func:`vision.read.reconstruct.settle`)."""
        ...

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted | Summed, ...]:
        """How many cells show a piece, where the hand-entered fields say, and how many pieces a cell shows,
        where the profile says (read with :func:`vision.read.reconstruct.settle`)."""
        ...

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        """Which pieces stand only with another thing on their cell (read with
        :func:`vision.read.reconstruct.settle`)."""
        ...

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        """Which pieces' edges show the same where they touch (read with
        :func:`vision.read.reconstruct.settle`)."""
        ...

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The scoring state of one board from its cells' readings and the hand-entered fields."""
        ...

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        """Every cell's truth label from a board's scoring state, the inverse of :meth:`assemble`: what
        teaching (enrolment) and training learn each cell's classes from, through :meth:`targets`."""
        ...

    def notes(
        self,
        profile: BoardProfile,
        readings: Mapping[CellKey, Reading],
        state: Mapping[str, Any] | None = None,
    ) -> tuple[str, ...]:
        """What the player should check that no single cell's confidence shows (e.g. a marker not seen);
        ``state``, the board's state as :meth:`assemble` made it (whose markers are in play)."""
        ...


class ReaderBase:
    """What a reader is unless its board says otherwise: crops upright, read once, any slant alike, and no
    fact of the board beyond its cells. A game's reader overrides what its board has."""

    context_mm: float = 3.0
    crop_px: int = 32
    lean_up: bool = False
    turned_look: TurnedLook | None = None
    shifted_look: ShiftedLook | None = None
    slant_limit_deg: float | None = None
    turns_freely: bool = False
    bare: str | None = None
    edge_bare: tuple[str, str] | None = None
    fewest_laid: int = 0
    landmark: Landmark | None = None
    ruled_out: str = (
        "a piece seen twice, one nobody owns, more or fewer than the cards say, against the printing"
    )
    one_each: OneEach | None = None
    printed_sure: bool = False

    def exactly_one(self, profile: BoardProfile) -> tuple[OneOf, ...]:
        return ()

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        return ()

    def known(self, profile: BoardProfile) -> tuple[Known, ...]:
        return ()

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted | Summed, ...]:
        return ()

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        return ()

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        return ()

    def notes(
        self,
        profile: BoardProfile,
        readings: Mapping[CellKey, Reading],
        state: Mapping[str, Any] | None = None,
    ) -> tuple[str, ...]:
        return ()


def class_index(head: Head, value: str) -> int:
    try:
        return head.classes.index(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not a class of head {head.name!r}: {', '.join(head.classes)}"
        ) from None


def grid_classes(
    profile: BoardProfile, readings: Mapping[CellKey, Reading], region: str, head: str
) -> list[list[str]]:
    spec = profile.region(region)
    return [[readings[(region, r, c)][head][0] for c in range(spec.cols)] for r in range(spec.rows)]


def likeliest(readings: Mapping[CellKey, Reading], group: OneOf) -> int:
    """The index in ``group.keys`` of the cell likeliest to hold the group's one piece."""

    def present(key: CellKey) -> float:
        cls, confidence = readings[key][group.head]
        return confidence if cls != group.absent else 1.0 - confidence

    return max(range(len(group.keys)), key=lambda i: present(group.keys[i]))
