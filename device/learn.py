"""Teaching the scorer the boards on a table: a board profile from a photo, an enrolment from photos whose
states are known.

``garden-scorer profile create`` and ``enroll`` run these, and so do the web app's calibration pages, so a
profile made either way is the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration import teaching
from calibration.enroll import (
    Enrolment,
    Example,
    enrol,
    example_art,
    example_colour,
    example_picture,
    left_out,
)
from calibration.profiles import (
    has_picture,
    load_bundle,
    new_profile,
    profile_exists,
    save_art,
    save_colour,
    save_enrolment,
    save_picture,
    save_profile,
)
from calibration.statedir import StateDir
from calibration.teaching import TeachingReport
from device.photo import (
    base_classifier,
    check_photo,
    decode_photo,
    load_classifier,
    load_orienter,
    load_segmenter,
    shipped_art,
)
from scoring import custom_grid
from scoring.core import StateError
from scoring.registry import get_game, read_state
from vision.camera_model import CameraModel, is_calibrated, matrix_or_guess
from vision.geometry import Points, quad_size
from vision.locate.board import Quad, quad_from_corners
from vision.locate.edges import ASPECT_TOLERANCE, aspect_error
from vision.locate.picture import picture_turn
from vision.locate.rectangle import aspect
from vision.pipeline import OUT_OF_PHOTO, BoardReading, NoBoardError, given_lens, locate_boards, read_photo
from vision.profile import BoardProfile
from vision.read.colour import BoardColour, measure
from vision.read.upright import Turns, weigh_turns
from vision.readers import reader_for


class SeveralBoards(StateError):
    """A set-up photo in which more than one board was found (a card, a score pad taken for one): the
    outlines, the largest first."""

    def __init__(self, quads: Sequence[Quad]) -> None:
        self.quads = sorted(quads, key=lambda q: -quad_size(q.ideal_xy))
        super().__init__(f"{len(quads)} boards found: photograph one board at a time (or give its corners)")


class UnsureTurn(ValueError):
    """Which way up the board lies is not clear from the photo: the owner chooses among its four ``turns``
    (``--turn``, or on the calibration page); ``why``: what says so, where the photo's own look does not."""

    def __init__(self, turns: Turns, given: bool = False, why: str = "") -> None:
        why = why or (
            "the corners given put their first at the board's top left, but the board looks upright with "
            f"corner {turns.best + 1} there"
            if given
            else "which way up the board lies is not clear from the photo (no model knows this copy's "
            "printing)"
        )
        super().__init__(
            f"{why}: look at its four turns and give the one that is upright (--turn 1 to 4, or tap it on "
            "the calibration page). If the squares sit off the printed ones in all four, the board was found "
            "a little off: give its corners (--corners, the board's own top-left corner first)"
        )
        self.turns = turns


def board_turns(
    image: NDArray[np.uint8], profile: BoardProfile, outline_xy: Points, camera: CameraModel | None
) -> Turns:
    """How likely each of the outline's four turns (photo pixels, any corner first) is upright, weighed with
    the game's shipped models (vision.read.upright); a user's own grid game, which has none, by its grid's
    place alone."""
    reader = reader_for(profile)
    known = profile.game != custom_grid.GAME
    classifier = load_classifier(reader.game) if known else None
    orienter = load_orienter(reader.game) if known and not reader.turns_freely else None
    return weigh_turns(image, outline_xy, profile, camera, classifier, orienter, reader.regions)


def find_board(
    image: NDArray[np.uint8], profile: BoardProfile, camera: CameraModel | None, stickers: bool = False
) -> tuple[Quad, CameraModel | None]:
    """The one board of a set-up photo as found (its corners from any corner unless ``oriented``), and the
    camera to read it through (with none, a lens estimated from the board's sides). Raises NoBoardError when
    no board is found and StateError when several are."""
    quads, lens = locate_boards(image, [profile], camera, stickers, load_segmenter(), shipped_art([profile]))
    if not quads:
        raise NoBoardError(
            "no board found in the photo: make sure the whole board is in view, on a plain table, and lit"
        )
    if len(quads) > 1:
        raise SeveralBoards(quads)
    return quads[0], lens


