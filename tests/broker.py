"""A real MQTT broker for the tests (lab.mosquitto: Debian's mosquitto on a free loopback port), and a plain
client that hears what is published. ``.ci/run`` installs mosquitto; elsewhere the tests that need it skip
without it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from lab.mosquitto import Broker, free_port, have_mosquitto

__all__ = ["WAIT_S", "Broker", "Heard", "free_port", "have_mosquitto"]

# A message's way through the broker on a loaded CI machine, and a client's reconnect after a restart.
WAIT_S = 30.0


class Heard:
    """A plain paho client subscribed to ``topics`` on ``port``, keeping every message it hears (topic,
    payload, retained) in order: what any receiver would see. Its session is kept by the broker (as the
    hall's is), so what is published while it reconnects after a broker's restart reaches it after."""

    def __init__(
        self,
        port: int,
        topics: tuple[str, ...] = ("garden-scorer/#", "homeassistant/#"),
        user: tuple[str, str] | None = None,
        client_id: str = "tests-heard",
        timeout_s: float = WAIT_S,
    ) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.messages: list[tuple[str, bytes, bool]] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False, protocol=mqtt.MQTTv311
        )
        if user is not None:
            self.client.username_pw_set(*user)

        def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
            for name in topics:
                client.subscribe(name, qos=1)

        def on_message(client: Any, userdata: Any, message: Any) -> None:
            with self._lock:
                self.messages.append((message.topic, bytes(message.payload), bool(message.retain)))

        subscribed = threading.Event()
        self.client.on_connect = on_connect
        self.client.on_message = on_message
        self.client.on_subscribe = lambda *_: subscribed.set()
        self.client.reconnect_delay_set(1, 2)
        self.client.connect_async("127.0.0.1", port, 30)
        self.client.loop_start()
        # Subscribed before the test goes on: what it publishes next is heard, and kept for it by the broker.
        if not subscribed.wait(timeout_s):
            self.close()
            raise RuntimeError(f"could not subscribe to the broker on port {port}")

    def on(self, topic: str) -> list[bytes]:
        with self._lock:
            return [payload for name, payload, _ in self.messages if name == topic]

    def wait(self, done: Callable[[], bool], what: str, timeout_s: float = WAIT_S) -> None:
        """Waits until ``done()``; fails the test, saying ``what`` was awaited, after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout_s:.0f} s for {what}; heard {self.topics()}")
            time.sleep(0.05)

    def topics(self) -> list[str]:
        with self._lock:
            return [name for name, _, _ in self.messages]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
