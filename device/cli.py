"""The ``garden-scorer`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import PATTERN_SIDES
from calibration.profiles import GridPlace
from calibration.statedir import StateDir
from device.mqtt.settings import PASSWORD_CREDENTIAL, MqttSettings, table_name
from device.photo import ScoredBoard
from device.report import breakdown_text, result_json, result_text
from device.statefile import load_state_json
from examples import example_photos, example_states, example_views
from scoring.core import InvalidState, StateError
from scoring.registry import GAMES, Kind, get_entry, get_game, read_state
from vision.camera_model import CameraModel
from vision.readers.four_gardens import EXTRA_REWARDS_BY_COLOUR

EXIT_BAD_INPUT = 2
# A photo read, but no board in it could be scored (each says why): not a success for a script.
EXIT_NOT_SCORED = 1


def _score_state_file(path: Path, as_json: bool) -> str:
    rules, state = read_state(load_state_json(path))
    result = rules.score(state)
    if as_json:
        return json.dumps(result_json(result), indent=2)
    return result_text(result, f"{rules.title} — {path.name}")


def cmd_score_state(args: argparse.Namespace) -> int:
    print(_score_state_file(args.file, args.json))
    return 0


def example_hand(game: str, truth: Mapping[str, Any]) -> dict[str, Any]:
    """What a player types in for an example photo: everything the photo cannot show (for a shared board, a
    state file of the players' coins, cards and colours, whose board part is read from the photo instead;
    for a table game, photographed whole, the table's set-up)."""
    entry = get_entry(game)
    if entry.kind is Kind.SHARED_BOARD:
        return dict(truth)
    if entry.kind is Kind.TABLE:
        return {"setup": truth["setup"]}
    return {k: v for k, v in truth.items() if k in entry.hand_fields}


def cmd_demo(args: argparse.Namespace) -> int:
    from device.photo import load_camera, score_image
    from models import model_path
    from vision.camera_model import recorded_camera
    from vision.image_io import read_image

    for path in example_states():
        print(_score_state_file(path, as_json=False))
        print()
    print(f"Scored {len(example_states())} example states from {', '.join(GAMES)}.\n")
    for photo in example_photos():
        game = photo.stem
        if not model_path(game).is_file():
            continue  # no model shipped
        rendered = json.loads(photo.with_suffix(".json").read_text())
        hand = example_hand(game, rendered["boards"][0]["state"])
        # Read as on a calibrated table (the README's set-up): the camera the photo was taken with is what
        # `calibrate camera` measures; crops turned by where the camera stands need it.
        boards = score_image(read_image(str(photo)), game, hand, recorded_camera(rendered))
        for number, board in enumerate(boards, start=1):
            # A table's photo shows several boards: each named, not the photo's name twice.
            _print_board(
                f"Photo {photo.name}" + (f", board {number} of {len(boards)}" if len(boards) > 1 else ""),
                board,
            )
    # One board photographed from two sides: what the miniatures hide in one photo, the other shows.
    for game, views in example_views().items():
        first, *others = (read_image(str(view)) for view in views)
        folder = views[0].parent
        hand = json.loads((folder / f"{game}.json").read_text())
        camera = load_camera(folder / "camera.json")
        for board in score_image(first, game, hand, camera, also=others):
            _print_board(f"Photos {' and '.join(view.name for view in views)}, read together", board)
    return 0


def _print_board(heading: str, board: ScoredBoard) -> None:
    print(
        f"{heading}: {GAMES[board.reading.game].title}, read with confidence {board.reading.confidence:.3f}"
    )
    for flag in board.flags:
        print(f"  ! {flag}")
    if board.breakdown is not None:
        print(breakdown_text(board.breakdown))
    if board.table is not None:
        print(result_text(board.table, "").lstrip())
    print()


def _pair_of(lo: int, hi: int, what: str) -> Callable[[str], tuple[int, int]]:
    """An argparse type for ``AxB`` with both numbers in ``lo..hi``."""
    from device.photo import parse_pair

    def parse(text: str) -> tuple[int, int]:
        try:
            return parse_pair(text, lo, hi, what)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


size = _pair_of(64, 8192, "WIDTHxHEIGHT, e.g. 2304x1296")
_size_small = _pair_of(*PATTERN_SIDES, "COLSxROWS, e.g. 9x6")


def _corners(text: str) -> list[tuple[float, float]]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 8 numbers x1,y1,...,x4,y4, got {text!r}") from None
    if len(values) != 8:
        raise argparse.ArgumentTypeError(f"expected 8 numbers (4 corners), got {len(values)}")
    return [(values[i], values[i + 1]) for i in range(0, 8, 2)]


def _numbers(text: str, counts: tuple[int, ...], example: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like {example}, got {text!r}") from None
    if len(values) not in counts or not all(np.isfinite(values)):
        raise argparse.ArgumentTypeError(f"expected {' or '.join(map(str, counts))} numbers like {example}")
    return values


def _size_mm(text: str) -> tuple[float, float]:
    w, h = _numbers(text, (2,), "300,240")
    if min(w, h) <= 0:
        raise argparse.ArgumentTypeError(f"a board's size must be positive, got {text!r}")
    return w, h


def _grid_mm(text: str) -> tuple[str | None, GridPlace]:
    name, _, values = text.rpartition("=")
    return (name.strip() or None), GridPlace.typed(
        _numbers(values, (3, 4, 5), "24,58,28 or grid=24,58,28,29")
    )


def names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _hand(args: argparse.Namespace) -> dict[str, object]:
    from device.photo import parse_sets

    hand: dict[str, object] = {}
    if getattr(args, "hand", None):
        data = load_state_json(args.hand)
        if not isinstance(data, dict):
            raise StateError(f"{args.hand}: hand-entry file must be a JSON object")
        hand.update(data)
    sets = parse_sets(args.set or [])
    entry = get_entry(args.game)
    fields = {*entry.hand_fields, *(f.key for f in entry.hand_form)}
    unknown = sorted(set(sets) - fields)
    if unknown:
        # A field the game does not take would be dropped without a word (a kingdom's size set beside its
        # set-up is no Mighty Duel).
        takes = f"its fields: {', '.join(sorted(fields))}" if fields else "it takes none"
        raise StateError(f"--set {unknown[0]}: {entry.rules.title} has no such hand-entry field; {takes}")
    hand.update(sets)
    if getattr(args, "reward", None):
        tiles: dict[str, list[int]] = {}
        for colour, photo in args.reward:
            tiles[colour] = [_reward_tile(args, photo)]
            print(f"Extra-rewards tile of {colour}: {tiles[colour][0]} (read from {photo})", file=sys.stderr)
        hand[EXTRA_REWARDS_BY_COLOUR] = tiles
    return hand


def _reward_tile(args: argparse.Namespace, photo: Path) -> int:
    from device.photo import read_reward_tile
    from vision.image_io import read_image

    if args.game != "four-gardens":
        raise StateError("--reward reads Four Gardens' Extra-rewards tiles: use it with --game four-gardens")
    try:
        return read_reward_tile(read_image(str(photo)), _camera(args))
    except StateError as exc:
        raise StateError(f"{photo}: {exc}") from None


def _reward(text: str) -> tuple[str, Path]:
    colour, sep, photo = text.partition("=")
    if not sep or not colour or not photo:
        raise argparse.ArgumentTypeError(f"expected COLOUR=PHOTO, e.g. blue=tile.jpg, got {text!r}")
    return colour, Path(photo)


def state_of(args: argparse.Namespace) -> StateDir:
    return StateDir.resolve(args.state_dir)


def _camera(args: argparse.Namespace) -> CameraModel | None:
    """The calibration given, else the state folder's (made by ``calibrate camera``), else none."""
    from device.photo import load_camera, state_camera

    if args.calibration:
        return load_camera(args.calibration)
    return state_camera(state_of(args))


def _profile_models(args: argparse.Namespace) -> dict[str, Any]:
    from device.photo import profile_models

    return profile_models(state_of(args), args.game, getattr(args, "profile", None))


def cmd_score(args: argparse.Namespace) -> int:
    from device.photo import score_image
    from vision.image_io import read_image

    get_game(args.game)
    image = read_image(str(args.photo))
    also = [read_image(str(path)) for path in args.also]
    corners = np.array(args.corners, float) if args.corners else None
    if corners is not None and args.profile:
        from calibration.profiles import load_bundle
        from device.learn import check_corner_order

        state = state_of(args)
        check_corner_order(state, load_bundle(state, args.profile).profile, Path(args.photo), corners)
    boards = score_image(
        image,
        args.game,
        _hand(args),
        _camera(args),
        corners_xy=corners,
        stickers=args.stickers,
        also=also,
        **_profile_models(args),
    )
    if args.json:
        print(json.dumps({"boards": [b.to_json() for b in boards]}, indent=2))
    else:
        for i, board in enumerate(boards):
            _print_board(f"Board {i + 1}", board)
    scored = any(b.breakdown is not None or b.table is not None for b in boards)
    return 0 if scored else EXIT_NOT_SCORED


def cmd_debug(args: argparse.Namespace) -> int:
    import cv2

    from device.photo import load_classifier, load_segmenter, score_image, shipped_art
    from vision.debug import cell_sheet, draw_likeness, draw_masks, draw_quads, draw_reading
    from vision.image_io import read_image
    from vision.pipeline import locate_boards
    from vision.profile import default_profile
    from vision.read.cells import cut_along_lean, cut_cells
    from vision.read.classify import gated, unsure_rows
    from vision.readers import reader_for

    get_game(args.game)
    image = read_image(str(args.photo))
    camera = _camera(args)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    segmenter = load_segmenter()
    cv2.imwrite(str(out / "0-masks.png"), draw_masks(image, segmenter.masks(image)))
    models = _profile_models(args)
    profiles = models.get("profiles") or [default_profile(args.game)]
    art = models.get("art") or shipped_art(profiles)
    written = 2
    for key, colours in art.items():
        # Where the board's art colours are: the rough place a grid of tiles is looked for in.
        cv2.imwrite(str(out / f"0-art-{key}.png"), draw_likeness(image, colours.likeness(image)))
        written += 1
    quads, _ = locate_boards(image, profiles, camera, args.stickers, segmenter, art, models.get("pictures"))
    cv2.imwrite(str(out / "1-locate.jpg"), draw_quads(image, quads))
    corners = np.array(args.corners, float) if args.corners else None
    boards = score_image(
        image, args.game, _hand(args), camera, corners_xy=corners, stickers=args.stickers, **models
    )
    # The crops as the classifier that read them cut them (a profile's own, or the game's shipped one).
    classifier = models.get("classifiers", {}).get(args.game) or load_classifier(args.game)
    written += 4 * len(boards)
    for i, board in enumerate(boards, start=1):
        reader = reader_for(board.reading.profile)
        cv2.imwrite(str(out / f"2-board{i}-rectified.png"), board.reading.rectified.image_bgr)
        cells = cut_cells(
            board.reading.rectified,
            reader.regions,
            classifier.context_mm,
            classifier.crop_px,
            classifier.lean_up,
        )
        cv2.imwrite(str(out / f"3-board{i}-cells.png"), cell_sheet(cells))
        shifted = reader.shifted_look
        if shifted is not None:
            # The crops the cells read unsure were read again from, cut off their place.
            unsure = unsure_rows(classifier.classify(cells), shifted, reader.region_heads)
            if len(unsure):
                again = cut_cells(
                    board.reading.rectified,
                    reader.regions,
                    classifier.context_mm,
                    classifier.crop_px,
                    classifier.lean_up,
                    shifted.offsets_mm(),
                    frozenset(cells.keys[row] for row in unsure),
                )
                cv2.imwrite(str(out / f"3-board{i}-shifted.png"), cell_sheet(again))
                written += 1
        look = reader.turned_look
        if look is not None and look.top_mm:
            # The crops a standing piece's facing was read from, moved along its lean.
            predictions = board.reading.predictions
            pieces = tuple(predictions.keys[i] for i in gated(predictions, look))
            moved = cut_along_lean(
                board.reading.rectified,
                pieces,
                classifier.context_mm,
                classifier.crop_px,
                look.top_mm,
                look.along,
            )
            if moved.keys:
                cv2.imwrite(str(out / f"3-board{i}-moved.png"), cell_sheet(moved))
                written += 1
        cv2.imwrite(str(out / f"4-board{i}-labels.png"), draw_reading(board.reading))
        (out / f"5-board{i}-result.json").write_text(json.dumps(board.to_json(), indent=2))
    print(f"Wrote {written} files for {len(boards)} board(s) to {out}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from device.serve import ServeOptions, serve
    from examples import REPLAY_DIR

    get_game(args.game)
    cameras = {"demo": f"replay:{REPLAY_DIR}", "none": None, "": None}
    camera = cameras.get(args.camera, args.camera)
    # Empty values count as not given, so that a service can pass its settings' empty ones as they are.
    options = ServeOptions(
        args.game,
        camera,
        args.host,
        args.port,
        args.profile,
        tls_cert=Path(args.tls_cert) if args.tls_cert else None,
        tls_key=Path(args.tls_key) if args.tls_key else None,
        allowed_hosts=host_names(args.allowed_host),
        kiosk_token_file=Path(args.kiosk_token_file) if args.kiosk_token_file else None,
        mqtt=mqtt_settings(args),
        table=table_name(args.table) if args.table else None,
    )
    serve(state_of(args), options)
    return 0


def host_names(given: Sequence[str]) -> tuple[str, ...]:
    """``--allowed-host`` values: each repeatable, or several separated by commas or spaces."""
    return tuple(name for names in given for name in names.replace(",", " ").split())


def mqtt_settings(args: argparse.Namespace) -> MqttSettings | None:
    """The broker ``--mqtt`` names (None: none), its password from ``--mqtt-password-file`` or systemd's
    ``mqtt-password`` credential."""
    from device.serve import credential

    if not args.mqtt:
        for given, option in ((args.mqtt_password_file, "--mqtt-password-file"), (args.mqtt_ca, "--mqtt-ca")):
            if given:
                raise ValueError(f"{option} is for a broker: give --mqtt too")
        return None
    given = args.mqtt_password_file
    password_file = Path(given) if given else credential(PASSWORD_CREDENTIAL)
    return MqttSettings.from_url(args.mqtt, password_file, Path(args.mqtt_ca) if args.mqtt_ca else None)


def _mqtt_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mqtt",
        metavar="URL",
        help="an MQTT broker to publish to (serve) or read from (hall): mqtt://[USER@]HOST[:PORT], or "
        "mqtts://... for TLS; none: no broker",
    )
    p.add_argument(
        "--mqtt-password-file",
        metavar="PATH",
        help="the file holding the broker user's password (default: systemd's mqtt-password credential); "
        "never on the command line",
    )
    p.add_argument(
        "--mqtt-ca", metavar="PATH", help="with mqtts://: the authority that signed the broker's certificate"
    )


def cmd_hall(args: argparse.Namespace) -> int:
    from datetime import datetime

    from device.hall.app import HallOptions, run_hall
    from device.hall.store import HALL_FILE

    settings = mqtt_settings(args)
    if settings is None:
        raise ValueError("the hall reads the tables from a broker: give --mqtt mqtt://[USER@]HOST[:PORT]")
    since = None
    if args.since:
        try:
            since = datetime.fromisoformat(args.since)
        except ValueError:
            raise ValueError(f"--since {args.since!r}: give a time such as 2026-11-29T18:00+01:00") from None
    run_hall(
        HallOptions(
            settings,
            state_of(args).root / HALL_FILE,
            host=args.host,
            port=args.port,
            evening_hours=args.evening_hours,
            evening_start=since,
            client_id=args.client_id,
            allowed_hosts=host_names(args.allowed_host),
        )
    )
    return 0


def cmd_kiosk_page(args: argparse.Namespace) -> int:
    from device.kiosk import write_kiosk_page
    from device.serve import read_kiosk_token

    write_kiosk_page(args.out, args.url, read_kiosk_token(args.token_file))
    print(f"Wrote {args.out}: open file://{args.out.resolve()} in the TV's browser")
    return 0


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    from calibration.camera import calibrate, save

    cal = calibrate(args.photos, args.pattern, args.size, args.square_mm)
    for name, rms in cal.per_photo.items():
        print(f"  {name}: RMS {rms:.3f} px")
    for name, reason in cal.rejected.items():
        print(f"  {name}: rejected, {reason}")
    print(f"RMS reprojection error {cal.rms:.4f} px over {len(cal.per_photo)} photos ({cal.model} model)")
    print(", ".join(f"{k} {v:.2f}" for k, v in cal.intrinsics().items()))
    print("distortion " + ", ".join(f"{v:.4f}" for v in cal.dist))
    out = args.out or state_of(args).camera
    save(cal, out)
    print(f"Saved to {out}")
    return 0


# Where `profile create` leaves the pictures of a board's four turns when it cannot tell which is upright.
TURNS_DIR = "turns"


def cmd_profile_create(args: argparse.Namespace) -> int:
    import shutil

    import cv2

    from calibration.profiles import new_profile, profile_exists, with_geometry
    from device.learn import UnsureTurn, make_profile, read_one_board
    from device.photo import parse_sets
    from vision.debug import draw_turn
    from vision.image_io import read_image

    get_game(args.game)
    state = state_of(args)
    if profile_exists(state, args.name) and not args.force:
        raise StateError(f"profile {args.name!r} exists in {state.profiles}; --force replaces it")
    profile = new_profile(args.name, args.game, parse_sets(args.set or []))
    if args.size_mm or args.grid_mm:
        profile = with_geometry(profile, args.size_mm, dict(args.grid_mm or []))
    reading = None
    turns_dir = state.root / TURNS_DIR / args.name
    if args.photo:
        corners = np.array(args.corners, float) if args.corners else None
        image = read_image(str(args.photo))
        camera = _camera(args)
        try:
            reading = read_one_board(image, profile, camera, corners, args.stickers, args.turn)
        except UnsureTurn as exc:
            # Shown, not guessed: the owner looks and says which way up the board lies.
            turns_dir.mkdir(parents=True, exist_ok=True)
            for k, turned in enumerate(exc.turns.corners, start=1):
                cv2.imwrite(str(turns_dir / f"turn-{k}.png"), draw_turn(image, turned, profile, camera))
            raise StateError(
                f"{exc}. The board at each of its four turns, its grid drawn where the profile puts it, is "
                f"in {turns_dir} (turn-1.png to turn-4.png); run again with --turn N for the one that is "
                "upright"
            ) from None
    shutil.rmtree(turns_dir, ignore_errors=True)
    if args.force:
        # Replaced whole: what the old profile learnt and kept was of another board, or another turn.
        shutil.rmtree(state.profile(args.name), ignore_errors=True)
    colour = make_profile(state, profile, reading)
    print(f"Profile {args.name!r} ({GAMES[args.game].title}) saved in {state.profile(args.name)}")
    if profile.setup:
        print("  game set-up: " + json.dumps(dict(profile.setup)))
    if reading is not None:
        corners_text = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in reading.corners_xy)
        print(f"  board found at {corners_text}; rectified picture saved")
        if colour is None:
            print("  ! the board's background could not be measured: colours will not be normalised")
        else:
            rgb = ", ".join(f"{v:.0f}" for v in colour.median_bgr[::-1])
            print(f"  the board's colour measured (red, green, blue {rgb}): other lamps' light allowed for")
        for flag in reading.photo_flags:  # of the board in the photo, not of its cells' reading
            print(f"  ! {flag}")
    return 0


def cmd_profile_list(args: argparse.Namespace) -> int:
    from calibration.profiles import list_profiles, load_bundle

    state = state_of(args)
    names = list_profiles(state)
    if not names:
        print(f"No profiles in {state.profiles} yet: `garden-scorer profile create NAME --game GAME PHOTO`")
    for name in names:
        bundle = load_bundle(state, name)
        learnt = [
            what
            for what, have in (("colour", bundle.colour), ("enrolment", bundle.enrolment))
            if have is not None
        ]
        print(f"{name}: {GAMES[bundle.profile.game].title}; learnt: {', '.join(learnt) or 'nothing yet'}")
    return 0


def cmd_seats(args: argparse.Namespace) -> int:
    from calibration.profiles import game_boards
    from calibration.seats import save, seats_from_photo
    from device.photo import load_segmenter
    from vision.image_io import read_image

    get_game(args.game)
    image = read_image(str(args.photo))
    state = state_of(args)
    setup, _ = seats_from_photo(
        image,
        args.game,
        _camera(args),
        args.names,
        args.players,
        args.stickers,
        load_segmenter(),
        game_boards(state, args.game),
    )
    path = state.table
    save(setup, path)
    for seat in setup.seats:
        print(f"{seat.name}: {seat.player or 'no player named'}")
    print(f"Saved {len(setup.seats)} seat(s) for {GAMES[args.game].title} to {path}")
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    import time

    from calibration.enroll import unchanged_note
    from calibration.profiles import custom_profile
    from device.learn import check_enrolment_state, enrolment_profile, teach_profile
    from device.photo import parse_sets
    from scoring import custom_grid
    from vision.image_io import read_image

    state = state_of(args)
    if len(args.files) % 2:
        raise StateError("give photos and their states in pairs: PHOTO STATE.json [PHOTO STATE.json ...]")
    custom = (args.rows, args.cols, args.labels)
    if any(custom) and not all(custom):
        raise StateError("a user-defined grid game needs all of --rows, --cols and --labels")
    if all(custom):
        if args.game not in (None, custom_grid.GAME):
            raise StateError(f"--rows/--cols/--labels make a {custom_grid.GAME} profile, not {args.game}")
        points = {k: int(v) for k, v in parse_sets(args.points or []).items()}
        profile = custom_profile(
            args.profile, args.rows, args.cols, args.labels, points, args.cell_mm, args.margin_mm, args.once
        )
    else:
        profile = enrolment_profile(state, args.profile, args.game)
    game = profile.game
    camera = _camera(args)
    pairs = list(zip(args.files[::2], args.files[1::2], strict=True))
    given: list[NDArray[np.float64] | None] = [np.array(c, np.float64) for c in args.corners or []]
    # Once: every photo's (a fixed camera); once per photo: each its own, in the photos' order.
    if given and not pairs:
        raise StateError("--corners goes with photos: the photos a profile kept keep their own corners")
    if len(given) not in (0, 1, len(pairs)):
        raise StateError(
            f"--corners given {len(given)} times for {len(pairs)} photos: give it once (the same place in "
            "every photo) or once per photo, in order"
        )
    corners: list[NDArray[np.float64] | None] = (
        given * len(pairs) if len(given) == 1 else given or [None] * len(pairs)
    )
    new = []
    for (photo, state_file), where in zip(pairs, corners, strict=True):
        truth = check_enrolment_state(load_state_json(state_file), game, str(state_file))
        read_image(str(photo))  # a photo that does not decode must not join the teaching photos
        new.append((Path(photo), truth, where))
    started = time.perf_counter()
    enrolment, report = teach_profile(state, profile, new, camera, args.stickers)
    seconds = time.perf_counter() - started
    print(
        f"Enrolled {args.profile!r} from its {enrolment.photos} teaching photo(s), {enrolment.cells} cells, "
        f"in {seconds:.1f} s; score with `garden-scorer score PHOTO --game {game} --profile {args.profile}`"
    )
    for x in report.left_out:
        print(f"  taught without photo {x.photo}, it reads {x.wrong} of its {x.cells} cells wrong")
    if enrolment.unchanged:
        print(f"The model's own reading kept for {unchanged_note(enrolment)}")
    return 0


def cmd_print_sheet(args: argparse.Namespace) -> int:
    from calibration.sheets import write_sheet

    caption = write_sheet(args.kind, args.paper, args.out)
    print(f"Wrote {args.out}: {caption}. Print at 100 % (actual size) and check one square with a ruler.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="garden-scorer", description="Score garden tile-laying board games from photos or state files."
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="where calibrations, profiles and history live (default: $STATE_DIRECTORY or "
        "$XDG_DATA_HOME/garden-scorer)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score-state", help="score a board or table state file (JSON)")
    p.add_argument("file", type=Path, help="state file; see examples/ and the README for each game's format")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_score_state)

    def photo_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("photo", type=Path, help="a JPEG or PNG photo")
        p.add_argument("--game", required=True, choices=GAMES, help="the game on the table")
        p.add_argument(
            "--set", action="append", metavar="FIELD=VALUE", help="a hand-entry field (repeatable)"
        )
        p.add_argument("--hand", type=Path, help="a JSON file of hand-entry fields")
        p.add_argument("--calibration", type=Path, help="camera calibration JSON (matrix, dist, size_wh)")
        p.add_argument(
            "--corners",
            type=_corners,
            help="the board's corners TL,TR,BR,BL (the board's own top left first) as x1,y1,...,x4,y4",
        )
        p.add_argument("--stickers", action="store_true", help="the boards wear ArUco corner stickers")
        p.add_argument("--profile", help="a stored board profile (its enrolment and colour are used)")
        p.add_argument(
            "--reward",
            action="append",
            type=_reward,
            metavar="COLOUR=PHOTO",
            help="Four Gardens: a photo of the Extra-rewards tile of the player with that marker colour",
        )

    p = sub.add_parser("score", help="score the boards in a photo")
    photo_options(p)
    p.add_argument(
        "--also",
        type=Path,
        action="append",
        default=[],
        metavar="PHOTO",
        help="another photo of the same board from another side, read with the first (repeatable): what "
        "miniatures or a lamp's glare hide in one, another shows (a kingdom may be turned in it)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("debug", help="write the picture after each vision stage")
    photo_options(p)
    p.add_argument("--out", type=Path, required=True, help="folder for the pictures")
    p.set_defaults(func=cmd_debug)

    p = sub.add_parser("serve", help="the web app, the TV page and the live loop on a camera")
    p.add_argument(
        "--camera",
        default="none",
        help="picamera, webcam:N, rtsp://..., replay:DIR, demo (the bundled replay), or none (the default: "
        "no live scoring, photos are uploaded)",
    )
    p.add_argument("--game", default="alices-garden", choices=GAMES, help="the game the camera watches")
    p.add_argument("--profile", help="a stored board profile for the camera's boards")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on: 127.0.0.1 (the default) keeps the app on this machine, 0.0.0.0 lets "
        "phones on the network reach it",
    )
    p.add_argument("--port", type=int, default=8080)
    p.add_argument(
        "--tls-cert", metavar="PATH", help="serve HTTPS with this certificate (PEM; with --tls-key)"
    )
    p.add_argument("--tls-key", metavar="PATH", help="the certificate's private key (PEM)")
    p.add_argument(
        "--allowed-host",
        metavar="NAME",
        action="append",
        default=[],
        help="another name the app answers to (repeatable, or several separated by commas), besides "
        "localhost, IP addresses and this machine's own names (HOSTNAME, HOSTNAME.local); requests for any "
        "other name are refused",
    )
    p.add_argument(
        "--kiosk-token-file",
        metavar="PATH",
        help="the file holding the token the TV's browser signs in with (see kiosk-page); default: "
        "systemd's kiosk-token credential, else a new token each run, printed on a terminal only",
    )
    _mqtt_arguments(p)
    p.add_argument(
        "--table",
        help="this table's name on the broker (with --mqtt): lowercase letters, digits and '-', e.g. table-3",
    )
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "hall",
        help="the hall: one big screen with every table's live scores and the evening's standings, read from "
        "the tables' MQTT broker (docs/hall.md)",
    )
    _mqtt_arguments(p)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on: 127.0.0.1 (the default) keeps the page on this machine, 0.0.0.0 lets the "
        "hall's screens reach it",
    )
    p.add_argument("--port", type=int, default=8090)
    p.add_argument(
        "--evening-hours",
        type=float,
        default=12.0,
        help="the standings count the games of the last so many hours (default 12)",
    )
    p.add_argument(
        "--since", metavar="TIME", help="or the games since this time (ISO 8601, with its time zone)"
    )
    p.add_argument(
        "--client-id",
        default="garden-scorer-hall",
        help="the hall's name on the broker, under which it keeps the results sent while it is away (two "
        "halls on one broker need two)",
    )
    p.add_argument(
        "--allowed-host",
        metavar="NAME",
        action="append",
        default=[],
        help="another name the page answers to (repeatable), besides localhost, IP addresses and this "
        "machine's own names",
    )
    p.set_defaults(func=cmd_hall)

    p = sub.add_parser(
        "kiosk-page",
        help="write the TV's start-up page: a file that signs its browser in as the kiosk, so that the "
        "token is never on a command line",
    )
    p.add_argument("--token-file", type=Path, required=True, help="the kiosk's token (serve's)")
    p.add_argument(
        "--url", default="http://127.0.0.1:8080/", help="the scorer's address, as the TV reaches it"
    )
    p.add_argument("--out", type=Path, required=True, help="the page file to write (readable by you alone)")
    p.set_defaults(func=cmd_kiosk_page)

    p = sub.add_parser(
        "calibrate", help="calibrate the camera (more set-up steps come with the table set-up)"
    )
    calib = p.add_subparsers(dest="what", required=True)
    c = calib.add_parser("camera", help="intrinsics and lens distortion from photos of a pattern")
    c.add_argument("photos", nargs="+", type=Path, help="photos of the pattern from many angles (10-20)")
    c.add_argument("--pattern", choices=("charuco", "chessboard"), required=True)
    c.add_argument(
        "--size",
        type=_size_small,
        required=True,
        help="COLSxROWS: inner corners (chessboard), squares (ChArUco)",
    )
    c.add_argument("--square-mm", type=float, required=True, help="a square's side in millimetres")
    c.add_argument("--out", type=Path, help="where to save it (default: camera.json in the state folder)")
    c.set_defaults(func=cmd_calibrate_camera)

    p = sub.add_parser("profile", help="your own board: its game set-up, colour and picture")
    prof = p.add_subparsers(dest="what", required=True)
    c = prof.add_parser("create", help="a profile from the game's board, checked set-up and one photo")
    c.add_argument("name", help="a short name, e.g. kitchen-alice")
    c.add_argument("photo", type=Path, nargs="?", help="a photo of the board alone (optional)")
    c.add_argument("--game", required=True, choices=GAMES, help="the game the board is for")
    c.add_argument(
        "--set", action="append", metavar="FIELD=VALUE", help="a game set-up field, e.g. chess_columns=[2,5]"
    )
    c.add_argument("--calibration", type=Path, help="camera calibration JSON (default: the state folder's)")
    c.add_argument(
        "--corners",
        type=_corners,
        help="the board's corners TL,TR,BR,BL (the board's own top left first) as x1,y1,...,x4,y4",
    )
    c.add_argument("--stickers", action="store_true", help="the board wears ArUco corner stickers")
    c.add_argument(
        "--force",
        action="store_true",
        help="replace a profile of that name: everything it learnt and kept goes (its teaching photos too)",
    )
    c.add_argument(
        "--turn",
        type=int,
        choices=(1, 2, 3, 4),
        help="which way up the board lies, where the photo does not tell: the number of its upright turn "
        "picture (written when it is not clear), or, with --corners, which corner is the top left",
    )
    c.add_argument("--size-mm", type=_size_mm, metavar="W,H", help="the real board's width and height (mm)")
    c.add_argument(
        "--grid-mm",
        type=_grid_mm,
        action="append",
        metavar="[GRID=]X,Y,CELL[,STEP[,ROW_STEP]]",
        help="where a grid lies on the real board (mm from its top-left corner to the first cell's, a cell's "
        "side, the step to the next cell, and down to the next row where it differs); GRID names it on a "
        "board of several (repeatable): grids not given keep their place beside the first one given",
    )
    c.set_defaults(func=cmd_profile_create)
    c = prof.add_parser("list", help="the stored profiles and what has been learnt for each")
    c.set_defaults(func=cmd_profile_list)

    p = sub.add_parser("seats", help="where each player's board lies, from a photo of the laid-out table")
    p.add_argument("photo", type=Path, help="a photo of the table with every player's board in place")
    p.add_argument("--game", required=True, choices=GAMES, help="the game on the table")
    p.add_argument("--names", type=names, help="seat names, in reading order (default: seat 1, seat 2, ...)")
    p.add_argument("--players", type=names, help="the players in those seats, same order")
    p.add_argument("--calibration", type=Path, help="camera calibration JSON (default: the state folder's)")
    p.add_argument("--stickers", action="store_true", help="the boards wear ArUco corner stickers")
    p.set_defaults(func=cmd_seats)

    p = sub.add_parser("enroll", help="learn the real tile art from photos whose state you know")
    p.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="PHOTO STATE.json",
        help="pairs of photo and state; none: the profile is taught again from the photos it kept",
    )
    p.add_argument("--profile", required=True, help="the profile to enrol (made from --game if new)")
    p.add_argument("--game", choices=GAMES, help="the game, when the profile is new")
    p.add_argument("--calibration", type=Path, help="camera calibration JSON (default: the state folder's)")
    p.add_argument("--stickers", action="store_true", help="the boards wear ArUco corner stickers")
    p.add_argument(
        "--corners",
        type=_corners,
        action="append",
        help="the board's corners TL,TR,BR,BL as x1,y1,...,x4,y4: once for every photo (a fixed camera), or "
        "once per photo, in the photos' order",
    )
    g = p.add_argument_group("a user-defined grid game (a new custom-grid profile)")
    g.add_argument("--rows", type=int, help="rows of cells")
    g.add_argument("--cols", type=int, help="columns of cells")
    g.add_argument("--labels", type=names, help="what a cell can show, e.g. empty,flower,pond")
    g.add_argument("--points", action="append", metavar="LABEL=N", help="points per cell showing LABEL")
    g.add_argument(
        "--once",
        type=names,
        default=[],
        help="labels every board shows on exactly one cell (a starting tile, a castle), e.g. castle",
    )
    g.add_argument("--cell-mm", type=float, default=40.0, help="a cell's side (default 40)")
    g.add_argument("--margin-mm", type=float, default=20.0, help="the board's margin round the grid")
    p.set_defaults(func=cmd_enroll)

    p = sub.add_parser("print-sheet", help="write a printable calibration board or corner-sticker sheet")
    p.add_argument("kind", choices=("charuco", "stickers"))
    p.add_argument("--paper", default="A4", help="A4, A3 or letter")
    p.add_argument("--out", type=Path, required=True, help="FILE.pdf or FILE.png")
    p.set_defaults(func=cmd_print_sheet)

    p = sub.add_parser("demo", help="score the bundled example states")
    p.set_defaults(func=cmd_demo)
    return parser


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run its command; a refused input prints what is wrong and exits 2, never a
    traceback (shared by ``garden-scorer`` and ``garden-scorer-lab``)."""
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except InvalidState as exc:
        print("error: the state breaks the rules, so it is not scored:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:  # ImageError, NoBoardError and bad options: all say what to do
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`... | head`): nothing more to say, and no traceback at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
