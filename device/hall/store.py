"""The hall's own record of the evening, kept in SQLite so that a restarted hall shows the evening so far.

Per table: whether it says it is online and its latest scores (the ``score`` message). Every finished game
(``result``) once: a result is known by its table and ``result_id``, so a repeat (QoS 1 delivers at least
once; a scorer sends again what the broker did not acknowledge) is dropped. A result that ``replaces``
another (a correction) takes that one's place: the replaced one no longer counts, and should it arrive only
after its replacement (a scorer's outbox sends what waited, in any order), it is stored as replaced at once.
A correction replaces only a result of its own table: one table cannot cancel another's games.

What counts comes from the message: each seat's name and total. The standings are per player name across the
tables (spaces tidied, capitals ignored, so "Alice" and "alice " are one player), over the results counted
since a time: games played, wins (the highest total of a game: tied players each win; a game needs two
scored seats to be won, so a solo game is no win) and points (the totals added). Seats with no name are
not in the standings; they still count in who won their game.

Durability as :mod:`device.history`: WAL, each write one transaction, ``PRAGMA user_version`` numbering the
schema, ``quick_check`` at opening. A result is committed with ``synchronous=FULL`` before the hall
acknowledges it to the broker, so a power cut never loses one the broker let go; a table's scores and
availability with ``NORMAL`` (the broker keeps them retained and sends them again on every subscribe, so the
last ones lost to a power cut come back, and 50 tables scoring every second do not cost 50 flushes a second
of an SD card).

Bounded whatever is sent: at most :data:`MAX_RESULTS` results (the earliest received go first) and
:data:`MAX_TABLES` tables (the one changed longest ago goes first); names, ids and seats are capped. A
repeat that arrives after its first copy was pruned (50 000 results later) would count again: no scorer's
outbox holds a result that long.

Threads: one connection, used only under a lock (the MQTT thread writes, the web app's threads read).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from device.mqtt.topics import Played, Seat
from device.sqlitefile import SqliteFile, SqliteStore

logger = logging.getLogger(__name__)

# The file's name in the state folder, beside the scorer's own history.
HALL_FILE = "hall.sqlite"
# An evening of 50 tables is a few hundred games: this keeps months of them, a few MB.
MAX_RESULTS = 50_000
# More tables than any hall holds; a stranger inventing table names cannot grow the file past it.
MAX_TABLES = 200
# The most players of any game here is 6; a message with more seats than this is not a game.
MAX_SEATS = 12
# What a name, a game and an id may be: room for any real one, and a stranger's cannot fill the screen.
MAX_NAME = 40
MAX_GAME = 64
MAX_ID = 128
# SQLite's integers are 64-bit; no game scores anywhere near this.
MAX_TOTAL = 1_000_000_000
# The standings the store answers with at most: more than any screen shows.
STANDINGS_LIMIT = 100
BUSY_TIMEOUT_S = 10.0

# Each entry upgrades the schema by one version; the file's user_version counts the entries applied.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE tables (
            name TEXT PRIMARY KEY,
            online INTEGER,
            changed_at TEXT NOT NULL,
            game TEXT,
            result_id TEXT,
            players TEXT,
            finished INTEGER,
            scored_at TEXT
        ) WITHOUT ROWID""",
        """CREATE TABLE results (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            table_name TEXT NOT NULL,
            result_id TEXT NOT NULL,
            game TEXT NOT NULL,
            played_at TEXT NOT NULL,
            received_at TEXT NOT NULL,
            replaces TEXT,
            replaced_by TEXT,
            UNIQUE (table_name, result_id)
        )""",
        "CREATE INDEX results_by_time ON results (played_at)",
        "CREATE INDEX results_replacing ON results (table_name, replaces)",
        """CREATE TABLE seats (
            seq INTEGER NOT NULL REFERENCES results (seq) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT,
            player TEXT,
            total INTEGER,
            PRIMARY KEY (seq, seat)
        ) WITHOUT ROWID""",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)
_TABLES = frozenset({"tables", "results", "seats"})

