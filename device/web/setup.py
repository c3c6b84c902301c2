"""The game set-up the phones share: which game is on the table, the players in seat order, and the
hand-entry fields the photo cannot show (e.g. Sanssouci's missions, Zen Garden's ``setup``).

It is kept in memory and in ``web-setup.json`` in the state dir, written atomically; uploads use it as their
default game, hand-entry fields and player names. Changing it is an admin action (see security.py). Who is
playing (``web-players.json``) is any phone's to say: the home page asks it before the photo and every phone's
starts from the names last given. The
hand entry is checked against the game's form (``scoring.hand``); the rules check the rest on the result.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from calibration import teaching
from calibration.profiles import PICTURE_FILE, list_profiles, load_bundle
from calibration.statedir import StateDir
from calibration.store import StoreError, read_versioned, write_json_atomic
from device.web.auth import NEEDS_PAIRING, AdminGuard
from device.web.bodies import Guarded
from device.web.reteach import Reteacher
from device.web.security import page_response
from scoring.core import StateError
from scoring.hand import check as check_hand
from scoring.hand import form_json
from scoring.registry import ENTRIES, get_entry, get_game
from vision.profile import default_profile

log = logging.getLogger(__name__)

SETUP_FILE = "web-setup.json"
KIND = "web-setup"
PLAYERS_FILE = "web-players.json"
PLAYERS_KIND = "web-players"
VERSION = 1
MAX_PLAYERS = 8

PlayerName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class GameSetup(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str | None = Field(default=None, description="the game on the table; the home page preselects it")
    players: list[PlayerName] = Field(
        default_factory=list,
        max_length=MAX_PLAYERS,
        description="player names in the photo's reading order of the boards (left to right, top to bottom)",
    )
    hand: dict[str, Any] = Field(
        default_factory=dict, description="hand-entry fields used when an upload gives none, for this game"
    )

    @field_validator("game")
    @classmethod
    def _known(cls, game: str | None) -> str | None:
        if game is not None:
            try:
                get_game(game)
            except StateError as exc:
                raise ValueError(str(exc)) from None
        return game


_Model = TypeVar("_Model", bound=BaseModel)


class WhoIsPlaying(BaseModel):
    model_config = ConfigDict(extra="forbid")

    players: list[PlayerName] = Field(
        default_factory=list,
        max_length=MAX_PLAYERS,
        description="who is playing at the table, as a phone last named them before sending a photo: every "
        "phone's home page starts from these names",
    )


def _load(path: Path, kind: str, model: type[_Model]) -> _Model:
    """``model`` as stored at ``path``; an empty one where there is none or it cannot be read."""
    if not path.exists():
        return model()
    try:
        data = read_versioned(path, kind, (VERSION,))
        return model.model_validate({k: v for k, v in data.items() if k not in ("kind", "version")})
    except (StoreError, ValidationError) as exc:
        # A convenience: a bad file must not stop scoring; the next save replaces it.
        log.warning("%s: ignored (%s); starting with an empty %s", path, exc, kind)
        return model()


class SetupStore:
    """The current set-up and who is playing; :meth:`save` and :meth:`name_players` replace them in memory
    and on disk."""

    def __init__(self, path: Path, current: GameSetup, players_path: Path, playing: WhoIsPlaying) -> None:
        self.path = path
        self.current = current
        self.players_path = players_path
        self.playing = playing

    @classmethod
    def open(cls, state: StateDir) -> SetupStore:
        path, players = state.root / SETUP_FILE, state.root / PLAYERS_FILE
        return cls(path, _load(path, KIND, GameSetup), players, _load(players, PLAYERS_KIND, WhoIsPlaying))

    def save(self, setup: GameSetup) -> None:
        write_json_atomic(self.path, {"kind": KIND, "version": VERSION, **setup.model_dump()})
        self.current = setup

    def name_players(self, playing: WhoIsPlaying) -> None:
        data = {"kind": PLAYERS_KIND, "version": VERSION, **playing.model_dump()}
        write_json_atomic(self.players_path, data)
        self.playing = playing

    def hand_for(self, game: str) -> dict[str, Any]:
        return dict(self.current.hand) if self.current.game == game else {}

    def players_for(self, game: str, boards: int) -> list[str] | None:
        """The player names, when the set-up is for ``game`` and names exactly ``boards`` players."""
        players = self.current.players
        return list(players) if self.current.game == game and len(players) == boards else None


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


def _game_info(name: str) -> GameInfo:
    board = default_profile(name)
    return GameInfo(
        name=name,
        title=get_entry(name).rules.title,
        kind=get_entry(name).kind.value,
        hand_form=form_json(get_entry(name).hand_form),
        size_mm=board.size_mm,
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


def router(state: StateDir, store: SetupStore, admin: AdminGuard, reteacher: Reteacher) -> APIRouter:
    api = APIRouter(tags=["setup"], route_class=Guarded)

    @api.get("/setup", include_in_schema=False)
    def setup_page() -> HTMLResponse:
        return page_response("setup.html")

    @api.get("/api/games")
    def games() -> list[GameInfo]:
        return [_game_info(name) for name in ENTRIES]

    @api.get("/api/profiles")
    def profiles() -> list[ProfileInfo]:
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
                    left_out=[
                        LeftOutInfo(photo=x.photo, cells=x.cells, wrong=x.wrong) for x in report.left_out
                    ]
                    if report
                    else [],
                    reteaching=reteacher.pending(name),
                )
            )
        return out

    @api.get(
        "/api/profiles/{name}/board.png",
        response_class=FileResponse,
        responses={400: {"description": "not a profile name"}, 404: {"description": "no picture"}},
    )
    def profile_picture(name: str) -> FileResponse:
        """The rectified board a profile was made from (``profile create`` with a photo, or the calibration
        page)."""
        try:
            path = state.profile(name) / PICTURE_FILE
        except StoreError as exc:
            raise HTTPException(400, str(exc)) from None
        if not path.is_file():
            raise HTTPException(404, f"profile {name!r} has no picture: make it from a photo")
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-cache"})

    @api.get("/api/setup")
    def get_setup() -> GameSetup:
        return store.current

    @api.get("/api/players")
    def who_is_playing() -> WhoIsPlaying:
        """Who is playing at the table, as a phone last named them."""
        return store.playing

    # Any phone at the table may say who is playing, as any may send a photo: names only, and the owner's
    # set-up (seats, hand entry) stays the owner's.
    @api.put("/api/players")
    def name_the_players(playing: WhoIsPlaying) -> WhoIsPlaying:
        store.name_players(playing)
        return playing

    @api.put(
        "/api/setup",
        dependencies=[Depends(admin)],
        responses={
            400: {"description": "a game that does not exist, or a hand entry its form would refuse"},
            403: NEEDS_PAIRING,
        },
    )
    def put_setup(setup: GameSetup) -> GameSetup:
        if setup.game is not None:
            try:
                # Typed in ahead of the game: what the players count at its end may stay blank.
                check_hand(get_entry(setup.game).hand_form, setup.hand, partial=True)
            except StateError as exc:
                raise HTTPException(400, str(exc)) from None
        store.save(setup)
        return setup

    return api
