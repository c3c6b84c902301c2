"""The hall's store: each finished game counted once, corrections in its place, the standings' numbers, and
everything still there after a restart."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from device.hall.store import (
    MAX_SEATS,
    MAX_TOTAL,
    SCHEMA_VERSION,
    HallStore,
    HallStoreError,
    Standing,
    player_key,
)
from device.mqtt.topics import Seat
from tests.device.hall.support import EVENING, played

LATER = EVENING + timedelta(hours=1)


@pytest.fixture
def store(tmp_path: Path) -> HallStore:
    return HallStore.open(tmp_path / "hall.sqlite")


def test_a_result_sent_twice_counts_once(store: HallStore) -> None:
    assert store.add_result(played("table-1", "r1"), LATER)
    assert not store.add_result(played("table-1", "r1"), LATER)
    assert store.counted(EVENING) == [("table-1", "r1")]
    assert [s.games for s in store.standings(EVENING)] == [1, 1]


def test_a_correction_takes_the_place_of_the_result_it_replaces(store: HallStore) -> None:
    store.add_result(played("table-1", "r1", [("Alice", 10), ("Bob", 20)]), LATER)
    store.add_result(played("table-1", "r2", [("Alice", 30), ("Bob", 20)], replaces="r1"), LATER)
    assert store.counted(EVENING) == [("table-1", "r2")]
    assert store.standings(EVENING) == [Standing(1, "Alice", 1, 1, 30), Standing(2, "Bob", 1, 0, 20)]
    assert store.result_count() == 2


def test_a_replaced_result_arriving_after_its_correction_never_counts(store: HallStore) -> None:
    store.add_result(played("table-1", "r2", [("Alice", 30), ("Bob", 20)], replaces="r1"), LATER)
    assert store.add_result(played("table-1", "r1", [("Alice", 10), ("Bob", 20)]), LATER)
    assert store.counted(EVENING) == [("table-1", "r2")]
    assert store.standings(EVENING)[0] == Standing(1, "Alice", 1, 1, 30)


def test_a_game_deleted_at_its_table_no_longer_counts(store: HallStore) -> None:
    # The scorer says a deletion as a result of no players in the deleted one's place.
    store.add_result(played("table-1", "r1", [("Alice", 10), ("Bob", 20)]), LATER)
    store.add_result(played("table-1", "r2", [], replaces="r1"), LATER)
    assert store.standings(EVENING) == []


def test_a_chain_of_corrections_in_any_order_counts_the_last_alone(store: HallStore) -> None:
    store.add_result(played("table-1", "r3", replaces="r2"), LATER)
    store.add_result(played("table-1", "r1"), LATER)
    store.add_result(played("table-1", "r2", replaces="r1"), LATER)
    assert store.counted(EVENING) == [("table-1", "r3")]


def test_a_table_cannot_replace_another_tables_result(store: HallStore) -> None:
    store.add_result(played("table-1", "r1"), LATER)
    # The same id at another table is another game (ids are a scorer's own), not a repeat.
    assert store.add_result(played("table-2", "r1"), LATER)
    store.add_result(played("table-2", "r9", replaces="r1"), LATER)
    assert store.counted(EVENING) == [("table-1", "r1"), ("table-2", "r9")]


def test_a_result_replacing_itself_still_counts(store: HallStore) -> None:
    store.add_result(played("table-1", "r1", replaces="r1"), LATER)
    assert store.counted(EVENING) == [("table-1", "r1")]


def test_the_standings_count_games_wins_and_points_per_name_across_tables(store: HallStore) -> None:
    store.add_result(played("table-1", "a", [("Alice", 40), ("Bob", 30), ("Cleo", 40)]), LATER)
    # The same players by their names, however written; a seat with no name is not in the standings, but
    # its total still beats the others'.
    store.add_result(played("table-2", "b", [(" alice ", 25), ("BOB", 20), (None, 50)]), LATER)
    # Bob's board not scored (to check): he played, scored nothing, and nobody won yet.
    store.add_result(played("table-3", "c", [("Dan", 12), ("Bob", None)]), LATER)
    # Alone at a table: nobody to beat, no win.
    store.add_result(played("table-3", "d", [("Eve", 99)]), LATER)
    assert store.standings(EVENING) == [
        # Alice and Cleo tie for the first game: both win it. Alice shown as she was named last.
        Standing(1, "alice", 2, 1, 65),
        Standing(2, "Cleo", 1, 1, 40),
        Standing(3, "Eve", 1, 0, 99),
        Standing(4, "Bob", 3, 0, 50),
        Standing(5, "Dan", 1, 0, 12),
    ]


def test_players_level_on_wins_and_points_share_a_rank(store: HallStore) -> None:
    store.add_result(played("table-1", "a", [("Ann", 10), ("Ben", 10), ("Cat", 5)]), LATER)
    assert [(s.rank, s.name) for s in store.standings(EVENING)] == [(1, "Ann"), (1, "Ben"), (3, "Cat")]


def test_the_standings_count_the_evening_alone(store: HallStore) -> None:
    store.add_result(played("table-1", "yesterday", [("Ann", 100), ("Ben", 1)], minutes=-24 * 60), LATER)
    store.add_result(played("table-1", "tonight", [("Ann", 1), ("Ben", 2)], minutes=30), LATER)
    assert store.standings(EVENING) == [Standing(1, "Ben", 1, 1, 2), Standing(2, "Ann", 1, 0, 1)]
    assert store.standings(EVENING, limit=1) == [Standing(1, "Ben", 1, 1, 2)]


def test_a_result_from_a_clock_ahead_is_counted_as_received(store: HallStore) -> None:
    # A scorer whose clock runs a day ahead: its game counts tonight, not tomorrow.
    store.add_result(played("table-1", "r1", minutes=24 * 60), LATER)
    assert store.counted(LATER) == [("table-1", "r1")]
    assert store.counted(LATER + timedelta(seconds=1)) == []


def test_names_are_tidied_and_cut_to_a_length(store: HallStore) -> None:
    store.add_result(played("table-1", "r1", [("  Ann   Lee ", 3), ("x" * 500, 2), ("   ", 1)]), LATER)
    assert [s.name for s in store.standings(EVENING)] == ["Ann Lee", "x" * 40]
    assert player_key("  ANN  lee") == player_key("ann lee")


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (played("t", "r", [("A", 1)] * (MAX_SEATS + 1)), "seats"),
        (played("t", "r", [("A", MAX_TOTAL + 1), ("B", 1)]), "no game's score"),
        (played("t", "r" * 200), "longer than"),
        (played("t", "r", replaces="x" * 200), "longer than"),
    ],
)
def test_a_message_no_scorer_sends_is_refused_saying_why(
    store: HallStore, message: object, said: str
) -> None:
    with pytest.raises(ValueError, match=said):
        store.add_result(message, LATER)  # type: ignore[arg-type]
    assert store.result_count() == 0


def test_the_results_kept_are_bounded_the_earliest_received_going_first(tmp_path: Path) -> None:
    store = HallStore.open(tmp_path / "hall.sqlite", max_results=5)
    for i in range(8):
        store.add_result(played("table-1", f"r{i}"), LATER)
    assert store.result_count() == 5
    assert [r for _, r in store.counted(EVENING)] == ["r3", "r4", "r5", "r6", "r7"]
    # What the earliest seated went with them.
    with sqlite3.connect(tmp_path / "hall.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM seats").fetchone()[0] == 10


def test_a_tables_availability_and_scores_are_kept_and_a_repeat_changes_nothing(store: HallStore) -> None:
    on = store.set_available("table-1", True, EVENING)
    assert on is not None and on.online is True and on.score is None
    assert store.set_available("table-1", True, LATER) is None
    scored = store.set_score("table-1", played("table-1", "r1", minutes=5), LATER)
    assert scored is not None and scored.score is not None
    assert scored.online is True
    assert scored.score.players == (Seat("Alice", 10), Seat("Bob", 20))
    assert scored.score.scored_at == EVENING + timedelta(minutes=5)
    # The retained message, sent again on every subscribe: nothing new.
    assert store.set_score("table-1", played("table-1", "r1", minutes=5), LATER) is None
    off = store.set_available("table-1", False, LATER)
    assert off is not None and off.online is False and off.score == scored.score
    assert store.tables() == [off]


def test_a_table_whose_messages_are_cleared_is_gone(store: HallStore) -> None:
    store.set_available("table-1", True, EVENING)
    store.set_score("table-1", played("table-1", "r1"), EVENING)
    assert store.set_score("table-1", None, LATER) is not None
    gone = store.set_available("table-1", None, LATER)
    assert gone is not None and gone.gone
    assert store.tables() == []
    assert store.set_available("table-1", None, LATER) is None


def test_the_tables_kept_are_bounded_the_quiet_longest_going_first(tmp_path: Path) -> None:
    store = HallStore.open(tmp_path / "hall.sqlite", max_tables=3)
    for i in range(5):
        store.set_available(f"table-{i}", True, EVENING + timedelta(minutes=i))
    assert [t.name for t in store.tables()] == ["table-2", "table-3", "table-4"]


def test_everything_is_there_after_the_hall_restarts(tmp_path: Path) -> None:
    path = tmp_path / "hall.sqlite"
    with HallStore.open(path) as store:
        store.set_available("table-1", False, EVENING)
        store.set_score("table-1", played("table-1", "r1"), LATER)
        store.add_result(played("table-1", "r1"), LATER)
        store.add_result(played("table-1", "r2", replaces="r1"), LATER)
        tables, standings = store.tables(), store.standings(EVENING)
    with HallStore.open(path) as again:
        assert again.tables() == tables
        assert again.standings(EVENING) == standings
        assert not again.add_result(played("table-1", "r1"), LATER)
        assert again.counted(EVENING) == [("table-1", "r2")]


def test_a_file_of_a_newer_hall_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hall.sqlite"
    HallStore.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(HallStoreError, match="newer garden-scorer"):
        HallStore.open(path)


def test_another_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(HallStoreError, match="not a garden-scorer hall file"):
        HallStore.open(path)


def test_a_damaged_file_is_reported_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "hall.sqlite"
    path.write_bytes(b"not a database at all, " * 100)
    with pytest.raises(HallStoreError, match=r"damaged.*Move it aside"):
        HallStore.open(path)


def test_a_closed_store_says_so(store: HallStore) -> None:
    store.close()
    with pytest.raises(HallStoreError, match="cannot use the hall database"):
        store.tables()
