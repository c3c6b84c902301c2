"""The set-up page's API: the games and board profiles, the game set-up the phones share and who is playing
(gamesetup.py).

Changing the set-up is an admin action (see security.py). Who is playing is any phone's to say: the home page
asks it before the photo and every phone's starts from the names last given. The hand entry is checked
against the game's form (``scoring.hand``); the rules check the rest on the result.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, Field

from calibration import teaching
from calibration.profiles import PICTURE_FILE, list_profiles, load_bundle
from calibration.statedir import StateDir
from calibration.store import StoreError
from device.mqtt.link import NONE, SERVICE, BrokerLink
from device.photo import UNTAUGHT_OWN_GAME
from device.web.auth import ADMIN_ONLY, NEEDS_PAIRING
from device.web.bodies import Guarded
from device.web.gamesetup import GameSetup, WhoIsPlaying
from device.web.security import page_response
from device.web.services import BrokerDep, ReteacherDep, SetupDep, StateDep
from models import model_path
from scoring.core import StateError
from scoring.hand import check as check_hand
from scoring.hand import form_json
from scoring.registry import ENTRIES, get_entry
from vision.profile import default_profile

log = logging.getLogger(__name__)


class GridInfo(BaseModel):
    name: str = Field(description="as a profile's `grids_mm` names it")
    rows: int
    cols: int
    place_mm: list[float] = Field(
        description="where it lies on the game's own board: X, Y, a cell's side, the step to the next cell "
        "and to the next row (mm), as a copy's owner measures theirs"
    )


class GameInfo(BaseModel):
    name: str
    title: str
    kind: str = Field(
        description="what one photographed board is: 'board' (one player's, scored alone), 'table' (one "
        "player's, of a table compared as a whole) or 'shared-board' (the table's one board)"
    )
    hand_form: list[dict[str, Any]] = Field(
        description="what the players type in, as the page draws it (scoring.hand.form_json)"
    )
    size_mm: tuple[float, float] = Field(description="the game's own board's width and height")
    grids: list[GridInfo] = Field(description="the board's grids, in the order a profile lists them")
    untaught: str | None = Field(
        default=None,
        description="where no model of the scorer reads the game (a game of your own): what to do first, "
        "unless a profile of it is taught",
    )


def _game_info(name: str) -> GameInfo:
    board = default_profile(name)
    return GameInfo(
        name=name,
        title=get_entry(name).rules.title,
        kind=get_entry(name).kind.value,
        hand_form=form_json(get_entry(name).hand_form),
        size_mm=board.size_mm,
        untaught=None if model_path(name).is_file() else UNTAUGHT_OWN_GAME,
        grids=[
            GridInfo(
                name=r.name, rows=r.rows, cols=r.cols, place_mm=[*r.origin_mm, r.cell_mm[0], *r.pitch_mm]
            )
            for r in board.regions
        ],
    )


class LeftOutInfo(BaseModel):
    photo: str
    cells: int
    wrong: int


class ProfileInfo(BaseModel):
    name: str
    game: str
    colour: bool = Field(description="whether the board's background colour under the set-up light is known")
    enrolled_cells: int | None = Field(description="the cells the profile was enrolled from; null: not yet")
    picture: str | None = Field(description="the rectified board the profile was made from, if any")
    teaching_photos: int = Field(description="the photos the profile has learnt from")
    left_out: list[LeftOutInfo] = Field(
        description="per teaching photo, how it reads when the profile is taught from the others alone"
    )
    reteaching: bool = Field(description="whether the profile is being taught again from its photos now")


def picture_url(state: StateDir, name: str) -> str | None:
    path = state.profile(name) / PICTURE_FILE
    if not path.is_file():
        return None
    # The file's time in the URL: a profile made again shows its new picture, not the browser's old copy.
    return f"/api/profiles/{name}/board.png?v={path.stat().st_mtime_ns}"


router = APIRouter(tags=["setup"], route_class=Guarded)


@router.get("/setup", include_in_schema=False)
def setup_page() -> HTMLResponse:
    return page_response("setup.html")


@router.get("/api/games")
def games() -> list[GameInfo]:
    return [_game_info(name) for name in ENTRIES]


@router.get("/api/profiles")
def profiles(state: StateDep, reteacher: ReteacherDep) -> list[ProfileInfo]:
    """The board profiles stored on this device (``garden-scorer profile create`` / ``enroll``)."""
    out = []
    for name in list_profiles(state):
        try:
            bundle = load_bundle(state, name)
        except StoreError as exc:
            log.warning("profile %s left out of the list: %s", name, exc)
            continue
        try:
            report = teaching.load_report(state, name)
        except ValueError as exc:
            log.warning("profile %s: teaching report not shown: %s", name, exc)
            report = None
        out.append(
            ProfileInfo(
                name=name,
                game=bundle.profile.game,
                colour=bundle.colour is not None,
                enrolled_cells=bundle.enrolment.cells if bundle.enrolment else None,
                picture=picture_url(state, name),
                teaching_photos=report.photos
                if report
                else bundle.enrolment.photos
                if bundle.enrolment
                else 0,
                left_out=[LeftOutInfo(photo=x.photo, cells=x.cells, wrong=x.wrong) for x in report.left_out]
                if report
                else [],
                reteaching=reteacher.pending(name),
            )
        )
    return out


@router.get(
    "/api/profiles/{name}/board.png",
    response_class=FileResponse,
    responses={400: {"description": "not a profile name"}, 404: {"description": "no picture"}},
)
def profile_picture(name: str, state: StateDep) -> FileResponse:
    """The rectified board a profile was made from (``profile create`` with a photo, or the calibration
    page)."""
    try:
        path = state.profile(name) / PICTURE_FILE
    except StoreError as exc:
        raise HTTPException(400, str(exc)) from None
    if not path.is_file():
        raise HTTPException(404, f"profile {name!r} has no picture: make it from a photo")
    return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-cache"})


@router.get("/api/setup")
def get_setup(store: SetupDep) -> GameSetup:
    return store.current


@router.get("/api/players")
def who_is_playing(store: SetupDep) -> WhoIsPlaying:
    """Who is playing at the table, as a phone last named them."""
    return store.playing


# Any phone at the table may say who is playing, as any may send a photo: names only, and the owner's set-up
# (seats, hand entry) stays the owner's.
@router.put("/api/players")
def name_the_players(playing: WhoIsPlaying, store: SetupDep) -> WhoIsPlaying:
    store.name_players(playing)
    return playing


@router.put(
    "/api/setup",
    dependencies=[ADMIN_ONLY],
    responses={
        400: {"description": "a game that does not exist, or a hand entry its form would refuse"},
        403: NEEDS_PAIRING,
    },
)
def put_setup(setup: GameSetup, store: SetupDep) -> GameSetup:
    if setup.game is not None:
        try:
            # Typed in ahead of the game: what the players count at its end may stay blank.
            check_hand(get_entry(setup.game).hand_form, setup.hand, partial=True)
        except StateError as exc:
            raise HTTPException(400, str(exc)) from None
    store.save(setup)
    return setup


class BrokerInfo(BaseModel):
    """The table's MQTT broker as the set-up page shows it (never its password)."""

    source: str = Field(
        description="where the settings come from: 'service' (the service's settings, changed there), 'page' "
        "(set here) or 'none'"
    )
    where: str | None = Field(description="the broker, as mqtt://USER@HOST:PORT")
    table: str | None = Field(description="this table's name on the broker")
    has_password: bool
    connected: bool = Field(description="whether the broker has the table now")
    problem: str | None = Field(description="what keeps the table's messages from the broker, in words")
    changeable: bool = Field(description="whether this page may change it")


