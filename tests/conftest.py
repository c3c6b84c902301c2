"""Shared fixtures: every test gets its own empty state folder, so nothing a user has stored can change a
result; web tests get clients on the scorer itself (``local``) and on another device (``remote``) of the
module's own ``app`` fixture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import settings

# No test may depend on the machine's speed (CI runs on a loaded 2-core machine): no deadline per example.
settings.register_profile("garden-scorer", deadline=None)
settings.load_profile("garden-scorer")

LOCAL = ("127.0.0.1", 50000)
REMOTE = ("192.168.1.20", 5000)


@pytest.fixture(autouse=True)
def _state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("GARDEN_SCORER_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def local(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, client=LOCAL) as client:
        yield client


@pytest.fixture
def remote(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, client=REMOTE) as client:
        yield client
