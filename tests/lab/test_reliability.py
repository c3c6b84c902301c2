"""``garden-scorer-lab bench --reliability``: every harness runs, the table says what held, the JSON keeps it
all.

The harnesses' own tests (test_fuzz, test_crashtest, test_soak, test_loadtest, test_security) check what
each finds; here a small plan runs them all through the command."""

from __future__ import annotations

import copy
import json
from dataclasses import asdict
from pathlib import Path

import pytest

from lab.cli import main
from lab.reliability import attacks
from lab.reliability import run as reliability

TINY = reliability.Plan(
    seed=7,
    fuzz_cases=40,
    kill_rounds=6,
    soak_frames=250,
    load_uploads=4,
    load_concurrency=2,
    sse_clients=2,
    schemathesis_examples=2,
    flood_clients=2,
    flood_megapixels=4,
    upload_kills=1,
)


def _first_round_only(root: Path) -> list[attacks.Attack]:
    """The attack suite's first round, real: the whole suite is test_attacks' to run."""
    found: list[attacks.Attack] = []
    attacks._first_round(root, lambda *a: found.append(attacks.Attack(*a)))
    return found


def test_the_command_runs_every_harness_and_prints_what_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(reliability, "QUICK", TINY)
    monkeypatch.setattr(attacks, "run_attacks", _first_round_only)
    out = tmp_path / "reliability.json"
    assert main(["bench", "--reliability", "--quick", "--seed", "9", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    results = json.loads(out.read_text())["reliability"]
    assert results["plan"] == {**asdict(TINY), "seed": 9}
    assert results["fuzz"]["cases"] == 40 and results["fuzz"]["seed"] == 9
    assert sum(k["rounds"] for k in results["kill"]["kinds"].values()) == 6
    assert results["soak"]["frames"] == 250
    assert results["load"]["uploads"] == 4
    assert results["schemathesis"]["server_errors"] == 0
    assert results["security"]["problems"] == [] and results["security"]["attacks"] >= 10
    assert results["flood"]["jpeg"]["clients"] == 2 and results["upload_kills"]["games"] == 1
    assert results["memory"]["worst_peak_mb"] > results["memory"]["resident_mb_loaded"] > 0
    table = [line.split("  ")[0].strip() for line in printed.splitlines()[1:] if "  " in line]
    assert table[: len(reliability.rows(results))] == [r.check for r in reliability.rows(results)]
    assert " FAILED " not in printed

    # A failure anywhere shows in its row and in the verdict.
    broken = copy.deepcopy(results)
    broken["fuzz"]["failed"] = 1
    broken["soak"]["rss_mb"]["end"] = broken["soak"]["rss_mb"]["warm"] + 100
    verdicts = {r.check: r.ok for r in reliability.rows(broken)}
    assert not verdicts["fuzz: files, images, uploads"] and not verdicts["soak: memory"]
    assert sum(not ok for ok in verdicts.values()) == 2
    assert not reliability.all_ok(broken)
    assert "FAILED" in reliability.format_table(broken)


def test_bench_without_a_game_or_reliability_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench"]) == 2
    assert "--game GAME" in capsys.readouterr().err
