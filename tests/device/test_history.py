from __future__ import annotations

import csv
import io
import json
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from device.history import (
    _MIGRATIONS,
    CSV_FIELDS,
    KEY_KEPT,
    SCHEMA_VERSION,
    AlreadyRecorded,
    Change,
    GameNotFound,
    History,
    HistoryError,
    LiveRecord,
    Sender,
)
from tests.support import ROOT

T0 = datetime(2025, 6, 1, 18, 30, tzinfo=UTC)


def board(
    total: int | None, flags: tuple[str, ...] = (), rows: tuple[str, ...] = ("RG", "BY")
) -> dict[str, Any]:
    """A board as ``ScoredBoard.to_json`` gives it."""
    return {
        "game": "alices-garden",
        "corners_xy": [[10.0, 12.5], [410.0, 11.0], [412.25, 300.0], [9.5, 301.0]],
        "state": {"game": "alices-garden", "rows": list(rows)},
        "confidence": 0.9731,
        "flags": list(flags),
        "low_confidence_cells": [[0, 1]],
        "lines": [] if total is None else [{"rule": "roses", "detail": "2 roses", "points": total}],
        "total": total,
    }


@pytest.fixture
def history(tmp_path: Path) -> Iterator[History]:
    with History.open(tmp_path / "data" / "history.sqlite") as h:
        yield h


def count_boards(path: Path) -> int:
    with closing(sqlite3.connect(path)) as conn:
        count: int = conn.execute("SELECT count(*) FROM boards").fetchone()[0]
    return count


def test_record_then_get_gives_back_the_game(history: History) -> None:
    boards = [board(97), board(None, ("not scored: part of the board is unseen",))]
    game_id = history.record("alices-garden", boards, "upload", players=["Ann", "Bruno"], when=T0)
    got = history.get(game_id)
    assert (got.id, got.played_at, got.game, got.source) == (game_id, T0, "alices-garden", "upload")
    assert [(b.seat, b.player, b.total) for b in got.boards] == [(0, "Ann", 97), (1, "Bruno", None)]
    assert [dict(b.data) for b in got.boards] == boards


def test_times_are_stored_in_utc_and_naive_times_refused(history: History) -> None:
    paris = timezone(timedelta(hours=2))
    game_id = history.record("zen-garden", [board(3)], "cli", when=datetime(2025, 6, 1, 20, 30, tzinfo=paris))
    assert history.get(game_id).played_at == T0
    assert history.get(game_id).played_at.utcoffset() == timedelta(0)
    before = datetime.now(UTC)
    assert before <= history.get(history.record("zen-garden", [], "live")).played_at <= datetime.now(UTC)
    with pytest.raises(ValueError, match="naive"):
        history.record("zen-garden", [board(3)], "cli", when=datetime(2025, 6, 1))


def test_list_is_newest_first_filters_and_pages(history: History) -> None:
    # Recorded out of time order: the list follows when the games were played, not when they were stored.
    ids = {
        hours: history.record(game, [board(hours)], "live", when=T0 + timedelta(hours=hours))
        for hours, game in [(2, "alices-garden"), (0, "zen-garden"), (3, "zen-garden"), (1, "alices-garden")]
    }
    assert [g.id for g in history.list()] == [ids[3], ids[2], ids[1], ids[0]]
    assert [g.id for g in history.list(game="zen-garden")] == [ids[3], ids[0]]
    assert [g.id for g in history.list(limit=2, offset=1)] == [ids[2], ids[1]]
    assert history.list(game="tang-garden") == []
    assert [b.total for g in history.list() for b in g.boards] == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="negative"):
        history.list(limit=-1)


def test_same_time_lists_latest_recorded_first(history: History) -> None:
    first = history.record("zen-garden", [board(1)], "live", when=T0)
    second = history.record("zen-garden", [board(2)], "live", when=T0)
    assert [g.id for g in history.list()] == [second, first]


