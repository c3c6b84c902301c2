"""Score a photo: vision reads the boards, the registry's rules score them, and this glue builds the answer.

Shared by ``garden-scorer score``, the benchmark and the web app, so all give the same JSON:
``{"boards": [{"game", "corners_xy", "state", "confidence", "flags", "lines", "total"}]}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from calibration.seats import reading_order
from calibration.statedir import StateDir
from device.report import breakdown_json, result_json
from models import art_path, boards_model_path, model_path, orient_model_path, sides_model_path
from scoring import custom_grid
from scoring.core import InvalidState, ScoreBreakdown, StateError, TableScore
from scoring.registry import GAMES, Kind, get_entry, get_game
from vision.camera_model import CameraModel
from vision.image_io import check_image, decode_image
from vision.locate.art import ArtColours
from vision.locate.art import load_art as read_art
from vision.locate.board import overlap
from vision.locate.mask import BoardSegmenter
from vision.locate.picture import BoardPicture
from vision.locate.sides import SideFinder
from vision.pipeline import BoardReading, NoBoardError, read_photo, read_together
from vision.profile import BoardProfile, default_profile, own_printing
from vision.read.classify import CellClassifier, OnnxCellClassifier
from vision.read.colour import BoardColour
from vision.read.orient import OrientationModel
from vision.readers import Head, get_reader, reader_for

if TYPE_CHECKING:
    from calibration.enroll import Enrolment
    from calibration.profiles import ProfileBundle


@cache
def load_classifier(game: str) -> OnnxCellClassifier:
    """The shipped model of ``game`` (loaded once per process)."""
    path = model_path(game)
    if not path.is_file():
        raise StateError(
            f"no model for {game!r} at {path}; rebuild it with `garden-scorer-lab train --game {game}`"
        )
    return OnnxCellClassifier(path)


def base_classifier(game: str) -> CellClassifier:
    """What a profile of ``game`` is read and taught on: its shipped model, or for a user's own grid game,
    which has none, each cell's colours and textures described (its enrolment is the whole classifier)."""
    from vision.read.describe import DescribedCells

    if game == custom_grid.GAME:
        return DescribedCells(game)
    return load_classifier(game)


@cache
def load_orienter(game: str) -> OrientationModel:
    path = orient_model_path(game)
    if not path.is_file():
        raise StateError(
            f"no orientation model for {game!r} at {path}; rebuild it with `garden-scorer-lab train`"
        )
    return OrientationModel(path)


@cache
def load_art(game: str) -> ArtColours | None:
    """The shipped colours of ``game``'s art, for a board found by its grid of tiles (none for the others)."""
    path = art_path(game)
    if not path.is_file():
        return None
    try:
        return read_art(path)
    except ValueError as exc:
        raise StateError(f"{exc}; rebuild it with `garden-scorer-lab train --game {game}`") from None


def shipped_art(profiles: Sequence[BoardProfile]) -> dict[str, ArtColours]:
    """The shipped art colours of the profiles' readers that have any, keyed by reader."""
    keys = {reader_for(p).game for p in profiles}
    return {k: art for k in sorted(keys) if (art := load_art(k)) is not None}


@cache
def load_segmenter() -> BoardSegmenter:
    """The shipped board-mask model with the board-side model (loaded once per process)."""
    path, sides = boards_model_path(), sides_model_path()
    if not path.is_file():
        raise StateError(f"no board-mask model at {path}; rebuild it with `garden-scorer-lab train --boards`")
    if not sides.is_file():
        raise StateError(f"no board-side model at {sides}; rebuild it with `garden-scorer-lab train --sides`")
    return BoardSegmenter(path, SideFinder(sides))


# Photos as the reader takes them from phones: a board is redrawn at 2 px/mm (vision.read.rectify), the
# largest, 420 mm, in 840 px, which a photo 3000 px long gives where the board spans 28 % of it. A photo twice
# as long or more is decoded halved or more (libjpeg scales as it decodes: a 64-megapixel one, 9248 px, is
# read from a quarter of its pixels); one still longer than the Pi cameras' (4608 px, kept whole so that
# their calibration holds) is shrunk to that. What decoding may hold is bounded too: a PNG is decoded whole
# (and held twice), so a large one is refused before it takes the Pi's memory.
READ_LONG_SIDE = 3000
READ_MOST_SIDE = 4608
READ_DECODE_BYTES = 96 * 2**20


