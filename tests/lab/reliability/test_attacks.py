"""The attack suite against a real server (``lab.reliability.attacks``): every attack refused."""

from __future__ import annotations

from pathlib import Path

from lab.reliability.attacks import run_attacks


def test_every_attack_on_a_running_scorer_is_refused(tmp_path: Path) -> None:
    attacks = run_attacks(tmp_path)
    assert [a for a in attacks if not a.refused] == []
    assert len(attacks) >= 30
