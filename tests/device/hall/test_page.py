"""The hall's page in a real browser (Debian's headless Chromium, lab/browser.py) at 1920 x 1080, fed by a
real broker: each table's card and the standings, kept live as tables publish; said plainly when the broker
is lost; accessible (axe-core); and 50 tables still fitting the screen.

Skipped when Chromium, chromedriver or selenium is missing, as tests/device/web/test_pages.py is; the tests
with the broker also without mosquitto. Screenshots are left in /tmp (hall-1920.png, hall-50.png) to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from device.hall.app import create_hall_app
from device.hall.feed import Feed
from device.hall.listen import Evening, Hall, Listener
from device.hall.store import HallStore
from device.mqtt.settings import MqttSettings
from device.mqtt.topics import topic
from device.web.places import Places
from tests.broker import Broker
from tests.device.hall.support import WAIT_S, Players, played, serving, wait_until
from tests.device.hall.test_app import _open_stream
from tests.pages import require_browser

AXE = require_browser()

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

from lab.browser import chromium  # noqa: E402

SCREENSHOT = Path("/tmp/hall-1920.png")
SCREENSHOT_50 = Path("/tmp/hall-50.png")


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as browser:
        yield browser


def _wait(driver: webdriver.Chrome) -> WebDriverWait[webdriver.Chrome]:
    # The page rebuilds a card on every change: one found a moment ago may be gone.
    return WebDriverWait(
        driver,
        WAIT_S,
        poll_frequency=0.05,
        ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
    )


def _cards(driver: webdriver.Chrome) -> dict[str, Any]:
    """Each card as the page shows it: its table's name -> {text, offline, leaders, seats}."""
    found: dict[str, Any] = driver.execute_script(
        """
        const out = {};
        for (const card of document.querySelectorAll("article.card")) {
          out[card.querySelector("h3").textContent] = {
            offline: card.classList.contains("offline"),
            badge: card.querySelector(".badge")?.innerText ?? null,
            game: card.querySelector(".game")?.innerText ?? null,
            // The name as shown; a leader also marked (a star, and ", leads" said to a screen reader).
            seats: [...card.querySelectorAll(".seats li")].map((li) => {
              const name = li.querySelector(".seat-name");
              const star = getComputedStyle(name, "::before").content.includes("\u2605");
              const said = li.textContent.includes(", leads");
              return [name.firstChild.textContent, li.querySelector(".seat-points").innerText,
                      li.classList.contains("lead") && star && said];
            }),
            ago: card.querySelector(".ago")?.innerText ?? null,
          };
        }
        return out;
        """
    )
    return found


def _standings(driver: webdriver.Chrome) -> list[list[str]]:
    rows: list[list[str]] = driver.execute_script(
        "return [...document.querySelectorAll('#standings-rows tr:not([hidden])')]"
        ".map((tr) => [...tr.children].map((td) => td.innerText));"
    )
    return rows


def _status(driver: webdriver.Chrome) -> str:
    box = driver.find_element(By.ID, "status")
    return box.text if box.is_displayed() else ""


def _axe(driver: webdriver.Chrome) -> list[str]:
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    report = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(done, (e) => done({error: String(e)}));"
    )
    assert "error" not in report, report
    return [
        f"{v['id']} ({v['impact']}): {v['help']}: "
        + "; ".join(f"{n['target']} {n['failureSummary']}" for n in v["nodes"][:3])
        for v in report["violations"]
    ]


def _fits_the_screen(driver: webdriver.Chrome) -> list[str]:
    """What sticks out of the 1920 x 1080 screen, or out of its own card."""
    out: list[str] = driver.execute_script(
        """
        const bad = [];
        const doc = document.documentElement;
        const scrolls = doc.scrollWidth > doc.clientWidth || doc.scrollHeight > doc.clientHeight;
        if (scrolls) bad.push("the page scrolls");
        for (const card of document.querySelectorAll("article.card")) {
          const box = card.getBoundingClientRect();
          const name = card.dataset.table;
          if (box.bottom > innerHeight || box.right > innerWidth) bad.push(`card ${name} off screen`);
          for (const line of card.querySelectorAll(".seats li, .meta")) {
            if (line.getBoundingClientRect().bottom > box.bottom + 1) bad.push(`card ${name} cut off`);
          }
        }
        return bad;
        """
    )
    return out


