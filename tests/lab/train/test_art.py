"""A tile-grid game's art colours, learnt from photos of its boards alone (`train --game G --art`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.train.art import learn_art, write_art
from tests.support import run_lab
from vision.locate.art import load_art


def test_art_colours_are_learnt_from_a_folder_of_boards_and_written(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    for name, colour in (("a", (40, 200, 230)), ("b", (200, 120, 40))):
        board = np.clip(np.array(colour) + rng.normal(0, 6, (120, 120, 3)), 0, 255).astype(np.uint8)
        cv2.imwrite(str(tmp_path / f"{name}.jpg"), board)
    out = tmp_path / "art.json"
    assert write_art("kingdomino", tmp_path, out) == out
    art = load_art(out)
    # Yellow and blue are the art's; a brown table's colour, most of the photo, is not.
    photo = np.zeros((40, 200, 3), np.uint8)
    photo[:, :20], photo[:, 20:40], photo[:, 40:] = (40, 200, 230), (200, 120, 40), (40, 80, 130)
    like = art.likeness(photo)
    assert like[:, 3:17].mean() > 0.9 and like[:, 23:37].mean() > 0.9 and like[:, 45:].mean() < 0.05
    assert not list(tmp_path.glob(".*.tmp"))


def test_no_photo_no_art_colours(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="no readable photo"):
        learn_art(tmp_path)
    code, _, err = run_lab(capsys, "train", "--art")
    assert code != 0 and "--art needs --game" in err
    code, _, err = run_lab(capsys, "train", "--game", "alices-garden", "--art")
    assert code != 0 and "--art needs --game" in err
