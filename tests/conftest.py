"""Shared fixtures: every test gets its own empty state folder, so nothing a user has stored can change a
result; web tests get clients of the module's own ``app`` fixture (built with the lab's kiosk token): the
owner's paired device, here on the scorer itself (``local``), and a player's phone on the network that is not
paired (``remote``). Both name the scorer by its address, as a phone does."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import settings

from lab.pairing import pair
from tests.broker import Broker, have_mosquitto

# No test may depend on the machine's speed (CI runs on a loaded 2-core machine): no deadline per example.
settings.register_profile("garden-scorer", deadline=None)
settings.load_profile("garden-scorer")

LOCAL = ("127.0.0.1", 50000)
REMOTE = ("192.168.1.20", 5000)
# What the clients call the scorer: TestClient's own "testserver" is no name the scorer answers to.
BASE_URL = "http://127.0.0.1"


@pytest.fixture(autouse=True)
def _state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("GARDEN_SCORER_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def local(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url=BASE_URL, client=LOCAL) as client:
        # Not entered: a second entry would run the app's lifespan, whose end closes the history.
        pair(client, TestClient(app, base_url=BASE_URL, client=LOCAL))
        yield client


@pytest.fixture
def remote(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url=BASE_URL, client=REMOTE) as client:
        yield client


@pytest.fixture
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """Debian's mosquitto, started for the test on a free loopback port (``.ci/run`` installs it)."""
    if not have_mosquitto():
        if os.environ.get("CI") == "true":
            pytest.fail("mosquitto is not installed: .ci/run installs it (apt-get install mosquitto)")
        pytest.skip("needs Debian's mosquitto: apt-get install mosquitto")
    pytest.importorskip("paho.mqtt", reason="needs paho-mqtt: pip install -e '.[dev]'")
    server = Broker(tmp_path_factory.mktemp("broker"))
    server.start()
    yield server
    server.stop()
