"""The scorer's client on a real broker (Debian's mosquitto, started per test): what reaches the broker,
when the broker is away, restarted or the scorer killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from device.history import History, LiveRecord
from device.mqtt.outbox import FILE, Outbox
from device.mqtt.publisher import Publisher
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import SEATS, read_played
from examples import EXAMPLES_DIR
from tests.broker import WAIT_S, Broker, Heard, free_port

BOARDS = [
    {"game": "alices-garden", "total": 41, "lines": []},
    {"game": "alices-garden", "total": 35, "lines": []},
]


@pytest.fixture
def heard(broker: Broker) -> Iterator[Heard]:
    listener = Heard(broker.port)
    yield listener
    listener.close()


def _publisher(broker: Broker, tmp_path: Path, table: str = "t1") -> Publisher:
    settings = MqttSettings.from_url(broker.url)
    return Publisher(settings, table, Outbox(tmp_path / FILE), "test")


def _results(heard: Heard, table: str = "t1") -> list[dict[str, Any]]:
    return [json.loads(p) for p in heard.on(f"garden-scorer/{table}/result")]


def test_a_scored_game_reaches_score_and_result_with_the_table_online_and_discovered(
    broker: Broker, heard: Heard, tmp_path: Path
) -> None:
    publisher = _publisher(broker, tmp_path)
    publisher.start()
    try:
        heard.wait(lambda: heard.on("garden-scorer/t1/available") == [b"online"], "online")
        history = History.open(tmp_path / "history.sqlite", listener=publisher)
        game_id = history.record("alices-garden", BOARDS, "upload", ["Ann", "Bo"])
        heard.wait(lambda: bool(_results(heard) and heard.on("garden-scorer/t1/score")), "score and result")
        score = read_played("t1", heard.on("garden-scorer/t1/score")[-1])
        assert [(s.name, s.total) for s in score.players] == [("Ann", 41), ("Bo", 35)]
        assert score.finished
        (result,) = _results(heard)
        assert result["result_id"] == score.result_id
        # Home Assistant's configs: the game's sensor and one per seat.
        configs = [t for t in heard.topics() if t.startswith("homeassistant/sensor/garden-scorer-t1/")]
        assert len(set(configs)) == 1 + SEATS
        # A correction is a new result that names the one it replaces.
        history.record("alices-garden", BOARDS[:1], "corrected", ["Ann"], replaces=game_id)
        heard.wait(lambda: len(_results(heard)) == 2, "the corrected result")
        assert _results(heard)[1]["replaces"] == result["result_id"]
        heard.wait(lambda: not publisher.outbox.waiting(), "the outbox emptied")
        # Deleted from the history: a result of no players takes the corrected one's place.
        corrected = _results(heard)[1]["result_id"]
        history.delete(history.list(limit=1)[0].id)
        heard.wait(lambda: len(_results(heard)) == 3, "the deletion")
        withdrawn = _results(heard)[2]
        assert (withdrawn["replaces"], withdrawn["players"], withdrawn["finished"]) == (corrected, [], True)
    finally:
        publisher.stop()
    heard.wait(lambda: heard.on("garden-scorer/t1/available")[-1] == b"offline", "offline said on stopping")


def test_the_live_game_is_one_result_when_the_table_is_cleared(
    broker: Broker, heard: Heard, tmp_path: Path
) -> None:
    publisher = _publisher(broker, tmp_path)
    publisher.start()
    try:
        heard.wait(lambda: bool(heard.on("garden-scorer/t1/available")), "online")
        live = LiveRecord(History.open(tmp_path / "history.sqlite", listener=publisher), publisher.finished)
        for total in (10, 20, 30):
            live.scored([{"game": "alices-garden", "total": total, "player": "Ann"}])

        def totals() -> list[int | None]:
            return [read_played("t1", p).players[0].total for p in heard.on("garden-scorer/t1/score")]

        # One score in flight at a time, the newest waiting: scores sent faster than the broker acknowledges
        # them arrive in order, the middle ones maybe skipped, the newest always last.
        heard.wait(lambda: totals()[-1:] == [30], "the newest live score")
        scores = [read_played("t1", p) for p in heard.on("garden-scorer/t1/score")]
        assert totals() in ([10, 20, 30], [10, 30])
        assert len({s.result_id for s in scores}) == 1 and not any(s.finished for s in scores)
        assert _results(heard) == []
        live.scored([])  # the table cleared: the game is over
        heard.wait(lambda: bool(_results(heard)), "the live game's result")
        (result,) = _results(heard)
        assert (result["result_id"], result["players"]) == (
            scores[0].result_id,
            [{"name": "Ann", "total": 30}],
        )
        # The next game on the table is another result.
        live.scored([{"game": "alices-garden", "total": 5}])
        live.scored([])
        heard.wait(lambda: len(_results(heard)) == 2, "the second game's result")
        assert _results(heard)[1]["result_id"] != result["result_id"]
    finally:
        publisher.stop()


def test_results_scored_with_the_broker_away_are_sent_when_it_is_back(
    broker: Broker, heard: Heard, tmp_path: Path
) -> None:
    broker.stop()
    publisher = _publisher(broker, tmp_path)
    publisher.start()
    try:
        history = History.open(tmp_path / "history.sqlite", listener=publisher)
        for _ in range(3):
            history.record("alices-garden", BOARDS, "upload")
        assert len(publisher.outbox.waiting()) == 3
        broker.start()
        heard.wait(
            lambda: len({r["result_id"] for r in _results(heard)}) == 3, "the three results", 2 * WAIT_S
        )
        heard.wait(lambda: not publisher.outbox.waiting(), "the outbox emptied")
    finally:
        publisher.stop()


def test_results_waiting_when_the_scorer_stopped_are_sent_by_the_next_start(
    broker: Broker, heard: Heard, tmp_path: Path
) -> None:
    broker.stop()
    first = _publisher(broker, tmp_path)
    first.start()
    History.open(tmp_path / "history.sqlite", listener=first).record("alices-garden", BOARDS, "upload")
    first.stop()
    first.outbox.close()
    broker.start()
    again = _publisher(broker, tmp_path)
    again.start()
    try:
        heard.wait(lambda: len(_results(heard)) == 1, "the result kept on disk")
        heard.wait(lambda: not again.outbox.waiting(), "the outbox emptied")
    finally:
        again.stop()


def test_a_broker_restarted_during_play_loses_no_result(broker: Broker, heard: Heard, tmp_path: Path) -> None:
    publisher = _publisher(broker, tmp_path)
    publisher.start()
    try:
        heard.wait(lambda: bool(heard.on("garden-scorer/t1/available")), "online")
        history = History.open(tmp_path / "history.sqlite", listener=publisher)
        for n in range(12):
            history.record("alices-garden", [{"game": "alices-garden", "total": n}], "upload")
            if n in (3, 7):
                broker.restart()
        heard.wait(lambda: not publisher.outbox.waiting(), "every result acknowledged", 3 * WAIT_S)
        heard.wait(
            lambda: len({r["result_id"] for r in _results(heard)}) == 12, "all twelve results", 2 * WAIT_S
        )
        totals = sorted(
            {(r["result_id"], r["players"][0]["total"]) for r in _results(heard)}, key=lambda r: r[1]
        )
        assert [t for _, t in totals] == list(range(12))
    finally:
        publisher.stop()


def test_a_scorer_killed_is_said_offline_by_its_last_will_and_its_upload_reached_the_broker(
    broker: Broker, heard: Heard, tmp_path: Path
) -> None:
    port = free_port()
    state = tmp_path / "state"
    env = {**os.environ, "GARDEN_SCORER_STATE_DIR": str(state)}
    command = [sys.executable, "-m", "device.cli", "serve", "--port", str(port), "--mqtt", broker.url]
    # Killed without a word: the broker says it is offline by its last will.
    scorer = subprocess.Popen(
        [*command, "--table", "kitchen"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        heard.wait(lambda: heard.on("garden-scorer/kitchen/available") == [b"online"], "the scorer online")
        photo = EXAMPLES_DIR / "photos" / "alices-garden.jpg"
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=WAIT_S) as client:
            answer = client.post(
                "/api/score?game=alices-garden",
                files={"file": ("board.jpg", photo.read_bytes(), "image/jpeg")},
            )
        assert answer.status_code == 200, answer.text
        total = answer.json()["boards"][0]["total"]
        heard.wait(lambda: bool(heard.on("garden-scorer/kitchen/result")), "the upload's result")
        score = read_played("kitchen", heard.on("garden-scorer/kitchen/score")[-1])
        assert [s.total for s in score.players] == [total]
        scorer.send_signal(signal.SIGKILL)
        scorer.wait(WAIT_S)
        heard.wait(lambda: heard.on("garden-scorer/kitchen/available")[-1] == b"offline", "the last will")
    finally:
        if scorer.poll() is None:
            scorer.kill()
        scorer.wait(WAIT_S)


def test_a_scorer_without_a_broker_never_loads_the_mqtt_client(tmp_path: Path) -> None:
    code = (
        "import sys; from device import cli, serve; from device.web import create_app; "
        "assert not [m for m in sys.modules if m.startswith('paho')], 'paho loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])
    with pytest.raises(ValueError, match="both --mqtt URL and --table NAME"):
        from device.serve import ServeOptions

        ServeOptions("alices-garden", None, mqtt=MqttSettings.from_url("mqtt://broker.local"))


def test_after_the_broker_stalls_the_retained_score_is_the_newest(
    broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.mqtt.publisher as publisher_module

    monkeypatch.setattr(publisher_module, "KEEPALIVE_S", 2)  # the stall noticed in seconds, not a minute
    publisher = _publisher(broker, tmp_path)
    publisher.start()
    heard = Heard(broker.port)
    try:
        heard.wait(lambda: publisher.connected, "connected")
        history = History.open(tmp_path / "history.sqlite", listener=publisher)
        assert broker.process is not None
        broker.process.send_signal(signal.SIGSTOP)  # frozen: the connection stays open, nothing answers
        for total in (1, 2):
            history.record("alices-garden", [{"game": "alices-garden", "total": total}], "upload")
        heard.wait(lambda: not publisher.connected, "the stall noticed")
        history.record("alices-garden", [{"game": "alices-garden", "total": 3}], "upload")
        broker.process.send_signal(signal.SIGCONT)
        heard.wait(lambda: not publisher.outbox.waiting(), "the three results acknowledged", 2 * WAIT_S)
    finally:
        if broker.process is not None:
            broker.process.send_signal(signal.SIGCONT)
        publisher.stop()
        heard.close()
    # What a receiver subscribing now gets: the retained score, the newest game's.
    late = Heard(broker.port, ("garden-scorer/t1/score",), client_id="late")
    late.wait(lambda: bool(late.on("garden-scorer/t1/score")), "the retained score")
    assert read_played("t1", late.on("garden-scorer/t1/score")[-1]).players[0].total == 3
    late.close()


def test_a_game_photographed_board_by_board_is_one_result(
    broker: Broker, heard: Heard, tmp_path: Path
) -> None:
    publisher = _publisher(broker, tmp_path)
    publisher.start()

    def board(total: int) -> list[dict[str, Any]]:
        return [{"game": "alices-garden", "total": total, "lines": []}]

    def seats(result: dict[str, Any]) -> list[tuple[str, int]]:
        return [(p["name"], p["total"]) for p in result["players"]]

    try:
        heard.wait(lambda: publisher.connected, "connected")
        history = History.open(tmp_path / "history.sqlite", listener=publisher)
        ann = history.record("alices-garden", board(40), "upload", ["Ann"])
        bo = history.record("alices-garden", board(35), "upload", ["Bo"])
        history.record("alices-garden", board(12), "upload", ["Ann"])  # Ann's board again: her next game
        heard.wait(lambda: len(_results(heard)) == 3, "three results")
        first, both, next_game = _results(heard)
        assert seats(first) == [("Ann", 40)] and "replaces" not in first
        # Bo's board joins Ann's game: one game of two, in the place of Ann's alone.
        assert seats(both) == [("Ann", 40), ("Bo", 35)] and both["replaces"] == first["result_id"]
        assert seats(next_game) == [("Ann", 12)] and "replaces" not in next_game
        # Bo's board corrected, then Ann's first deleted: the game each time, in the place of the last.
        history.record("alices-garden", board(38), "corrected", ["Bo"], replaces=bo)
        history.delete(ann)
        heard.wait(lambda: len(_results(heard)) == 5, "the game corrected, then without Ann's board")
        corrected, without = _results(heard)[3:]
        assert seats(corrected) == [("Ann", 40), ("Bo", 38)] and corrected["replaces"] == both["result_id"]
        assert seats(without) == [("Bo", 38)] and without["replaces"] == corrected["result_id"]
    finally:
        publisher.stop()


def test_an_acknowledgement_taken_while_a_result_is_handed_over_stops_neither(tmp_path: Path) -> None:
    # paho's network thread calls on_publish holding a lock that publish() takes too; a result was handed
    # over holding the publisher's lock, which on_publish wanted: each thread stood waiting for the other.
    class Client:
        def __init__(self) -> None:
            self.mutex = threading.Lock()
            self.in_publish, self.acking = threading.Event(), threading.Event()

        def publish(self, name: str, payload: bytes, qos: int = 0, retain: bool = False) -> Any:
            self.in_publish.set()
            self.acking.wait(WAIT_S)  # paho's thread holds its lock, calling on_publish
            with self.mutex:
                return SimpleNamespace(mid=7)

    client = Client()
    settings = MqttSettings.from_url("mqtt://127.0.0.1:1")
    publisher = Publisher(settings, "t1", Outbox(tmp_path / FILE), "test", client=client)

    def acknowledge() -> None:
        with client.mutex:
            client.acking.set()
            publisher._on_publish(client, None, 3, SimpleNamespace(is_failure=False), None)

    sender = threading.Thread(target=publisher._send, args=(1, "garden-scorer/t1/result", b"{}"), daemon=True)
    sender.start()
    assert client.in_publish.wait(WAIT_S)
    network = threading.Thread(target=acknowledge, daemon=True)
    network.start()
    network.join(WAIT_S)
    sender.join(WAIT_S)
    assert not network.is_alive() and not sender.is_alive()
    assert publisher._in_flight == {7: 1}
