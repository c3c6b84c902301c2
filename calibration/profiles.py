"""Named board profiles in the state folder: the user's own physical board, learnt on the table.

A profile folder ``profiles/NAME/`` holds ``profile.json`` (the board's geometry and the game set-up the
rulebook text left open, entered once), and, once made, ``colour.json`` (the board's background colour under
the set-up light), ``enrolment.json`` (the classifier's correction for the real tile art) and ``board.png``
(the rectified board the profile was made from, for the web page to show and to find the board again by).
Every file is written atomically.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import enroll
from calibration.statedir import StateDir, check_name
from calibration.store import StoreError, read_json, write_json_atomic
from scoring import custom_grid
from scoring.core import StateError
from scoring.registry import get_entry, get_game
from vision.camera_model import CameraModel
from vision.geometry import Points, apply_homography, as_points
from vision.locate.art import ArtColours
from vision.locate.picture import BoardPicture
from vision.profile import BoardProfile, Region, default_profile, dump_profile, parse_profile
from vision.read.colour import BoardColour
from vision.read.rectify import Rectified, board_homography
from vision.readers import check_fits, reader_for, rules_setup

PROFILE_FILE = "profile.json"
COLOUR_FILE = "colour.json"
ENROLMENT_FILE = "enrolment.json"
PICTURE_FILE = "board.png"
ART_FILE = "art.json"


@dataclass(frozen=True)
class ProfileBundle:
    """A stored profile and what has been learnt for it so far."""

    name: str
    profile: BoardProfile
    colour: BoardColour | None
    enrolment: enroll.Enrolment | None
    folder: Path
    # The colours of its art, learnt from its teaching photos: a board that is a grid is found by them.
    art: ArtColours | None = None

    def picture(self) -> BoardPicture | None:
        """The board's remembered picture, described to be found again in photos
        (:mod:`vision.locate.picture`); None when the profile has none, or it shows too little detail.
        Described when asked: it takes a moment, and most uses of a profile need none."""
        path = self.folder / PICTURE_FILE
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            return None
        try:
            return BoardPicture.learn(image, self.profile.size_mm)
        except ValueError:
            return None


def new_profile(name: str, game: str, setup: Mapping[str, Any]) -> BoardProfile:
    """The game's default board as ``name``, with ``setup`` (the rulebook's open questions) checked by the
    game's own rules, so a typo is refused now and not at the first score."""
    base = default_profile(game)
    merged = {**base.setup, **setup}
    try:
        if (
            merged
        ):  # a game whose board carries no set-up (Zen Garden's is dealt each game) is given it to score
            get_entry(game).parse_setup(rules_setup(game, merged))
        profile = replace(base, name=check_name(name), setup=merged)
        reader_for(profile)  # what only the reader uses (Four Gardens' marker colours) is checked by it
    except StateError as exc:
        raise StateError(f"game set-up for {game}: {exc}") from None
    return profile


@dataclass(frozen=True)
class GridPlace:
    """Where a board's grid lies, as measured on the real board (mm from its top-left corner): its first
    cell's corner, a cell's side and the step from one cell to the next (the cell's side plus any gap)."""

    x_mm: float
    y_mm: float
    cell_mm: float
    pitch_mm: float
    # The step down to the next row where it is not the step across (Zen Garden's coin rows).
    row_pitch_mm: float | None = None

    @classmethod
    def typed(cls, values: Sequence[float]) -> GridPlace:
        """From X, Y, a cell's side and optionally the step to the next cell and the next row, as typed (each
        step defaults to the value before it)."""
        if not 3 <= len(values) <= 5:
            raise StateError(
                f"a grid's place is 3 to 5 numbers (X, Y, CELL[, STEP[, ROW_STEP]]), got {len(values)}"
            )
        x, y, cell, *steps = (float(v) for v in values)
        return cls(x, y, cell, steps[0] if steps else cell, steps[1] if len(steps) > 1 else None)


