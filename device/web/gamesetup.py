"""The game set-up the phones share: which game is on the table, the players in seat order, and the
hand-entry fields the photo cannot show (e.g. Sanssouci's missions, Zen Garden's ``setup``); and who is
playing.

The set-up is kept in memory and in ``web-setup.json`` in the state dir, written atomically; uploads use it as
their default game, hand-entry fields and player names. Who is playing is kept so in ``web-players.json``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from calibration.statedir import StateDir
from calibration.store import StoreError, read_versioned, write_json_atomic
from scoring.core import StateError
from scoring.registry import get_game

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
