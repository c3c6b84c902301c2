"""Each game's :class:`~vision.reader_api.Reader`, one module a game, and the registry the pipeline,
enrolment, training and benchmarks look a board's reader up in.

A game's reader lives in ``vision/readers/MODULE.py``, ``MODULE`` being the game's module in the scoring
registry (``scoring.registry.GameEntry.module``). The module lists its readers in ``READERS`` (a game's
board, and companion objects read by models of their own, such as Four Gardens' Extra-rewards tile) and may
define ``reader_for(profile)`` where a profile's set-up shapes its reader.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from types import ModuleType
from typing import Any

from scoring.registry import ENTRIES, get_entry
from vision.profile import BoardProfile
from vision.reader_api import IGNORE, CellLabels, Head, Reader, Reading, check_fits

__all__ = [
    "IGNORE",
    "READERS",
    "CellLabels",
    "Head",
    "Reader",
    "Reading",
    "check_fits",
    "get_reader",
    "other_sizes",
    "reader_for",
    "rules_setup",
    "sized_for",
]


@cache
def _module(game: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{get_entry(game).module}")


def _all_readers() -> dict[str, Reader]:
    readers: dict[str, Reader] = {}
    for game in ENTRIES:
        for reader in _module(game).READERS:
            readers[reader.game] = reader
    return readers


# Keyed by what a reader reads (its ``game``): a game's main board, or a companion object's profile name.
READERS: Mapping[str, Reader] = _all_readers()


def get_reader(game: str) -> Reader:
    try:
        return READERS[game]
    except KeyError:
        raise ValueError(f"no photo reader for {game!r} yet; readable games: {', '.join(READERS)}") from None


def reader_for(profile: BoardProfile) -> Reader:
    """The reader of a profile's board: as its game's module makes it for the profile, else its game's."""
    make = getattr(_module(profile.game), "reader_for", None)
    if make is not None:
        reader: Reader = make(profile)
        return reader
    return get_reader(profile.game)


def sized_for(profile: BoardProfile, hand: Mapping[str, Any]) -> BoardProfile:
    """The profile as the set-up shapes its board (a Kingdomino Mighty Duel's kingdom is 7 x 7 squares):
    its game's module's ``sized(profile, hand)``, else the profile as it is."""
    make = getattr(_module(profile.game), "sized", None)
    if make is None:
        return profile
    sized: BoardProfile = make(profile, hand)
    return sized


def other_sizes(profile: BoardProfile, hand: Mapping[str, Any]) -> tuple[BoardProfile, ...]:
    """Profiles of the same board at the other sizes the set-up leaves open (a kingdom of 5 x 5 or 7 x 7
    squares when it does not say): its game's module's ``other_sizes(profile, hand)``, else none."""
    make = getattr(_module(profile.game), "other_sizes", None)
    if make is None:
        return ()
    others: tuple[BoardProfile, ...] = make(profile, hand)
    return others


def rules_setup(game: str, setup: Mapping[str, Any]) -> dict[str, Any]:
    """A profile's set-up as its game's rules take it: without what only the reader uses (Four Gardens'
    marker colours, how many icons Tang Garden's landscape tiles show)."""
    reader_only: tuple[str, ...] = getattr(_module(game), "READER_SETUP", ())
    return {k: v for k, v in setup.items() if k not in reader_only}
