"""The calibration page's API: the camera, board profiles, enrolment from the inbox, and the seats.

Each step runs the library code of its command (``garden-scorer calibrate camera``, ``profile create``,
``enroll``, ``seats``), so the page makes what the command would. Every step that changes the state folder
is an admin action (see security.py). The steps take seconds and, on a Pi, much of its memory: they run in
worker threads, one at a time.

A board profile takes two requests: ``profile/locate`` keeps the photo by a random token (uploads.py) and
answers where the board was found; ``profile`` makes the profile from that photo with the corners the user may
have dragged.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import cv2
import numpy as np
from fastapi import APIRouter, File, Form, HTTPException, UploadFile
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, HTMLResponse, Response
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from calibration.camera import PATTERN_SIDES, Calibration, calibrate, load, save
from calibration.enroll import unchanged_note
from calibration.profiles import (
    GridPlace,
    game_boards,
    grid_place,
    new_profile,
    profile_exists,
    with_geometry,
)
from calibration.seats import TableSetup, seats_from_photo
from calibration.seats import load as load_seats
from calibration.seats import save as save_seats
from calibration.sheets import sheet
from calibration.statedir import StateDir
from device.history import GameNotFound, History
from device.inbox import ITEM, InboxItem
from device.learn import (
    SeveralBoards,
    UnsureTurn,
    board_turns,
    check_enrolment_state,
    enrolment_profile,
    find_board,
    fits_size,
    found_for_size,
    make_profile,
    read_one_board,
    teach_profile,
)
from device.photo import check_photo, decode_photo, load_segmenter, parse_pair, state_camera
from device.statefile import load_state_json
from device.web.auth import ADMIN_ONLY, NEEDS_PAIRING
from device.web.bodies import TAKES_PHOTOS, Guarded
from device.web.security import json_object_field, page_response
from device.web.services import (
    HistoryDep,
    InboxDep,
    MaxUploadBytesDep,
    ReteacherDep,
    StateDep,
    UploadsDep,
)
from device.web.setup import picture_url
from device.web.uploads import TOKEN, UploadStore
from scoring.core import StateError
from scoring.registry import get_game
from vision.camera_model import CameraModel
from vision.debug import draw_turn
from vision.geometry import Points
from vision.pipeline import NoBoardError
from vision.profile import BoardProfile

log = logging.getLogger(__name__)

CAMERA_PHOTOS = (5, 30)

Token = Annotated[str, PathParam(pattern=TOKEN, description="the token an upload answered with")]
Point = tuple[Annotated[float, Field(allow_inf_nan=False)], Annotated[float, Field(allow_inf_nan=False)]]


def _jpeg(image: NDArray[np.uint8]) -> bytes:
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise OSError("could not encode a picture for the page")
    return bytes(jpeg.tobytes())


class CameraInfo(BaseModel):
    rms: float = Field(description="RMS reprojection error over the photos used, in pixels (under 1 is good)")
    model: str = Field(description="the distortion model kept: standard (5 terms) or rational (8)")
    size_wh: tuple[int, int] = Field(description="the photos' size, which the calibration is for")
    fx: float
    fy: float
    cx: float
    cy: float
    dist: list[float] = Field(description="the lens distortion coefficients")
    per_photo: dict[str, float] = Field(description="RMS error per photo used, in pixels")
    rejected: dict[str, str] = Field(description="photos not used, with the reason")

    @classmethod
    def of(cls, cal: Calibration) -> CameraInfo:
        return cls(
            rms=cal.rms,
            model=cal.model,
            size_wh=cal.size_wh,
            **cal.intrinsics(),
            dist=cal.dist.ravel().tolist(),
            per_photo=cal.per_photo,
            rejected=cal.rejected,
        )


class SeatInfo(BaseModel):
    name: str
    player: str | None
    polygon: list[tuple[float, float]] = Field(description="corners as shares of the photo's width, height")


class TableInfo(BaseModel):
    game: str
    seats: list[SeatInfo]

    @classmethod
    def of(cls, setup: TableSetup) -> TableInfo:
        return cls.model_validate({"game": setup.game, "seats": setup.to_json()["seats"]})


class Status(BaseModel):
    camera: CameraInfo | None = Field(description="the camera calibration in use; null: none yet")
    seats: TableInfo | None = Field(description="the seats in use; null: none yet")
    max_upload_bytes: int = Field(description="the largest request accepted, all its photos together")


class Located(BaseModel):
    token: str = Field(description="names the kept photo for POST /api/calibrate/profile")
    picture: str = Field(description="the photo as the page should show it")
    size_wh: tuple[int, int] = Field(description="the photo's size; corners are in its pixels")
    corners_xy: list[tuple[float, float]] | None = Field(
        description="the board's corners TL, TR, BR, BL in photo pixels; null: not found, place them by hand"
    )
    message: str | None = Field(description="why no board was found")
    flags: list[str] = Field(description="what to check about the board found")


# X, Y, a cell's side, the step to the next cell and down to the next row (the last two default to the one
# before), as `--grid-mm` takes them.
GridMm = Annotated[list[Annotated[float, Field(ge=0, le=5000)]], Field(min_length=3, max_length=5)]


class PlacedBoard(BaseModel):
    """A located photo's board, where its owner placed it, and the board's own geometry where it is not the
    game's."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(pattern=TOKEN, description="from POST /api/calibrate/profile/locate")
    game: str
    name: str | None = Field(default=None, description="the profile's name; default: the game's")
    setup: dict[str, Any] = Field(default_factory=dict, description="game set-up fields (`--set` of the CLI)")
    corners_xy: list[Point] = Field(
        min_length=4, max_length=4, description="the board's corners TL, TR, BR, BL in photo pixels"
    )
    size_mm: tuple[Annotated[float, Field(gt=0, le=5000)], Annotated[float, Field(gt=0, le=5000)]] | None = (
        Field(default=None, description="the real board's width and height (mm); default: the game's board's")
    )
    grid_xy: list[Point] | None = Field(
        default=None,
        min_length=4,
        max_length=4,
        description="the outer corners TL, TR, BR, BL of the board's grid (the region `grid_region`) in "
        "photo pixels, where it lies elsewhere than on the game's board",
    )
    grid_region: str = Field(default="grid", description="which grid `grid_xy` places")
    grids_mm: dict[str, GridMm] | None = Field(
        default=None,
        description="each named grid's place measured on the board, as `--grid-mm` takes it: mm from the "
        "board's top-left corner to the first cell's, a cell's side, the step to the next cell and to the "
        "next row (each step defaults to the value before it); grids not given keep their place beside the "
        "first one given",
    )