def _shape_off(
    image: NDArray[np.uint8], outline: Points, size_mm: tuple[float, float], camera: CameraModel | None
) -> float:
    """How far (a log ratio) the rectangle ``outline`` pictures in ``image`` is from a ``size_mm`` board."""
    ideal = camera.undistort_px(outline) if camera is not None else outline
    matrix = matrix_or_guess(camera, (image.shape[1], image.shape[0]))
    return aspect_error(ideal, matrix, (size_mm[0] / size_mm[1],), is_calibrated(camera))


def fits_size(
    image: NDArray[np.uint8], profile: BoardProfile, outline: Points, camera: CameraModel | None
) -> bool:
    """Whether ``outline`` pictures a board of ``profile``'s size as nearly as a found board does: of 258
    drawn copies' set-up outlines found within 2 %, none was more than 0.034 off (log of the aspect); an
    independent try's outlines over a plain margin and the wood beside it, 0.057 and 0.127."""
    return _shape_off(image, outline, profile.size_mm, camera) <= ASPECT_TOLERANCE


def found_for_size(
    image: NDArray[np.uint8],
    standard: BoardProfile,
    profile: BoardProfile,
    outline: Points,
    camera: CameraModel | None,
) -> Points | None:
    """The board found again in a set-up photo for ``profile``'s size, where ``outline`` has the shape of
    the game's ``standard`` board and not that size: found before the owner typed the size, the outline
    took the shape it looked for (an independent try's 250 x 205 mm board was outlined square, over its grid
    and not its plain margin, and its turn then weighed wrong). None: the outline fits the size (as placed
    by hand), or the board is not found again much closer to it."""
    off = _shape_off(image, outline, profile.size_mm, camera)
    if off <= ASPECT_TOLERANCE or _shape_off(image, outline, standard.size_mm, camera) > ASPECT_TOLERANCE:
        return None
    try:
        quad, _ = find_board(image, profile, camera)
    except (NoBoardError, SeveralBoards):
        return None
    # Found again, it must be nearer the size typed by far: the same board found again is no news.
    again = _shape_off(image, quad.corners_xy, profile.size_mm, camera)
    return quad.corners_xy if again <= max(ASPECT_TOLERANCE, off / 2) else None


def place_board(
    image: NDArray[np.uint8],
    profile: BoardProfile,
    camera: CameraModel | None,
    corners_xy: Points | None = None,
    stickers: bool = False,
    turn: int | None = None,
) -> tuple[Points, CameraModel | None]:
    """Where the one board of a set-up photo lies, its top left first (photo pixels), and the camera to read
    it through.

    ``corners_xy`` given: they are the board's, as the owner placed them, and their first is its top left,
    unless ``turn`` (1 to 4) says to take their corner ``turn`` as the top left instead; where the game's
    layout is known and the board is surely upright at another turn, :class:`UnsureTurn` asks (a corner
    given from the photo's top left, not the board's). Else the board is found (:func:`find_board`), and
    which way up it lies is weighed (:func:`board_turns`) unless stickers tell it or ``turn`` does: a turn
    not sure is never taken, :class:`UnsureTurn` asks for it."""
    if turn is not None and not 1 <= turn <= 4:
        raise StateError(f"--turn {turn}: give 1, 2, 3 or 4 (the turn pictures' numbers)")
    given = corners_xy is not None
    if corners_xy is not None:
        # Corners that enclose no board, or go round the wrong way, are said so before any turn is weighed.
        quad_from_corners(corners_xy, (image.shape[1], image.shape[0]), camera)
        outline, oriented = np.asarray(corners_xy, np.float64), False
        lens = camera if camera is not None else given_lens(image, outline, [profile])
    else:
        quad, lens = find_board(image, profile, camera, stickers)
        outline, oriented = quad.corners_xy, quad.oriented
    if turn is not None:
        return np.roll(outline, -(turn - 1), axis=0), lens
    if oriented or reader_for(profile).turns_freely or (given and profile.game == custom_grid.GAME):
        return outline, lens
    turns = board_turns(image, profile, outline, lens)
    if given:
        # The layout weighed surely says which corner is the top left; the sides' proportions, measured
        # through a lens guessed from them, only where it does not: at 35 degrees they took true corners for
        # a quarter turn off on 5 of 78 own-copy photos whose layout was sure of them (see the experiments).
        if turns.sure:
            if turns.best != 0:
                raise UnsureTurn(turns, given=True)
            return outline, lens
        if _quarter_off(outline, profile, image.shape[1::-1], lens):
            w, h = profile.size_mm
            raise UnsureTurn(
                turns,
                why=f"the corners given make the board {h:.0f} mm wide and {w:.0f} mm high, not {w:.0f} by "
                f"{h:.0f}: the first of them is not the board's top-left corner",
            )
        return outline, lens
    if not turns.sure:
        raise UnsureTurn(turns)
    return turns.corners[turns.best], lens


