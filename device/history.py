"""The history of scored games, kept in SQLite so that a power cut never loses or breaks it.

A game is one photo or one live result: when it was played (UTC), which game, where the score came from
("upload", "live", "cli", ...) and one row per board with the board's JSON (as ``ScoredBoard.to_json``
gives it), its total (None when the board was not scored) and the player's name if one was given. An
uploaded game also keeps who sent it (the browser's anonymous player id, so that it alone, or a paired
device, may change the result) and its request's Idempotency-Key (so that a retry of an upload whose answer
was lost is answered with the game stored, not stored twice); every change made to a result since is noted
with who made it and when. All three follow a game when a correction replaces it under a new id.

Durability: the database runs in WAL mode with ``synchronous=FULL``, so every commit is on the card before
``record`` returns (WAL's default, NORMAL, may drop the last commits on a power cut), and each call writes in
one transaction, so a crash leaves the whole game or none of it. ``PRAGMA user_version`` numbers the
schema; a file from a newer build is refused rather than misread. Opening runs ``PRAGMA quick_check``, so a
damaged card is reported at start-up, naming the file and what to do, instead of failing halfway through a
game later.

Threads: one connection, opened with ``check_same_thread=False`` and used only under a lock. SQLite lets one
writer in at a time anyway and the device serves a handful of requests, so a lock costs nothing, while a
connection per call would repeat the pragmas on every request. Other processes (the CLI while the web app
runs) may open the same file: WAL lets them read during a write and the busy timeout makes writers queue.
"""

from __future__ import annotations

import builtins
import csv
import io
import json
import logging
import sqlite3
import textwrap
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, TextIO

from device.sqlitefile import SqliteFile, SqliteStore

logger = logging.getLogger(__name__)

# Each entry upgrades the schema by one version; the file's user_version counts the entries applied.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            played_at TEXT NOT NULL,
            game TEXT NOT NULL,
            source TEXT NOT NULL
        )""",
        "CREATE INDEX games_by_time ON games (played_at, id)",
        "CREATE INDEX games_by_game ON games (game, played_at, id)",
        """CREATE TABLE boards (
            game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            player TEXT,
            total INTEGER,
            data TEXT NOT NULL,
            PRIMARY KEY (game_id, seat)
        ) WITHOUT ROWID""",
    ),
    (
        """CREATE TABLE uploaders (
            game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            player TEXT NOT NULL,
            PRIMARY KEY (game_id, player)
        ) WITHOUT ROWID""",
        """CREATE TABLE upload_keys (
            key TEXT NOT NULL,
            player TEXT NOT NULL,
            address TEXT NOT NULL,
            sent_at TEXT NOT NULL,
            game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE
        )""",
        "CREATE INDEX upload_keys_by_key ON upload_keys (key)",
        "CREATE INDEX upload_keys_by_game ON upload_keys (game_id)",
        """CREATE TABLE changes (
            game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            changed_at TEXT NOT NULL,
            who TEXT NOT NULL,
            what TEXT NOT NULL
        )""",
        "CREATE INDEX changes_by_game ON changes (game_id, changed_at)",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)
_TABLES = frozenset({"games", "boards", "uploaders", "upload_keys", "changes"})
# What a game keeps of its upload and its changes: moved to the game that replaces it.
_FOLLOW_THE_GAME = ("uploaders", "upload_keys", "changes")
# A retry comes within minutes of the request whose answer it lost; a day is ample.
KEY_KEPT = timedelta(days=1)

# Long enough for another process's write (a few milliseconds) to finish, short enough to report a stuck one.
BUSY_TIMEOUT_S = 10.0

# The live camera's games (LiveRecord); every other source is a photo someone scored.
LIVE = "live"
# The source of a game scored from a photo a phone sent.
UPLOAD = "upload"

# Games read at a time by an export.
EXPORT_PAGE = 200
# The games kept at most: a table's evenings for years (a game is a few KB), and no more however many photos
# a stranger sends; past it the oldest go first.
MAX_GAMES = 20_000
CSV_FIELDS = ("game_id", "played_at", "game", "source", "seat", "player", "total", "flags", "state")
# A spreadsheet runs a cell that starts with one of these as a formula (a player named
# =HYPERLINK("http://...") would be a link out of the sheet); OWASP's rule: such text starts with a quote.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

_SELECT = """
    SELECT g.id, g.played_at, g.game, g.source, b.seat, b.player, b.total, b.data
    FROM ({games}) AS g LEFT JOIN boards AS b ON b.game_id = g.id
    ORDER BY g.played_at {order}, g.id {order}, b.seat
