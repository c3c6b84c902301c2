"""``garden-scorer-lab bench``: accuracy and speed of photo -> score on fresh synthetic photos.

Photos are rendered first (not timed), then each is read on one thread: locate, orient, rectify+classify and
the whole photo -> score path are timed per photo. A board counts as found when a located outline's corners
lie within 2 % of the board's size of the truth; cells are compared head by head with the truth labels (a
head read only to be matched with the cells it touches, a Tang Garden tile's edge, is reported alone and not
counted in its cell); a board is perfect when every cell is right; a score is exact when the scorer gives
one (the board is in frame, its top edge clear, its state possible) and it is the truth's. A score given
that is not the truth's, for a found board or a misplaced outline, is a wrong score: what a player must
never see, and worst of all when no flag on the board asks them to check it (a silent wrong score). Cells
of a board not found all count as wrong; the error over found boards alone is reported beside it.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.enroll import EnrolledClassifier, Enrolment, Example, enrol, example_colour
from device.photo import ScoredBoard, load_classifier, load_orienter, score_image
from lab.synth.art import TRAINING_PACKS
from lab.synth.camera import PHONE_WH, Photo, PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from scoring.core import StateError, TableScore
from scoring.registry import Kind, get_entry, get_game
from vision.camera_model import CameraModel, camera_centre
from vision.geometry import quad_size
from vision.locate.picture import BoardPicture
from vision.pipeline import NoBoardError
from vision.profile import BoardProfile, default_profile, dump_profile, parse_profile
from vision.read.classify import CellClassifier
from vision.read.colour import BoardColour
from vision.read.rectify import board_homography, rectify, slant_deg
from vision.readers import IGNORE, Reader, get_reader
from vision.readers.kingdomino import sized

# Kingdoms laid among things of their art (``run_bench(clutter=True)``) are photographed this far off straight
# down, as a player across the table does.
CLUTTER_TILT_DEG = (45.0, 65.0)
FOUND_TOLERANCE = 0.02
# Read with no calibration, a board's outline is the straight lines through its sides as the photo shows
# them: through a wide lens' bowed sides they meet up to several per cent off its true corners (rendered
# photos, k1 down to -0.3), though its cells are read right. Then a board is found if its outline lies this
# close: its cells and score say the rest.
FOUND_TOLERANCE_UNCALIBRATED = 0.1
# A board is in view when every mark on it (a decoration, a landscape icon: lab.synth.scene.Mark) shows at
# least this share past the pieces standing over it: a camera can read what is half hidden, not what is gone.
MARK_SHOWN = 0.5


@dataclass
class BenchResult:
    game: str
    packs: tuple[str, ...]
    photos: int
    boards: int = 0
    found: int = 0
    cells: int = 0
    cell_errors: int = 0
    found_cells: int = 0
    found_cell_errors: int = 0
    perfect: int = 0
    exact: int = 0
    wrong_scores: int = 0
    silent_wrong_scores: int = 0  # of those, the ones given with no flag at all to make a player look twice
    timings_ms: dict[str, list[float]] | None = None
    peak_rss_mb: float = 0.0
    calibrated: bool = True  # read with the camera's calibration (False: as a phone's upload, with none)
    reshaped: int | None = None  # the seed of the copy of the board drawn and read (reshaped_profile)
    # Kingdoms laid among things of their art; 7 x 7 kingdoms, read with no size given or told the set-up's
    # (run_bench's).
    clutter: bool = False
    mighty_duel: bool = False
    size_told: bool = False
    # Each board read at its true corners, as a player who placed them (run_bench's ``corners_given``); each
    # photo cut this many pixels beyond its board, or through it where negative (run_bench's ``edge_px``).
    corners_given: bool = False
    edge_px: float | None = None
    # Per head, over the found boards' cells it applies to: [wrong, cells, wrong where something is there
    # (truth not the head's first class, e.g. a character, a marker), cells where something is there].
    heads: dict[str, list[int]] = field(default_factory=dict)
    # Per kind of region (name before any ":", e.g. "track"): [read exactly, regions]; unfound boards' count.
    regions: dict[str, list[int]] = field(default_factory=dict)
    # Four Gardens: per track, [every player's marker position read as the truth's, tracks]; unfound boards'
    # count. What the score is made of: the reader takes a faint or doubled sighting to its likeliest space,
    # so a track can be placed right with a space misread (which ``regions`` counts).
    positions: list[int] = field(default_factory=lambda: [0, 0])
    # Seconds enrolment took from the user's photos (read, measured, fitted), when the run enrolled first.
    enroll_s: float | None = None
    # Boards with every mark in view (MARK_SHOWN), and of those the ones scored exactly: how much of what is
    # missed is out of any camera's sight on this table.
    in_view: int = 0
    exact_in_view: int = 0
    # Where the game's reader names a slant beyond which photos read worse (vision.reader_api.Reader
    # .slant_limit_deg): the photos taken within it, and of those the ones scored exactly.
    within_slant: int = 0
    exact_within_slant: int = 0
    # Photos of each board, read together (1: the one photo), and how far off straight above the further
    # ones were taken at most (None: from anywhere, as the first).
    views: int = 1
    also_tilt_deg: float | None = None
    # A face left out of teaching (lab.bench_real ``--untaught``): (face, its cells misread, its cells).
    untaught: tuple[str, int, int] | None = None
    # Rendered photos, whose truth says what was in view and from where (real photos: not known).
    rendered: bool = True
    # Photos whose reading the scorer refused with a message for the player (Four Gardens: markers of a
    # colour no player was given, where a marker was misread): counted as boards not found.
    refused: int = 0

    def table(self) -> dict[str, Any]:
        def pct(a: int, b: int) -> float:
            return round(100.0 * a / b, 3) if b else 0.0

        stats = {
            stage: {"median": round(float(np.median(v)), 2), "p95": round(float(np.percentile(v, 95)), 2)}
            for stage, v in (self.timings_ms or {}).items()
            if v
        }
        return {
            "game": self.game,
            "art_packs": list(self.packs),
            "photos": self.photos,
            "views": self.views,
            "also_tilt_deg": self.also_tilt_deg,
            "calibrated": self.calibrated,
            "reshaped": self.reshaped,
            "clutter": self.clutter,
            "mighty_duel": self.mighty_duel,
            "size_told": self.size_told,
            "corners_given": self.corners_given,
            "edge_px": self.edge_px,
            "boards": self.boards,
            "board_found_pct": pct(self.found, self.boards),
            "cell_error_pct": pct(self.cell_errors, self.cells),
            "cell_error_found_boards_pct": pct(self.found_cell_errors, self.found_cells),
            "boards_perfect_pct": pct(self.perfect, self.boards),
            "scores_exact_pct": pct(self.exact, self.boards),
            "wrong_scores_pct": pct(self.wrong_scores, self.boards),
            "silent_wrong_scores_pct": pct(self.silent_wrong_scores, self.boards),
            "refused": self.refused,
            # What pieces hide and how slanted a photo was are known of rendered photos alone.
            **(
                {
                    "boards_in_view_pct": pct(self.in_view, self.boards),
                    "scores_exact_in_view_pct": pct(self.exact_in_view, self.in_view),
                    "boards_within_slant_pct": pct(self.within_slant, self.boards),
                    "scores_exact_within_slant_pct": pct(self.exact_within_slant, self.within_slant),
                }
                if self.rendered
                else {}
            ),
            "latency_ms": stats,
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "head_error_found_boards_pct": {
                head: {"all": pct(w, n), "where_present": pct(wp, npres)}
                for head, (w, n, wp, npres) in self.heads.items()
            },
            "regions_exact_pct": {kind: pct(ok, n) for kind, (ok, n) in self.regions.items()},
            **({"track_positions_exact_pct": pct(*self.positions)} if self.positions[1] else {}),
            **({} if self.enroll_s is None else {"enroll_s": round(self.enroll_s, 2)}),
            **(
                {}
                if self.untaught is None
                else {"untaught": {"face": self.untaught[0], "cell_error_pct": pct(*self.untaught[1:])}}
            ),
        }


def _totals(game: str, state: dict[str, Any]) -> tuple[int, ...] | None:
    """Every player's total (one for a single board); None when the state breaks the rules."""
    rules = get_game(game)
    try:
        parsed = rules.parse(state)
        if rules.check(parsed):
            return None
        result = rules.score(parsed)
    except ValueError:
        return None
    if isinstance(result, TableScore):
        return tuple(p.total for p in result.players)
    return (result.total,)