# Boards whose sides differ by less than this share are too near square for their corners to tell a quarter
# turn by.
SQUARE_SHARE = 0.08


def _quarter_off(
    outline: Points, profile: BoardProfile, size_wh: tuple[int, int], camera: CameraModel | None
) -> bool:
    """Whether corners placed by the owner picture the board a quarter turn off: its first side (top left to
    top right) as long, for its second, as the board's height is for its width."""
    w, h = profile.size_mm
    if abs(np.log(w / h)) < np.log(1 + SQUARE_SHARE):
        return False
    ideal = camera.undistort_px(outline) if camera is not None else outline
    seen, typed = float(np.log(aspect(ideal, matrix_or_guess(camera, size_wh)))), float(np.log(w / h))
    return abs(seen + typed) < abs(seen - typed)


def read_one_board(
    image: NDArray[np.uint8],
    profile: BoardProfile,
    camera: CameraModel | None,
    corners_xy: Points | None = None,
    stickers: bool = False,
    turn: int | None = None,
) -> BoardReading:
    """The one board of a set-up photo, read with ``profile`` and its game's shipped models where
    :func:`place_board` places it.

    Raises NoBoardError when none is found, StateError when several are, and :class:`UnsureTurn` when
    which way up it lies is not clear.
    """
    game = profile.game
    corners_xy, camera = place_board(image, profile, camera, corners_xy, stickers, turn)
    readings = read_photo(
        image,
        [profile],
        {game: load_classifier(game)},
        {game: load_orienter(game)},
        camera,
        corners_xy=corners_xy,
        stickers=stickers,
        segmenter=load_segmenter(),
    )
    if len(readings) != 1:
        raise StateError(
            f"{len(readings)} boards found: photograph one board at a time (or give its corners)"
        )
    return readings[0]


def make_profile(state: StateDir, profile: BoardProfile, reading: BoardReading | None) -> BoardColour | None:
    """Save ``profile`` and, from its photo's reading, its rectified picture and its background colour.

    Returns the colour, None when there is no reading or the background could not be measured (colours are
    then not normalised). A board partly out of the photo is refused before anything is saved.
    """
    if reading is not None and not reading.in_frame:
        raise StateError(OUT_OF_PHOTO)
    save_profile(state, profile)
    if reading is None:
        return None
    save_picture(state, profile.name, reading.rectified)
    colour = measure(reading.rectified, profile)
    if colour is not None:
        save_colour(state, profile.name, colour)
    return colour


