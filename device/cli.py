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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="garden-scorer", description="Score garden tile-laying board games from photos or state files."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score-state", help="score a board or table state file (JSON)")
    p.add_argument("file", type=Path, help="state file; see examples/ and the README for each game's format")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_score_state)

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
