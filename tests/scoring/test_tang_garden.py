"""Tang Garden rules: the worked examples of games.md 4.5, line of sight, check(), parsing and properties.

Every expected value below was worked out by hand from the rulebook, not read off the implementation.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from examples import EXAMPLES_DIR
from scoring.core import InvalidState, StateError, TableScore
from scoring.tang_garden import (
    GAME,
    TITLE,
    Character,
    Decoration,
    Landscapes,
    TangBoard,
    TangCards,
    TangPlayer,
    TangSetup,
    TangTable,
    Tile,
    check,
    dump,
    from_text,
    line_of_sight,
    parse,
    pavilion_awards,
    read_tile,
    score,
    to_text,
    tree_sets,
)

EXAMPLE = EXAMPLES_DIR / "tang-garden.json"
GREEN_8X8 = "\n".join(" ".join(["g--"] * 8) for _ in range(8))


def green_board(
    decorations: tuple[Decoration, ...] = (),
    characters: tuple[Character, ...] = (),
    landscapes: Landscapes | None = None,
) -> TangBoard:
    return from_text(GREEN_8X8, decorations, characters, landscapes)


def table(*players: TangPlayer, board: TangBoard | None = None, setup: TangSetup | None = None) -> TangTable:
    return TangTable(setup or TangSetup(), board or green_board(), players)


def points(result: TableScore, player: int, rule: str) -> int:
    (line,) = [line for line in result.players[player].lines if line.rule == rule]
    return line.points


def test_identity() -> None:
    assert (GAME, TITLE) == ("tang-garden", "Tang Garden")


# --- games.md 4.5 worked examples --------------------------------------------------------------------


def test_tc_tg_1_peony_with_an_earlier_lotus_scores_six() -> None:
    result = score(table(TangPlayer("Viola", 0, TangCards(lotus=1, peony=1))))
    assert points(result, 0, "Lotus & peonies") == 6
    assert result.players[0].total == 6


def test_tc_tg_2_emperor_facing_two_dragons() -> None:
    decorations = (
        Decoration((7, 2), "bird"),  # his own tile
        Decoration((3, 2), "tree", "pine"),
        Decoration((0, 2), "peony"),
        Decoration((3, 3), "bird"),  # beside his line, not in it
    )
    landscapes = Landscapes(
        north=(("dragon", "sun"), ("village",), ("dragon",)), east=(("dragon", "dragon"),)
    )
    board = green_board(decorations, (Character("emperor", (7, 2), "N"),), landscapes)
    result = score(table(TangPlayer("Viola", 0, characters=("emperor",)), board=board))
    # 2 dragons x 5 = 10, plus 3 decorations in his line of sight.
    assert points(result, 0, "Emperor") == 13


@pytest.mark.parametrize(
    ("cards", "rule", "expected"),
    [
        (TangCards(bird=2, fish=1), "Birds & fish", 6),
        (TangCards(lotus=3, peony=3), "Lotus & peonies", 18),
        (TangCards(bridge=3), "Bridges", 6),
        # {A, A, B, C}: a set {A, B, C} = 9 and a set {A} = 1.
        (TangCards(trees={"pine": 2, "bamboo": 1, "maple": 1}), "Trees", 10),
        (TangCards(trees={"pine": 1, "bamboo": 1, "maple": 1, "willow": 1, "plum": 1}), "Trees", 25),
        (TangCards(), "Trees", 0),
    ],
)
def test_decoration_cards(cards: TangCards, rule: str, expected: int) -> None:
    assert points(score(table(TangPlayer("Viola", 0, cards))), 0, rule) == expected


@pytest.mark.parametrize(
    ("counts", "expected"),
    [((3, 3, 1), (9, 9, 0)), ((4, 2, 2), (12, 3, 3)), ((5, 3, 1), (12, 6, 0)), ((2, 2, 2, 2), (4, 4, 4, 4))],
)
def test_pavilions_on_a_table(counts: tuple[int, ...], expected: tuple[int, ...]) -> None:
    players = [TangPlayer(f"P{i}", 0, TangCards(pavilion=n)) for i, n in enumerate(counts)]
    result = score(table(*players))
    assert tuple(points(result, i, "Pavilions") for i in range(len(counts))) == expected


@pytest.mark.parametrize(
    ("counts", "needs_card", "expected"),
    [
        ([1], True, (12,)),
        ([0], True, (0,)),
        ([0, 0, 0], True, (0, 0, 0)),
        ([0, 0], False, (9, 9)),
        ([2, 0, 0], False, (12, 3, 3)),
        ([2, 0, 0], True, (12, 0, 0)),
        ([3, 3, 3, 1], True, (6, 6, 6, 0)),
        ([4, 2, 2, 2], True, (12, 2, 2, 2)),
        ([4, 1, 0, 0], True, (12, 6, 0, 0)),
        ([1, 4, 1, 3], True, (0, 12, 0, 6)),
    ],
)
def test_pavilion_awards(counts: list[int], needs_card: bool, expected: tuple[int, ...]) -> None:
    assert pavilion_awards(counts, needs_card) == expected


def test_pavilion_award_eligibility_is_a_setup_choice() -> None:
    players = (TangPlayer("A", 0, TangCards(pavilion=2)), TangPlayer("B", 0))
    assert points(score(table(*players)), 1, "Pavilions") == 0
    loose = score(table(*players, setup=TangSetup(pavilion_needs_card=False)))
    assert (points(loose, 0, "Pavilions"), points(loose, 1, "Pavilions")) == (12, 6)


def lone(name: str, board: TangBoard, setup: TangSetup | None = None) -> int:
    """What the one character ``name`` scores for its owner, the table's only player."""
    return points(
        score(table(TangPlayer("A", 0, characters=(name,)), board=board, setup=setup)), 0, _title(name)
    )


