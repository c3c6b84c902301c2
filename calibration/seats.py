"""Table set-up: where each player's board lies, so live scoring knows whose board is whose.

A seat is a convex polygon in normalised photo coordinates (x / width, y / height, each 0..1), so a set-up
survives a change of capture resolution. Seats are made from the boards located in a set-up photo, grown
about their centres so that a board nudged during play still lies in its own seat, and stored as a
versioned "table" file.

Everything is computed in normalised coordinates: growing about a centre, clipping and "which polygon holds
most of the board" are unchanged by the axis scaling from pixels, so the answers match the pixel ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.store import StoreError, read_versioned, write_json_atomic
from vision.camera_model import CameraModel
from vision.geometry import Points, as_points
from vision.locate.board import locate
from vision.locate.mask import BoardSegmenter
from vision.profile import BoardProfile, default_profile

KIND = "table"
VERSION = 1
# A seat smaller than this share of the photo is a line or a point, not a place on the table.
MIN_AREA = 1e-8
# Rounding slack, in normalised units, for "on the inner side of an edge".
EPS = 1e-9
# An intersection below this share of the smaller polygon is rounding, not an overlap.
OVERLAP_SHARE = 1e-6
# Halvings when shrinking two overlapping seats: 2**-40 of the grow factor is far below a pixel.
SHRINK_STEPS = 40
FRAME: Points = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


@dataclass(frozen=True)
class Seat:
    """One player's place: a convex polygon in normalised photo coordinates."""

    name: str
    player: str | None
    polygon: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class TableSetup:
    """The seats of one game's table; checked on construction, errors naming the bad field."""

    game: str
    seats: tuple[Seat, ...]

    def __post_init__(self) -> None:
        if not self.game.strip():
            raise ValueError("game: expected the name of a game, got an empty string")
        if not self.seats:
            raise ValueError("seats: expected at least one seat")
        first_use: dict[str, int] = {}
        for i, seat in enumerate(self.seats):
            where = f"seats[{i}]"
            if not seat.name.strip():
                raise ValueError(f"{where}.name: expected a name, got {seat.name!r}")
            if seat.name in first_use:
                raise ValueError(
                    f"{where}.name: {seat.name!r} is already the name of seats[{first_use[seat.name]}]"
                )
            first_use[seat.name] = i
            if seat.player is not None and not seat.player.strip():
                raise ValueError(f"{where}.player: expected a name or null, got {seat.player!r}")
            _check_polygon(seat.polygon, f"{where}.polygon")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "version": VERSION,
            "game": self.game,
            "seats": [
                {"name": s.name, "player": s.player, "polygon": [[x, y] for x, y in s.polygon]}
                for s in self.seats
            ],
        }


@dataclass(frozen=True)
class SeatMatch:
    """The seat a board was found in (None if it cannot be told) and why."""

    seat: str | None
    reason: str


def save(setup: TableSetup, path: Path) -> None:
    write_json_atomic(path, setup.to_json())


def load(path: Path) -> TableSetup:
    """A saved table set-up, validated: StoreError names the file and the bad field."""
    data = read_versioned(path, KIND, (VERSION,))
    try:
        return _from_json(data)
    except ValueError as exc:
        raise StoreError(f"{path}: {exc}") from None


