"""Photo -> board readings, as a recipe: locate -> orient -> rectify -> cells -> classify -> assemble.

Every stage returns a typed result and can be run alone (``garden-scorer debug`` writes each one's picture).
Scoring is not done here: a reading carries the assembled state for the device layer to hand to the rules.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring.registry import get_entry
from scoring.words import counted
from vision.camera_model import CameraModel
from vision.geometry import (
    CellKey,
    Points,
    apply_homography,
    in_frame,
    is_convex,
    quad_size,
    snapped,
    within_reach,
)
from vision.locate import landscape, lattice
from vision.locate.art import ArtColours
from vision.locate.board import PLACED, Quad, locate, overlap, quad_from_corners
from vision.locate.lattice import find_lattices
from vision.locate.lens import estimate_lens
from vision.locate.mask import BoardSegmenter
from vision.locate.picture import BoardPicture, find_picture
from vision.profile import BoardProfile, own_printing
from vision.read.bare import like_the_table
from vision.read.cells import cut_along_lean, cut_cells, margin_mm
from vision.read.classify import (
    CellClassifier,
    CellPredictions,
    look_along_lean,
    look_shifted,
    look_turned,
    reordered,
    sure_disagreements,
    together,
    turn_order,
)
from vision.read.colour import BoardColour, normalise
from vision.read.glare import washed_out
from vision.read.gridlines import line_contrast
from vision.read.orient import OrientationModel, as_seen, rotations
from vision.read.reconstruct import apart, settle
from vision.read.rectify import Rectified, board_homography, rectify
from vision.read.upright import weigh_turns
from vision.reader_api import LOW_CONFIDENCE, Landmark, Reading
from vision.readers import other_sizes, reader_for, sized_for

# Below this share of the four rotations, the board's layout did not quite settle which way is up (a board
# of the game in play reads 0.98 or more: 40 photos of each game at the truth's corners).
DOUBTFUL_ORIENTATION = 0.99
# Below this share, no rotation stands out: likely no board of this game at all (another game's board reads
# 0.27-0.84 to a model that is not its own, on the same photos).
NO_ORIENTATION = 0.9
# Photos read together whose readings differ surely (each at LOW_CONFIDENCE or more) on more than this share
# of the cells show different boards: two photos of one board differed so on at most 7 of Tang Garden's 84
# cells, 1 of Four Gardens' 48 and none of Alice's Garden's 48 (40, 15 and 15 pairs), two photos of two
# boards on at least 73, 15 and 36.
OTHER_BOARD_SHARE = 0.2
# What a cell all washed out by a glare weighs in a reading of several photos, against 1 for one with none:
# next to nothing, as its chances say nothing of the square; not nothing, so that a square washed out in every
# photo is still read.
WASHED_WEIGHT = 0.01
# A cell at least this much washed out in either of two photos is not counted as read otherwise by them.
WASHED_CELL = 0.5


UNSURE_OUTLINE = (
    "the board's outline is unsure (its shape only roughly a board's, seen with no camera calibration); not "
    "scored: take the photo more from above, or give its corners (the table's own camera: calibrate it)"
)


FOLDED_OUTLINE = (
    "the board's outline folds in on itself (its corners were not found where a board's are); not scored: "
    "give its corners"
)


UNKNOWN_RUN = (
    "which way the grid runs is not known (its tiles were not found as a grid); not scored: give its corners"
)


NO_TOP_EDGE = "no clear top edge: this may not be a board of this game; not scored"
# More than this share of a board's cells read unsure: they look like nothing of its game (an Alice's Garden
# board read as a kingdom reads every square unsure; a real kingdom at a slant, in glare, 4-11 of its 25).
UNLIKE_SHARE = 0.8
# The share for a game whose boards are read surely (``Reader.printed_sure``): at most 7 % of a drawn
# board's cells unsure, 23-92 % of a patch of table, a window or a kingdom read as one.
SURE_UNLIKE_SHARE = 0.4
UNLIKE = (
    "{unsure} of its {cells} cells look like nothing of {title}: this may be another game's board, or none; "
    "not scored"
)
# The piece a board holds once (its reader's ``landmark``) read at least this surely, alone, on LANDMARKS_MANY
# or more of its cells: no board of the game. Two are not enough: a real kingdom's glared square or swamp can
# read as a second castle (docs/experiments.md, 2026-11-30, another game's board read as a kingdom).
LANDMARK_SURE = 0.7
LANDMARKS_MANY = 3
MANY_LANDMARKS = (
    "{seen} of its cells look surely like the {present}, which a board of {title} holds once: this may be "
    "another game's board; not scored"
)
# The piece nowhere read even this likely, alone, and no cell's mark seen: nothing of the game on the board.
# Outlines scored 0 on bare table or on part of another game's board read a castle below 0.5 on 15 of 23
# (docs/experiments.md, 2026-11-30). A castle alone would not do: real kingdoms under glare read theirs down
# to 0.39 (with models that never saw them), kingdoms laid of real squares with a drawn castle lower still;
# all show crowns.
LANDMARK_SEEN = 0.5
NOTHING_SEEN = (
    "neither a {present} nor a {mark} seen on it: this looks like bare table or another game's board, not a "
    "board of {title}; not scored"
)
SPARSE = (
    "only {laid} of its {cells} places hold a tile: this looks like bare table or loose tiles, not a board "
    "of {title}; not scored"
)
# A board read at a larger size than its game's own, with the set-up leaving the size open, whose tiles all
# but this many lie within the game's own size: likelier a board of that size with loose tiles beside it (a
# finished Mighty Duel kingdom lays 48 squares, at least 24 of them outside any 5 x 5 window of its 7 x 7).
LOOSE_BESIDE = 8
SMALLER_INSIDE = (
    "read as {rows} x {cols} squares, yet {inside} of its {laid} tiles fit in {small_rows} x {small_cols}: "
    "if it is a {small_rows} x {small_cols} board with loose tiles beside it, move them a hand's width away "
    "and photograph it again; if it is {rows} x {cols}, set the game's set-up to that size"
)
# A board of tiles alone (a kingdom) whose side lies nearer the photo's edge than this share of a square is
# taken to run on beyond it.
EDGE_CLEAR = 0.25
# Beside a board its picture found, an outline whose sides measure on the table under this share of the
# copy's board (or over its inverse) is no board of that copy (:func:`_of_its_size`).
COPY_SIZE = 0.75
OUT_OF_PHOTO = "the board is partly out of the photo: move the camera or the board"
# Said of a board of tiles alone at or within EDGE_CLEAR of the photo's edge: whole in view, perhaps, but a
# photo cut along a row's seams looks just so.
AT_PHOTO_EDGE = (
    "the board reaches the photo's edge, so it may run on beyond it: photograph it again with some table "
    "round every side (a quarter of a square or more)"
)
# A board of tiles alone whose cells are seen at fewer pixels than this share of their reader's crop
# (Kingdomino's 96: 29 pixels) reads less surely: the 14 real kingdoms shrunk to 320-1008 pixels (a chat
# app's small copy) were scored wrong 7 times in 13 below it, once in 48 above.
SMALL_CELL_SHARE = 0.3
SMALL_BOARD = (
    "the board is small in the photo (its cells {px} pixels across): for a sure reading, photograph it "
    "closer or send the photo at its full size"
)
DOUBTFUL_TURN = "which way up the board lies is uncertain: check the reading or turn the board"
# How a board read before, where nothing has moved since, is placed (``Quad.method``).
KNOWN = "known"
BEYOND = (
    "squares in line with the board's grid lie just beyond its edge: check that the outline holds the whole "
    "board and nothing else (a line of loose tiles laid against it can shift it a row)"
)
BEYOND_LARGER = "; if it is a board of {rows} x {cols} squares, set that size in the game's set-up"
GRID = "grid"  # the region of a board's main grid of cells: flags name its cells by row and column
NOT_HERE = (
    "nothing of this game's board is seen where its corners are: place them on the board's corners; "
    "not scored"
)


def _unequal_sides(profile: BoardProfile) -> bool:
    return profile.regions[0].rows != profile.regions[0].cols


class NoBoardError(ValueError):
    """No board could be found in the photo."""


@dataclass(frozen=True)
class BoardReading:
    """One board read from a photo: where it is, what its cells say, and what to double-check."""

    game: str
    profile: BoardProfile
    corners_xy: Points
    in_frame: bool
    trusted: bool
    state: Mapping[str, Any]
    confidence: float
    low_confidence: tuple[CellKey, ...]
    flags: tuple[str, ...]
    rectified: Rectified
    # The classifier's own output per cell (what enrolment corrects) and, from it, what each cell is read as
    # once the board's groups are read together (what the state is assembled from).
    predictions: CellPredictions
    readings: Mapping[CellKey, Reading]
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    # Of the flags, those its photo raised (which way up, out of frame, unclear edges) before any cell was
    # read: what a reading put together from several photos keeps of each.
    photo_flags: tuple[str, ...] = ()


def cell_confidences(profile: BoardProfile, readings: Mapping[CellKey, Reading]) -> dict[CellKey, float]:
    """Each cell's confidence, what the page marks unsure: its least sure head of those that mean something
    on its region (a coin track's space has no floor)."""
    reader = reader_for(profile)
    return {
        key: min(reading[head][1] for head in reader.region_heads(key[0]))
        for key, reading in readings.items()
    }


def _read(
    image: NDArray[np.uint8],
    profile: BoardProfile,
    classifier: CellClassifier,
    corners: Points,
    camera: CameraModel | None,
    timings: dict[str, float],
    reference: BoardColour | None = None,
) -> tuple[Rectified, CellPredictions]:
    reader = reader_for(profile)
    t0 = time.perf_counter()
    margin = margin_mm(profile, classifier.context_mm, classifier.lean_up)
    rect = rectify(image, profile, board_homography(profile, corners), camera, margin_mm=margin)
    if reference is not None:
        rect, _ = normalise(rect, reference, profile)
    t1 = time.perf_counter()
    cells = cut_cells(rect, reader.regions, classifier.context_mm, classifier.crop_px, classifier.lean_up)
    t2 = time.perf_counter()
    predictions = classifier.classify(cells)
    if reader.shifted_look is not None:
        predictions = look_shifted(
            classifier,
            predictions,
            reader.shifted_look,
            reader.region_heads,
            lambda keys, offsets: cut_cells(
                rect,
                reader.regions,
                classifier.context_mm,
                classifier.crop_px,
                classifier.lean_up,
                offsets,
                keys,
            ),
        )
    look = reader.turned_look
    if look is not None:
        predictions = look_turned(classifier, cells, predictions, look)
        # Moved crops are cut upright, as the cells' own must be for the model to know them.
        if look.top_mm and not classifier.lean_up:
            predictions = look_along_lean(
                classifier,
                predictions,
                look,
                lambda keys: cut_along_lean(
                    rect, keys, classifier.context_mm, classifier.crop_px, look.top_mm, look.along
                ),
            )
    t3 = time.perf_counter()
    for stage, ms in (("rectify", t1 - t0), ("cells", t2 - t1), ("classify", t3 - t2)):
        timings[stage] = timings.get(stage, 0.0) + ms * 1000
    return rect, predictions


def low_confidence_flag(cells: int) -> str:
    """The flag of a board with ``cells`` cells read with low confidence (kept on a corrected board for
    those the player left unlooked at)."""
    return f"{counted(cells, 'cell')} read with low confidence: check them"


def read_board(
    image: NDArray[np.uint8],
    quad: Quad,
    profile: BoardProfile,
    classifier: CellClassifier,
    orienter: OrientationModel | None,
    camera: CameraModel | None = None,
    hand: Mapping[str, Any] | None = None,
    reference: BoardColour | None = None,
) -> BoardReading:
    """Orient, rectify, cut, classify and assemble one located board.

    ``reference``: the board's background colour when its profile was made; the rectified board is brought
    to that light before its cells are classified.
    """
    timings: dict[str, float] = {}
    flags: list[str] = []
    # The board's smallest cell in photo pixels: its pixels a millimetre times the cell's side.
    per_mm = quad_size(quad.corners_xy) / float(np.sqrt(profile.size_mm[0] * profile.size_mm[1]))
    cell_px = per_mm * min(min(r.cell_mm) for r in profile.regions)
    # A board of tiles alone found at the photo's edge may be whole or cut along its seams, its next row
    # beyond the photo: what is left looks whole (an independent try: 4 of 10 such scored, wrong). It is
    # asked for again with table round it (kingdoms cropped tight were told to move the camera).
    tiles_found = profile.tiles_only and quad.method != PLACED
    out_of_photo = AT_PHOTO_EDGE if tiles_found else OUT_OF_PHOTO
    if tiles_found and quad.in_frame:
        h, w = image.shape[:2]
        quad = replace(quad, in_frame=in_frame(quad.corners_xy, (w, h), EDGE_CLEAR * cell_px))
    trusted = quad.in_frame
    if quad.method != PLACED:  # corners a player placed are the same numbers on every machine: read as given
        quad = replace(quad, corners_xy=snapped(quad.corners_xy), ideal_xy=snapped(quad.ideal_xy))
    corners = quad.ideal_xy
    reader = reader_for(profile)
    if not quad.oriented and reader.turns_freely:
        corners = as_seen(corners, profile.size_mm[0] == profile.size_mm[1])
    if not quad.oriented and not reader.turns_freely and own_printing(profile) and orienter is not None:
        # A copy no layout model learnt (its own size, its grids elsewhere), its picture not found here (a
        # second board of it on the table, its printing hidden): weighed as its profile was made.
        t = time.perf_counter()
        turns = weigh_turns(image, quad.corners_xy, profile, camera, classifier, orienter, reader.regions)
        timings["orient"] = (time.perf_counter() - t) * 1000
        corners = rotations(quad.ideal_xy)[turns.best]
        chance = turns.chances[turns.best]
        if chance < NO_ORIENTATION:
            trusted = False
            flags.append(NO_TOP_EDGE)
        elif not turns.sure:
            flags.append(DOUBTFUL_TURN)
    elif not quad.oriented and not reader.turns_freely:
        if orienter is None:
            raise ValueError(
                "nothing tells which way up this board lies (no layout model knows it, and its picture was "
                "not found): give the corners, use corner stickers, or teach it from a photo with its corners"
            )
        t = time.perf_counter()
        orientation = orienter.orient(image, profile, quad.ideal_xy, camera)
        timings["orient"] = (time.perf_counter() - t) * 1000
        corners = orientation.ideal_corners_xy
        # A game's board read surely is read upright surely too: doubt about its turn is doubt about its game.
        refused = DOUBTFUL_ORIENTATION if reader.printed_sure else NO_ORIENTATION
        if orientation.certainty < refused or orientation.score < 0.5:
            trusted = False
            flags.append(NO_TOP_EDGE)
        elif orientation.certainty < DOUBTFUL_ORIENTATION:
            flags.append(DOUBTFUL_TURN)
            if quad.guessed:
                trusted = False
                flags.append(UNSURE_OUTLINE)
    elif (
        quad.oriented
        and quad.method != KNOWN
        and orienter is not None
        and not reader.turns_freely
        and not own_printing(profile)
    ):
        # Placed by the player (or stickers): its layout model still says whether a board of this game lies
        # there at all (a plain photo read where the corners were left).
        t = time.perf_counter()
        orientation = orienter.orient(image, profile, quad.ideal_xy, camera)
        timings["orient"] = (time.perf_counter() - t) * 1000
        if orientation.score < 0.5:
            trusted = False
            flags.append(NOT_HERE)
    elif quad.guessed and not quad.oriented:
        # Nothing turns this board to confirm the outline (a kingdom reads alike whichever way up it lies).
        trusted = False
        flags.append(UNSURE_OUTLINE)
    elif not quad.oriented and quad.method != lattice.METHOD and _unequal_sides(profile):
        # Only its grid's finder knows which way a grid of unequal sides runs: read crosswise, its cells would
        # be squeezed.
        trusted = False
        flags.append(UNKNOWN_RUN)
    rect, predictions = _read(image, profile, classifier, corners, camera, timings, reference)
    if reader.edge_bare is not None:
        flags.extend(_bare_edges(image, rect, camera, profile, reader.edge_bare, predictions))
    if not quad.in_frame:
        flags.append(out_of_photo)
    if quad.doubt:
        trusted = False
        flags.append(quad.doubt)
    # Measured on kingdoms only: a board of tiles alone (a printed board's small slots read well smaller,
    # where its print shows them in place).
    if profile.tiles_only and cell_px < SMALL_CELL_SHARE * reader.crop_px:
        flags.append(SMALL_BOARD.format(px=round(cell_px)))
    if quad.beyond:
        # Where the set-up leaves a larger size open, the row beyond may be the larger board's own.
        larger = [
            o.regions[0]
            for o in other_sizes(profile, hand or {})
            if o.regions[0].cols > profile.regions[0].cols
        ]
        flags.append(
            BEYOND + (BEYOND_LARGER.format(rows=larger[0].rows, cols=larger[0].cols) if larger else "")
        )
    if not is_convex(quad.ideal_xy):
        # Sides that cross or fold in (a grid's perspective fitted wrong): no board's outline, read as it may.
        trusted = False
        flags.append(FOLDED_OUTLINE)
    corners_xy = camera.distort_px(corners) if camera is not None else corners
    view = BoardReading(
        game=profile.game,
        profile=profile,
        corners_xy=corners_xy,
        in_frame=quad.in_frame,
        trusted=trusted,
        state={},
        confidence=0.0,
        low_confidence=(),
        flags=tuple(flags),
        rectified=rect,
        predictions=predictions,
        readings={},
        timings_ms=timings,
        photo_flags=tuple(flags),
    )
    return _concluded(view, predictions, rect.slant_deg(), hand)


def _placed(keys: Iterable[CellKey]) -> str:
    """Where the cells of a board's grid lie, as a player counts them (" (row 1, column 4; ...)"); "" where
    some lie in another region (a terrace, a track: the page marks them)."""
    if any(region != GRID for region, _, _ in keys):
        return ""
    return " (" + "; ".join(f"row {r + 1}, column {c + 1}" for _, r, c in sorted(keys)) + ")"


def _bare_edges(
    image: NDArray[np.uint8],
    rect: Rectified,
    camera: CameraModel | None,
    profile: BoardProfile,
    bare: tuple[str, str],
    predictions: CellPredictions,
) -> list[str]:
    """The flag of the squares on the board's edge read as a tile that look like the table beside them."""
    head, empty = bare
    readings = predictions.readings()
    found: list[CellKey] = []
    for name in reader_for(profile).regions:
        region = profile.region(name)
        edge = [
            (name, r, c) for r, c in region.cells() if r in (0, region.rows - 1) or c in (0, region.cols - 1)
        ]
        tiles = [k for k in edge if readings[k][head][0] != empty]
        found += like_the_table(image, rect, camera, region, tiles)
    if not found:
        return []
    one = len(found) == 1
    it, look = ("it", "looks") if one else ("them", "look")
    return [
        f"{counted(len(found), 'square')} at the edge{_placed(found)} {look} like the table beside {it}: "
        f"if no tile lies there, set {it} to {empty}"
    ]


def _landmark_chances(predictions: CellPredictions, landmark: Landmark) -> NDArray[np.float32]:
    """Each cell's chance, read alone, of showing ``landmark``'s piece."""
    head = next(h for h in predictions.heads if h.name == landmark.head)
    return predictions.probabilities[head.name][:, head.classes.index(landmark.present)]


def _unmarked(readings: Mapping[CellKey, Reading], landmark: Landmark) -> bool:
    """Whether no cell shows ``landmark``'s mark (no crown on any square)."""
    return all(r[landmark.marks][0] == landmark.unmarked for r in readings.values() if landmark.marks in r)


def _concluded(
    view: BoardReading, predictions: CellPredictions, slant: float | None, hand: Mapping[str, Any] | None
) -> BoardReading:
    """``view`` (its photo's flags and trust) with its cells read from ``predictions`` together, as the
    board's facts have them, its state assembled, and what to check flagged. ``slant``: how far off straight
    above the board was seen (degrees; the least of its photos')."""
    profile = view.profile
    reader = reader_for(profile)
    flags = list(view.photo_flags)
    if reader.slant_limit_deg is not None and slant is not None and slant > reader.slant_limit_deg:
        flags.append(
            f"the photo was taken {slant:.0f} degrees off straight above, where standing pieces hide more of "
            "the board: take it from above, or add a photo of the board from another side"
        )
    entered = hand or {}
    readings = settle(
        predictions,
        reader.exactly_one(profile),
        reader.distinct(profile, entered),
        reader.known(profile),
        reader.counted(profile, entered),
        reader.needs(profile),
        reader.touching(profile),
    ).readings()
    confidences = cell_confidences(profile, readings)
    unsure = {k for k, c in confidences.items() if c < LOW_CONFIDENCE}
    if unsure:
        flags.append(low_confidence_flag(len(unsure)))
    # A cell sure of itself alone that the board's facts read otherwise (a nobleman seen surely on two
    # squares of one column, a figure nobody owns): its own reading or the other cells' is wrong.
    alone = predictions.readings()
    overruled = {
        key
        for key, reading in readings.items()
        for head in reader.region_heads(key[0])
        if alone[key][head][0] != reading[head][0] and alone[key][head][1] >= LOW_CONFIDENCE
    }
    if overruled:
        one = len(overruled) == 1
        flags.append(
            f"{counted(len(overruled), 'cell')}{_placed(overruled)} read surely as something the rest of the "
            f"board rules out ({reader.ruled_out}): check {'it' if one else 'them'}"
        )
    low = tuple(sorted(unsure | overruled))
    state = reader.assemble(profile, readings, entered)
    flags.extend(reader.notes(profile, readings, state))
    # A copy of its own no model learnt reads unsure until taught: its owner is asked to check each cell.
    title = get_entry(profile.game).rules.title
    share = SURE_UNLIKE_SHARE if reader.printed_sure else UNLIKE_SHARE
    unlike = len(unsure) > share * len(confidences) and not own_printing(profile)
    if unlike:
        flags.append(UNLIKE.format(unsure=len(unsure), cells=len(confidences), title=title))
    sparse = False
    if reader.edge_bare is not None and reader.fewest_laid:
        head, absent = reader.edge_bare
        laid = sum(reading[head][0] != absent for reading in readings.values() if head in reading)
        sparse = laid < reader.fewest_laid
        if sparse:
            flags.append(SPARSE.format(laid=laid, cells=len(readings), title=title))
    landmark, many, nothing = reader.landmark, False, False
    if landmark is not None:
        chances = _landmark_chances(predictions, landmark)
        seen = int(np.sum(chances >= LANDMARK_SURE))
        many = seen >= LANDMARKS_MANY
        # Nowhere seen and no mark: nothing of the game on the board.
        nothing = float(chances.max(initial=0.0)) < LANDMARK_SEEN and _unmarked(readings, landmark)
        if many:
            flags.append(MANY_LANDMARKS.format(seen=seen, present=landmark.present, title=title))
        elif nothing and not (unlike or sparse):
            flags.append(NOTHING_SEEN.format(present=landmark.present, mark=landmark.mark, title=title))
    return replace(
        view,
        trusted=view.trusted and not unlike and not sparse and not many and not nothing,
        state=state,
        confidence=min(confidences.values(), default=0.0),
        low_confidence=low,
        flags=tuple(flags),
        predictions=predictions,
        readings=readings,
    )


def read_together(views: Mapping[int, BoardReading], hand: Mapping[str, Any] | None = None) -> BoardReading:
    """One board read from several photos of it, each taken from another side (``views``: each photo's
    reading by the photo's number, the first photo's first; one game): a piece one photo sees hidden
    behind a miniature, or lost in a glare, is read where another shows it
    (:func:`vision.read.classify.together`); a board with no top (a kingdom) is turned to read as in the
    first (:func:`vision.read.classify.turn_order`).

    Only views read whole and trusted are put together, as an unclear one's corners or orientation may be
    wrong, and of those only the ones read with the first such view's profile (a kingdom of no size set may
    be found at another size) and that read its cells alike, as another's may be of another board
    (:data:`OTHER_BOARD_SHARE`); each photo left out is named in the flags. With fewer than
    two views to put together, the first such (else the first photo's) reading stands alone. The reading is
    the first such view's (its corners, its rectified board) with the cells of all, and flagged as taken at
    a slant only where every view put together was."""
    if not views:
        raise ValueError("no photo of the board to read")
    readings = list(views.values())
    if any(v.profile.game != readings[0].profile.game for v in readings):
        raise ValueError("the photos show different boards: give photos of one board only")
    whole = {n: v for n, v in views.items() if v.trusted and v.in_frame}
    if not whole:
        return readings[0]
    base = next(iter(whole.values()))
    cells = len(base.predictions.keys)
    left_out = [
        f"photo {n} was left out: its board is cut off or unclear there" for n in views if n not in whole
    ]
    turns_freely = reader_for(base.profile).turns_freely
    base_number = next(iter(whole))
    base_washed = washed_out(base.rectified, base.predictions.keys)
    kept = []
    weights: list[NDArray[np.float64]] = []
    for number, view in whole.items():
        order = turn_order(base.predictions, view.predictions, turns_freely)
        # A kingdom of no size set may be found 7 x 7 in one photo, 5 x 5 in another: the first's stands.
        if view.profile != base.profile or order is None:
            seen, first_seen = _cells(view.profile), _cells(base.profile)
            why = (
                f"its board was read as {seen}, photo {base_number}'s as {first_seen}"
                if seen != first_seen
                else "it seems to show another board"
            )
            left_out.append(f"photo {number} was left out: {why}")
            continue
        aligned = reordered(view.predictions, base.predictions.keys, order)
        own = base_washed if view is base else washed_out(view.rectified, view.predictions.keys)
        washed = own[order]
        # A square a glare washes out in either photo is read surely and wrongly: no sign of another board.
        clear = (washed < WASHED_CELL) & (base_washed < WASHED_CELL)
        differ = sure_disagreements(base.predictions, aligned, LOW_CONFIDENCE, clear)
        if differ > OTHER_BOARD_SHARE * cells:
            left_out.append(
                f"photo {number} was left out: it seems to show another board ({differ} of {cells} cells "
                "read surely otherwise)"
            )
        else:
            kept.append(replace(view, predictions=aligned))
            # Each cell weighs as little as a glare washes it out in this photo (its own cells, turned too).
            weights.append(np.maximum(1.0 - washed, WASHED_WEIGHT))
    slants = [s for v in kept if (s := v.rectified.slant_deg()) is not None]
    timings: dict[str, float] = {}
    for v in kept:
        for stage, ms in v.timings_ms.items():
            timings[stage] = timings.get(stage, 0.0) + ms
    photo_flags = (*dict.fromkeys(f for v in kept for f in v.photo_flags), *left_out)
    first = replace(base, photo_flags=photo_flags, timings_ms=timings)
    predictions = together([v.predictions for v in kept], weights) if len(kept) > 1 else base.predictions
    (reading,) = read_apart([_concluded(first, predictions, min(slants) if slants else None, hand)], hand)
    return reading


def _cells(profile: BoardProfile) -> str:
    """A board's cells in words: its regions' rows by columns."""
    return " and ".join(f"{r.rows} x {r.cols} cells" for r in profile.regions)


def read_apart(readings: Sequence[BoardReading], hand: Mapping[str, Any] | None = None) -> list[BoardReading]:
    """A photo's boards read so that no piece printed once (its reader's ``one_each``) is read on two cells
    of the table (:func:`vision.read.reconstruct.apart`): a tile misread as another already on the table
    costs the whole table its score, and the second or third likeliest reading is nearly always right.
    Cells read alike at first are flagged. Only boards read whole and trusted are read together; the
    others, and boards whose pieces may repeat, are returned as they are."""
    out = list(readings)
    # By reader: a game's companion objects (Four Gardens' reward tile) are read by readers of their own.
    for key, profile in {_key(r.profile): r.profile for r in readings}.items():
        fact = reader_for(profile).one_each
        boards = [i for i, r in enumerate(readings) if _key(r.profile) == key and r.trusted and r.in_frame]
        if fact is None or not boards:
            continue
        predictions, alike = apart([readings[i].predictions for i in boards], fact)
        for i, settled, keys in zip(boards, predictions, alike, strict=True):
            if not keys:
                continue
            view = readings[i]
            again = _concluded(view, settled, view.rectified.slant_deg(), hand)
            out[i] = replace(
                again,
                # What the classifier saw, as enrolment learns from it; the reading is the arrangement's.
                predictions=view.predictions,
                low_confidence=tuple(sorted({*again.low_confidence, *keys})),
                flags=(
                    *again.flags,
                    f"{counted(len(keys), 'cell')} read at first as a piece seen elsewhere on the table, "
                    "though each is printed once: read as the likeliest different pieces; check them",
                ),
            )
    return out


def _key(profile: BoardProfile) -> str:
    """What models and references are keyed by: the reader's key (a game, or a companion object's profile)."""
    return reader_for(profile).game


def find_boards(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    camera: CameraModel | None = None,
    stickers: bool = False,
    segmenter: BoardSegmenter | None = None,
    art: Mapping[str, ArtColours] | None = None,
    pictures: Mapping[str, BoardPicture] | None = None,
    larger: Mapping[str, Sequence[tuple[int, int]]] | None = None,
) -> list[Quad]:
    """Where the boards of these profiles lie in the photo, found with no help (see :func:`read_photo`).
    ``larger``: by profile name, the larger grids (across, down) its board of tiles may be instead."""
    aspects = tuple(p.size_mm[0] / p.size_mm[1] for p in profiles)
    grids = _tile_grids(image, profiles, art or {}, camera, larger or {})
    if grids:
        return grids
    located = locate(image, camera, aspects, stickers, segmenter)
    pictured = _pictured(image, profiles, pictures or {}, camera, located)
    # Other boards in view (a table game's other players') are found as before.
    others = [q for q in located if not any(overlap(q.ideal_xy, p.ideal_xy) for p in pictured)]
    if pictured and len(profiles) == 1:
        # A board cut by the photo's edge measures short, and is shown as cut (a table's other garden left
        # out would change everyone's score).
        others = [q for q in others if not q.in_frame or _of_its_size(q, pictured[0], profiles[0])]
    return [*pictured, *others]


def _of_its_size(quad: Quad, pictured: Quad, profile: BoardProfile) -> bool:
    """Whether an outline measures on the table as the board its picture found there does, its sides
    through that board's plane within :data:`COPY_SIZE` of the copy's: every board of one copy is its size,
    however far across the table. A score pad, a card or a wedge of floor beside the board measured 0.13-0.61
    of it (an independent try's 20 photos of its own Sanssouci copy, read and scored as boards, one "winning"
    with 224); each garden of a table 0.99 of another at their true corners, 0.77-0.99 as found (own-copy Zen
    Garden tables)."""
    to_mm = np.asarray(np.linalg.inv(board_homography(profile, pictured.ideal_xy)), np.float64)
    corners = apply_homography(to_mm, quad.ideal_xy)
    sides = np.hypot(*(np.roll(corners, -1, axis=0) - corners).T)
    measured = sorted(((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))
    ratios = np.array(measured) / np.array(sorted(profile.size_mm))
    return bool(np.all((ratios >= COPY_SIZE) & (ratios <= 1 / COPY_SIZE)))


def locate_boards(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    camera: CameraModel | None = None,
    stickers: bool = False,
    segmenter: BoardSegmenter | None = None,
    art: Mapping[str, ArtColours] | None = None,
    pictures: Mapping[str, BoardPicture] | None = None,
    larger: Mapping[str, Sequence[tuple[int, int]]] | None = None,
) -> tuple[list[Quad], CameraModel | None]:
    """The boards :func:`find_boards` finds, and the camera to read them through: ``camera``, or with none, a
    lens estimated from the first board's sides where they bow (:mod:`vision.locate.lens`), the boards then
    found again through it. A grid of loose tiles (a kingdom, found by its grid) has no straight sides to
    tell a bend by: its ragged outline bent the lens so far that the kingdom was lost in 4 of 14 real phone
    photos. A photo held upright is looked at turned to lie as the finders learnt photos
    (:mod:`vision.locate.landscape`)."""
    if landscape.upright(image, camera):
        width = image.shape[1]
        quads, seen_by = _located(
            landscape.turned(image),
            profiles,
            landscape.camera_turned(camera, width),
            stickers,
            segmenter,
            art,
            pictures,
            larger,
        )
        return [landscape.quad_back(q, width) for q in quads], landscape.camera_back(seen_by, width)
    return _located(image, profiles, camera, stickers, segmenter, art, pictures, larger)


def _located(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    camera: CameraModel | None,
    stickers: bool,
    segmenter: BoardSegmenter | None,
    art: Mapping[str, ArtColours] | None,
    pictures: Mapping[str, BoardPicture] | None,
    larger: Mapping[str, Sequence[tuple[int, int]]] | None,
) -> tuple[list[Quad], CameraModel | None]:
    quads = _in_reach(image, find_boards(image, profiles, camera, stickers, segmenter, art, pictures, larger))
    if camera is not None or not quads or quads[0].method == lattice.METHOD:
        return quads, camera
    lens = estimate_lens(image, quads[0].corners_xy)
    if lens is None:
        return quads, camera
    again = _in_reach(image, find_boards(image, profiles, lens, stickers, segmenter, art, pictures, larger))
    return (again, lens) if again else (quads, camera)


def given_lens(
    image: NDArray[np.uint8], corners_xy: Points, profiles: Sequence[BoardProfile]
) -> CameraModel | None:
    """The lens a board whose corners a player gave is seen through, with no calibration: as for a board
    found (:func:`_located`), estimated from its sides where they bow, else None, and none for a board of
    tiles alone, whose ragged sides tell no bend. Read straight through a wide phone lens, the corners it
    was found at misplaced its middle cells: a Tang Garden board given the very corners found for it was
    refused as not seen there. A photo held upright is looked at turned, as boards are found in it
    (:mod:`vision.locate.landscape`)."""
    if any(p.tiles_only for p in profiles):
        return None
    if not landscape.upright(image, None):
        return estimate_lens(image, corners_xy)
    width = image.shape[1]
    lens = estimate_lens(landscape.turned(image), landscape.points_turned(corners_xy, width))
    return landscape.camera_back(lens, width)


def _in_reach(image: NDArray[np.uint8], quads: list[Quad]) -> list[Quad]:
    """The outlines within reach of the photo (:func:`vision.geometry.within_reach`): nothing of one beyond
    can be read, nor its corners shown to be dragged."""
    h, w = image.shape[:2]
    return [q for q in quads if within_reach(q.corners_xy, (w, h))]


def _pictured(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    pictures: Mapping[str, BoardPicture],
    camera: CameraModel | None,
    located: Sequence[Quad],
) -> list[Quad]:
    """The boards found again by their profile's remembered picture: placed and oriented."""
    if any(q.method == "stickers" for q in located):
        return []  # stickers place and orient a board exactly: nothing to add
    found: list[Quad] = []
    for profile in profiles:
        picture = pictures.get(profile.name)
        if picture is None or profile.tiles_only:
            continue  # a grid of tiles changes with every game: its picture is of one game only
        quad = find_picture(image, picture, camera, located)
        if quad is not None and not any(overlap(quad.ideal_xy, q.ideal_xy) for q in found):
            found.append(replace(quad, picture_of=profile.name))
    return found


def _tile_grids(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    art: Mapping[str, ArtColours],
    camera: CameraModel | None,
    larger: Mapping[str, Sequence[tuple[int, int]]],
) -> list[Quad]:
    """The boards that are a grid of tiles (one region of square cells, edge to edge, filling the board; its
    art's colours known) found by their grid. A printed board's own edges find it better: its grid's lines
    do not say where its margin ends (tried: docs/experiments.md)."""
    found = []
    for profile in profiles:
        colours = art.get(_key(profile))
        if colours is None or not profile.tiles_only:
            continue
        region = profile.regions[0]
        cells = (region.cols, region.rows)
        found += find_lattices(image, cells, colours, camera, larger=larger.get(profile.name, ()))
    return found


def _orientable(profiles: Sequence[BoardProfile], orienters: Mapping[str, OrientationModel]) -> bool:
    """Whether a board found with no orientation can be turned upright as one of these profiles."""
    return any(_key(p) in orienters or reader_for(p).turns_freely for p in profiles)


def read_photo(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    classifiers: Mapping[str, CellClassifier],
    orienters: Mapping[str, OrientationModel],
    camera: CameraModel | None = None,
    hand: Mapping[str, Any] | None = None,
    max_boards: int = 4,
    corners_xy: Points | None = None,
    stickers: bool = False,
    references: Mapping[str, BoardColour] | None = None,
    known_boards: Sequence[Points] | None = None,
    segmenter: BoardSegmenter | None = None,
    art: Mapping[str, ArtColours] | None = None,
    pictures: Mapping[str, BoardPicture] | None = None,
) -> list[BoardReading]:
    """Every board in the photo, read with the profile that fits it best; raises NoBoardError if none.

    ``classifiers``, ``orienters`` and ``references`` are keyed by reader (:func:`vision.readers.reader_for`:
    a game, or a companion object such as Four Gardens' reward tile). ``corners_xy`` (TL, TR, BR, BL photo
    pixels) reads one board where the user says it is; ``references`` are the boards' background colours
    (see :func:`read_board`); ``known_boards`` are the oriented corners (TL, TR, BR, BL) of boards read
    before, reused while nothing moved (no locating, no orienting); ``segmenter``, the board-mask model that
    outlines boards before their edges are searched (without it, the edges alone are); ``art``, the colours
    of boards that are a grid of square tiles with no printed board (a Kingdomino kingdom), found by their
    grid's lines (:func:`vision.locate.lattice.find_lattice`) before anything else is tried; ``pictures``,
    by profile name, the boards' remembered pictures, found again in the photo
    (:func:`vision.locate.picture.find_picture`): placed, oriented and known to be that profile's board.
    """
    if not profiles:
        raise ValueError("no board profile to look for")
    # As large as the set-up says: a Mighty Duel kingdom is found and read as its 7 x 7 squares. Where it
    # leaves the size open, each other size is looked for too.
    profiles = [sized_for(p, hand or {}) for p in profiles]
    sizes = {p.name: other_sizes(p, hand or {}) for p in profiles}
    larger = {
        p.name: [
            (o.regions[0].cols, o.regions[0].rows)
            for o in sizes[p.name]
            if o.regions[0].cols > p.regions[0].cols
        ]
        for p in profiles
    }
    t = time.perf_counter()
    h, w = image.shape[:2]
    if corners_xy is not None:
        if camera is None:
            camera = given_lens(image, corners_xy, profiles)
        quads = [quad_from_corners(corners_xy, (w, h), camera)]
    elif known_boards:
        # Read before, nothing moved since: its layout was judged then (the live loop's every frame).
        quads = [replace(quad_from_corners(c, (w, h), camera), method=KNOWN) for c in known_boards]
    else:
        quads, camera = locate_boards(image, profiles, camera, stickers, segmenter, art, pictures, larger)
        if any(q.picture_of for q in quads):
            # Beside a board its picture found, an outline nothing can orient is left out, not refused.
            quads = [q for q in quads if q.picture_of or _orientable(profiles, orienters)]
    quads = quads[:max_boards]
    # A board of the set-up's size not found by its grid where one of another size is, or a larger one found
    # where a smaller one judges better (a Mighty Duel set for the game before, a 5 x 5 kingdom's grid
    # stretched over seven squares): the set-up is said to be the likely fault.
    searched = corners_xy is None and not known_boards
    other_size = None
    if searched and (not any(q.method == lattice.METHOD for q in quads) or _set_larger(profiles, hand or {})):
        other_size = _other_size_seen(image, profiles, hand or {}, art or {}, camera)
    locate_ms = (time.perf_counter() - t) * 1000
    if not quads:
        raise NoBoardError(
            other_size
            or "no board found in the photo: make sure the whole board is in view, on a plain table, and lit"
        )
    readings = []
    for quad in quads:
        # Which game a board is: the profile whose picture found it, else the one whose layout model sees
        # one rotation most clearly upright.
        profile = (
            next(p for p in profiles if p.name == quad.picture_of)
            if quad.picture_of
            else profiles[0]
            if len(profiles) == 1
            else max(
                profiles, key=lambda p: orienters[_key(p)].orient(image, p, quad.ideal_xy, camera).margin
            )
        )
        choices = (profile, *sizes.get(profile.name, ()))
        if quad.cells is not None and len(choices) > 1:
            # Found by its grid of tiles, of one of the sizes the set-up leaves open: that one.
            profile = next(
                (p for p in choices if (p.regions[0].cols, p.regions[0].rows) == quad.cells), profile
            )
        elif len(choices) > 1:
            # Outlined otherwise: the size whose grid its tiles' gaps lie on.
            profile = max(choices, key=lambda p: line_contrast(image, quad.ideal_xy, p, camera))
        key = _key(profile)
        reading = read_board(
            image,
            quad,
            profile,
            classifiers[key],
            orienters.get(key),
            camera,
            hand,
            (references or {}).get(key),
        )
        if profile is not choices[0]:
            smaller = smaller_inside(reading, choices[0])
            reading = replace(reading, flags=(*reading.flags, smaller)) if smaller else reading
        readings.append(
            BoardReading(**{**reading.__dict__, "timings_ms": {"locate": locate_ms, **reading.timings_ms}})
        )
    read = read_apart(readings, hand)
    # Read at a size the photo likely is not, its total would be of the wrong grid: shown, not scored.
    return [replace(r, flags=(*r.flags, other_size), trusted=False) for r in read] if other_size else read


def smaller_inside(reading: BoardReading, own: BoardProfile) -> str | None:
    """What to tell where a board read at a size the set-up left open, larger than its game's ``own``, has
    all its tiles but :data:`LOOSE_BESIDE` or fewer within some window of the own size; else None."""
    reader = reader_for(reading.profile)
    grid, small = reading.profile.regions[0], own.regions[0]
    if reader.edge_bare is None or grid.rows <= small.rows or grid.cols <= small.cols:
        return None
    head, absent = reader.edge_bare
    laid = np.zeros((grid.rows, grid.cols), bool)
    for (_, row, col), cell in reading.readings.items():
        laid[row, col] = head in cell and cell[head][0] != absent
    outside = min(
        int(laid.sum() - laid[r : r + small.rows, c : c + small.cols].sum())
        for r in range(grid.rows - small.rows + 1)
        for c in range(grid.cols - small.cols + 1)
    )
    if outside > LOOSE_BESIDE:
        return None
    laid_count = int(laid.sum())
    return SMALLER_INSIDE.format(
        rows=grid.rows,
        cols=grid.cols,
        inside=laid_count - outside,
        laid=laid_count,
        small_rows=small.rows,
        small_cols=small.cols,
    )


def _set_larger(profiles: Sequence[BoardProfile], hand: Mapping[str, Any]) -> bool:
    """Whether the set-up fixes a board larger than another size its game has (a Mighty Duel's 7 x 7 kingdom,
    perhaps left from the game before)."""
    return any(
        not other_sizes(p, hand) and any(o.regions[0].cols < p.regions[0].cols for o in other_sizes(p, {}))
        for p in profiles
    )


def _other_size_seen(
    image: NDArray[np.uint8],
    profiles: Sequence[BoardProfile],
    hand: Mapping[str, Any],
    art: Mapping[str, ArtColours],
    camera: CameraModel | None,
) -> str | None:
    """What to tell where the set-up fixes a grid of tiles' size (a Mighty Duel's 7 x 7 kingdom) and a grid
    of one of the game's other sizes lies in the photo, judged better than the set size's at its place; else
    None."""
    for profile in profiles:
        colours = art.get(_key(profile))
        sizes = other_sizes(profile, {})  # every size, as though the set-up said none
        if colours is None or not profile.tiles_only or not sizes or other_sizes(profile, hand):
            continue
        grid = profile.regions[0]
        for other in sizes:
            seen = other.regions[0]
            cells = (seen.cols, seen.rows)
            larger = [
                (o.regions[0].cols, o.regions[0].rows)
                for o in (profile, *sizes)
                if o.regions[0].cols > seen.cols
            ]
            if any(
                q.cells == cells for q in find_lattices(image, cells, colours, camera, most=1, larger=larger)
            ):
                # A board of the set-up's size may be there, missed or misjudged: both ways are said.
                return (
                    f"the game's set-up says a board of {grid.rows} x {grid.cols} squares, but the photo "
                    f"shows one of {seen.rows} x {seen.cols} more clearly: if it is "
                    f"{seen.rows} x {seen.cols}, change the set-up and score it again; if it is "
                    f"{grid.rows} x {grid.cols}, give its corners; not scored"
                )
    return None
