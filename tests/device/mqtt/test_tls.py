"""mqtts://: the scorer reaches a broker over TLS, checking its certificate against the authority given."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from device.history import History
from device.mqtt.outbox import FILE, Outbox
from device.mqtt.publisher import Publisher
from device.mqtt.settings import MqttSettings
from lab.mosquitto import free_port
from tests.broker import Broker, Heard, have_mosquitto


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for localhost (its own authority) and its key."""
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    key.chmod(0o644)  # mosquitto reads it as the test's user
    return cert, key


def test_a_table_publishes_over_tls_and_refuses_a_broker_it_cannot_trust(tmp_path: Path) -> None:
    if not have_mosquitto() or shutil.which("openssl") is None:
        pytest.skip("needs Debian's mosquitto and openssl")
    pytest.importorskip("paho.mqtt")
    cert, key = _certificate(tmp_path, "broker")
    stranger, _ = _certificate(tmp_path, "stranger")
    plain = free_port()
    # The TLS listener (the fixture's own port), and a plain one on loopback for the test's own ears.
    extra = f"certfile {cert}\nkeyfile {key}\nallow_anonymous true\nlistener {plain} 127.0.0.1"
    broker = Broker(tmp_path / "broker", extra)
    broker.start()
    heard = Heard(plain)
    trusted = Publisher(
        MqttSettings.from_url(f"mqtts://localhost:{broker.port}", ca_file=cert),
        "t1",
        Outbox(tmp_path / "a" / FILE),
        "t",
    )
    doubtful = Publisher(
        MqttSettings.from_url(f"mqtts://localhost:{broker.port}", ca_file=stranger),
        "t2",
        Outbox(tmp_path / "b" / FILE),
        "t",
    )
    try:
        for publisher in (trusted, doubtful):
            publisher.start()
            History.open(tmp_path / publisher.table / "h.sqlite", listener=publisher).record(
                "alices-garden", [{"game": "alices-garden", "total": 9}], "upload"
            )
        heard.wait(lambda: bool(heard.on("garden-scorer/t1/result")), "the result over TLS")
        time.sleep(2)  # time enough for the other to have connected, had it trusted the broker
        assert not doubtful.connected
        assert not heard.on("garden-scorer/t2/available")
        assert len(doubtful.outbox.waiting()) == 1  # kept, for a broker it can trust
    finally:
        for publisher in (trusted, doubtful):
            publisher.stop()
        heard.close()
        broker.stop()