def seats_from_boards(
    game: str,
    boards_corners: Sequence[Points],
    size_wh: tuple[int, int],
    names: Sequence[str] | None = None,
    players: Sequence[str | None] | None = None,
    grow: float = 0.25,
) -> TableSetup:
    """Seats around the boards located in a set-up photo of ``size_wh`` pixels.

    Each seat is its board's quad (photo pixels, corners in order round the board) scaled about the quad's
    centre (the mean of its corners) by ``1 + grow``, clipped to the photo and normalised. Where two grown
    seats would overlap, both are grown less, just enough to stop overlapping; boards that overlap each
    other cannot be given seats and raise ValueError.

    ``seats[i]`` is always the seat of ``boards_corners[i]``; ``names[i]`` and ``players[i]`` go with it.
    Default names are "seat 1".."seat N" in reading order: rows top to bottom, each row left to right.
    Boards are taken by height of centre, highest first; one joins the current row if its centre is no lower
    than the bottom corner of the row's first board, else it starts the next row.
    """
    if grow < 0:
        raise ValueError(f"grow: expected 0 or more, got {grow}")
    boards = [_normalised(c, size_wh, f"boards_corners[{i}]") for i, c in enumerate(boards_corners)]
    if not boards:
        raise ValueError("boards_corners: a table set-up needs at least one board")
    for i, board in enumerate(boards):
        if abs(_signed_area(board)) < MIN_AREA or not _is_convex(board):
            raise ValueError(
                f"boards_corners[{i}]: the corners make no convex quad; are they in order round the board?"
            )
        if not _contains(FRAME, board.mean(axis=0)):
            raise ValueError(f"boards_corners[{i}]: the board's centre is outside the photo")
    limits = [grow] * len(boards)
    for i, j in combinations(range(len(boards)), 2):
        if _overlaps(boards[i], boards[j]):
            raise ValueError(
                f"boards_corners[{i}] and boards_corners[{j}] overlap: boards must lie apart to get seats"
            )
        if _overlaps(_grown(boards[i], grow), _grown(boards[j], grow)):
            apart = _largest_apart_grow(boards[i], boards[j], grow)
            limits[i] = min(limits[i], apart)
            limits[j] = min(limits[j], apart)
    if names is None:
        rank = {i: n for n, i in enumerate(reading_order(boards))}
        names = [f"seat {rank[i] + 1}" for i in range(len(boards))]
    if players is None:
        players = [None] * len(boards)
    if len(names) != len(boards) or len(players) != len(boards):
        raise ValueError(
            f"names and players: expected one per board ({len(boards)}), got {len(names)} and {len(players)}"
        )
    polygons = [np.clip(_clip(_grown(b, g), FRAME), 0.0, 1.0) for b, g in zip(boards, limits, strict=True)]
    return TableSetup(
        game,
        tuple(
            Seat(name, player, tuple((float(x), float(y)) for x, y in polygon))
            for name, player, polygon in zip(names, players, polygons, strict=True)
        ),
    )


def seats_from_photo(
    image: NDArray[np.uint8],
    game: str,
    camera: CameraModel | None = None,
    names: Sequence[str] | None = None,
    players: Sequence[str | None] | None = None,
    stickers: bool = False,
    segmenter: BoardSegmenter | None = None,
    boards: Sequence[BoardProfile] = (),
) -> tuple[TableSetup, list[Points]]:
    """Seats around every whole board of ``game`` found in a photo of the laid-out table, and those boards'
    corners (photo pixels, ``seats[i]`` is ``boards[i]``'s), both in reading order, as ``names`` and
    ``players`` are given (``segmenter``: see :func:`vision.locate.board.locate`; ``boards``: the table's own
    copies' profiles, whose proportions are looked for besides the game's board's). ValueError says what to
    change when no seats can be made."""
    aspects = tuple(dict.fromkeys(p.size_mm[0] / p.size_mm[1] for p in (default_profile(game), *boards)))
    found = [q.corners_xy for q in locate(image, camera, aspects, stickers, segmenter) if q.in_frame]
    if not found:
        raise ValueError("no whole board found: lay every player's board in view and photograph the table")
    ordered = [found[i] for i in reading_order(found)]
    h, w = image.shape[:2]
    return seats_from_boards(game, ordered, (w, h), names=names, players=players), ordered