class ProfileRequest(PlacedBoard):
    replace: bool = Field(default=False, description="replace a profile of that name")
    turn: int | None = Field(
        default=None,
        ge=1,
        le=4,
        description="which of the corners is the board's top left, as POST /api/calibrate/profile/turns "
        "numbers its pictures; null: the first, as given",
    )


class TurnInfo(BaseModel):
    picture: str = Field(description="the board read at this turn, its grids' cells outlined")
    chance: float = Field(description="how likely this turn is the upright one, 0-1")


class TurnsInfo(BaseModel):
    turns: list[TurnInfo] = Field(description="the four turns: turn K takes corner K as the top left")
    best: int = Field(description="the likeliest turn, 1-4")
    sure: bool = Field(description="whether it may be taken without asking the owner")
    corners_xy: list[tuple[float, float]] | None = Field(
        default=None,
        description="where the board was found again for the size typed, its corners in the photo as viewed "
        "(the turns are of these: the page's handles move there); null: read at the corners given",
    )
    outline_off: str | None = Field(
        default=None,
        description="why no turn is taken: the corners outline another shape than the board's size typed",
    )


class ProfileMade(BaseModel):
    name: str
    game: str
    setup: dict[str, Any]
    picture: str | None = Field(description="the rectified board")
    colour_bgr: list[float] | None = Field(description="the board's background colour; null: not measured")
    flags: list[str]


class InboxEntry(BaseModel):
    id: str
    game: str | None = Field(description="the state's game; null: the state file cannot be read")
    profile: str | None = Field(description="the profile the photo was read with")
    played_at: str
    game_id: int = Field(description="the result it came from; its page is /result/GAME_ID")
    board: int = Field(description="the board's number in the result, from 1")