# Per player over the results counted since a time. A game's winners have its highest total, and a game
# needs two scored seats to have a winner. SQLite takes a bare column (s.name) from the row max() picks:
# each player is shown by the spelling of their latest game.
_STANDINGS = """
    WITH counted AS (
        SELECT seq FROM results WHERE replaced_by IS NULL AND played_at >= ?
    ), best AS (
        SELECT s.seq, max(s.total) AS top, count(s.total) AS scored
        FROM seats AS s JOIN counted USING (seq) GROUP BY s.seq
    )
    SELECT s.player, max(s.seq), s.name, count(DISTINCT s.seq),
        count(DISTINCT CASE WHEN b.scored >= 2 AND s.total = b.top THEN s.seq END),
        coalesce(sum(s.total), 0)
    FROM seats AS s JOIN best AS b USING (seq)
    WHERE s.player IS NOT NULL
    GROUP BY s.player
    ORDER BY 5 DESC, 6 DESC, 4 ASC, s.player
    LIMIT ?
"""


class HallStoreError(Exception):
    """The hall's file cannot be used; the message names it and says what to do."""


FILE = SqliteFile(
    "hall",
    _MIGRATIONS,
    _TABLES,
    HallStoreError,
    instead="give the hall another file",
    after_damage="and start the hall again: it begins a new evening, and the broker sends every table's "
    "latest scores again at once.",
)


@dataclass(frozen=True)
class TableScore:
    """A table's latest scores, as its ``score`` message said them."""

    game: str
    result_id: str
    players: tuple[Seat, ...]
    finished: bool
    scored_at: datetime
    """When they were scored: the message's time, or when the hall received it if that is earlier (a
    scorer's clock ahead of the hall's cannot put a score in the future)."""


@dataclass(frozen=True)
class TableState:
    """What the hall knows of one table."""

    name: str
    online: bool | None
    """What its ``available`` topic says; None: nothing (never said, or cleared)."""
    score: TableScore | None
    changed_at: datetime
    """When the hall last saw anything of it change (the hall's clock)."""

    @property
    def gone(self) -> bool:
        """Nothing is known of it any more (its retained messages were cleared): it leaves the hall."""
        return self.online is None and self.score is None


@dataclass(frozen=True)
class Standing:
    """One player's evening across the tables."""

    rank: int
    """1 for the leader; players level on wins and points share a rank."""
    name: str
    games: int
    wins: int
    points: int


def player_key(name: str) -> str:
    """Who a name stands for in the standings: spaces tidied, capitals ignored."""
    return " ".join(name.split()).casefold()


def _name(name: str | None) -> str | None:
    tidy = " ".join(name.split())[:MAX_NAME] if name is not None else ""
    return tidy or None


def _timestamp(when: datetime) -> str:
    if when.tzinfo is None:
        raise ValueError(f"{when.isoformat()}: a naive time is ambiguous; give one with a time zone")
    try:
        # Fixed width, so that text order is time order and the indexes sort by time.
        return when.astimezone(UTC).isoformat(timespec="microseconds")
    except OverflowError:
        raise ValueError(f"time {when.isoformat()} is out of range") from None


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _checked(played: Played) -> Played:
    """``played`` when the hall can keep it as it is; else ValueError saying what is wrong with it."""
    if len(played.game) > MAX_GAME or len(played.result_id) > MAX_ID:
        raise ValueError(f"game or result_id longer than {MAX_GAME} / {MAX_ID} characters")
    if played.replaces is not None and len(played.replaces) > MAX_ID:
        raise ValueError(f"replaces is longer than {MAX_ID} characters")
    if len(played.players) > MAX_SEATS:
        raise ValueError(f"{len(played.players)} seats: no game seats more than {MAX_SEATS}")
    for seat in played.players:
        if seat.total is not None and abs(seat.total) > MAX_TOTAL:
            raise ValueError(f"a total of {seat.total} is no game's score")
    _timestamp(played.time)
    return played


def _players_json(players: tuple[Seat, ...]) -> str:
    return json.dumps([[s.name, s.total] for s in players], separators=(",", ":"))


def _players(text: str) -> tuple[Seat, ...]:
    return tuple(Seat(name, total) for name, total in json.loads(text))


