"""The shipped colours of a tile-grid game's art (``models/GAME-art.json``): learnt from the real photos its
recipe reads (each a board alone, filling the photo), which show the tiles as a camera sees them; the
synthetic table's art only suggests them. No torch needed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2

from models import art_path
from vision.locate.art import ArtColours


def learn_art(folder: Path) -> ArtColours:
    """The colours of every ``*.jpg`` in ``folder`` (decoded at a quarter size: colours, not detail)."""
    photos = sorted(folder.glob("*.jpg"))
    images = [cv2.imread(str(p), cv2.IMREAD_REDUCED_COLOR_4) for p in photos]
    boards = [image for image in images if image is not None]
    if not boards:
        raise ValueError(f"no readable photo in {folder} to learn the art's colours from")
    return ArtColours.learn(boards)


def write_art(game: str, folder: Path, path: Path | None = None) -> Path:
    """Learn ``game``'s art colours from ``folder``; write them (atomically) where the scorer reads them."""
    path = path or art_path(game)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(learn_art(folder).to_json(), separators=(",", ":")) + "\n")
    os.replace(tmp, path)
    return path
