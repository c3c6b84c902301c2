"""Board profiles: one physical board's geometry and cell vocabulary, as a versioned data file.

A profile says where everything lies on a board in millimetres (x to the right, y down, origin at the board's
top-left corner as the board is read), which cells exist, and which label set each region's cells take. The
rulebooks give no dimensions, so the shipped defaults are best guesses; calibration writes profiles for real
boards. ``setup`` carries the game data a photo cannot show (column order, track values, ...) verbatim to the
rule engine, which validates it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from math import isclose
from typing import Any

from scoring.core import StateError
from scoring.fields import as_float, as_int, as_list, as_object, as_str, get, item_path, reject_unknown

PROFILE_VERSION = 1


@dataclass(frozen=True)
class Region:
    """A rectangular grid of slots on a board: cells, track spaces, landscape slots, a terrace.

    Cell (r, c) spans ``origin_mm + (c, r) * pitch_mm`` to that plus ``cell_mm``. ``mask`` rows use ``1``
    for a cell that exists and ``0`` for one that does not (``None``: all exist).
    """

    name: str
    labels: str
    rows: int
    cols: int
    origin_mm: tuple[float, float]
    cell_mm: tuple[float, float]
    pitch_mm: tuple[float, float]
    mask: tuple[str, ...] | None = None

    def exists(self, r: int, c: int) -> bool:
        return 0 <= r < self.rows and 0 <= c < self.cols and (self.mask is None or self.mask[r][c] == "1")

    def cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if self.exists(r, c)]


@dataclass(frozen=True)
class BoardProfile:
    """A physical board: size, regions, orientation cue, and the game setup its printing implies."""

    name: str
    game: str
    size_mm: tuple[float, float]
    regions: tuple[Region, ...]
    orientation_cue: str = ""
    setup: Mapping[str, Any] = field(default_factory=dict)
    version: int = PROFILE_VERSION

    def region(self, name: str) -> Region:
        for region in self.regions:
            if region.name == name:
                return region
        known = ", ".join(r.name for r in self.regions)
        raise KeyError(f"profile {self.name!r} has no region {name!r}; it has {known}")

    @property
    def corners_mm(self) -> tuple[tuple[float, float], ...]:
        """TL, TR, BR, BL board corners."""
        w, h = self.size_mm
        return ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h))

    @property
    def tiles_only(self) -> bool:
        """Whether the board is its one grid of square cells laid edge to edge, no margin round it (a
        kingdom of tiles, no printed board): found by its grid's lines, and no picture of it holds."""
        if len(self.regions) != 1:
            return False
        region = self.regions[0]
        (cw, ch), (pw, ph) = region.cell_mm, region.pitch_mm
        return (
            all(isclose(v, ch, abs_tol=0.01) for v in (cw, pw, ph))
            and all(isclose(v, 0.0, abs_tol=1.0) for v in region.origin_mm)
            and isclose(region.cols * cw, self.size_mm[0], abs_tol=1.0)
            and isclose(region.rows * ch, self.size_mm[1], abs_tol=1.0)
        )


def _pair(data: object, path: str, positive: bool = False) -> tuple[float, float]:
    a, b = as_list(data, path, 2)
    lo = 1e-6 if positive else None
    return as_float(a, item_path(path, 0), lo), as_float(b, item_path(path, 1), lo)


def _parse_region(data: object, path: str) -> Region:
    obj = as_object(data, path)
    known = ("name", "labels", "rows", "cols", "origin_mm", "cell_mm", "pitch_mm", "mask")
    reject_unknown(obj, known, path)
    rows = as_int(get(obj, "rows", path), item_path(path, "rows"), 1, 64)
    cols = as_int(get(obj, "cols", path), item_path(path, "cols"), 1, 64)
    cell = _pair(get(obj, "cell_mm", path), item_path(path, "cell_mm"), positive=True)
    pitch = _pair(get(obj, "pitch_mm", path, list(cell)), item_path(path, "pitch_mm"), positive=True)
    mask: tuple[str, ...] | None = None
    if obj.get("mask") is not None:
        mask_path = item_path(path, "mask")
        mask = tuple(
            as_str(v, item_path(mask_path, i)) for i, v in enumerate(as_list(obj["mask"], mask_path, rows))
        )
        for i, line in enumerate(mask):
            if len(line) != cols or set(line) - {"0", "1"}:
                raise StateError(f"{item_path(mask_path, i)}: expected {cols} characters of 0 or 1")
    return Region(
        name=as_str(get(obj, "name", path), item_path(path, "name")),
        labels=as_str(get(obj, "labels", path), item_path(path, "labels")),
        rows=rows,
        cols=cols,
        origin_mm=_pair(get(obj, "origin_mm", path), item_path(path, "origin_mm")),
        cell_mm=cell,
        pitch_mm=pitch,
        mask=mask,
    )


