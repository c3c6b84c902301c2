"""The scorer's MQTT client: the table's scores and finished games on the broker, never in scoring's way.

paho-mqtt runs its network loop on a thread of its own (``loop_start``), connects in the background and
reconnects with back-off (1 s, doubling to 30 s). What the scorer records reaches
:meth:`Publisher.recorded` (the history's listener): that writes to the outbox on disk and hands the message
to paho, which sends it when it can; nothing waits for the network. A finished game's ``result``
leaves the outbox only once the broker acknowledges it (QoS 1), so one recorded while the broker is away, or
just before a power cut, is sent after; a receiver drops a repeat by its ``result_id``.

On every connect the client says ``online`` (retained; its last will says ``offline``), Home Assistant's
discovery configs and the latest ``score`` (both retained), then whatever results still wait.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from device.history import LIVE, UPLOAD, GameRecord
from device.mqtt.outbox import Board, Outbox
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import (
    AVAILABLE,
    OFFLINE,
    ONLINE,
    RESULT,
    SCORE,
    Played,
    Seat,
    discovery_messages,
    played,
    topic,
)

logger = logging.getLogger(__name__)

KEEPALIVE_S = 30
RECONNECT_S = (1, 30)
GOODBYE_S = 5.0  # how long stopping waits for ``offline`` to reach the broker
# A game photographed board by board: a board of another player within this long of the last is of the same
# game (an Alice's Garden or Sanssouci evening scored from phones, each player sending their own board).
ONE_GAME_S = 30 * 60


class Publisher:
    """One table's client. ``client``: a paho ``Client`` to use instead of a new one (the tests' own)."""

    def __init__(
        self, settings: MqttSettings, table: str, outbox: Outbox, version: str, client: Any = None
    ) -> None:
        self.settings = settings
        self.table = table
        self.outbox = outbox
        self.version = version
        self._lock = threading.Lock()
        self._connected = threading.Event()
        # Results handed to paho and not yet acknowledged: paho's message id -> the outbox's. paho sends them
        # again itself after a reconnect; the others waiting in the outbox are sent on connect.
        self._in_flight: dict[int, int] = {}
        # One score in flight at a time, the newest waiting behind it: paho resends what was in flight after a
        # reconnect, after the connect's own messages, and a retained older score must never come last.
        self._score_in_flight: int | None = None
        self._score_waiting: bytes | None = None
        self._live: tuple[int, Played] | None = None  # the live camera's game in progress: (game id, scores)
        # paho calls on_publish holding a lock that its publish() takes too, and a publish here holds ours:
        # acknowledgements are taken on a thread of ours, so that paho's never waits for our lock (both
        # threads stood still, each holding the lock the other wanted: CI, 2026-11-30).
        self._acks: queue.SimpleQueue[tuple[int, bool] | None] = queue.SimpleQueue()
        self._acker = threading.Thread(target=self._take_acks, name="mqtt-acks", daemon=True)
        self.problem: str | None = None
        """What keeps the table's messages from the broker, in words (None: nothing known)."""
        self.client = client if client is not None else self._new_client()
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish

    def _new_client(self) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        # MQTT 5: the broker says when it refuses a message (its ACL), where 3.1.1 drops it without a word.
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"garden-scorer-{self.table}", protocol=mqtt.MQTTv5
        )
        client.will_set(topic(self.table, AVAILABLE), OFFLINE, qos=1, retain=True)
        if self.settings.user is not None:
            client.username_pw_set(self.settings.user, self.settings.password)
        if self.settings.tls:
            ca = None if self.settings.ca_file is None else str(self.settings.ca_file)
            client.tls_set(ca_certs=ca)
        client.reconnect_delay_set(*RECONNECT_S)
        return client

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def start(self) -> None:
        """Connects in the background: the scorer starts at once, broker or not."""
        self._acker.start()
        self.client.connect_async(self.settings.host, self.settings.port, KEEPALIVE_S)
        self.client.loop_start()

    def stop(self) -> None:
        """Says ``offline`` (a table switched off is not a table gone missing), then disconnects."""
        if self.connected:
            info = self.client.publish(topic(self.table, AVAILABLE), OFFLINE, qos=1, retain=True)
            try:
                info.wait_for_publish(GOODBYE_S)
            except (RuntimeError, ValueError):
                logger.warning("the broker did not take 'offline' before the scorer stopped")
        self.client.disconnect()
        self.client.loop_stop()
        self._acks.put(None)
        if self._acker.is_alive():
            self._acker.join(GOODBYE_S)

    def recorded(self, record: GameRecord, replaces: int | None) -> None:
        """The history stored ``record`` (in place of game ``replaces``): its scores go out, and a finished
        game's result (every one but the live camera's game in progress, which ends when the table is
        cleared: :meth:`finished`). Never raises: a fault here must not undo or stop the scoring."""
        try:
            if self._board_by_board(record, replaces):
                return
            live = record.source == LIVE
            result_id, before = self.outbox.result_id(record.id, replaces, same_game=live)
            message = played(self.table, record, result_id, finished=not live, replaces=before)
            if live:
                with self._lock:
                    self._live = (record.id, message)
            else:
                self._put_result(message)
            self._put_score(message)
        except Exception:
            logger.exception("game %d: its scores were not handed to the MQTT client", record.id)

    def _board_by_board(self, record: GameRecord, replaces: int | None) -> bool:
        """Whether ``record`` is a board of a game photographed board by board, and so published as that
        game's result (every board so far, each a seat), in the place of the game's result before it.

        A photo of one named player's board joins the newest game of the same game at this table that has a
        board from the last :data:`ONE_GAME_S` and none of that player's; a correction of such a board takes
        its place in its game. A photo of several boards, or of a board nobody named, is a game of its own."""
        game = self.outbox.game_of(replaces) if replaces is not None else None
        seats = tuple(seat for board in record.boards for seat in board.scores())
        player = seats[0][0] if len(seats) == 1 else None
        if game is None:
            if record.source != UPLOAD or replaces is not None or player is None:
                return False
            now = time.time()
            game = self.outbox.open_game(record.game, player, now - ONE_GAME_S) or uuid.uuid4().hex
        elif replaces is not None:
            self.outbox.remove_board(replaces)
        board = Board(record.id, seats, dict(record.boards[0].data) if record.boards else {})
        self.outbox.add_board(game, record.game, board, player, time.time())
        self._put_game(game, record.game)
        return True

    def _put_game(self, game: str, name: str) -> None:
        boards = self.outbox.boards(game)
        result_id = uuid.uuid4().hex
        before = self.outbox.published(game, result_id)
        seats = tuple(Seat(who, total) for b in boards for who, total in b.seats)
        shown = tuple(b.board for b in boards)
        message = Played(self.table, name, result_id, datetime.now(UTC), seats, shown, True, before)
        self._put_result(message)
        if boards:
            self._put_score(message)

    def deleted(self, record: GameRecord) -> None:
        """The owner deleted ``record`` from the history: a result with no players takes its result's place,
        so that a hall counts it no more (a board of a game photographed board by board: the game without
        it). Never raises."""
        try:
            game = self.outbox.game_of(record.id)
            if game is not None:
                self.outbox.remove_board(record.id)
                self._put_game(game, record.game)
                return
            before = self.outbox.known(record.id)
            with self._lock:
                if self._live is not None and self._live[0] == record.id:
                    self._live = None  # the game on the table was deleted: no result of it follows
            if before is None:
                return  # never told: nothing to take back
            self._put_result(
                Played(self.table, record.game, uuid.uuid4().hex, datetime.now(UTC), (), (), True, before)
            )
        except Exception:
            logger.exception("game %d: its deletion was not handed to the MQTT client", record.id)

    def finished(self, game_id: int) -> None:
        """The live camera's game ``game_id`` is over (its table cleared): its last scores are its result."""
        with self._lock:
            live, self._live = self._live, None
        if live is None or live[0] != game_id:
            return
        try:
            # Its time the game's end, now: its last scores were read a moment before the table was cleared.
            message = replace(live[1], finished=True, time=datetime.now(UTC))
            self._put_result(message)
            self._put_score(message)
        except Exception:
            logger.exception("game %d: its result was not handed to the MQTT client", game_id)

    def _put_result(self, message: Played) -> None:
        waiting = self.outbox.put(topic(self.table, RESULT), message.payload())
        if self.connected:
            self._send(waiting.id, waiting.topic, waiting.payload)

    def _put_score(self, message: Played) -> None:
        self.outbox.set_latest(topic(self.table, SCORE), message.payload())
        if self.connected:
            self._send_score(message.payload())

    def _send_score(self, payload: bytes) -> None:
        with self._lock:
            if self._score_in_flight is not None:
                self._score_waiting = payload
                return
            info = self.client.publish(topic(self.table, SCORE), payload, qos=1, retain=True)
            self._score_in_flight = info.mid

    def _send(self, outbox_id: int, name: str, payload: bytes) -> None:
        with self._lock:
            if outbox_id in self._in_flight.values():
                return
            info = self.client.publish(name, payload, qos=1)
            self._in_flight[info.mid] = outbox_id

    # paho's callbacks, on its network thread.
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.problem = f"the broker refused the table's connection: {reason}" + (
                " (check the user and the password)" if "authori" in str(reason).lower() else ""
            )
            logger.warning("the broker %s refused the connection: %s", self.settings.where(), reason)
            return
        self.problem = None
        logger.info("connected to the MQTT broker %s as table %s", self.settings.where(), self.table)
        client.publish(topic(self.table, AVAILABLE), ONLINE, qos=1, retain=True)
        for name, config in discovery_messages(self.table, self.version):
            client.publish(name, _json(config), qos=1, retain=True)
        self._connected.set()
        for name, payload in self.outbox.latest():
            if name == topic(self.table, SCORE):  # not a name the table had before (the page renamed it)
                self._send_score(payload)
        for waiting in self.outbox.waiting():
            self._send(waiting.id, waiting.topic, waiting.payload)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected.clear()
        if reason.is_failure:
            logger.warning("lost the MQTT broker %s (%s): trying again", self.settings.where(), reason)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        refused = bool(getattr(reason, "is_failure", False))
        if refused:
            # Kept in the outbox: sent again on the next connect, once the broker's ACL lets it through.
            user = self.settings.user or "(none)"
            self.problem = (
                f"the broker refuses this table's messages ({reason}): its user {user} may not publish as "
                f"table {self.table}; name the table as its user, or change the broker's ACL"
            )
            logger.error("the broker %s refused a message: %s", self.settings.where(), self.problem)
        self._acks.put((mid, refused))

    def _take_acks(self) -> None:
        """The broker's acknowledgements, in turn, until :meth:`stop`: a result acknowledged leaves the
        outbox, and the newest score waiting goes out. A mid is recorded under the lock before its
        acknowledgement can be taken here."""
        while (ack := self._acks.get()) is not None:
            try:
                self._acknowledged(*ack)
            except Exception:
                logger.exception("an acknowledgement from the broker was not taken")

    def _acknowledged(self, mid: int, refused: bool) -> None:
        with self._lock:
            outbox_id = self._in_flight.pop(mid, None)
            following = None
            if mid == self._score_in_flight:
                self._score_in_flight = None
                following, self._score_waiting = self._score_waiting, None
        if outbox_id is not None and not refused:
            self.outbox.sent(outbox_id)
        if following is not None:
            self._send_score(following)


def _json(data: object) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()
