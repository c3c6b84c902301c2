"""The web tests' shared fixture: the example photo's boards, read for real once per module."""

from __future__ import annotations

import pytest

from device.photo import ScoredBoard, score_image
from tests.support import EXAMPLES
from vision.image_io import read_image


@pytest.fixture(scope="module")
def alice_boards() -> list[ScoredBoard]:
    """The example photo read for real once; the fake scorer answers every upload with it."""
    return score_image(read_image(str(EXAMPLES / "photos" / "alices-garden.jpg")), "alices-garden")