class BrokerChange(BaseModel):
    """The broker the owner sets: both ``url`` and ``table``, or neither (no broker)."""

    url: str | None = Field(None, max_length=300, description="mqtt://[USER@]HOST[:PORT] or mqtts://...")
    table: str | None = Field(None, max_length=40, description="lowercase letters, digits and '-'")
    password: str | None = Field(None, max_length=200, description="the broker user's password; none: none")
    keep_password: bool = Field(False, description="keep the password set before (the same address)")


def _broker_info(link: BrokerLink | None) -> BrokerInfo:
    if link is None:
        return BrokerInfo(
            source=NONE,
            where=None,
            table=None,
            has_password=False,
            connected=False,
            problem=None,
            changeable=False,
        )
    status = link.status()
    return BrokerInfo(
        source=status.source,
        where=status.where,
        table=status.table,
        has_password=status.has_password,
        connected=status.connected,
        problem=status.problem,
        changeable=status.source != SERVICE,
    )


@router.get("/api/broker", dependencies=[ADMIN_ONLY], responses={403: NEEDS_PAIRING})
def get_broker(link: BrokerDep) -> BrokerInfo:
    """Where this table's scores go for the hall and Home Assistant (docs/hall.md)."""
    return _broker_info(link)


@router.put(
    "/api/broker",
    dependencies=[ADMIN_ONLY],
    responses={
        400: {"description": "settings that cannot work (said why)"},
        403: NEEDS_PAIRING,
        409: {"description": "the broker is set in the service's settings, or this scorer has none"},
    },
)
def put_broker(change: BrokerChange, link: BrokerDep) -> BrokerInfo:
    """Sets (or, with neither ``url`` nor ``table``, removes) the broker this table publishes to; connected
    in the background."""
    if link is None:
        raise HTTPException(409, "this scorer was started without a broker link: restart it with serve")
    try:
        link.change(change.url or None, change.table or None, change.password or None, change.keep_password)
    except PermissionError as exc:
        raise HTTPException(409, str(exc)) from None
    except (ValueError, StoreError) as exc:
        raise HTTPException(400, str(exc)) from None
    return _broker_info(link)