class HallStore(SqliteStore):
    """The hall's SQLite file; safe to share between threads."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        max_results: int = MAX_RESULTS,
        max_tables: int = MAX_TABLES,
    ) -> None:
        if max_results < 1 or max_tables < 1:
            raise ValueError(f"max_results and max_tables must be positive, not {max_results}, {max_tables}")
        self.path = path
        self.max_results = max_results
        self.max_tables = max_tables
        self._conn = conn
        self._lock = threading.Lock()
        self._durable: bool | None = None

    @classmethod
    def open(cls, path: Path, max_results: int = MAX_RESULTS, max_tables: int = MAX_TABLES) -> HallStore:
        """The hall's file at ``path``, created (with its folders) if it does not exist."""
        conn = FILE.connect(path, BUSY_TIMEOUT_S)
        return cls(path, conn, max_results, max_tables)

    @contextmanager
    def _transaction(self, durable: bool) -> Iterator[sqlite3.Connection]:
        with self._lock, FILE.errors(self.path):
            if self._durable is not durable:
                # Set between transactions (SQLite ignores it inside one); a FULL commit also flushes the
                # NORMAL ones before it, which share the WAL.
                self._conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
                self._durable = durable
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                # A failed COMMIT may already have rolled back; a second ROLLBACK would hide the real error.
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    # Writes: each returns what changed, or None when the message changed nothing (a retained message sent
    # again on every subscribe, a repeat).

    def set_available(self, table: str, online: bool | None, now: datetime) -> TableState | None:
        """``table`` says it is online (True), offline (False) or its ``available`` was cleared (None)."""
        with self._transaction(durable=False) as conn:
            before = _table(conn, table)
            if before is None and online is None:
                return None
            if before is not None and before.online is online:
                return None
            after = TableState(table, online, before.score if before else None, now)
            _put_table(conn, after, self.max_tables)
            return after

    def set_score(self, table: str, played: Played | None, now: datetime) -> TableState | None:
        """``table``'s latest scores (``played``; None: its ``score`` was cleared)."""
        score = None
        if played is not None:
            _checked(played)
            score = TableScore(
                played.game,
                played.result_id,
                tuple(Seat(_name(s.name), s.total) for s in played.players),
                played.finished,
                min(played.time, now),
            )
        with self._transaction(durable=False) as conn:
            before = _table(conn, table)
            if before is None and score is None:
                return None
            if before is not None and _same_score(before.score, score):
                return None
            after = TableState(table, before.online if before else None, score, now)
            _put_table(conn, after, self.max_tables)
            return after

    def add_result(self, played: Played, now: datetime) -> bool:
        """Keeps the finished game ``played`` (received ``now``); False: it is a repeat, nothing changed.
        Committed to the card before it returns."""
        _checked(played)
        table, result_id = played.table, played.result_id
        replaces = played.replaces if played.replaces != result_id else None
        seats = [(i, _name(s.name), s.total) for i, s in enumerate(played.players)]
        with self._transaction(durable=True) as conn:
            if conn.execute(
                "SELECT 1 FROM results WHERE table_name = ? AND result_id = ?", (table, result_id)
            ).fetchone():
                return False
            # Its correction may have come first: then it is stored as replaced, and never counts.
            later = conn.execute(
                "SELECT result_id FROM results WHERE table_name = ? AND replaces = ? ORDER BY seq LIMIT 1",
                (table, result_id),
            ).fetchone()
            seq = conn.execute(
                "INSERT INTO results (table_name, result_id, game, played_at, received_at, replaces, "
                "replaced_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    table,
                    result_id,
                    played.game,
                    _timestamp(min(played.time, now)),
                    _timestamp(now),
                    replaces,
                    later[0] if later else None,
                ),
            ).lastrowid
            conn.executemany(
                "INSERT INTO seats (seq, seat, name, player, total) VALUES (?, ?, ?, ?, ?)",
                [(seq, i, name, player_key(name) if name else None, total) for i, name, total in seats],
            )
            if replaces is not None:
                conn.execute(
                    "UPDATE results SET replaced_by = ? WHERE table_name = ? AND result_id = ? "
                    "AND replaced_by IS NULL",
                    (result_id, table, replaces),
                )
            # The earliest received go first: AUTOINCREMENT never reuses a number, so seq is arrival order.
            dropped = conn.execute(
                "DELETE FROM results WHERE seq <= (SELECT max(seq) FROM results) - ?", (self.max_results,)
            ).rowcount
        if dropped:
            logger.info("the hall keeps %d results: the %d earliest were let go", self.max_results, dropped)
        return True

    # Reads.

    def tables(self) -> list[TableState]:
        """Every table known, by name."""
        with self._lock, FILE.errors(self.path):
            rows = self._conn.execute(f"SELECT {_TABLE_COLUMNS} FROM tables ORDER BY name").fetchall()
        return [_table_state(row) for row in rows]

    def standings(self, since: datetime, limit: int = STANDINGS_LIMIT) -> list[Standing]:
        """The players' evening over the results played since ``since``, the leader first (most wins, then
        most points, then fewest games); at most ``limit`` players."""
        with self._lock, FILE.errors(self.path):
            rows = self._conn.execute(_STANDINGS, (_timestamp(since), limit)).fetchall()
        out: list[Standing] = []
        for i, (_, _, name, games, wins, points) in enumerate(rows):
            level = out and (out[-1].wins, out[-1].points) == (wins, points)
            out.append(Standing(out[-1].rank if level else i + 1, name, games, wins, points))
        return out

    def result_count(self) -> int:
        """The results kept, replaced ones too."""
        with self._lock, FILE.errors(self.path):
            count: int = self._conn.execute("SELECT count(*) FROM results").fetchone()[0]
        return count

    def counted(self, since: datetime) -> list[tuple[str, str]]:
        """(table, result_id) of every result that counts, played since ``since``, in the order received."""
        with self._lock, FILE.errors(self.path):
            rows = self._conn.execute(
                "SELECT table_name, result_id FROM results WHERE replaced_by IS NULL AND played_at >= ? "
                "ORDER BY seq",
                (_timestamp(since),),
            ).fetchall()
        return [(str(t), str(r)) for t, r in rows]