class DroppedNote(BaseModel):
    photo: str
    game_id: int | None
    dropped_at: str
    why: str


class InboxInfo(BaseModel):
    items: list[InboxEntry] = Field(description="oldest first")
    photos: int
    bytes: int
    max_photos: int
    max_bytes: int
    dropped: list[DroppedNote] = Field(description="photos dropped to make room, newest last")


ItemId = Annotated[str, StringConstraints(pattern=f"^{ITEM}$")]


class EnrolRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: str = Field(description="the profile to enrol; made from `game` when it does not exist")
    game: str | None = None
    items: list[ItemId] = Field(min_length=1, max_length=64, description="inbox items' ids")
    stickers: bool = Field(default=False, description="the boards wear ArUco corner stickers")


class Enrolled(BaseModel):
    profile: str
    game: str
    photos: int
    cells: int = Field(description="the cells learnt from")
    seconds: float
    moved: list[str] = Field(description="the items taken out of the inbox (the profile keeps the photos)")
    unchanged: str | None = Field(
        description="the heads left to the model's own reading, and why (None when every head was taught)"
    )


class SeatsMade(TableInfo):
    boards: list[list[tuple[float, float]]] = Field(description="each seat's board, corners in photo pixels")
    size_wh: tuple[int, int]
    picture: str = Field(description="the photo as the page should show it")


def _bad(status: int, exc: Exception) -> HTTPException:
    return HTTPException(status, str(exc))


@dataclass(frozen=True)
class _Photo:
    """An uploaded photo: its bytes, decoded reduced where larger than the reader needs (a 64-megapixel one
    whole would take 200 MB), and how many of its pixels, as viewed, one of the image's is."""

    data: bytes
    image: NDArray[np.uint8]
    scale: float

    @property
    def size_wh(self) -> tuple[int, int]:
        """The photo's size as viewed: what the page places corners in."""
        h, w = self.image.shape[:2]
        return round(w * self.scale), round(h * self.scale)


def _decoded(data: bytes) -> _Photo:
    try:
        width, _ = check_photo(data)
        image = decode_photo(data)
    except ValueError as exc:
        raise _bad(400, exc) from None
    return _Photo(data, image, width / image.shape[1])


def _decode(upload: UploadFile) -> _Photo:
    return _decoded(upload.file.read())


def _profile(game: str, name: str | None, setup: dict[str, Any]) -> BoardProfile:
    try:
        get_game(game)
        return new_profile(name or game, game, setup)
    except ValueError as exc:  # StateError, StoreError (a bad name)
        raise _bad(400, exc) from None


def _upload_name(index: int, filename: str | None) -> str:
    # The number keeps names unique (phones often name every photo image.jpg); the rest is for the user.
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(filename or "photo").name)[-60:]
    return f"{index:02d}-{readable}"


def _points(points: NDArray[np.float64]) -> list[tuple[float, float]]:
    return [(round(float(x), 2), round(float(y), 2)) for x, y in points]


def _table_camera(state: StateDir) -> CameraModel | None:
    try:
        return state_camera(state)
    except StateError as exc:
        raise HTTPException(409, f"{exc}; calibrate the camera again") from None


def _camera(state: StateDir, image: NDArray[np.uint8]) -> CameraModel | None:
    """The table camera's calibration, where ``image`` is of its size: a photo of another size was taken by
    another camera (a phone), or decoded reduced, and is read without (as uploads are, device.serve)."""
    camera = _table_camera(state)
    if camera is not None and tuple(camera.size_wh) != (image.shape[1], image.shape[0]):
        return None
    return camera


_ADMIN_ERRORS: dict[int | str, dict[str, Any]] = {
    403: NEEDS_PAIRING,
    413: {"description": "the request body is over the upload limit"},
}


def recorded_corners(history: History, item: InboxItem) -> NDArray[np.float64] | None:
    # The player corrected the picture rectified from these corners, so the state is true for the board as
    # they frame it; they also single the board out of a photo of several.
    try:
        boards = history.get(item.game_id).boards
    except GameNotFound:
        return None
    corners = boards[item.board].data.get("corners_xy") if item.board < len(boards) else None
    return None if corners is None else np.array(corners, np.float64)