def _candidate(game: str, truth_state: dict[str, Any], read_state: dict[str, Any]) -> dict[str, Any]:
    """The state the scorer would score: a player's board in the truth's table (other players from the
    truth), or a board (single or shared) with the hand entry from the truth."""
    if get_entry(game).kind is Kind.TABLE:
        players = [{**truth_state["players"][0], **read_state}, *truth_state["players"][1:]]
        return {**truth_state, "players": players}
    return {**truth_state, **{k: v for k, v in read_state.items() if k != "setup"}}


def _exact(game: str, truth_state: dict[str, Any], read_state: dict[str, Any]) -> bool:
    """Whether the read board scores as the truth (a table game: its player's total)."""
    read, truth = _totals(game, _candidate(game, truth_state, read_state)), _totals(game, truth_state)
    if read is None or truth is None:
        return False
    return read[0] == truth[0] if get_entry(game).kind is Kind.TABLE else read == truth


def _hand(game: str, truth_state: dict[str, Any]) -> dict[str, Any]:
    """What a player would type in: the fields a photo cannot show (the registry's), taken from the truth."""
    entry = get_entry(game)
    if entry.kind is Kind.TABLE:
        # A table game's board is its player's: the table's set-up and that player's fields.
        player = truth_state["players"][0]
        return {"setup": truth_state["setup"], **{k: player.get(k, {}) for k in entry.hand_fields}}
    if entry.kind is Kind.SHARED_BOARD:
        # The reader takes the players (coins, cards, colours...) from a state file and ignores what the
        # photo shows in it, as `garden-scorer score --hand STATE.json` does.
        return dict(truth_state)
    return {k: truth_state[k] for k in entry.hand_fields if k in truth_state}


