"""Example state files, one per game format: documentation, demo data and test fixtures in one place."""

from __future__ import annotations

from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent


def example_states() -> list[Path]:
    """Every bundled example state file, in name order."""
    return sorted(EXAMPLES_DIR.glob("*.json"))


def example_photos() -> list[Path]:
    """The bundled synthetic photos (``photos/GAME.jpg``, each with its truth beside it), in name order."""
    return sorted((EXAMPLES_DIR / "photos").glob("*.jpg"))


def example_views() -> dict[str, list[Path]]:
    """Per game, bundled synthetic photos of one board from several sides (``views/GAME-K.jpg``, read
    together), with the hand entry ``views/GAME.json`` and the camera ``views/camera.json`` that took them."""
    views: dict[str, list[Path]] = {}
    for photo in sorted((EXAMPLES_DIR / "views").glob("*-*.jpg")):
        views.setdefault(photo.stem.rpartition("-")[0], []).append(photo)
    return views


# A camera's view of a table where four Alice's Garden boards are scored in turn (the demo's replay camera).
REPLAY_DIR = EXAMPLES_DIR / "replay"
