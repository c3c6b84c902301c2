"""The web tests' shared fixtures: the example photo's boards, read for real once per module, and the app
over a fresh state folder with a given scorer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from calibration.statedir import StateDir
from device.photo import ScoredBoard, score_image
from device.web import AppConfig, create_app
from device.web.reading import ScoreFn
from lab.pairing import KIOSK_TOKEN
from tests.fakes import FakeScore
from tests.support import EXAMPLES
from vision.image_io import read_image

AppFactory = Callable[..., FastAPI]


@pytest.fixture(scope="module")
def alice_boards() -> list[ScoredBoard]:
    """The example photo read for real once; the fake scorer answers every upload with it."""
    return score_image(read_image(str(EXAMPLES / "photos" / "alices-garden.jpg")), "alices-garden")


@pytest.fixture
def make_app(tmp_path: Path) -> AppFactory:
    """The app over ``tmp_path`` as its state folder, scoring with ``score`` (a fake reading nothing)."""

    def make(score: ScoreFn | None = None, **options: Any) -> FastAPI:
        return create_app(
            AppConfig(StateDir(tmp_path), score or FakeScore(), kiosk_token=KIOSK_TOKEN, **options)
        )

    return make