def _tracks_placed(game: str, truth_state: dict[str, Any], read_state: dict[str, Any] | None) -> list[bool]:
    """Four Gardens: per track, whether the read state puts every player's marker where the truth does (a
    board not read: none); another game: nothing."""
    if game != "four-gardens":
        return []
    read = {p["colour"]: p["positions"] for p in (read_state or {}).get("players", [])}
    tracks = truth_state["setup"]["tracks"]
    return [
        read_state is not None
        and all(read.get(p["colour"], {}).get(t, -1) == p["positions"].get(t) for p in truth_state["players"])
        for t in tracks
    ]


def _count_placed(result: BenchResult, placed: list[bool]) -> None:
    result.positions[0] += sum(placed)
    result.positions[1] += len(placed)


def in_sight(board_truth: dict[str, Any]) -> bool:
    """Whether every mark on a rendered board shows at least :data:`MARK_SHOWN` of itself in the photo."""
    return all(mark["shown"] >= MARK_SHOWN for mark in board_truth.get("marks", []))


def truth_slant_deg(profile: BoardProfile, board_truth: dict[str, Any], camera: CameraModel) -> float:
    """How far off straight above a rendered board was photographed (degrees), from its true pose."""
    centre = camera_centre(np.array(board_truth["board_to_image"]), camera.matrix)
    return slant_deg(profile, centre[:2], float(centre[2]))


def _kind(region: str) -> str:
    return region.partition(":")[0]