def with_geometry(
    profile: BoardProfile, size_mm: tuple[float, float] | None, grids: Mapping[str | None, GridPlace]
) -> BoardProfile:
    """``profile`` with a real board's size and each named grid's place (``None`` names a board's only grid),
    as measured on it: a table's board need not be the one the rulebook's text describes. Grids must lie on
    the board, cells no larger than their step.

    A grid not measured keeps its place beside the first one measured, as a reprint scaled to another size
    keeps its layout: its offset from it stretched with the board, its cells scaled with that grid's; with
    none measured, every grid is scaled with the board. An owner measures one grid, not every strip."""
    names = [r.name for r in profile.regions]
    title = get_game(profile.game).title
    placed: dict[str, GridPlace] = {}
    for given, place in grids.items():
        if given is None and len(names) != 1:
            raise StateError(
                f"{title}'s board has {len(names)} grids ({', '.join(names)}): name the one "
                f"placed, e.g. --grid-mm {names[0]}=24,58,28"
            )
        name = names[0] if given is None else given
        if name not in names:
            raise StateError(f"{title}'s board has no grid {name!r}; its grids: {', '.join(names)}")
        steps = (place.pitch_mm, place.pitch_mm if place.row_pitch_mm is None else place.row_pitch_mm)
        if min(place.cell_mm, *steps) <= 0 or place.cell_mm > min(steps):
            raise StateError(
                f"grid {name}: a cell ({place.cell_mm:g} mm) must be positive and no larger than its step "
                f"to the next ({min(steps):g} mm)"
            )
        placed[name] = place
    size = size_mm or profile.size_mm
    stretch = (size[0] / profile.size_mm[0], size[1] / profile.size_mm[1])
    measured = [_placed(r, placed[r.name]) for r in profile.regions if r.name in placed]
    anchor = (profile.region(measured[0].name), measured[0]) if measured else None
    regions = tuple(
        _placed(r, placed[r.name]) if r.name in placed else _follow(r, anchor, stretch)
        for r in profile.regions
    )
    for region in sorted(regions, key=lambda r: r.name not in placed):  # the owner's own numbers first
        _check_on_board(region, size, title, region.name in placed)
    # The profile's own checks (every name and number as a saved profile's).
    return parse_profile(dump_profile(replace(profile, size_mm=size, regions=regions)))


def _check_on_board(region: Region, size: tuple[float, float], title: str, measured: bool) -> None:
    """Refuse, in the owner's measures, a grid that does not lie on the board: which edge it crosses and by
    how much, and what to measure again."""
    fix = (
        "Check the cell's side and the step (from one cell's edge to the next cell's same edge), and the "
        "board's size"
        if measured
        else f"It keeps its place beside the grid you measured, as on {title}'s board: measure its place too"
    )
    grid = f"the {region.name} grid" if region.name != "grid" else "the grid"
    for axis, count, edge, far, across in (
        (0, region.cols, "left", "right", "wide"),
        (1, region.rows, "top", "bottom", "high"),
    ):
        start = region.origin_mm[axis]
        reach = start + (count - 1) * region.pitch_mm[axis] + region.cell_mm[axis]
        if start < -1e-6:
            where = f"Measure from the board's {edge} edge to the grid's first cell" if measured else fix
            raise StateError(
                f"{grid} does not fit on the board: it starts {-start:g} mm beyond its {edge} edge. {where}"
            )
        if reach > size[axis] + 1e-6:
            lines = "columns" if axis == 0 else "rows"
            raise StateError(
                f"{grid} does not fit on the board: its {count} {lines} at a {region.pitch_mm[axis]:g} mm "
                f"step reach {reach:g} mm from the board's {edge} edge, past its {far} edge "
                f"({size[axis]:g} mm {across}). {fix}"
            )


def _placed(region: Region, place: GridPlace) -> Region:
    row = place.pitch_mm if place.row_pitch_mm is None else place.row_pitch_mm
    return replace(
        region,
        origin_mm=(place.x_mm, place.y_mm),
        cell_mm=(place.cell_mm, place.cell_mm),
        pitch_mm=(place.pitch_mm, row),
    )