def _title(name: str) -> str:
    return {"sword-dancer": "Sword Dancer"}.get(name, name.capitalize())


@pytest.mark.parametrize(
    ("slots", "expected"),
    [
        ((("sun",), ("dragon", "moon")), 12),
        ((("sun",), ("sun",)), 6),
        ((("moon", "village"),), 6),
        ((("dragon",),), 0),
        ((), 0),
    ],
)
def test_lady_sun_and_moon(slots: tuple[tuple[str, ...], ...], expected: int) -> None:
    board = green_board(characters=(Character("lady", (7, 0), "N"),), landscapes=Landscapes(north=slots))
    assert lone("lady", board) == expected


@pytest.mark.parametrize(
    ("others", "expected"),
    [
        # Both the Emperor and the Lady in her line of sight: 9 - 3 - 3.
        ((Character("emperor", (3, 0), "E"), Character("lady", (0, 0), "S")), 3),
        ((Character("emperor", (3, 0), "E"), Character("lady", (3, 1), "S")), 6),
        ((Character("emperor", (5, 1), "W"),), 9),
        ((Character("monk", (2, 0), "W"),), 9),
    ],
)
def test_empress_minds_the_emperor_and_the_lady(others: tuple[Character, ...], expected: int) -> None:
    board = green_board(characters=(Character("empress", (7, 0), "N"), *others))
    assert lone("empress", board) == expected


def test_empress_does_not_see_behind_her() -> None:
    board = green_board(characters=(Character("empress", (4, 0), "N"), Character("emperor", (6, 0), "W")))
    assert lone("empress", board) == 9


def test_hermit_with_seven_rock_tiles_is_capped_at_ten() -> None:
    rows = ["--r --r --r --r --r --r --r g--", *[" ".join(["g--"] * 8)] * 7]
    board = from_text("\n".join(rows), characters=(Character("hermit", (0, 0), "E"),))
    assert lone("hermit", board) == 10


MIXED_ROW = "gw- -w- g-r --- ... -wr g-- gwr"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("poet", 8),  # water on gw-, -w-, -wr, gwr
        ("student", 8),  # greenery on gw-, g-r, g--, gwr
        ("hermit", 6),  # rock on g-r, -wr, gwr
    ],
)
def test_terrain_characters_count_tiles(name: str, expected: int) -> None:
    board = from_text(MIXED_ROW, characters=(Character(name, (0, 0), "E"),))
    assert lone(name, board, TangSetup(rows=1, cols=8)) == expected


def test_own_tile_terrain_is_a_setup_choice() -> None:
    board = from_text("--r --r --r --r g--", characters=(Character("hermit", (0, 0), "E"),))
    assert lone("hermit", board, TangSetup(rows=1, cols=5)) == 8
    assert lone("hermit", board, TangSetup(rows=1, cols=5, own_tile_counts_for_terrain=False)) == 6


