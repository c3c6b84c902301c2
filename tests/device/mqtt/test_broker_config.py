"""The broker configuration shipped in systemd/mosquitto/ on a real mosquitto: everyone signs in, each table
publishes only under its own topics, the hall and Home Assistant only read."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.history import History
from device.mqtt.outbox import FILE, Outbox
from device.mqtt.publisher import Publisher
from device.mqtt.settings import MqttSettings
from tests.broker import Broker, Heard, have_mosquitto

SHIPPED = Path(__file__).parents[3] / "systemd" / "mosquitto"
USERS = {"t1": "pw-one", "t2": "pw-two", "hall": "pw-hall", "homeassistant": "pw-ha"}


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[Broker]:
    """mosquitto with the shipped configuration (its own listener aside) and a user each."""
    if not have_mosquitto():
        pytest.skip("needs Debian's mosquitto: apt-get install mosquitto")
    pytest.importorskip("paho.mqtt")
    folder = tmp_path / "broker"
    folder.mkdir()
    passwords = folder / "garden-scorer.passwd"
    for user, password in USERS.items():
        create = ["-c"] if user == "t1" else []
        subprocess.run(["mosquitto_passwd", "-b", *create, str(passwords), user, password], check=True)
    acl = folder / "garden-scorer.acl"
    # A block per table, as docs/hall.md adds them.
    blocks = "".join(
        f"user {t}\ntopic write garden-scorer/{t}/#\ntopic write homeassistant/sensor/garden-scorer-{t}/#\n\n"
        for t in ("t1", "t2")
    )
    acl.write_text((SHIPPED / "garden-scorer.acl").read_text() + blocks)
    lines = [
        line.replace("/etc/mosquitto/garden-scorer.passwd", str(passwords)).replace(
            "/etc/mosquitto/garden-scorer.acl", str(acl)
        )
        for line in (SHIPPED / "garden-scorer.conf").read_text().splitlines()
        if not line.startswith("listener")  # the test's own port
    ]
    server = Broker(folder, "\n".join(lines))
    server.start()
    yield server
    server.stop()


def _table(broker: Broker, tmp_path: Path, table: str, user: str) -> Publisher:
    secret = tmp_path / f"{table}-password"
    secret.write_text(USERS[user] + "\n")
    settings = MqttSettings.from_url(f"mqtt://{user}@127.0.0.1:{broker.port}", secret)
    return Publisher(settings, table, Outbox(tmp_path / table / FILE), "test")


def test_each_table_publishes_only_its_own_and_the_hall_reads_every_one(
    secured: Broker, tmp_path: Path
) -> None:
    hall = Heard(secured.port, ("garden-scorer/#",), ("hall", USERS["hall"]), "hall")
    home = Heard(
        secured.port, ("garden-scorer/#", "homeassistant/#"), ("homeassistant", USERS["homeassistant"]), "ha"
    )
    one, forged = _table(secured, tmp_path, "t1", "t1"), _table(secured, tmp_path, "t2", "t1")
    try:
        for publisher in (one, forged):
            publisher.start()
        for publisher in (one, forged):
            History.open(tmp_path / publisher.table / "h.sqlite", listener=publisher).record(
                "alices-garden", [{"game": "alices-garden", "total": 7}], "upload"
            )
        hall.wait(lambda: bool(hall.on("garden-scorer/t1/result")), "table t1's result at the hall")
        home.wait(
            lambda: bool(home.on("homeassistant/sensor/garden-scorer-t1/game/config")),
            "t1's discovery configs",
        )
        # User t1 signed in as table t2: the broker refuses, the table says so, and keeps its result.
        home.wait(lambda: forged.problem is not None, "the refusal said")
        assert "may not publish as table t2" in str(forged.problem)
        assert len(forged.outbox.waiting()) == 1
        # The readers' users publishing, as if they were tables: dropped by the broker.
        for reader, user in ((hall, "hall"), (home, "homeassistant")):
            reader.client.publish(f"garden-scorer/{user}/result", b"{}", qos=1).wait_for_publish(10)
            reader.client.publish("garden-scorer/t1/result", b"{}", qos=1).wait_for_publish(10)
        # Table t2's user taking the hall's client id: known by its user alone, it takes nothing of the hall.
        thief = Heard(secured.port, ("garden-scorer/#",), ("t2", USERS["t2"]), "hall")
        thief.close()
        History.open(tmp_path / "t1" / "h.sqlite", listener=one).record(
            "alices-garden", [{"game": "alices-garden", "total": 8}], "upload"
        )
        hall.wait(lambda: len(hall.on("garden-scorer/t1/result")) == 2, "the hall still hearing t1")
        home.wait(lambda: len(home.on("garden-scorer/t1/result")) == 2, "Home Assistant hearing t1's second")
    finally:
        for publisher in (one, forged):
            publisher.stop()
    assert not [t for t in home.topics() if "t2" in t or "/hall/" in t or "/homeassistant/result" in t]
    assert [p for p in home.on("garden-scorer/t1/result") if p == b"{}"] == []
    hall.close()
    home.close()


@pytest.mark.parametrize("user", [None, ("t1", "wrong")])
def test_a_client_without_the_right_password_is_refused(
    secured: Broker, user: tuple[str, str] | None
) -> None:
    with pytest.raises(RuntimeError, match="could not subscribe"):
        Heard(secured.port, user=user, timeout_s=3)