def _follow(region: Region, anchor: tuple[Region, Region] | None, stretch: tuple[float, float]) -> Region:
    """A grid not measured, placed as :func:`with_geometry` says from the ``anchor`` grid (as the game's
    board has it, and as measured) and the board's ``stretch`` (new size over the game's, per axis)."""
    if anchor is None:
        scale = min(stretch)
        origin = (region.origin_mm[0] * stretch[0], region.origin_mm[1] * stretch[1])
    else:
        was, now = anchor
        scale = now.cell_mm[0] / was.cell_mm[0]
        origin = (
            now.origin_mm[0] + (region.origin_mm[0] - was.origin_mm[0]) * stretch[0],
            now.origin_mm[1] + (region.origin_mm[1] - was.origin_mm[1]) * stretch[1],
        )
    return replace(
        region,
        origin_mm=origin,
        cell_mm=(region.cell_mm[0] * scale, region.cell_mm[1] * scale),
        pitch_mm=(region.pitch_mm[0] * scale, region.pitch_mm[1] * scale),
    )


def grid_place(
    profile: BoardProfile,
    size_mm: tuple[float, float],
    board_xy: Points,
    grid_xy: Points,
    region: str,
    camera: CameraModel | None = None,
) -> GridPlace:
    """Where grid ``region`` lies on a board ``size_mm`` across, from the board's and the grid's outer corners
    (TL, TR, BR, BL) placed on one photo of it: its first cell's corner and a cell's side, the cells edge to
    edge (the outer corners do not tell a gap between cells)."""
    board = replace(profile, size_mm=size_mm)
    ideal = [camera.undistort_px(p) if camera is not None else as_points(p) for p in (board_xy, grid_xy)]
    to_mm = np.asarray(np.linalg.inv(board_homography(board, ideal[0])), dtype=np.float64)
    grid_mm = apply_homography(to_mm, ideal[1])
    cells = profile.region(region)
    width = (np.linalg.norm(grid_mm[1] - grid_mm[0]) + np.linalg.norm(grid_mm[2] - grid_mm[3])) / 2
    height = (np.linalg.norm(grid_mm[3] - grid_mm[0]) + np.linalg.norm(grid_mm[2] - grid_mm[1])) / 2
    cell = float((width / cells.cols + height / cells.rows) / 2)
    x, y = grid_mm.min(axis=0)
    return GridPlace(round(float(x), 1), round(float(y), 1), round(cell, 2), round(cell, 2))


def custom_profile(
    name: str,
    rows: int,
    cols: int,
    labels: Sequence[str],
    points: Mapping[str, int],
    cell_mm: float = 40.0,
    margin_mm: float = 20.0,
    once: Sequence[str] = (),
) -> BoardProfile:
    """A user-defined grid game's board: ``rows`` x ``cols`` square cells inside an even margin; ``once``:
    the labels every board shows on exactly one cell."""
    if not (1 <= rows <= custom_grid.MAX_SIDE and 1 <= cols <= custom_grid.MAX_SIDE):
        raise StateError(f"--rows and --cols must be 1 to {custom_grid.MAX_SIDE}")
    if cell_mm <= 0 or margin_mm < 0:
        raise StateError("--cell-mm must be positive and --margin-mm not negative")
    setup = custom_grid.dump_spec(
        custom_grid.parse_spec({"labels": list(labels), "points": dict(points), "once": list(once)}, "setup")
    )
    base = default_profile(custom_grid.GAME)
    grid = replace(
        base.region("grid"),
        rows=rows,
        cols=cols,
        origin_mm=(margin_mm, margin_mm),
        cell_mm=(cell_mm, cell_mm),
        pitch_mm=(cell_mm, cell_mm),
    )
    size = (2 * margin_mm + cols * cell_mm, 2 * margin_mm + rows * cell_mm)
    return replace(base, name=check_name(name), size_mm=size, regions=(grid,), setup=setup)


def save_profile(state: StateDir, profile: BoardProfile) -> Path:
    path = state.profile(profile.name) / PROFILE_FILE
    write_json_atomic(path, dump_profile(profile))
    return path


