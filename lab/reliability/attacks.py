"""The attack suite: what an independent attack on a running scorer tried, played again against the real
server (uvicorn on loopback), with a second loopback address standing for a phone on the LAN.

Each attack is an :class:`Attack` saying whether it was refused and what the server answered;
``tests/lab/reliability/test_attacks.py`` asserts every one is, and ``garden-scorer-lab bench
--reliability`` reports them in its security row. The attacks (issue #48): the pairing secret read by a
client, loopback trusted, a page of another site acting through a browser, a name pointed at the scorer (DNS
rebinding), racing the limit on wrong codes and restarting to reset it, decoding a photo's pixels at many
bytes each, rewriting another phone's result, a retried upload stored twice, and responses without their
security headers.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from calibration.statedir import StateDir
from device.serve import upload_scorer
from device.web import AppConfig, create_app
from device.web.auth import CLIENT_TRIES
from device.web.score import RESULTS_DIR
from examples import EXAMPLES_DIR
from lab.pairing import KIOSK_TOKEN, pair, pairing_code
from lab.reliability.fuzz import crafted_png

# A phone on the network: any loopback address but the server's own reaches it from "elsewhere".
LAN_ADDRESS = "127.0.0.2"
OTHER_LAN_ADDRESS = "127.0.0.3"
EVIL = "http://evil.example"
PHOTO = EXAMPLES_DIR / "photos" / "alices-garden.jpg"
GAME = "alices-garden"
# What a save cut short by a kill leaves: a result's folder under its temporary name.
LEFTOVER = ".7.a1b2c3"
BURST = 300  # wrong codes sent at once, as the attack did


@dataclass(frozen=True)
class Attack:
    name: str
    refused: bool
    detail: str


@contextmanager
def _server(root: Path) -> Iterator[str]:
    """The app as ``serve`` builds it (the real reader) under uvicorn, over the state folder ``root``."""
    from lab.browser import serve_in_thread

    state = StateDir(root)
    app = create_app(AppConfig(state, upload_scorer(state), kiosk_token=KIOSK_TOKEN))
    with serve_in_thread(app) as url:
        yield url


def _client(stack: ExitStack, url: str, address: str | None = None) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address) if address else None
    return stack.enter_context(httpx.Client(base_url=url, transport=transport, timeout=30.0))


def run_attacks(root: Path) -> list[Attack]:
    """Every attack against a fresh server over the state folder ``root``; one :class:`Attack` each."""
    attacks: list[Attack] = []

    def attack(name: str, refused: bool, detail: str) -> None:
        attacks.append(Attack(name, refused, detail))

    with _server(root) as url, ExitStack() as stack:
        pi = _client(stack, url)  # on the scorer itself, as the kiosk's browser or a local process
        lan = _client(stack, url, LAN_ADDRESS)
        owner = _client(stack, url, LAN_ADDRESS)
        pair(owner, _client(stack, url))
        table = root / "table.json"

        # 1. The pairing secret is given to no client for where it is: only to the kiosk's token.
        tv = lan.get("/api/tv").json()
        shown = [lan.get("/api/tv/pairing").status_code, pi.get("/api/tv/pairing").status_code]
        attack(
            "the pairing code read by a client",
            "pin" not in tv and "code" not in tv and shown == [403, 403],
            f"/api/tv keys {sorted(tv)}; /api/tv/pairing from the LAN and from loopback: {shown}",
        )

        # 2. Loopback is not trusted: a local process is no owner.
        local = [
            pi.put("/api/setup", json={"game": "sanssouci"}).status_code,
            pi.post("/api/calibrate/seats").status_code,
            pi.delete("/api/history/1").status_code,
        ]
        attack("an owner's action from loopback, not paired", local == [403] * 3, f"answers {local}")

        # 3. A page of another site, in a browser that holds the owner's login.
        evil = {"Origin": EVIL}
        cross = [
            owner.post("/api/calibrate/seats", headers=evil, data={"game": "alices-garden"}).status_code,
            owner.post("/api/calibrate/profile/locate", headers=evil).status_code,
            lan.post(
                "/api/score?game=alices-garden",
                headers=evil,
                files={"file": ("a.png", crafted_png(64, 64, 8, 2), "image/png")},
            ).status_code,
            owner.put("/api/setup", json={}, headers={"Referer": f"{EVIL}/page"}).status_code,
        ]
        attack(
            "a cross-site request (Origin or Referer of another site)",
            cross == [403] * 4 and not table.exists(),
            f"answers {cross}; table.json written: {table.exists()}",
        )

        # 4. DNS rebinding: another site's name pointed at the scorer's address.
        rebound = [
            lan.get("/api/tv", headers={"Host": "evil.example"}).status_code,
            owner.put("/api/setup", json={}, headers={"Host": "evil.example:8080"}).status_code,
        ]
        attack(
            "a request for another site's name (DNS rebinding)", rebound == [421, 421], f"answers {rebound}"
        )

        # 5. Racing the limit on wrong codes, then restarting to reset it.
        answers = _burst(
            url, lambda c: c.post("/api/pair", json={"code": "0000 0001", "name": "x"}).status_code
        )
        checked = answers.count(403)
        right = lan.post("/api/pair", json={"code": pairing_code(pi), "name": "x"}).status_code
        attack(
            f"{BURST} wrong pairing codes sent at once",
            checked <= CLIENT_TRIES and answers.count(429) == BURST - checked and right == 429,
            f"{checked} compared, {answers.count(429)} refused 429; the right code afterwards: {right}",
        )

        # 6. Memory by the byte, not the pixel: 16 megapixels of 16-bit RGBA are 8 bytes each.
        deep = lan.post(
            f"/api/score?game={GAME}",
            files={"file": ("deep.png", crafted_png(4000, 4000, 16, 6), "image/png")},
        )
        attack(
            "a 16-bit RGBA PNG whose pixels pass the limit but whose bytes do not",
            deep.status_code == 400 and "bytes" in deep.json()["detail"],
            f"{deep.status_code}: {deep.json()['detail'][:100]}",
        )

        # 7. Another phone on the network rewrites a result it did not send; the sender's own change is kept
        # with who made it.
        photo = PHOTO.read_bytes()
        sent = lan.post(f"/api/score?game={GAME}", files={"file": (PHOTO.name, photo, "image/jpeg")}).json()
        stranger = _client(stack, url, OTHER_LAN_ADDRESS)
        result = f"/api/result/{sent['game_id']}"
        state = lan.get(result).json()["boards"][0]["board"]["state"]
        square = [[0, 0], [9, 0], [9, 9], [0, 9]]
        changes = [
            stranger.post(f"{result}/correct", json={"boards": [state]}).status_code,
            stranger.post(f"{result}/hand", json={"hand": {}}).status_code,
            stranger.post(f"{result}/corners", json={"corners_xy": square}).status_code,
        ]
        own = lan.post(f"{result}/correct", json={"boards": [state]})
        kept = (
            lan.get(f"/api/result/{own.json()['game_id']}").json()["changes"]
            if own.status_code == 200
            else []
        )
        attack(
            "another phone changing a result it did not send",
            changes == [403] * 3 and len(kept) == 1 and LAN_ADDRESS in kept[0]["who"],
            f"the stranger's answers {changes}; the sender's own correction kept as {kept}",
        )

        # 8. An upload stored but not answered, sent again by the phone.
        key = {"Idempotency-Key": "retry-of-one-upload-0001"}
        before = len(lan.get("/api/history").json())
        tries = [
            lan.post(
                f"/api/score?game={GAME}", headers=key, files={"file": (PHOTO.name, photo, "image/jpeg")}
            ).json()["game_id"]
            for _ in range(2)
        ]
        stored = len(lan.get("/api/history").json()) - before
        attack(
            "an upload retried after its answer was lost",
            tries[0] == tries[1] and stored == 1,
            f"game ids {tries}, {stored} stored",
        )
    # A kill -9 while a result's folder was being written leaves it under its temporary name.
    (root / RESULTS_DIR / LEFTOVER).mkdir(parents=True, exist_ok=True)
    (root / RESULTS_DIR / LEFTOVER / "photo.jpg").write_bytes(b"half")
    with _server(root) as url, ExitStack() as stack:
        lan = _client(stack, url, LAN_ADDRESS)
        after = lan.post("/api/pair", json={"code": "0000 0001", "name": "x"}).status_code
        attack(
            "a restart to reset the limit on wrong codes", after == 429, f"the next code after it: {after}"
        )
        left = (root / RESULTS_DIR / LEFTOVER).exists()
        attack(
            "a result's folder left half written by a kill", not left, f"still there after a restart: {left}"
        )

        # 10. Every response carries the security headers, pages or not.
        wanted = ("X-Content-Type-Options", "X-Frame-Options", "Content-Security-Policy")
        paths = ("/", "/api/tv", "/docs", "/static/common.js", "/openapi.json", "/api/nothing")
        missing = {path: [h for h in wanted if h not in lan.get(path).headers] for path in paths}
        attack(
            "a response without security headers",
            not any(missing.values()),
            json.dumps({p: m for p, m in missing.items() if m}) or "none missing",
        )
    return attacks


def _burst(url: str, send: Callable[[httpx.Client], int]) -> list[int]:
    """``send`` run :data:`BURST` times at once from the LAN address, each on a connection of its own (threads
    released together); the status codes, 0 for a request that got no answer."""
    answers: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(BURST)

    def one() -> None:
        with ExitStack() as stack:
            client = _client(stack, url, LAN_ADDRESS)
            start.wait()
            try:
                code = send(client)
            except httpx.HTTPError:
                code = 0
        with lock:
            answers.append(code)

    threads = [threading.Thread(target=one) for _ in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def attacks_json(attacks: list[Attack]) -> Mapping[str, Any]:
    return {
        "attacks": len(attacks),
        "refused": sum(a.refused for a in attacks),
        "each": [asdict(a) for a in attacks],
    }
