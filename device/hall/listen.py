"""The hall's side of the broker: every table's messages taken in, kept, and passed on to the screens.

:class:`Hall` takes one message (a topic and its bytes): parsed by the contract (device/mqtt/topics.py), kept
in the store, then told to the feed. A message that is not one (anyone allowed to publish may send anything)
is logged and skipped. It knows nothing of MQTT's client; :class:`Listener` is that client.

The listener is paho-mqtt's, with a fixed client id and a persistent session (``clean_session=False``): the
broker keeps the hall's subscription while the hall is stopped or the broker restarts (mosquitto with
persistence on), and queues the results published meanwhile, which arrive when the hall is back. Results are
subscribed at QoS 1 and acknowledged only once stored (``manual_ack``): one the store could not keep is left
unacknowledged and the broker sends it again on the next connection. Scores and availability are subscribed
at QoS 0: both are retained, so the broker sends their latest on every subscribe anyway, and queued they
would fill the broker's queue for the hall (mosquitto's ``max_queued_messages``, 1000 by default) with 50
tables' scores within seconds, after which it drops messages, results too.

The hall only reads: it publishes nothing, not even a last will.
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from device.hall.feed import Feed
from device.hall.store import HallStore, HallStoreError, Standing, TableState
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import AVAILABLE, EVERY_TABLE, OFFLINE, ONLINE, RESULT, SCORE, read_played, table_of

logger = logging.getLogger(__name__)

CLIENT_ID = "garden-scorer-hall"
KEEPALIVE_S = 30
RECONNECT_S = (1, 30)
# A table's message is a few KB (its boards' breakdowns); past this it is no message of a scorer's, and is
# not parsed.
MAX_PAYLOAD = 1_000_000
SKIP_LOG_S = 60.0
MAX_SKIP_TABLES = 1000
# The longest evening asked for: a weekend tournament.
MAX_EVENING_HOURS = 24 * 7
# What each topic of EVERY_TABLE is subscribed at (see the module doc).
SUBSCRIPTIONS = [(name, 1 if name.endswith(f"/{RESULT}") else 0) for name in EVERY_TABLE]


@dataclass(frozen=True)
class Evening:
    """Which results the standings count: those played since ``start``, else in the last ``hours``."""

    hours: float = 12.0
    start: datetime | None = None

    def __post_init__(self) -> None:
        if not 0 < self.hours <= MAX_EVENING_HOURS:
            raise ValueError(f"the evening's hours must be more than 0 and at most {MAX_EVENING_HOURS}")
        if self.start is not None and self.start.tzinfo is None:
            raise ValueError("the evening's start needs a time zone, e.g. 2025-03-01T18:00+01:00")

    def since(self, now: datetime) -> datetime:
        """The evening's start, by ``now``; to the minute, so that the standings read within one minute are
        the same."""
        if self.start is not None:
            return self.start
        return (now - timedelta(hours=self.hours)).replace(second=0, microsecond=0)


def _now() -> datetime:
    return datetime.now(UTC)


class Hall:
    """The hall's state: the store, the evening it counts and the screens following it (``feed``)."""

    def __init__(
        self, store: HallStore, feed: Feed, evening: Evening, clock: Callable[[], datetime] = _now
    ) -> None:
        self.store = store
        self.feed = feed
        self.evening = evening
        self.clock = clock
        self._connected = False
        self._lock = threading.Lock()
        self._standings: tuple[tuple[int, datetime], list[Standing]] | None = None
        self._results = 0  # changes to the results since start: the standings' cache key with the evening
        # Per table, when a skipped message was last said and how many since: a flood of junk is one line a
        # minute in the log, not one each.
        self._skips: dict[str, tuple[float, int]] = {}

    @property
    def connected(self) -> bool:
        """Whether the hall is connected to the broker."""
        return self._connected

    def set_connected(self, connected: bool) -> None:
        if connected != self._connected:
            self._connected = connected
            self.feed.connected(connected)

    def receive(self, topic: str, payload: bytes) -> bool:
        """Takes one message. True: it is kept, or skipped for good (a bad one): acknowledge it. False: it
        could not be kept (the store failed, logged): leave it for the broker to send again."""
        where = table_of(topic)
        if where is None:
            logger.info("skipped a message on %r: not a table's topic", topic)
            return True
        table, kind = where
        try:
            if len(payload) > MAX_PAYLOAD:
                raise ValueError(f"{len(payload)} bytes, more than {MAX_PAYLOAD}")
            if kind == AVAILABLE:
                self._available(table, payload)
            elif kind == SCORE:
                played = read_played(table, payload) if payload else None  # empty: the retained one cleared
                changed = self.store.set_score(table, played, self.clock())
                if changed is not None:
                    self.feed.table(changed)
            elif self.store.add_result(read_played(table, payload), self.clock()):
                with self._lock:
                    self._results += 1
                self.feed.standings()
        except ValueError as exc:
            self._skipped(table, kind, exc)
        except HallStoreError:
            logger.exception("a message of table %s on %s was not kept", table, kind)
            return False
        return True

    def _available(self, table: str, payload: bytes) -> None:
        said = {ONLINE.encode(): True, OFFLINE.encode(): False, b"": None}
        if payload not in said:
            raise ValueError(f"available says {payload[:40]!r}, neither {ONLINE!r} nor {OFFLINE!r}")
        changed = self.store.set_available(table, said[payload], self.clock())
        if changed is not None:
            self.feed.table(changed)

    def since(self) -> datetime:
        return self.evening.since(self.clock())

    def tables(self) -> list[TableState]:
        """The tables the hall shows: those online, and those heard from this evening (a table switched
        off last week stays in the store, not on the screen)."""
        since = self.since()
        return [t for t in self.store.tables() if t.online or t.changed_at >= since]

    def _skipped(self, table: str, kind: str, problem: ValueError) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._skips) > MAX_SKIP_TABLES:
                self._skips.clear()
            last, since = self._skips.get(table, (now - SKIP_LOG_S, 0))
            said = now - last >= SKIP_LOG_S
            self._skips[table] = (now, 0) if said else (last, since + 1)
        if said:
            more = f" ({since} more skipped in the minute before)" if since else ""
            logger.warning("skipped a message of table %s on %s: %s%s", table, kind, problem, more)

    def standings(self) -> list[Standing]:
        """The evening's standings; worked out once per change of the results (or minute of the evening),
        however many screens ask."""
        since = self.since()
        with self._lock:
            key = (self._results, since)
            if self._standings is not None and self._standings[0] == key:
                return self._standings[1]
        standings = self.store.standings(since)
        with self._lock:
            self._standings = (key, standings)
        return standings


