"""``bench --hall`` in small: two tables, a broker restart and a table killed, every finished game counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.bench_hall import format_hall, run_hall_bench
from tests.broker import have_mosquitto


def test_games_finished_through_a_restart_and_a_kill_are_all_counted_once(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("needs Debian's mosquitto: apt-get install mosquitto")
    pytest.importorskip("paho.mqtt")
    said: list[str] = []
    result = run_hall_bench(2, 24, 1, 1, 7, said.append, game_s=(3, 5), root=tmp_path)
    assert result["games_finished"] >= 4
    assert (result["games_lost"], result["games_doubled"], result["games_extra"]) == (0, 0, 0)
    assert result["standings_wrong"] == []
    assert result["scores_heard"] > 10 and result["latency_s"]["median"] is not None
    assert "| 2 | 0.4 | 1 | 1 |" in format_hall(result)
