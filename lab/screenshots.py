"""Screenshots of the web app's pages, at 1920x1080 and a phone's 390 wide, for the README and for checking
the layout by eye.

Starts the app with the real scorer in a throw-away state folder, uploads the example photo through the API,
publishes a live score as the camera would, and saves ``home.png``, ``home-phone.png``,
``home-phone-form.png``, ``result-phone.png``, ``result.png`` and ``tv.png`` of ``/``, the upload's result
page and ``/tv``. Needs Debian's Chromium and chromedriver and selenium (the dev extra);
nothing is downloaded.

    .venv/bin/python lab/screenshots.py [OUT_DIR]     # default /tmp/garden-shots
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: the project's packages come from the checkout
    sys.path.insert(0, str(ROOT))

from calibration.statedir import StateDir  # noqa: E402
from device.kiosk import write_kiosk_page  # noqa: E402
from device.live import Broadcaster, LiveEvent  # noqa: E402
from device.serve import upload_scorer  # noqa: E402
from device.web import AppConfig, create_app  # noqa: E402
from lab.browser import CHROMEDRIVER, CHROMIUM, PHONE, chromium, set_viewport  # noqa: E402
from lab.pairing import KIOSK_TOKEN  # noqa: E402
from lab.serving import serve_in_thread  # noqa: E402
from scoring.core import ScoreBreakdown  # noqa: E402
from scoring.registry import get_game  # noqa: E402

PHOTO = ROOT / "examples" / "photos" / "alices-garden.jpg"
GAME = "alices-garden"
FORM_GAME = "sanssouci"  # the home page shown with its hand-entry form
PHONE_TALL = (390, 1500)  # the whole form, as a player scrolls it
T = TypeVar("T")


def wait_for(driver: webdriver.Chrome, what: str, check: Callable[[webdriver.Chrome], T]) -> T:
    return WebDriverWait(driver, 20, poll_frequency=0.05).until(check, f"timed out waiting for {what}")


def second_board(board: Mapping[str, Any]) -> dict[str, Any]:
    """Another plausible board for the TV: the read one with its first row's trees turned to roses."""
    state = dict(board["state"])
    state["rows"] = [state["rows"][0].replace("T", "R"), *state["rows"][1:]]
    rules = get_game(GAME)
    result = rules.score(rules.parse(state))
    assert isinstance(result, ScoreBreakdown)
    lines = [{"rule": ln.rule, "detail": ln.detail, "points": ln.points} for ln in result.lines]
    return {**board, "state": state, "lines": lines, "total": result.total}


def take(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="garden-shots-") as tmp:
        state = StateDir(Path(tmp) / "state")
        events = Broadcaster()
        app = create_app(AppConfig(state, upload_scorer(state), events=events, kiosk_token=KIOSK_TOKEN))
        with serve_in_thread(app) as url, chromium(Path(tmp) / "chromium") as driver:
            with PHOTO.open("rb") as photo:
                response = httpx.post(
                    f"{url}/api/score?game={GAME}",
                    files={"file": (PHOTO.name, photo, "image/jpeg")},
                    timeout=60,
                )
            response.raise_for_status()
            scored = response.json()
            board = scored["boards"][0]
            boards = [
                {**board, "seat": "north", "player": "Alice"},
                {**second_board(board), "seat": "south", "player": "Bob"},
            ]
            totals = {b["seat"]: b["total"] for b in boards}
            events.publish(LiveEvent("score", 1, time.time(), {"boards": boards, "totals": totals}))

            shots = []
            for name, size in (
                ("home.png", None),
                ("home-phone.png", PHONE),
                ("home-phone-form.png", PHONE_TALL),
            ):
                if size:
                    set_viewport(driver, size, mobile=True)
                driver.get(f"{url}/")
                game = wait_for(
                    driver,
                    "the games",
                    lambda d: d.find_element(By.CSS_SELECTOR, f'button.game[data-game="{FORM_GAME}"]'),
                )
                game.click()
                driver.find_element(By.ID, "file").send_keys(str(PHOTO))
                shots.append(save(driver, out / name))

            for name, size in (("result-phone.png", PHONE_TALL), ("result.png", None)):
                if size:
                    set_viewport(driver, size, mobile=True)
                else:
                    set_viewport(driver)
                driver.get(f"{url}/result/{scored['game_id']}")
                wait_for(
                    driver,
                    "the board picture",
                    lambda d: d.execute_script(
                        "const img = document.querySelector('.picture img'); return img && img.complete"
                        " && img.naturalWidth > 0;"
                    ),
                )
                shots.append(save(driver, out / name))

            set_viewport(driver, PHONE, mobile=True)
            driver.get(f"{url}/pair")
            wait_for(driver, "the pairing page", lambda d: d.find_element(By.ID, "code"))
            shots.append(save(driver, out / "pair-phone.png"))
            set_viewport(driver)

            # As the TV's kiosk opens it at start, signed in by the page file `kiosk-page` writes (its token
            # never in an address): it shows the pairing code too.
            kiosk = Path(tmp) / "kiosk.html"
            write_kiosk_page(kiosk, f"{url}/", KIOSK_TOKEN)
            driver.get(kiosk.as_uri())
            wait_for(driver, "the scores", lambda d: d.find_elements(By.CSS_SELECTOR, ".seat"))
            wait_for(driver, "the pairing code", lambda d: d.find_element(By.ID, "pair-code").text)
            shots.append(save(driver, out / "tv.png"))
    return shots


def save(driver: webdriver.Chrome, path: Path) -> Path:
    time.sleep(0.2)  # fonts and the last layout pass
    if not driver.save_screenshot(str(path)):
        raise RuntimeError(f"could not save {path}")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of the pages at 1920x1080.")
    parser.add_argument(
        "out", nargs="?", type=Path, default=Path("/tmp/garden-shots"), help="folder for PNGs"
    )
    args = parser.parse_args(argv)
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]
    if missing:
        print(f"missing {', '.join(missing)}: apt-get install chromium chromium-driver", file=sys.stderr)
        return 1
    for path in take(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
