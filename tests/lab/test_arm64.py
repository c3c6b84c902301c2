"""``garden-scorer-lab arm64``'s comparison of the two machines' answers (the emulated root itself needs root
and minutes: run before a release, docs/raspberry-pi.md)."""

from __future__ import annotations

import copy
from typing import Any

from lab.arm64 import _pins, compare, compare_demo, format_summary, summary


def _answer(total: int, corners: list[list[float]], confidence: float = 0.95) -> dict[str, Any]:
    board = {
        "total": total,
        "state": {"cells": [["lake:0", "castle"]]},
        "flags": [],
        "low_confidence_cells": [],
        "confidence": confidence,
        "corners_xy": corners,
    }
    return {"exit": 0, "answer": {"boards": [board]}}


SQUARE = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]


def test_answers_alike_but_for_confidence_and_corners_are_the_same_with_their_moves() -> None:
    here = {"kingdomino": _answer(28, SQUARE), "alices-garden-drawn-000": _answer(77, SQUARE)}
    there = copy.deepcopy(here)
    there["kingdomino"] = _answer(28, [[0.5, 0.0], *SQUARE[1:]], confidence=0.94)
    rows = compare(here, there)
    assert [r["same"] for r in rows] == [True, True]
    assert rows[0]["corners_px"] == 0.5 and abs(rows[0]["confidence"] - 0.01) < 1e-9
    result = summary(rows, compare_demo("Total 28\n", "Total 28\n"))
    assert result["games"]["alices-garden"] == {"photos": 1, "same": 1, "confidence": 0.0, "corners_px": 0.0}
    assert "demo: the same output" in format_summary(result)


def test_a_state_flag_or_exit_that_differs_is_named() -> None:
    here = {"kingdomino": _answer(28, SQUARE), "tang-garden-views": _answer(64, SQUARE)}
    there = copy.deepcopy(here)
    there["kingdomino"]["answer"]["boards"][0]["state"] = {"cells": [["castle", "lake:0"]]}  # turned
    there["tang-garden-views"]["answer"]["boards"][0]["flags"] = [
        "1 cell read with low confidence: check them"
    ]
    rows = compare(here, there)
    assert not any(r["same"] for r in rows)
    assert {r["game"] for r in rows} == {"kingdomino", "tang-garden"}
    said = format_summary(summary(rows, compare_demo("Total 28\n", "Total 29\n")))
    assert "demo: DIFFERENT output" in said and "- Total 28\n+ Total 29" in said
    assert "differ: kingdomino, tang-garden-views" in said


def test_the_demo_is_the_same_where_only_its_printed_confidences_moved() -> None:
    here = "Photo k.jpg: Kingdomino, read with confidence 0.900\nTotal 28\n"
    moved = compare_demo(here, here.replace("0.900", "0.906"))
    assert moved["same"] and abs(moved["confidence"] - 0.006) < 1e-9 and moved["differ"] == []
    flagged = compare_demo(here, here.replace("Total 28", "  ! 1 cell read with low confidence\nTotal 28"))
    assert not flagged["same"] and flagged["differ"][0].startswith("- Total 28\n+   ! 1 cell")
    shorter = compare_demo(here, "Photo k.jpg: Kingdomino, read with confidence 0.900\n")
    assert shorter["differ"] == ["- Total 28\n+ (no line)"]


def test_the_root_takes_this_machines_versions_of_the_products_dependencies() -> None:
    pins = dict(pin.split("==") for pin in _pins())
    assert {"numpy", "opencv-python-headless", "onnxruntime"} <= set(pins)
    assert all(version and version[0].isdigit() for version in pins.values())
