"""A board of square tiles found by its own grid lines and its art's colours: on a streaky wooden table, by a
white score sheet, seen at a slant; its art's colours kept and read back."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.camera_model import CameraModel
from vision.locate import lattice
from vision.locate.art import ArtColours, load_art
from vision.locate.board import Quad
from vision.locate.edges import EdgeImage, pick_sides
from vision.locate.lattice import _art_map, _corner_tiles, _likeness, _top_faces, find_lattices

MATRIX = np.array([[1500.0, 0.0, 800.0], [0.0, 1500.0, 600.0], [0.0, 0.0, 1.0]])
SIZE_WH = (1600, 1200)
CELL_PX = 60  # a tile in the flat drawing
GAP_PX = 3
# Tile faces: yellow, light green, dark green, blue, brown, grey (BGR), as a kingdom's terrains.
FACES = ((40, 200, 230), (60, 190, 120), (40, 110, 50), (200, 120, 40), (60, 100, 140), (120, 120, 120))


def _tiles(cols: int, rows: int, seed: int) -> np.ndarray:
    """A flat drawing of ``cols`` x ``rows`` tiles with thin dark gaps, each face a textured colour."""
    rng = np.random.default_rng(seed)
    board = np.full((rows * CELL_PX, cols * CELL_PX, 3), 30, np.uint8)
    for r in range(rows):
        for c in range(cols):
            face = np.array(FACES[int(rng.integers(len(FACES)))], np.float64)
            patch = face + rng.normal(0, 12, (CELL_PX - 2 * GAP_PX, CELL_PX - 2 * GAP_PX, 1))
            y, x = r * CELL_PX + GAP_PX, c * CELL_PX + GAP_PX
            board[y : y + patch.shape[0], x : x + patch.shape[1]] = np.clip(patch, 0, 255)
    return board


def _table(seed: int) -> np.ndarray:
    """A wooden table: brown, with long streaks of grain running across it, and a white sheet."""
    rng = np.random.default_rng(seed)
    w, h = SIZE_WH
    grain = cv2.resize(rng.normal(0, 1, (h // 8, 4)), (w, h), interpolation=cv2.INTER_CUBIC)
    table = np.stack([40 + 12 * grain, 80 + 15 * grain, 130 + 18 * grain], axis=-1)
    table = np.clip(table + rng.normal(0, 4, (h, w, 1)), 0, 255).astype(np.uint8)
    sheet = np.array([(1150, 150), (1500, 180), (1460, 620), (1110, 590)], np.int32)
    cv2.fillConvexPoly(table, sheet, (235, 238, 240))
    return table


def _photo(board: np.ndarray, tilt_deg: float, spin_deg: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The board laid on the table and photographed by a camera ``tilt_deg`` off straight down; the photo
    and the board's corners in it (TL, TR, BR, BL of the drawing)."""
    photo, (corners,) = _photo_of([(board, (0.0, 0.0), spin_deg)], tilt_deg, seed)
    return photo, corners


