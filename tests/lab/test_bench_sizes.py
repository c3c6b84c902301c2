"""The bench counts a board read at another size than the truth's as wrongly read, not as a crash."""

from __future__ import annotations

import numpy as np

from device.photo import score_image
from lab.bench import BenchResult, tally_found
from lab.synth.render import RenderSpec, render_photo
from vision.profile import default_profile
from vision.readers import reader_for
from vision.readers.kingdomino import sized


def test_a_kingdom_read_at_another_size_than_its_truth_counts_every_square_wrong() -> None:
    photo = render_photo(RenderSpec(("kingdomino",), 20261121), 0)
    board = photo.truth["boards"][0]
    corners = np.array(board["corners_xy"], np.float64)
    (match,) = score_image(photo.decode(), "kingdomino", {}, photo.camera(), corners_xy=corners)
    # The truth a Mighty Duel kingdom's (7 x 7): the 5 x 5 reading has no square where its squares are.
    duel = sized(default_profile("kingdomino"), {"setup": {"size": 7}})
    cells = {"grid": [["field:0"] * 7 for _ in range(7)]}
    result = BenchResult("kingdomino", ("meadow",), 1)
    tally_found(result, "kingdomino", duel, reader_for(duel), cells, board["state"], match, [match])
    assert (result.found, result.perfect) == (1, 0)
    assert result.cells == result.cell_errors == result.found_cell_errors == 49
    assert result.regions["grid"] == [0, 1]
