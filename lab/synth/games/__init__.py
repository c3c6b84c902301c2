"""One artist per board profile: the registry the renderer, training and benchmarks look boards up in.

A game's artist lives in ``lab/synth/games/MODULE.py``, ``MODULE`` being the game's module in the scoring
registry (``scoring.registry.GameEntry.module``), listed in its ``ARTISTS``. Keys are default profile names
(``vision/profiles/KEY.json``): a game's main board has the game's name, and companion objects (Four Gardens'
Extra-rewards tile) have their own. A user-defined game has no module here: its look is only ever learnt
from the user's photos.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from lab.synth.scene import Artist
from scoring.registry import ENTRIES


def _all_artists() -> dict[str, Artist]:
    artists: dict[str, Artist] = {}
    for entry in ENTRIES.values():
        try:
            module = importlib.import_module(f"{__name__}.{entry.module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{entry.module}":
                raise
            continue
        for artist in module.ARTISTS:
            artists[getattr(artist, "profile_name", artist.game)] = artist
    return artists


ARTISTS: Mapping[str, Artist] = _all_artists()


def get_artist(key: str) -> Artist:
    try:
        return ARTISTS[key]
    except KeyError:
        raise ValueError(f"no synthetic art for {key!r}; there is art for {', '.join(ARTISTS)}") from None
