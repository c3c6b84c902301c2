"""A real browser on the real app: uvicorn in a background thread (lab.serving) and Debian's headless
Chromium.

Shared by the page tests (tests/device/web/test_pages.py) and the screenshot tool. Selenium Manager is never
run (the driver's path is given), so nothing is looked up or downloaded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WIDTH, HEIGHT = 1920, 1080
# Headless, and none of Chromium's own network calls: the machines running this have no internet.
CHROME_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--hide-scrollbars",
    f"--window-size={WIDTH},{HEIGHT}",
)


@contextmanager
def chromium(user_data_dir: Path) -> Iterator[webdriver.Chrome]:
    """Headless Debian Chromium through the system chromedriver, its viewport exactly WIDTH x HEIGHT."""
    # Should Selenium Manager ever run, it stays quiet and offline.
    os.environ.setdefault("SE_AVOID_STATS", "true")
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROME_FLAGS, f"--user-data-dir={user_data_dir}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        # The window size includes whatever browser frame headless Chromium pretends to have: fix the page's.
        set_viewport(driver)
        yield driver
    finally:
        driver.quit()


PHONE = (390, 844)  # a phone's viewport in CSS pixels, held upright


def set_viewport(
    driver: webdriver.Chrome, size: tuple[int, int] = (WIDTH, HEIGHT), mobile: bool = False
) -> None:
    """The page's viewport, ``size`` CSS pixels; ``mobile``: as a phone lays a page out (its meta viewport
    honoured, touch). Headless Chromium ignores window sizes: the page's own metrics are what count."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile},
    )


@contextmanager
def phone(driver: webdriver.Chrome, size: tuple[int, int] = PHONE) -> Iterator[None]:
    """The pages seen on a phone ``size`` big for a while, then at WIDTH x HEIGHT again."""
    set_viewport(driver, size, mobile=True)
    try:
        yield
    finally:
        set_viewport(driver)