"""


class HistoryError(Exception):
    """The history file cannot be used, or a request to it cannot be met; the message says what to do."""


FILE = SqliteFile(
    "history",
    _MIGRATIONS,
    _TABLES,
    HistoryError,
    instead="point it at another history file",
    after_damage="to start a new history, or put back a copy from a backup.",
)


class GameNotFound(HistoryError, LookupError):
    """No game with that id is in the history (perhaps it was deleted)."""


class AlreadyRecorded(HistoryError):
    """A request with the same Idempotency-Key stored game ``game_id`` already: this one is its retry."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} was stored by this request already")
        self.game_id = game_id


@dataclass(frozen=True)
class Sender:
    """Who sent photos to be read (:meth:`History.record`), as the web app knows them."""

    player: str
    """The browser's anonymous player id: it may change the results it sent."""
    address: str
    """Its network address: a retry that lost the first answer, and with it the new player cookie, comes
    from it still."""
    key: str | None = None
    """The request's Idempotency-Key, the same in each retry of one upload; None: not given."""


@dataclass(frozen=True)
class Change:
    """A change made to a stored result: what was done, by whom (in words) and when."""

    what: str
    who: str
    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "who": self.who, "at": self.at.isoformat()}


@dataclass(frozen=True)
class BoardRecord:
    seat: int
    """Position of the board in the photo's reading order, from 0."""
    player: str | None
    total: int | None
    data: Mapping[str, Any]
    """The board's JSON as recorded."""

    def scores(self) -> list[tuple[str | None, int | None]]:
        """(player, total) of each player this board scores: its own, or on a board the players share (Four
        Gardens, Tang Garden: one board, a total each) every player's, by the names the result gives."""
        shared = self.data.get("players")
        if self.total is None and isinstance(shared, list) and shared:
            return [
                (
                    p.get("player") if isinstance(p.get("player"), str) else None,
                    p.get("total") if isinstance(p.get("total"), int) else None,
                )
                for p in shared
                if isinstance(p, Mapping)
            ]
        return [(self.player, self.total)]

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "total": self.total,
            "scores": [{"player": player, "total": total} for player, total in self.scores()],
            "board": dict(self.data),
        }


@dataclass(frozen=True)
class GameRecord:
    id: int
    played_at: datetime
    game: str
    source: str
    boards: tuple[BoardRecord, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "played_at": self.played_at.isoformat(),
            "game": self.game,
            "source": self.source,
            "boards": [b.to_json() for b in self.boards],
        }


def _timestamp(when: datetime) -> str:
    if when.tzinfo is None:
        raise ValueError(f"{when.isoformat()}: a naive time is ambiguous; give one with a time zone")
    # Fixed width, so that text order is time order and the indexes sort by time.
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def _board_row(
    seat: int, board: Mapping[str, Any], player: str | None
) -> tuple[int, str | None, int | None, str]:
    total = board.get("total")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        raise ValueError(f"board {seat}: total {total!r} is not a whole number or None")
    try:
        data = json.dumps(board, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"board {seat}: not storable as JSON ({exc})") from None
    return seat, player, total, data


def _records(rows: Iterable[tuple[Any, ...]], path: Path) -> builtins.list[GameRecord]:
    """Games from rows of ``_SELECT``: one row per board, a game's rows together, seats in order."""
    heads: dict[int, tuple[str, str, str]] = {}
    boards: dict[int, builtins.list[BoardRecord]] = {}
    for game_id, played_at, game, source, seat, player, total, data in rows:
        heads.setdefault(game_id, (played_at, game, source))
        seats = boards.setdefault(game_id, [])
        if seat is not None:  # None: a game recorded with no boards, left-joined
            seats.append(_board(game_id, seat, player, total, data, path))
    games = []
    for game_id, (played_at, game, source) in heads.items():
        try:
            when = datetime.fromisoformat(played_at)
        except (TypeError, ValueError):
            raise FILE.damaged(path, f"game {game_id} has the time {played_at!r}") from None
        games.append(GameRecord(game_id, when, game, source, tuple(boards[game_id])))
    return games


