"""Colour normalisation: the background mask, measuring the board's colour, and undoing a change of light."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import cv2
import numpy as np
import pytest

from lab.synth.art import PACKS
from lab.synth.games import get_artist
from scoring.registry import GAMES
from tests.support import top_view
from vision.geometry import BoardFrame
from vision.profile import default_profile
from vision.read.colour import BoardColour, background_mask, measure, normalise
from vision.read.rectify import RECTIFIED_PX_PER_MM, Rectified

PX = RECTIFIED_PX_PER_MM
# A warm lamp (blue down, red up) on an under-exposed shot; the exposure keeps red from clipping.
CAST_BGR = np.array([0.7, 0.9, 1.25]) * 0.75


@cache
def board(game: str) -> Rectified:
    """A rendered board of ``game`` seen straight down, as rectification would hand it on."""
    profile = default_profile(game)
    artist = get_artist(game)
    rng = np.random.default_rng(1)
    drawing = artist.draw(profile, artist.random_state(profile, rng), PACKS["meadow"], rng, PX)
    frame = BoardFrame(profile, PX)
    return Rectified(top_view(drawing), frame, frame.mm_to_px_matrix())


def with_image(rect: Rectified, image: np.ndarray) -> Rectified:
    return Rectified(image.astype(np.uint8), rect.frame, rect.board_to_ideal)


def lit(rect: Rectified, gains_bgr: np.ndarray) -> Rectified:
    """``rect`` under other light: each channel scaled, clipped as a sensor clips."""
    return with_image(rect, np.clip(np.rint(rect.image_bgr * gains_bgr), 0, 255))


def mean_bgr(rect: Rectified) -> np.ndarray:
    return np.asarray(rect.image_bgr.reshape(-1, 3).mean(axis=0), dtype=np.float64)


def test_alice_mask_covers_the_margins_and_nothing_else() -> None:
    # 250 x 250 mm at 2 px/mm; the grid spans 25..225 mm across and 25..175 mm down.
    mask = background_mask(default_profile("alices-garden"), PX, margin_mm=3.0)
    assert mask.shape == (500, 500)
    # The top margin runs from 3 mm (px 6) to 3 mm short of the grid (22 mm, px 44) across the board.
    assert mask[6:44, 6:494].all()
    assert not mask[5].any() and not mask[44, 50:450].any()
    assert not mask[:, :6].any() and not mask[:, 494:].any() and not mask[494:].any()
    assert mask[200, 42]  # 21 mm from the left: 3.5 mm from the grid's edge, in the left margin
    assert not mask[200, 45]  # 22.5 mm: within 3 mm of the grid
    assert not mask[75, 75]  # the middle of cell (0, 0)
    assert not mask[44:356, 44:456].any()  # the grid grown by 3 mm: 22..178 mm down, 22..228 across
    assert mask[400, 250]  # the wide bottom margin, below the grid


def test_zen_mask_keeps_the_gap_between_grid_and_coin_track() -> None:
    # 200 x 240 mm; the grid spans 20..180 mm both ways, the coin track 19..181 mm across, 194..220 mm down.
    mask = background_mask(default_profile("zen-garden"), PX, margin_mm=3.0)
    assert mask.shape == (480, 400)
    assert mask[374, 200]  # 187 mm down, between the grid (ends at 180) and the coins (start at 194)
    assert not mask[362, 200]  # 181 mm: just below the grid
    assert not mask[386, 200]  # 193 mm: just above the coins
    assert not mask[414, 62]  # 207 mm down, 31.25 mm across: the 0.5 mm gap between coins 0 and 1
    assert mask[2 * 230, 2 * 100]  # below the coin track
    assert mask[2 * 100, 2 * 10]  # the left border beside the grid


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("px_per_mm", [PX, 3.0])
def test_mask_never_touches_a_cell_or_the_rim(game: str, px_per_mm: float) -> None:
    profile = default_profile(game)
    frame = BoardFrame(profile, px_per_mm)
    mask = background_mask(profile, px_per_mm, margin_mm=2.0)
    assert mask.shape == (frame.size_wh[1], frame.size_wh[0])
    cells_mm2 = sum(r.rows * r.cols * r.cell_mm[0] * r.cell_mm[1] for r in profile.regions)
    # A board with a printed background has some; a kingdom is its squares alone, and has none.
    assert mask.any() == (cells_mm2 < 0.95 * profile.size_mm[0] * profile.size_mm[1])
    for region in profile.regions:
        for r, c in region.cells():
            x0, y0, x1, y1 = frame.cell_box_px(region, r, c, context_mm=1.9)
            assert not mask[y0:y1, x0:x1].any(), (region.name, r, c)
    rim = round(1.9 * px_per_mm)
    assert not mask[:rim].any() and not mask[-rim:].any()
    assert not mask[:, :rim].any() and not mask[:, -rim:].any()


def test_negative_margin_is_refused() -> None:
    with pytest.raises(ValueError, match="margin_mm"):
        background_mask(default_profile("zen-garden"), PX, margin_mm=-1.0)


@pytest.mark.parametrize("game", ["alices-garden", "zen-garden"])
def test_normalise_undoes_a_colour_cast_and_exposure_change(game: str) -> None:
    original = board(game)
    profile = original.frame.profile
    reference = measure(original, profile)
    assert reference is not None
    assert reference.usable_share > 0.95
    shot = lit(original, CAST_BGR)
    assert np.abs(mean_bgr(shot) - mean_bgr(original)).max() > 30
    fixed, gains = normalise(shot, reference, profile)
    np.testing.assert_allclose(gains, 1 / CAST_BGR, rtol=0.05)
    np.testing.assert_allclose(mean_bgr(fixed), mean_bgr(original), atol=3.0)
    assert fixed.frame is original.frame and fixed.board_to_ideal is original.board_to_ideal


def test_the_colour_is_the_usable_backgrounds_median_and_every_pixel_is_scaled_by_the_gains() -> None:
    rng = np.random.default_rng(3)
    rect = board("tang-garden")
    profile = rect.frame.profile
    mask = background_mask(profile, PX)
    for _ in range(5):
        noisy = with_image(
            rect, np.clip(rect.image_bgr + rng.integers(-120, 120, rect.image_bgr.shape), 0, 255)
        )
        image = noisy.image_bgr
        usable = image[mask][((image[mask] >= 8) & (image[mask] < 250)).all(axis=1)]
        measured = measure(noisy, profile)
        assert measured is not None and measured.usable_share == len(usable) / int(mask.sum())
        assert measured.median_bgr == tuple(float(v) for v in np.median(usable, axis=0))
        reference = BoardColour(tuple(float(v) for v in rng.uniform(60, 200, 3)), 1.0)  # type: ignore[arg-type]
        fixed, gains = normalise(noisy, reference, profile)
        expected = np.clip(np.rint(image.astype(np.float64) * gains), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(fixed.image_bgr, expected)


def test_normalising_the_reference_photo_changes_nothing() -> None:
    original = board("alices-garden")
    reference = measure(original, original.frame.profile)
    assert reference is not None
    fixed, gains = normalise(original, reference, original.frame.profile)
    np.testing.assert_array_equal(gains, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(fixed.image_bgr, original.image_bgr)


@pytest.mark.parametrize(
    ("game", "light", "expected"), [("alices-garden", 0.25, 2.0), ("zen-garden", 3.0, 0.5)]
)
def test_gains_are_clamped(game: str, light: float, expected: float) -> None:
    original = board(game)
    reference = measure(original, original.frame.profile)
    assert reference is not None
    shot = lit(original, np.full(3, light))
    fixed, gains = normalise(shot, reference, original.frame.profile)
    np.testing.assert_array_equal(gains, [expected] * 3)
    expected_image = np.clip(np.rint(shot.image_bgr * expected), 0, 255)
    np.testing.assert_array_equal(fixed.image_bgr, expected_image)


# Glare over plain background: Alice's top margin, the Zen board's slate below the coin track.
@pytest.mark.parametrize(
    ("game", "centre_mm", "radius_mm"), [("alices-garden", (80, 12), 25), ("zen-garden", (150, 228), 25)]
)
def test_glare_on_the_margin_barely_moves_the_measurement(
    game: str, centre_mm: tuple[float, float], radius_mm: float
) -> None:
    original = board(game)
    profile = original.frame.profile
    clean = measure(original, profile)
    assert clean is not None
    # A lamp's reflection: a clipped core with a soft halo that is bright but not clipped.
    spot = np.zeros(original.image_bgr.shape[:2], np.float32)
    cv2.circle(spot, (round(centre_mm[0] * PX), round(centre_mm[1] * PX)), round(radius_mm * PX), 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), 4 * PX)[..., None] * 1.3
    glared = np.clip(original.image_bgr + spot * 255, 0, 255)
    measured = measure(with_image(original, glared), profile)
    assert measured is not None
    assert measured.usable_share < clean.usable_share - 0.03
    np.testing.assert_allclose(measured.median_bgr, clean.median_bgr, atol=2.0)


def test_a_board_with_no_usable_background_measures_nothing_and_stays_as_it_is() -> None:
    original = board("zen-garden")
    profile = original.frame.profile
    reference = measure(original, profile)
    assert reference is not None
    mask = background_mask(profile, PX)
    for fill in (0, 255):
        image = original.image_bgr.copy()
        image[mask] = fill
        shot = with_image(original, image)
        assert measure(shot, profile) is None
        fixed, gains = normalise(shot, reference, profile)
        assert fixed is shot
        np.testing.assert_array_equal(gains, [1.0, 1.0, 1.0])


def test_measure_refuses_a_picture_of_another_board() -> None:
    with pytest.raises(ValueError, match="rectified image is 400x480 px"):
        measure(board("zen-garden"), default_profile("alices-garden"))


def test_board_colour_json_round_trip() -> None:
    colour = BoardColour((120.5, 180.0, 201.25), 0.875)
    assert BoardColour.from_json(json.loads(json.dumps(colour.to_json()))) == colour


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("median_bgr"), "median_bgr: missing field"),
        (lambda d: d.update(median_bgr=[1.0, 2.0]), "median_bgr: expected 3 entries"),
        (lambda d: d["median_bgr"].__setitem__(1, "x"), r"median_bgr\[1\]: expected a number"),
        (lambda d: d["median_bgr"].__setitem__(2, 300), r"median_bgr\[2\]: 300 is above"),
        (lambda d: d.update(usable_share=1.5), "usable_share: 1.5 is above"),
        (lambda d: d.update(gains=[1, 1, 1]), "unknown field"),
    ],
)
def test_bad_board_colour_json_names_the_field(change: Any, message: str) -> None:
    data = BoardColour((120.0, 180.0, 200.0), 0.9).to_json()
    change(data)
    with pytest.raises(ValueError, match=message):
        BoardColour.from_json(data)
