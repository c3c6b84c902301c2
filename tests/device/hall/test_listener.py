"""The hall's MQTT client without a broker: what it subscribes to, what it acknowledges, and that nothing a
message does can stop paho's network thread. paho's callbacks are called as paho calls them, with a stand-in
client; and ``run_hall`` refusing, before it starts, what it cannot run with."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from device.hall.app import HallOptions, run_hall
from device.hall.feed import Feed
from device.hall.listen import Evening, Hall, Listener
from device.hall.store import HallStore
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import topic
from tests.broker import free_port
from tests.device.hall.support import EVENING, played

SETTINGS = MqttSettings.from_url("mqtt://hall@broker.local")
OK = SimpleNamespace(is_failure=False)
REFUSED = SimpleNamespace(is_failure=True)


@dataclass
class Client:
    """paho's client, as far as the listener uses it from its callbacks."""

    subscribed: list[tuple[str, int]] = field(default_factory=list)
    acked: list[int] = field(default_factory=list)

    def subscribe(self, subscriptions: list[tuple[str, int]]) -> None:
        self.subscribed = subscriptions

    def ack(self, mid: int, qos: int) -> None:
        self.acked.append(mid)


class Message:
    def __init__(self, name: str | None, payload: bytes, mid: int, qos: int = 1) -> None:
        self._name = name
        self.payload = payload
        self.mid = mid
        self.qos = qos

    @property
    def topic(self) -> str:
        if self._name is None:  # as paho's MQTTMessage says a topic that is not UTF-8
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
        return self._name


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        yield Hall(store, Feed(), Evening(hours=12), clock=lambda: EVENING)


def _listener(hall: Hall) -> tuple[Listener, Client]:
    client = Client()
    return Listener(SETTINGS, hall, client=client), client


def test_every_connect_subscribes_results_at_qos_1_and_the_retained_topics_at_qos_0(hall: Hall) -> None:
    listener, client = _listener(hall)
    listener._on_connect(client, None, {}, OK, None)
    assert dict(client.subscribed) == {
        "garden-scorer/+/available": 0,
        "garden-scorer/+/score": 0,
        "garden-scorer/+/result": 1,
    }
    # Connected once the broker has the subscriptions: from then on nothing published is missed.
    assert not hall.connected
    listener._on_subscribe(client, None, 1, [OK, OK, OK], None)
    assert hall.connected
    listener._on_disconnect(client, None, {}, REFUSED, None)
    assert not hall.connected


def test_a_refused_connection_or_subscription_is_said_with_what_to_do(
    hall: Hall, caplog: pytest.LogCaptureFixture
) -> None:
    listener, client = _listener(hall)
    with caplog.at_level(logging.WARNING, logger="device.hall.listen"):
        listener._on_connect(client, None, {}, REFUSED, None)
        assert client.subscribed == []
        listener._on_subscribe(client, None, 1, [OK, OK, REFUSED], None)
    assert "refused the hall" in caplog.text
    assert "subscription to garden-scorer/+/result" in caplog.text and "ACL" in caplog.text
    assert not hall.connected


def test_a_result_is_acknowledged_once_kept_and_left_when_it_could_not_be(hall: Hall) -> None:
    listener, client = _listener(hall)
    listener._on_message(
        client, None, Message(topic("table-1", "result"), played("table-1", "r1").payload(), 7)
    )
    # A bad message, or one on a topic that is not text, is skipped for good: acknowledged too.
    listener._on_message(client, None, Message(topic("table-1", "result"), b"nonsense", 8))
    listener._on_message(client, None, Message(None, b"{}", 9))
    assert client.acked == [7, 8, 9]
    assert hall.store.result_count() == 1
    hall.store.close()
    listener._on_message(
        client, None, Message(topic("table-1", "result"), played("table-1", "r2").payload(), 10)
    )
    # Unacknowledged: the broker sends it again on the next connection.
    assert client.acked == [7, 8, 9]


def test_nothing_a_message_does_escapes_to_paho(
    hall: Hall, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    listener, client = _listener(hall)

    def broken(name: str, payload: bytes) -> bool:
        raise RuntimeError("a bug")

    monkeypatch.setattr(hall, "receive", broken)
    with caplog.at_level(logging.ERROR, logger="device.hall.listen"):
        listener._on_message(client, None, Message(topic("table-1", "score"), b"{}", 1, qos=0))
    assert "could not be taken" in caplog.text and "a bug" in caplog.text


def test_the_hall_refuses_a_file_it_cannot_use_before_it_starts(tmp_path: Path) -> None:
    damaged = tmp_path / "hall.sqlite"
    damaged.write_bytes(b"not a database " * 100)
    port = free_port()
    with pytest.raises(ValueError, match="damaged"):
        run_hall(HallOptions(SETTINGS, damaged, port=port))
    # The port it took is free again.
    _port_is_free(port)


def test_the_hall_refuses_a_certificate_authority_it_cannot_read(tmp_path: Path) -> None:
    pytest.importorskip("paho.mqtt", reason="needs paho-mqtt: pip install -e '.[dev]'")
    settings = MqttSettings.from_url("mqtts://broker.local", ca_file=tmp_path / "missing.pem")
    with pytest.raises(ValueError, match="--mqtt-ca"):
        run_hall(HallOptions(settings, tmp_path / "hall.sqlite", port=free_port()))


def _port_is_free(port: int) -> None:
    with socket.create_server(("127.0.0.1", port)):
        pass
