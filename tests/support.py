"""Helpers shared by the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"


def load_example(name: str) -> Any:
    return json.loads((EXAMPLES / name).read_text())
