"""The table's tie to a broker, which the owner may set or change from the set-up page while the scorer runs.

The service's own settings (``serve --mqtt ... --table ...``, from /etc/default/garden-scorer) come first: the
page shows them and leaves them to whoever set them. Without them, the broker the page last set is used, kept
in the state folder (``broker.json``, written atomically; its password is there too, a file only the service
reads, as its history is). With neither, the link does nothing and the MQTT client is never loaded.

Every game the history stores reaches :meth:`BrokerLink.recorded`, passed on to the publisher of the moment;
a change of broker stops one publisher and starts the next, the outbox (and what waits in it) kept.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from calibration.store import StoreError, read_versioned, write_json_atomic
from device.history import GameRecord
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import check_table

if TYPE_CHECKING:
    from device.mqtt.publisher import Publisher

logger = logging.getLogger(__name__)

FILE = "broker.json"
KIND = "broker"
VERSION = 1
SERVICE, PAGE, NONE = "service", "page", "none"


@dataclass(frozen=True)
class BrokerStatus:
    """What the set-up page shows: where the settings come from, the broker (no password) and the table."""

    source: str  # SERVICE, PAGE or NONE
    where: str | None
    table: str | None
    has_password: bool
    connected: bool
    problem: str | None = None
    """What keeps the table's messages from the broker, in words (a refused password, a refused table)."""


@dataclass(frozen=True)
class _Saved:
    url: str
    table: str
    password: str | None


class BrokerLink:
    """``fixed``: the service's settings and table (None: none given); ``state``: the state folder."""

    def __init__(self, state: Path, fixed: tuple[MqttSettings, str] | None, version: str) -> None:
        self.path = state / FILE
        self.state = state
        self.fixed = fixed
        self.version = version
        self._lock = threading.Lock()
        self._publisher: Publisher | None = None
        self._saved: _Saved | None = None if fixed is not None else _load(self.path)

    def start(self) -> None:
        """Connects (in the background) to the broker of the service's settings, else of the page's."""
        chosen = self._chosen()
        if chosen is not None:
            with self._lock:
                self._publisher = _start(self.state, *chosen, self.version)

    def stop(self) -> None:
        with self._lock:
            publisher, self._publisher = self._publisher, None
        if publisher is not None:
            _stop(publisher)

    def recorded(self, record: GameRecord, replaces: int | None) -> None:
        publisher = self._publisher
        if publisher is not None:
            publisher.recorded(record, replaces)

    def deleted(self, record: GameRecord) -> None:
        publisher = self._publisher
        if publisher is not None:
            publisher.deleted(record)

    def finished(self, game_id: int) -> None:
        publisher = self._publisher
        if publisher is not None:
            publisher.finished(game_id)

    def status(self) -> BrokerStatus:
        chosen = self._chosen()
        publisher = self._publisher
        source = SERVICE if self.fixed is not None else PAGE if chosen is not None else NONE
        return BrokerStatus(
            source=source,
            where=None if chosen is None else chosen[0].where(),
            table=None if chosen is None else chosen[1],
            has_password=chosen is not None and chosen[0].password is not None,
            connected=publisher is not None and publisher.connected and publisher.problem is None,
            problem=None if publisher is None else publisher.problem,
        )

    def change(self, url: str | None, table: str | None, password: str | None, keep_password: bool) -> None:
        """The page's broker: ``url`` and ``table`` (None: no broker), ``password`` (None: none), or the one
        kept before when ``keep_password``. Checked, saved, then the publisher of the new settings started.
        ValueError, saying what to change, for settings that cannot work; PermissionError where the service's
        settings decide."""
        if self.fixed is not None:
            raise PermissionError(
                "this table's broker is set in the service's settings (/etc/default/garden-scorer): change "
                "it there"
            )
        saved = None
        if url is not None or table is not None:
            if not url or not table:
                raise ValueError("give both the broker's address and this table's name, or neither")
            same = self._saved is not None and _where(self._saved.url) == _where(url)
            if keep_password and same and self._saved is not None:
                password = self._saved.password
            settings_for(url, password)  # refused here, before it is saved, if it cannot work
            saved = _Saved(url, check_table(table), password)
        if saved is None:
            self.path.unlink(missing_ok=True)
        else:
            write_json_atomic(self.path, {"kind": KIND, "version": VERSION, **saved.__dict__})
        self._saved = saved
        chosen = self._chosen()
        # The next publisher first, then the swap: a game stored meanwhile reaches one of them, never none.
        following = None if chosen is None else _start(self.state, *chosen, self.version)
        with self._lock:
            previous, self._publisher = self._publisher, following
        if previous is not None:
            _stop(previous)

    def _chosen(self) -> tuple[MqttSettings, str] | None:
        if self.fixed is not None:
            return self.fixed
        saved = self._saved
        return None if saved is None else (settings_for(saved.url, saved.password), saved.table)


def settings_for(url: str, password: str | None) -> MqttSettings:
    """The settings of a broker given on the page: as ``--mqtt`` takes them, the password typed in."""
    settings = MqttSettings.from_url(url)
    if password is not None and settings.user is None:
        raise ValueError("a password needs a user name in the address too: mqtt://USER@HOST")
    return MqttSettings(settings.host, settings.port, settings.tls, settings.user, password or None)


def _where(url: str) -> str:
    """The broker and user ``url`` names, however written (the port said or not)."""
    return MqttSettings.from_url(url).where()


def _load(path: Path) -> _Saved | None:
    if not path.is_file():
        return None
    try:
        data = read_versioned(path, KIND, (VERSION,))
        url, table, password = data.get("url"), data.get("table"), data.get("password")
        if not isinstance(url, str) or not isinstance(table, str) or not isinstance(password, str | None):
            raise StoreError(f"{path}: url and table must be text")
        settings_for(url, password)
        return _Saved(url, check_table(table), password)
    except (StoreError, ValueError) as exc:
        # The scorer runs without its broker rather than not at all; the page shows none set.
        logger.error("the broker set on the set-up page cannot be used (%s): set it again there", exc)
        return None


def _start(state: Path, settings: MqttSettings, table: str, version: str) -> Publisher:
    from device.mqtt.outbox import FILE as OUTBOX
    from device.mqtt.outbox import Outbox
    from device.mqtt.publisher import Publisher

    publisher = Publisher(settings, table, Outbox(state / OUTBOX), version)
    publisher.start()
    return publisher


def _stop(publisher: Publisher) -> None:
    publisher.stop()
    publisher.outbox.close()