WEST = Landscapes(
    west=(
        ("construction", "animal"),
        ("dragon", "sun"),
        ("moon",),
        ("village", "village"),
        ("temple", "waterfall"),
    ),
    north=(("dragon", "dragon"),),
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("architect", 3),
        ("child", 2),
        ("emperor", 5),
        ("merchant", 4),
        ("monk", 3),
        ("sword-dancer", 2),
        ("officer", 9),
        ("lady", 12),
    ],
)
def test_landscape_characters_read_the_side_they_face(name: str, expected: int) -> None:
    board = green_board(characters=(Character(name, (0, 0), "W"),), landscapes=WEST)
    assert lone(name, board) == expected


def test_owned_characters_off_the_board_and_neutral_ones() -> None:
    board = green_board(
        (Decoration((0, 0), "bird"),),
        (Character("poet", (0, 0), "E"), Character("monk", (1, 0), "N")),  # the monk is neutral
    )
    result = score(table(TangPlayer("A", 4, characters=("lady", "poet")), board=board))
    (lady,) = [line for line in result.players[0].lines if line.rule == "Lady"]
    assert lady.points == 0
    assert "not on the garden board" in lady.detail
    assert not [line for line in result.players[0].lines if line.rule == "Monk"]
    # Poet: 1 decoration, no water tile. Total: 4 coins + 1.
    assert result.players[0].total == 5


# --- line of sight ------------------------------------------------------------------------------------

SMALL_3X4 = TangSetup(rows=3, cols=4)


@pytest.mark.parametrize(
    ("cell", "facing", "expected"),
    [
        ((0, 0), "N", ((0, 0),)),
        ((0, 0), "E", ((0, 0), (0, 1), (0, 2), (0, 3))),
        ((0, 0), "S", ((0, 0), (1, 0), (2, 0))),
        ((0, 0), "W", ((0, 0),)),
        ((0, 3), "N", ((0, 3),)),
        ((0, 3), "E", ((0, 3),)),
        ((0, 3), "S", ((0, 3), (1, 3), (2, 3))),
        ((0, 3), "W", ((0, 3), (0, 2), (0, 1), (0, 0))),
        ((2, 0), "N", ((2, 0), (1, 0), (0, 0))),
        ((2, 0), "E", ((2, 0), (2, 1), (2, 2), (2, 3))),
        ((2, 0), "S", ((2, 0),)),
        ((2, 0), "W", ((2, 0),)),
        ((2, 3), "N", ((2, 3), (1, 3), (0, 3))),
        ((2, 3), "E", ((2, 3),)),
        ((2, 3), "S", ((2, 3),)),
        ((2, 3), "W", ((2, 3), (2, 2), (2, 1), (2, 0))),
    ],
)
def test_line_of_sight_from_every_corner(
    cell: tuple[int, int], facing: str, expected: tuple[object, ...]
) -> None:
    board = from_text("g-- g-- g-- g--\ng-- g-- g-- g--\ng-- g-- g-- g--")
    assert line_of_sight(SMALL_3X4, board, Character("poet", cell, facing)) == expected


def test_gaps_are_skipped_unless_they_block() -> None:
    board = from_text("g-- ... g-- ... g--")
    east, west = Character("poet", (0, 0), "E"), Character("poet", (0, 4), "W")
    assert line_of_sight(TangSetup(rows=1, cols=5), board, east) == ((0, 0), (0, 2), (0, 4))
    assert line_of_sight(TangSetup(rows=1, cols=5), board, west) == ((0, 4), (0, 2), (0, 0))
    blocking = TangSetup(rows=1, cols=5, gaps_block_sight=True)
    assert line_of_sight(blocking, board, east) == ((0, 0),)
    assert line_of_sight(blocking, board, west) == ((0, 4),)


def test_gaps_and_decorations_in_sight() -> None:
    board = from_text(
        "g-- ... g-- g--",
        (Decoration((0, 2), "bird"), Decoration((0, 3), "peony")),
        (Character("student", (0, 0), "E"),),
    )
    # Past the gap: 2 decorations + 3 greenery tiles x 2; stopped by it: only its own greenery tile.
    assert lone("student", board, TangSetup(rows=1, cols=4)) == 8
    assert lone("student", board, TangSetup(rows=1, cols=4, gaps_block_sight=True)) == 2


def test_own_tile_and_shared_tile_decorations_count_each() -> None:
    decorations = (
        Decoration((0, 0), "pavilion"),  # the character stands on it
        Decoration((0, 1), "bird"),
        Decoration((0, 1), "tree"),
        Decoration((1, 0), "fish"),  # below the line
    )
    board = from_text("g-r g-- g--\n-w- g-- g--", decorations, (Character("merchant", (0, 0), "E"),))
    assert lone("merchant", board, TangSetup(rows=2, cols=3)) == 3