DRAGGED_GRID = (
    "A grid dragged is measured from the board's handle 1 as its top-left corner: if handle 1 is not on the "
    "board's own top-left corner (as its printing reads), move the board's handles round first, or type "
    "where the grid lies in millimetres instead"
)


def placed(
    state: StateDir, uploads: UploadStore, request: PlacedBoard
) -> tuple[BoardProfile, _Photo, Points, CameraModel | None]:
    """The profile ``request`` makes (its board's geometry as the owner gave it), the photo it was placed
    on, the board's corners in the decoded image and the camera to read them through; call it holding the
    reteacher's lock, as it decodes the photo."""
    profile = _profile(request.game, request.name, request.setup)
    kept = uploads.photo(request.token)
    if kept is None:
        raise HTTPException(404, "the photo is no longer kept (only the newest are): upload it again")
    photo = _decoded(kept.read_bytes())
    # The page places corners on the photo as viewed; they are read on the image decoded.
    corners = np.array(request.corners_xy, np.float64) / photo.scale
    camera = _camera(state, photo.image)
    try:
        places: dict[str | None, GridPlace] = {
            name: GridPlace.typed(place) for name, place in (request.grids_mm or {}).items()
        }
        if request.grid_xy is not None:
            size = request.size_mm or profile.size_mm
            grid, region = np.array(request.grid_xy, np.float64) / photo.scale, request.grid_region
            places[region] = grid_place(profile, size, corners, grid, region, camera)
        if request.size_mm is not None or places:
            profile = with_geometry(profile, request.size_mm, places)
    except (StateError, KeyError, ValueError) as exc:
        if request.grid_xy is None:
            raise _bad(400, exc) from None
        # A grid dragged is measured from handle 1 as the board's top-left corner: an independent try's
        # handle 1 sat on the photo's top left, the board lying the other way up, and its grid "did not fit".
        raise HTTPException(400, f"{exc}. {DRAGGED_GRID}") from None
    return profile, photo, corners, camera


# A set-up photo's board takes 7-22 % of it (drawn copies 1-10 of each game); an independent try's handles
# all sat on one chess square (0.4 %) under "Found the board".
SMALL_BOARD = 0.03
SMALL_OUTLINE = (
    "the outline found is very small in the photo: if the handles are not on your board's own corners, drag "
    "them there, or photograph the board alone from closer"
)
# The turns' step where the corners outline another shape than the board's size typed.
OUTLINE_OFF = (
    "the handles do not outline a board of {} x {} mm: drag each onto your board's own corner (its plain "
    "margin included, not the table), or check the size typed, and tap Next again"
)

router = APIRouter(tags=["calibrate"], route_class=Guarded)


@router.get("/calibrate", include_in_schema=False)
def calibrate_page() -> HTMLResponse:
    return page_response("calibrate.html")


@router.get(
    "/api/calibrate/sheet/{kind}.pdf",
    response_class=Response,
    responses={
        200: {"content": {"application/pdf": {}}, "description": "the sheet, to print at 100 %"},
        400: {"description": "an unknown sheet or paper"},
    },
)
def printable_sheet(kind: str, paper: str = "A4") -> Response:
    """A printable sheet as a PDF: ``charuco`` (the camera calibration board) or ``stickers`` (corner
    stickers for the boards), for ``paper`` A4, A3 or letter. Its caption (in the header
    ``X-Sheet-Caption``) gives the pattern's size and square side to calibrate with."""
    try:
        data, caption = sheet(kind, paper)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    return Response(
        data,
        media_type="application/pdf",
        headers={
            "Content-Disposition": f'attachment; filename="garden-scorer-{kind}-{paper}.pdf"',
            "X-Sheet-Caption": caption,
            "Cache-Control": "no-cache",
        },
    )


