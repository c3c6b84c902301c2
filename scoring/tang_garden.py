"""Tang Garden: final scoring of the shared garden board and of every player's cards.

Rulebook (ThunderGryph Games 2020), "Scoring": coins in hand; 6 per pair of bird and fish cards and per pair
of lotus and peony cards; 2 per bridge card; 12 for most and 6 for second most pavilion cards (a tie for most
splits 18 and leaves no second); 1/4/9/16/25 per set of 1..5 different tree cards; and per character on the
board, 1 per decoration in its line of sight plus its sight preference. Ties go to the most landscape tokens,
then the most cubes in the furthest track positions.

The board size, the tree species and how gaps in the garden affect sight are not known until a real copy is
measured, so they live in :class:`TangSetup` (the state's ``setup``), not in the rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.core import Problem, ScoreBreakdown, ScoreLine, TableScore, require_valid
from scoring.fields import (
    as_bool,
    as_choice,
    as_int,
    as_list,
    as_object,
    as_str,
    get,
    item_path,
    reject_unknown,
)
from scoring.grid import Cell, cell_name
from scoring.hand import Choices, Form, Group, Number, Players, named
from scoring.words import counted

GAME = "tang-garden"
TITLE = "Tang Garden"

TERRAINS = ("greenery", "water", "rock")
TERRAIN_LETTERS = "gwr"
NO_TILE = "..."
# A tile's edge shows a terrain, a footpath or a wall; a wall may lie against any edge (Build the Garden).
WALL = "wall"
EDGES = ("footpath", *TERRAINS, WALL)
EDGE_LETTERS: Mapping[str, str] = {"footpath": "p", "greenery": "g", "water": "w", "rock": "r", WALL: "x"}
EDGE_NAMES: Mapping[str, str] = {letter: name for name, letter in EDGE_LETTERS.items()}

CARD_COUNTS = ("bird", "fish", "lotus", "peony", "bridge", "pavilion")
DECORATION_KINDS = ("tree", "peony", "bird", "lotus", "fish", "bridge", "pavilion")
# "Area of the garden board where the player must place the decoration"; the rulebook gives bridges their
# own kind of area, so no terrain is required under a bridge.
DECORATION_TERRAIN: Mapping[str, str] = {
    "tree": "greenery",
    "peony": "greenery",
    "bird": "greenery",
    "lotus": "water",
    "fish": "water",
    "pavilion": "rock",
}
# Placeholders until the real tree cards are photographed; the 1-4-9-16-25 set table suggests five species.
DEFAULT_TREE_SPECIES = ("pine", "bamboo", "maple", "willow", "plum")

CHARACTERS = (
    "architect",
    "child",
    "empress",
    "hermit",
    "poet",
    "student",
    "emperor",
    "lady",
    "merchant",
    "monk",
    "officer",
    "sword-dancer",
)
ICONS = ("construction", "animal", "dragon", "sun", "moon", "village", "temple", "waterfall")
SIDES = ("N", "E", "S", "W")
STEPS: Mapping[str, Cell] = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
MAX_SLOTS_PER_SIDE = 5  # 3 small + 2 large landscape tiles
CUBES_PER_PLAYER = 3
# What a player can hold, as far as the game allows. Each decoration card kept puts one of the 36 decorations
# in the garden; 16 landscape tokens lie on the board. The rulebook sets no limit to coins: besides the
# player board's 21, a laid garden tile pays a few at most, and no game comes near 500.
DECORATIONS = 36
LANDSCAPE_TOKENS = 16
MAX_COINS = 500
MIN_PLAYERS, MAX_PLAYERS = 1, 4

PAIR_POINTS = 6
BRIDGE_POINTS = 2
PAVILION_MOST_POINTS = 12
PAVILION_SECOND_POINTS = 6
PAVILION_TIED_MOST_POOL = 18

DECORATION_SIGHT_POINTS = 1
# Sight preferences that pay per icon of one type on the active landscape: character -> (icon, points each).
ICON_SIGHT: Mapping[str, tuple[str, int]] = {
    "architect": ("construction", 3),
    "child": ("animal", 2),
    "emperor": ("dragon", 5),
    "merchant": ("village", 2),
    "monk": ("temple", 3),
    "sword-dancer": ("waterfall", 2),
}
# Sight preferences that pay per garden tile with a terrain in the line of sight, capped.
TERRAIN_SIGHT: Mapping[str, str] = {"hermit": "rock", "poet": "water", "student": "greenery"}
TERRAIN_TILE_POINTS = 2
TERRAIN_SIGHT_CAP = 10
EMPRESS_POINTS = 9
EMPRESS_RIVALS = ("emperor", "lady")
EMPRESS_RIVAL_PENALTY = 3
LADY_ONE_POINTS = 6
LADY_BOTH_POINTS = 12
OFFICER_ICON_POINTS = 1

TIEBREAK_RULE = "most landscape tokens, then most cubes in the furthest track positions; else a shared win"

Slot = tuple[str, ...]


# A space's tile in the players' words, for correcting one by hand: every token of terrains (``---``: a tile
# of only footpaths and walls), the edge form aside, which only the reader writes.
TILE_WORDS: Mapping[str, str] = {
    "g--": "greenery",
    "-w-": "water",
    "--r": "rock",
    "gw-": "greenery and water",
    "g-r": "greenery and rock",
    "-wr": "water and rock",
    "gwr": "greenery, water and rock",
    "---": "footpaths only",
}
FACING_WORDS: Mapping[str, str] = {"N": "north", "E": "east", "S": "south", "W": "west"}


# What the players type in (scoring.hand): what each holds in front of them; the board is read from photos.
HAND_FORM: Form = (
    Players(
        "players",
        "Players",
        (
            Number("coins", "Coins", 0, MAX_COINS, default=None, required=True),
            Group(
                "cards",
                "Decoration cards",
                (
                    *(Number(kind, f"{kind.capitalize()} cards", 0, DECORATIONS) for kind in CARD_COUNTS),
                    Group(
                        "trees",
                        "Tree cards",
                        tuple(
                            Number(s, f"{s.capitalize()} cards", 0, DECORATIONS) for s in DEFAULT_TREE_SPECIES
                        ),
                    ),
                ),
            ),
            Choices("characters", "Characters you own", named(CHARACTERS)),
            Number("landscape_tokens", "Landscape tokens", 0, LANDSCAPE_TOKENS),
            Number(
                "cubes",
                "Cubes in the furthest track spaces",
                0,
                CUBES_PER_PLAYER,
                hint="for a tie only",
            ),
        ),
        1,
        4,
    ),
)


@dataclass(frozen=True)
class TangSetup:
    """What the rulebook leaves open, with the best-known defaults.

    An 8 x 8 grid holds the 60 garden tiles plus the 2 x 2 starting tile in the centre.
    ``gaps_block_sight``: whether a space with no tile ends a line of sight (the rulebook is silent).
    ``own_tile_counts_for_terrain``: whether the Hermit, Poet and Student count the tile they stand on, as
    decorations there count. ``pavilion_needs_card``: whether a player needs a pavilion card to share the
    pavilion award.
    """

    rows: int = 8
    cols: int = 8
    gaps_block_sight: bool = False
    own_tile_counts_for_terrain: bool = True
    pavilion_needs_card: bool = True
    tree_species: tuple[str, ...] = DEFAULT_TREE_SPECIES


@dataclass(frozen=True)
class Tile:
    """The terrains a garden tile shows; a tile of only footpaths and walls has none. ``edges``: its north,
    east, south and west edges (each of :data:`EDGES`) when they are known, which show its terrains."""

    greenery: bool = False
    water: bool = False
    rock: bool = False
    edges: tuple[str, ...] = ()

    @classmethod
    def from_edges(cls, edges: Sequence[str]) -> Tile:
        """The tile whose N, E, S, W edges are ``edges``.

        Example:
            >>> Tile.from_edges(("rock", "footpath", "wall", "greenery")).terrains
            ('greenery', 'rock')
        """
        if len(edges) != len(SIDES) or not set(edges) <= set(EDGES):
            raise ValueError(f"a tile has {len(SIDES)} edges, each one of {', '.join(EDGES)}: not {edges!r}")
        greenery, water, rock = (t in edges for t in TERRAINS)
        return cls(greenery, water, rock, tuple(edges))

    @property
    def terrains(self) -> tuple[str, ...]:
        flags = (self.greenery, self.water, self.rock)
        return tuple(t for t, present in zip(TERRAINS, flags, strict=True) if present)

    @property
    def token(self) -> str:
        """The grid text form: its edges' letters (:data:`EDGE_LETTERS`) N, E, S, W where they are known,
        else ``g``, ``w``, ``r`` in that order, ``-`` where a terrain is absent.

        Example:
            >>> Tile(greenery=True, rock=True).token
            'g-r'
            >>> Tile.from_edges(("rock", "footpath", "wall", "rock")).token
            'rpxr'
        """
        if self.edges:
            return "".join(EDGE_LETTERS[e] for e in self.edges)
        present = self.terrains
        return "".join(
            letter if t in present else "-" for letter, t in zip(TERRAIN_LETTERS, TERRAINS, strict=True)
        )


def is_token(token: str) -> bool:
    """Whether ``token`` is a tile token (terrains, or edges) or ``...`` (no tile)."""
    if token == NO_TILE:
        return True
    if len(token) == len(SIDES):
        return all(ch in EDGE_NAMES for ch in token)
    return len(token) == len(TERRAIN_LETTERS) and all(
        ch in (letter, "-") for ch, letter in zip(token, TERRAIN_LETTERS, strict=True)
    )


def read_tile(token: str) -> Tile | None:
    """The tile a token names, ``None`` for ``...``; raises ValueError for anything else.

    Example:
        >>> read_tile("-w-"), read_tile("...")
        (Tile(greenery=False, water=True, rock=False, edges=()), None)
        >>> read_tile("wpxp").edges
        ('water', 'footpath', 'wall', 'footpath')
    """
    if not is_token(token):
        raise ValueError(f"unknown tile token {token!r}")
    if token == NO_TILE:
        return None
    if len(token) == len(SIDES):
        return Tile.from_edges(tuple(EDGE_NAMES[ch] for ch in token))
    return Tile(token[0] == "g", token[1] == "w", token[2] == "r")


def start_cells(setup: TangSetup) -> tuple[Cell, ...]:
    """The four spaces under the 2 x 2 starting tile, in the middle of the grid."""
    r0, c0 = (setup.rows - 2) // 2, (setup.cols - 2) // 2
    return (r0, c0), (r0, c0 + 1), (r0 + 1, c0), (r0 + 1, c0 + 1)


def touching_edges(setup: TangSetup) -> tuple[tuple[Cell, str, Cell, str], ...]:
    """Every two spaces' edges that touch where tiles lie side by side: ``(cell, side, neighbour, side)``,
    the first cell north or west of the second. The starting tile's quarters are one printed tile, so
    the edges between them are not laid against each other.

    Example:
        >>> pairs = touching_edges(TangSetup())
        >>> pairs[0], len(pairs)
        (((0, 0), 'E', (0, 1), 'W'), 108)
    """
    inside = set(start_cells(setup))
    pairs = []
    for r in range(setup.rows):
        for c in range(setup.cols):
            for side, back, (dr, dc) in (("E", "W", (0, 1)), ("S", "N", (1, 0))):
                other = (r + dr, c + dc)
                if other[0] < setup.rows and other[1] < setup.cols and not {(r, c), other} <= inside:
                    pairs.append(((r, c), side, other, back))
    return tuple(pairs)


def edges_match(edge: str, other: str) -> bool:
    """Whether two touching edges may lie side by side: the same terrain or footpath, or a wall against
    anything (the rulebook's Build the Garden)."""
    return edge == other or WALL in (edge, other)


@dataclass(frozen=True)
class Decoration:
    """A 3D decoration on the garden; ``species`` names a tree's species (``None``: unread, or not a tree)."""

    cell: Cell
    kind: str
    species: str | None = None


@dataclass(frozen=True)
class Character:
    """A character miniature on the garden, facing ``N``, ``E``, ``S`` or ``W`` (``N`` = towards row 0)."""

    name: str
    cell: Cell
    facing: str


@dataclass(frozen=True)
class Landscapes:
    """The landscape tiles slotted into each side of the board; each slot lists the icons on its tile."""

    north: tuple[Slot, ...] = ()
    east: tuple[Slot, ...] = ()
    south: tuple[Slot, ...] = ()
    west: tuple[Slot, ...] = ()

    def side(self, facing: str) -> tuple[Slot, ...]:
        """The active landscape of a character facing ``facing``: every slot on that side."""
        return {"N": self.north, "E": self.east, "S": self.south, "W": self.west}[facing]


@dataclass(frozen=True)
class TangBoard:
    """The shared garden board as the camera sees it; ``tiles`` holds one token per cell, row 0 north."""

    tiles: tuple[tuple[str, ...], ...]
    decorations: tuple[Decoration, ...] = ()
    characters: tuple[Character, ...] = ()
    landscapes: Landscapes = field(default_factory=Landscapes)


@dataclass(frozen=True)
class TangCards:
    """A player's decoration cards by type; ``trees`` counts tree cards per species."""

    bird: int = 0
    fish: int = 0
    lotus: int = 0
    peony: int = 0
    bridge: int = 0
    pavilion: int = 0
    trees: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TangPlayer:
    """What a player holds, entered by hand: coins, cards, owned characters and the tie-break counts.

    ``cubes`` is how many of the player's cubes are in the furthest track positions.
    """

    name: str
    coins: int
    cards: TangCards = field(default_factory=TangCards)
    characters: tuple[str, ...] = ()
    landscape_tokens: int = 0
    cubes: int = 0


@dataclass(frozen=True)
class TangTable:
    setup: TangSetup
    board: TangBoard
    players: tuple[TangPlayer, ...]


def to_text(board: TangBoard) -> str:
    """The board's tile grid, one line per row; :func:`from_text` reads it back."""
    return "\n".join(" ".join(row) for row in board.tiles)


def from_text(
    text: str,
    decorations: tuple[Decoration, ...] = (),
    characters: tuple[Character, ...] = (),
    landscapes: Landscapes | None = None,
) -> TangBoard:
    """A board from its grid text (blank lines and extra spaces ignored) and what stands on it.

    Example:
        >>> from_text("g-- ...\\n--r -w-").tiles
        (('g--', '...'), ('--r', '-w-'))
    """
    tiles = tuple(tuple(line.split()) for line in text.strip().splitlines() if line.strip())
    return TangBoard(tiles, decorations, characters, landscapes or Landscapes())


def tile_at(board: TangBoard, cell: Cell) -> Tile | None:
    """The tile at ``cell`` of a checked board, ``None`` for an empty space."""
    return read_tile(board.tiles[cell[0]][cell[1]])


def line_of_sight(setup: TangSetup, board: TangBoard, character: Character) -> tuple[Cell, ...]:
    """The tiles a character sees: its own, then every tile straight ahead to the board edge, in order.

    Decorations and characters never block sight. Spaces with no tile are never part of it and, unless
    ``setup.gaps_block_sight``, sight carries on past them. Call only on a board that :func:`check` accepts.

    Example:
        >>> b = from_text("g-- g-- g--\\ng-- ... g--")
        >>> line_of_sight(TangSetup(rows=2, cols=3), b, Character("poet", (1, 0), "E"))
        ((1, 0), (1, 2))
    """
    dr, dc = STEPS[character.facing]
    r, c = character.cell
    cells: list[Cell] = []
    while 0 <= r < setup.rows and 0 <= c < setup.cols:
        if tile_at(board, (r, c)) is not None:
            cells.append((r, c))
        elif setup.gaps_block_sight:
            break
        r, c = r + dr, c + dc
    return tuple(cells)


def parse_setup(data: object, path: str) -> TangSetup:
    obj = as_object(data, path)
    known = (
        "rows",
        "cols",
        "gaps_block_sight",
        "own_tile_counts_for_terrain",
        "pavilion_needs_card",
        "tree_species",
    )
    reject_unknown(obj, known, path)
    default = TangSetup()
    species_path = item_path(path, "tree_species")
    raw_species = as_list(get(obj, "tree_species", path, list(default.tree_species)), species_path)
    return TangSetup(
        as_int(get(obj, "rows", path, default.rows), item_path(path, "rows"), 1, 40),
        as_int(get(obj, "cols", path, default.cols), item_path(path, "cols"), 1, 40),
        as_bool(
            get(obj, "gaps_block_sight", path, default.gaps_block_sight), item_path(path, "gaps_block_sight")
        ),
        as_bool(
            get(obj, "own_tile_counts_for_terrain", path, default.own_tile_counts_for_terrain),
            item_path(path, "own_tile_counts_for_terrain"),
        ),
        as_bool(
            get(obj, "pavilion_needs_card", path, default.pavilion_needs_card),
            item_path(path, "pavilion_needs_card"),
        ),
        tuple(as_str(v, item_path(species_path, i)) for i, v in enumerate(raw_species)),
    )


def dump_setup(setup: TangSetup) -> dict[str, Any]:
    return {
        "rows": setup.rows,
        "cols": setup.cols,
        "gaps_block_sight": setup.gaps_block_sight,
        "own_tile_counts_for_terrain": setup.own_tile_counts_for_terrain,
        "pavilion_needs_card": setup.pavilion_needs_card,
        "tree_species": list(setup.tree_species),
    }


def _parse_cell(data: object, path: str) -> Cell:
    raw = as_list(data, path, 2)
    return as_int(raw[0], item_path(path, 0)), as_int(raw[1], item_path(path, 1))


def _parse_decoration(data: object, path: str) -> Decoration:
    obj = as_object(data, path)
    reject_unknown(obj, ("cell", "kind", "species"), path)
    species = get(obj, "species", path, None)
    return Decoration(
        _parse_cell(get(obj, "cell", path), item_path(path, "cell")),
        as_str(get(obj, "kind", path), item_path(path, "kind")),
        None if species is None else as_str(species, item_path(path, "species")),
    )


def _parse_character(data: object, path: str) -> Character:
    obj = as_object(data, path)
    reject_unknown(obj, ("name", "cell", "facing"), path)
    return Character(
        as_str(get(obj, "name", path), item_path(path, "name")),
        _parse_cell(get(obj, "cell", path), item_path(path, "cell")),
        as_str(get(obj, "facing", path), item_path(path, "facing")),
    )


def _parse_slot(data: object, path: str) -> Slot:
    return tuple(as_str(icon, item_path(path, j)) for j, icon in enumerate(as_list(data, path)))


def _parse_landscapes(data: object, path: str) -> Landscapes:
    obj = as_object(data, path)
    reject_unknown(obj, SIDES, path)
    sides: dict[str, tuple[Slot, ...]] = {}
    for side in SIDES:
        side_path = item_path(path, side)
        slots = as_list(get(obj, side, path, []), side_path)
        sides[side] = tuple(_parse_slot(slot, item_path(side_path, i)) for i, slot in enumerate(slots))
    return Landscapes(sides["N"], sides["E"], sides["S"], sides["W"])


def _parse_cards(data: object, path: str) -> TangCards:
    obj = as_object(data, path)
    reject_unknown(obj, (*CARD_COUNTS, "trees"), path)
    counts = {
        key: as_int(get(obj, key, path, 0), item_path(path, key), 0, DECORATIONS) for key in CARD_COUNTS
    }
    trees_path = item_path(path, "trees")
    trees = {
        species: as_int(n, item_path(trees_path, species), 0, DECORATIONS)
        for species, n in as_object(get(obj, "trees", path, {}), trees_path).items()
    }
    return TangCards(
        counts["bird"],
        counts["fish"],
        counts["lotus"],
        counts["peony"],
        counts["bridge"],
        counts["pavilion"],
        trees,
    )


def _parse_player(data: object, path: str, index: int) -> TangPlayer:
    obj = as_object(data, path)
    reject_unknown(obj, ("name", "coins", "cards", "characters", "landscape_tokens", "cubes"), path)
    chars_path = item_path(path, "characters")
    characters = tuple(
        as_str(v, item_path(chars_path, i))
        for i, v in enumerate(as_list(get(obj, "characters", path, []), chars_path))
    )
    return TangPlayer(
        as_str(get(obj, "name", path, f"Player {index + 1}"), item_path(path, "name")),
        # No default: coins are most of a score, so a forgotten field must not score 0.
        as_int(get(obj, "coins", path), item_path(path, "coins"), 0, MAX_COINS),
        _parse_cards(get(obj, "cards", path, {}), item_path(path, "cards")),
        characters,
        as_int(
            get(obj, "landscape_tokens", path, 0), item_path(path, "landscape_tokens"), 0, LANDSCAPE_TOKENS
        ),
        as_int(get(obj, "cubes", path, 0), item_path(path, "cubes"), 0, CUBES_PER_PLAYER),
    )


def parse(data: object) -> TangTable:
    """A table from decoded JSON; errors name the field (``players[0].cards.bird``).

    Labels (tile tokens, kinds, names, facings, icons) are read as text and judged by :func:`check`.
    """
    obj = as_object(data, "")
    reject_unknown(obj, ("game", "setup", "tiles", "decorations", "characters", "landscapes", "players"), "")
    if "game" in obj:
        as_choice(obj["game"], "game", (GAME,))
    setup = parse_setup(get(obj, "setup", "", {}), "setup")
    tiles = tuple(
        tuple(as_str(row, item_path("tiles", r)).split())
        for r, row in enumerate(as_list(get(obj, "tiles", ""), "tiles"))
    )
    decorations = tuple(
        _parse_decoration(d, item_path("decorations", i))
        for i, d in enumerate(as_list(get(obj, "decorations", "", []), "decorations"))
    )
    characters = tuple(
        _parse_character(c, item_path("characters", i))
        for i, c in enumerate(as_list(get(obj, "characters", "", []), "characters"))
    )
    landscapes = _parse_landscapes(get(obj, "landscapes", "", {}), "landscapes")
    players = tuple(
        _parse_player(p, item_path("players", i), i)
        for i, p in enumerate(as_list(get(obj, "players", ""), "players"))
    )
    return TangTable(setup, TangBoard(tiles, decorations, characters, landscapes), players)


def dump(table: TangTable) -> dict[str, Any]:
    """Decoded JSON that :func:`parse` reads back to an equal table."""
    board = table.board
    decorations: list[dict[str, Any]] = []
    for d in board.decorations:
        entry: dict[str, Any] = {"cell": list(d.cell), "kind": d.kind}
        if d.species is not None:
            entry["species"] = d.species
        decorations.append(entry)
    players = [
        {
            "name": p.name,
            "coins": p.coins,
            "cards": {**{key: getattr(p.cards, key) for key in CARD_COUNTS}, "trees": dict(p.cards.trees)},
            "characters": list(p.characters),
            "landscape_tokens": p.landscape_tokens,
            "cubes": p.cubes,
        }
        for p in table.players
    ]
    return {
        "game": GAME,
        "setup": dump_setup(table.setup),
        "tiles": [" ".join(row) for row in board.tiles],
        "decorations": decorations,
        "characters": [{"name": c.name, "cell": list(c.cell), "facing": c.facing} for c in board.characters],
        "landscapes": {side: [list(slot) for slot in board.landscapes.side(side)] for side in SIDES},
        "players": players,
    }


def _stored_token(board: TangBoard, cell: Cell) -> str | None:
    r, c = cell
    if 0 <= r < len(board.tiles) and 0 <= c < len(board.tiles[r]):
        return board.tiles[r][c]
    return None


def _unknown(where: str, label: str, known: Sequence[str]) -> Problem:
    return Problem("unknown-label", where, f"{label!r} is not one of {', '.join(known)}")


def _setup_problems(setup: TangSetup) -> list[Problem]:
    problems: list[Problem] = []
    for key, value in (("rows", setup.rows), ("cols", setup.cols)):
        if value < 1:
            problems.append(Problem("bad-setup", f"setup.{key}", f"{value}: a grid needs at least 1"))
    if len(set(setup.tree_species)) != len(setup.tree_species) or "" in setup.tree_species:
        problems.append(
            Problem("bad-setup", "setup.tree_species", "species names must be distinct and not empty")
        )
    return problems


def _grid_problems(setup: TangSetup, board: TangBoard) -> list[Problem]:
    problems: list[Problem] = []
    if len(board.tiles) != setup.rows:
        problems.append(Problem("grid-size", "tiles", f"expected {setup.rows} rows, got {len(board.tiles)}"))
    for r, row in enumerate(board.tiles):
        if len(row) != setup.cols:
            problems.append(
                Problem("grid-size", f"tiles[{r}]", f"expected {setup.cols} cells, got {len(row)}")
            )
        problems += [
            Problem(
                "unknown-label",
                f"tiles[{r}][{c}]",
                f"unknown tile {token!r}; expected g/w/r or - in each of 3 places, its 4 edges N, E, S, W "
                f"(each of {'/'.join(EDGE_NAMES)}), or {NO_TILE} for no tile",
            )
            for c, token in enumerate(row)
            if not is_token(token)
        ]
    if problems:
        return problems
    for cell, side, other, back in touching_edges(setup):
        tile, neighbour = tile_at(board, cell), tile_at(board, other)
        if tile is None or neighbour is None or not tile.edges or not neighbour.edges:
            continue
        edge, facing = tile.edges[SIDES.index(side)], neighbour.edges[SIDES.index(back)]
        if not edges_match(edge, facing):
            problems.append(
                Problem(
                    "unmatched-edges",
                    f"tiles[{cell[0]}][{cell[1]}]",
                    f"its {side} edge ({edge}) lies against the {back} edge of {cell_name(other)} "
                    f"({facing}): touching edges must show the same terrain, unless one is a wall",
                )
            )
    return problems


def _placement_problems(setup: TangSetup, board: TangBoard, cell: Cell, where: str) -> list[Problem]:
    r, c = cell
    if not (0 <= r < setup.rows and 0 <= c < setup.cols):
        return [
            Problem("impossible-position", where, f"[{r}, {c}] is off the {setup.rows} x {setup.cols} grid")
        ]
    if _stored_token(board, cell) == NO_TILE:
        return [Problem("impossible-position", where, f"no garden tile at {cell_name(cell)}")]
    return []


def _decoration_problems(setup: TangSetup, board: TangBoard) -> list[Problem]:
    problems: list[Problem] = []
    for i, d in enumerate(board.decorations):
        where = f"decorations[{i}]"
        placement = _placement_problems(setup, board, d.cell, f"{where}.cell")
        problems += placement
        if d.kind not in DECORATION_KINDS:
            problems.append(_unknown(f"{where}.kind", d.kind, DECORATION_KINDS))
            continue
        if d.species is not None and d.kind != "tree":
            problems.append(
                Problem("unknown-label", f"{where}.species", f"a {d.kind} has no species, only trees do")
            )
        elif d.species is not None and d.species not in setup.tree_species:
            problems.append(_unknown(f"{where}.species", d.species, setup.tree_species))
        token = _stored_token(board, d.cell)
        needed = DECORATION_TERRAIN.get(d.kind)
        if placement or needed is None or token is None or not is_token(token):
            continue
        tile = read_tile(token)
        if tile is not None and needed not in tile.terrains:
            problems.append(
                Problem(
                    "impossible-position",
                    f"{where}.cell",
                    f"a {d.kind} needs {needed}; {tile.token} has none",
                )
            )
    return problems


def _character_problems(setup: TangSetup, board: TangBoard) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, ch in enumerate(board.characters):
        where = f"characters[{i}]"
        if ch.name not in CHARACTERS:
            problems.append(_unknown(f"{where}.name", ch.name, CHARACTERS))
        elif ch.name in seen:
            problems.append(
                Problem("duplicate-character", f"{where}.name", f"the {ch.name} is on the board twice")
            )
        seen.add(ch.name)
        problems += _placement_problems(setup, board, ch.cell, f"{where}.cell")
        if ch.facing not in SIDES:
            problems.append(_unknown(f"{where}.facing", ch.facing, SIDES))
    return problems


def _landscape_problems(board: TangBoard) -> list[Problem]:
    problems: list[Problem] = []
    for side in SIDES:
        slots = board.landscapes.side(side)
        if len(slots) > MAX_SLOTS_PER_SIDE:
            problems.append(
                Problem(
                    "impossible-count",
                    f"landscapes.{side}",
                    f"{len(slots)} landscape tiles; a side has {MAX_SLOTS_PER_SIDE} slots",
                )
            )
        problems += [
            _unknown(f"landscapes.{side}[{i}][{j}]", icon, ICONS)
            for i, slot in enumerate(slots)
            for j, icon in enumerate(slot)
            if icon not in ICONS
        ]
    return problems


def _player_problems(setup: TangSetup, players: Sequence[TangPlayer]) -> list[Problem]:
    problems: list[Problem] = []
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        problems.append(
            Problem(
                "impossible-count",
                "players",
                f"{len(players)} players entered; Tang Garden is played by {MIN_PLAYERS} to {MAX_PLAYERS}",
            )
        )
    names: set[str] = set()
    owners: dict[str, str] = {}
    for i, p in enumerate(players):
        where = f"players[{i}]"
        if p.name in names:
            problems.append(
                Problem("duplicate-player", f"{where}.name", f"two players are called {p.name!r}")
            )
        names.add(p.name)
        counts = [
            ("coins", p.coins),
            *((f"cards.{key}", getattr(p.cards, key)) for key in CARD_COUNTS),
            *((f"cards.trees.{species}", n) for species, n in p.cards.trees.items()),
            ("landscape_tokens", p.landscape_tokens),
            ("cubes", p.cubes),
        ]
        problems += [
            Problem("impossible-count", f"{where}.{key}", f"{n} cannot be negative")
            for key, n in counts
            if n < 0
        ]
        if p.cubes > CUBES_PER_PLAYER:
            problems.append(
                Problem(
                    "impossible-count", f"{where}.cubes", f"{p.cubes}; a player has {CUBES_PER_PLAYER} cubes"
                )
            )
        problems += [
            _unknown(f"{where}.cards.trees.{species}", species, setup.tree_species)
            for species in p.cards.trees
            if species not in setup.tree_species
        ]
        for j, name in enumerate(p.characters):
            at = f"{where}.characters[{j}]"
            if name not in CHARACTERS:
                problems.append(_unknown(at, name, CHARACTERS))
            elif name in owners:
                problems.append(
                    Problem("shared-character", at, f"the {name} is already owned by {owners[name]}")
                )
            else:
                owners[name] = p.name
    return problems


def check(table: TangTable) -> tuple[Problem, ...]:
    """Every problem that makes the table unscorable (an empty tuple when it is fine)."""
    setup, board = table.setup, table.board
    return (
        *_setup_problems(setup),
        *_grid_problems(setup, board),
        *_decoration_problems(setup, board),
        *_character_problems(setup, board),
        *_landscape_problems(board),
        *_player_problems(setup, table.players),
    )


def _standings(counts: Sequence[int], needs_card: bool) -> list[tuple[int, str]]:
    floor = 1 if needs_card else 0
    ranked = sorted({n for n in counts if n >= floor}, reverse=True)
    most = ranked[0] if ranked else None
    second = ranked[1] if len(ranked) > 1 else None
    tied_most = counts.count(most) if most is not None else 0
    out: list[tuple[int, str]] = []
    for n in counts:
        if n < floor:
            out.append((0, "no card, no award"))
        elif n == most and tied_most == 1:
            out.append((PAVILION_MOST_POINTS, "most"))
        elif n == most:
            out.append(
                (
                    PAVILION_TIED_MOST_POOL // tied_most,
                    f"{tied_most} tied for most, sharing {PAVILION_TIED_MOST_POOL}",
                )
            )
        elif n == second and tied_most > 1:
            out.append((0, "second, but the most is tied so no second award"))
        elif n == second:
            k = counts.count(second)
            place = f"{k} tied for second, sharing {PAVILION_SECOND_POINTS}" if k > 1 else "second most"
            out.append((PAVILION_SECOND_POINTS // k, place))
        else:
            out.append((0, "neither most nor second"))
    return out


def pavilion_awards(counts: Sequence[int], needs_card: bool = True) -> tuple[int, ...]:
    """Each player's pavilion award from everyone's pavilion card counts, in the same order.

    Example:
        >>> pavilion_awards([3, 3, 1]), pavilion_awards([4, 2, 2]), pavilion_awards([0, 0])
        ((9, 9, 0), (12, 3, 3), (0, 0))
    """
    return tuple(points for points, _ in _standings(counts, needs_card))


def tree_sets(counts: Sequence[int]) -> tuple[int, ...]:
    """Sizes of the sets of different trees, taking one card of every species left each time.

    Taking every species left each time is optimal: it makes the sets as unequal as any split can, and a sum
    of squares rewards unequal sets.

    Example:
        >>> tree_sets([2, 1, 1])
        (3, 1)
    """
    remaining = [n for n in counts if n > 0]
    sizes: list[int] = []
    while remaining:
        sizes.append(len(remaining))
        remaining = [n - 1 for n in remaining if n > 1]
    return tuple(sizes)


def _pairs(rule: str, a: tuple[str, int], b: tuple[str, int]) -> ScoreLine:
    pairs = min(a[1], b[1])
    cards = f"{counted(a[1], a[0] + ' card')}, {counted(b[1], b[0] + ' card')}"
    detail = f"{cards}: {counted(pairs, 'pair')} x {PAIR_POINTS}"
    return ScoreLine(rule, detail, PAIR_POINTS * pairs)


def _trees(cards: TangCards) -> ScoreLine:
    sizes = tree_sets(list(cards.trees.values()))
    if not sizes:
        return ScoreLine("Trees", "no tree card", 0)
    detail = "sets of " + ", ".join(str(s) for s in sizes) + " = " + " + ".join(str(s * s) for s in sizes)
    return ScoreLine("Trees", detail, sum(s * s for s in sizes))


def _title(name: str) -> str:
    return name.replace("-", " ").title()


def _sight_preference(
    setup: TangSetup, board: TangBoard, character: Character, sight: tuple[Cell, ...]
) -> tuple[int, str]:
    name = character.name
    icons = [icon for slot in board.landscapes.side(character.facing) for icon in slot]
    where = f"on the {FACING_WORDS.get(character.facing, character.facing)} landscape"
    if name in TERRAIN_SIGHT:
        terrain = TERRAIN_SIGHT[name]
        looked_at = [c for c in sight if setup.own_tile_counts_for_terrain or c != character.cell]
        tiles = [tile_at(board, c) for c in looked_at]
        n = sum(tile is not None and terrain in tile.terrains for tile in tiles)
        points = min(TERRAIN_TILE_POINTS * n, TERRAIN_SIGHT_CAP)
        return (
            points,
            f"{counted(n, terrain + ' tile')} in sight x {TERRAIN_TILE_POINTS} (at most {TERRAIN_SIGHT_CAP})"
            f" = {points}",
        )
    if name == "empress":
        rivals = [c.name for c in board.characters if c.name in EMPRESS_RIVALS and c.cell in sight]
        seen = ", ".join(rivals) if rivals else "neither emperor nor lady"
        points = EMPRESS_POINTS - EMPRESS_RIVAL_PENALTY * len(rivals)
        return points, f"{EMPRESS_POINTS} - {EMPRESS_RIVAL_PENALTY} x {len(rivals)} ({seen} in sight)"
    if name == "lady":
        present = [icon for icon in ("sun", "moon") if icon in icons]
        points = (0, LADY_ONE_POINTS, LADY_BOTH_POINTS)[len(present)]
        return points, f"{' and '.join(present) or 'no sun or moon'} {where} = {points}"
    if name == "officer":
        points = OFFICER_ICON_POINTS * len(icons)
        return points, f"{counted(len(icons), 'icon')} {where} x {OFFICER_ICON_POINTS} = {points}"
    icon, each = ICON_SIGHT[name]
    n = icons.count(icon)
    return each * n, f"{counted(n, icon + ' icon')} {where} x {each} = {each * n}"


def character_line(setup: TangSetup, board: TangBoard, character: Character) -> ScoreLine:
    """What one character on a checked board scores: its decorations in sight plus its sight preference.

    Example:
        >>> east = Landscapes(east=(("dragon",),))
        >>> b = from_text("g-- g--", (Decoration((0, 1), "bird"),), landscapes=east)
        >>> character_line(TangSetup(rows=1, cols=2), b, Character("emperor", (0, 0), "E")).points
        6
    """
    sight = line_of_sight(setup, board, character)
    decorations = sum(d.cell in sight for d in board.decorations)
    points, preference = _sight_preference(setup, board, character, sight)
    detail = (
        f"at {cell_name(character.cell)} facing {FACING_WORDS.get(character.facing, character.facing)}: "
        f"{counted(decorations, 'decoration')} in sight"
        f" x {DECORATION_SIGHT_POINTS}; {preference}"
    )
    return ScoreLine(_title(character.name), detail, DECORATION_SIGHT_POINTS * decorations + points)


def _breakdown(table: TangTable, player: TangPlayer, pavilions: tuple[int, str]) -> ScoreBreakdown:
    cards = player.cards
    on_board = {c.name: c for c in table.board.characters}
    lines = [
        ScoreLine("Coins", f"{player.coins} in hand", player.coins),
        _pairs("Birds & fish", ("bird", cards.bird), ("fish", cards.fish)),
        _pairs("Lotus & peonies", ("lotus", cards.lotus), ("peony", cards.peony)),
        ScoreLine(
            "Bridges", f"{counted(cards.bridge, 'card')} x {BRIDGE_POINTS}", BRIDGE_POINTS * cards.bridge
        ),
        ScoreLine("Pavilions", f"{counted(cards.pavilion, 'card')}: {pavilions[1]}", pavilions[0]),
        _trees(cards),
    ]
    for name in player.characters:
        character = on_board.get(name)
        if character is None:
            lines.append(ScoreLine(_title(name), "not on the garden board, so it sees nothing", 0))
        else:
            lines.append(character_line(table.setup, table.board, character))
    return ScoreBreakdown(
        GAME,
        tuple(lines),
        player=player.name,
        tiebreak=(player.landscape_tokens, player.cubes),
        tiebreak_rule=TIEBREAK_RULE,
    )


def score(table: TangTable) -> TableScore:
    """Every player's score; raises :class:`~scoring.core.InvalidState` if :func:`check` finds problems.

    Characters on the board that nobody owns (the solo game's neutral ones) score for nobody.
    """
    require_valid(check(table))
    standings = _standings([p.cards.pavilion for p in table.players], table.setup.pavilion_needs_card)
    return TableScore(
        GAME,
        tuple(_breakdown(table, p, standing) for p, standing in zip(table.players, standings, strict=True)),
    )