def _board(game_id: int, seat: int, player: Any, total: Any, data: Any, path: Path) -> BoardRecord:
    # quick_check proves the file's structure, not its rows: a flipped bit inside a row's text reads
    # back as broken JSON, and only this says so.
    try:
        board = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        board = None
    if not isinstance(board, dict):
        raise FILE.damaged(path, f"board {seat} of game {game_id} is not a JSON object")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        raise FILE.damaged(path, f"board {seat} of game {game_id} has the total {total!r}")
    return BoardRecord(seat, player, total, board)


class Listener(Protocol):
    """Told of each change to the history, once committed (the MQTT publisher)."""

    def recorded(self, record: GameRecord, replaces: int | None) -> None:
        """``record`` was stored, in the place of game ``replaces`` (None: a new game)."""

    def deleted(self, record: GameRecord) -> None:
        """``record`` was deleted."""


class History(SqliteStore):
    """Scored games in one SQLite file, at most ``max_games`` of them (the oldest go first); safe to share
    between threads. ``listener`` is told of each game stored (the MQTT publisher); its faults are logged,
    never raised: the game is stored."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        max_games: int = MAX_GAMES,
        listener: Listener | None = None,
    ) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()
        self.max_games = max_games
        self.listener = listener

    @classmethod
    def open(cls, path: Path, max_games: int = MAX_GAMES, listener: Listener | None = None) -> History:
        """Open the history at ``path``, creating it (and its folders) if it does not exist."""
        return cls(path, FILE.connect(path, BUSY_TIMEOUT_S, synchronous_full=True), max_games, listener)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, FILE.errors(self.path):
            # IMMEDIATE takes the write lock up front: waiting for another process happens here, under the
            # busy timeout, instead of failing when a read transaction tries to become a write one.
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                # A failed COMMIT may already have rolled back; a second ROLLBACK would hide the real error.
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    def _select(self, games_sql: str, params: Sequence[object], order: str) -> builtins.list[GameRecord]:
        # One statement, so one snapshot: a game is never seen half-deleted by a concurrent writer.
        with self._lock, FILE.errors(self.path):
            rows = self._conn.execute(_SELECT.format(games=games_sql, order=order), params).fetchall()
        return _records(rows, self.path)

    def record(
        self,
        game: str,
        boards: Sequence[Mapping[str, Any]],
        source: str,
        players: Sequence[str] | None = None,
        when: datetime | None = None,
        replaces: int | None = None,
        sender: Sender | None = None,
        change: Change | None = None,
    ) -> int:
        """Store one scored game with all its boards, all or nothing; returns its id.

        ``players``, if given, names the player of each board in order. ``when`` defaults to now and must
        carry a time zone. ``replaces`` (a corrected result) removes that game in the same transaction, so a
        power cut leaves either the old game or the new one, never both; the new one keeps its uploaders, keys
        and changes. ``sender``: who sent the photos, the uploader of a new game (one that replaces another
        keeps that one's); where a request with its key stored a game already, nothing is stored and
        :class:`AlreadyRecorded` names that game. ``change`` is noted with the game.
        """
        if players is not None and len(players) != len(boards):
            raise ValueError(f"{len(players)} player name(s) for {len(boards)} board(s)")
        names: Sequence[str | None] = players if players is not None else [None] * len(boards)
        played_at = _timestamp(when if when is not None else datetime.now(UTC))
        rows = [
            _board_row(seat, board, name)
            for seat, (board, name) in enumerate(zip(boards, names, strict=True))
        ]
        with self._transaction() as conn:
            # Checked in the transaction that stores it: two retries at once store one game.
            first = _sent(conn, sender) if sender is not None else None
            if first is not None:
                raise AlreadyRecorded(first)
            cursor = conn.execute(
                "INSERT INTO games (played_at, game, source) VALUES (?, ?, ?)", (played_at, game, source)
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            conn.executemany(
                "INSERT INTO boards (game_id, seat, player, total, data) VALUES (?, ?, ?, ?, ?)",
                [(game_id, *row) for row in rows],
            )
            if replaces is not None:
                for table in _FOLLOW_THE_GAME:
                    conn.execute(f"UPDATE {table} SET game_id = ? WHERE game_id = ?", (game_id, replaces))
                if conn.execute("DELETE FROM games WHERE id = ?", (replaces,)).rowcount == 0:
                    raise GameNotFound(
                        f"no game {replaces} in the history: corrected since (a new number) or deleted"
                    )
            elif sender is not None:
                conn.execute(
                    "INSERT INTO uploaders (game_id, player) VALUES (?, ?)", (game_id, sender.player)
                )
            if sender is not None and sender.key is not None:
                _keep_key(conn, sender, game_id)
            if change is not None:
                conn.execute(
                    "INSERT INTO changes (game_id, changed_at, who, what) VALUES (?, ?, ?, ?)",
                    (game_id, _timestamp(change.at), change.who, change.what),
                )
            (count,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()
            if count > self.max_games:
                conn.execute(
                    "DELETE FROM games WHERE id IN (SELECT id FROM games ORDER BY played_at, id LIMIT ?)",
                    (count - self.max_games,),
                )
        if self.listener is not None:
            try:
                self.listener.recorded(self.get(game_id), replaces)
            except Exception:
                logger.exception("game %d is stored; telling %s of it failed", game_id, self.listener)
        return game_id

    def replay(self, sender: Sender) -> int | None:
        """The game a request with ``sender``'s Idempotency-Key stored, if any, to answer its retry with.
        The retry's browser may change that game from now on: holding the key, it sent the photos (it may
        have lost the first answer, and with it the player cookie given then)."""
        if sender.key is None:
            return None
        with self._transaction() as conn:
            game_id = _sent(conn, sender)
            if game_id is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO uploaders (game_id, player) VALUES (?, ?)",
                    (game_id, sender.player),
                )
        return game_id

    def uploaders(self, game_id: int) -> frozenset[str]:
        """The player ids of the browsers that sent the game's photos; none for a game not uploaded (the live
        camera's, the command line's) or uploaded before uploaders were kept."""
        with self._lock, FILE.errors(self.path):
            rows = self._conn.execute("SELECT player FROM uploaders WHERE game_id = ?", (game_id,)).fetchall()
        return frozenset(str(row[0]) for row in rows)

    def changes(self, game_id: int) -> builtins.list[Change]:
        """The changes made to the game's result, oldest first."""
        with self._lock, FILE.errors(self.path):
            rows = self._conn.execute(
                "SELECT changed_at, who, what FROM changes WHERE game_id = ? ORDER BY changed_at, rowid",
                (game_id,),
            ).fetchall()
        try:
            return [Change(str(what), str(who), datetime.fromisoformat(at)) for at, who, what in rows]
        except (TypeError, ValueError):
            raise FILE.damaged(self.path, f"a change of game {game_id} has no readable time") from None

    def get(self, game_id: int) -> GameRecord:
        found = self._select("SELECT * FROM games WHERE id = ?", (game_id,), "DESC")
        if not found:
            raise GameNotFound(f"no game {game_id} in the history: corrected since (a new number) or deleted")
        return found[0]

    def list(self, limit: int = 50, offset: int = 0, game: str | None = None) -> builtins.list[GameRecord]:
        """Games newest first, optionally only those of ``game``; ``limit`` and ``offset`` page through."""
        if limit < 0 or offset < 0:
            raise ValueError(f"limit {limit} and offset {offset} must not be negative")
        where, params = ("WHERE game = ?", [game]) if game is not None else ("", [])
        games_sql = f"SELECT * FROM games {where} ORDER BY played_at DESC, id DESC LIMIT ? OFFSET ?"
        return self._select(games_sql, [*params, limit, offset], "DESC")

    def newest_photo(self) -> tuple[GameRecord, datetime] | None:
        """The game stored last that is not the live camera's, and when: its time, or its last change's (a
        corrected game keeps the first's time under a new, higher id)."""
        # Newest id first: only the live games (one per game on the table) stored since are stepped over.
        found = self._select("SELECT * FROM games WHERE source != ? ORDER BY id DESC LIMIT 1", [LIVE], "DESC")
        if not found:
            return None
        changed = [change.at for change in self.changes(found[0].id)]
        return found[0], max([found[0].played_at, *changed])

    def delete(self, game_id: int) -> None:
        """Remove a game and all it keeps: boards, uploaders, keys and changes."""
        gone = self.get(game_id) if self.listener is not None else None
        with self._transaction() as conn:
            if conn.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
                raise GameNotFound(
                    f"no game {game_id} in the history: corrected since (a new number) or deleted"
                )
        if self.listener is not None and gone is not None:
            try:
                self.listener.deleted(gone)
            except Exception:
                logger.exception("game %d is deleted; telling %s of it failed", game_id, self.listener)

    def _all(self) -> Iterator[GameRecord]:
        """Every game, oldest first (an export reads as a log, and a later export only adds rows at the end),
        read :data:`EXPORT_PAGE` at a time: an export of the whole history never holds it all."""
        after: tuple[str, int] = ("", 0)
        while True:
            page = self._select(
                "SELECT * FROM games WHERE (played_at, id) > (?, ?) ORDER BY played_at, id LIMIT ?",
                (*after, EXPORT_PAGE),
                "ASC",
            )
            yield from page
            if len(page) < EXPORT_PAGE:
                return
            after = (_timestamp(page[-1].played_at), page[-1].id)

    def json_chunks(self) -> Iterator[str]:
        """Every game, oldest first, as a JSON list of ``GameRecord.to_json`` objects, a game at a time."""
        yield "["
        for i, game in enumerate(self._all()):
            yield ("," if i else "") + "\n" + textwrap.indent(json.dumps(game.to_json(), indent=2), "  ")
        yield "\n]\n"

    def export_json(self, out: TextIO) -> None:
        for chunk in self.json_chunks():
            out.write(chunk)

    def csv_chunks(self) -> Iterator[str]:
        """One row per board's player (a board the players share has a row for each), oldest game first
        (columns ``CSV_FIELDS``), a game's rows at a time; games without boards have no row."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(CSV_FIELDS)
        for g in self._all():
            for b in g.boards:
                for player, total in b.scores():
                    writer.writerow(
                        _spreadsheet_cell(value)
                        for value in (
                            g.id,
                            g.played_at.isoformat(),
                            g.game,
                            g.source,
                            b.seat,
                            player if player is not None else "",
                            total if total is not None else "",
                            "; ".join(b.data.get("flags", [])),
                            json.dumps(b.data.get("state"), separators=(",", ":")),
                        )
                    )
            yield out.getvalue()
            out.seek(0)
            out.truncate()
        yield out.getvalue()

    def export_csv(self, out: TextIO) -> None:
        for chunk in self.csv_chunks():
            out.write(chunk)


def _spreadsheet_cell(value: object) -> object:
    """``value`` as a CSV cell no spreadsheet runs: text that would start a formula gets a leading quote,
    which spreadsheets show as text; numbers (a total of -5) stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return f"'{value}"
    return value


