"""What the scorer has to say on the broker, kept on disk until the broker has it.

A SQLite file in the state folder (``mqtt-outbox.sqlite``): each finished game's ``result`` waits there until
the broker acknowledges it (QoS 1), so a scorer that cannot reach the broker, or loses power, sends it when it
can. Each write is one transaction (SQLite's journal: all or nothing after a power cut). It is bounded: past
:data:`MAX_WAITING` results the oldest are let go (a scorer cut off for weeks of evenings), said in the log.

Beside them: the latest ``score`` message (retained on the broker, so only the newest matters) and which
result id each game of the history was given, so that a correction names the result it replaces.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

FILE = "mqtt-outbox.sqlite"
MAX_WAITING = 10_000
# Result ids kept for the history's games: enough for any correction a player makes (the history itself keeps
# at most 20 000 games).
MAX_IDS = 20_000
BUSY_TIMEOUT_S = 10.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS waiting (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL,
    payload BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS latest (topic TEXT PRIMARY KEY, payload BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS result_ids (game_id INTEGER PRIMARY KEY, result_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (group_id TEXT PRIMARY KEY, game TEXT NOT NULL, result_id TEXT);
CREATE TABLE IF NOT EXISTS boards (game_id INTEGER PRIMARY KEY, group_id TEXT NOT NULL, player TEXT,
    at REAL NOT NULL, seats TEXT NOT NULL, board TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Board:
    """One board of a game photographed board by board: the history's game it is, its seats and JSON."""

    game_id: int
    seats: tuple[tuple[str | None, int | None], ...]
    board: dict[str, Any]


@dataclass(frozen=True)
class Waiting:
    """A message not yet acknowledged by the broker; ``id`` is its place in the outbox."""

    id: int
    topic: str
    payload: bytes


class Outbox:
    """The outbox file; safe to use from several threads (one connection, one lock)."""

    def __init__(self, path: Path, max_waiting: int = MAX_WAITING) -> None:
        self.path = path
        self.max_waiting = max_waiting
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ValueError(
                f"the MQTT outbox {path} cannot be used ({exc}): move it aside and start again (the results "
                "not yet sent in it are then not sent)"
            ) from None

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def put(self, topic: str, payload: bytes) -> Waiting:
        """Keeps a message until :meth:`sent`; the oldest beyond :attr:`max_waiting` are let go."""
        with self._lock, self._conn:
            cursor = self._conn.execute(
                "INSERT INTO waiting (topic, payload) VALUES (?, ?)", (topic, payload)
            )
            (count,) = self._conn.execute("SELECT COUNT(*) FROM waiting").fetchone()
            if count > self.max_waiting:
                self._conn.execute(
                    "DELETE FROM waiting WHERE id IN (SELECT id FROM waiting ORDER BY id LIMIT ?)",
                    (count - self.max_waiting,),
                )
                logger.warning(
                    "the broker has been out of reach for %d results: the oldest is let go unsent",
                    self.max_waiting,
                )
        assert cursor.lastrowid is not None
        return Waiting(cursor.lastrowid, topic, payload)

    def waiting(self) -> list[Waiting]:
        """Every message not yet acknowledged, oldest first."""
        with self._lock:
            rows = self._conn.execute("SELECT id, topic, payload FROM waiting ORDER BY id").fetchall()
        return [Waiting(int(i), str(t), bytes(p)) for i, t, p in rows]

    def sent(self, message_id: int) -> None:
        """The broker has the message: it leaves the outbox."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM waiting WHERE id = ?", (message_id,))

    def set_latest(self, topic: str, payload: bytes) -> None:
        """The newest retained message of ``topic`` (the one published on every connect)."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO latest (topic, payload) VALUES (?, ?)", (topic, payload)
            )

    def latest(self) -> list[tuple[str, bytes]]:
        with self._lock:
            rows = self._conn.execute("SELECT topic, payload FROM latest ORDER BY topic").fetchall()
        return [(str(t), bytes(p)) for t, p in rows]

    def known(self, game_id: int) -> str | None:
        """The result id the history's game ``game_id`` was given, if any."""
        with self._lock:
            return self._known(game_id)

    def _known(self, game_id: int) -> str | None:
        query = "SELECT result_id FROM result_ids WHERE game_id = ?"
        row = self._conn.execute(query, (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def result_id(self, game_id: int, replaces: int | None, same_game: bool) -> tuple[str, str | None]:
        """The result id of the history's game ``game_id`` and the one it replaces (None: a new game).

        ``replaces``: the game of the history it took the place of. ``same_game``: it is the same game
        carried on (the live camera's newer score of the game on the table), which keeps its result id; else
        it is a correction, a new result that replaces the old one's."""
        with self._lock, self._conn:
            before = None if replaces is None else self._known(replaces)
            mine = before if same_game and before is not None else uuid.uuid4().hex
            self._conn.execute(
                "INSERT OR REPLACE INTO result_ids (game_id, result_id) VALUES (?, ?)", (game_id, mine)
            )
            self._conn.execute(
                "DELETE FROM result_ids WHERE game_id IN "
                "(SELECT game_id FROM result_ids ORDER BY game_id DESC LIMIT -1 OFFSET ?)",
                (MAX_IDS,),
            )
        return mine, None if same_game else before

    # A game photographed board by board: each board a game of the history, together one result.
    def game_of(self, game_id: int) -> str | None:
        """The game (board by board) the history's game ``game_id`` is a board of, if any."""
        with self._lock:
            row = self._conn.execute("SELECT group_id FROM boards WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def open_game(self, game: str, player: str, since: float) -> str | None:
        """The newest game of ``game`` photographed board by board with a board since ``since`` (a time) and
        none of ``player``'s: the one a board of theirs joins."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT g.group_id FROM games g JOIN boards b ON b.group_id = g.group_id WHERE g.game = ? "
                "GROUP BY g.group_id HAVING MAX(b.at) >= ? AND SUM(b.player = ?) = 0 ORDER BY MAX(b.at) DESC "
                "LIMIT 1",
                (game, since, player),
            ).fetchall()
        return str(rows[0][0]) if rows else None

    def add_board(self, group_id: str, game: str, board: Board, player: str | None, at: float) -> None:
        with self._lock, self._conn:
            self._conn.execute("INSERT OR IGNORE INTO games (group_id, game) VALUES (?, ?)", (group_id, game))
            self._conn.execute(
                "INSERT OR REPLACE INTO boards (game_id, group_id, player, at, seats, board) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (board.game_id, group_id, player, at, json.dumps(board.seats), json.dumps(board.board)),
            )

    def remove_board(self, game_id: int) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM boards WHERE game_id = ?", (game_id,))

    def boards(self, group_id: str) -> list[Board]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT game_id, seats, board FROM boards WHERE group_id = ? ORDER BY at, game_id",
                (group_id,),
            ).fetchall()
        return [
            Board(int(i), tuple((n, t) for n, t in json.loads(seats)), json.loads(b)) for i, seats, b in rows
        ]

    def published(self, group_id: str, result_id: str) -> str | None:
        """Notes ``result_id`` as the game's result (its boards' too); returns the one it replaces."""
        with self._lock, self._conn:
            row = self._conn.execute("SELECT result_id FROM games WHERE group_id = ?", (group_id,)).fetchone()
            self._conn.execute("UPDATE games SET result_id = ? WHERE group_id = ?", (result_id, group_id))
            self._conn.execute(
                "INSERT OR REPLACE INTO result_ids (game_id, result_id) "
                "SELECT game_id, ? FROM boards WHERE group_id = ?",
                (result_id, group_id),
            )
        return None if row is None or row[0] is None else str(row[0])