@router.get("/api/calibrate")
def status(state: StateDep, max_upload_bytes: MaxUploadBytesDep) -> Status:
    """What is calibrated so far (the board profiles: ``GET /api/profiles``)."""
    camera = seats = None
    try:
        camera = CameraInfo.of(load(state.camera)) if state.camera.is_file() else None
    except ValueError as exc:
        log.warning("camera calibration not shown: %s", exc)
    try:
        seats = TableInfo.of(load_seats(state.table)) if state.table.is_file() else None
    except ValueError as exc:
        log.warning("seats not shown: %s", exc)
    return Status(camera=camera, seats=seats, max_upload_bytes=max_upload_bytes)


@router.post(
    "/api/calibrate/camera",
    dependencies=[ADMIN_ONLY],
    openapi_extra=TAKES_PHOTOS,
    responses={
        **_ADMIN_ERRORS,
        400: {"description": "too few or too many photos, or a bad pattern size"},
        422: {"description": "the pattern was found in too few photos"},
    },
)
def camera(
    photos: Annotated[list[UploadFile], File(description="5 to 30 photos of the pattern, many angles")],
    pattern: Annotated[Literal["charuco", "chessboard"], Form()],
    size: Annotated[str, Form(description="COLSxROWS: squares (ChArUco) or inner corners (chessboard)")],
    square_mm: Annotated[float, Form(gt=0, le=1000, description="a square's side in millimetres")],
    state: StateDep,
    uploads: UploadsDep,
    reteacher: ReteacherDep,
) -> CameraInfo:
    """Calibrate the camera from photos of a printed pattern (``garden-scorer print-sheet charuco``) and
    use it from now on; as ``garden-scorer calibrate camera``."""
    low, high = CAMERA_PHOTOS
    if not low <= len(photos) <= high:
        raise HTTPException(400, f"send {low} to {high} photos of the pattern, not {len(photos)}")
    try:
        cols_rows = parse_pair(size, *PATTERN_SIDES, "COLSxROWS, e.g. 7x5")
    except ValueError as exc:
        raise _bad(400, exc) from None
    uploads.root.mkdir(parents=True, exist_ok=True)
    with reteacher.lock, tempfile.TemporaryDirectory(prefix=".camera-", dir=uploads.root) as folder:
        paths = []
        for i, photo in enumerate(photos, start=1):
            path = Path(folder) / _upload_name(i, photo.filename)
            with path.open("wb") as out:
                shutil.copyfileobj(photo.file, out)
            paths.append(path)
        try:
            cal = calibrate(paths, pattern, cols_rows, square_mm)
        except ValueError as exc:
            raise _bad(422, exc) from None
    save(cal, state.camera)
    return CameraInfo.of(cal)


@router.post(
    "/api/calibrate/profile/locate",
    dependencies=[ADMIN_ONLY],
    openapi_extra=TAKES_PHOTOS,
    responses={
        **_ADMIN_ERRORS,
        400: {"description": "unknown game, bad name or set-up, not a usable JPEG or PNG"},
        422: {"description": "several boards in the photo"},
    },
)
def locate_board(
    file: Annotated[UploadFile, File(description="a photo of the board alone, from above")],
    game: Annotated[str, Form()],
    state: StateDep,
    uploads: UploadsDep,
    reteacher: ReteacherDep,
    name: Annotated[str | None, Form(description="the profile's name; default: the game's")] = None,
    setup: Annotated[str | None, Form(description="JSON object of game set-up fields")] = None,
    stickers: Annotated[bool, Form(description="the board wears ArUco corner stickers")] = False,
) -> Located:
    """Find the board in a photo, as ``garden-scorer profile create`` does, and keep the photo for
    ``POST /api/calibrate/profile``; a board not found is placed by hand."""
    profile = _profile(
        game,
        name,
        json_object_field(setup, "setup", '{"chess_columns": [4, 5]}') if setup and setup.strip() else {},
    )
    corners, message, flags = None, None, []
    # The photo is decoded in its turn too: requests waiting for it hold their photo on disk, not decoded.
    with reteacher.lock:
        photo = _decode(file)
        camera = _camera(state, photo.image)
        try:
            # Only where it lies: which way up is the owner's next step (POST .../profile/turns).
            quad, _ = find_board(photo.image, profile, camera, stickers)
        except NoBoardError as exc:
            message = str(exc)
        except SeveralBoards as exc:
            # Something beside the board taken for another: the handles start on the largest, to check.
            corners = _points(exc.quads[0].corners_xy * photo.scale)
            flags = [
                f"{len(exc.quads)} boards found (something beside the board may look like one): the handles "
                "sit on the largest; drag them onto your board's corners if they are not, or photograph the "
                "board alone"
            ]
        except ValueError as exc:
            raise _bad(422, exc) from None
        else:
            corners = _points(quad.corners_xy * photo.scale)
            flags = [quad.doubt] if quad.doubt else []
            h, w = photo.image.shape[:2]
            if cv2.contourArea(quad.corners_xy.astype(np.float32)) < SMALL_BOARD * w * h:
                flags.append(SMALL_OUTLINE)
            if not quad.in_frame:
                flags.append(
                    "the board is partly out of the photo: take it again with the whole board in view"
                )
    token = uploads.add(photo.data, photo.image)
    return Located(
        token=token,
        picture=f"/api/calibrate/uploads/{token}.jpg",
        size_wh=photo.size_wh,
        corners_xy=corners,
        message=message,
        flags=flags,
    )