def test_delete_removes_the_game_and_its_boards(history: History) -> None:
    keep = history.record("zen-garden", [board(1)], "live", when=T0)
    gone = history.record("zen-garden", [board(2), board(3)], "live", when=T0)
    history.delete(gone)
    assert [g.id for g in history.list()] == [keep]
    with pytest.raises(GameNotFound, match=f"no game {gone}"):
        history.get(gone)
    with pytest.raises(LookupError):
        history.delete(gone)
    assert count_boards(history.path) == 1


def test_bad_input_stores_nothing(history: History) -> None:
    with pytest.raises(ValueError, match="1 player name"):
        history.record("zen-garden", [board(1), board(2)], "live", players=["Ann"])
    with pytest.raises(ValueError, match=r"board 1: total 2\.5"):
        history.record("zen-garden", [board(1), {**board(1), "total": 2.5}], "live")
    with pytest.raises(ValueError, match="board 0: not storable as JSON"):
        history.record("zen-garden", [{**board(1), "confidence": float("nan")}], "live")
    assert history.list() == []


def test_exports_parse_back_to_the_same_games(history: History) -> None:
    played = [
        (
            "alices-garden",
            [board(97, ("low light",)), board(None, ("not scored: x", "blurred"))],
            ["Ann", "Bo"],
        ),
        ("zen-garden", [board(12, rows=("GG", "RR"))], None),
        ("zen-garden", [], None),
    ]
    ids = [
        history.record(game, boards, "upload", players=players, when=T0 + timedelta(minutes=i))
        for i, (game, boards, players) in enumerate(played)
    ]

    out = io.StringIO()
    history.export_json(out)
    exported = json.loads(out.getvalue())
    assert [g["id"] for g in exported] == ids
    assert exported == [g.to_json() for g in reversed(history.list())]
    for g, (game, boards, players) in zip(exported, played, strict=True):
        assert datetime.fromisoformat(g["played_at"]).tzinfo is not None
        assert (g["game"], g["source"]) == (game, "upload")
        assert [b["board"] for b in g["boards"]] == boards
        names: list[str | None] = [*players] if players else [None] * len(boards)
        assert [b["player"] for b in g["boards"]] == names
        assert [b["total"] for b in g["boards"]] == [b["total"] for b in boards]

    out = io.StringIO()
    history.export_csv(out)
    out.seek(0)
    reader = csv.DictReader(out)
    assert tuple(reader.fieldnames or ()) == CSV_FIELDS
    rows = list(reader)
    expected = [
        (game_id, i, game, players[i] if players else "", b)
        for game_id, (game, boards, players) in zip(ids, played, strict=True)
        for i, b in enumerate(boards)
    ]
    assert len(rows) == len(expected) == 3
    for row, (game_id, seat, game, player, b) in zip(rows, expected, strict=True):
        assert int(row["game_id"]) == game_id
        assert int(row["seat"]) == seat
        assert datetime.fromisoformat(row["played_at"]) == history.get(game_id).played_at
        assert (row["game"], row["source"], row["player"]) == (game, "upload", player)
        assert row["total"] == ("" if b["total"] is None else str(b["total"]))
        assert row["flags"] == "; ".join(b["flags"])
        assert json.loads(row["state"]) == b["state"]
        assert "\n" not in row["state"]


def test_a_board_the_players_share_lists_and_exports_every_players_score(history: History) -> None:
    # Four Gardens' and Tang Garden's one board scores each player: no total of its own, a total each.
    shared = {
        **board(None),
        "game": "four-gardens",
        "players": [{"player": "Ann", "total": 27, "rank": 1}, {"player": "Ben", "total": 22, "rank": 2}],
    }
    game_id = history.record("four-gardens", [shared], "upload")
    (record,) = history.get(game_id).boards
    assert record.to_json()["scores"] == [{"player": "Ann", "total": 27}, {"player": "Ben", "total": 22}]
    out = io.StringIO()
    history.export_csv(out)
    out.seek(0)
    rows = list(csv.DictReader(out))
    assert [(r["seat"], r["player"], r["total"]) for r in rows] == [("0", "Ann", "27"), ("0", "Ben", "22")]
    # A board of its own keeps its one score.
    assert history.get(history.record("alices-garden", [board(97)], "upload")).boards[0].scores() == [
        (None, 97)
    ]