def _photo_of(
    boards: list[tuple[np.ndarray, tuple[float, float], float]],
    tilt_deg: float,
    seed: int,
    matrix: np.ndarray = MATRIX,
    distance_mm: float = 400.0,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Drawings laid on the table, each with its middle at (x, y) mm from the table's and turned by its
    spin (degrees), photographed by a camera (``matrix``) ``distance_mm`` away, ``tilt_deg`` off straight
    down; the photo and each drawing's corners in it. A drawing's pure black (0, 0, 0) is no tile: the table
    shows there."""
    rotation, _ = cv2.Rodrigues(np.array([np.radians(tilt_deg), 0.0, 0.0]))
    photo = _table(seed)
    outlines = []
    for board, (x, y), spin_deg in boards:
        h, w = board.shape[:2]
        spin = np.radians(spin_deg)
        # Board plane in mm (a tile 20 mm), turned on the table, seen from a camera pitched by the tilt.
        flat = (np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float64) - np.array([w, h]) / 2) * 20 / CELL_PX
        turned = flat @ np.array([[np.cos(spin), -np.sin(spin)], [np.sin(spin), np.cos(spin)]]).T + (x, y)
        points = np.hstack([turned, np.zeros((4, 1))])
        pictured, _ = cv2.projectPoints(
            points, cv2.Rodrigues(rotation)[0], np.array([0.0, 0.0, distance_mm]), matrix, None
        )
        corners = np.asarray(pictured, np.float64).reshape(4, 2)
        homography = cv2.getPerspectiveTransform(
            np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32), corners.astype(np.float32)
        )
        warped = cv2.warpPerspective(board, homography, SIZE_WH, flags=cv2.INTER_AREA)
        tiles = (board.max(axis=2) > 0).astype(np.uint8) * 255
        inside = cv2.warpPerspective(tiles, homography, SIZE_WH) > 128
        photo[inside] = warped[inside]
        outlines.append(corners)
    return photo, outlines


def _error(found: np.ndarray, truth: np.ndarray) -> float:
    size = float(np.sqrt(cv2.contourArea(truth.astype(np.float32))))
    return min(
        float(np.max(np.linalg.norm(np.roll(order, k, axis=0) - truth, axis=1))) / size
        for order in (found, found[::-1])
        for k in range(4)
    )


@pytest.mark.parametrize(("tilt", "spin"), [(0.0, 10.0), (35.0, -20.0), (55.0, 5.0)])
def test_a_kingdom_is_found_by_its_grid_on_a_wooden_table(tilt: float, spin: float) -> None:
    board = _tiles(5, 5, seed=1)
    photo, truth = _photo(board, tilt, spin, seed=2)
    (quad,) = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    assert quad.method == "grid" and quad.in_frame and not quad.oriented
    assert _error(quad.corners_xy, truth) < 0.02
    # The white sheet is as unlike the table as the board is, and no grid: it is never taken for the board.
    assert quad.corners_xy[:, 0].max() < 1100


def test_a_kingdom_seen_through_a_wide_lens_is_found_with_no_calibration() -> None:
    # A phone's wide lens (a focal length of 0.4 of the photo's width), far across the table: through the
    # focal length a phone's main camera has (the guess), the grid is seen 0.64 off a square; through the
    # wide lens' own, square. With no calibration, a grid is a board's shape at any focal length a lens has.
    wide = MATRIX.copy()
    wide[0, 0] = wide[1, 1] = 0.4 * SIZE_WH[0]
    photo, (truth,) = _photo_of([(_tiles(5, 5, seed=1), (0.0, 0.0), 10.0)], 60.0, 2, wide, 170.0)
    (quad,) = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    assert _error(quad.corners_xy, truth) < 0.02


def _laid(cell: int, shift: int, empty: tuple[int, int] | None = None, table: int = 60) -> np.ndarray:
    """5 x 5 tiles of ``cell`` pixels drawn from (100, 100) on a plain ``table``, the bottom-left one
    ``shift`` pixels below its row; the square ``empty`` (row, column) left without a tile."""
    photo = np.full((700, 700, 3), table, np.uint8)
    for r in range(5):
        for c in range(5):
            if (r, c) == empty:
                continue
            y, x = 100 + r * cell + (shift if (r, c) == (4, 0) else 0), 100 + c * cell
            cv2.rectangle(photo, (x, y), (x + cell - 1, y + cell - 1), FACES[(r + c) % len(FACES)], -1)
    return photo


def _corners(
    photo: np.ndarray, grid: np.ndarray, facing: tuple[bool, bool, bool, bool] = (False,) * 4
) -> np.ndarray:
    """The board's corners found from the grid (cells to pixels) as :func:`find_lattices` ends, the art's
    colours learnt from the tiles' tops (drawn over 100 to 599); ``facing``: along which sides the camera
    sees the tiles' cut faces."""
    cells_xy = np.array([(0.0, 0.0), (5.0, 0.0), (5.0, 5.0), (0.0, 5.0)])
    ideal = cv2.perspectiveTransform(cells_xy.reshape(-1, 1, 2), grid).reshape(-1, 2)
    reach = 0.015 * float(np.sqrt(cv2.contourArea(ideal.astype(np.float32))))
    image, pick = EdgeImage(photo), _top_faces(facing, reach)
    sides = pick_sides(ideal, image, lambda p: p, (-reach, reach), pick)
    assert sides is not None
    art = ArtColours.learn([photo[100:600, 100:600]])
    art_at = _art_map(photo, art, _likeness(photo, art).small, ideal, lambda p: p)
    return _corner_tiles(grid, cells_xy, sides, image, lambda p: p, pick, reach, art_at)


def test_a_corner_tile_laid_off_its_neighbours_line_is_the_corner() -> None:
    # Tiles are laid by hand: the bottom-left one sits 5 px (1 % of the board) below the rest of its row, and
    # the kingdom's corner is that tile's, not a point on the line through the whole row's edge.
    grid = np.array([[100, 0.0, 100.0], [0.0, 100, 100.0], [0.0, 0.0, 1.0]])  # cells to pixels, in line
    # A tile drawn over pixels 100 to 599 has its edges between pixels: at 99.5 and 599.5.
    assert _corners(_laid(100, 5), grid) == pytest.approx(
        np.array([(99.5, 99.5), (599.5, 99.5), (599.5, 599.5), (99.5, 604.5)]), abs=1.0
    )


def test_an_empty_corner_square_keeps_the_whole_sides_edges() -> None:
    # The bottom-left square holds no tile, and the grid's lines end 10 px (2 % of the board, beyond the
    # search's reach) outside the board there: the corner is where the left and bottom sides' edges meet.
    cells = np.array([(0.0, 0.0), (5.0, 0.0), (5.0, 5.0), (0.0, 5.0)], np.float32)
    off = np.array([(100, 100), (600, 100), (600, 600), (93, 607)], np.float32)
    grid = cv2.getPerspectiveTransform(cells, off)
    assert _corners(_laid(100, 0, empty=(4, 0)), grid) == pytest.approx(
        np.array([(99.5, 99.5), (599.5, 99.5), (599.5, 599.5), (99.5, 599.5)]), abs=1.0
    )


def test_a_corner_tile_is_its_top_where_its_cut_faces_show() -> None:
    # The camera sees the bottom row's cut faces (8 px, a shade darker than their tops) on a pale table, and
    # the grid's bottom line ends 6 px out, over them: the corner is the tile's top edge, as along the side.
    photo = _laid(100, 0, table=200)
    for c in range(5):
        face = tuple(int(0.85 * v) for v in FACES[(4 + c) % len(FACES)])
        cv2.rectangle(photo, (100 + 100 * c, 600), (199 + 100 * c, 607), face, -1)
    cells = np.array([(0.0, 0.0), (5.0, 0.0), (5.0, 5.0), (0.0, 5.0)], np.float32)
    grid = cv2.getPerspectiveTransform(
        cells, np.array([(100, 100), (600, 100), (600, 606), (100, 600)], np.float32)
    )
    facing = (False, False, True, False)
    assert _corners(photo, grid, facing) == pytest.approx(
        np.array([(99.5, 99.5), (599.5, 99.5), (599.5, 599.5), (99.5, 599.5)]), abs=1.0
    )


def test_a_stroke_printed_near_a_corner_tiles_edge_is_not_its_edge() -> None:
    # The camera sees the top row's cut faces, so the innermost clear edge near the side is its tiles' top
    # edge; the top-left tile's art has a dark stroke 4 px inside that edge. The art's colours lie on both
    # sides of the stroke's edge, the table's outside the tile's: the corner stays on the tile's edge.
    photo = _laid(100, 0)
    cv2.rectangle(photo, (110, 104), (190, 111), (40, 60, 90), -1)
    grid = np.array([[100, 0.0, 100.0], [0.0, 100, 100.0], [0.0, 0.0, 1.0]])
    assert _corners(photo, grid, (True, False, False, False)) == pytest.approx(
        np.array([(99.5, 99.5), (599.5, 99.5), (599.5, 599.5), (99.5, 599.5)]), abs=1.0
    )


def test_a_board_of_unequal_sides_is_found_whichever_way_it_lies() -> None:
    photo, truth = _photo(_tiles(4, 6, seed=4), 30.0, 80.0, seed=5)
    art = ArtColours.learn([_tiles(4, 6, seed=6)])
    for cells, first_side in (((4, 6), 0), ((6, 4), 1)):
        (quad,) = find_lattices(photo, cells, art)
        assert _error(quad.corners_xy, truth) < 0.02
        # Its first side runs along the board's width (cells[0] across), however the photo turned it: the
        # drawing's top spans 4 tiles, its side 6.
        assert _first_side(quad.corners_xy, truth) % 2 == first_side


def _first_side(found: np.ndarray, truth: np.ndarray) -> int:
    """Which of the truth's sides the found outline's first side lies on, up to the opposite one (0: the top
    or bottom, 1: a side). Rolled by k to match, either way round, its first side is the truth's side k or
    k + 2."""
    _, k = min(
        (float(np.max(np.linalg.norm(np.roll(order, k, axis=0) - truth, axis=1))), k)
        for order in (found, found[::-1])
        for k in range(4)
    )
    return k % 2


def test_a_calibrated_cameras_bent_lines_are_straightened_first() -> None:
    board = _tiles(5, 5, seed=1)
    photo, truth = _photo(board, 30.0, 15.0, seed=2)
    camera = CameraModel(MATRIX, np.array([-0.2, 0.05, 0.0, 0.0, 0.0]), SIZE_WH)
    # The lens bends the photo: each of its pixels shows what the ideal pinhole saw where the lens puts it.
    ys, xs = np.mgrid[0 : SIZE_WH[1], 0 : SIZE_WH[0]].astype(np.float64)
    ideal = camera.undistort_px(np.column_stack([xs.ravel(), ys.ravel()])).reshape(SIZE_WH[1], SIZE_WH[0], 2)
    bent = cv2.remap(
        photo, ideal[..., 0].astype(np.float32), ideal[..., 1].astype(np.float32), cv2.INTER_LINEAR
    )
    (quad,) = find_lattices(bent, (5, 5), ArtColours.learn([board]), camera)
    assert _error(quad.ideal_xy, truth) < 0.02
    assert _error(quad.corners_xy, camera.distort_px(truth)) < 0.02


def test_a_table_with_no_board_has_none() -> None:
    art = ArtColours.learn([_tiles(5, 5, seed=1)])
    assert find_lattices(_table(seed=7), (5, 5), art) == []


def test_art_colours_mark_the_art_and_not_the_table() -> None:
    board = _tiles(5, 5, seed=1)
    photo, truth = _photo(board, 20.0, 0.0, seed=2)
    like = ArtColours.learn([board]).likeness(photo)
    inside = np.zeros(like.shape, np.uint8)
    cv2.fillConvexPoly(inside, truth.astype(np.int32), 1)
    assert like[inside == 1].mean() > 0.5
    assert like[inside == 0].mean() < 0.1


def test_art_colours_are_kept_and_read_back(tmp_path: Path) -> None:
    art = ArtColours.learn([_tiles(5, 5, seed=1)])
    path = tmp_path / "art.json"
    path.write_text(json.dumps(art.to_json()))
    again = load_art(path)
    np.testing.assert_allclose(again.histogram, art.histogram, rtol=1e-3, atol=1e-9)
    data = art.to_json()
    for broken, says in (
        ({**data, "version": 99}, "version 99"),
        ({**data, "bins": [8, 8, 8]}, "bins"),
        ({**data, "shares": []}, "no colour"),
    ):
        path.write_text(json.dumps(broken))
        with pytest.raises(ValueError, match=says):
            load_art(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not readable art colours"):
        load_art(path)
    with pytest.raises(ValueError, match="no picture"):
        ArtColours.learn([])


def _without(board: np.ndarray, squares: list[tuple[int, int]]) -> np.ndarray:
    """The drawing with no tile on ``squares`` (row, column): the table shows there."""
    out = board.copy()
    for r, c in squares:
        out[r * CELL_PX : (r + 1) * CELL_PX, c * CELL_PX : (c + 1) * CELL_PX] = 0
    return out


def test_every_kingdom_on_the_table_is_found_each_as_one_board() -> None:
    art = ArtColours.learn([_tiles(5, 5, seed=3)])
    laid = [(_tiles(5, 5, seed=1), (-70.0, 0.0), 10.0), (_tiles(5, 5, seed=8), (65.0, 15.0), -25.0)]
    photo, truths = _photo_of(laid, 30.0, seed=2)
    quads = find_lattices(photo, (5, 5), art)
    assert len(quads) == 2
    # Each found once, each outline one kingdom's alone.
    for truth in truths:
        assert sorted(_error(q.corners_xy, truth) for q in quads)[0] < 0.02


def test_a_kingdom_with_squares_left_empty_is_found_by_its_frame() -> None:
    # Two corners and a square along a side without a tile: the frame is still the 5 x 5 the others fix.
    board = _without(_tiles(5, 5, seed=1), [(0, 0), (4, 4), (2, 0)])
    photo, truth = _photo(board, 30.0, 15.0, seed=2)
    (quad,) = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    assert _error(quad.corners_xy, truth) < 0.02


def test_a_domino_of_the_same_art_beside_a_kingdom_is_not_part_of_it() -> None:
    # A domino from the draw line lies a third of a tile from the kingdom's side: the outline stays the
    # kingdom's, and a domino is no kingdom.
    domino = _tiles(2, 1, seed=5)
    laid = [(_tiles(5, 5, seed=1), (0.0, 0.0), 0.0), (domino, (0.0, 63.0), 0.0)]
    photo, (truth, _) = _photo_of(laid, 25.0, seed=2)
    (quad,) = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    assert _error(quad.corners_xy, truth) < 0.02


def test_a_larger_board_of_the_same_tiles_is_found_as_its_own_size() -> None:
    # A 7 x 7 kingdom looked for as 5 x 5 with 7 x 7 left open: found whole, as 7 x 7; a 5 x 5 stays 5 x 5.
    art = ArtColours.learn([_tiles(5, 5, seed=3)])
    for cells, seed in (((7, 7), 1), ((5, 5), 4)):
        photo, truth = _photo(_tiles(*cells, seed=seed), 30.0, 15.0, seed=2)
        (quad,) = find_lattices(photo, (5, 5), art, larger=[(7, 7)])
        assert quad.cells == cells
        assert _error(quad.corners_xy, truth) < 0.02


@pytest.mark.parametrize(
    ("size", "seed", "tilt", "empty"), [(7, 1, 30.0, 0), (7, 1, 50.0, 0), (7, 5, 30.0, 6), (5, 1, 50.0, 4)]
)
def test_a_larger_board_beside_loose_tiles_of_its_art_is_found_as_its_own_size(
    size: int, seed: int, tilt: float, empty: int
) -> None:
    # A Mighty Duel kingdom (some of its outer squares left empty) with a loose domino and a few tiles of
    # its art beside it, looked for as 5 x 5 with 7 x 7 left open: a 5 x 5 grid is found there first (inside
    # it, across it or stretched over it), then the 7 x 7 board at the same place, whole. A 5 x 5 kingdom
    # so laid stays 5 x 5.
    rng = np.random.default_rng(seed)
    ring = [(r, c) for r in range(size) for c in range(size) if r in (0, size - 1) or c in (0, size - 1)]
    board = _without(
        _tiles(size, size, seed=seed), [ring[i] for i in rng.choice(len(ring), empty, replace=False)]
    )
    laid = [
        (board, (0.0, 0.0), 12.0),
        (_tiles(2, 1, seed=9), (0.0, 95.0), 30.0),
        (_tiles(3, 2, seed=11), (-110.0, -20.0), -10.0),
    ]
    photo, (truth, *_) = _photo_of(laid, tilt, seed=seed)
    quads = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]), larger=[(7, 7)])
    assert [q.cells for q in quads] == [(size, size)]
    assert _error(quads[0].corners_xy, truth) < 0.02