def enrolment_profile(state: StateDir, name: str, game: str | None) -> BoardProfile:
    """The profile to enrol: the stored ``name`` (which must be a board of ``game`` when that is given), else
    a new one of ``game``."""
    if profile_exists(state, name):
        profile = load_bundle(state, name).profile
        if game and game != profile.game:
            raise StateError(
                f"profile {name!r} is a board of {get_game(profile.game).title}, "
                f"not of {get_game(game).title}"
            )
        return profile
    if not game:
        raise StateError(f"no profile {name!r} yet: give --game to make one")
    get_game(game)
    return new_profile(name, game, {})


def check_enrolment_state(truth: Any, game: str, where: str) -> dict[str, Any]:
    """``truth`` if it is a state of ``game`` that the rules accept; StateError naming ``where`` otherwise."""
    if not isinstance(truth, dict) or truth.get("game") != game:
        raise StateError(f'{where}: expected a {game} state (its "game" field)')
    read_state(truth)  # a state that breaks the rules would teach the classifier nonsense
    return truth


def _enrol(
    state: StateDir, profile: BoardProfile, examples: Sequence[Example], stickers: bool
) -> tuple[Enrolment, list[tuple[int, int]]]:
    """Enrol ``profile`` from ``examples``, save it with its enrolment, and read each example with the profile
    taught from the others (:func:`calibration.enroll.left_out`).

    The photos are read in the profile's light (its background colour), as boards scored with it are; a
    profile that has none yet takes it from the first photo.
    """
    is_custom = profile.game == custom_grid.GAME
    base = base_classifier(reader_for(profile).game)
    # No layout model knows a user's own grid (its corners or stickers say which way up it lies), nor turns a
    # board that reads alike whichever way up it lies (a kingdom).
    orienter = None if is_custom or reader_for(profile).turns_freely else load_orienter(profile.game)
    colour = load_bundle(state, profile.name).colour if profile_exists(state, profile.name) else None
    measured = colour is None and bool(examples)
    if measured:
        colour = example_colour(profile, base, orienter, examples[0], stickers)
    enrolment = enrol(profile, base, orienter, examples, stickers=stickers, reference=colour)
    save_profile(state, profile)
    if measured and colour is not None:
        save_colour(state, profile.name, colour)
    save_enrolment(state, profile.name, enrolment)
    # A profile not made from a photo finds its board again by the first teaching photo's picture.
    picture = None if has_picture(state, profile.name) else example_picture(profile, examples)
    if picture is not None:
        save_picture(state, profile.name, picture)
    # A board that turns freely (a kingdom) is found by its grid and its art's colours, in this table's light.
    art = example_art(profile, examples) if reader_for(profile).turns_freely else None
    if art is not None:
        save_art(state, profile.name, art)
    return enrolment, left_out(profile, base, orienter, examples, stickers, colour)


def teach_profile(
    state: StateDir,
    profile: BoardProfile,
    new: Sequence[tuple[Path, Mapping[str, Any], Points | None]],
    camera: CameraModel | None,
    stickers: bool = False,
) -> tuple[Enrolment, TeachingReport]:
    """Keep each new photo (its path, its board's true state, its corners) among ``profile``'s teaching
    photos, then enrol the profile from all of them (:func:`reteach`)."""
    for photo, truth, corners in new:
        check_enrolment_state(truth, profile.game, str(photo))
        if corners is not None:
            check_corner_order(state, profile, photo, corners)
    before = {p.id for p in teaching.photos(state, profile.name)}
    added = [teaching.add(state, profile.name, photo, truth, corners) for photo, truth, corners in new]
    try:
        return reteach(state, profile, camera, stickers)
    except ValueError:
        # A photo whose board cannot be read would stop every later teaching: it does not stay.
        for ident in set(added) - before:
            teaching.remove(state, profile.name, ident)
        raise