def check_photo(data: bytes) -> tuple[int, int]:
    """A photo's size as viewed, once its header shows that :func:`decode_photo` may decode it and that it is
    not too small to read (said at the size it was sent: decoded, a very long one is shrunk)."""
    width, height = check_image(data, long_side=READ_LONG_SIDE, max_bytes=READ_DECODE_BYTES)
    _large_enough(width, height)
    return width, height


def decode_photo(data: bytes) -> NDArray[np.uint8]:
    """A photo decoded as the reader takes it (see :data:`READ_LONG_SIDE`)."""
    return decode_image(data, long_side=READ_LONG_SIDE, max_bytes=READ_DECODE_BYTES, most_side=READ_MOST_SIDE)


def parse_sets(items: Sequence[str]) -> dict[str, Any]:
    """``FIELD=VALUE`` pairs as hand-entry fields; VALUE is JSON when it parses as JSON, else a string."""
    hand: dict[str, Any] = {}
    for item in items:
        field, sep, value = item.partition("=")
        if not sep or not field:
            raise StateError(f"--set {item!r}: expected FIELD=VALUE, e.g. track_score=38")
        try:
            hand[field] = json.loads(value)
        except json.JSONDecodeError:
            hand[field] = value
    return hand


def parse_pair(text: str, lo: int, hi: int, what: str) -> tuple[int, int]:
    """``AxB`` (e.g. a pattern's ``7x5``) with both numbers in ``lo..hi``; ValueError says what was wrong,
    naming ``what`` was expected."""
    try:
        a, b = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"expected {what}, got {text!r}") from None
    if not (lo <= a <= hi and lo <= b <= hi):
        raise ValueError(f"{text}: each number must be {lo} to {hi}")
    return a, b


def load_camera(path: Path) -> CameraModel:
    """A camera calibration file written by ``garden-scorer calibrate camera``."""
    from calibration.camera import load

    try:
        return load(path).camera()
    except ValueError as exc:
        raise StateError(str(exc)) from None


def state_camera(state: StateDir) -> CameraModel | None:
    """The state folder's camera calibration (``garden-scorer calibrate camera`` or the calibration page),
    None before one is made."""
    return load_camera(state.camera) if state.camera.is_file() else None


# Said of every board of a copy of its own (another size, its grids elsewhere) before any game taught it.
UNTAUGHT_COPY = (
    "your copy's board is not taught yet: check every cell, then keep the corrected photo to teach it"
)


@dataclass(frozen=True)
class ScoredBoard:
    reading: BoardReading
    state: Mapping[str, Any]
    breakdown: ScoreBreakdown | None
    flags: tuple[str, ...]
    table: TableScore | None = None  # a shared board's score: every player's breakdown and rank

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.reading.game,
            "corners_xy": np.round(self.reading.corners_xy, 2).tolist(),
            "state": dict(self.state),
            "confidence": round(self.reading.confidence, 4),
            "flags": list(self.flags),
            "low_confidence_cells": [list(k) for k in self.reading.low_confidence],
            "lines": [],
            "total": None,
        }
        if self.breakdown is not None:
            data = breakdown_json(self.breakdown)
            out["lines"] = data["lines"]
            out["total"] = data["total"]
        if self.table is not None:
            out["players"] = result_json(self.table)["players"]
        return out