@st.composite
def sight_case(draw: st.DrawFn) -> tuple[TangSetup, TangBoard, Character]:
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    tokens = [[draw(st.sampled_from(["g--", "-w-", "...", "--r"])) for _ in range(cols)] for _ in range(rows)]
    cell = (draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1)))
    tokens[cell[0]][cell[1]] = "gwr"
    board = from_text("\n".join(" ".join(row) for row in tokens))
    setup = TangSetup(rows=rows, cols=cols, gaps_block_sight=draw(st.booleans()))
    return setup, board, Character("poet", cell, draw(st.sampled_from("NESW")))


@given(sight_case())
def test_line_of_sight_is_the_tiles_straight_ahead(case: tuple[TangSetup, TangBoard, Character]) -> None:
    setup, board, character = case
    sight = line_of_sight(setup, board, character)
    (r, c), step = character.cell, {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}[character.facing]
    ray = []
    while 0 <= r < setup.rows and 0 <= c < setup.cols:
        ray.append((r, c))
        r, c = r + step[0], c + step[1]
    tiles = [cell for cell in ray if board.tiles[cell[0]][cell[1]] != "..."]
    assert sight[0] == character.cell
    if setup.gaps_block_sight:
        assert list(sight) == ray[: len(sight)]
        assert len(sight) == len(ray) or board.tiles[ray[len(sight)][0]][ray[len(sight)][1]] == "..."
    else:
        assert list(sight) == tiles


# --- check() ------------------------------------------------------------------------------------------

SMALL = TangSetup(rows=3, cols=3)
SMALL_GRID = "g-- -w- --r\ngw- ... g-r\n--- -wr gwr"


def small_table() -> TangTable:
    board = from_text(
        SMALL_GRID,
        (
            Decoration((0, 0), "tree", "pine"),
            Decoration((0, 1), "fish"),
            Decoration((0, 2), "pavilion"),
            Decoration((1, 0), "bridge"),
        ),
        (Character("poet", (0, 0), "S"),),
        Landscapes(north=(("sun",),)),
    )
    players = (TangPlayer("A", 10, TangCards(trees={"pine": 1}), ("poet",)), TangPlayer("B", 5))
    return TangTable(SMALL, board, players)


def test_small_table_is_valid_and_scores() -> None:
    assert check(small_table()) == ()
    result = score(small_table())
    # Poet looking south: tiles g--, gw-, ---; the tree and the bridge; one water tile = 2.
    assert points(result, 0, "Poet") == 4
    assert [p.total for p in result.players] == [10 + 1 + 4, 5]


def with_board(**changes: Any) -> Callable[[TangTable], TangTable]:
    return lambda t: replace(t, board=replace(t.board, **changes))


def with_decoration(d: Decoration) -> Callable[[TangTable], TangTable]:
    return lambda t: replace(t, board=replace(t.board, decorations=(*t.board.decorations, d)))


def with_character(c: Character) -> Callable[[TangTable], TangTable]:
    return lambda t: replace(t, board=replace(t.board, characters=(*t.board.characters, c)))


def with_player(i: int, **changes: Any) -> Callable[[TangTable], TangTable]:
    def change(t: TangTable) -> TangTable:
        players = list(t.players)
        players[i] = replace(players[i], **changes)
        return replace(t, players=tuple(players))

    return change


def with_grid(text: str) -> Callable[[TangTable], TangTable]:
    return with_board(tiles=from_text(text).tiles)


