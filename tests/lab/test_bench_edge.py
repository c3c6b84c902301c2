"""The synthetic benchmark's photos cut beside or through their board, and boards read at their corners."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from device.photo import score_image
from lab.bench import cut_beside, run_bench
from lab.synth.render import RenderSpec, render_photo


@pytest.mark.parametrize(("side", "px"), [(0, 12.0), (1, 20.0), (2, -30.0), (3, 8.0)])
def test_a_photo_cut_beside_its_board_moves_the_board_and_the_cameras_centre_with_it(
    side: int, px: float
) -> None:
    photo = render_photo(RenderSpec(("alices-garden",), 5), 0)
    image, camera, board = photo.decode(), photo.camera(), photo.truth["boards"][0]
    cut, seen_by, moved = cut_beside(image, camera, board, side, px)
    corners, now = np.array(board["corners_xy"]), np.array(moved["corners_xy"])
    shift = corners[0] - now[0]
    assert np.allclose(corners - now, shift)
    # The cut is the photo's pixels from where it starts; the camera sees each point where it now lies.
    x0, y0 = (int(v) for v in shift)
    assert np.array_equal(cut, image[y0 : y0 + cut.shape[0], x0 : x0 + cut.shape[1]])
    assert seen_by.size_wh == (cut.shape[1], cut.shape[0])
    assert np.allclose(seen_by.distort_px(seen_by.undistort_px(now)), now, atol=1e-6)
    assert np.allclose(camera.undistort_px(corners) - [x0, y0], seen_by.undistort_px(now), atol=1e-6)
    # The board's far side on the cut side lies ``px`` from the photo's new edge.
    edge = [
        now[:, 0].min(),
        cut.shape[1] - 1 - now[:, 0].max(),
        now[:, 1].min(),
        cut.shape[0] - 1 - now[:, 1].max(),
    ]
    assert abs(edge[side] - px) <= 1.0


def test_boards_placed_at_their_corners_are_read_there(monkeypatch: pytest.MonkeyPatch) -> None:
    import lab.bench

    given: list[Any] = []

    def placed(*args: Any, **kwargs: Any) -> Any:
        given.append(kwargs["corners_xy"])
        return score_image(*args, **kwargs)

    monkeypatch.setattr(lab.bench, "score_image", placed)
    result = run_bench("sanssouci", 2, 5, workers=1, corners_given=True, edge_px=15.0)
    assert result.found == result.exact == 2
    assert result.table()["corners_given"] and result.table()["edge_px"] == 15.0
    for i, corners in enumerate(given):
        photo = render_photo(RenderSpec(("sanssouci",), 5), i)
        board = photo.truth["boards"][0]
        _, _, moved = cut_beside(photo.decode(), photo.camera(), board, i % 4, 15.0)
        assert np.array_equal(corners, np.array(moved["corners_xy"]))