def _score_board(reading: BoardReading) -> ScoredBoard:
    if not reading.in_frame:
        # Cells beyond the photo's edge would be guesses: the reading is shown but never scored.
        return ScoredBoard(
            reading, reading.state, None, (*reading.flags, "not scored: part of the board is unseen")
        )
    if not reading.trusted:
        return ScoredBoard(reading, reading.state, None, reading.flags)
    rules = get_game(reading.game)
    try:
        state = rules.parse(reading.state)
    except StateError as exc:
        return ScoredBoard(reading, reading.state, None, (*reading.flags, f"not scored: {exc}"))
    try:
        # The rules check the state before they score it: a state they refuse says why.
        result = rules.score(state)
    except InvalidState as exc:
        return ScoredBoard(
            reading, reading.state, None, (*reading.flags, *(f"not scored: {p.said}" for p in exc.problems))
        )
    if isinstance(result, TableScore):
        return ScoredBoard(reading, reading.state, None, reading.flags, table=result)
    return ScoredBoard(reading, reading.state, result, reading.flags)


def table_state(game: str, states: Sequence[Mapping[str, Any]], hand: Mapping[str, Any]) -> dict[str, Any]:
    """A table game's boards (one player's state each) as the table its rules read; the Preference Boards
    and other set-up come from the hand entry (Zen Garden's default: board 1 only)."""
    return {"game": game, "setup": hand.get("setup", {"boards": [1]}), "players": [dict(s) for s in states]}


# A table game's photo in which one board was found: its rules' refusal ("only 1 garden") would hide that
# the other players' boards were not found.
LONE_TABLE_BOARD = (
    "only this board was found in the photo, and a table's boards are scored together: if more lie on the "
    "table, leave a hand's width between them and photograph them all again"
)


def _score_table(game: str, readings: list[BoardReading], hand: Mapping[str, Any]) -> list[ScoredBoard]:
    rules = get_game(game)
    players = [{"name": f"Board {i + 1}", **r.state} for i, r in enumerate(readings)]
    if len(readings) == 1:
        readings = [replace(readings[0], flags=(*readings[0].flags, LONE_TABLE_BOARD))]
    if not all(r.in_frame and r.trusted for r in readings):
        # One unreliable board changes everyone's majority: the table is shown but not scored.
        reason = "not scored: a board of this table is cut off or unclear"
        return [ScoredBoard(r, players[i], None, (*r.flags, reason)) for i, r in enumerate(readings)]
    table = table_state(game, players, hand)
    extra: tuple[str, ...]
    result = None
    try:
        result = rules.score(rules.parse(table))
    except InvalidState as exc:
        extra = tuple(f"not scored: {p.said}" for p in exc.problems)
    except StateError as exc:
        extra = (f"not scored: {exc}",)
    else:
        extra = ()
    out = []
    for i, reading in enumerate(readings):
        breakdown = result.players[i] if isinstance(result, TableScore) else None
        out.append(ScoredBoard(reading, players[i], breakdown, (*reading.flags, *extra)))
    return out


# A board read with at least this share of its cells unsure is looked for as each game whose board is its
# tiles alone (a Kingdomino kingdom): a kingdom read as Alice's Garden reads a quarter to three quarters of
# its 48 cells unsure, yet was scored (an independent try, 3 of 9). Read as that game and scored there, it
# is that game's board, not this one's.
DOUBTFUL_SHARE = 0.2
OTHER_GAMES_BOARD = (
    "this looks like a board of {other}, not of {title}: choose {other} and score it again; not scored"
)


def _tile_games(game: str) -> list[str]:
    """The other games whose board is a grid of tiles alone, found by their art's colours (Kingdomino)."""
    profiles = [default_profile(other) for other in GAMES if other not in (game, custom_grid.GAME)]
    return [p.game for p in profiles if p.tiles_only and load_art(reader_for(p).game) is not None]


def _other_games_boards(image: NDArray[np.uint8], game: str, scored: list[ScoredBoard]) -> list[ScoredBoard]:
    """``scored`` with each board read doubtfully (:data:`DOUBTFUL_SHARE`) that lies where a board of another
    game is read and scored (:func:`_tile_games`) left unscored, saying which game it shows: also one its own
    reading left unscored (most of its cells unsure), which could only say it may be another game's."""
    doubtful = [len(b.reading.low_confidence) >= DOUBTFUL_SHARE * len(b.reading.readings) for b in scored]
    if not any(doubtful):
        return scored
    out = list(scored)
    for other in _tile_games(game):
        try:
            theirs = [b for b in score_image(image, other) if b.breakdown is not None]
        except (NoBoardError, StateError):
            continue
        for i, board in enumerate(out):
            if doubtful[i] and any(overlap(board.reading.corners_xy, t.reading.corners_xy) for t in theirs):
                said = OTHER_GAMES_BOARD.format(other=get_game(other).title, title=get_game(game).title)
                unsure = replace(board.reading, trusted=False)
                out[i] = replace(board, reading=unsure, breakdown=None, flags=(*board.flags, said))
                doubtful[i] = False
    return out