@pytest.mark.parametrize(
    ("change", "code", "where"),
    [
        (lambda t: replace(t, setup=replace(SMALL, rows=0)), "bad-setup", "setup.rows"),
        (lambda t: replace(t, setup=replace(SMALL, cols=-1)), "bad-setup", "setup.cols"),
        (
            lambda t: replace(t, setup=replace(SMALL, tree_species=("pine", "pine"))),
            "bad-setup",
            "setup.tree_species",
        ),
        (
            lambda t: replace(t, setup=replace(SMALL, tree_species=("pine", ""))),
            "bad-setup",
            "setup.tree_species",
        ),
        (with_grid("g-- -w- --r\ngw- ... g-r"), "grid-size", "tiles"),
        (with_grid("g-- -w- --r\ngw- ...\n--- -wr gwr"), "grid-size", "tiles[1]"),
        (with_grid("g-- -w- --r\ngw- ... g-r\ngx- -wr gwr"), "unknown-label", "tiles[2][0]"),
        (with_grid("g-- -w- --r\ngw- ... rg-\n--- -wr gwr"), "unknown-label", "tiles[1][2]"),
        (with_grid("g-- -w- --r\ngw- ... g-r\n--- -wr gwr-"), "unknown-label", "tiles[2][2]"),
        (with_decoration(Decoration((2, 2), "statue")), "unknown-label", "decorations[4].kind"),
        (with_decoration(Decoration((1, 0), "bird", "pine")), "unknown-label", "decorations[4].species"),
        (with_decoration(Decoration((2, 2), "tree", "oak")), "unknown-label", "decorations[4].species"),
        (with_decoration(Decoration((3, 0), "bridge")), "impossible-position", "decorations[4].cell"),
        (with_decoration(Decoration((0, -1), "bridge")), "impossible-position", "decorations[4].cell"),
        (with_decoration(Decoration((1, 1), "bridge")), "impossible-position", "decorations[4].cell"),
        (with_decoration(Decoration((0, 1), "tree", "pine")), "impossible-position", "decorations[4].cell"),
        (with_decoration(Decoration((0, 0), "pavilion")), "impossible-position", "decorations[4].cell"),
        (with_decoration(Decoration((2, 0), "lotus")), "impossible-position", "decorations[4].cell"),
        (with_character(Character("king", (2, 2), "N")), "unknown-label", "characters[1].name"),
        (with_character(Character("lady", (2, 2), "NE")), "unknown-label", "characters[1].facing"),
        (with_character(Character("lady", (0, 3), "N")), "impossible-position", "characters[1].cell"),
        (with_character(Character("lady", (1, 1), "N")), "impossible-position", "characters[1].cell"),
        (with_character(Character("poet", (2, 2), "N")), "duplicate-character", "characters[1].name"),
        (with_board(landscapes=Landscapes(west=(("sun",),) * 6)), "impossible-count", "landscapes.W"),
        (with_board(landscapes=Landscapes(north=(("sun", "cloud"),))), "unknown-label", "landscapes.N[0][1]"),
        (with_player(0, coins=-1), "impossible-count", "players[0].coins"),
        (with_player(1, cards=TangCards(fish=-2)), "impossible-count", "players[1].cards.fish"),
        (
            with_player(0, cards=TangCards(trees={"pine": -1})),
            "impossible-count",
            "players[0].cards.trees.pine",
        ),
        (with_player(0, landscape_tokens=-1), "impossible-count", "players[0].landscape_tokens"),
        (with_player(1, cubes=-1), "impossible-count", "players[1].cubes"),
        (with_player(1, cubes=4), "impossible-count", "players[1].cubes"),
        (with_player(0, cards=TangCards(trees={"oak": 1})), "unknown-label", "players[0].cards.trees.oak"),
        (with_player(1, characters=("king",)), "unknown-label", "players[1].characters[0]"),
        (with_player(1, characters=("poet",)), "shared-character", "players[1].characters[0]"),
        (with_player(0, characters=("poet", "poet")), "shared-character", "players[0].characters[1]"),
        (with_player(1, name="A"), "duplicate-player", "players[1].name"),
        (lambda t: replace(t, players=()), "impossible-count", "players"),
        (
            lambda t: replace(t, players=tuple(TangPlayer(f"P{i}", 0) for i in range(5))),
            "impossible-count",
            "players",
        ),
    ],
)
def test_check_finds_every_problem(change: Callable[[TangTable], TangTable], code: str, where: str) -> None:
    problems = check(change(small_table()))
    assert (code, where) in {(p.code, p.where) for p in problems}
    with pytest.raises(InvalidState, match=re.escape(f"{where}: ")):
        score(change(small_table()))


def test_check_reports_only_the_root_cause() -> None:
    # A decoration beyond a short row, and one on an unreadable tile: only the grid problems.
    t = with_grid("g-- -w- --r\ngw-\n??? -wr gwr")(small_table())
    t = with_decoration(Decoration((1, 2), "tree"))(t)
    t = with_decoration(Decoration((2, 0), "fish"))(t)
    assert [(p.code, p.where) for p in check(t)] == [
        ("grid-size", "tiles[1]"),
        ("unknown-label", "tiles[2][0]"),
    ]


