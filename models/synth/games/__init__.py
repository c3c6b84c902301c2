"""One artist per game: the registry the renderer, training and benchmarks look games up in."""

from __future__ import annotations

from collections.abc import Mapping

from models.synth.games.alices_garden import AliceArtist
from models.synth.scene import Artist

ARTISTS: Mapping[str, Artist] = {artist.game: artist for artist in (AliceArtist(),)}


def get_artist(game: str) -> Artist:
    try:
        return ARTISTS[game]
    except KeyError:
        raise ValueError(f"no synthetic art for game {game!r}; games: {', '.join(ARTISTS)}") from None