def assign(setup: TableSetup, boards_corners: Sequence[Points], size_wh: tuple[int, int]) -> list[SeatMatch]:
    """Each board's seat, in the order of ``boards_corners`` (photo pixels of a ``size_wh`` photo).

    A board's seat is the seat containing its centre (the mean of its corners); if several do, the one
    covering most of the board. A board in no seat, and every board sharing a seat with another, gets
    ``seat=None``: guessing there could score a board for the wrong player.
    """
    seats = [(seat.name, np.array(seat.polygon, np.float64)) for seat in setup.seats]
    found: list[tuple[str | None, str]] = []
    for i, corners in enumerate(boards_corners):
        board = _normalised(corners, size_wh, f"boards_corners[{i}]")
        cx, cy = board.mean(axis=0)
        inside = [(name, polygon) for name, polygon in seats if _contains(polygon, np.array([cx, cy]))]
        if not inside:
            where = f"({cx:.3f}, {cy:.3f}) of the photo's width and height"
            found.append((None, f"outside every seat: its centre is at {where}"))
        elif len(inside) == 1:
            found.append((inside[0][0], f"centre inside seat {inside[0][0]!r}"))
        else:
            best = max(inside, key=lambda seat: abs(_signed_area(_clip(board, seat[1]))))[0]
            candidates = ", ".join(repr(name) for name, _ in inside)
            found.append((best, f"centre inside seats {candidates}; {best!r} covers most of the board"))
    boards_in = Counter(name for name, _ in found if name is not None)
    matches = []
    for name, reason in found:
        if name is not None and boards_in[name] > 1:
            count = "two" if boards_in[name] == 2 else str(boards_in[name])
            matches.append(SeatMatch(None, f"{count} boards in seat {name!r}"))
        else:
            matches.append(SeatMatch(name, reason))
    return matches


def _from_json(data: dict[str, Any]) -> TableSetup:
    game = data.get("game")
    if not isinstance(game, str):
        raise ValueError(f"game: expected the name of a game, got {game!r}")
    if "seats" not in data:
        raise ValueError("seats: missing")
    raw_seats = data["seats"]
    if not isinstance(raw_seats, list):
        raise ValueError(f"seats: expected a list of seats, got {type(raw_seats).__name__}")
    seats = []
    for i, raw in enumerate(raw_seats):
        where = f"seats[{i}]"
        if not isinstance(raw, dict):
            raise ValueError(f"{where}: expected an object with name, player and polygon")
        name, player = raw.get("name"), raw.get("player")
        if not isinstance(name, str):
            raise ValueError(f"{where}.name: expected a string, got {name!r}")
        if player is not None and not isinstance(player, str):
            raise ValueError(f"{where}.player: expected a name or null, got {player!r}")
        seats.append(Seat(name, player, _parse_polygon(raw.get("polygon"), f"{where}.polygon")))
    return TableSetup(game, tuple(seats))


def _parse_polygon(raw: object, where: str) -> tuple[tuple[float, float], ...]:
    if not isinstance(raw, list):
        raise ValueError(f"{where}: expected at least 3 points in 0..1, got {raw!r}")
    points = []
    for k, point in enumerate(raw):
        # bool is an int in Python, but true/false in a polygon is a broken file, not a coordinate.
        if not (
            isinstance(point, list)
            and len(point) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in point)
        ):
            raise ValueError(f"{where}[{k}]: expected [x, y], got {point!r}")
        try:
            points.append((float(point[0]), float(point[1])))
        except OverflowError:  # a whole number beyond float's range
            raise ValueError(f"{where}[{k}]: a coordinate is far outside 0..1") from None
    return tuple(points)


def _check_polygon(polygon: tuple[tuple[float, float], ...], where: str) -> None:
    if len(polygon) < 3:
        raise ValueError(f"{where}: expected at least 3 points in 0..1, got {len(polygon)}")
    for k, (x, y) in enumerate(polygon):
        if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
            raise ValueError(f"{where}[{k}]: ({x}, {y}) is outside 0..1 (x / width, y / height)")
    points = np.array(polygon, np.float64)
    if abs(_signed_area(points)) < MIN_AREA:
        raise ValueError(f"{where}: encloses no area; its points are in a line or on top of each other")
    if not _is_convex(points):
        raise ValueError(f"{where}: not convex; list the corners in order round the seat")