def save_colour(state: StateDir, name: str, colour: BoardColour) -> None:
    write_json_atomic(state.profile(name) / COLOUR_FILE, colour.to_json())


def save_art(state: StateDir, name: str, art: ArtColours) -> None:
    write_json_atomic(state.profile(name) / ART_FILE, art.to_json())


def save_enrolment(state: StateDir, name: str, enrolment: enroll.Enrolment) -> None:
    enroll.save(enrolment, state.profile(name) / ENROLMENT_FILE)


def save_picture(state: StateDir, name: str, rect: Rectified) -> None:
    path = state.profile(name) / PICTURE_FILE
    tmp = path.with_name(f".{PICTURE_FILE}.tmp.png")
    if not cv2.imwrite(str(tmp), rect.image_bgr):
        raise StoreError(f"{path}: could not write the board picture")
    tmp.replace(path)


def has_picture(state: StateDir, name: str) -> bool:
    return (state.profile(name) / PICTURE_FILE).is_file()


def profile_exists(state: StateDir, name: str) -> bool:
    return (state.profile(name) / PROFILE_FILE).is_file()


def list_profiles(state: StateDir) -> list[str]:
    if not state.profiles.is_dir():
        return []
    return sorted(p.name for p in state.profiles.iterdir() if (p / PROFILE_FILE).is_file())


def game_boards(state: StateDir, game: str) -> list[BoardProfile]:
    """The stored profiles of ``game``'s boards (a damaged one left out: it says so when it is used)."""
    boards = []
    for name in list_profiles(state):
        try:
            profile = parse_profile(read_json(state.profile(name) / PROFILE_FILE))
        except (StoreError, StateError):
            continue
        if profile.game == game:
            boards.append(profile)
    return boards


def check_teaches(state: StateDir, name: str, truths: Sequence[Mapping[str, Any]]) -> None:
    """Refuse (ValueError, in the player's words) boards' true states that cannot teach profile ``name``: a
    board's grids are not the profile's board's (another row, a shorter one)."""
    profile = load_bundle(state, name).profile
    reader = reader_for(profile)
    try:
        for truth in truths:
            check_fits(profile, reader.cell_labels(profile, truth))
    except ValueError as exc:
        raise ValueError(f"{exc}: it cannot teach profile {name!r}; correct it, or do not keep it") from None


def load_bundle(state: StateDir, name: str) -> ProfileBundle:
    """The stored profile ``name``; StoreError names the file and the field when one is bad."""
    folder = state.profile(name)
    path = folder / PROFILE_FILE
    if not path.is_file():
        known = ", ".join(list_profiles(state)) or "none yet"
        raise StoreError(
            f"no profile named {name!r} in {state.profiles} (known: {known}); make one with "
            "`garden-scorer profile create` or `garden-scorer enroll`"
        )
    try:
        profile = parse_profile(read_json(path))
    except StateError as exc:
        raise StoreError(f"{path}: {exc}") from None
    colour = None
    if (folder / COLOUR_FILE).is_file():
        try:
            colour = BoardColour.from_json(read_json(folder / COLOUR_FILE))
        except StoreError as exc:
            raise StoreError(f"{exc}; make the profile again") from None
        except ValueError as exc:
            raise StoreError(f"{folder / COLOUR_FILE}: {exc}; make the profile again") from None
    enrolment = None
    if (folder / ENROLMENT_FILE).is_file():
        try:
            enrolment = enroll.load(folder / ENROLMENT_FILE)
        except ValueError as exc:
            raise StoreError(f"{exc}; enrol again") from None
        if enrolment.game != profile.game:
            raise StoreError(
                f"{folder / ENROLMENT_FILE}: enrolled for {enrolment.game}, but the profile is {profile.game}"
            )
    art = None
    if (folder / ART_FILE).is_file():
        try:
            art = ArtColours.from_json(read_json(folder / ART_FILE))
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{folder / ART_FILE}: {exc}; enrol again") from None
    return ProfileBundle(name, profile, colour, enrolment, folder, art)