# A game of the player's own, asked for before it was taught: the web page says it as the game is picked.
UNTAUGHT_OWN_GAME = (
    "A game of your own is read by what you teach it, and it is not taught yet: the table's owner teaches it "
    "once on the scorer, from two photos of a board and what each cell holds (garden-scorer enroll, "
    'README: a grid game of your own); then pick its profile under "Your own copy of the board" and score'
)


# Below this many pixels on its short side a photo holds no board that could be read (a kingdom's crown is a
# sixth of a square; on 64 px, a 5 x 5 kingdom's crowns are 2 px).
SMALLEST_PHOTO_SIDE = 64
# Below this many pixels on its long side, a photo in which no board is found is said to be small: a phone's
# photo is thousands across, and a board a quarter of a small one is too few pixels to find.
SMALL_PHOTO_SIDE = 640
SMALL_PHOTO = "; the photo is only {w} x {h} pixels: if it was sent as a small copy, send it at its full size"
# Pixels whose channels differ by more than this are coloured; a photo with hardly one in a hundred so is
# black and white.
GREY_SPREAD = 6


def _large_enough(width: int, height: int) -> None:
    if min(width, height) < SMALLEST_PHOTO_SIDE:
        raise StateError(
            f"the photo is only {width} x {height} pixels, too small to read a board: send it at its full "
            "size"
        )


