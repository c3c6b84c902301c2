"""Kill-during-write, a round per kind of data (``garden-scorer-lab bench --reliability`` runs hundreds)."""

from __future__ import annotations

from pathlib import Path

from lab.reliability.crashtest import KINDS, kill_test


def test_a_kill_during_any_write_leaves_loadable_files_and_whole_games(tmp_path: Path) -> None:
    report = kill_test(len(KINDS) + 1, 20261122, tmp_path)
    failures = [f for k in report.kinds.values() for f in k.failures]
    assert not failures
    assert all(report.kinds[k].rounds >= 1 for k in KINDS)
    # Otherwise the kills all fell between writes and proved nothing about a write cut short.
    assert sum(k.mid_write for k in report.kinds.values()) >= 1
