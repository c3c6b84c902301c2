"""The ``garden-scorer`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from device.report import result_json, result_text
from device.statefile import load_state_json
from examples import example_states
from scoring.core import InvalidState, StateError
from scoring.registry import GAMES, read_state

EXIT_BAD_INPUT = 2


def _score_state_file(path: Path, as_json: bool) -> str:
    rules, state = read_state(load_state_json(path))
    result = rules.score(state)
    if as_json:
        return json.dumps(result_json(result), indent=2)
    return result_text(result, f"{rules.title} — {path.name}")


def cmd_score_state(args: argparse.Namespace) -> int:
    print(_score_state_file(args.file, args.json))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    for path in example_states():
        print(_score_state_file(path, as_json=False))
        print()
    print(f"Scored {len(example_states())} example states from {', '.join(GAMES)}.")
    return 0


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}") from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"{text}: each side must be 64 to 8192 pixels")
    return w, h


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def cmd_render(args: argparse.Namespace) -> int:
    from models.synth.art import TRAINING_PACKS
    from models.synth.camera import PhotoOptions
    from models.synth.render import RenderSpec, contact_sheet, render_set

    games = tuple(GAMES) if args.game == "all" else _names(args.game)
    try:
        spec = RenderSpec(
            games=games,
            seed=args.seed,
            packs=_names(args.art) if args.art else TRAINING_PACKS,
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="garden-scorer", description="Score garden tile-laying board games from photos or state files."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score-state", help="score a board or table state file (JSON)")
    p.add_argument("file", type=Path, help="state file; see examples/ and the README for each game's format")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_score_state)

    p = sub.add_parser("render", help="render synthetic photos of boards with their truth")
    p.add_argument("--game", required=True, help="a game, several separated by commas, or 'all'")
    p.add_argument("--count", type=int, default=10, help="number of photos")
    p.add_argument("--seed", type=int, default=0, help="photo i of seed s is always the same picture")
    p.add_argument("--out", type=Path, required=True, help="folder for NNNN.jpg and NNNN.json")
    p.add_argument("--art", help="art pack(s), comma separated (default: the training packs)")
    p.add_argument("--boards", type=int, default=1, help="boards per photo, 1 to 4")
    p.add_argument("--hands", type=float, default=0.0, help="chance of a hand over a board, 0 to 1")
    p.add_argument("--max-tilt", type=float, default=45.0, help="largest camera tilt from vertical, degrees")
    p.add_argument("--size", type=_size, default=(2304, 1296), help="photo size WIDTHxHEIGHT")
    p.add_argument("--workers", type=int, default=2, help="processes rendering in parallel")
    p.add_argument("--contact-sheet", type=Path, help="also write a PNG contact sheet of the photos")
    p.add_argument("--sheet-count", type=int, default=16, help="photos on the contact sheet")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("demo", help="score the bundled example states")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
    return code


if __name__ == "__main__":
    sys.exit(main())
