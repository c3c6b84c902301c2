"""What a page test needs before it may import selenium: Debian's Chromium and its driver (where
lab/browser.py finds them), selenium and axe-core's script; the calling test module is skipped without them
(CI installs them)."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def require_browser() -> Path:
    """Skips the calling module unless a page test can run; returns axe-core's script, to inject in pages."""
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.skip(
            f"page tests need Chromium and its driver at {CHROMIUM} and {CHROMEDRIVER} "
            "(Debian: apt-get install chromium chromium-driver)",
            allow_module_level=True,
        )
    pytest.importorskip("selenium", reason="page tests need selenium (pip install -e '.[dev]')")
    axe_core = pytest.importorskip("axe_core_python", reason="the accessibility check needs axe-core-python")
    return Path(axe_core.__file__).with_name("axe.min.js")