@contextmanager
def _open(driver: webdriver.Chrome, url: str) -> Iterator[None]:
    """The hall's page open in the browser; left before the server stops, so its event stream ends first."""
    driver.get(f"{url}/")
    try:
        yield
    finally:
        driver.get("about:blank")


class Tables:
    """Tables publishing on the broker (plain paho, QoS 1, each message acknowledged before going on)."""

    def __init__(self, broker: Broker) -> None:
        from tests.device.hall.test_broker import Table

        self.table = Table(broker)

    def say(self, name: str, online: bool) -> None:
        self.table.send(topic(name, "available"), b"online" if online else b"offline", retain=True)

    def score(self, name: str, result_id: str, players: Players, game: str, finished: bool = False) -> None:
        message = played(name, result_id, players, game=game, finished=finished, when=datetime.now(UTC))
        self.table.send(topic(name, "score"), message.payload(), retain=True)
        if finished:
            self.table.send(topic(name, "result"), message.payload())


def test_the_hall_shows_three_tables_and_the_standings_live(
    broker: Broker, driver: webdriver.Chrome, tmp_path: Path
) -> None:
    tables = Tables(broker)
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        hall = Hall(store, Feed(), Evening(hours=12))
        listener = Listener(MqttSettings.from_url(broker.url), hall, "hall-page")
        with serving(create_hall_app(hall, listener)) as url:
            wait_until(lambda: hall.connected, "the hall on the broker")
            tables.say("table-1", True)
            tables.score("table-1", "a", [("Alice", 31), ("Bob", 44), ("Cleo", 12)], "alices-garden")
            tables.say("table-2", False)
            tables.score("table-2", "b", [("Dan", 12), ("Eve", 9), (None, 15)], "sanssouci", finished=True)
            tables.say("table-3", True)
            tables.score(
                "table-3",
                "c",
                [("Finn", 20), ("Gus", 20), ("Hana", 7), ("Ida", 3)],
                "kingdomino",
                finished=True,
            )
            tables.table.send(
                topic("table-1", "result"), played("table-1", "z", [("Alice", 50), ("Dan", 40)]).payload()
            )
            wait_until(
                lambda: len(hall.store.counted(datetime.now(UTC) - timedelta(days=365 * 3))) == 3, "results"
            )

            with _open(driver, url):
                _showing_three(driver, tables, broker)
    tables.table.close()


