"""A versioned SQLite file of the device's own (the history; the hall's store): opened checked, its schema
brought up to date, and SQLite's errors said in words that name the file and what to do.

The schema's version is the file's ``user_version``: the count of migrations applied. A file of a newer
version, one of another program, or one whose pages or tables are damaged is refused, saying so.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self


@dataclass(frozen=True)
class SqliteFile:
    """One kind of file: ``kind`` as the messages name it ("history", "hall"); ``migrations``, each one
    version's statements; ``tables``, those a file of the current version holds; ``error``, the exception
    its messages are raised as; ``instead``, what to do with a file of a newer version or of another
    program; ``after_damage``, what moving a damaged one aside does."""

    kind: str
    migrations: tuple[tuple[str, ...], ...]
    tables: frozenset[str]
    error: type[Exception]
    instead: str
    after_damage: str

    @property
    def version(self) -> int:
        return len(self.migrations)

    def connect(
        self, path: Path, busy_timeout_s: float, synchronous_full: bool = False
    ) -> sqlite3.Connection:
        """A connection to the file at ``path`` (made, with its folders, if missing), checked and brought up
        to date (:meth:`prepare`); shared between threads, each transaction begun by its user."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise self.error(f"{path}: cannot open the {self.kind} database ({exc})") from None
        try:
            self.prepare(conn, path, synchronous_full)
        except BaseException:
            conn.close()
            raise
        return conn

    def damaged(self, path: Path, detail: str) -> Exception:
        return self.error(
            f"{path}: the {self.kind} database is damaged ({detail}). Move it aside (e.g. rename it to "
            f"{path.name}.broken, with any {path.name}-wal and {path.name}-shm beside it) {self.after_damage}"
        )

    @contextmanager
    def errors(self, path: Path) -> Iterator[None]:
        """SQLite's own errors as :attr:`error` naming the file: damage found only when a page is read (the
        check at opening passed), a disk that is full or gone, a lock held past the busy timeout."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            # Errors raised by the sqlite3 module itself (a closed connection) carry no SQLite error name.
            name = getattr(exc, "sqlite_errorname", None)
            if name in {"SQLITE_NOTADB", "SQLITE_CORRUPT"} or "malformed" in str(exc):
                raise self.damaged(path, str(exc)) from None
            raise self.error(f"{path}: cannot use the {self.kind} database ({exc})") from None

    def prepare(self, conn: sqlite3.Connection, path: Path, synchronous_full: bool = False) -> None:
        """Check the file, set its pragmas (WAL; ``synchronous_full``: each commit on the disk before it
        returns) and bring its schema up to :attr:`version`."""
        with self.errors(path):
            # The whole file is read: a few MB for years of games, well under a second on the Pi.
            problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise self.damaged(path, "; ".join(problems[:3]))
            conn.execute("PRAGMA journal_mode = WAL")
            if synchronous_full:
                conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if self._version_of(conn, path) < self.version:
                self._migrate(conn, path)
            # A file of the current version that lost a table (a page of the schema damaged, a hand edit)
            # would otherwise open fine and fail at the first write.
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            missing = sorted(self.tables - tables)
            if missing:
                raise self.damaged(path, f"table(s) {', '.join(missing)} missing")

    def _migrate(self, conn: sqlite3.Connection, path: Path) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the write lock: another process may have upgraded the file meanwhile.
            for statements in self.migrations[self._version_of(conn, path) :]:
                for statement in statements:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {self.version}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _version_of(self, conn: sqlite3.Connection, path: Path) -> int:
        version: int = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > self.version:
            raise self.error(
                f"{path}: {self.kind} schema version {version} was written by a newer garden-scorer (this "
                f"one reads up to version {self.version}); update garden-scorer, or {self.instead}"
            )
        if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise self.error(
                f"{path}: this SQLite file is not a garden-scorer {self.kind} file; {self.instead}"
            )
        return version


class SqliteStore:
    """A store over one connection to its file, shared between threads under one lock; closed by
    :meth:`close` or at the end of a ``with`` block."""

    path: Path
    _conn: sqlite3.Connection
    _lock: threading.Lock

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