def cut_beside(
    image: NDArray[np.uint8], camera: CameraModel, board: dict[str, Any], side: int, px: float
) -> tuple[NDArray[np.uint8], CameraModel, dict[str, Any]]:
    """The photo cut ``px`` pixels beyond the board on its ``side`` (0-3: left, right, top, bottom; through
    the board where ``px`` is negative), the camera that took the cut, and the board's truth in it."""
    h, w = image.shape[:2]
    corners = np.array(board["corners_xy"], np.float64)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    x0, y0, x1, y1 = 0, 0, w, h
    if side == 0:
        x0 = int(np.clip(lo[0] - px, 0, w - 1))
    elif side == 1:
        x1 = int(np.clip(np.ceil(hi[0] + px + 1), 1, w))
    elif side == 2:
        y0 = int(np.clip(lo[1] - px, 0, h - 1))
    else:
        y1 = int(np.clip(np.ceil(hi[1] + px + 1), 1, h))
    matrix = np.array(camera.matrix, np.float64)
    matrix[0, 2] -= x0
    matrix[1, 2] -= y0
    cut = np.ascontiguousarray(image[y0:y1, x0:x1])
    moved = (corners - [x0, y0]).tolist()
    return cut, replace(camera, matrix=matrix, size_wh=(x1 - x0, y1 - y0)), {**board, "corners_xy": moved}


def _render(args: tuple[RenderSpec, RenderSpec, int, int]) -> list[Photo]:
    """Photo ``index`` of ``spec``, then its further views as ``further`` (the same boards and camera, other
    photo options) takes them."""
    spec, further, index, views = args
    return [render_photo(spec, index), *(render_photo(further, index, view) for view in range(1, views))]


def reshaped_profile(game: str, seed: int) -> BoardProfile:
    """A copy of ``game``'s board no model has learnt: another size (each side 0.85-1.25 of the game's), its
    grids' cells 0.85-1.0 of what that size makes them and moved together within the board, as a table's own
    printing may be; the profile `profile create --size-mm --grid-mm` would make of it."""
    base = default_profile(game)
    rng = np.random.default_rng([seed, 7])
    for _ in range(100):
        sx, sy = rng.uniform(0.85, 1.25, 2)
        cell = min(sx, sy) * rng.uniform(0.85, 1.0)
        size = (base.size_mm[0] * sx, base.size_mm[1] * sy)
        regions = [
            replace(r, origin_mm=(r.origin_mm[0] * sx, r.origin_mm[1] * sy),
                    cell_mm=(r.cell_mm[0] * cell, r.cell_mm[1] * cell),
                    pitch_mm=(r.pitch_mm[0] * cell, r.pitch_mm[1] * cell))
            for r in base.regions
        ]  # fmt: skip
        shift = rng.uniform(-0.04, 0.04, 2) * size
        regions = [
            replace(r, origin_mm=(r.origin_mm[0] + shift[0], r.origin_mm[1] + shift[1])) for r in regions
        ]
        try:
            return parse_profile(dump_profile(replace(base, size_mm=size, regions=tuple(regions))))
        except StateError:
            continue  # a grid off the board: draw again
    raise StateError(f"no reshaped {game} board fits from seed {seed}")


def enroll_from_renders(
    game: str, count: int, seed: int, packs: tuple[str, ...], reshaped: BoardProfile | None = None
) -> tuple[Enrolment, BoardColour | None, float]:
    """An enrolment from ``count`` rendered photos whose truth is known, read as a user's photos would be,
    the board's background colour the first photo gives its profile (what boards are then read in), and the
    seconds enrolling took once the photos were taken (rendering them is the camera's part)."""
    spec = RenderSpec((game,), seed, packs=packs, options=PhotoOptions(), reshaped=reshaped)
    examples = []
    for i in range(count):
        photo = render_photo(spec, i)
        board = photo.truth["boards"][0]
        # The user marks the board's corners on an enrolment photo, so locating cannot spoil it.
        examples.append(
            Example(photo.decode(), board["state"], np.array(board["corners_xy"]), photo.camera())
        )
    profile, classifier, orienter = (
        reshaped or default_profile(game),
        load_classifier(game),
        load_orienter(game),
    )
    start = time.perf_counter()
    colour = example_colour(profile, classifier, orienter, examples[0])
    enrolment = enrol(profile, classifier, orienter, examples, reference=colour)
    return enrolment, colour, time.perf_counter() - start