class Listener:
    """The hall's MQTT client. ``client``: a paho ``Client`` to use instead of a new one."""

    def __init__(
        self, settings: MqttSettings, hall: Hall, client_id: str = CLIENT_ID, client: Any = None
    ) -> None:
        self.settings = settings
        self.hall = hall
        self.client_id = client_id
        self.client = client if client is not None else self._new_client()
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe

    def _new_client(self) -> Any:
        try:
            import paho.mqtt.client as mqtt
            from paho.mqtt.enums import CallbackAPIVersion
        except ImportError:
            raise ValueError(
                "the hall needs paho-mqtt, the mqtt extra: pip install 'garden-scorer[mqtt]'"
            ) from None

        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=False,
            protocol=mqtt.MQTTv311,
            manual_ack=True,
        )
        if self.settings.user is not None:
            client.username_pw_set(self.settings.user, self.settings.password)
        if self.settings.tls:
            ca = None if self.settings.ca_file is None else str(self.settings.ca_file)
            try:
                client.tls_set(ca_certs=ca)
            except (OSError, ssl.SSLError) as exc:
                raise ValueError(
                    f"--mqtt-ca {ca}: cannot use it as the broker's certificate authority ({exc}); give the "
                    "PEM file of the authority that signed the broker's certificate"
                ) from None
        client.reconnect_delay_set(*RECONNECT_S)
        return client

    def start(self) -> None:
        """Connects in the background: the hall's page serves at once, broker or not."""
        self.client.connect_async(self.settings.host, self.settings.port, KEEPALIVE_S)
        self.client.loop_start()

    def stop(self) -> None:
        """Disconnects; the broker keeps the hall's session, and queues results for it until it is back."""
        self.client.disconnect()
        self.client.loop_stop()
        self.hall.set_connected(False)

    # paho's callbacks, on its network thread.
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            logger.warning("the broker %s refused the hall: %s", self.settings.where(), reason)
            return
        logger.warning("the hall is connected to the MQTT broker %s", self.settings.where())
        # Every connect, not only the first: a broker that lost its sessions (no persistence) has none for us,
        # and subscribing again is what has it send the retained scores.
        client.subscribe(SUBSCRIPTIONS)

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        refused = [
            name for (name, _), reason in zip(SUBSCRIPTIONS, reasons, strict=False) if reason.is_failure
        ]
        if refused:
            logger.error(
                "the broker %s refused the hall's subscription to %s: let the hall's user read "
                "garden-scorer/# (mosquitto: 'topic read garden-scorer/#' in its ACL file)",
                self.settings.where(),
                ", ".join(refused),
            )
        # Connected means hearing: only now is every message published reaching the hall.
        self.hall.set_connected(not refused)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.hall.set_connected(False)
        if reason.is_failure:
            logger.warning("lost the MQTT broker %s (%s): trying again", self.settings.where(), reason)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        # Nothing may escape: an exception here would end paho's network thread, and with it the hall's ears.
        try:
            try:
                topic = message.topic
            except UnicodeDecodeError:
                logger.info("skipped a message whose topic is not UTF-8")
                topic = None
            kept = topic is None or self.hall.receive(topic, bytes(message.payload))
            if kept and message.qos > 0:
                client.ack(message.mid, message.qos)
        except Exception:
            logger.exception("a message on %r could not be taken", getattr(message, "_topic", b"?"))