def test_check_messages_say_what_is_wrong() -> None:
    t = with_decoration(Decoration((0, 1), "tree", "pine"))(small_table())
    (problem,) = check(t)
    assert str(problem) == "decorations[4].cell: a tree needs greenery; -w- has none"
    t = with_character(Character("king", (2, 2), "N"))(small_table())
    assert str(check(t)[0]).startswith("characters[1].name: 'king' is not one of architect, child")


# --- tie-breaks ---------------------------------------------------------------------------------------


def test_ties_go_to_landscape_tokens_then_cubes() -> None:
    result = score(
        table(
            TangPlayer("A", 20, landscape_tokens=3, cubes=0),
            TangPlayer("B", 20, landscape_tokens=4, cubes=0),
            TangPlayer("C", 20, landscape_tokens=4, cubes=2),
            TangPlayer("D", 20, landscape_tokens=4, cubes=2),
        )
    )
    assert result.ranks == (4, 3, 1, 1)
    assert result.players[0].tiebreak == (3, 0)
    assert "landscape tokens" in result.players[0].tiebreak_rule


# --- parsing and round trips --------------------------------------------------------------------------


def example_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return data


def test_example_table_scores_as_worked_by_hand() -> None:
    t = parse(example_data())
    assert check(t) == ()
    result = score(t)
    assert [p.player for p in result.players] == ["Viola", "Michele", "Gonzalo"]
    # Viola: 31 coins + 6 birds/fish + 6 lotus/peony + 2 bridge + 9 pavilions (tied for most with Gonzalo)
    # + trees {pine, pine, bamboo} 4 + 1 + Hermit 11 + Emperor 11 + Lady (on her card) 0.
    assert points(result, 0, "Hermit") == 5 + 6  # pavilion, bird, fish, pine, willow; 3 rock tiles
    assert points(result, 0, "Emperor") == 1 + 10  # the lotus at r2c4; 2 dragons on the north side
    assert points(result, 0, "Lady") == 0
    assert points(result, 0, "Pavilions") == 9
    # Michele: 34 + 6 + 0 + 4 + 0 (second, but the most is tied) + 16 + Poet 10 + Monk 0 + Officer 7.
    assert points(result, 1, "Pavilions") == 0
    assert points(result, 1, "Trees") == 16
    assert points(result, 1, "Poet") == 2 + 8  # lotus and pavilion in column 4; 4 water tiles
    assert points(result, 1, "Officer") == 1 + 6  # the maple under him; 6 icons on the east side
    # Gonzalo: 28 + 0 + 6 + 0 + 9 + 5 + Architect 7 + Empress 8 + Sword Dancer 0.
    assert points(result, 2, "Architect") == 1 + 6
    assert points(result, 2, "Empress") == 2 + 9 - 3  # peony and bamboo; the Emperor stands in her row
    assert [p.total for p in result.players] == [81, 77, 63]
    assert result.ranks == (1, 2, 3)
    assert [p.tiebreak for p in result.players] == [(5, 1), (4, 0), (4, 2)]


def test_example_round_trips() -> None:
    data = example_data()
    t = parse(data)
    assert dump(t) == data
    assert parse(dump(t)) == t
    assert parse(json.loads(json.dumps(dump(small_table())))) == small_table()


def test_grid_text_round_trips() -> None:
    board = parse(example_data()).board
    text = to_text(board)
    assert text.splitlines()[0] == "... g-- gw- -w- -w- --r ... ..."
    assert from_text(text, board.decorations, board.characters, board.landscapes) == board
    assert from_text("\n  g--   -w-  \n\n--r ...\n").tiles == (("g--", "-w-"), ("--r", "..."))


def test_tile_tokens() -> None:
    for g in (False, True):
        for w in (False, True):
            for r in (False, True):
                tile = Tile(g, w, r)
                assert read_tile(tile.token) == tile
    assert Tile(water=True, rock=True).token == "-wr"
    assert Tile().terrains == ()
    assert read_tile("...") is None
    with pytest.raises(ValueError, match="unknown tile token 'wg-'"):
        read_tile("wg-")


def test_tile_edges() -> None:
    tile = read_tile("gpxg")
    assert tile is not None and tile.edges == ("greenery", "footpath", "wall", "greenery")
    assert tile.terrains == ("greenery",) and tile.token == "gpxg"
    assert Tile.from_edges(tile.edges) == tile
    rocky = read_tile("rwpx")
    assert rocky is not None and rocky.terrains == ("water", "rock")
    assert read_tile("pppx") == Tile(edges=("footpath",) * 3 + ("wall",))
    with pytest.raises(ValueError, match="unknown tile token 'gpxq'"):
        read_tile("gpxq")
    with pytest.raises(ValueError, match="a tile has 4 edges"):
        Tile.from_edges(("greenery", "water"))