def _sent(conn: sqlite3.Connection, sender: Sender) -> int | None:
    """The game stored with ``sender``'s key from the same browser or the same address, if any."""
    if sender.key is None:
        return None
    row = conn.execute(
        "SELECT game_id FROM upload_keys WHERE key = ? AND (player = ? OR address = ?)",
        (sender.key, sender.player, sender.address),
    ).fetchone()
    return None if row is None else int(row[0])


def _keep_key(conn: sqlite3.Connection, sender: Sender, game_id: int) -> None:
    """Note ``sender``'s key as having stored ``game_id``; keys older than KEY_KEPT go."""
    now = datetime.now(UTC)
    conn.execute("DELETE FROM upload_keys WHERE sent_at < ?", (_timestamp(now - KEY_KEPT),))
    conn.execute(
        "INSERT INTO upload_keys (key, player, address, sent_at, game_id) VALUES (?, ?, ?, ?, ?)",
        (sender.key, sender.player, sender.address, _timestamp(now), game_id),
    )


class LiveRecord:
    """Keeps the game the live camera is scoring in the history: one entry per game on the table, replaced
    by each score the camera confirms (its time the first's), and a new one once the table has been
    cleared. Each score it shows on the TV is so in the history, as the last state of that game.
    ``finished`` is told the entry's id of each game once it is over (the MQTT publisher's result).
    """

    def __init__(self, history: History, finished: Callable[[int], None] | None = None) -> None:
        self.history = history
        self.finished = finished
        self._current: int | None = None
        self._started: datetime | None = None

    def scored(self, boards: Sequence[Mapping[str, Any]]) -> int | None:
        """Records the table's ``boards`` (as the live events give them, each with its ``player`` when its
        seat names one); none: the game is over. Returns the entry's id."""
        if not boards:
            over, self._current, self._started = self._current, None, None
            if over is not None and self.finished is not None:
                self.finished(over)
            return None
        game = str(boards[0].get("game", ""))
        names = [b.get("player") for b in boards]
        players = [str(n) for n in names] if all(isinstance(n, str) and n for n in names) else None
        if self._started is None:
            self._started = datetime.now(UTC)
        try:
            self._current = self.history.record(
                game, boards, LIVE, players, when=self._started, replaces=self._current
            )
        except GameNotFound:
            # Deleted from the history page meanwhile: the game goes on, in a new entry.
            self._current = self.history.record(game, boards, LIVE, players, when=self._started)
        return self._current
