"""Runs ``garden-scorer score --json`` on each photo of a manifest, in one process, and writes the answers.

Copied into the arm64 root by :mod:`lab.arm64` and run there with the product's own venv (which has none of
the lab's packages: only the standard library and the product are imported), and run the same way on this
machine: one interpreter for all the photos, where an emulated one takes seconds to start.

``python arm64_score.py MANIFEST OUT``: MANIFEST is JSON ``[{"name", "game", "photo", "hand", "also"}]``
(paths as the runner sees them), OUT gets ``{name: {"exit": code, "answer": score's JSON or None}}``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

from device.cli import main as garden_scorer


def score_all(manifest: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for item in manifest:
            hand = Path(tmp) / f"{item['name']}.hand.json"
            hand.write_text(json.dumps(item.get("hand") or {}))
            argv = ["score", "--json", "--game", str(item["game"]), "--hand", str(hand)]
            for also in item.get("also") or []:  # type: ignore[attr-defined]
                argv += ["--also", str(also)]
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
                try:
                    code = garden_scorer([*argv, str(item["photo"])])
                except SystemExit as exc:  # argparse refusing
                    code = int(exc.code or 0)
            text = printed.getvalue()
            answer = json.loads(text) if text.strip().startswith("{") else None
            out[str(item["name"])] = {"exit": code, "answer": answer}
    return out


if __name__ == "__main__":
    manifest_path, out_path = sys.argv[1:3]
    result = score_all(json.loads(Path(manifest_path).read_text()))
    Path(out_path).write_text(json.dumps(result, indent=1))