@pytest.mark.parametrize(
    "name",
    ['=HYPERLINK("http://ev.il","x")', "+1+1", "-2+3", "@SUM(A1:A9)", "\tTab", "\rReturn"],
)
def test_the_csv_export_runs_no_formula_a_name_holds(history: History, name: str) -> None:
    history.record("alices-garden", [board(-5, flags=("-weird flag",))], "upload", players=[name], when=T0)
    out = io.StringIO()
    history.export_csv(out)
    out.seek(0)
    (row,) = csv.DictReader(out)
    # A spreadsheet shows a cell that starts with a quote as text, never as a formula.
    assert row["player"] == f"'{name}"
    assert row["flags"] == "'-weird flag"
    # A negative total is a number, not a formula: it stays one.
    assert row["total"] == "-5"


def test_reopening_keeps_the_games(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with History.open(path) as h:
        game_id = h.record("zen-garden", [board(4), board(None)], "cli", players=["A", "B"], when=T0)
        before = h.get(game_id)
    with History.open(path) as h:
        assert h.list() == [before]
        assert h._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert h._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    History.open(path).close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(
        HistoryError, match=r"history\.sqlite: history schema version 99 .* newer garden-scorer"
    ):
        History.open(path)


def test_another_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE photos (name TEXT)")
        conn.commit()
    with pytest.raises(HistoryError, match=r"other\.sqlite: this SQLite file is not a garden-scorer history"):
        History.open(path)


def test_a_garbage_file_is_named_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    path.write_bytes(random.Random(1).randbytes(8192))
    with pytest.raises(
        HistoryError, match=r"history\.sqlite: the history database is damaged .* Move it aside"
    ):
        History.open(path)


def test_a_damaged_page_is_caught_at_open(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with History.open(path) as h:
        for i in range(200):
            h.record("zen-garden", [board(i), board(i + 1)], "live")
    size = path.stat().st_size
    assert size > 16 * 4096
    with path.open("r+b") as f:
        # Past the first pages (header and schema), so only a check of the data itself can notice.
        f.seek(size // 2)
        f.write(b"\xff" * 8192)
    with pytest.raises(HistoryError, match=r"history\.sqlite: the history database is damaged"):
        History.open(path)


def test_a_broken_constraint_is_caught_at_open(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with History.open(path) as h:
        h.record("zen-garden", [board(1)], "live")
    # A NULL where the schema forbids one: no page is unreadable, only the check at open can notice.
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = replace(sql, 'source TEXT NOT NULL', 'source TEXT')")
        conn.execute("PRAGMA writable_schema = RESET")
        conn.execute("UPDATE games SET source = NULL")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = replace(sql, 'source TEXT', 'source TEXT NOT NULL')")
    with pytest.raises(HistoryError, match=r"history\.sqlite: the history database is damaged \(NULL value"):
        History.open(path)


def test_threads_share_one_history(history: History) -> None:
    def play(thread: int) -> list[int]:
        return [history.record("zen-garden", [board(thread), board(i)], f"t{thread}") for i in range(25)]

    with ThreadPoolExecutor(8) as pool:
        ids = [i for batch in pool.map(play, range(8)) for i in batch]
    assert len(set(ids)) == 200
    games = history.list(limit=1000)
    assert sorted(g.id for g in games) == sorted(ids)
    assert all(g.boards[0].total == int(g.source[1:]) for g in games)


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from device.history import History

    history = History.open(Path(sys.argv[1]))
    i = 0
    while True:
        n = i % 5 + 1
        boards = [{"total": seat, "state": {"pad": "x" * 500}, "flags": []} for seat in range(n)]
        history.record("zen-garden", boards, f"boards={n}", players=[f"p{seat}" for seat in range(n)])
        if i == 0:
            # Only now: however slow the disk, every run adds at least one game before it is killed.
            print("ready", flush=True)
        i += 1
    """
)


def test_killing_the_writer_never_leaves_half_a_game(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    rng = random.Random(7)
    counts = []
    for _ in range(5):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        try:
            assert writer.stdout is not None
            assert writer.stdout.readline() == "ready\n"
            try:
                writer.wait(rng.uniform(0.0, 0.25))
            except subprocess.TimeoutExpired:
                writer.send_signal(signal.SIGKILL)
            assert writer.wait(60) == -signal.SIGKILL
        finally:
            writer.kill()
            writer.wait()
            assert writer.stdout is not None
            writer.stdout.close()

        with History.open(path) as h:
            assert h._conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            games = h.list(limit=1_000_000)
        for g in games:
            n = int(g.source.removeprefix("boards="))
            assert [(b.seat, b.player, b.total) for b in g.boards] == [(s, f"p{s}", s) for s in range(n)]
            assert all(b.data["state"] == {"pad": "x" * 500} for b in g.boards)
        counts.append(len(games))
    # Every run got some games in and none was lost by a later crash.
    assert counts == sorted(counts) and counts[0] > 0 and len(set(counts)) == 5


def test_a_correction_replaces_its_game_in_one_transaction(history: History) -> None:
    when = datetime(2026, 11, 1, 20, 0, tzinfo=UTC)
    old = history.record("alices-garden", [{"total": 30}], "upload", when=when)
    new = history.record("alices-garden", [{"total": 35}], "corrected", when=when, replaces=old)
    assert [g.id for g in history.list()] == [new]
    assert history.get(new).boards[0].total == 35
    # Replacing a game that is gone stores nothing: the new game is rolled back with the failed delete.
    with pytest.raises(GameNotFound):
        history.record("alices-garden", [{"total": 40}], "corrected", replaces=old)
    assert [g.id for g in history.list()] == [new]


def test_a_live_game_is_one_entry_that_follows_the_table_until_it_is_cleared(history: History) -> None:
    live = LiveRecord(history)
    first = live.scored([{**board(10), "player": "Ann", "seat": "north"}, {**board(7), "seat": "south"}])
    assert first is not None
    # Each confirmed score replaces the game's entry, keeping the time it began; seats without a player
    # leave the names out.
    began = history.get(first).played_at
    second = live.scored([{**board(12), "player": "Ann"}, {**board(9), "player": "Bo"}])
    assert second is not None and second != first
    (game,) = history.list()
    assert game.id == second and game.source == "live" and game.played_at == began
    assert [(b.player, b.total) for b in game.boards] == [("Ann", 12), ("Bo", 9)]
    # The table cleared: the next game is a new entry.
    assert live.scored([]) is None
    third = live.scored([board(3)])
    assert [g.id for g in history.list()] == [third, second]
    # An entry deleted from the history page meanwhile: the game goes on in a new one.
    assert third is not None
    history.delete(third)
    fourth = live.scored([board(4)])
    assert fourth is not None and history.get(fourth).boards[0].total == 4


ANN = Sender("ann-player-id", "192.168.1.5", "ann-upload-key-0001")


def test_a_retry_of_an_upload_stores_nothing_and_finds_the_first(history: History) -> None:
    first = history.record("alices-garden", [board(3)], "upload", sender=ANN)
    with pytest.raises(AlreadyRecorded) as caught:
        history.record("alices-garden", [board(3)], "upload", sender=ANN)
    assert caught.value.game_id == first
    assert [g.id for g in history.list()] == [first]
    assert history.replay(ANN) == first
    # A retry that lost the first answer, and with it the player cookie, comes from the same address: it
    # finds the game, and may change it from now on.
    lost = Sender("new-player-id", ANN.address, ANN.key)
    assert history.replay(lost) == first
    assert history.uploaders(first) == {ANN.player, lost.player}
    # The key from another browser elsewhere, another key, or none: another upload.
    assert history.replay(Sender("bo-player-id", "192.168.1.6", ANN.key)) is None
    assert history.replay(Sender(ANN.player, ANN.address, "another-key-000001")) is None
    assert history.replay(Sender(ANN.player, ANN.address)) is None
    second = history.record("alices-garden", [board(3)], "upload", sender=Sender(ANN.player, ANN.address))
    assert history.uploaders(second) == {ANN.player}
    assert history.uploaders(history.record("alices-garden", [board(3)], "live")) == frozenset()


def test_who_sent_a_result_its_keys_and_changes_follow_it_when_replaced(history: History) -> None:
    first = history.record("alices-garden", [board(3)], "upload", sender=ANN, when=T0)
    fixed = Change("corrected", "player's phone at 192.168.1.5", T0 + timedelta(minutes=5))
    second = history.record("alices-garden", [board(4)], "corrected", when=T0, replaces=first, change=fixed)
    bo = Sender("bo-player-id", "192.168.1.9", "bo-read-again-key-01")
    again = Change("read again with more photos", "paired device 'Bo' (192.168.1.9)", T0 + timedelta(hours=1))
    third = history.record(
        "alices-garden", [board(5)], "upload", when=T0, replaces=second, sender=bo, change=again
    )
    # Who may change it stays who sent its photo; the changes are listed oldest first.
    assert history.uploaders(third) == {ANN.player}
    assert history.changes(third) == [fixed, again]
    assert history.changes(third)[0].to_json() == {
        "what": "corrected",
        "who": "player's phone at 192.168.1.5",
        "at": "2025-06-01T18:35:00+00:00",
    }
    # A retry of either request is answered with the result as it is now.
    assert history.replay(ANN) == third and history.replay(bo) == third
    assert history.uploaders(first) == frozenset() and history.changes(first) == []
    history.delete(third)
    with closing(sqlite3.connect(history.path)) as conn:
        for table in ("uploaders", "upload_keys", "changes"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table


def test_upload_keys_are_forgotten_after_a_day(history: History) -> None:
    history.record("alices-garden", [board(3)], "upload", sender=ANN)
    long_ago = (datetime.now(UTC) - KEY_KEPT - timedelta(minutes=1)).isoformat(timespec="microseconds")
    with closing(sqlite3.connect(history.path)) as conn:
        conn.execute("UPDATE upload_keys SET sent_at = ?", (long_ago,))
        conn.commit()
    assert history.replay(ANN) is not None  # kept until another is
    history.record(
        "alices-garden", [board(3)], "upload", sender=Sender("bo", "192.168.1.6", "bo-key-000000001")
    )
    assert history.replay(ANN) is None


def test_a_history_of_the_first_schema_is_brought_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        for statement in _MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO games (played_at, game, source) VALUES (?, 'zen-garden', 'upload')",
            (T0.isoformat(),),
        )
    with History.open(path) as h:
        assert h._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        (old,) = h.list()
        assert old.played_at == T0 and h.uploaders(old.id) == frozenset() and h.changes(old.id) == []
        new = h.record("zen-garden", [board(1)], "upload", sender=ANN)
        assert h.uploaders(new) == {ANN.player}


def test_the_history_keeps_its_newest_games_and_exports_them_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.history as history_module

    monkeypatch.setattr(history_module, "EXPORT_PAGE", 3)
    with History.open(tmp_path / "history.sqlite", max_games=7) as history:
        ids = [
            history.record("alices-garden", [board(k)], "upload", when=T0 + timedelta(minutes=k))
            for k in range(10)
        ]
        # The oldest three went to make room: every board, key and change with them.
        assert [g.id for g in reversed(history.list())] == ids[3:]
        with pytest.raises(GameNotFound):
            history.get(ids[0])
        out = io.StringIO()
        history.export_json(out)
        assert [g["id"] for g in json.loads(out.getvalue())] == ids[3:]
        out = io.StringIO()
        history.export_csv(out)
        out.seek(0)
        assert [int(row["game_id"]) for row in csv.DictReader(out)] == ids[3:]
