"""Scoring a photo from a phone: the upload, the result page with its board pictures, and corrections.

``POST /api/score`` answers ``{"game_id", "boards": [...]}``, each board as ``ScoredBoard.to_json`` gives it
(what ``garden-scorer score --json`` prints), and records the boards in the history.

Per result the app keeps a folder (results.py): the photos it was read from, a picture of each board and what
it was read with, for its page and for reading it again; an older result, its folder pruned to make room,
still shows its breakdown from the history.

A correction is scored by the game's rules (scoring.registry) and replaces the result in the history under a
new id, with the original time; the folder moves with it. More photos of a result's one board (``POST
/api/result/GAME_ID/also``) are read with those it kept, and that reading replaces the result so. Only the
phone that sent a result's photo (its player cookie, ``device.web.auth``) or a paired device may change it,
and the history notes who did and when.

Each request costs a bounded share of a Pi: a few bodies are received at once (bodies.py), spooled to files;
once one is in, at most ``MAX_WAITING`` requests wait to read photos or are reading them (more are turned
away, 503), they read one at a time (reading.py), a photo is decoded reduced where it is larger than the
reader needs, and the more photos of a board are decoded one after another as they are read. A request that
stores a result may carry an ``Idempotency-Key`` (the pages send one, the same in each retry): a retry of one
whose answer was lost is answered with the result stored then, not stored twice.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, overload

import numpy as np
from fastapi import APIRouter, Depends, Header, HTTPException, Request, Response
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.datastructures import UploadFile

from calibration import teaching
from calibration.profiles import check_teaches, list_profiles, profile_exists
from calibration.statedir import check_name
from calibration.store import StoreError
from device.history import UPLOAD, AlreadyRecorded, Change, GameNotFound, GameRecord, History, Sender
from device.photo import ScoredBoard, check_photo, decode_photo, table_state
from device.report import breakdown_json, result_json
from device.web.auth import PlayerIds, is_admin, who
from device.web.bodies import TAKES_PHOTOS, Guarded, strict_json
from device.web.gamesetup import MAX_PLAYERS, PlayerName, SetupStore
from device.web.reading import Reader, ScoreFn
from device.web.results import ResultStore
from device.web.security import json_object_field, page_response
from device.web.services import (
    HistoryDep,
    InboxDep,
    PlayersDep,
    ReaderDep,
    ResultsDep,
    ReteacherDep,
    SetupDep,
    StateDep,
)
from scoring.core import InvalidState, ScoreBreakdown, StateError, TableScore
from scoring.hand import check as check_hand
from scoring.registry import GAMES, AnyPicker, Kind, get_entry, get_game
from scoring.words import counted
from vision.geometry import Points
from vision.image_io import ImageError, viewed_size, without_personal_metadata
from vision.pipeline import NoBoardError, low_confidence_flag

log = logging.getLogger(__name__)

NOT_KEPT = "the oldest results' photos make room for new ones"
CORRECTED = "corrected by hand"
# Photos of one board from other sides, read with the first (device.photo.score_image ``also``), each decoded
# as it is read: what one more costs is the time to read it.
MAX_ALSO = 3
# What the history notes of each change to a result, as "Corrected by WHO on WHEN".
CHANGE_CORRECTED = "corrected"
CHANGE_HAND = "read again with what the photo cannot show"
CHANGE_CORNERS = "read again where its corners were placed"
CHANGE_MORE = "read again with more photos"
# Names sent with a photo for more or fewer boards than were found: which board is whose cannot be told.
NAMES_LEFT_OFF = (
    "{named} named but {found} found: the names are not used; name one player for each board, left to right "
    "and top to bottom, or if a board was missed, leave a hand's width between the boards and photograph "
    "them all again"
)
NOT_YOURS = "only the phone that sent this photo, or a paired phone, can change this result"
NOT_A_PHONES = "this result did not come from a phone's photo: only a paired phone can change it"
# The files, the hand-entry fields, and room for a browser's extras; more is not a photo upload.
MAX_FORM_FIELDS = 5 + MAX_ALSO

# The history's ids are SQLite integers: a larger one in a URL would fail the query with a 500, not a 422.
SQLITE_MAX_INT = 2**63 - 1
GameId = Annotated[int, PathParam(ge=1, le=SQLITE_MAX_INT, description="the game's id in the history")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[A-Za-z0-9_-]{16,64}$",
        description="a random id, the same in each retry of one request: a retry of one that stored a "
        "result (its answer lost) is answered with that result, not stored twice",
    ),
]


class Corners(BaseModel):
    """A board's four corners placed by the player, in the photo's pixels as it is viewed: top left, top
    right, bottom right, bottom left (the top is the edge the board is read with up)."""

    model_config = ConfigDict(extra="forbid")
    corners_xy: Annotated[
        list[Annotated[list[Annotated[float, Field(ge=-1e5, le=1e5)]], Field(min_length=2, max_length=2)]],
        Field(min_length=4, max_length=4),
    ]


class HandEntry(BaseModel):
    """What the photo cannot show, as the game's form gives it (``scoring.hand``)."""

    model_config = ConfigDict(extra="forbid")
    hand: dict[str, Any] = Field(description="the hand-entry fields, as in an upload's hand field")


