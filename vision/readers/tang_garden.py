"""Tang Garden's reader: the shared garden board's tiles, decorations, characters and landscape tiles.

Cell labels (:meth:`TangReader.cell_labels`, which the synthetic table draws from too): a grid cell is ``...``
or a tile token, then ``/KIND`` per decoration (``/tree:SPECIES``), then ``@NAME:FACING``; a landscape slot is
its icons joined by ``+``, or ``.``.

Heads. ``tile``: whether a tile lies on the space; one yes/no head per terrain (``greenery``, ``water``,
``rock``: whether any of the tile's edges shows it; "no" on an empty space), from which the tile's token is
put together. Each terrain is learnt from every tile rather than from the few of each of the eight
combinations a single head over the tokens had to tell apart. Where a tile's token names its edges, one
head per edge (``edge-N``... each one of the edges a tile may show) reads it too: two tiles laid side by
side show the same edge (:meth:`TangReader.touching`), so a terrain hidden under a miniature on one shows
on its neighbour. One yes/no head per decoration design, since a tile may hold any
two of them, even two trees of different species; tree heads are numbered by the species' place in the
setup's ``tree_species``, the order the tree designs are printed in. ``character`` and its ``facing``. On
landscape slots, ``tile`` (whether a landscape tile lies in the slot, seen by its hills even where a
miniature hides its icons) and one head per icon counting it (a large tile may show one icon twice).

Characters are 30 mm tall: seen obliquely, a top face lands up to a tile away from where the miniature
stands, so crops carry context and the classifier learns to follow the body down to its footprint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring import tang_garden
from scoring.core import require_valid
from scoring.fields import as_int, as_object, item_path, reject_unknown
from scoring.grid import cell_name
from vision.geometry import CellKey
from vision.profile import BoardProfile, Region
from vision.reader_api import (
    IGNORE,
    CellLabels,
    Counted,
    Distinct,
    Head,
    Needs,
    ReaderBase,
    Reading,
    ShiftedLook,
    Summed,
    Touching,
    TurnedLook,
    class_index,
)

TERRAIN_HEADS = tang_garden.TERRAINS
# A tile's north, east, south and west edges, each one of tang_garden.EDGES.
EDGE_HEADS = tuple(f"edge-{side}" for side in tang_garden.SIDES)
TREE_HEADS = tuple(f"tree-{i + 1}" for i in range(len(tang_garden.DEFAULT_TREE_SPECIES)))
OTHER_DECORATIONS = tuple(k for k in tang_garden.DECORATION_KINDS if k != "tree")
DECORATION_HEADS = (*TREE_HEADS, *OTHER_DECORATIONS)
ICON_HEADS = tuple(f"icon-{icon}" for icon in tang_garden.ICONS)
ICON_COUNTS = ("0", "1", "2")
NO_CHARACTER = "none"
EMPTY_SLOT = "."
YES_NO = ("no", "yes")
# Facing is trained on characters only, so its confidence elsewhere means nothing: it is checked in notes.
GRID_HEADS = ("tile", *TERRAIN_HEADS, *DECORATION_HEADS, "character")
SLOT_HEADS = ("tile", *ICON_HEADS)
# As the pipeline's threshold for a cell: a facing less sure than this is worth a look.
UNSURE_FACING = 0.9
# Profile set-up only the reader uses: how many icons a landscape tile of each size shows, which the
# rulebook does not say; the table's own tiles do (the rule engine refuses what it does not know).
READER_SETUP = ("landscape_icons",)
SLOT_SIZES = ("large", "small")


def landscape_icons(profile: BoardProfile) -> dict[str, int]:
    """Per slot size (``large``, ``small``) the profile names, how many icons each landscape tile of that
    size shows (``setup.landscape_icons``); a size it leaves out may show any number."""
    path = "setup.landscape_icons"
    raw = as_object(profile.setup.get("landscape_icons", {}), path)
    reject_unknown(raw, SLOT_SIZES, path)
    most = len(tang_garden.ICONS) * (len(ICON_COUNTS) - 1)
    return {size: as_int(n, item_path(path, size), 1, most) for size, n in raw.items()}


def side_regions(side: str) -> tuple[str, ...]:
    """A side's landscape regions in the order the state lists its slots: the large ones first."""
    return f"landscape-large:{side}", f"landscape-small:{side}"