def readable(image: NDArray[np.uint8]) -> None:
    """StateError, in the player's words, for a photo no board can be read from: too small, blank, or in
    black and white (tiles and pieces are told apart by their colours)."""
    h, w = image.shape[:2]
    _large_enough(w, h)
    step = max(1, min(h, w) // 100)  # some ten thousand pixels tell, in a millisecond (every live frame)
    sample = image[::step, ::step]
    spread = sample.max(axis=2) - sample.min(axis=2)  # uint8: max >= min
    if np.count_nonzero(spread > GREY_SPREAD) <= 0.01 * spread.size:
        if int(sample.max()) - int(sample.min()) <= GREY_SPREAD:
            raise StateError(
                "the photo is blank (one even shade, or transparent): take or send a photo of the board"
            )
        raise StateError(
            "the photo has no colour (black and white): tiles and pieces are told apart by their colours, "
            "so take or send it in colour"
        )


def score_image(
    image: NDArray[np.uint8],
    game: str,
    hand: Mapping[str, Any] | None = None,
    camera: CameraModel | None = None,
    profiles: Sequence[BoardProfile] | None = None,
    classifiers: Mapping[str, CellClassifier] | None = None,
    orienters: Mapping[str, OrientationModel] | None = None,
    corners_xy: NDArray[np.float64] | None = None,
    stickers: bool = False,
    references: Mapping[str, BoardColour] | None = None,
    known_boards: Sequence[NDArray[np.float64]] | None = None,
    also: Sequence[NDArray[np.uint8]] = (),
    art: Mapping[str, ArtColours] | None = None,
    pictures: Mapping[str, BoardPicture] | None = None,
    untaught_copy: bool = False,
) -> list[ScoredBoard]:
    """Read every board of ``game`` in the photo and score it (a table game scores the boards together).

    ``also``: more photos of the same one board, taken from other sides, read with the first (see
    :func:`vision.pipeline.read_together`): what one photo sees hidden behind a miniature, another shows.
    Each photo must then show that board alone; ``corners_xy`` and ``known_boards`` place it in the first.
    They are taken one at a time, each let go before the next: a sequence that decodes each as it is taken
    (the web app's) then holds one at a time.
    ``art``: the colours of boards found by their grid, by reader (a profile's own; else the shipped ones);
    ``pictures``: the profiles' remembered pictures, by profile name, to find and orient their boards by;
    ``untaught_copy``: the board is a copy of its own no game was taught from: every result says so."""
    hand = hand or {}
    # The game's own board looked for in the photo: another game's board may be what was found.
    searched_for_game = not profiles and corners_xy is None and known_boards is None and not also
    if not profiles and game == custom_grid.GAME:
        # A game of the player's own has no model and no board of ours: it is read by what it was taught.
        raise StateError(UNTAUGHT_OWN_GAME)
    profiles = profiles or [default_profile(game)]
    # Models are keyed by reader: a Four Gardens Extra-rewards tile has its own, though its game is the same.
    keys = sorted({reader_for(p).game for p in profiles})
    classifiers = classifiers or {k: load_classifier(k) for k in keys}
    # A board that reads alike whichever way up it lies (a Kingdomino kingdom) has no layout model.
    orienters = (
        {k: load_orienter(k) for k in keys if not get_reader(k).turns_freely}
        if orienters is None
        else orienters
    )

    def read(photo: NDArray[np.uint8], **where: Any) -> list[BoardReading]:
        readable(photo)
        return read_photo(
            photo,
            profiles,
            classifiers,
            orienters,
            camera,
            hand,
            stickers=stickers,
            references=references,
            segmenter=load_segmenter(),
            art=art if art is not None else shipped_art(profiles),
            pictures=pictures,
            **where,
        )

    alone = "photos read together must each show the one board alone"
    try:
        readings = read(image, corners_xy=corners_xy, known_boards=known_boards)
    except NoBoardError as exc:
        said = str(exc)
        if max(image.shape[:2]) < SMALL_PHOTO_SIDE:
            # A phone or a chat app may have sent a small copy: the board may be there, too small to find.
            said += SMALL_PHOTO.format(w=image.shape[1], h=image.shape[0])
        raise NoBoardError(f"photo 1: {said}" if also else said) from None  # of several photos, which one
    if known_boards is None:
        # Found in the order the search met them: given to the players in the photo's reading order (rows top
        # to bottom, each left to right), as they name their boards. Boards known before keep their order.
        readings = [readings[i] for i in reading_order([r.corners_xy for r in readings])]
    if also:
        if len(readings) > 1:
            raise ValueError(f"photo 1 shows {len(readings)} boards: {alone}")
        views, unread = {1: readings[0]}, []
        # Taken by index: no name (nor an iterator) holds a photo while the next is taken.
        for number in range(2, len(also) + 2):
            # The board is read all the same, from the photos that show it alone.
            try:
                seen = read(also[number - 2])
            except NoBoardError as exc:
                unread.append(f"photo {number} was not read: {exc}")
                continue
            if len(seen) > 1:
                unread.append(f"photo {number} was left out: it shows {len(seen)} boards, and {alone}")
            else:
                views[number] = seen[0]
        together = read_together(views, hand)
        readings = [replace(together, flags=(*together.flags, *unread))]
    if get_entry(game).kind is Kind.TABLE:
        # The rules compare players: every board of the photo is one player of the same table.
        scored = _score_table(game, readings, hand)
    else:
        scored = [_score_board(r) for r in readings]
        if searched_for_game:
            scored = _other_games_boards(image, game, scored)
    if untaught_copy:
        # Its art is new to the models: how sure they are of a cell says little until a game has taught it.
        return [replace(b, flags=(*b.flags, UNTAUGHT_COPY)) for b in scored]
    return scored


def profile_models(state: StateDir, game: str, profile: str | None) -> dict[str, Any]:
    """:func:`score_image` arguments for a stored profile: its board, its enrolled classifier and its colour
    (none for no profile, so the shipped defaults apply)."""
    if profile is None:
        return {}
    from calibration.profiles import load_bundle

    bundle = load_bundle(state, profile)
    if bundle.profile.game != game:
        raise StateError(
            f"profile {profile!r} is a board of {get_game(bundle.profile.game).title}, "
            f"not of {get_game(game).title}"
        )
    # Keyed by reader: a Four Gardens profile may be an Extra-rewards tile, read by a model of its own.
    reader = reader_for(bundle.profile)
    models: dict[str, Any] = {}
    if game == custom_grid.GAME:
        if bundle.enrolment is None:
            raise StateError(f"profile {profile!r} has not been enrolled yet: `garden-scorer enroll`")
        classifier: Any = _enrolled(profile, base_classifier(game), bundle.enrolment, reader.heads)
        # No layout model knows which way up a user's board lies: its picture, stickers or corners say it
        # (or nothing need: a square grid of bare tiles scores alike any way up).
        models["orienters"] = {}
    else:
        base = load_classifier(reader.game)
        unknown = [h.name for h in reader.heads if h not in base.heads]
        if bundle.enrolment is None:
            if unknown:
                raise StateError(
                    f"profile {profile!r} is read for {', '.join(unknown)}, which the shipped model has not "
                    "learnt: enrol it from a few photos (`garden-scorer enroll`)"
                )
            classifier = base
            models["untaught_copy"] = own_printing(bundle.profile)
        else:
            # A head of the profile's own (a table's marker colour) comes from the enrolment alone.
            classifier = _enrolled(profile, base, bundle.enrolment, reader.heads if unknown else None)
    models |= {
        "profiles": [bundle.profile],
        "classifiers": {reader.game: classifier},
        "references": {reader.game: bundle.colour} if bundle.colour else {},
        **_picture(bundle),
    }
    # A grid of tiles' colours in this table's light, from its own teaching photos, where it has any.
    return {**models, "art": {reader.game: bundle.art}} if bundle.art else models


def _picture(bundle: ProfileBundle) -> dict[str, Any]:
    """:func:`score_image`'s ``pictures`` for a profile that remembers its board's picture."""
    picture = bundle.picture()
    return {} if picture is None else {"pictures": {bundle.profile.name: picture}}


def _enrolled(
    profile: str, base: CellClassifier, enrolment: Enrolment, heads: tuple[Head, ...] | None
) -> CellClassifier:
    from calibration.enroll import EnrolledClassifier

    try:
        return EnrolledClassifier(base, enrolment, heads)
    except ValueError as exc:
        # A new version of the software ships retrained models: the table's art is learnt again from photos.
        raise StateError(
            f"profile {profile!r}: {exc} from its photos (`garden-scorer enroll --profile {profile}` teaches "
            "it again from those it kept, as the web app does when it starts; or the set-up page's "
            "enrolment inbox)"
        ) from None


def read_reward_tile(image: NDArray[np.uint8], camera: CameraModel | None = None) -> int:
    """The number on the one Four Gardens Extra-rewards tile in the photo (a close-up of the tile alone).

    A tile lies in front of its owner, which a photo of the table cannot tell apart from a neighbour's, so
    each tile is photographed on its own and named by its owner's marker colour in the hand entry.
    """
    from vision.readers.four_gardens import REWARD_KEY

    profile = default_profile(REWARD_KEY)
    try:
        readings = read_photo(
            image,
            [profile],
            {REWARD_KEY: load_classifier(REWARD_KEY)},
            {REWARD_KEY: load_orienter(REWARD_KEY)},
            camera,
            max_boards=2,
            segmenter=load_segmenter(),
        )
    except NoBoardError:
        raise StateError(
            "no Extra-rewards tile found: photograph one tile alone, face up, on a plain table"
        ) from None
    if len(readings) != 1:
        raise StateError(f"{len(readings)} Extra-rewards tiles in the photo: photograph one tile at a time")
    (reading,) = readings
    # Any doubt (a faint digit, which way up it lies: a 6 or a 9) is the player's to settle, not a guess.
    if not reading.trusted or reading.flags:
        doubt = "; ".join(reading.flags) or "the tile is not clear"
        raise StateError(
            f"the Extra-rewards tile reads {reading.state.get('value')} but not for sure ({doubt}): take the "
            "photo again, or enter the number by hand"
        )
    return int(reading.state["value"])