def parse_profile(data: object) -> BoardProfile:
    """A profile from decoded JSON; errors name the field. Regions must lie on the board."""
    obj = as_object(data, "profile")
    known = ("version", "name", "game", "size_mm", "regions", "orientation_cue", "setup")
    reject_unknown(obj, known, "profile")
    version = as_int(get(obj, "version", "profile"), "version")
    if version != PROFILE_VERSION:
        raise StateError(
            f"version: profile version {version} is not supported (this build reads {PROFILE_VERSION})"
        )
    size = _pair(get(obj, "size_mm", "profile"), "size_mm", positive=True)
    regions = tuple(
        _parse_region(r, item_path("regions", i))
        for i, r in enumerate(as_list(get(obj, "regions", "profile"), "regions"))
    )
    names = [r.name for r in regions]
    if len(set(names)) != len(names):
        raise StateError("regions: two regions share a name")
    for i, region in enumerate(regions):
        x1 = region.origin_mm[0] + (region.cols - 1) * region.pitch_mm[0] + region.cell_mm[0]
        y1 = region.origin_mm[1] + (region.rows - 1) * region.pitch_mm[1] + region.cell_mm[1]
        if min(region.origin_mm) < 0 or x1 > size[0] + 1e-6 or y1 > size[1] + 1e-6:
            raise StateError(
                f"regions[{i}]: region {region.name!r} extends past the {size[0]}x{size[1]} mm board"
            )
    return BoardProfile(
        name=as_str(get(obj, "name", "profile"), "name"),
        game=as_str(get(obj, "game", "profile"), "game"),
        size_mm=size,
        regions=regions,
        orientation_cue=as_str(get(obj, "orientation_cue", "profile", ""), "orientation_cue"),
        setup=dict(as_object(get(obj, "setup", "profile", {}), "setup")),
        version=version,
    )


def dump_profile(profile: BoardProfile) -> dict[str, Any]:
    regions = []
    for r in profile.regions:
        entry: dict[str, Any] = {
            "name": r.name,
            "labels": r.labels,
            "rows": r.rows,
            "cols": r.cols,
            "origin_mm": list(r.origin_mm),
            "cell_mm": list(r.cell_mm),
            "pitch_mm": list(r.pitch_mm),
        }
        if r.mask is not None:
            entry["mask"] = list(r.mask)
        regions.append(entry)
    return {
        "version": profile.version,
        "name": profile.name,
        "game": profile.game,
        "size_mm": list(profile.size_mm),
        "orientation_cue": profile.orientation_cue,
        "regions": regions,
        "setup": dict(profile.setup),
    }


def default_profile(game: str) -> BoardProfile:
    """The shipped best-guess profile of ``game`` (``vision/profiles/GAME.json``)."""
    try:
        text = resources.files("vision.profiles").joinpath(f"{game}.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StateError(f"no default board profile for game {game!r}") from None
    return parse_profile(json.loads(text))


def own_printing(profile: BoardProfile) -> bool:
    """Whether ``profile`` is a copy of its game's board in proportions of its own (another size, its grids
    elsewhere), which the game's models never learnt."""
    shipped = _shipped_geometry(profile.game)
    return shipped is not None and (profile.size_mm, profile.regions) != shipped


@cache
def _shipped_geometry(game: str) -> tuple[tuple[float, float], tuple[Region, ...]] | None:
    """The shipped board's size and grids (None: no shipped board), read once: asked of every board read."""
    try:
        board = default_profile(game)
    except (KeyError, ValueError):
        return None
    return board.size_mm, tuple(board.regions)