_TABLE_COLUMNS = "name, online, changed_at, game, result_id, players, finished, scored_at"


def _table_state(row: tuple[Any, ...]) -> TableState:
    name, online, changed_at, game, result_id, players, finished, scored_at = row
    score = (
        TableScore(game, result_id, _players(players), bool(finished), _time(scored_at))
        if game is not None
        else None
    )
    return TableState(name, None if online is None else bool(online), score, _time(changed_at))


def _table(conn: sqlite3.Connection, name: str) -> TableState | None:
    row = conn.execute(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE name = ?", (name,)).fetchone()
    return None if row is None else _table_state(row)


def _same_score(a: TableScore | None, b: TableScore | None) -> bool:
    if a is None or b is None:
        return a is b
    # The time compared as stored (microseconds, UTC): a message sent again is the same score.
    return (a.game, a.result_id, a.players, a.finished, _timestamp(a.scored_at)) == (
        b.game,
        b.result_id,
        b.players,
        b.finished,
        _timestamp(b.scored_at),
    )


def _put_table(conn: sqlite3.Connection, state: TableState, max_tables: int) -> None:
    if state.gone:
        conn.execute("DELETE FROM tables WHERE name = ?", (state.name,))
        return
    score = state.score
    conn.execute(
        f"INSERT OR REPLACE INTO tables ({_TABLE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            state.name,
            None if state.online is None else int(state.online),
            _timestamp(state.changed_at),
            score.game if score else None,
            score.result_id if score else None,
            _players_json(score.players) if score else None,
            int(score.finished) if score else None,
            _timestamp(score.scored_at) if score else None,
        ),
    )
    gone = conn.execute(
        "DELETE FROM tables WHERE name IN (SELECT name FROM tables ORDER BY changed_at DESC, name "
        "LIMIT -1 OFFSET ?)",
        (max_tables,),
    ).rowcount
    if gone:
        logger.warning("the hall holds at most %d tables: let go of the %d quiet longest", max_tables, gone)