def test_a_board_found_over_a_board_found_before_is_not_a_second_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two patches of the art; the grid found about the second lies over the first board (on a real table:
    # dominoes round a kingdom, with a grid laid over them and the kingdom's own squares). One board.
    laid = [(_tiles(5, 5, seed=1), (-70.0, 0.0), 10.0), (_tiles(5, 5, seed=8), (65.0, 15.0), -25.0)]
    photo, _ = _photo_of(laid, 30.0, seed=2)
    square = np.array([(100.0, 100.0), (500.0, 100.0), (500.0, 500.0), (100.0, 500.0)])
    grids = iter([square, square + 120.0, square + 600.0])

    def laid_grid(*_: object) -> Quad:
        corners = next(grids)
        return Quad(corners, corners, True, 1.0, method="grid", cells=(5, 5))

    # Each place holds a grid the camera sees as a board; the boards they are, one after the other.
    monkeypatch.setattr(lattice, "_grids", lambda *_, **__: {True: (1.0, np.eye(3), None)})
    monkeypatch.setattr(lattice, "_board", laid_grid)
    quads = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    # The first kept, the second (sharing 49 % of it) dropped, the third (apart) kept.
    assert [q.corners_xy[0, 0] for q in quads] == [100.0, 700.0]


@pytest.mark.parametrize("apart_mm", [1.0, 3.0])
def test_kingdoms_laid_edge_to_edge_are_both_found_and_shown_not_scored(apart_mm: float) -> None:
    # One patch of the art twice a kingdom across: no kingdom at a kingdom's spacing across the patch, so one
    # is looked for at half of it. Either outline may have run onto the other: both are shown, with a reason.
    art = ArtColours.learn([_tiles(5, 5, seed=3)])
    x = 50.0 + apart_mm / 2
    laid = [(_tiles(5, 5, seed=1), (-x, 0.0), 0.0), (_tiles(5, 5, seed=8), (x, 0.0), 0.0)]
    photo, truths = _photo_of(laid, 25.0, seed=2)
    quads = find_lattices(photo, (5, 5), art)
    assert len(quads) == 2
    # Each found near its own (one a little onto the gap, in the first case); neither scored.
    for truth in truths:
        assert min(_error(q.corners_xy, truth) for q in quads) < 0.06
    assert [q.doubt for q in quads] == [lattice.SIDE_BY_SIDE] * 2


def test_a_board_alone_in_a_patch_too_large_for_one_board_is_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    # A card or loose dominoes of the same art beside a kingdom make one patch too large for one board: the
    # kingdom's grid is found by the two-boards search. No second board found there: it is scored.
    photo, (truth,) = _photo_of([(_tiles(5, 5, seed=1), (0.0, 0.0), 10.0)], 30.0, seed=2)

    def grids(*args: object, boards: int = 1, **_: object) -> dict[bool, object]:
        return {True: (1.0, np.eye(3), None)} if boards == 2 else {}

    def board(*_: object) -> Quad:
        return Quad(truth, truth, True, 1.0, method="grid", cells=(5, 5))

    monkeypatch.setattr(lattice, "_grids", grids)
    monkeypatch.setattr(lattice, "_board", board)
    (quad,) = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    assert quad.doubt == ""


def test_a_place_too_small_on_the_table_to_hold_a_kingdom_beside_one_found_is_not_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Seen at a slant, patches of the art nearer the camera than a kingdom found look large in the photo. On
    # the table's plane, as the kingdom's grid maps it: 3 of its squares hold no kingdom (not searched), 6
    # hold one (searched as one board), 12 may hold two side by side (searched as two as well).
    board = np.array([(250.0, 100.0), (550.0, 100.0), (650.0, 350.0), (150.0, 350.0)])
    to_photo = cv2.getPerspectiveTransform(
        np.array([(0, 0), (5, 0), (5, 5), (0, 5)], np.float32), board.astype(np.float32)
    )

    def on_table(x: float, y: float, w: float, h: float) -> np.ndarray:
        square = np.array([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], np.float32).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(square, to_photo).reshape(-1, 2), np.float64)

    places = {"kingdom": board, "3": on_table(1.0, 5.5, 3.0, 1.0), "6": on_table(-3.0, 2.0, 2.0, 3.0)}
    places["12"] = on_table(6.0, 1.0, 3.0, 4.0)
    # Each looks large enough in the photo for the rule that ignores perspective (a fifth of the board).
    assert all(lattice._area(p) >= lattice.SMALLEST_PLACE * lattice._area(board) for p in places.values())
    searched: list[tuple[str, int]] = []

    def grids(*args: object, boards: int = 1, **_: object) -> dict[bool, object]:
        name = next(n for n, p in places.items() if p is args[5])
        searched.append((name, boards))
        return {True: (1.0, np.eye(3), None)} if name == "kingdom" else {}

    def board_found(*_: object) -> Quad:
        return Quad(board, board, True, 1.0, method="grid", cells=(5, 5))

    outlines = list(places.values())
    monkeypatch.setattr(lattice, "_places", lambda _, __, join=1.0: outlines if join == 1.0 else [])
    monkeypatch.setattr(lattice, "_grids", grids)
    monkeypatch.setattr(lattice, "_board", board_found)
    photo = np.full((600, 1100, 3), 90, np.uint8)
    (quad,) = find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]))
    assert quad.cells == (5, 5)
    assert searched == [("kingdom", 1), ("6", 1), ("12", 1), ("12", 2)]