@router.get(
    "/api/calibrate/uploads/{token}.jpg",
    response_class=FileResponse,
    responses={404: {"description": "no such upload (only the newest are kept)"}},
)
def uploaded(token: Token, uploads: UploadsDep) -> FileResponse:
    """A kept photo as the page shows it: upright as its pixels lie, at most 1600 pixels across."""
    path = uploads.preview(token)
    if path is None:
        raise HTTPException(404, "no such upload: only the newest photos are kept; upload it again")
    return FileResponse(path, media_type="image/jpeg")


@router.post(
    "/api/calibrate/profile/turns",
    dependencies=[ADMIN_ONLY],
    responses={
        **_ADMIN_ERRORS,
        400: {"description": "unknown game, bad name, set-up or geometry"},
        404: {"description": "the uploaded photo is no longer kept"},
    },
)
def turns(request: PlacedBoard, state: StateDep, uploads: UploadsDep, reteacher: ReteacherDep) -> TurnsInfo:
    """The board read at each of its four turns, with each one's chance of being upright, weighed from
    where its grids lie, how its cells read and the game's layout (vision.read.upright): the owner
    confirms the likeliest, or, where it is not sure, taps the upright one. Where the corners given outline
    the game's board's shape, not the size typed, the board is found again for that size first."""
    with reteacher.lock:
        profile, photo, corners, camera = placed(state, uploads, request)
        # Found before the size was typed, the outline may be of the game's board's shape: found again. Not
        # where a grid was dragged, as it was placed against the corners given.
        standard = _profile(request.game, request.name, request.setup)
        found = None
        if request.grid_xy is None:
            found = found_for_size(photo.image, standard, profile, corners, camera)
        if found is not None:
            corners = found
        # A turn weighed on an outline of the wrong part of the board is surely wrong (an independent try's
        # was taken upside down): not taken where the corners are not of the size typed.
        off = None
        if request.size_mm is not None and not fits_size(photo.image, profile, corners, camera):
            off = OUTLINE_OFF.format(*(f"{v:g}" for v in profile.size_mm))
        try:
            weighed = board_turns(photo.image, profile, corners, camera)
        except ValueError as exc:
            raise _bad(422, exc) from None
        pictures = [_jpeg(draw_turn(photo.image, c, profile, camera)) for c in weighed.corners]
    urls = uploads.add_turns(request.token, pictures)
    return TurnsInfo(
        turns=[
            TurnInfo(picture=url, chance=round(c, 4)) for url, c in zip(urls, weighed.chances, strict=True)
        ],
        best=weighed.best + 1,
        sure=weighed.sure and off is None,
        outline_off=off,
        corners_xy=None if found is None else _points(found * photo.scale),
    )