PATHS_4X4 = "\n".join(" ".join(["pppp"] * 4) for _ in range(4))


def edge_table(changes: dict[tuple[int, int], str]) -> TangTable:
    rows = [line.split() for line in PATHS_4X4.splitlines()]
    for (r, c), token in changes.items():
        rows[r][c] = token
    return TangTable(
        TangSetup(rows=4, cols=4), from_text("\n".join(map(" ".join, rows))), (TangPlayer("A", 0),)
    )


def test_touching_edges_must_match_unless_one_is_a_wall() -> None:
    assert check(edge_table({})) == ()
    # (0, 0)'s east edge shows greenery against (0, 1)'s footpath; (3, 0)'s south edge faces the border.
    problems = check(edge_table({(0, 0): "pgpp", (3, 0): "ppgp"}))
    assert [(p.code, p.where) for p in problems] == [("unmatched-edges", "tiles[0][0]")]
    assert "E edge (greenery) lies against the W edge" in str(problems[0])
    assert check(edge_table({(0, 0): "pgpp", (0, 1): "pppg"})) == ()
    # A wall lies against anything, on either side.
    assert check(edge_table({(0, 0): "pgpp", (0, 1): "pppx"})) == ()
    assert check(edge_table({(0, 0): "pxpp", (0, 1): "pppr"})) == ()
    # The starting tile's quarters (the middle 2 x 2) are one printed tile, and a tile given by its
    # terrains has no edges to match.
    assert check(edge_table({(1, 1): "pgpp", (2, 2): "gppp"})) == ()
    assert check(edge_table({(0, 0): "pgpp", (0, 1): "-w-"})) == ()
    # An empty space matches anything.
    assert check(edge_table({(0, 0): "pgpp", (0, 1): "..."})) == ()


def test_minimal_state_takes_the_defaults() -> None:
    t = parse({"tiles": GREEN_8X8.splitlines(), "players": [{"coins": 3}]})
    assert t.setup == TangSetup()
    assert t.board == green_board()
    assert t.players == (TangPlayer("Player 1", 3),)
    assert score(t).players[0].total == 3


def set_at(path: tuple[str | int, ...], value: object) -> Callable[[Any], None]:
    def change(data: Any) -> None:
        for key in path[:-1]:
            data = data[key]
        data[path[-1]] = value

    return change


def delete_at(path: tuple[str | int, ...]) -> Callable[[Any], None]:
    def change(data: Any) -> None:
        for key in path[:-1]:
            data = data[key]
        del data[path[-1]]

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (set_at(("tile",), []), "state: unknown field(s) tile"),
        (set_at(("game",), "zen-garden"), "game: 'zen-garden' is not one of tang-garden"),
        (delete_at(("tiles",)), "tiles: missing field"),
        (set_at(("tiles", 2), 7), "tiles[2]: expected a string, got int"),
        (set_at(("setup", "rows"), 0), "setup.rows: 0 is below the minimum 1"),
        (set_at(("setup", "gaps_block_sight"), "yes"), "setup.gaps_block_sight: expected true or false"),
        (set_at(("setup", "colour"), "red"), "setup: unknown field(s) colour"),
        (set_at(("setup", "tree_species", 1), 3), "setup.tree_species[1]: expected a string"),
        (set_at(("decorations", 0, "cell"), [1]), "decorations[0].cell: expected 2 entries, got 1"),
        (set_at(("decorations", 0, "cell", 1), "a"), "decorations[0].cell[1]: expected a whole number"),
        (set_at(("decorations", 22, "species"), 5), "decorations[22].species: expected a string"),
        (delete_at(("decorations", 0, "kind")), "decorations[0].kind: missing field"),
        (delete_at(("characters", 2, "facing")), "characters[2].facing: missing field"),
        (set_at(("characters", 0, "owner"), "Viola"), "characters[0]: unknown field(s) owner"),
        (set_at(("landscapes", "X"), []), "landscapes: unknown field(s) X"),
        (set_at(("landscapes", "N", 1, 0), 7), "landscapes.N[1][0]: expected a string"),
        (set_at(("landscapes", "E", 0), "moon"), "landscapes.E[0]: expected a list"),
        (delete_at(("players",)), "players: missing field"),
        (set_at(("players", 0, "cards", "bird"), "two"), "players[0].cards.bird: expected a whole number"),
        (set_at(("players", 0, "cards", "bird"), -1), "players[0].cards.bird: -1 is below the minimum 0"),
        (
            set_at(("players", 2, "cards", "trees", "pine"), 1.5),
            "players[2].cards.trees.pine: expected a whole",
        ),
        (set_at(("players", 0, "cards", "orchid"), 1), "players[0].cards: unknown field(s) orchid"),
        (delete_at(("players", 1, "coins")), "players[1].coins: missing field"),
        (set_at(("players", 1, "cubes"), 4), "players[1].cubes: 4 is above the maximum 3"),
        (set_at(("players", 0, "characters", 1), 3), "players[0].characters[1]: expected a string"),
        (set_at(("players", 0, "hand"), []), "players[0]: unknown field(s) hand"),
        (
            set_at(("players", 0, "landscape_tokens"), True),
            "players[0].landscape_tokens: expected a whole number",
        ),
    ],
)
def test_parse_errors_name_the_field(change: Callable[[Any], None], message: str) -> None:
    data = copy.deepcopy(example_data())
    change(data)
    with pytest.raises(StateError) as error:
        parse(data)
    assert str(error.value).startswith(message)


