"""One artist per board profile: the registry the renderer, training and benchmarks look boards up in.

Keys are default profile names (``vision/profiles/KEY.json``): a game's main board has the game's name, and
companion objects (Four Gardens' Extra-rewards tile) have their own.
"""

from __future__ import annotations

from collections.abc import Mapping

from lab.synth.games.alices_garden import AliceArtist
from lab.synth.games.four_gardens import FourGardensArtist, FourGardensRewardArtist
from lab.synth.games.sanssouci import SanssouciArtist
from lab.synth.games.tang_garden import TangArtist
from lab.synth.games.zen_garden import ZenArtist
from lab.synth.scene import Artist

_ALL: tuple[Artist, ...] = (
    AliceArtist(),
    SanssouciArtist(),
    ZenArtist(),
    FourGardensArtist(),
    FourGardensRewardArtist(),
    TangArtist(),
)
ARTISTS: Mapping[str, Artist] = {getattr(a, "profile_name", a.game): a for a in _ALL}


def get_artist(key: str) -> Artist:
    try:
        return ARTISTS[key]
    except KeyError:
        raise ValueError(f"no synthetic art for {key!r}; there is art for {', '.join(ARTISTS)}") from None