def _normalised(corners: Points, size_wh: tuple[int, int], where: str) -> Points:
    w, h = size_wh
    if w <= 0 or h <= 0:
        raise ValueError(f"size_wh: expected a positive width and height, got {w}x{h}")
    points = as_points(corners)
    if len(points) < 3:
        raise ValueError(f"{where}: expected at least 3 corners, got {len(points)}")
    return points / np.array([w, h], np.float64)


def _signed_area(p: Points) -> float:
    x, y = p[:, 0], p[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2


def _positive(p: Points) -> Points:
    """``p`` listed so that its shoelace area is positive: the inside is then left of every edge."""
    return p if _signed_area(p) >= 0 else p[::-1]


def _edges(p: Points) -> zip[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    return zip(p, np.roll(p, -1, axis=0), strict=True)


def _left_of(a: NDArray[np.float64], b: NDArray[np.float64], pts: Points) -> NDArray[np.float64]:
    """Twice the signed area of (a, b, p) for each p: positive left of the edge a -> b."""
    d = b - a
    return np.asarray(d[0] * (pts[:, 1] - a[1]) - d[1] * (pts[:, 0] - a[0]), np.float64)


def _is_convex(p: Points) -> bool:
    # Every vertex on the inner side of every edge: unlike turn signs alone, this rejects stars and bowties.
    q = _positive(p)
    return all(bool(np.all(_left_of(a, b, q) >= -EPS)) for a, b in _edges(q))


def _contains(convex: Points, point: NDArray[np.float64]) -> bool:
    q = _positive(convex)
    return all(float(_left_of(a, b, point.reshape(1, 2))[0]) >= -EPS for a, b in _edges(q))


def _clip(subject: Points, convex: Points) -> Points:
    """The part of ``subject`` inside the convex polygon ``convex`` (Sutherland-Hodgman)."""
    out = subject
    for a, b in _edges(_positive(convex)):
        if not len(out):
            break
        side = _left_of(a, b, out)
        kept = []
        for p, q, sp, sq in zip(out, np.roll(out, -1, axis=0), side, np.roll(side, -1), strict=True):
            if sp >= 0:
                kept.append(p)
            if (sp >= 0) != (sq >= 0):
                kept.append(p + (q - p) * (sp / (sp - sq)))
        out = np.array(kept, np.float64).reshape(-1, 2)
    # A vertex lying on a clip edge comes out twice; a stored seat should list each corner once.
    distinct = np.linalg.norm(out - np.roll(out, 1, axis=0), axis=1) > EPS
    return out[distinct] if distinct.any() else out[:1]


def _overlaps(a: Points, b: Points) -> bool:
    shared = abs(_signed_area(_clip(a, b)))
    return shared > OVERLAP_SHARE * min(abs(_signed_area(a)), abs(_signed_area(b)))


def _grown(p: Points, grow: float) -> Points:
    centre = p.mean(axis=0)
    return np.asarray(centre + (p - centre) * (1.0 + grow), np.float64)


def _largest_apart_grow(a: Points, b: Points, grow: float) -> float:
    # A convex quad scaled about an inner point contains its smaller scalings, so overlap only grows with
    # the factor and halving finds the largest factor that keeps the two apart; 0 does, as the boards do.
    apart, overlapping = 0.0, grow
    for _ in range(SHRINK_STEPS):
        middle = (apart + overlapping) / 2
        if _overlaps(_grown(a, middle), _grown(b, middle)):
            overlapping = middle
        else:
            apart = middle
    return apart


def reading_order(boards: list[Points]) -> list[int]:
    """Indices of the boards (corner arrays, any consistent units) in reading order, as seats are named."""
    rows: list[list[int]] = []
    for i in sorted(range(len(boards)), key=lambda i: float(boards[i][:, 1].mean())):
        if rows and boards[i][:, 1].mean() <= boards[rows[-1][0]][:, 1].max():
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda i: float(boards[i][:, 0].mean()))]