def picker_for(game: str, state: Mapping[str, Any]) -> AnyPicker | None:
    """How a tap on a cell of ``game``'s result edits ``state`` (the registry's), or None: edited as JSON."""
    entry = get_entry(game)
    return entry.picker.for_state(state) if entry.picker is not None else None


def rescore(
    game: str,
    boards: Sequence[Mapping[str, Any]],
    states: Sequence[Mapping[str, Any]],
    hand: Mapping[str, Any],
    checked: Sequence[Sequence[Sequence[Any]]] = (),
) -> list[dict[str, Any]]:
    """Each board's JSON with its corrected state, scored by the game's rules. Its cells read with low
    confidence stay flagged but for those the player looked at (``checked``: per board, the keys of the
    cells they set, changed or not): a board read as another game's, one cell of it corrected, is not
    scored as if every other cell were right.

    Raises StateError when a state cannot be read and InvalidState when it breaks the rules.
    """
    rules = get_game(game)
    for i, state in enumerate(states):
        if state.get("game", game) != game:
            raise StateError(f"board {i + 1}: a {state.get('game')!r} state cannot correct a {game} result")
    results: list[ScoreBreakdown | TableScore] = []
    if get_entry(game).kind is Kind.TABLE:
        table = rules.score(rules.parse(table_state(game, states, hand)))
        if not isinstance(table, TableScore) or len(table.players) != len(states):
            raise StateError(f"expected one player's state per board, {len(states)} in all")
        results.extend(table.players)
    else:
        # A single board scores alone; a shared board (Four Gardens, Tang Garden) scores its whole table.
        results.extend(rules.score(rules.parse(state)) for state in states)
    out = []
    looked = [{tuple(key) for key in keys} for keys in checked] or [set() for _ in boards]
    for board, state, result, seen in zip(boards, states, results, looked, strict=True):
        unsure = [key for key in board.get("low_confidence_cells", []) if tuple(key) not in seen]
        flags = [CORRECTED, *([low_confidence_flag(len(unsure))] if unsure else [])]
        scored = {**board, "state": dict(state), "flags": flags, "lines": [], "total": None}
        scored["low_confidence_cells"] = unsure
        if isinstance(result, TableScore):
            scored["players"] = result_json(result)["players"]
        else:
            data = breakdown_json(result)
            scored["lines"], scored["total"] = data["lines"], data["total"]
        out.append(scored)
    return out


def enrolment_state(
    game: str, states: Sequence[Mapping[str, Any]], index: int, hand: Mapping[str, Any]
) -> dict[str, Any]:
    """Board ``index``'s true state as ``garden-scorer enroll`` reads it (a table game: its player first)."""
    if get_entry(game).kind is Kind.TABLE:
        return table_state(game, [states[index], *states[:index], *states[index + 1 :]], hand)
    return {**states[index], "game": game}


class ScoreResult(BaseModel):
    game_id: int = Field(description="the result's id in the history; its page is /result/GAME_ID")
    boards: list[dict[str, Any]] = Field(description="as `garden-scorer score --json` prints them")


# A cell as the result names it: its region, row and column.
CellKeyJson = tuple[Annotated[str, Field(max_length=64)], int, int]


class Correction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    boards: list[dict[str, Any] | None] = Field(
        min_length=1,
        max_length=16,
        description="each board's corrected state, in the result's order; null for an outline that is no "
        "board (something else the scorer took for one), left out of the game",
    )
    checked: list[list[CellKeyJson]] = Field(
        default_factory=list,
        max_length=16,
        description="per board, the cells the player looked at and set (changed or not), as [region, row, "
        "column]: the others read with low confidence stay flagged",
    )
    consent: bool = Field(
        default=False,
        description="teach from the photo and these states: from a paired device its profile learns from "
        "them at once, otherwise they wait in the enrolment inbox for the owner",
    )


class Previewed(BaseModel):
    boards: list[dict[str, Any]] = Field(
        description="each board as the result gives it, with the corrected state, its breakdown and total"
    )


class AlikeCell(BaseModel):
    board: int = Field(description="the board's place in the result's boards")
    cell: int = Field(description="the cell's place in that board's cells")


class AlikeCells(BaseModel):
    cells: list[AlikeCell] = Field(description="the cells that look alike, the most alike first")


class Corrected(ScoreResult):
    enrolment_saved: bool = Field(
        description="whether the photo was kept to teach from: among its profile's teaching photos, or in "
        "the enrolment inbox"
    )
    reteaching: str | None = Field(
        default=None, description="the profile now being taught again from the photo, in the background"
    )
    awaiting_owner: bool = Field(
        default=False,
        description="whether the photo waits in the enrolment inbox for the table's owner to teach from it",
    )


_ALSO_PROPERTY: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "format": "binary"},
    "maxItems": MAX_ALSO,
    "description": "more photos of the same one board from other sides, read with the first: what its "
    "pieces hide in one, another shows",
}