@router.get(
    "/api/calibrate/uploads/{token}/turn-{turn}.jpg",
    response_class=FileResponse,
    responses={404: {"description": "no such picture (only the newest uploads' are kept)"}},
)
def turn_picture(
    token: Token, turn: Annotated[int, PathParam(ge=1, le=4)], uploads: UploadsDep
) -> FileResponse:
    """The board read at one of its turns (POST /api/calibrate/profile/turns)."""
    path = uploads.turn(token, turn)
    if path is None:
        raise HTTPException(404, "no such picture: only the newest photos' are kept; place the board again")
    return FileResponse(path, media_type="image/jpeg")


@router.post(
    "/api/calibrate/profile",
    dependencies=[ADMIN_ONLY],
    responses={
        **_ADMIN_ERRORS,
        400: {"description": "unknown game, bad name or set-up"},
        404: {"description": "the uploaded photo is no longer kept"},
        409: {"description": "a profile of that name exists and replace is false"},
        422: {
            "description": "the corners enclose no board or lie outside the photo, or which way up "
            "it lies is not sure (choose its turn)"
        },
    },
)
def make(
    request: ProfileRequest, state: StateDep, uploads: UploadsDep, reteacher: ReteacherDep
) -> ProfileMade:
    """Make a board profile from a located photo and its corners (profile.json, colour.json, board.png),
    as ``garden-scorer profile create NAME PHOTO --corners ...``; ``turn`` says which corner is the top
    left (the owner's choice among the turns' pictures)."""
    name = _profile(request.game, request.name, request.setup).name
    if profile_exists(state, name) and not request.replace:
        raise HTTPException(409, f"profile {name!r} exists: tick replace, or choose another name")
    with reteacher.lock:
        profile, photo, corners, camera = placed(state, uploads, request)
        try:
            reading = read_one_board(photo.image, profile, camera, corners, turn=request.turn)
            if request.replace:
                # Replaced whole: what the old profile learnt and kept was of another board, or turn.
                shutil.rmtree(state.profile(profile.name), ignore_errors=True)
            colour = make_profile(state, profile, reading)
        except UnsureTurn as exc:
            # In the page's words: its turn pictures, not the command line's options.
            raise HTTPException(
                422,
                f"the board looks upright with corner {exc.turns.best + 1} at its top left, not "
                "corner 1: choose which way up it lies (Next: which way up) before saving",
            ) from None
        except ValueError as exc:
            raise _bad(422, exc) from None
    uploads.drop(request.token)
    return ProfileMade(
        name=profile.name,
        game=profile.game,
        setup=dict(profile.setup),
        picture=picture_url(state, profile.name),
        colour_bgr=[round(float(v), 1) for v in colour.median_bgr] if colour else None,
        # What the photo says of the board (out of view, its edges unclear); not its cells' reading, which
        # an untaught copy's board cannot help, and the owner has nothing to do about.
        flags=list(reading.photo_flags),
    )


@router.get("/api/calibrate/inbox")
def inbox_list(inbox: InboxDep) -> InboxInfo:
    """Corrected results kept for enrolment (the result page's consent box), oldest first, and how full
    the inbox is."""
    out = []
    for item in inbox.items():
        try:
            data = load_state_json(item.state)
            game = data.get("game") if isinstance(data, dict) else None
        except StateError:
            game = None
        out.append(
            InboxEntry(
                id=item.id,
                game=game if isinstance(game, str) else None,
                profile=item.profile,
                played_at=item.played_at.isoformat(),
                game_id=item.game_id,
                board=item.board + 1,
            )
        )
    photos, size = inbox.size()
    return InboxInfo(
        items=out,
        photos=photos,
        bytes=size,
        max_photos=inbox.max_photos,
        max_bytes=inbox.max_bytes,
        dropped=[DroppedNote.model_validate(note) for note in inbox.dropped()],
    )


@router.delete(
    "/api/calibrate/inbox/{item_id}",
    status_code=204,
    dependencies=[ADMIN_ONLY],
    responses={403: NEEDS_PAIRING, 404: {"description": "not in the inbox"}},
)
def discard(item_id: Annotated[str, PathParam(pattern=f"^{ITEM}$")], inbox: InboxDep) -> None:
    """Discard an item of the inbox: no profile learns from it."""
    found = [item for item in inbox.items() if item.id == item_id]
    if not found:
        raise HTTPException(404, "not in the enrolment inbox (taught from or discarded already?)")
    inbox.remove(found)


