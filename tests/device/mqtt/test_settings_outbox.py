"""``--mqtt`` and its password checked before the scorer starts; the outbox on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from device.mqtt.outbox import Outbox
from device.mqtt.settings import MqttSettings, read_password


@pytest.mark.parametrize(
    ("url", "where", "tls"),
    [
        ("mqtt://broker.local", "mqtt://broker.local:1883", False),
        ("mqtt://table-3@10.0.0.2:1884", "mqtt://table-3@10.0.0.2:1884", False),
        ("mqtts://broker.example.org", "mqtts://broker.example.org:8883", True),
        ("mqtt://[::1]:1883/", "mqtt://::1:1883", False),
    ],
)
def test_a_broker_is_named_by_its_url(url: str, where: str, tls: bool) -> None:
    settings = MqttSettings.from_url(url)
    assert (settings.where(), settings.tls, settings.password) == (where, tls, None)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("broker.local", "mqtt://HOST"),
        ("http://broker.local", "mqtt://HOST"),
        ("mqtt://u:secret@broker.local", "does not go in the address"),
        ("mqtt://broker.local/topic", "only the broker's host"),
        ("mqtt://broker.local:99999", "port must be a number"),
        ("mqtt://", "only the broker's host"),
    ],
)
def test_a_url_that_names_no_broker_is_refused_saying_what_to_write(url: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        MqttSettings.from_url(url)


def test_the_password_comes_from_a_file_and_needs_a_user(tmp_path: Path) -> None:
    secret = tmp_path / "mqtt-password"
    secret.write_text("s3cret pass\n")
    settings = MqttSettings.from_url("mqtt://table-3@broker.local", secret)
    assert (settings.user, settings.password) == ("table-3", "s3cret pass")
    assert "s3cret" not in settings.where()
    with pytest.raises(ValueError, match="needs a user name"):
        MqttSettings.from_url("mqtt://broker.local", secret)
    with pytest.raises(ValueError, match="TLS"):
        MqttSettings.from_url("mqtt://table-3@broker.local", secret, ca_file=tmp_path / "ca.pem")


@pytest.mark.parametrize("text", ["", "\n", "two\nlines\n"])
def test_a_password_file_holds_one_password_on_one_line(tmp_path: Path, text: str) -> None:
    secret = tmp_path / "mqtt-password"
    secret.write_text(text)
    with pytest.raises(ValueError, match="the password alone, on one line"):
        read_password(secret)
    with pytest.raises(ValueError, match="cannot read"):
        read_password(tmp_path / "missing")


def test_waiting_messages_stay_on_disk_until_the_broker_has_them(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    outbox = Outbox(path)
    first = outbox.put("garden-scorer/t1/result", b"one")
    second = outbox.put("garden-scorer/t1/result", b"two")
    outbox.set_latest("garden-scorer/t1/score", b"old")
    outbox.set_latest("garden-scorer/t1/score", b"new")
    outbox.close()
    # Opened again, as after a power cut: nothing sent is lost, the newest score is kept.
    again = Outbox(path)
    assert [(w.id, w.payload) for w in again.waiting()] == [(first.id, b"one"), (second.id, b"two")]
    assert again.latest() == [("garden-scorer/t1/score", b"new")]
    again.sent(first.id)
    assert [w.payload for w in again.waiting()] == [b"two"]


def test_the_outbox_is_bounded_the_oldest_let_go(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite", max_waiting=3)
    for n in range(5):
        outbox.put("t", str(n).encode())
    assert [w.payload for w in outbox.waiting()] == [b"2", b"3", b"4"]


def test_a_live_game_keeps_its_result_id_and_a_correction_names_the_one_it_replaces(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    first, before = outbox.result_id(1, None, same_game=True)
    assert before is None
    # The live camera's newer score of the same game: the same result.
    assert outbox.result_id(2, 1, same_game=True) == (first, None)
    # A correction of it: a new result in its place.
    corrected, replaced = outbox.result_id(3, 2, same_game=False)
    assert corrected != first and replaced == first
    # A game new to the outbox (recorded before the broker was set up) replaced: nothing to name.
    assert outbox.result_id(9, 7, same_game=False)[1] is None


def test_a_damaged_outbox_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(ValueError, match="move it aside"):
        Outbox(path)
