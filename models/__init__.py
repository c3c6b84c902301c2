"""The shipped ONNX models, their model cards, and where to find them (`garden-scorer-lab train` rebuilds
them)."""

from __future__ import annotations

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent


def model_path(game: str) -> Path:
    """Where the shipped cell classifier of ``game`` lives (``models/GAME.onnx``, its card beside it)."""
    return MODELS_DIR / f"{game}.onnx"


def orient_model_path(game: str) -> Path:
    """Where the shipped orientation model of ``game`` lives (``models/GAME-orient.onnx``)."""
    return MODELS_DIR / f"{game}-orient.onnx"


def boards_model_path() -> Path:
    """Where the shipped board-mask model lives (``models/boards.onnx``, its card beside it)."""
    return MODELS_DIR / "boards.onnx"


def sides_model_path() -> Path:
    """Where the shipped board-side model lives (``models/sides.onnx``, its card beside it)."""
    return MODELS_DIR / "sides.onnx"


def art_path(game: str) -> Path:
    """Where the shipped colours of ``game``'s art live (``models/GAME-art.json``), for a game whose board is
    found by its grid of tiles (:mod:`vision.locate.lattice`); absent for the others."""
    return MODELS_DIR / f"{game}-art.json"