class TangReader(ReaderBase):
    game: str = tang_garden.GAME
    regions: tuple[str, ...] = ("grid", *(r for side in tang_garden.SIDES for r in side_regions(side)))
    heads: tuple[Head, ...] = (
        Head("tile", YES_NO),
        *(Head(name, YES_NO) for name in TERRAIN_HEADS),
        *(Head(name, tang_garden.EDGES) for name in EDGE_HEADS),
        *(Head(name, YES_NO) for name in DECORATION_HEADS),
        Head("character", (NO_CHARACTER, *tang_garden.CHARACTERS)),
        Head("facing", tang_garden.SIDES),
        *(Head(name, ICON_COUNTS) for name in ICON_HEADS),
    )
    # A top face lands up to some 30 mm from its footprint (see the module's docstring), yet a tile's own
    # edges and the landscape icons need detail: 12 mm of context is the measured middle, and 96 pixels show
    # which way a miniature faces (docs/experiments.md has the figures behind each choice here).
    context_mm: float = 12.0
    crop_px: int = 96
    # Upright: art drawn upright reads worse learnt at four angles; a turned crop rules out the turned look.
    lean_up: bool = False
    # A miniature's top seen from above is the same figure whichever way up the crop is, its facing turned
    # with it: training adds each character crop turned by quarters (lab/train/classifier.py
    # with_turned_copies), and reading averages the four. A top leaning out of its tile's crop shows only in
    # part which way it faces, so the facing is read from a crop moved along the lean, the identity from both.
    # 30 mm is how tall the synthetic table draws the miniatures: the real ones' is not known.
    turned_look: TurnedLook | None = TurnedLook(
        "character",
        NO_CHARACTER,
        compass=("facing",),
        unturned=("character",),
        top_mm=30.0,
        # How far along the lean: the top near the crop's middle, some body below it.
        along=0.8,
        regions=("grid",),
    )
    # Cells read unsure (below 0.95) are read again from crops cut 1 mm off along each diagonal and averaged:
    # a detail a few pixels across reads one way from one cut and another from the next. 0.95 keeps a photo
    # within twice a Sanssouci one's time. The facing is read by the turned look instead.
    shifted_look: ShiftedLook | None = ShiftedLook(1.0, 0.95, skip=("facing",))
    # Photos taken at a slant hide more under the miniatures and lean them further over their neighbours:
    # beyond 30 degrees off straight above, scores are exact far less often (docs/benchmarks.md).
    slant_limit_deg: float | None = 30.0

    def _head(self, name: str) -> Head:
        return next(h for h in self.heads if h.name == name)

    def region_heads(self, region: str) -> tuple[str, ...]:
        return GRID_HEADS if region == "grid" else SLOT_HEADS

    def cell_labels(self, profile: BoardProfile, state: Mapping[str, Any]) -> CellLabels:
        board = valid_table(state).board
        grid = profile.region("grid")
        labels = [
            [board.tiles[r][c] if grid.exists(r, c) else "" for c in range(grid.cols)]
            for r in range(grid.rows)
        ]
        on_tile: dict[tuple[int, int], list[str]] = {}
        for d in board.decorations:
            on_tile.setdefault(d.cell, []).append(decoration_label(d))
        for (r, c), kinds in on_tile.items():
            labels[r][c] += "".join(f"/{k}" for k in sorted(kinds))
        for ch in sorted(board.characters, key=lambda ch: ch.name):
            labels[ch.cell[0]][ch.cell[1]] += f"@{ch.name}:{ch.facing}"
        out: dict[str, list[list[str]]] = {"grid": labels}
        for side in tang_garden.SIDES:
            for (region, r, c), slot in landscape_slots(profile, board.landscapes, side):
                rows = out.setdefault(region.name, [["."] * region.cols for _ in range(region.rows)])
                rows[r][c] = "+".join(sorted(slot)) or "."
        return out

    def distinct(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Distinct, ...]:
        """Each miniature is on the board once at most: two tiles read as the emperor hold him and another.
        Every miniature on the board was placed by the player who owns it, so when the hand entry says who
        owns which characters, only those can stand there; and each player always keeps one on its card
        (the rulebook), so all of a player's others stand on the board."""
        grid = tuple(("grid", r, c) for r, c in profile.region("grid").cells())
        owners = _owners(hand)
        allowed = frozenset().union(*owners) if owners else None
        return (Distinct("character", NO_CHARACTER, grid, allowed, owners),)

    def needs(self, profile: BoardProfile) -> tuple[Needs, ...]:
        """A decoration stands only on a tile showing its terrain (the rulebook's Place a Decoration: a tree
        on greenery), so a decoration seen is evidence of its terrain, and a tile seen without the terrain
        evidence against the decoration."""
        grid = tuple(("grid", r, c) for r, c in profile.region("grid").cells())
        return tuple(
            Needs(tuple(h for h in DECORATION_HEADS if _needs(h) == t), t, "yes", grid) for t in TERRAIN_HEADS
        )

    def touching(self, profile: BoardProfile) -> tuple[Touching, ...]:
        """Two tiles laid side by side show the same along their shared edge, or one a wall there (the
        rulebook's Build the Garden), and a tile shows a terrain where one of its edges does: a tile's
        terrain half hidden under a miniature shows on its neighbours' edges too."""
        grid = tuple(("grid", r, c) for r, c in profile.region("grid").cells())
        pairs = tuple(
            (("grid", *cell), f"edge-{side}", ("grid", *other), f"edge-{back}")
            for cell, side, other, back in tang_garden.touching_edges(tang_setup(profile))
        )
        free = frozenset({tang_garden.WALL})
        return (Touching("tile", "yes", pairs, free, grid, EDGE_HEADS, TERRAIN_HEADS),)

    def counted(self, profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[Counted | Summed, ...]:
        """A landscape slot holds a tile showing as many icons as the profile says tiles of its size show,
        or none, and none just where no tile is seen there: a miniature leaning over a slot may hide a
        tile's icons, seldom the whole tile: the icons of a tile whose icons are hidden are the likeliest,
        flagged.

        Each decoration on the board was placed from a card its player keeps (the rulebook's Place a
        Decoration; nothing in the game takes one off), so when every player's cards are entered, the board
        holds as many of each design as the cards name: a decoration the camera missed beside a miniature
        is found, one it saw in a miniature's colours is not."""
        icons = landscape_icons(profile)
        slots = tuple(
            Summed(ICON_HEADS, keys, frozenset({0, icons[size]}), present=("tile", "yes"))
            for size, keys in _slots(profile)
            if size in icons
        )
        totals = _card_totals(hand)
        if totals is None:
            return slots
        grid = tuple(("grid", r, c) for r, c in profile.region("grid").cells())
        species = tang_setup(profile).tree_species
        named = {head: f"tree:{sp}" for head, sp in zip(TREE_HEADS, species, strict=False)}
        named |= {kind: kind for kind in OTHER_DECORATIONS}
        return (*slots, *(Counted(head, "yes", grid, totals.get(card, 0)) for head, card in named.items()))

    def targets(self, profile: BoardProfile, key: CellKey, label: str) -> dict[str, int]:
        out = {h.name: IGNORE for h in self.heads}
        if key[0] != "grid":
            out["tile"] = int(label != EMPTY_SLOT)
            icons = [] if label == EMPTY_SLOT else label.split("+")
            for icon, name in zip(tang_garden.ICONS, ICON_HEADS, strict=True):
                out[name] = class_index(self._head(name), str(icons.count(icon)))
            return out
        rest, _, character = label.partition("@")
        token, *decorations = rest.split("/")
        tile = tang_garden.read_tile(token)
        out["tile"] = int(tile is not None)
        for name in TERRAIN_HEADS:
            out[name] = int(tile is not None and name in tile.terrains)
        if tile is not None and tile.edges:
            for name, edge in zip(EDGE_HEADS, tile.edges, strict=True):
                out[name] = class_index(self._head(name), edge)
        species = tang_setup(profile).tree_species
        shown = set()
        for decoration in decorations:
            kind, _, name = decoration.partition(":")
            if kind == "tree":
                if name not in species[: len(TREE_HEADS)]:
                    raise ValueError(f"tree species {name!r} has no design among the first {len(TREE_HEADS)}")
                shown.add(TREE_HEADS[species.index(name)])
            elif kind in OTHER_DECORATIONS:
                shown.add(kind)
            else:
                raise ValueError(f"{decoration!r} is not a Tang Garden decoration")
        for name in DECORATION_HEADS:
            out[name] = int(name in shown)
        name, _, facing = character.partition(":")
        out["character"] = class_index(self._head("character"), name or NO_CHARACTER)
        if name:
            out["facing"] = class_index(self._head("facing"), facing)
        return out

    def assemble(
        self, profile: BoardProfile, readings: Mapping[CellKey, Reading], hand: Mapping[str, Any]
    ) -> dict[str, Any]:
        grid = profile.region("grid")
        species = tang_setup(profile).tree_species
        rows: list[str] = []
        decorations: list[dict[str, Any]] = []
        for r in range(grid.rows):
            tokens = []
            for c in range(grid.cols):
                reading = readings[("grid", r, c)]
                tokens.append(_token(reading))
                for i, head in enumerate(TREE_HEADS):
                    if reading[head][0] == "yes" and i < len(species):
                        decorations.append({"cell": [r, c], "kind": "tree", "species": species[i]})
                decorations += [
                    {"cell": [r, c], "kind": kind} for kind in OTHER_DECORATIONS if reading[kind][0] == "yes"
                ]
            rows.append(" ".join(tokens))
        # Read with :meth:`distinct`, no miniature stands on two tiles.
        standing = sorted(
            (reading["character"][0], [r, c], reading["facing"][0])
            for (region, r, c), reading in readings.items()
            if region == "grid" and reading["character"][0] != NO_CHARACTER
        )
        characters = [{"name": name, "cell": cell, "facing": facing} for name, cell, facing in standing]
        landscapes = {side: _side_slots(profile, readings, side) for side in tang_garden.SIDES}
        return {
            "game": self.game,
            "setup": rules_setup(profile),
            "tiles": rows,
            "decorations": decorations,
            "characters": characters,
            "landscapes": landscapes,
            "players": [dict(p) for p in hand.get("players", [])],
        }

    def notes(
        self,
        profile: BoardProfile,
        readings: Mapping[CellKey, Reading],
        state: Mapping[str, Any] | None = None,
    ) -> tuple[str, ...]:
        out = []
        for r, c in profile.region("grid").cells():
            reading = readings[("grid", r, c)]
            name = reading["character"][0]
            facing, confidence = reading["facing"]
            if name != NO_CHARACTER and confidence < UNSURE_FACING:
                out.append(
                    f"which way the {name} at {cell_name((r, c))} faces is unsure (read as facing "
                    f"{tang_garden.FACING_WORDS.get(facing, facing)}): check it"
                )
        return tuple(out)


def _owners(hand: Mapping[str, Any]) -> tuple[frozenset[str], ...]:
    """Per player that lists any, the characters it owns (none when not entered yet)."""
    players = hand.get("players")
    if not isinstance(players, list):
        return ()
    owned = (
        frozenset(n for n in p["characters"] if n in tang_garden.CHARACTERS)
        for p in players
        if isinstance(p, Mapping) and isinstance(p.get("characters"), list)
    )
    return tuple(o for o in owned if o)


def _card_totals(hand: Mapping[str, Any]) -> dict[str, int] | None:
    """The decoration cards all players keep, by type (``bird``, ``tree:pine``...); ``None`` unless every
    player's cards are entered as counts (the scoring module reports a malformed entry)."""
    players = hand.get("players")
    if not isinstance(players, list) or not players:
        return None
    totals: dict[str, int] = {}
    for player in players:
        cards = player.get("cards") if isinstance(player, Mapping) else None
        if not isinstance(cards, Mapping):
            return None
        trees = cards.get("trees", {})
        if not isinstance(trees, Mapping):
            return None
        kinds = ((k, cards.get(k, 0)) for k in tang_garden.CARD_COUNTS)
        for card, n in (*kinds, *((f"tree:{sp}", n) for sp, n in trees.items())):
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                return None
            totals[card] = totals.get(card, 0) + n
    return totals


def _needs(head: str) -> str | None:
    """The terrain the decoration a head reads stands on (``None``: any, a bridge)."""
    return tang_garden.DECORATION_TERRAIN.get("tree" if head in TREE_HEADS else head)


def _token(reading: Reading) -> str:
    if reading["tile"][0] == "no":
        return tang_garden.NO_TILE
    greenery, water, rock = (reading[name][0] == "yes" for name in TERRAIN_HEADS)
    return tang_garden.Tile(greenery, water, rock).token


def _slots(profile: BoardProfile) -> list[tuple[str, tuple[CellKey, ...]]]:
    """Per landscape region, the size of its slots and their cells."""
    out = []
    for side in tang_garden.SIDES:
        for name, size in zip(side_regions(side), SLOT_SIZES, strict=True):
            out.append((size, tuple((name, r, c) for r, c in profile.region(name).cells())))
    return out


def rules_setup(profile: BoardProfile) -> dict[str, Any]:
    """The profile's set-up as the rule engine takes it: without what only the reader uses."""
    return {k: v for k, v in profile.setup.items() if k not in READER_SETUP}


def tang_setup(profile: BoardProfile) -> tang_garden.TangSetup:
    return tang_garden.parse_setup(rules_setup(profile), "setup")


def _side_slots(profile: BoardProfile, readings: Mapping[CellKey, Reading], side: str) -> list[list[str]]:
    slots = []
    for name in side_regions(side):
        for r, c in profile.region(name).cells():
            reading = readings[(name, r, c)]
            slot: list[str] = []
            for icon, head in zip(tang_garden.ICONS, ICON_HEADS, strict=True):
                slot += [icon] * int(reading[head][0])
            slots.append(slot)
    return slots


def valid_table(state: Mapping[str, Any]) -> tang_garden.TangTable:
    """The state, refused unless the rules accept it: a picture of an impossible table is no truth."""
    table = tang_garden.parse(state)
    require_valid(tang_garden.check(table))
    return table


def slot_cells(profile: BoardProfile, side: str) -> list[tuple[Region, int, int]]:
    """Where slot k of ``side``'s landscape list lies: large slots first, then small, in reading order."""
    cells: list[tuple[Region, int, int]] = []
    for size in ("large", "small"):
        region = profile.region(f"landscape-{size}:{side}")
        cells += [(region, r, c) for r, c in region.cells()]
    return cells


def landscape_slots(
    profile: BoardProfile, landscapes: tang_garden.Landscapes, side: str
) -> list[tuple[tuple[Region, int, int], tang_garden.Slot]]:
    """Each slot cell of ``side`` with the tile in it (``()`` when the slot is empty)."""
    cells = slot_cells(profile, side)
    slots = landscapes.side(side)
    if len(slots) > len(cells):
        raise ValueError(f"{len(slots)} landscape tiles on side {side}; the profile has {len(cells)} slots")
    return list(zip(cells, (*slots, *([()] * (len(cells) - len(slots)))), strict=True))


def decoration_label(decoration: tang_garden.Decoration) -> str:
    if decoration.kind == "tree" and decoration.species is not None:
        return f"tree:{decoration.species}"
    return decoration.kind


def reader_for(profile: BoardProfile) -> TangReader:
    landscape_icons(profile)  # checked now, not at the first photo
    return TangReader()


READERS = (TangReader(),)