def test_a_card_of_smaller_squares_of_the_art_beside_a_kingdom_is_no_board() -> None:
    # A score card printed with the kingdom's art in squares half a tile across, laid a few millimetres from
    # the kingdom: its grid is found too, but one set's tiles are one size. The kingdom alone, scored.
    art = ArtColours.learn([_tiles(5, 5, seed=3)])
    card = cv2.resize(_tiles(5, 5, seed=6), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    laid = [(_tiles(5, 5, seed=1), (-20.0, 0.0), 0.0), (card, (60.0, 0.0), 0.0)]
    photo, (truth, _) = _photo_of(laid, 30.0, seed=2)
    (quad,) = find_lattices(photo, (5, 5), art)
    assert _error(quad.corners_xy, truth) < 0.02
    assert quad.doubt == ""


def test_of_grids_only_some_lens_sees_the_one_explaining_the_photo_better_is_the_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With no calibration and no grid the guessed camera sees as a board, a grid spaced for the whole patch
    # (cards and loose dominoes beside made it large: its lines on every other tile's edges) and one at half
    # its spacing (each tile's edges) are both only some lens' board: the better-judged is taken.
    photo, (truth,) = _photo_of([(_tiles(5, 5, seed=1), (0.0, 0.0), 10.0)], 30.0, seed=2)
    patch_wide, tile_wide = np.eye(3), 2 * np.eye(3)

    def grids(*args: object, boards: int = 1, **_: object) -> dict[bool, object]:
        return {False: (0.9, tile_wide, None) if boards == 2 else (0.7, patch_wide, None)}

    taken = []

    def board(*args: object) -> Quad:
        taken.append(args[5][1])  # type: ignore[index]
        return Quad(truth, truth, True, 1.0, method="grid", cells=(5, 5))

    monkeypatch.setattr(lattice, "_grids", grids)
    monkeypatch.setattr(lattice, "_board", board)
    find_lattices(photo, (5, 5), ArtColours.learn([_tiles(5, 5, seed=3)]), most=1)
    assert [grid is tile_wide for grid in taken] == [True]


def _lattice_segments(tiles: set[tuple[int, int]], cell: float = 10.0) -> lattice._Segments:
    """Each tile's four sides (a little short of its corners), tiles at (column, row) of ``cell`` pixels:
    family 0 the sides along x, family 1 those along y."""
    ends, family = [], []
    for x, y in sorted(tiles):
        for k in (y, y + 1):
            ends.append((x * cell + 1, k * cell, (x + 1) * cell - 1, k * cell))
            family.append(0)
        for k in (x, x + 1):
            ends.append((k * cell, y * cell + 1, k * cell, (y + 1) * cell - 1))
            family.append(1)
    array = np.array(ends, np.float64)
    lengths = np.hypot(array[:, 2] - array[:, 0], array[:, 3] - array[:, 1])
    return lattice._Segments(array, lengths, np.array(family, np.intp))


def test_a_larger_board_is_taken_where_the_lattice_of_tiles_runs_on_beyond_the_grid_found() -> None:
    # A 5 x 5 grid found inside a Mighty Duel kingdom with 6 squares of its outer ring left empty: the
    # tiles' sides and art run on through the 7 x 7 board's band. Round a 5 x 5 kingdom, only table; where
    # lines run on but over no art (a board's printing found off it), or one way only (lines of loose
    # dominoes laid along two opposite sides), no larger board either.
    band = [(0, 0), (3, 0), (6, 6), (0, 4), (6, 2), (2, 6)]
    duel = {(x, y) for x in range(7) for y in range(7)} - set(band)
    alone = {(x, y) for x in range(1, 6) for y in range(1, 6)}
    found = np.array([[10.0, 0, 10], [0, 10, 10], [0, 0, 1]])  # cells (1..6) of the 7 x 7 frame
    grown = np.array([[10.0, 0, 0], [0, 10, 0], [0, 0, 1]])
    taken = {}
    drafted = alone | {(x, y) for x in (0, 6) for y in range(7)}  # along its left and right sides
    laid = (
        ("duel", duel, duel),
        ("alone", alone, alone),
        ("printed", duel, alone),
        ("drafted", drafted, drafted),
    )
    for name, lines, art in laid:
        likeness = np.zeros((90, 90), np.float32)
        for x, y in art:
            likeness[y * 10 : (y + 1) * 10, x * 10 : (x + 1) * 10] = 1.0
        segments = _lattice_segments(lines)
        fits = [lattice._Fit(segments, likeness, 1.0, n, lambda p: p) for n in ((5, 5), (7, 7))]
        taken[name] = lattice._continued(fits[0], found, fits[1], grown)
    assert taken == {"duel": True, "alone": False, "printed": False, "drafted": False}


def test_a_grid_spanning_the_larger_boards_width_is_no_larger_board() -> None:
    # A grid stretched over all seven columns of the band leaves it rows to run on through but no columns:
    # the tiles do not run on both ways, said plainly (no mean of nothing, no warning to the player).
    tiles = {(x, y) for x in range(7) for y in range(7)}
    likeness = np.ones((90, 90), np.float32)
    segments = _lattice_segments(tiles)
    fits = [lattice._Fit(segments, likeness, 1.0, n, lambda p: p) for n in ((5, 5), (7, 7))]
    stretched = np.array([[14.0, 0, 0], [0, 10, 10], [0, 0, 1]])  # 5 cells over the band's 7 columns
    grown = np.array([[10.0, 0, 0], [0, 10, 0], [0, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not lattice._continued(fits[0], stretched, fits[1], grown)


def test_tiles_laid_in_line_just_beyond_a_boards_side_are_said() -> None:
    # A line of loose dominoes laid against a kingdom's side, in line with its grid: the outline may be a row
    # off, so the board says so (scored). With table all round, nothing is said.
    kingdom = {(x, y) for x in range(1, 6) for y in range(1, 6)}
    grid = np.array([[10.0, 0, 10], [0, 10, 10], [0, 0, 1]])
    said = {}
    for name, tiles in (("alone", kingdom), ("line beside", kingdom | {(6, y) for y in range(1, 6)})):
        likeness = np.zeros((90, 90), np.float32)
        for x, y in tiles:
            likeness[y * 10 : (y + 1) * 10, x * 10 : (x + 1) * 10] = 1.0
        fit = lattice._Fit(_lattice_segments(tiles), likeness, 1.0, (5, 5), lambda p: p)
        said[name] = lattice._runs_beyond(fit, grid)
    assert said == {"alone": False, "line beside": True}


def test_with_no_calibration_a_grid_only_another_lens_sees_is_taken_where_clearly_better() -> None:
    # A wide lens' kingdom far across the table: its own grid only another lens sees as a board's shape
    # (False), beside a worse grid the guessed lens sees so, run onto a loose domino (True): the kingdom's is
    # taken. A real kingdom with squares left empty, judged a little better through another lens: the
    # guessed lens' grid. A grid of two boards side by side where it is judged best.
    fit = lattice._Fit(_lattice_segments({(0, 0)}), np.zeros((9, 9), np.float32), 1.0, (5, 5), lambda p: p)
    kingdom, onto_domino = np.eye(3), np.diag([2.0, 2.0, 1.0])
    single = {True: (0.62, onto_domino, fit), False: (1.1, kingdom, fit)}
    assert lattice._taken(single, {}) == (single[False], False, False)
    near = {True: (0.977, kingdom, fit), False: (0.997, onto_domino, fit)}
    assert lattice._taken(near, {}) == (near[True], True, False)
    pair = {False: (1.3, kingdom, fit)}
    assert lattice._taken(single, pair) == (pair[False], False, True)
    assert lattice._taken({}, {}) is None


def test_grids_judged_together_score_as_each_judged_alone() -> None:
    # The search judges a grid's moves all at once: each must score exactly as it would alone (the moves'
    # order decides which is kept), the grid on the tiles best, and one mapping cells to infinity no error.
    tiles = {(x, y) for x in range(1, 6) for y in range(1, 6)}
    likeness = np.zeros((90, 90), np.float32)
    for x, y in tiles:
        likeness[y * 10 : (y + 1) * 10, x * 10 : (x + 1) * 10] = 1.0
    fit = lattice._Fit(_lattice_segments(tiles), likeness, 1.0, (5, 5), lambda p: p)
    on = np.array([[10.0, 0, 10], [0, 10, 10], [0, 0, 1]])
    grids = [
        on @ np.array([[1.0, 0, 0.5], [0, 1, 0], [0, 0, 1]]),  # half a tile sideways
        on,
        on @ np.array([[1.2, 0, 0], [0, 1, 0], [0, 0, 1]]),  # spread over a column more
        np.array([[10.0, 0, 10], [0, 10, 10], [2.0, 0, 1]]),  # the ring's left column sent to infinity
    ]
    together = fit.scores(grids)
    alone = [fit.score(grid) for grid in grids]
    assert together.tolist() == alone
    assert int(np.argmax(together)) == 1 and alone[1] == pytest.approx(2.0)
    assert fit.scores([]).shape == (0,)