def picture_from_render(
    game: str, seed: int, packs: tuple[str, ...], profile: BoardProfile, calibrated: bool
) -> BoardPicture:
    """The picture `profile create NAME PHOTO` keeps of the board: the first teaching photo (as
    :func:`enroll_from_renders` renders it), rectified at the corners the user places, through the camera's
    calibration when the table has one."""
    photo = render_photo(RenderSpec((game,), seed, packs=packs, options=PhotoOptions(), reshaped=profile), 0)
    camera = photo.camera() if calibrated else None
    corners = np.array(photo.truth["boards"][0]["corners_xy"], np.float64)
    ideal = camera.undistort_px(corners) if camera is not None else corners
    rect = rectify(photo.decode(), profile, board_homography(profile, ideal), camera)
    return BoardPicture.learn(rect.image_bgr, profile.size_mm)


def tally_missing(
    result: BenchResult,
    game: str,
    profile: BoardProfile,
    reader: Reader,
    truth_state: dict[str, Any],
    given: list[ScoredBoard],
) -> None:
    """Count a board the scorer did not find: every cell wrong, and a wrong score for any board it scored
    elsewhere (a misplaced outline)."""
    misplaced = [s for s in given if _totals(game, _candidate(game, truth_state, dict(s.state)))]
    result.wrong_scores += bool(misplaced)
    result.silent_wrong_scores += any(not s.flags for s in misplaced)
    result.cells += sum(len(profile.region(r).cells()) for r in reader.regions)
    result.cell_errors += sum(len(profile.region(r).cells()) for r in reader.regions)
    for region in reader.regions:
        result.regions.setdefault(_kind(region), [0, 0])[1] += 1
    _count_placed(result, _tracks_placed(game, truth_state, None))


def tally_found(
    result: BenchResult,
    game: str,
    profile: BoardProfile,
    reader: Reader,
    truth_cells: Mapping[str, list[list[str]]],
    truth_state: dict[str, Any],
    match: ScoredBoard,
    given: list[ScoredBoard],
) -> bool:
    """Count a found board's cells head by head, whether it is perfect, and its score: exact, wrong (and
    silently so) or not given; returns whether it was scored exactly."""
    heads = {h.name: h for h in reader.heads}
    # A tile's edges (Tang Garden's) are read to be matched with the edges they touch, as evidence for what
    # the tile shows: the per-head table shows them, a cell's count leaves them out.
    matched_only = {side for fact in reader.touching(profile) for side in fact.sides}
    result.found += 1
    readings = match.reading.readings
    wrong = 0
    region_wrong: dict[str, bool] = {r: False for r in reader.regions}
    if match.reading.profile.regions != profile.regions:
        # Read at another size (a 5 x 5 kingdom taken for a 7 x 7 one): no cell is where the truth's is.
        readings = {}
        wrong = sum(len(profile.region(r).cells()) for r in reader.regions)
        region_wrong = dict.fromkeys(reader.regions, True)
    for key, reading in readings.items():
        label = truth_cells[key[0]][key[1]][key[2]]
        bad = False
        for head, idx in reader.targets(profile, key, label).items():
            if idx == IGNORE:
                continue
            classes = heads[head].classes
            miss = reading[head][0] != classes[idx]
            tally = result.heads.setdefault(head, [0, 0, 0, 0])
            tally[0] += miss
            tally[1] += 1
            if idx != 0:
                tally[2] += miss
                tally[3] += 1
            bad |= miss and head not in matched_only
        wrong += bad
        region_wrong[key[0]] |= bad
    for region, missed in region_wrong.items():
        tally = result.regions.setdefault(_kind(region), [0, 0])
        tally[0] += not missed
        tally[1] += 1
    counted = len(readings) or wrong
    result.cells += counted
    result.cell_errors += wrong
    result.found_cells += counted
    result.found_cell_errors += wrong
    result.perfect += wrong == 0
    _count_placed(result, _tracks_placed(game, truth_state, dict(match.state)))
    # By identity: a board's reading holds arrays, which compare element by element.
    if not any(s is match for s in given):
        return False
    exact = _exact(game, truth_state, dict(match.state))
    result.exact += exact
    wrong_score = not exact and _totals(game, _candidate(game, truth_state, dict(match.state))) is not None
    result.wrong_scores += wrong_score
    result.silent_wrong_scores += wrong_score and not match.flags
    return exact