def _multipart_body(required: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAPI request body of a multipart form with ``properties``, ``required`` among them."""
    schema = {"type": "object", "required": [required], "properties": dict(properties)}
    content = {"multipart/form-data": {"schema": schema}}
    return {"requestBody": {"required": True, "content": content}, **TAKES_PHOTOS}


_UPLOAD_BODY = _multipart_body(
    "file",
    {
        "file": {"type": "string", "format": "binary", "description": "a JPEG or PNG photo"},
        "also": _ALSO_PROPERTY,
        "hand": {
            "type": "string",
            "description": "JSON object of hand-entry fields, e.g. "
            '{"unplaced_bonus_tiles": 1}; default: the game set-up\'s',
        },
        "players": {
            "type": "string",
            "description": "JSON list of the boards' players in the photo's reading order, e.g. [\"Ann\"]; "
            "used where the photo holds as many boards; default: the game set-up's",
        },
    },
)
_MORE_BODY = _multipart_body("also", {"also": _ALSO_PROPERTY})
NO_SUCH_GAME: dict[str, Any] = {"description": "no game of that id (deleted, or never scored here)"}
_UPLOAD_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "unknown game or profile, bad hand-entry fields, not a usable JPEG or PNG"},
    413: {"description": "the request body is over the upload limit"},
    415: {"description": "not a multipart/form-data upload of an image"},
    422: {"description": "no board found in the photo"},
    503: {"description": "busy reading other photos: try again after the Retry-After header's seconds"},
}
NOT_YOURS_ANSWER: dict[str, Any] = {
    "description": "from a phone other than the one that sent the photo, and not paired"
}


def _record(history: History, game_id: int) -> GameRecord:
    try:
        return history.get(game_id)
    except GameNotFound as exc:
        raise HTTPException(404, str(exc)) from None


def _require_multipart(request: Request, field_name: str) -> None:
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        got = content_type or "no type"
        raise HTTPException(
            415, f"send the photo as multipart/form-data in the field '{field_name}', not {got}"
        )


def _photo_files(items: Sequence[object], field_name: str, most: int) -> list[UploadFile]:
    """``items`` (a form field's values), each checked to be an uploaded photo, at most ``most``."""
    if len(items) > most:
        raise HTTPException(400, f"{field_name}: {len(items)} more photos; send at most {most}")
    for item in items:
        if not isinstance(item, UploadFile):
            raise HTTPException(400, f"{field_name}: expected a photo file, not a text field")
        kind = (item.content_type or "").split(";")[0].strip().lower()
        if kind and not kind.startswith("image/") and kind != "application/octet-stream":
            raise HTTPException(415, f"the file is {kind}, not a photo; send a .jpg or .png")
    return [item for item in items if isinstance(item, UploadFile)]


_NAMES = TypeAdapter(Annotated[list[PlayerName], Field(min_length=1, max_length=MAX_PLAYERS)])


def _players_field(text: str) -> list[str]:
    """The ``players`` form field: the boards' players in the photo's reading order, as JSON names."""
    try:
        return list(_NAMES.validate_python(strict_json(text)))
    except (ValueError, ValidationError, RecursionError):
        raise HTTPException(
            400, f'players: expected 1 to {MAX_PLAYERS} names of up to 40 letters, e.g. ["Ann", "Bo"]'
        ) from None


def _corners_field(text: str) -> Points:
    """The ``corners`` form field: the board's corners placed by the player, as JSON ``[[x, y] x 4]``."""
    try:
        return np.array(Corners(corners_xy=strict_json(text)).corners_xy, dtype=np.float64)
    except (ValueError, ValidationError, RecursionError):
        raise HTTPException(
            400, "corners: expected four [x, y] pixel pairs, top left first and round clockwise"
        ) from None


@dataclass(frozen=True)
class _Upload:
    """An upload's fields once its body is in: the photos (spooled, not yet read into memory) and the text of
    the ``hand``, ``corners`` and ``players`` fields."""

    photo: UploadFile
    also: list[UploadFile]
    hand: str | None
    corners: str | None
    players: str | None

    def sources(self) -> list[PhotoSource]:
        """The photo, then the ``also`` photos, each read into memory only when the reader takes it."""
        return [_spooled(upload) for upload in (self.photo, *self.also)]


PhotoSource = Callable[[], bytes]
"""A photo's bytes, read when called: spooled on disk, or kept, until the reader's turn comes."""


def _spooled(upload: UploadFile) -> PhotoSource:
    def read() -> bytes:
        upload.file.seek(0)
        return upload.file.read()

    return read


@asynccontextmanager
async def _upload_form(request: Request) -> AsyncIterator[_Upload]:
    """The photo, the ``also`` photos and the ``hand``, ``corners`` and ``players`` fields of a multipart
    form, open while the block runs."""
    _require_multipart(request, "file")
    async with request.form(max_files=1 + MAX_ALSO, max_fields=MAX_FORM_FIELDS) as form:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise HTTPException(400, "no photo: send it in the multipart field 'file'")
        (upload,) = _photo_files([upload], "file", 1)
        also = _photo_files(form.getlist("also"), "also", MAX_ALSO)
        fields = [(name, form.get(name)) for name in ("hand", "corners", "players")]
        for name, value in fields:
            if value is not None and not isinstance(value, str):
                raise HTTPException(400, f"{name}: expected a JSON text field, not a file")
        hand, corners, players = [value if isinstance(value, str) else None for _, value in fields]
        yield _Upload(upload, also, hand, corners, players)


@asynccontextmanager
async def _more_form(request: Request, most: int) -> AsyncIterator[list[UploadFile]]:
    """The ``also`` photos (one to ``most``) of a multipart form, open while the block runs."""
    _require_multipart(request, "also")
    async with request.form(max_files=MAX_ALSO, max_fields=MAX_FORM_FIELDS) as form:
        also = _photo_files(form.getlist("also"), "also", most)
        if not also:
            raise HTTPException(400, "no photo: send each in the multipart field 'also'")
        yield also


class _Decoded(Sequence[NDArray[np.uint8]]):
    """Photos decoded as they are taken, and not kept: a reader that lets each go before it takes the next
    holds one at a time."""

    def __init__(self, photos: Sequence[bytes]) -> None:
        self._photos = photos

    def __len__(self) -> int:
        return len(self._photos)

    @overload
    def __getitem__(self, index: int) -> NDArray[np.uint8]: ...

    @overload
    def __getitem__(self, index: slice) -> _Decoded: ...

    def __getitem__(self, index: int | slice) -> NDArray[np.uint8] | _Decoded:
        if isinstance(index, slice):
            return _Decoded(self._photos[index])
        return decode_photo(self._photos[index])

    def __iter__(self) -> Iterator[NDArray[np.uint8]]:
        # Not the mixin's loop, which holds each photo until the next is decoded.
        return (self[i] for i in range(len(self)))


def _in_photo(board: ScoredBoard, scale: NDArray[np.float64]) -> ScoredBoard:
    """``board`` read from a photo decoded reduced by ``scale`` (x, y), its corners in the photo's pixels."""
    return replace(board, reading=replace(board.reading, corners_xy=board.reading.corners_xy * scale))


def _answer(record: GameRecord) -> ScoreResult:
    """A stored result as its upload was answered."""
    return ScoreResult(game_id=record.id, boards=[dict(b.data) for b in record.boards])


def _kept(path: Path, gone: HTTPException) -> PhotoSource:
    """A kept photo, read when the reader takes it; ``gone`` is raised should it be pruned meanwhile."""

    def read() -> bytes:
        try:
            return path.read_bytes()
        except OSError:
            raise gone from None

    return read


def score_photo(
    score: ScoreFn,
    data: bytes,
    size: tuple[int, int],
    also: Sequence[bytes],
    game: str,
    hand: Mapping[str, Any],
    profile: str | None,
    corners: Points | None = None,
) -> list[ScoredBoard]:
    """Read the photo ``data``, ``size`` pixels as viewed, and the ``also`` photos of its one board."""
    width, height = size
    if corners is not None and not np.all((corners >= -1) & (corners <= [width, height])):
        raise ValueError(
            f"corners: each must lie in the photo ({width} x {height} pixels as it is viewed); drag them "
            "onto the board's corners"
        )
    image = decode_photo(data)
    # Corners go between the photo as viewed and the image decoded, where it is reduced.
    scale = np.array([width / image.shape[1], height / image.shape[0]])
    placed = None if corners is None else corners / scale
    boards = score(image, game, hand, profile, _Decoded(also), corners=placed)
    return [_in_photo(board, scale) for board in boards]


@dataclass(frozen=True)
class Keeper:
    """Reads photos and keeps their results: the app's services that takes, gathered for a request. Its
    reading methods block: a route runs them in a worker thread."""

    reader: Reader
    history: History
    results: ResultStore
    setup: SetupStore

    def read_and_keep(
        self,
        game: str,
        sources: Sequence[PhotoSource],
        hand: Mapping[str, Any],
        profile: str | None,
        sender: Sender,
        corners: Points | None = None,
        replaces: GameRecord | None = None,
        change: Change | None = None,
        named: Sequence[str] = (),
    ) -> ScoreResult:
        """Read the photos of ``sources`` (more of the first's one board after it) and keep the result, in
        place of ``replaces`` when given (its time and players kept); ``named``: the boards' players in the
        photo's reading order, as the phone says (the set-up's where it says none, or more or fewer). What a
        photo says of who took it, where and when (EXIF's GPS position, ...) is neither kept nor served:
        only its picture."""
        # One request at a time holds its photos' bytes, reads them and keeps them: the others wait with
        # theirs on disk.
        with self.reader.turn:
            return self._read_and_keep(game, sources, hand, profile, sender, corners, replaces, change, named)

    def _read_and_keep(
        self,
        game: str,
        sources: Sequence[PhotoSource],
        hand: Mapping[str, Any],
        profile: str | None,
        sender: Sender,
        corners: Points | None,
        replaces: GameRecord | None,
        change: Change | None,
        named: Sequence[str],
    ) -> ScoreResult:
        try:
            photos = [source() for source in sources]
            # Every photo's header first: a bad one is refused before any is read.
            size, *_ = [check_photo(photo) for photo in photos]
            first, *also = [without_personal_metadata(photo) for photo in photos]
            del photos  # as sent: only the pictures are kept
            boards = score_photo(self.reader.score, first, size, also, game, hand, profile, corners)
        except NoBoardError as exc:
            raise HTTPException(422, str(exc)) from None
        except ValueError as exc:  # ImageError, StateError, StoreError: each says what to do
            raise HTTPException(400, str(exc)) from None
        data = [b.to_json() for b in boards]
        players = list(named) if len(named) == len(boards) else self.setup.players_for(game, len(boards))
        if named and len(named) != len(boards):
            named_words = f"{counted(len(named), 'player')} {'was' if len(named) == 1 else 'were'}"
            left_off = NAMES_LEFT_OFF.format(named=named_words, found=counted(len(boards), "board"))
            data = [{**board, "flags": [*board["flags"], left_off]} for board in data]
        when, old = None, None
        if replaces is not None:
            names = [b.player for b in replaces.boards if b.player is not None]
            players = names if len(names) == len(boards) else None
            when, old = replaces.played_at, replaces.id
        try:
            game_id = self.history.record(
                game, data, UPLOAD, players, when=when, replaces=old, sender=sender, change=change
            )
        except AlreadyRecorded as exc:
            # A retry of this request, sent while it was read, stored the result: answered with it.
            self.history.replay(sender)
            return _answer(_record(self.history, exc.game_id))
        except GameNotFound:
            raise HTTPException(409, f"game {old} was changed or deleted meanwhile: reload") from None
        if old is not None:
            self.results.delete(old)
        try:
            self.results.save(game_id, first, boards, hand, profile, also)
        except OSError:
            log.exception("result %d: picture and photo not kept (the score is in the history)", game_id)
        return ScoreResult(game_id=game_id, boards=data)

    def replayed(self, sender: Sender) -> ScoreResult | None:
        """The answer to a retry of a request that stored a result (its Idempotency-Key), if this is one."""
        game_id = self.history.replay(sender)
        return None if game_id is None else _answer(_record(self.history, game_id))

    def kept_photos(self, game_id: int, then: str) -> tuple[list[Path], HTTPException]:
        """The photos a result was read from, and the 404 to raise should they be pruned meanwhile; raised
        now when none is kept. ``then``: what the player can do instead."""
        gone = HTTPException(
            404,
            f"the photos of game {game_id} are no longer kept ({NOT_KEPT}): {then}",
        )
        kept = self.results.photos(game_id)
        if not kept:
            raise gone
        return kept, gone

    def read_again(
        self,
        record: GameRecord,
        kept: Sequence[Path],
        gone: HTTPException,
        sender: Sender,
        change: Change,
        more: Sequence[PhotoSource] = (),
        corners: Points | None = None,
        entered: Mapping[str, Any] | None = None,
    ) -> ScoreResult:
        """The result's boards read again from its ``kept`` photos and ``more`` (``corners``: where the
        player placed its one board in the first), with its hand entry (or ``entered``) and profile; the
        reading replaces the result, ``change`` noted with it."""
        meta = self.results.meta(record.id)
        hand: dict[str, Any] = meta["hand"] if isinstance(meta.get("hand"), dict) else {}
        if entered is not None:
            hand = dict(entered)
        profile = meta["profile"] if isinstance(meta.get("profile"), str) else None
        sources = [*(_kept(path, gone) for path in kept), *more]
        return self.read_and_keep(record.game, sources, hand, profile, sender, corners, record, change)


async def _keeper(reader: ReaderDep, history: HistoryDep, results: ResultsDep, setup: SetupDep) -> Keeper:
    return Keeper(reader, history, results, setup)


KeeperDep = Annotated[Keeper, Depends(_keeper)]


def _sender(players: PlayerIds, request: Request, response: Response, key: str | None) -> Sender:
    """Who sent ``request``: its browser's player id (issued now, as a cookie with ``response``, to a
    browser that has none), its address and its Idempotency-Key."""
    address = request.client.host if request.client else "an unknown address"
    return Sender(players.give(request, response), address, key)


def refusal(history: History, players: PlayerIds, request: Request, game_id: int) -> str | None:
    """Why ``request`` may not change the result ``game_id``, or None: it may (the phone that sent its
    photo, or a paired device)."""
    if is_admin(request):
        return None
    uploaders = history.uploaders(game_id)
    if not uploaders:
        return NOT_A_PHONES
    mine = players.of(request)
    if mine is None or not any(secrets.compare_digest(mine, p) for p in uploaders):
        return NOT_YOURS
    return None


def changeable(history: History, players: PlayerIds, request: Request, game_id: int) -> GameRecord:
    """The stored result ``game_id``, once ``request`` may change it (404, 403 otherwise)."""
    record = _record(history, game_id)
    reason = refusal(history, players, request, game_id)
    if reason is not None:
        raise HTTPException(403, reason)
    return record


def more_photos(results: ResultStore, record: GameRecord) -> int:
    """How many more photos the result's board may be read again with (:func:`add_photos`): none for a
    result corrected by hand, of several boards, or whose photos are no longer kept."""
    if record.source == "corrected" or len(record.boards) != 1:
        return 0
    kept = len(results.photos(record.id))
    return MAX_ALSO + 1 - kept if kept else 0


def photo_view(results: ResultStore, game_id: int) -> dict[str, Any] | None:
    """The first photo's address and size as viewed, where it is kept (its board's corners are placed on
    it)."""
    path = results.photo(game_id)
    if path is None:
        return None
    try:
        size = viewed_size(path.read_bytes())
    except (OSError, ImageError):
        return None
    return {"url": f"/api/result/{game_id}/photo", "size_wh": list(size)}


def _kept_boards(record: GameRecord, correction: Correction) -> list[int]:
    """The indices of the result's boards the correction keeps (not left out as no board); 422 unless it
    gives one state (or null) per board and keeps one at least."""
    if len(correction.boards) != len(record.boards) or len(correction.checked) not in (0, len(record.boards)):
        raise HTTPException(
            422,
            f"the result has {len(record.boards)} board(s): send one state (and list of cells looked at) per "
            "board, in order, null for one that is no board",
        )
    kept = [i for i, state in enumerate(correction.boards) if state is not None]
    if not kept:
        raise HTTPException(422, "every board was left out as no board: delete the game instead")
    return kept


def rescored(
    results: ResultStore, record: GameRecord, correction: Correction
) -> tuple[list[dict[str, Any]], dict[str, Any], list[int]]:
    """The corrected boards scored by the rules (422 where they cannot be; those left out as no board
    dropped), the result's hand, and the indices of the boards kept."""
    kept = _kept_boards(record, correction)
    meta = results.meta(record.id)
    hand: dict[str, Any] = meta["hand"] if isinstance(meta.get("hand"), dict) else {}
    states = [state for state in correction.boards if state is not None]
    checked = [correction.checked[i] for i in kept] if correction.checked else []
    try:
        boards = [record.boards[i].data for i in kept]
        return rescore(record.game, boards, states, hand, checked), hand, kept
    except InvalidState as exc:
        problems = "; ".join(p.said for p in exc.problems)
        raise HTTPException(422, f"the corrected board breaks the rules: {problems}") from None
    except StateError as exc:
        raise HTTPException(422, str(exc)) from None


router = APIRouter(tags=["score"], route_class=Guarded)


@router.get("/", include_in_schema=False)
def home_page() -> HTMLResponse:
    return page_response("index.html")


@router.get("/result/{game_id}", include_in_schema=False)
def result_page(game_id: GameId) -> HTMLResponse:
    return page_response("result.html")


@router.post("/api/score", openapi_extra=_UPLOAD_BODY, responses=_UPLOAD_ERRORS)
async def upload(
    request: Request,
    response: Response,
    game: str,
    keeper: KeeperDep,
    setup: SetupDep,
    players: PlayersDep,
    state: StateDep,
    profile: str | None = None,
    idempotency_key: IdempotencyKey = None,
) -> ScoreResult:
    """Read and score every board of ``game`` in the photo (with the ``also`` photos of its one board,
    read together); ``profile`` names a stored board profile. The phone that sends it (its player
    cookie, set now if it has none) may change the result."""
    try:
        get_game(game)
        if profile is not None:
            check_name(profile)
    except (StateError, StoreError) as exc:
        raise HTTPException(400, str(exc)) from None
    if profile is not None and not profile_exists(state, profile):
        # In a phone's words: the store's own message names its folder and a command to run.
        known = ", ".join(list_profiles(state)) or "none yet"
        raise HTTPException(
            400,
            f"this scorer has no board profile named {profile!r} (it has: {known}): pick one on the home "
            "page, or make one on the calibration page",
        )
    sender = _sender(players, request, response, idempotency_key)
    if (done := await run_in_threadpool(keeper.replayed, sender)) is not None:
        return done
    async with _upload_form(request) as sent:
        corners = _corners_field(sent.corners) if sent.corners and sent.corners.strip() else None
        named = _players_field(sent.players) if sent.players and sent.players.strip() else []
        hand = (
            json_object_field(sent.hand, "hand", '{"track_score": 38}')
            if sent.hand and sent.hand.strip()
            else setup.hand_for(game)
        )
        try:
            # Refused before the photo is read and kept: a bad entry leaves no unscored result behind.
            check_hand(get_entry(game).hand_form, hand)
        except StateError as exc:
            raise HTTPException(400, str(exc)) from None
        # A place in the queue once the body is in: a slow sender keeps no other phone waiting.
        with keeper.reader.waiting.place():
            return await run_in_threadpool(
                keeper.read_and_keep, game, sent.sources(), hand, profile, sender, corners, named=named
            )


# What a result read again from its kept photos may answer (the also, corners and hand routes).
_READ_AGAIN_ERRORS: dict[int | str, dict[str, Any]] = {
    **_UPLOAD_ERRORS,
    403: NOT_YOURS_ANSWER,
    404: {"description": "no such game, or its photos are no longer kept"},
    409: {"description": "the result was corrected by hand, changed or deleted meanwhile"},
}


async def _to_read_again(
    history: History, players: PlayerIds, request: Request, game_id: int, instead: str
) -> GameRecord:
    """The result to read again from its kept photos, once ``request`` may change it (404, 403 otherwise):
    not one corrected by hand (409, saying what to do ``instead``)."""
    record = await run_in_threadpool(changeable, history, players, request, game_id)
    if record.source == "corrected":
        raise HTTPException(409, f"game {game_id} was corrected by hand: {instead}")
    return record


@router.post(
    "/api/result/{game_id}/also",
    openapi_extra=_MORE_BODY,
    responses=_READ_AGAIN_ERRORS,
)
async def add_photos(
    request: Request,
    response: Response,
    game_id: GameId,
    keeper: KeeperDep,
    history: HistoryDep,
    players: PlayersDep,
    idempotency_key: IdempotencyKey = None,
) -> ScoreResult:
    """Read the result's one board again from the photos it was read from and these more of it (from
    other sides, where its standing pieces hide less), all together; the new reading replaces the result
    (a new id, the same time)."""
    sender = _sender(players, request, response, idempotency_key)
    if (done := await run_in_threadpool(keeper.replayed, sender)) is not None:
        return done
    record = await _to_read_again(history, players, request, game_id, "reading it again would undo them")
    kept, gone = keeper.kept_photos(game_id, "score them anew with the more photos from the home page")
    if len(record.boards) != 1:
        raise HTTPException(400, f"game {game_id} has {len(record.boards)} boards: more photos show one")
    # Corrected and several-board results were refused above: only the photos kept limit the room.
    room = MAX_ALSO + 1 - len(kept)
    if room <= 0:
        full = f"game {game_id} was read from {len(kept)} photos, the most read together"
        raise HTTPException(400, full)
    async with _more_form(request, room) as also:
        with keeper.reader.waiting.place():
            change = Change(CHANGE_MORE, who(request))
            more = [_spooled(upload) for upload in also]
            return await run_in_threadpool(keeper.read_again, record, kept, gone, sender, change, more=more)


@router.get("/api/result/{game_id}", responses={404: NO_SUCH_GAME})
def result(
    request: Request, game_id: GameId, history: HistoryDep, results: ResultsDep, players: PlayersDep
) -> dict[str, Any]:
    """A result with what its page needs: per board the picture, its cells' boxes and the cell picker;
    the changes made to it, and whether the asking phone may change it."""
    record = _record(history, game_id)
    meta = results.meta(game_id)
    stored = meta.get("boards", [])
    boards = []
    for i, board in enumerate(record.boards):
        extra = stored[i] if i < len(stored) else {}
        state = board.data.get("state", {})
        picker = picker_for(record.game, state) if isinstance(state, Mapping) else None
        picture = results.picture(game_id, i) is not None
        boards.append(
            {
                **board.to_json(),
                "picture": f"/api/result/{game_id}/board/{i}.png" if picture else None,
                "cells": extra.get("cells", []),
                "read_state": extra.get("read_state"),
                "picker": picker.to_json() if picker else None,
            }
        )
    rules = GAMES.get(record.game)
    return {
        "id": record.id,
        "played_at": record.played_at.isoformat(),
        "game": record.game,
        "title": rules.title if rules else record.game,
        "source": record.source,
        "photo_kept": results.photo(game_id) is not None,
        "photo": photo_view(results, game_id),
        "more_photos": more_photos(results, record),
        # What was typed in with the photo: the page's form starts from it.
        "hand": meta["hand"] if isinstance(meta.get("hand"), dict) else {},
        "boards": boards,
        "changes": [c.to_json() for c in history.changes(game_id)],
        # Why the asking phone may not change the result; None: it may.
        "change_refused": refusal(history, players, request, game_id),
    }


@router.get(
    "/api/result/{game_id}/photo",
    response_class=FileResponse,
    responses={404: {"description": "no such game, or its photo is no longer kept"}},
)
def result_photo(game_id: GameId, results: ResultsDep) -> FileResponse:
    """The result's first photo as it was sent (viewers turn it by its EXIF orientation)."""
    path = results.photo(game_id)
    if path is None:
        raise HTTPException(404, f"no photo of game {game_id} is kept ({NOT_KEPT})")
    media = "image/png" if path.suffix == ".png" else "image/jpeg"
    return FileResponse(path, media_type=media)


@router.post(
    "/api/result/{game_id}/corners",
    responses=_READ_AGAIN_ERRORS,
)
async def place_corners(
    request: Request,
    response: Response,
    game_id: GameId,
    placed: Corners,
    keeper: KeeperDep,
    history: HistoryDep,
    players: PlayersDep,
    idempotency_key: IdempotencyKey = None,
) -> ScoreResult:
    """Read the result's board again where the player placed its corners on the first photo (with the
    result's other photos of it, as before); the new reading replaces the result (a new id, the same
    time)."""
    sender = _sender(players, request, response, idempotency_key)
    if (done := await run_in_threadpool(keeper.replayed, sender)) is not None:
        return done
    record = await _to_read_again(history, players, request, game_id, "reading it again would undo them")
    if len(record.boards) > 1:
        raise HTTPException(
            400,
            f"game {game_id} has {len(record.boards)} boards: corners place one; photograph each alone",
        )
    kept, gone = keeper.kept_photos(game_id, "send the photo again from the home page")
    corners = np.array(placed.corners_xy, dtype=np.float64)
    with keeper.reader.waiting.place():
        change = Change(CHANGE_CORNERS, who(request))
        return await run_in_threadpool(keeper.read_again, record, kept, gone, sender, change, corners=corners)


@router.post(
    "/api/result/{game_id}/hand",
    responses=_READ_AGAIN_ERRORS,
)
async def enter_hand(
    request: Request,
    response: Response,
    game_id: GameId,
    entry: HandEntry,
    keeper: KeeperDep,
    history: HistoryDep,
    players: PlayersDep,
    idempotency_key: IdempotencyKey = None,
) -> ScoreResult:
    """Read the result again with what the photo cannot show typed in (a board left unscored for want of
    it); the new reading replaces the result (a new id, the same time)."""
    sender = _sender(players, request, response, idempotency_key)
    if (done := await run_in_threadpool(keeper.replayed, sender)) is not None:
        return done
    record = await _to_read_again(
        history, players, request, game_id, "edit its state, which holds these fields, instead"
    )
    try:
        check_hand(get_entry(record.game).hand_form, entry.hand)
    except StateError as exc:
        raise HTTPException(400, str(exc)) from None
    kept, gone = keeper.kept_photos(game_id, "send the photo again from the home page with these")
    with keeper.reader.waiting.place():
        change = Change(CHANGE_HAND, who(request))
        return await run_in_threadpool(
            keeper.read_again, record, kept, gone, sender, change, entered=entry.hand
        )


@router.get(
    "/api/result/{game_id}/board/{index}.png",
    response_class=FileResponse,
    responses={404: {"description": "no such game, or no picture kept of that board"}},
)
def board_picture(
    game_id: GameId, index: Annotated[int, PathParam(ge=0, le=63)], results: ResultsDep
) -> FileResponse:
    """The rectified board with each cell outlined; doubtful cells in orange."""
    path = results.picture(game_id, index)
    if path is None:
        raise HTTPException(404, f"no picture of board {index} of game {game_id} is kept ({NOT_KEPT})")
    return FileResponse(path, media_type="image/png")


@router.get(
    "/api/result/{game_id}/board/{index}/alike/{cell}",
    responses={404: {"description": "no such game, or its cells' looks are no longer kept"}},
)
def alike_cells(
    game_id: GameId,
    index: Annotated[int, PathParam(ge=0, le=63)],
    cell: Annotated[int, PathParam(ge=0)],
    results: ResultsDep,
) -> AlikeCells:
    """The cells that look like cell ``cell`` (its place in the board's ``cells``) of board ``index``, the
    most alike first, on any board of the result: a cell of a copy's own art misread is misread so wherever
    it lies, and the page offers to set them right with it."""
    found = results.alike(game_id, index, cell)
    if found is None:
        raise HTTPException(404, f"game {game_id} keeps no looks of board {index}'s cell {cell} ({NOT_KEPT})")
    return AlikeCells(cells=[AlikeCell(board=b, cell=k) for b, k in found])


@router.post(
    "/api/result/{game_id}/preview",
    responses={
        403: NOT_YOURS_ANSWER,
        404: NO_SUCH_GAME,
        422: {"description": "not scorable states"},
    },
)
def preview(
    request: Request,
    game_id: GameId,
    correction: Correction,
    history: HistoryDep,
    results: ResultsDep,
    players: PlayersDep,
) -> Previewed:
    """The corrected states scored by the rules, nothing kept: the result page moves the score as each
    cell is changed (the rules take a millisecond), and keeps it only when the player saves."""
    boards, _, _ = rescored(results, changeable(history, players, request, game_id), correction)
    return Previewed(boards=boards)


@router.post(
    "/api/result/{game_id}/correct",
    responses={
        400: {"description": "a correction that names no board or cell of the game"},
        403: NOT_YOURS_ANSWER,
        404: NO_SUCH_GAME,
        409: {"description": "the game was corrected or deleted meanwhile"},
        422: {"description": "not scorable states"},
    },
)
def correct(
    request: Request,
    game_id: GameId,
    correction: Correction,
    state: StateDep,
    history: HistoryDep,
    results: ResultsDep,
    players: PlayersDep,
    inbox: InboxDep,
    reteacher: ReteacherDep,
) -> Corrected:
    """Score the corrected states and record them in place of the result (a new id, the same time)."""
    record = changeable(history, players, request, game_id)
    boards, hand, kept = rescored(results, record, correction)
    meta = results.meta(game_id)
    profile = meta["profile"] if isinstance(meta.get("profile"), str) else None
    states = [board["state"] for board in boards]
    truths = [enrolment_state(record.game, states, i, hand) for i in range(len(boards))]
    # The profile the photo will teach, if any: a state not of its board is refused before it is kept.
    taught = profile if correction.consent and profile and profile_exists(state, profile) else None
    try:
        if taught is not None:
            check_teaches(state, taught, truths)
    except (ValueError, StoreError, StateError) as exc:
        raise HTTPException(422, str(exc)) from None
    names = [name for i in kept if (name := record.boards[i].player) is not None]
    named = names if len(names) == len(kept) else None
    try:
        new_id = history.record(
            record.game,
            boards,
            "corrected",
            named,
            when=record.played_at,
            replaces=game_id,
            change=Change(CHANGE_CORRECTED, who(request)),
        )
    except GameNotFound:
        raise HTTPException(409, f"game {game_id} was corrected or deleted meanwhile: reload") from None
    results.move(game_id, new_id)
    results.keep_boards(new_id, kept)
    photo = results.photo(new_id) if correction.consent else None
    reteaching = None
    if photo is not None and taught is not None and is_admin(request):
        # The owner's own correction of a result read with a profile: it learns from the photo now, in the
        # background. Anyone else's waits in the inbox for the owner (device.inbox).
        recorded = history.get(new_id).boards
        for i, truth in enumerate(truths):
            teaching.add(state, taught, photo, truth, recorded[i].data.get("corners_xy"))
        reteacher.schedule(taught)
        reteaching = taught
    elif photo is not None:
        inbox.save(photo, record.played_at, new_id, truths, profile)
    return Corrected(
        game_id=new_id,
        boards=boards,
        enrolment_saved=photo is not None,
        reteaching=reteaching,
        awaiting_owner=photo is not None and reteaching is None,
    )
