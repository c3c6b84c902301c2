"""What a game's artist hands the camera simulator: a drawn board, its standing pieces and its truth."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from lab.synth.art import ArtPack, Colour, Image
from vision.profile import BoardProfile
from vision.reader_api import CellLabels
from vision.readers import reader_for


@dataclass(frozen=True)
class Piece:
    """A 3D piece standing on a board (nobleman, marker, character).

    ``top_bgra`` is the top face as seen from straight above (square, alpha for its outline); the camera
    simulator lifts it to ``height_mm`` and joins it to the footprint with a body of colour ``body``, so the
    piece leans with perspective as a real one does. ``sash``: a band of that colour round the body's middle.
    """

    x_mm: float
    y_mm: float
    diameter_mm: float
    height_mm: float
    top_bgra: Image
    body: Colour
    sash: Colour | None = None


@dataclass(frozen=True)
class Mark:
    """A small thing drawn flat on the board (a decoration, a landscape icon) that a standing piece may
    hide: a disc of ``radius_mm`` round (``x_mm``, ``y_mm``) on the cell ``cell`` (region, row, column). The
    camera simulator's truth says how much of each shows in the photo, so that a reading can be judged
    against what a camera could see."""

    cell: tuple[str, int, int]
    label: str
    x_mm: float
    y_mm: float
    radius_mm: float


@dataclass(frozen=True)
class BoardDrawing:
    """A board seen from straight above at ``px_per_mm``, plus the pieces standing on it and the marks they
    may hide."""

    image_bgr: Image
    px_per_mm: float
    pieces: tuple[Piece, ...] = ()
    marks: tuple[Mark, ...] = ()
    # Where the board is, 0-255 a pixel (tiles laid on the table, the table showing between them and where
    # none lies); None: the whole rectangle, a printed board with cut edges.
    cover: Image | None = None


@dataclass(frozen=True)
class SyntheticBoard:
    """One board ready to photograph, with its truth: the state (scoring JSON) and every cell's label."""

    profile: BoardProfile
    pack: str
    state: Mapping[str, Any]
    cells: CellLabels
    drawing: BoardDrawing


class Artist(Protocol):
    """One game's synthetic world: plausible finished states, their cell labels, and their pictures."""

    game: str

    def random_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """A plausible end-of-game state of one board, as the scoring module's JSON."""
        ...

    def draw(
        self,
        profile: BoardProfile,
        state: Mapping[str, Any],
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
    ) -> BoardDrawing:
        """The board with ``state`` on it, in ``pack``'s art."""
        ...


@runtime_checkable
class LayingArtist(Artist, Protocol):
    """An artist whose boards are tiles laid on the table (a kingdom: no printed board beneath), printed in an
    art that also shows on other things on the table (``RenderSpec.clutter``)."""

    def laid(
        self,
        profile: BoardProfile,
        pack: ArtPack,
        rng: np.random.Generator,
        px_per_mm: float,
        tiles: Path,
    ) -> tuple[SyntheticBoard, list[SyntheticBoard]]:
        """A board of real tiles (cut from the photos in ``tiles``) laid with some of its places left empty
        (its drawing's ``cover``), and the things of the same art laid beside it: what a photo shows but is
        no board to score."""
        ...


@runtime_checkable
class CrowdingArtist(Artist, Protocol):
    """An artist that can also draw boards more crowded than play leaves them: small pieces side by side on
    one space, a sight play makes rare, so that training sees enough of it to read it
    (``RenderSpec.crowded``)."""

    def crowded_state(self, profile: BoardProfile, rng: np.random.Generator) -> Mapping[str, Any]:
        """A plausible state of one board whose spaces hold more pieces together than
        :meth:`Artist.random_state`'s."""
        ...


def make_board(
    artist: Artist,
    profile: BoardProfile,
    pack: ArtPack,
    rng: np.random.Generator,
    px_per_mm: float,
    state: Mapping[str, Any] | None = None,
) -> SyntheticBoard:
    """A drawn board of a given or random state, with its truth."""
    if state is None:
        state = artist.random_state(profile, rng)
    cells = reader_for(profile).cell_labels(profile, state)
    drawing = artist.draw(profile, state, pack, rng, px_per_mm)
    return SyntheticBoard(profile, pack.name, state, cells, drawing)


def piece_top(diameter_px: int, colour: Colour, ink: Colour) -> Image:
    """A round top face: a filled disc with an ink rim on a transparent square (BGRA)."""
    size = max(diameter_px, 4)
    top = np.zeros((size, size, 4), np.uint8)
    c = (size - 1) / 2
    cv2.circle(
        top, (round(c * 16), round(c * 16)), round((size / 2 - 1) * 16), (*colour, 255), -1, cv2.LINE_AA, 4
    )
    cv2.circle(
        top,
        (round(c * 16), round(c * 16)),
        round((size / 2 - 1) * 16),
        (*ink, 255),
        max(1, size // 16),
        cv2.LINE_AA,
        4,
    )
    return top