@router.post(
    "/api/calibrate/enrol",
    dependencies=[ADMIN_ONLY],
    responses={
        **_ADMIN_ERRORS,
        400: {"description": "bad profile or game, or a state that is not of the profile's game"},
        404: {"description": "an item is not in the inbox"},
        422: {"description": "a photo's board could not be read"},
    },
)
def enrol(
    request: EnrolRequest, state: StateDep, history: HistoryDep, inbox: InboxDep, reteacher: ReteacherDep
) -> Enrolled:
    """Teach a profile the real tile art from inbox items, as ``garden-scorer enroll``; the items leave
    the inbox (the profile keeps their photos)."""
    try:
        profile = enrolment_profile(state, request.profile, request.game)
    except ValueError as exc:
        raise _bad(400, exc) from None
    known = {item.id: item for item in inbox.items()}
    missing = [i for i in request.items if i not in known]
    if missing:
        raise HTTPException(404, f"not in the enrolment inbox (enrolled already?): {', '.join(missing)}")
    chosen = [known[i] for i in dict.fromkeys(request.items)]
    camera = _table_camera(state)
    new = []
    for item in chosen:
        try:
            truth = check_enrolment_state(load_state_json(item.state), profile.game, item.id)
            # One that does not decode must not join the teaching photos.
            decode_photo(item.photo.read_bytes())
        except ValueError as exc:
            raise _bad(400, exc) from None
        new.append((item.photo, truth, recorded_corners(history, item)))
    with reteacher.lock:
        started = time.perf_counter()
        try:
            # The profile learns from these and every photo it learnt from before.
            enrolment, _ = teach_profile(state, profile, new, camera, request.stickers)
        except ValueError as exc:
            raise _bad(422, exc) from None
        seconds = time.perf_counter() - started
    inbox.remove(chosen)
    return Enrolled(
        profile=profile.name,
        game=profile.game,
        photos=enrolment.photos,
        cells=enrolment.cells,
        seconds=round(seconds, 2),
        moved=[item.id for item in chosen],
        unchanged=unchanged_note(enrolment) if enrolment.unchanged else None,
    )


@router.post(
    "/api/calibrate/seats",
    dependencies=[ADMIN_ONLY],
    openapi_extra=TAKES_PHOTOS,
    responses={
        **_ADMIN_ERRORS,
        400: {"description": "unknown game, not a usable JPEG or PNG"},
        422: {"description": "no whole board found, boards overlapping, or names not one per board"},
    },
)
def seats(
    file: Annotated[UploadFile, File(description="a photo of the table, every player's board in place")],
    game: Annotated[str, Form()],
    state: StateDep,
    uploads: UploadsDep,
    reteacher: ReteacherDep,
    names: Annotated[list[str] | None, Form(description="seat names in reading order")] = None,
    players: Annotated[list[str] | None, Form(description="the players in those seats")] = None,
    stickers: Annotated[bool, Form(description="the boards wear ArUco corner stickers")] = False,
) -> SeatsMade:
    """Where each player's board lies, for the live camera, as ``garden-scorer seats``. Boards are
    named in reading order: rows top to bottom, each left to right."""
    try:
        get_game(game)
    except StateError as exc:
        raise _bad(400, exc) from None
    given_names = [n.strip() for n in names or [] if n.strip()] or None
    given_players = [p.strip() for p in players or [] if p.strip()] or None
    with reteacher.lock:
        photo = _decode(file)
        camera = _camera(state, photo.image)
        try:
            setup, boards = seats_from_photo(
                photo.image,
                game,
                camera,
                given_names,
                given_players,
                stickers,
                load_segmenter(),
                game_boards(state, game),
            )
        except ValueError as exc:
            raise _bad(422, exc) from None
    # Seats are shares of the photo's width and height: the same decoded reduced or not.
    save_seats(setup, state.table)
    token = uploads.add(photo.data, photo.image)
    return SeatsMade(
        **TableInfo.of(setup).model_dump(),
        boards=[_points(b * photo.scale) for b in boards],
        size_wh=photo.size_wh,
        picture=f"/api/calibrate/uploads/{token}.jpg",
    )
