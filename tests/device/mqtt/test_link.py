"""The table's broker set from the set-up page: kept in the state folder, changed while the scorer runs, the
service's own settings left to the service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from calibration.statedir import StateDir
from device.history import History
from device.mqtt.link import FILE, NONE, PAGE, SERVICE, BrokerLink
from device.mqtt.settings import MqttSettings
from device.web import AppConfig, create_app
from lab.pairing import KIOSK_TOKEN, pair
from tests.broker import Broker, Heard
from tests.conftest import BASE_URL, LOCAL, REMOTE
from tests.fakes import FakeScore

BOARD = [{"game": "alices-garden", "total": 12}]


def test_with_no_broker_the_link_does_nothing(tmp_path: Path) -> None:
    link = BrokerLink(tmp_path, None, "test")
    link.start()
    status = link.status()
    assert (status.source, status.where, status.connected) == (NONE, None, False)
    History.open(tmp_path / "h.sqlite", listener=link).record("alices-garden", BOARD, "upload")
    link.finished(1)
    link.stop()
    assert not (tmp_path / FILE).exists()
    assert not (tmp_path / "mqtt-outbox.sqlite").exists()


def test_a_broker_set_on_the_page_is_used_at_once_and_after_a_restart(broker: Broker, tmp_path: Path) -> None:
    heard = Heard(broker.port)
    link = BrokerLink(tmp_path, None, "test")
    link.start()
    try:
        link.change(broker.url, "kitchen", None, keep_password=False)
        heard.wait(lambda: link.status().connected, "the page's broker connected")
        History.open(tmp_path / "h.sqlite", listener=link).record("alices-garden", BOARD, "upload")
        heard.wait(lambda: bool(heard.on("garden-scorer/kitchen/result")), "the result published")
    finally:
        link.stop()
    saved = json.loads((tmp_path / FILE).read_text())
    assert (saved["kind"], saved["url"], saved["table"]) == ("broker", broker.url, "kitchen")
    again = BrokerLink(tmp_path, None, "test")
    again.start()
    try:
        assert (again.status().source, again.status().table) == (PAGE, "kitchen")
        heard.wait(lambda: again.status().connected, "connected again after a restart")
        # No broker: removed, and the link goes quiet.
        again.change(None, None, None, keep_password=False)
        assert again.status().source == NONE and not (tmp_path / FILE).exists()
    finally:
        again.stop()
        heard.close()


def test_the_password_is_kept_for_the_same_broker_however_it_is_written(tmp_path: Path) -> None:
    link = BrokerLink(tmp_path, None, "test")
    link.change("mqtt://table-3@127.0.0.1:1", "table-3", "s3cret", keep_password=False)
    link.change("mqtt://table-3@127.0.0.1:1/", "table-3", None, keep_password=True)
    assert json.loads((tmp_path / FILE).read_text())["password"] == "s3cret"
    assert link.status().has_password
    # Another broker's user: the old password is not handed to it.
    link.change("mqtt://table-3@elsewhere.local", "table-3", None, keep_password=True)
    assert json.loads((tmp_path / FILE).read_text())["password"] is None
    link.stop()


@pytest.mark.parametrize(
    ("url", "table", "password", "said"),
    [
        ("mqtt://h.local", None, None, "both"),
        ("http://h.local", "t1", None, "mqtt://HOST"),
        ("mqtt://h.local", "Table 1", None, "lowercase"),
        ("mqtt://h.local", "t1", "pw", "needs a user name"),
    ],
)
def test_settings_that_cannot_work_are_refused_and_nothing_is_saved(
    tmp_path: Path, url: str, table: str | None, password: str | None, said: str
) -> None:
    link = BrokerLink(tmp_path, None, "test")
    with pytest.raises(ValueError, match=said):
        link.change(url, table, password, keep_password=False)
    assert not (tmp_path / FILE).exists()


def test_the_services_own_broker_is_shown_and_left_to_the_service(tmp_path: Path) -> None:
    link = BrokerLink(tmp_path, (MqttSettings.from_url("mqtt://t1@hall.local"), "t1"), "test")
    assert (link.status().source, link.status().where) == (SERVICE, "mqtt://t1@hall.local:1883")
    with pytest.raises(PermissionError, match="/etc/default/garden-scorer"):
        link.change(None, None, None, keep_password=False)


def test_a_damaged_saved_broker_leaves_the_table_on_its_own(tmp_path: Path) -> None:
    (tmp_path / FILE).write_text('{"kind": "broker", "version": 1, "url": "ftp://x", "table": "t1"}')
    assert BrokerLink(tmp_path, None, "test").status().source == NONE


def test_only_a_paired_device_sees_or_sets_the_broker(tmp_path: Path) -> None:
    link = BrokerLink(tmp_path, None, "test")
    app = create_app(AppConfig(StateDir(tmp_path), FakeScore(), kiosk_token=KIOSK_TOKEN, broker=link))
    with TestClient(app, base_url=BASE_URL, client=REMOTE) as phone:
        assert phone.get("/api/broker").status_code == 403
        assert phone.put("/api/broker", json={"url": "mqtt://x.local", "table": "t1"}).status_code == 403
    with TestClient(app, base_url=BASE_URL, client=LOCAL) as owner:
        pair(owner, TestClient(app, base_url=BASE_URL, client=LOCAL))
        assert owner.get("/api/broker").json()["source"] == NONE
        refused = owner.put("/api/broker", json={"url": "mqtt://x.local", "table": "Table 1"})
        assert refused.status_code == 400 and "lowercase" in refused.json()["detail"]
        # Port 1: nothing listens; the settings are kept and the scorer keeps trying in the background.
        answer = owner.put("/api/broker", json={"url": "mqtt://127.0.0.1:1", "table": "t1"})
        assert answer.status_code == 200, answer.text
        assert {k: answer.json()[k] for k in ("source", "table", "connected", "changeable")} == {
            "source": PAGE,
            "table": "t1",
            "connected": False,
            "changeable": True,
        }
    link.stop()