def test_parse_rejects_a_non_object() -> None:
    with pytest.raises(StateError, match="state: expected an object, got list"):
        parse([])


# --- properties ---------------------------------------------------------------------------------------


@cache
def best_split(counts: tuple[int, ...]) -> int:
    """The most any split into sets of different species can score, by trying every split."""
    held = [i for i, n in enumerate(counts) if n]
    best = 0
    for size in range(1, len(held) + 1):
        for chosen in combinations(held, size):
            rest = tuple(n - (i in chosen) for i, n in enumerate(counts))
            best = max(best, size * size + best_split(rest))
    return best


tree_counts = st.lists(st.integers(0, 3), min_size=0, max_size=5)


@given(tree_counts)
def test_greedy_tree_sets_are_the_best_split(counts: list[int]) -> None:
    sizes = tree_sets(counts)
    assert sum(sizes) == sum(counts)
    assert sum(s * s for s in sizes) == best_split(tuple(counts))
    # No set can hold more species than the player has, so the squares stay within species x cards.
    assert sum(s * s for s in sizes) <= sum(n > 0 for n in counts) * sum(counts)


def reference_pavilions(counts: list[int], needs_card: bool) -> list[int]:
    eligible = [n for n in counts if n > 0 or not needs_card]
    if not eligible:
        return [0] * len(counts)
    top = max(eligible)
    if counts.count(top) > 1:
        return [18 // counts.count(top) if n == top else 0 for n in counts]
    rest = [n for n in eligible if n != top]
    second = max(rest, default=None)
    return [12 if n == top else 6 // counts.count(n) if n == second else 0 for n in counts]


@given(st.lists(st.integers(0, 6), min_size=1, max_size=4), st.booleans())
def test_pavilion_awards_never_exceed_eighteen(counts: list[int], needs_card: bool) -> None:
    awards = pavilion_awards(counts, needs_card)
    assert 0 <= sum(awards) <= 18
    assert list(awards) == reference_pavilions(counts, needs_card)


card_counts = st.integers(0, 5)
players_strategy = st.lists(
    st.tuples(
        st.integers(0, 80), card_counts, card_counts, card_counts, card_counts, card_counts, card_counts
    ),
    min_size=1,
    max_size=4,
)


@given(players_strategy, st.lists(tree_counts, min_size=4, max_size=4))
def test_total_is_the_sum_of_the_rules(rows: list[tuple[int, ...]], trees: list[list[int]]) -> None:
    species = TangSetup().tree_species
    players = tuple(
        TangPlayer(
            f"P{i}",
            coins,
            TangCards(bird, fish, lotus, peony, bridge, pavilion, dict(zip(species, trees[i], strict=False))),
        )
        for i, (coins, bird, fish, lotus, peony, bridge, pavilion) in enumerate(rows)
    )
    result = score(table(*players))
    awards = reference_pavilions([p.cards.pavilion for p in players], True)
    for player, breakdown, award, tree in zip(players, result.players, awards, trees, strict=False):
        c = player.cards
        expected = (
            player.coins
            + 6 * min(c.bird, c.fish)
            + 6 * min(c.lotus, c.peony)
            + 2 * c.bridge
            + award
            + best_split(tuple(tree[: len(species)]))
        )
        assert breakdown.total == sum(line.points for line in breakdown.lines) == expected
