"""The hall on a real broker (Debian's mosquitto, tests/broker.py): what tables publish with a plain paho
client reaches the hall's store and its JSON; a repeat counts once; what is published while the hall is away,
or across a broker restart, is not lost; ``run_hall`` serves it all and shows the evening so far again after a
restart. Skipped without mosquitto or paho-mqtt (the ``broker`` fixture says how to get them)."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from device.hall.app import create_hall_app
from device.hall.feed import Feed
from device.hall.listen import Evening, Hall, Listener
from device.hall.store import HallStore, Standing
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import topic
from tests.broker import Broker, free_port
from tests.device.hall.support import EVENING, WAIT_S, played, wait_until

NOW = EVENING + timedelta(hours=3)
_ids = itertools.count()


class Table:
    """A table's client as a scorer would be, but plain: it publishes what it is told, again until the broker
    acknowledges it (at least once, as the scorer's outbox does)."""

    def __init__(self, broker: Broker) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"test-table-{next(_ids)}", protocol=mqtt.MQTTv311
        )
        self.client.reconnect_delay_set(1, 2)
        self.client.connect_async("127.0.0.1", broker.port)
        self.client.loop_start()

    def send(self, name: str, payload: bytes, retain: bool = False) -> None:
        """Published at QoS 1, again until the broker has it: a copy may arrive twice."""
        deadline_tries = int(WAIT_S / 2) + 1
        for _ in range(deadline_tries):
            if not self.client.is_connected():
                wait_until(self.client.is_connected, "the table connected to the broker")
            info = self.client.publish(name, payload, qos=1, retain=retain)
            try:
                info.wait_for_publish(2.0)
            except (RuntimeError, ValueError):
                continue
            if info.is_published():
                return
        raise AssertionError(f"the broker never took the message on {name}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def table(broker: Broker) -> Iterator[Table]:
    client = Table(broker)
    yield client
    client.close()


@contextmanager
def following(broker: Broker, path: Path, client_id: str) -> Iterator[Hall]:
    """A hall on ``path`` following ``broker`` as ``client_id``, once it has subscribed."""
    with HallStore.open(path) as store:
        hall = Hall(store, Feed(), Evening(hours=12), clock=lambda: NOW)
        listener = Listener(MqttSettings.from_url(broker.url), hall, client_id)
        listener.start()
        try:
            wait_until(lambda: hall.connected, "the hall subscribed on the broker")
            yield hall
        finally:
            listener.stop()


def _result(name: str, result_id: str, **kwargs: Any) -> tuple[str, bytes]:
    return topic(name, "result"), played(name, result_id, **kwargs).payload()


def test_what_a_table_publishes_reaches_the_store_and_the_halls_json(
    broker: Broker, table: Table, tmp_path: Path
) -> None:
    # Retained before the hall ever connected: the broker hands them over on subscribing.
    table.send(topic("table-1", "available"), b"online", retain=True)
    table.send(topic("table-1", "score"), played("table-1", "r1", minutes=170).payload(), retain=True)
    with following(broker, tmp_path / "hall.sqlite", "hall-json") as hall:
        table.send(*_result("table-1", "r1", minutes=170))
        wait_until(lambda: hall.store.result_count() == 1, "the result kept")
        wait_until(hall.store.tables, "the table's scores kept")
        with TestClient(create_hall_app(hall), base_url="http://127.0.0.1") as client:
            state = client.get("/api/hall").json()
    assert state["connected"] is True
    assert [(t["name"], t["online"], t["title"]) for t in state["tables"]] == [
        ("table-1", True, "Alice's Garden")
    ]
    assert [p["total"] for p in state["tables"][0]["players"]] == [10, 20]
    assert state["standings"][0] == {"rank": 1, "name": "Bob", "games": 1, "wins": 1, "points": 20}


def test_the_same_result_published_twice_counts_once(broker: Broker, table: Table, tmp_path: Path) -> None:
    with following(broker, tmp_path / "hall.sqlite", "hall-twice") as hall:
        table.send(*_result("table-1", "r1"))
        table.send(*_result("table-1", "r1"))
        table.send(*_result("table-1", "r2"))
        wait_until(lambda: ("table-1", "r2") in hall.store.counted(EVENING), "the last result kept")
        assert hall.store.counted(EVENING) == [("table-1", "r1"), ("table-1", "r2")]
        assert hall.standings()[0] == Standing(1, "Bob", 2, 2, 40)


def test_results_published_while_the_hall_is_stopped_arrive_when_it_is_back(
    broker: Broker, table: Table, tmp_path: Path
) -> None:
    path = tmp_path / "hall.sqlite"
    with following(broker, path, "hall-away"):
        pass
    # The hall is away; the broker keeps its session and queues what is published for it.
    for i in range(5):
        table.send(*_result(f"table-{i}", f"r{i}"))
    with following(broker, path, "hall-away") as hall:
        wait_until(lambda: len(hall.store.counted(EVENING)) == 5, "the results published meanwhile")
        assert sorted(hall.store.counted(EVENING)) == [(f"table-{i}", f"r{i}") for i in range(5)]


def test_a_broker_restart_mid_stream_loses_no_result_and_doubles_none(
    broker: Broker, table: Table, tmp_path: Path
) -> None:
    count = 40
    with following(broker, tmp_path / "hall.sqlite", "hall-restart") as hall:
        sent = threading.Event()

        def publish() -> None:
            for i in range(count):
                table.send(*_result(f"table-{i % 4}", f"r{i}"))
                # Live scores between results, as the tables send them.
                table.send(
                    topic(f"table-{i % 4}", "score"), played(f"table-{i % 4}", f"s{i}").payload(), True
                )
            sent.set()

        publishing = threading.Thread(target=publish, daemon=True)
        publishing.start()
        wait_until(lambda: hall.store.result_count() >= count // 4, "the first results kept")
        broker.restart()
        wait_until(sent.is_set, "every result published", timeout_s=4 * WAIT_S)
        publishing.join()
        wait_until(lambda: hall.store.result_count() >= count, "every result kept", timeout_s=2 * WAIT_S)
        wait_until(lambda: hall.connected, "the hall back on the broker")
        assert sorted(r for _, r in hall.store.counted(EVENING)) == sorted(f"r{i}" for i in range(count))
        assert hall.store.result_count() == count
        assert hall.standings()[0] == Standing(1, "Bob", count, count, 20 * count)
        # The latest score of each table, whichever came last through the restart.
        assert len(hall.store.tables()) == 4


_RUN = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    from pathlib import Path
    from device.hall.app import HallOptions, run_hall
    from device.mqtt.settings import MqttSettings
    url, store, port, start = sys.argv[1:]
    run_hall(HallOptions(MqttSettings.from_url(url), Path(store), port=int(port),
                         evening_start=datetime.fromisoformat(start), client_id="hall-process"))
    """
)


@contextmanager
def _run_hall(broker: Broker, store: Path) -> Iterator[str]:
    """``run_hall`` in a process of its own, as ``garden-scorer hall`` runs it; yields its base URL and stops
    it with Ctrl-C (SIGINT), as a person would."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", _RUN, broker.url, str(store), str(port), EVENING.isoformat()],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
        try:
            return httpx.get(f"{url}/api/hall", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(answers, "the hall answered", timeout_s=2 * WAIT_S)
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            output, _ = process.communicate(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
            raise AssertionError(f"the hall did not stop on Ctrl-C: {output.decode()}") from None
    assert process.returncode == 0, output.decode()
    assert f"garden-scorer hall: http://127.0.0.1:{port}/" in output.decode()


def test_run_hall_serves_what_the_tables_publish_and_shows_it_again_after_a_restart(
    broker: Broker, table: Table, tmp_path: Path
) -> None:
    store = tmp_path / "hall.sqlite"
    with _run_hall(broker, store) as url:
        wait_until(lambda: httpx.get(f"{url}/api/hall").json()["connected"], "the hall on the broker")
        table.send(topic("table-7", "score"), played("table-7", "r1").payload(), retain=True)
        table.send(*_result("table-7", "r1"))
        wait_until(lambda: httpx.get(f"{url}/api/hall").json()["standings"], "the standings")
        page = httpx.get(f"{url}/")
        assert page.status_code == 200 and "The hall" in page.text
    broker.stop()
    # Without its broker, the restarted hall shows the evening so far from its own file.
    with _run_hall(broker, store) as url:
        state = httpx.get(f"{url}/api/hall").json()
        assert state["connected"] is False
        assert [t["name"] for t in state["tables"]] == ["table-7"]
        assert state["standings"][0] == {"rank": 1, "name": "Bob", "games": 1, "wins": 1, "points": 20}
