"""The ``garden-scorer-lab`` command: what the scorer is built and measured with (render, train, bench,
screenshots). Installed by the ``lab`` extra; training also needs the ``train`` extra (torch)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from device.cli import names, run, size, state_of
from scoring.core import StateError
from scoring.registry import GAMES, get_game

# The photos every benchmark figure in the model cards and docs/benchmarks.md was measured on.
BENCH_SEED = 20261121
BENCH_COUNT = 100


def cmd_render(args: argparse.Namespace) -> int:
    from lab.synth.art import TRAINING_PACKS
    from lab.synth.camera import PhotoOptions
    from lab.synth.games import ARTISTS
    from lab.synth.render import RenderSpec, contact_sheet, render_set

    # A user-defined game has no synthetic art: its look is only ever learnt from the user's photos.
    games = tuple(g for g in GAMES if g in ARTISTS) if args.game == "all" else names(args.game)
    try:
        spec = RenderSpec(
            games=games,
            seed=args.seed,
            packs=names(args.art) if args.art else TRAINING_PACKS,
            boards=args.boards,
            options=PhotoOptions(size_wh=args.size, hands=args.hands, max_tilt_deg=args.max_tilt),
        )
    except ValueError as exc:
        raise StateError(str(exc)) from None
    paths = render_set(spec, args.count, args.out, workers=args.workers)
    print(f"Wrote {len(paths)} photos and their truth to {args.out}")
    if args.contact_sheet:
        import cv2

        sheet = contact_sheet(paths[: args.sheet_count])
        if not cv2.imwrite(str(args.contact_sheet), sheet):
            raise StateError(f"{args.contact_sheet}: could not write the contact sheet (is it a .png path?)")
        print(f"Contact sheet: {args.contact_sheet}")
    return 0


def _bench_live(args: argparse.Namespace, games: Sequence[str]) -> int:
    """Frames per second of the live loop on a replayed table: ``--camera``, or fresh photos of each game
    held for several frames each, as a camera over a still table gives them."""
    import tempfile

    from device.camera import ReplayCamera, open_camera
    from device.live import measure_live
    from device.serve import live_scorer
    from lab.synth.render import RenderSpec, render_set

    rows = []
    for game in games:
        get_game(game)
        with tempfile.TemporaryDirectory() as folder:
            if args.camera:
                camera = open_camera(args.camera, loop=True)
            else:
                render_set(RenderSpec((game,), args.seed), 4, Path(folder))
                camera = ReplayCamera(folder, loop=True, hold=10)
            with camera:
                figures = measure_live(camera, live_scorer(state_of(args), game, None), args.count)
        rows.append({"game": game, "camera": camera.describe(), **figures})
    for row in rows:
        ms = row["process_ms"]
        print(
            f"{row['game']:<14} {row['fps']:>6.1f} fps end to end, "
            f"{row['process_fps']:>6.1f} fps processing, {row['scored_pct']:>5.1f} % of frames read; "
            f"per frame {ms['median']:.1f} ms median, {ms['p95']:.1f} ms p95 ({row['camera']})"
        )
    if args.json:
        args.json.write_text(json.dumps({"live": rows}, indent=2))
        print(f"JSON: {args.json}")
    return 0


def _bench_reliability(args: argparse.Namespace) -> int:
    """Fuzz, kill, soak, load, schemathesis and the security audit: a table, JSON, and status 1 if any
    claim failed."""
    from lab.reliability.run import QUICK, Plan, all_ok, format_table, run_reliability

    plan = QUICK if args.quick else Plan()
    if args.seed is not None:
        plan = replace(plan, seed=args.seed)
    results = run_reliability(plan, report=lambda line: print(line, file=sys.stderr))
    print(format_table(results))
    if args.json:
        args.json.write_text(json.dumps({"reliability": results}, indent=2))
        print(f"JSON: {args.json}")
    return 0 if all_ok(results) else 1


def _bench_own_copy(args: argparse.Namespace) -> int:
    """Copies of each game no model learnt, set up and taught through the web app: a table and JSON."""
    from lab.bench_own_copy import FRESH, GAMES, format_summary, run_own_copy, summary
    from lab.synth.art import UNTUNED_PACK

    games = names(args.game) if args.game else GAMES
    for game in games:
        if game not in GAMES:
            raise StateError(f"--own-copy measures {', '.join(GAMES)}, not {game}")
    copies = [int(c) for c in names(args.copies)]
    results = run_own_copy(
        games,
        copies,
        report=lambda line: print(line, file=sys.stderr),
        pack=args.art or UNTUNED_PACK,
        fresh=args.count if args.count != BENCH_COUNT else FRESH,
    )
    rows = summary(results)
    print(format_summary(rows))
    if args.json:
        args.json.write_text(json.dumps({"own_copy": rows, "copies": results}, indent=2))
        print(f"JSON: {args.json}")
    return 0


def _bench_photos(args: argparse.Namespace) -> int:
    """Real photos whose states are known: read and scored, or taught from some layouts and the rest read."""
    import cv2

    from lab.bench import format_table
    from lab.bench_real import as_custom_grid, format_summary, load_folder, run_real, summary

    cv2.setNumThreads(1)  # measured on one thread, as the Pi's budget is counted
    if args.locate:
        return _bench_locate(args)
    photos = load_folder(args.photos, args.whole_photo)
    if args.tiles and not args.custom_grid:
        raise StateError("--tiles reads the states as a custom grid's tiles: give --custom-grid too")
    if args.custom_grid:
        photos = as_custom_grid(photos, args.tiles)
    game = photos[0].state["game"]
    if args.game and args.game != game:
        raise StateError(f"--game {args.game}: the states in {args.photos} are {game}'s")
    results = run_real(
        game,
        photos,
        args.teach,
        args.folds,
        args.seed or 0,
        report=lambda line: print(line, file=sys.stderr),
        untaught=args.untaught,
    )
    tables = [r.table() for r in results]
    print(format_table(tables))
    out: dict[str, Any] = {"results": tables}
    if args.teach:
        out["summary"] = summary(tables)
        print()
        print(format_summary(out["summary"]))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
        print(f"JSON: {args.json}")
    return 0


def _bench_locate(args: argparse.Namespace) -> int:
    """Real photos whose boards' outlines were marked: how near the boards are found, no corners given."""
    from lab.bench_locate import (
        format_locate,
        format_phone_speed,
        format_scores,
        load_outlines,
        load_truth,
        run_locate,
        run_phone_speed,
        run_scores,
    )

    if not args.game:
        raise StateError("--locate needs --game GAME: the game whose boards are looked for")
    get_game(args.game)
    models = None
    if args.profile:
        from calibration.statedir import StateDir
        from device.photo import profile_models

        models = profile_models(StateDir.resolve(args.state_dir), args.game, args.profile)
    photos = load_outlines(args.photos)
    if args.phone:
        if models is not None or args.truth or args.empty:
            raise StateError(
                "--phone times the shipped models' whole scoring: leave out --profile, --truth, --empty"
            )
        result = run_phone_speed(args.game, photos, lambda line: print(line, file=sys.stderr))
        print(format_phone_speed(result))
    elif args.truth:
        if models is not None:
            raise StateError("--truth scores with the game's shipped models: leave out --profile")
        result = run_scores(
            args.game, photos, load_truth(args.truth, photos), lambda line: print(line, file=sys.stderr)
        )
        print(format_scores(result))
    else:
        report = lambda line: print(line, file=sys.stderr)  # noqa: E731
        result = run_locate(args.game, photos, report, models, args.empty)
        print(format_locate(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
        print(f"JSON: {args.json}")
    return 0


def _bench_steady(args: argparse.Namespace, games: tuple[str, ...]) -> int:
    """How far each game's reading moves under a grey level, half a pixel, 5 JPEG steps (issue #62)."""
    from lab.bench_steady import format_steady, run_steady

    for game in games:
        get_game(game)
    result = run_steady(games, args.count, args.seed, lambda line: print(line, file=sys.stderr))
    print(format_steady(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
        print(f"JSON: {args.json}")
    return 0


def _bench_hall(args: argparse.Namespace) -> int:
    """Many tables publishing into one broker and one hall, with broker restarts and tables killed (#63)."""
    from lab.bench_hall import format_hall, run_hall_bench

    result = run_hall_bench(
        args.tables,
        args.minutes * 60,
        args.restarts,
        args.kills,
        args.seed or 1,
        lambda line: print(line, file=sys.stderr),
    )
    print(format_hall(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
        print(f"JSON: {args.json}")
    return 0


def _real_tiles(game: str) -> Path:
    """The folder of labelled photos of ``game``'s real tiles its model's recipe learns from: what
    ``bench --clutter`` lays boards of."""
    from lab.train.classifier import config_for, real_folder

    recipe = config_for(game).real
    if not recipe or not real_folder(recipe).is_dir():
        raise StateError(
            f"--clutter lays {game}'s real tiles, and no photos of them are here ({recipe or 'none'})"
        )
    return real_folder(recipe)


def cmd_bench(args: argparse.Namespace) -> int:
    import cv2

    if args.reliability:
        return _bench_reliability(args)
    if args.own_copy:
        return _bench_own_copy(args)
    if args.hall:
        return _bench_hall(args)
    if args.photos:
        return _bench_photos(args)
    if not args.game:
        raise StateError("bench needs --game GAME (or 'all'), or --reliability")
    if args.seed is None:
        args.seed = BENCH_SEED

    from lab.bench import format_table, run_bench, write_json
    from lab.synth.art import TRAINING_PACKS
    from vision.readers import READERS

    cv2.setNumThreads(1)  # measured on one thread, as the Pi's budget is counted
    # A companion object's reader (Four Gardens' reward tile) is benchmarked apart from any game.
    games = tuple(g for g in READERS if g in GAMES) if args.game == "all" else names(args.game)
    if args.live:
        return _bench_live(args, games)
    if args.steady:
        return _bench_steady(args, games)
    packs = names(args.art) if args.art else TRAINING_PACKS
    if args.views < 1:
        raise StateError(f"--views {args.views}: give 1 or more photos of each board")
    if args.views_from_above is not None and not (0 <= args.views_from_above <= 45 and args.views > 1):
        raise StateError(
            f"--views-from-above {args.views_from_above:g}: give 0-45 degrees, with --views 2 or more"
        )
    results = []
    for game in games:
        get_game(game)
        result = run_bench(
            game,
            args.count,
            args.seed,
            packs,
            report=lambda line: print(line, file=sys.stderr),
            enroll=args.enroll,
            views=args.views,
            also_tilt_deg=args.views_from_above,
            calibrated=not args.no_calibration,
            reshaped=args.reshaped,
            clutter=_real_tiles(game) if args.clutter else None,
            mighty_duel=args.mighty_duel,
            size_told=args.size_told,
            corners_given=args.corners_given,
            edge_px=args.edge,
        )
        results.append(result.table())
    print(format_table(results))
    if args.json:
        write_json(args.json, results)
        print(f"JSON: {args.json}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    if args.art:
        return _train_art(args.game)
    try:
        from lab.train.classifier import config_for, train
    except ImportError as exc:
        raise StateError(f"training needs the train extra: pip install -e '.[train]' ({exc})") from None
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise StateError("training needs torch: pip install -e '.[train]'")
    from lab.train.heap import keep_freed_memory

    keep_freed_memory()
    # Only what was given: the rest is the recipe the committed model was built with.
    given = {k: v for k, v in (("photos", args.photos), ("epochs", args.epochs), ("seed", args.seed)) if v}
    if args.boards:
        from lab.train.boards import BoardsConfig, train_boards

        train_boards(BoardsConfig(**given))
    elif args.sides:
        from lab.train.sides import SidesConfig, train_sides

        train_sides(SidesConfig(**given))
    elif args.game and args.leave_game_out:
        from lab.bench_locate import format_scores
        from lab.train.folds import train_game_folds

        result = train_game_folds(args.game, config_for(args.game, **given))
        print(format_scores(result))
        if args.json:
            args.json.write_text(json.dumps(result, indent=2))
            print(f"JSON: {args.json}")
    elif args.game and args.folds:
        from lab.bench import format_table
        from lab.bench_real import format_summary, summary
        from lab.train.folds import train_folds

        tables = [r.table() for r in train_folds(args.game, config_for(args.game, **given), args.folds)]
        figures = summary(tables)
        print(format_table(tables))
        print()
        print(format_summary(figures))
        out = {"results": tables, "summary": figures}
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
            print(f"JSON: {args.json}")
    elif args.game:
        train(args.game, config_for(args.game, **given))
    else:
        raise StateError(
            "say what to train: --game GAME (a cell classifier), --boards (the board-mask model) or --sides "
            "(the board-side model)"
        )
    return 0


def _train_art(game: str | None) -> int:
    from lab.train.art import write_art
    from lab.train.classifier import config_for, real_folder

    recipe = config_for(game) if game else None
    if game is None or recipe is None or not recipe.real:
        raise StateError("--art needs --game of a game found by its grid of tiles (kingdomino)")
    folder = real_folder(recipe.real)
    if not folder.is_dir():
        raise StateError(f"{folder} is not here: its art's colours are learnt from its real photos")
    print(f"art colours: {write_art(game, folder)}")
    return 0


def cmd_screenshots(args: argparse.Namespace) -> int:
    from lab.screenshots import main as screenshots

    return screenshots([str(args.out)])


def cmd_arm64(args: argparse.Namespace) -> int:
    """The product on arm64 (an emulated Debian root) against this machine: docs/raspberry-pi.md."""
    from lab.arm64 import format_summary, run_check

    if args.count < 0:
        raise StateError(f"--count {args.count}: give 0 or more drawn photos per game")
    project = Path(__file__).resolve().parent.parent
    report = lambda line: print(line, file=sys.stderr)  # noqa: E731
    result = run_check(args.root, project, args.quick, args.count, report, args.install)
    print(format_summary(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
        print(f"JSON: {args.json}")
    install = result.get("install", {"installed": True, "unit_verified": True, "demo_ran": True})
    installed = install["installed"] and install["unit_verified"] and install["demo_ran"]
    same = all(g["same"] == g["photos"] for g in result["games"].values()) and result["demo"]["same"]
    return 0 if same and installed else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="garden-scorer-lab",
        description="Build and measure garden-scorer: synthetic photos, training, benchmarks, screenshots.",
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="the state folder the live benchmark and --profile read from (default: as garden-scorer's)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("render", help="render synthetic photos of boards with their truth")
    p.add_argument("--game", required=True, help="a game, several separated by commas, or 'all'")
    p.add_argument("--count", type=int, default=10, help="number of photos")
    p.add_argument("--seed", type=int, default=0, help="photo i of seed s is always the same picture")
    p.add_argument("--out", type=Path, required=True, help="folder for NNNN.jpg and NNNN.json")
    p.add_argument("--art", help="art pack(s), comma separated (default: the training packs)")
    p.add_argument("--boards", type=int, default=1, help="boards per photo, 1 to 4")
    p.add_argument("--hands", type=float, default=0.0, help="chance of a hand over a board, 0 to 1")
    p.add_argument("--max-tilt", type=float, default=45.0, help="largest camera tilt from vertical, degrees")
    p.add_argument("--size", type=size, default=(2304, 1296), help="photo size WIDTHxHEIGHT")
    p.add_argument("--workers", type=int, default=2, help="processes rendering in parallel")
    p.add_argument("--contact-sheet", type=Path, help="also write a PNG contact sheet of the photos")
    p.add_argument("--sheet-count", type=int, default=16, help="photos on the contact sheet")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("bench", help="measure accuracy and speed on fresh synthetic photos")
    p.add_argument("--game", help="a game, several separated by commas, or 'all'")
    p.add_argument("--count", type=int, default=BENCH_COUNT)
    p.add_argument(
        "--seed", type=int, help=f"the photos' (default {BENCH_SEED}) or the reliability run's seed"
    )
    p.add_argument("--art", help="art pack(s) to render with (default: the training packs)")
    p.add_argument("--json", type=Path, help="also write the figures as JSON")
    p.add_argument(
        "--enroll", type=int, default=0, help="enrol the classifier from K photos of the art first"
    )
    p.add_argument(
        "--views",
        type=int,
        default=1,
        help="photograph each board this many times, each from wherever its camera stands, and read the "
        "photos together (as score --also)",
    )
    p.add_argument(
        "--views-from-above",
        type=float,
        metavar="DEG",
        help="with --views: take the photos after the first at most DEG degrees off straight above, as a "
        "player told to take one from above would",
    )
    p.add_argument(
        "--reshaped",
        type=int,
        metavar="SEED",
        help="draw every board as one copy of the game's board no model learnt (another size, its grids "
        "elsewhere: random from SEED) and read it with that copy's profile",
    )
    p.add_argument(
        "--no-calibration",
        action="store_true",
        help="read the photos with no camera calibration, as a phone's uploads are",
    )
    p.add_argument(
        "--clutter",
        action="store_true",
        help="with --game kingdomino: kingdoms laid on the table with 0-8 squares left empty, a card and "
        "loose dominoes of the same art beside them, in 12 MP photos taken 45-65 degrees off straight down",
    )
    p.add_argument(
        "--mighty-duel",
        action="store_true",
        help="with --game kingdomino: 7 x 7 kingdoms (the Mighty Duel), read with no size given",
    )
    p.add_argument(
        "--size-told",
        action="store_true",
        help="with --mighty-duel: read as set up for a Mighty Duel (the set-up's size given)",
    )
    p.add_argument(
        "--corners-given",
        action="store_true",
        help="read each board at its true corners, as a player who placed them (on the result page or with "
        "--corners)",
    )
    p.add_argument(
        "--edge",
        type=float,
        metavar="PX",
        help="cut each photo PX pixels beyond its board (negative: through it), on its left, right, top and "
        "bottom in turn, as a photo the board fills",
    )
    p.add_argument("--live", action="store_true", help="frames per second of the live loop (--count frames)")
    p.add_argument("--camera", help="with --live: a camera spec to measure instead of replayed renders")
    p.add_argument(
        "--reliability",
        action="store_true",
        help="fuzz, kill-during-write, soak, HTTP load, schemathesis and security audit figures",
    )
    p.add_argument("--quick", action="store_true", help="with --reliability: a run of about a minute")
    p.add_argument(
        "--own-copy",
        action="store_true",
        help="copies of the garden games no model learnt (in the held-out art), each set up from one photo "
        "and taught game by game through the web app: the turn, the learning curve, the taps (--count: fresh "
        "photos per point, default 30)",
    )
    p.add_argument("--copies", default="1,2,3", help="with --own-copy: the copies' seeds, comma separated")
    p.add_argument(
        "--photos", type=Path, help="real photos: a folder of NAME.jpg with NAME.json, its board's state"
    )
    p.add_argument("--whole-photo", action="store_true", help="with --photos: each board fills its photo")
    p.add_argument(
        "--locate",
        action="store_true",
        help="with --photos and --game: how near boards are found, no corners given (each NAME.json marks "
        "its board's corners_xy)",
    )
    p.add_argument(
        "--empty",
        type=int,
        default=0,
        help="with --locate: take this many squares of each board's outer ring away (painted over with the "
        "table beyond them), as a kingdom with squares left empty",
    )
    p.add_argument(
        "--truth",
        type=Path,
        help="with --locate: also score each photo, no corners given, against a truth file of its board's "
        "cells (e.g. lab/truth/kingdomino-table.json): found, cells wrong, scores exact, per game",
    )
    p.add_argument(
        "--hall",
        action="store_true",
        help="--tables tables publishing live scores once a second into a real mosquitto and a hall for "
        "--minutes, the broker restarted --restarts times and tables killed --kills times: the scores' way "
        "to the hall's page, its memory, and games lost or doubled",
    )
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--minutes", type=float, default=5.0)
    p.add_argument("--restarts", type=int, default=20)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument(
        "--steady",
        action="store_true",
        help="with --game: how far each cell's confidence, the state and the flags move when the photo's "
        "pixels move a grey level, the corners half a pixel or the JPEG 5 quality steps (--count photos)",
    )
    p.add_argument(
        "--phone",
        action="store_true",
        help="with --locate: photo -> score of each photo sent as a 12 MP phone JPEG, on one core, and of a "
        "drawn Alice's Garden photo the same size in the same run",
    )
    p.add_argument(
        "--profile",
        help="with --locate: look for this taught profile's boards (its grid's colours, its picture), from "
        "the state folder",
    )
    p.add_argument(
        "--teach",
        type=int,
        default=0,
        help="with --photos: teach from the photos of K layouts, read the rest",
    )
    p.add_argument(
        "--folds", type=int, default=1, help="with --teach: repeat with F sets of teaching layouts"
    )
    p.add_argument(
        "--custom-grid",
        action="store_true",
        help="with --photos: read the states as a custom grid game, each cell's label its text before ':'",
    )
    p.add_argument(
        "--tiles",
        action="store_true",
        help="with --custom-grid: a game of two labels, empty and tile (every other face a tile)",
    )
    p.add_argument(
        "--untaught",
        action="store_true",
        help="with --teach and --tiles: each fold leaves one face's cells out of teaching (the faces in "
        "turn), as a game of more faces than its teaching photos show, and counts them apart",
    )
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "train", help="rebuild a game's cell classifier or the board models (needs the train extra)"
    )
    p.add_argument("--game", help="the game whose cell classifier and orientation model to rebuild")
    p.add_argument("--boards", action="store_true", help="rebuild the board-mask model (every game's boards)")
    p.add_argument(
        "--sides", action="store_true", help="rebuild the board-side model (after the board-mask model)"
    )
    p.add_argument("--photos", type=int, help="training photos (default 300)")
    p.add_argument("--epochs", type=int, help="training epochs (default 14)")
    p.add_argument("--seed", type=int, help="photo and weight seed (default 1)")
    p.add_argument(
        "--folds",
        type=int,
        default=0,
        help="with --game, for a recipe that learns from real photos: train F models, each leaving out a "
        "fold of the photographed boards, and read those (nothing shipped is changed)",
    )
    p.add_argument(
        "--leave-game-out",
        action="store_true",
        help="with --game, for a recipe that learns from table photos: train one model per game played in "
        "them, each leaving that game's photos out, and score those from the photo alone (nothing shipped "
        "is changed)",
    )
    p.add_argument(
        "--json", type=Path, help="with --folds or --leave-game-out: also write the figures as JSON"
    )
    p.add_argument(
        "--art",
        action="store_true",
        help="with --game, for a game found by its grid of tiles: rebuild only its art's colours "
        "(models/GAME-art.json, also rebuilt with its model; no torch needed)",
    )
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("screenshots", help="the web app's pages in headless Chromium, as PNGs")
    p.add_argument("out", nargs="?", type=Path, default=Path("/tmp/garden-shots"), help="folder for PNGs")
    p.set_defaults(func=cmd_screenshots)

    p = sub.add_parser(
        "arm64",
        help="the product installed from aarch64 wheels in an emulated arm64 Debian root (as root; minutes), "
        "its answers against this machine's",
    )
    p.add_argument(
        "--root", type=Path, default=Path("/var/tmp/garden-scorer-arm64"), help="the root (made once, reused)"
    )
    p.add_argument("--quick", action="store_true", help="the bundled photos only")
    p.add_argument(
        "--install",
        action="store_true",
        help="also run systemd/install.sh in the root (a stand-in picamera2) and verify its unit",
    )
    p.add_argument("--count", type=int, default=100, help="drawn photos per game (default 100)")
    p.add_argument("--json", type=Path, help="also write the figures as JSON")
    p.set_defaults(func=cmd_arm64)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