def _turned(board: dict[str, Any], quarters: int) -> dict[str, Any]:
    """A board that turns freely (one grid whose state is its cells: a kingdom) as read from its corner
    ``quarters`` clockwise of its first: that corner's row first (``np.rot90``)."""
    if not quarters:
        return board
    grid = np.rot90(np.array(board["cells"]["grid"], dtype=object), quarters).tolist()
    state = {
        **board["state"],
        "cells": np.rot90(np.array(board["state"]["cells"], dtype=object), quarters).tolist(),
    }
    return {**board, "cells": {"grid": grid}, "state": state}


def run_bench(
    game: str,
    count: int,
    seed: int,
    packs: tuple[str, ...] = TRAINING_PACKS,
    report: Callable[[str], None] | None = None,
    workers: int = 2,
    enroll: int = 0,
    views: int = 1,
    also_tilt_deg: float | None = None,
    calibrated: bool = True,
    reshaped: int | None = None,
    clutter: Path | None = None,
    mighty_duel: bool = False,
    size_told: bool = False,
    corners_given: bool = False,
    edge_px: float | None = None,
) -> BenchResult:
    """``calibrated``: the photos are read with their camera's calibration (as on a table after `calibrate
    camera`), else with none (as a phone's uploads are). ``views`` > 1: each board is photographed that many
    times, from wherever each camera stands (the further photos, with ``also_tilt_deg``, at most that far off
    straight above: as a player told to take one from above would), and the photos read together
    (:func:`device.photo.score_image` ``also``); the slant and the marks in view are the first photo's.
    ``clutter``: a folder of labelled photos of the game's real tiles; a kingdom of them laid on the table
    with squares left empty, a card and loose dominoes of the same art beside it, in a 12 MP phone photo
    taken 45-65 degrees off straight down (:class:`lab.synth.scene.LayingArtist`). ``mighty_duel``:
    Kingdomino's 7 x 7 kingdoms, read with no size given, as a player who left the set-up as it was; with
    ``size_told``, as one who set the game up as a Mighty Duel (the set-up's size in the hand).
    ``corners_given``: each board is read at its true corners, as a player who placed them. ``edge_px``: each
    photo is cut that many pixels beyond its board (through it, where negative), on its left, right, top and
    bottom in turn, as a photo the board fills; its camera's centre moves with the cut."""
    reader = get_reader(game)
    classifier: CellClassifier = load_classifier(game)
    reshape = None if reshaped is None else reshaped_profile(game, reshaped)
    if mighty_duel:
        reshape = sized(default_profile(game), {"setup": {"size": 7}})
    profile = reshape or default_profile(game)
    # What the scorer is told of the board: a copy's own profile, else the game's.
    read_as = default_profile(game) if mighty_duel else profile
    references: dict[str, BoardColour] = {}
    enroll_s: float | None = None
    # A copy of the board no model learnt is read with the profile made from a photo of it, which keeps
    # its picture.
    pictures = (
        {}
        if reshape is None
        else {profile.name: picture_from_render(game, seed + 100_000, packs, reshape, calibrated)}
    )
    if enroll:
        enrolment, colour, enroll_s = enroll_from_renders(game, enroll, seed + 100_000, packs, reshape)
        classifier = EnrolledClassifier(classifier, enrolment)
        references = {game: colour} if colour is not None else {}
        if report:
            report(f"enrolled from {enrolment.photos} photos ({enrolment.cells} cells) in {enroll_s:.1f} s")
    options = PhotoOptions()
    if clutter is not None:
        options = PhotoOptions(PHONE_WH, max_tilt_deg=CLUTTER_TILT_DEG[1], min_tilt_deg=CLUTTER_TILT_DEG[0])
    spec = RenderSpec((game,), seed, packs=packs, options=options, reshaped=reshape, clutter=clutter)
    stages = ("locate", "orient", "rectify", "cells", "classify")
    timings: dict[str, list[float]] = {s: [] for s in (*stages, "photo_to_score")}
    result = BenchResult(
        game,
        packs,
        count,
        timings_ms=timings,
        enroll_s=enroll_s,
        views=views,
        also_tilt_deg=also_tilt_deg,
        calibrated=calibrated,
        reshaped=reshaped,
        clutter=clutter is not None,
        mighty_duel=mighty_duel,
        size_told=mighty_duel and size_told,
        corners_given=corners_given,
        edge_px=edge_px,
    )
    tolerance = FOUND_TOLERANCE if calibrated else FOUND_TOLERANCE_UNCALIBRATED
    further = spec
    if also_tilt_deg is not None:
        further = replace(spec, options=replace(spec.options, max_tilt_deg=also_tilt_deg))
    assert result.timings_ms is not None
    # Rendering first, in parallel, so that nothing else runs while photos are read and timed.
    with ProcessPoolExecutor(max_workers=workers) as pool:
        photos: list[list[Photo]] = list(
            pool.map(_render, [(spec, further, i, views) for i in range(count)], chunksize=4)
        )
    if report:
        report(f"rendered {count * views} photos")
    for i, (photo, *others) in enumerate(photos):
        image = photo.decode()
        also = [other.decode() for other in others]
        truth = photo.truth
        board = truth["boards"][0]
        camera = photo.camera()
        result.boards += 1
        in_view = in_sight(board)
        result.in_view += in_view
        limit = reader.slant_limit_deg
        within = limit is None or truth_slant_deg(profile, board, camera) <= limit
        result.within_slant += within
        if edge_px is not None:
            image, camera, board = cut_beside(image, camera, board, i % 4, edge_px)
        hand = _hand(game, board["state"])
        if result.size_told:
            hand = {**hand, "setup": board["state"]["setup"]}  # what the page's Game set-up sends
        started = time.perf_counter()
        refusal = ""
        try:
            scored = score_image(
                image,
                game,
                hand,
                camera if calibrated else None,
                [read_as],
                {game: classifier},
                references=references,
                also=also,
                pictures=pictures,
                corners_xy=np.array(board["corners_xy"], np.float64) if corners_given else None,
            )
        except NoBoardError:
            scored = []
        except ValueError as exc:
            scored, refusal = [], str(exc)
            result.refused += 1
        result.timings_ms["photo_to_score"].append((time.perf_counter() - started) * 1000)
        truth_corners = np.array(board["corners_xy"])
        size = quad_size(truth_corners)
        match = None
        # A board that reads alike whichever way up it lies (a kingdom) may be read from any corner.
        for s in scored:
            quarter = next(
                (
                    k
                    for k in (range(4) if reader.turns_freely else (0,))
                    if np.max(
                        np.linalg.norm(s.reading.corners_xy - np.roll(truth_corners, -k, axis=0), axis=1)
                    )
                    <= tolerance * size
                ),
                None,
            )
            if quarter is not None:
                match, board = s, _turned(board, quarter)
                break
        # A table game's lone board is never scored alone, so "would be scored" is its reading's trust.
        given = [s for s in scored if s.reading.trusted and s.reading.in_frame]
        if match is None:
            tally_missing(result, game, profile, reader, board["state"], given)
            if report:
                report(f"photo {i}: {f'not scored: {refusal}' if refusal else 'board not found'}")
            continue
        for stage in stages:
            result.timings_ms[stage].append(match.reading.timings_ms.get(stage, 0.0))
        exact = tally_found(result, game, profile, reader, board["cells"], board["state"], match, given)
        result.exact_in_view += exact and in_view
        result.exact_within_slant += exact and within
        if report and (i + 1) % 10 == 0:
            report(f"{i + 1}/{count} photos")
    result.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def format_table(results: list[dict[str, Any]]) -> str:
    header = (
        f"{'game':<14} {'packs':<20} {'found %':>8} {'cell err %':>10} {'(found)':>8} {'perfect %':>9} "
        f"{'exact %':>8} {'wrong %':>8} {'silent %':>8} "
        f"{'photo->score ms (med/p95)':>26} {'classify ms':>11}"
    )
    rows = [header, "-" * len(header)]
    for r in results:
        lat = r["latency_ms"]
        total = lat.get("photo_to_score", {"median": 0, "p95": 0})
        cls = lat.get("classify", {"median": 0})
        rows.append(
            f"{r['game']:<14} {','.join(r['art_packs']):<20} {r['board_found_pct']:>8.2f} "
            f"{r['cell_error_pct']:>10.3f} {r['cell_error_found_boards_pct']:>8.3f} "
            f"{r['boards_perfect_pct']:>9.2f} {r['scores_exact_pct']:>8.2f} {r['wrong_scores_pct']:>8.2f} "
            f"{r['silent_wrong_scores_pct']:>8.2f} "
            f"{total['median']:>12.1f} / {total['p95']:<11.1f} {cls['median']:>11.1f}"
        )
    rows += ["", "Per head, found boards: error % over all cells / where something is there"]
    for r in results:
        heads = r.get("head_error_found_boards_pct", {})
        rows.append(
            f"{r['game']:<14} "
            + ", ".join(f"{h} {v['all']:.3f} / {v['where_present']:.3f}" for h, v in heads.items())
        )
        regions = r.get("regions_exact_pct", {})
        exact = ", ".join(f"{k} {v:.2f}" for k, v in regions.items())
        if "track_positions_exact_pct" in r:
            exact += f"; every marker placed as the truth's: {r['track_positions_exact_pct']:.2f}"
        rows.append(f"{'':<14} regions read exactly %: {exact}")
        if r.get("reshaped") is not None:
            rows.append(f"{'':<14} a copy of the board no model learnt (reshaped from seed {r['reshaped']})")
        if r.get("clutter"):
            low, high = CLUTTER_TILT_DEG
            rows.append(
                f"{'':<14} laid with 0-8 squares left empty, a card and loose dominoes of the same art "
                f"beside, 12 MP photos {low:g}-{high:g} degrees off straight down"
            )
        if r.get("mighty_duel"):
            told = "told the set-up's size" if r.get("size_told") else "read with no size given"
            rows.append(f"{'':<14} 7 x 7 kingdoms (the Mighty Duel), {told}")
        if not r.get("calibrated", True):
            rows.append(f"{'':<14} read with no camera calibration, as a phone's uploads are")
        if r.get("corners_given"):
            rows.append(f"{'':<14} each board read at its true corners, as a player who placed them")
        if r.get("edge_px") is not None:
            px = r["edge_px"]
            where = f"{px:g} px beyond" if px >= 0 else f"{-px:g} px into"
            rows.append(f"{'':<14} each photo cut {where} its board, on each side in turn")
        views = r.get("views", 1)
        if views > 1:
            tilt = r.get("also_tilt_deg")
            others = "" if tilt is None else f", the others from at most {tilt:g} degrees off straight above"
            rows.append(
                f"{'':<14} {views} photos of each board read together (slant, in view: the first's){others}"
            )
        if r.get("boards_within_slant_pct", 100) < 100:
            rows.append(
                f"{'':<14} photos within the reader's slant limit: {r['boards_within_slant_pct']:.2f} %, "
                f"their scores exact {r['scores_exact_within_slant_pct']:.2f} %"
            )
        if r.get("boards_in_view_pct", 100) < 100:
            rows.append(
                f"{'':<14} boards with every decoration and icon at least {MARK_SHOWN:.0%} in view: "
                f"{r['boards_in_view_pct']:.2f} %, their scores exact {r['scores_exact_in_view_pct']:.2f} %"
            )
    return "\n".join(rows)


def write_json(path: Path, results: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"results": results}, indent=2))