def _showing_three(driver: webdriver.Chrome, tables: Tables, broker: Broker) -> None:
    _wait(driver).until(lambda d: len(_cards(d)) == 3, "three cards on the page")
    cards = _cards(driver)
    assert cards["table-1"]["game"] == "Alice's Garden"
    assert cards["table-1"]["seats"] == [
        ["Alice", "31", False],
        ["Bob", "44", True],
        ["Cleo", "12", False],
    ]
    assert not cards["table-1"]["offline"] and cards["table-1"]["badge"] is None
    # Offline said in words; a seat with no name is its seat's number, and leads all the same.
    assert cards["table-2"]["offline"] and cards["table-2"]["badge"] == "OFFLINE"
    assert cards["table-2"]["seats"][2] == ["Seat 3", "15", True]
    assert cards["table-2"]["ago"] == "Finished just now"
    # Tied at the top: both lead.
    assert [s[2] for s in cards["table-3"]["seats"]] == [True, True, False, False]
    _wait(driver).until(lambda d: len(_standings(d)) == 6, "the standings")
    # Alice and Dan's game was 2025's: not this evening's.
    assert _standings(driver)[:3] == [
        ["1", "Finn", "1", "1", "20"],
        ["1", "Gus", "1", "1", "20"],
        ["3", "Dan", "1", "0", "12"],
    ]

    # Live: a new score on table-1, then its game finished.
    tables.score("table-1", "a", [("Alice", 58), ("Bob", 44), ("Cleo", 12)], "alices-garden")
    _wait(driver).until(
        lambda d: _cards(d)["table-1"]["seats"][0] == ["Alice", "58", True],
        "the new score on screen",
    )
    tables.score("table-1", "a", [("Alice", 60), ("Bob", 44), ("Cleo", 12)], "alices-garden", finished=True)
    _wait(driver).until(lambda d: _standings(d)[0] == ["1", "Alice", "1", "1", "60"], "the standings moved")

    driver.save_screenshot(str(SCREENSHOT))
    problems = _fits_the_screen(driver)
    assert not problems, problems
    violations = _axe(driver)
    assert not violations, "\n".join(violations)

    # The broker lost: said on screen, and gone again once it is back.
    broker.stop()
    _wait(driver).until(
        lambda d: "lost the broker" in d.find_element(By.ID, "status").text, "the broker's loss said"
    )
    broker.start()
    _wait(driver).until(lambda d: not d.find_element(By.ID, "status").is_displayed(), "the status cleared")


def test_fifty_tables_fit_the_screen(driver: webdriver.Chrome, tmp_path: Path) -> None:
    now = datetime.now(UTC)
    names = ["Alice", "Bob", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ida", "Jo", "Kai", "Lena"]
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        hall = Hall(store, Feed(), Evening(hours=12))
        for i in range(50):
            name = f"table-{i + 1}"
            seats = 2 + i % 5  # 2 to 6 players
            players = [
                (names[(i + j) % len(names)] + ("-Marie Longname" if j == 0 else ""), (i * 7 + j * 13) % 90)
                for j in range(seats)
            ]
            hall.receive(topic(name, "available"), b"offline" if i % 9 == 0 else b"online")
            message = played(
                name, f"r{i}", players, game="kingdomino", finished=True, when=now - timedelta(minutes=i)
            )
            hall.receive(topic(name, "score"), message.payload())
            hall.receive(topic(name, "result"), message.payload())
        with serving(create_hall_app(hall)) as url, _open(driver, url):
            _wait(driver).until(lambda d: len(_cards(d)) == 50, "fifty cards")
            _wait(driver).until(_standings, "the standings")
            problems = _fits_the_screen(driver)
            driver.save_screenshot(str(SCREENSHOT_50))
            assert not problems, problems
            # As many players as the panel holds, the rest counted.
            more = driver.find_element(By.ID, "more-players").text
            assert more.startswith("and ") and more.endswith("more players"), more
            violations = _axe(driver)
            assert not violations, "\n".join(violations)


def test_a_screen_turned_away_comes_back_by_itself_and_reads_the_hall_again(
    driver: webdriver.Chrome, tmp_path: Path
) -> None:
    with HallStore.open(tmp_path / "hall.sqlite") as store:
        hall = Hall(store, Feed(), Evening(hours=12))
        app = create_hall_app(hall)
        # One place for a screen, and another screen holding it.
        app.state.hall = replace(app.state.hall, streams=Places(1, 1))
        with serving(app) as url:
            port = int(url.rsplit(":", 1)[1])
            sock, status = _open_stream(port)
            assert status == 200
            with _open(driver, url):
                _wait(driver).until(lambda d: "Lost the connection" in _status(d), "the refusal said")
                # Meanwhile a table scores; the page hears of it only by reading the hall once back.
                message = played("table-1", "r1", when=datetime.now(UTC))
                hall.receive(topic("table-1", "score"), message.payload())
                sock.close()
                _wait(driver).until(lambda d: "table-1" in _cards(d), "the table, once the page is back")
                # What is left to say is that this hall has no broker (none in this test).
                _wait(driver).until(lambda d: "lost the broker" in _status(d), "the stream's loss unsaid")
