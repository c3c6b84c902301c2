"""The synthetic benchmark judges a kingdom read from any of its corners against its truth turned so."""

from __future__ import annotations

import numpy as np

from device.photo import load_classifier
from lab.bench import _turned
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from vision.pipeline import read_photo
from vision.profile import default_profile


def _terrains(cells: list[list[str]]) -> list[str]:
    return [str(c).partition(":")[0] for row in cells for c in row]


def test_a_kingdom_read_from_its_next_corner_is_its_truth_turned_a_quarter() -> None:
    photo = render_photo(RenderSpec(("kingdomino",), 3, options=PhotoOptions((1600, 900), 20.0)), 0)
    board = photo.truth["boards"][0]
    corners = np.roll(np.array(board["corners_xy"], np.float64), -1, axis=0)
    profile = default_profile("kingdomino")
    (reading,) = read_photo(
        photo.decode(),
        [profile],
        {"kingdomino": load_classifier("kingdomino")},
        {},
        photo.camera(),
        corners_xy=corners,
    )
    read = _terrains(reading.state["cells"])
    turned = _terrains(_turned(board, 1)["state"]["cells"])
    assert _turned(board, 1)["cells"]["grid"] == np.rot90(np.array(board["cells"]["grid"], object)).tolist()
    assert sum(a == b for a, b in zip(read, turned, strict=True)) >= len(read) - 1
    assert sum(a == b for a, b in zip(read, _terrains(board["state"]["cells"]), strict=True)) < len(read) - 2
