"""Every test gets its own empty state folder, so nothing a user has stored can change a result."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("GARDEN_SCORER_STATE_DIR", str(folder))
    return folder