def corner_turn(state: StateDir, profile: BoardProfile, image: NDArray[np.uint8], corners_xy: Points) -> int:
    """Which of ``corners_xy`` (``image``'s pixels, clockwise, as an owner gave or placed them) is the board's
    top left as the profile's picture of the board shows it: 0 (the first, as asked) where it is, or where
    nothing tells (no picture, its picture not found there, or bare tiles, which read alike whichever way up
    they lie). Corners from the photo's top left, not the board's, would read or teach every cell as
    another's."""
    if reader_for(profile).turns_freely or not has_picture(state, profile.name):
        return 0
    picture = load_bundle(state, profile.name).picture()
    if picture is None:
        return 0
    return picture_turn(image, picture, np.asarray(corners_xy, np.float64)) or 0


def corner_order_words(first: int, profile: BoardProfile) -> str:
    """What is wrong with corners whose ``first``-th (0 on) is the board's top left, in the owner's words."""
    return (
        f"the corners given start at the board's corner {(4 - first) % 4 + 1} (counted clockwise from its "
        f"top left), not at its top left, which is corner {first + 1} as given (the board's picture in "
        f"profile {profile.name!r} shows which way up it lies)"
    )


def check_corner_order(state: StateDir, profile: BoardProfile, photo: Path, corners_xy: Points) -> None:
    """Refuse corners given from the photo's top left where the profile's picture of the board shows another
    of them is the board's (:func:`corner_turn`): said with the corners in the board's order, to give
    again."""
    data = photo.read_bytes()
    width, _ = check_photo(data)
    image = decode_photo(data)
    scale = image.shape[1] / width
    first = corner_turn(state, profile, image, np.asarray(corners_xy, np.float64) * scale)
    if first:
        upright = np.roll(np.asarray(corners_xy, np.float64), -first, axis=0)
        typed = ",".join(f"{x:.0f},{y:.0f}" for x, y in upright)
        raise StateError(
            f"{photo.name}: {corner_order_words(first, profile)}. Give them from the board's own top-left "
            f"corner, clockwise: --corners {typed}"
        )


def outdated(state: StateDir, name: str) -> bool:
    """Whether profile ``name`` was taught on another version's model and kept photos to be taught again
    from: a new version of the software that reads cells otherwise cannot use the old enrolment."""
    bundle = load_bundle(state, name)
    if bundle.enrolment is None or not teaching.photos(state, name):
        return False
    return bundle.enrolment.model != base_classifier(reader_for(bundle.profile).game).model_id


def _example(photo: teaching.TeachingPhoto, profile: BoardProfile, camera: CameraModel | None) -> Example:
    """A teaching photo as the reader takes it (decoded reduced where large, as an upload is: its corners
    scaled with it), read through the table camera's calibration where it is that camera's size, else
    through the lens its board's sides show, read once: each of its views read for teaching, its corners
    moved a little, would read another lens from them."""
    data = photo.photo.read_bytes()
    width, _ = check_photo(data)
    image = decode_photo(data)
    scale = image.shape[1] / width
    corners = None if photo.corners_xy is None else photo.corners_xy * scale
    fits = camera is not None and tuple(camera.size_wh) == (image.shape[1], image.shape[0])
    lens = camera if fits else None if corners is None else given_lens(image, corners, [profile])
    return Example(image, check_enrolment_state(photo.state, profile.game, photo.id), corners, lens)


def reteach(
    state: StateDir, profile: BoardProfile, camera: CameraModel | None, stickers: bool = False
) -> tuple[Enrolment, TeachingReport]:
    """Enrol ``profile`` from every one of its teaching photos and report how each reads when left out."""
    kept = teaching.photos(state, profile.name)
    if not kept:
        raise StateError(f"profile {profile.name!r} has no teaching photos yet")
    examples = [_example(p, profile, camera) for p in kept]
    enrolment, figures = _enrol(state, profile, examples, stickers)
    report = teaching.TeachingReport(
        len(kept),
        tuple(teaching.LeftOut(p.id, cells, wrong) for p, (cells, wrong) in zip(kept, figures, strict=False)),
    )
    teaching.save_report(state, profile.name, report)
    return enrolment, report
