"""The attack suite: what independent attacks on a running scorer tried, played again against the real server
(uvicorn on loopback, configured as ``garden-scorer serve`` configures it), with other loopback addresses
standing for phones on the LAN.

Each attack is an :class:`Attack` saying whether it was refused and what the server answered;
``tests/lab/reliability/test_attacks.py`` asserts every one is, and ``garden-scorer-lab bench
--reliability`` reports them in its security row.

The first round (issue #48): the pairing secret read by a client, loopback trusted, a page of another site
acting through a browser, a name pointed at the scorer (DNS rebinding), racing the limit on wrong codes and
restarting to reset it, decoding a photo's pixels at many bytes each, rewriting another phone's result, a
retried upload stored twice, and responses without their security headers.

The second round (issue #58): a body of nested lists that took 1.3 GB to parse, without a login; a stranger
retraining the owner's profile with a correction; the disk filled by corrections; the upload places held by
bodies sent a byte at a time; the TV's event streams taken by a stranger; slowloris; the owner locked out of
pairing by a flood of wrong codes; the camera's preview open to anyone; formulas in the CSV export; the
kiosk's token on a command line and as its cookie; a photo's GPS position served back; player ids chosen by
the client; ``--host ::`` listening on IPv6 alone. The open redirect of the pairing page is a page's and is
played in Chromium (``tests/device/web/test_pages.py``); the memory an attack costs is measured on a server
process of its own (:mod:`lab.reliability.server`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import resource
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np
import uvicorn

from calibration import teaching
from calibration.statedir import StateDir
from device.inbox import INBOX_DIR
from device.live import Broadcaster, LiveEvent
from device.serve import listening_socket, server_config, upload_scorer
from device.web import AppConfig, create_app
from device.web.auth import CLIENT_TRIES, KIOSK_COOKIE, PLAYER_COOKIE
from device.web.bodies import RECEIVING_PER_CLIENT, RECEIVING_TOTAL
from device.web.results import RESULTS_DIR
from device.web.tv import KIOSK_STREAMS, OTHER_STREAMS, STREAMS_PER_CLIENT
from examples import EXAMPLES_DIR
from lab.pairing import KIOSK_TOKEN, pair, pairing_code
from lab.reliability.fuzz import crafted_png, with_empty_scans
from lab.reliability.metadata import SECRETS, with_personal_metadata
from lab.serving import serve_in_thread

# A phone on the network: any loopback address but the server's own reaches it from "elsewhere".
LAN_ADDRESS = "127.0.0.2"
OTHER_LAN_ADDRESS = "127.0.0.3"
OWNER_ADDRESS = "127.0.0.4"
EVIL = "http://evil.example"
PHOTO = EXAMPLES_DIR / "photos" / "alices-garden.jpg"
GAME = "alices-garden"
PROFILE = "kitchen"
# What a save cut short by a kill leaves: a result's folder under its temporary name.
LEFTOVER = ".7.a1b2c3"
BURST = 300  # wrong codes sent at once, as the attack did
STREAMS = 100  # strangers' event streams, as the issue asks the TV to stay connected through
SLOW_CONNECTIONS = 1000  # slowloris
SLOW_ADDRESSES = 10
HANG_GUARD_S = 60.0  # a guard against a hang, never a speed


@dataclass(frozen=True)
class Attack:
    name: str
    refused: bool
    detail: str


@contextmanager
def _server(root: Path, events: Broadcaster | None = None) -> Iterator[str]:
    """The app as ``serve`` builds it (the real reader) under uvicorn, over the state folder ``root``."""
    state = StateDir(root)
    app = create_app(AppConfig(state, upload_scorer(state), events, kiosk_token=KIOSK_TOKEN))
    with serve_in_thread(app) as url:
        yield url


def _client(stack: ExitStack, url: str, address: str | None = None) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address) if address else None
    return stack.enter_context(httpx.Client(base_url=url, transport=transport, timeout=HANG_GUARD_S))


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def run_attacks(root: Path) -> list[Attack]:
    """Every attack against fresh servers over folders under ``root``; one :class:`Attack` each."""
    attacks: list[Attack] = []

    def attack(name: str, refused: bool, detail: str) -> None:
        attacks.append(Attack(name, refused, detail))

    _first_round(root / "first", attack)
    _bodies_and_teaching(root / "teaching", attack)
    _streams_and_connections(root / "streams", attack)
    _pairing_under_a_flood(root / "pairing", attack)
    _hostile_jpegs(root / "jpegs", attack)
    _privacy(root / "privacy", attack)
    _every_address(attack)
    return attacks


Report = Callable[[str, bool, str], None]


def _first_round(root: Path, attack: Report) -> None:
    with _server(root) as url, ExitStack() as stack:
        pi = _client(stack, url)  # on the scorer itself, as the kiosk's browser or a local process
        lan = _client(stack, url, LAN_ADDRESS)
        owner = _client(stack, url, OWNER_ADDRESS)
        pair(owner, _client(stack, url))
        table = root / "table.json"

        # 1. The pairing secret is given to no client for where it is: only to the kiosk's session.
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

        # 5. Racing the limit on wrong codes from one address: each connection refused by the connection
        # cap (503) or the code limit (429), never more compared than the limit.
        answers = _burst(
            url, lambda c: c.post("/api/pair", json={"code": "0000 0001", "name": "x"}).status_code
        )
        compared = answers.count(403)
        others = {code: answers.count(code) for code in sorted(set(answers)) if code != 403}
        attack(
            f"{BURST} wrong pairing codes sent at once from one address",
            compared <= CLIENT_TRIES and set(others) <= {0, 429, 503},
            f"{compared} compared; the rest answered {others} (0: connection refused)",
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
            stranger.post(f"{result}/preview", json={"boards": [state]}).status_code,
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
            changes == [403] * 4 and len(kept) == 1 and kept[0]["who"] == "the phone that sent the photo",
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
        # The limit on wrong codes, spent one by one, for the restart below.
        guesser = _client(stack, url, OTHER_LAN_ADDRESS)
        spent = [
            guesser.post("/api/pair", json={"code": "0000 0001", "name": "x"}).status_code for _ in range(6)
        ]
    # A kill -9 while a result's folder was being written leaves it under its temporary name.
    (root / RESULTS_DIR / LEFTOVER).mkdir(parents=True, exist_ok=True)
    (root / RESULTS_DIR / LEFTOVER / "photo.jpg").write_bytes(b"half")
    with _server(root) as url, ExitStack() as stack:
        guesser = _client(stack, url, OTHER_LAN_ADDRESS)
        after = guesser.post("/api/pair", json={"code": "0000 0001", "name": "x"}).status_code
        attack(
            "a restart to reset the limit on wrong codes",
            after == 429,
            f"tries before it: {spent}; the next one after it: {after}",
        )
        left = (root / RESULTS_DIR / LEFTOVER).exists()
        attack(
            "a result's folder left half written by a kill", not left, f"still there after a restart: {left}"
        )

        # 10. Every response carries the security headers, pages or not.
        lan = _client(stack, url, LAN_ADDRESS)
        wanted = ("X-Content-Type-Options", "X-Frame-Options", "Content-Security-Policy")
        paths = ("/", "/api/tv", "/docs", "/static/common.js", "/openapi.json", "/api/nothing")
        missing = {path: [h for h in wanted if h not in lan.get(path).headers] for path in paths}
        attack(
            "a response without security headers",
            not any(missing.values()),
            json.dumps({p: m for p, m in missing.items() if m}) or "none missing",
        )


def _bodies_and_teaching(root: Path, attack: Report) -> None:
    with _server(root) as url, ExitStack() as stack:
        stranger = _client(stack, url, LAN_ADDRESS)
        owner = _client(stack, url, OWNER_ADDRESS)
        pair(owner, _client(stack, url))

        # A body of nested empty lists, 20 MB, to the pairing form without a login (1.3 GB to parse), and to
        # the set-up, refused after parsing it (767 MB).
        nested = b'{"code":"1","name":"x","z":[' + b"[]," * (20 * 2**20 // 3) + b"[]]}"
        json_type = {"content-type": "application/json"}
        answers = [
            stranger.post("/api/pair", content=nested, headers=json_type),
            stranger.put("/api/setup", content=nested, headers=json_type),
        ]
        attack(
            "20 MB of nested lists posted as JSON, without a login",
            all(a.status_code == 413 and "the scorer takes" in a.json()["detail"] for a in answers),
            "; ".join(f"{a.status_code}: {a.json()['detail'][:70]}" for a in answers),
        )
        deep = b'{"code":"1","name":"x","z":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        nested_deep = stranger.post("/api/pair", content=deep, headers=json_type)
        attack(
            "JSON nested 100000 deep",
            nested_deep.status_code in (400, 413),
            f"{nested_deep.status_code}: {nested_deep.json()['detail'][:80]}",
        )

        # A stranger's correction, with consent, of a photo it read with the owner's profile.
        profile_made = _make_profile(owner)
        teaching_before = len(teaching.photos(StateDir(root), PROFILE))
        photo = PHOTO.read_bytes()
        sent = stranger.post(
            f"/api/score?game={GAME}&profile={PROFILE}", files={"file": (PHOTO.name, photo, "image/jpeg")}
        ).json()
        state = sent["boards"][0]["state"]
        wrong = {**state, "rows": ["." * len(row) for row in state["rows"]]}
        game_id = sent["game_id"]
        corrected = stranger.post(f"/api/result/{game_id}/correct", json={"boards": [wrong], "consent": True})
        taught = len(teaching.photos(StateDir(root), PROFILE)) - teaching_before
        waiting = owner.get("/api/calibrate/inbox").json()["items"]
        attack(
            "a phone that is not paired teaching the owner's profile",
            profile_made == 200
            and corrected.status_code == 200
            and corrected.json()["awaiting_owner"]
            and corrected.json()["reteaching"] is None
            and taught == 0
            and len(waiting) == 1,
            f"profile made: {profile_made}; correction {corrected.status_code}, teaching photos added: "
            f"{taught}, waiting for the owner: {len(waiting)}",
        )

        # The same correction sent again and again: the disk does not fill.
        # 15 MB of JPEG: another photo of the board, and padding after its end, which is no part of it.
        other = cv2.imencode(".jpg", cv2.imread(str(PHOTO)), [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
        big = other + bytes(15 * 2**20 - len(other))
        again = stranger.post(
            f"/api/score?game={GAME}", files={"file": ("big.jpg", big, "image/jpeg")}
        ).json()
        current = again["game_id"]
        for _ in range(5):
            answer = stranger.post(
                f"/api/result/{current}/correct",
                json={"boards": [again["boards"][0]["state"]], "consent": True},
            )
            current = answer.json()["game_id"] if answer.status_code == 200 else current
        inbox = root / INBOX_DIR
        photos = [p for p in inbox.iterdir() if p.suffix in (".jpg", ".png")]
        size = sum(p.stat().st_size for p in photos)
        attack(
            "5 consenting corrections of a 15 MB upload",
            len(photos) == 2 and size < 2 * 2**20,
            f"{len(photos)} photos in the inbox (the profile's one and this one, kept once), "
            f"{size / 1e6:.1f} MB (only the picture is kept)",
        )

        # Four uploads from one address that send their body a byte at a time.
        slow = _slow_uploads(url, [LAN_ADDRESS] * 4)
        try:
            meanwhile = _client(stack, url, OTHER_LAN_ADDRESS).post(
                f"/api/score?game={GAME}", files={"file": (PHOTO.name, photo, "image/jpeg")}
            )
            held = [answer for _, answer in slow]
        finally:
            for sock, _ in slow:
                sock.close()
        refused = sum(b" 503 " in answer[:20] for answer in held)
        attack(
            "uploads whose bodies come a byte at a time",
            meanwhile.status_code == 200 and refused == 4 - RECEIVING_PER_CLIENT,
            f"another phone's upload meanwhile: {meanwhile.status_code}; of the 4 slow ones {refused} were "
            f"turned away at once, {4 - refused} let in to be received (then cut off by the pace rule)",
        )

        # Every place to be received taken, from four addresses two each, at a byte now and then (the second
        # attack: about 8 bytes a second locked out uploads, pairing and the TV's sign-in).
        slow = _slow_uploads(url, [f"127.0.10.{k // 2 + 2}" for k in range(RECEIVING_TOTAL)])
        try:
            time.sleep(1.5)  # past their first second: how slowly they send is known
            phone = _client(stack, url, "127.0.11.2")
            pairing = phone.post("/api/pair", json={"code": "0000 0002", "name": "x"}).status_code
            signing_in = phone.post("/kiosk", data={"token": "not-the-kiosk-token-at-all"}).status_code
            upload = phone.post(f"/api/score?game={GAME}", files={"file": (PHOTO.name, photo, "image/jpeg")})
        finally:
            for sock, _ in slow:
                sock.close()
        attack(
            f"{RECEIVING_TOTAL} uploads from 4 addresses, each a byte now and then",
            (pairing, signing_in, upload.status_code) == (403, 403, 200),
            f"meanwhile pairing answered {pairing}, the kiosk's sign-in {signing_in} (both compared, not "
            f"kept waiting) and a phone's upload {upload.status_code} (the slowest made room)",
        )

        # What Python's JSON reader takes and JSON does not allow, and numbers past SQLite's.
        odd = [
            stranger.post("/api/pair", content=text, headers=json_type).status_code
            for text in ('{"code": NaN, "name": "x"}', '{"code": "1", "name": "\\ud800"}', "1e999")
        ]
        paged = stranger.get("/api/history", params={"offset": 2**63}).status_code
        chunked = stranger.post(
            "/kiosk",
            content=(b"&" * 65536 for _ in range(8)),
            headers={"content-type": "application/x-www-form-urlencoded"},
        ).status_code
        attack(
            "NaN, a lone surrogate and 1e999 in JSON; an offset past SQLite's; 512 KB sent without a length",
            odd == [400, 400, 400] and paged == 422 and chunked == 413,
            f"answers {odd}, {paged}, {chunked} (no 500)",
        )


def _make_profile(owner: httpx.Client) -> int:
    """The owner makes a board profile on the calibration page, from the example photo."""
    with PHOTO.open("rb") as photo:
        located = owner.post(
            "/api/calibrate/profile/locate",
            data={"game": GAME, "name": PROFILE},
            files={"file": (PHOTO.name, photo, "image/jpeg")},
        )
    if located.status_code != 200 or located.json()["corners_xy"] is None:
        return located.status_code if located.status_code != 200 else 422
    board = {
        "token": located.json()["token"],
        "game": GAME,
        "name": PROFILE,
        "corners_xy": located.json()["corners_xy"],
    }
    # Found from any corner: which way up is the page's next step, the likeliest turn taken.
    turns = owner.post("/api/calibrate/profile/turns", json=board)
    if turns.status_code != 200:
        return turns.status_code
    return owner.post("/api/calibrate/profile", json={**board, "turn": turns.json()["best"]}).status_code


def _slow_uploads(url: str, addresses: Sequence[str]) -> list[tuple[socket.socket, bytes]]:
    """An upload from each of ``addresses`` that says a 1 MB body and sends its first bytes; each socket and
    what the scorer answered within a moment (nothing while it waits for the body)."""
    head = (
        f"POST /api/score?game={GAME} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n"
        '--b\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n'
    ).encode()
    opened = []
    for address in addresses:
        sock = socket.create_connection(
            ("127.0.0.1", _port(url)), timeout=HANG_GUARD_S, source_address=(address, 0)
        )
        sock.sendall(head)
        opened.append(sock)
    out = []
    for sock in opened:
        sock.settimeout(1.0)  # what comes back at once: a refusal; a body being received answers nothing
        try:
            answer = sock.recv(4096)
        except TimeoutError:
            answer = b""
        out.append((sock, answer))
    return out


def open_event_stream(url: str, address: str, cookie: str | None = None) -> tuple[socket.socket, int]:
    """An event stream opened from ``address``: its socket and the status it was answered with."""
    sock = socket.create_connection(
        ("127.0.0.1", _port(url)), timeout=HANG_GUARD_S, source_address=(address, 0)
    )
    head = "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    if cookie:
        head += f"Cookie: {KIOSK_COOKIE}={cookie}\r\n"
    sock.sendall((head + "\r\n").encode())
    answer = b""
    try:
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    except OSError:
        pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return sock, status


def _waits_for(sock: socket.socket, text: bytes) -> bool:
    """Whether ``text`` comes on ``sock`` (an event stream) within the hang guard."""
    sock.settimeout(HANG_GUARD_S)
    seen = b""
    try:
        while text not in seen:
            chunk = sock.recv(65536)
            if not chunk:
                return False
            seen = seen[-65536:] + chunk
    except OSError:
        return False
    return True


def _kiosk_session(url: str) -> str:
    with httpx.Client(base_url=url, timeout=HANG_GUARD_S) as kiosk:
        signed_in = kiosk.post("/kiosk", data={"token": KIOSK_TOKEN}, follow_redirects=False)
        if signed_in.status_code != 303:
            raise RuntimeError(f"the kiosk could not sign in: {signed_in.status_code} {signed_in.text}")
        return str(kiosk.cookies[KIOSK_COOKIE])


def _streams_and_connections(root: Path, attack: Report) -> None:
    events = Broadcaster()
    with _server(root, events) as url, ExitStack() as stack:
        session = _kiosk_session(url)
        tv, status = open_event_stream(url, "127.0.0.1", session)
        stack.callback(tv.close)

        # A stranger opens stream after stream, from one address and then from many.
        opened: list[tuple[socket.socket, int]] = []
        for i in range(STREAMS):
            address = LAN_ADDRESS if i < STREAMS // 2 else f"127.0.2.{i % 25 + 2}"
            opened.append(open_event_stream(url, address))
        for sock, _ in opened:
            stack.callback(sock.close)
        let_in = sum(code == 200 for _, code in opened)
        kiosk_again = [open_event_stream(url, "127.0.0.1", session) for _ in range(KIOSK_STREAMS - 1)]
        events.publish(LiveEvent("score", 1, time.time(), {"boards": [], "totals": {"Ann": 77}}))
        still = _waits_for(tv, b'"Ann": 77') if status == 200 else False
        from_one = sum(code == 200 for _, code in opened[: STREAMS // 2])
        attack(
            f"{STREAMS} strangers' event streams (the TV's stream cap)",
            status == 200
            and still
            and from_one == STREAMS_PER_CLIENT
            and let_in <= OTHER_STREAMS
            and all(code == 200 for _, code in kiosk_again),
            f"the kiosk's stream: {status}, still gets scores: {still}; strangers' let in: {let_in} (from "
            f"one address {from_one}); the kiosk's {KIOSK_STREAMS - 1} more: {[c for _, c in kiosk_again]}",
        )
        preview = httpx.get(f"{url}/api/preview.mjpg", timeout=HANG_GUARD_S).status_code
        attack("the camera's preview without pairing", preview == 403, f"answered {preview}")
        for sock, _ in [*opened, *kiosk_again]:
            sock.close()

        # Slowloris: connections that send their request head a byte at a time.
        slow = _slowloris(url, stack)
        events.publish(LiveEvent("score", 2, time.time(), {"boards": [], "totals": {"Bob": 88}}))
        tv_kept = _waits_for(tv, b'"Bob": 88')
        phone = httpx.Client(
            base_url=url, transport=httpx.HTTPTransport(local_address="127.0.3.9"), timeout=HANG_GUARD_S
        )
        with phone:
            answered = phone.get("/api/tv").status_code
        reconnect, again = open_event_stream(url, "127.0.0.1", session)
        reconnect.close()
        attack(
            f"{SLOW_CONNECTIONS} slow connections (slowloris) from {SLOW_ADDRESSES} addresses",
            tv_kept and again == 200 and answered == 200,
            f"{slow['held']} held open by the scorer, {slow['refused']} refused or closed to make room; the "
            "kiosk's stream "
            f"kept: {tv_kept}, it reconnects: {again}; a phone of another address meanwhile: {answered}",
        )


def _slowloris(url: str, stack: ExitStack) -> dict[str, int]:
    """:data:`SLOW_CONNECTIONS` connections from :data:`SLOW_ADDRESSES` addresses, each sending a request
    head's first bytes; how many the scorer holds open at the end, and how many it refused or closed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 3 * SLOW_CONNECTIONS + 256  # the clients' sockets, the server's, and the rest of the process
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
        stack.callback(resource.setrlimit, resource.RLIMIT_NOFILE, (soft, hard))
    opened = []
    refused = 0
    for i in range(SLOW_CONNECTIONS):
        address = f"127.0.4.{i % SLOW_ADDRESSES + 2}"
        try:
            sock = socket.create_connection(("127.0.0.1", _port(url)), timeout=5, source_address=(address, 0))
        except OSError:
            refused += 1
            continue
        stack.callback(sock.close)
        with contextlib.suppress(OSError):
            sock.sendall(b"GET /api/tv HTTP/1.1\r\nHost: 127")
        opened.append(sock)
    # The refusals come a moment after each connection: look once they have had it, for the figures only.
    time.sleep(1.0)
    held = 0
    for sock in opened:
        sock.setblocking(False)
        try:
            sock.recv(64)
        except BlockingIOError:
            held += 1  # nothing said: the scorer still waits for the head
        except OSError:
            pass
    return {"held": held, "refused": refused + len(opened) - held}


def _pairing_under_a_flood(root: Path, attack: Report) -> None:
    with _server(root) as url, ExitStack() as stack:
        kiosk = _client(stack, url)
        # 20 wrong codes in an hour from anywhere on the LAN: four addresses, five each.
        for k in range(4):
            guesser = _client(stack, url, f"127.0.5.{k + 2}")
            for _ in range(CLIENT_TRIES):
                guesser.post("/api/pair", json={"code": "1111 1111", "name": "x"})
        owner = _client(stack, url, OWNER_ADDRESS)
        shown = pairing_code(kiosk)
        paired = owner.post("/api/pair", json={"code": shown, "name": "Owner"})
        attack(
            "the owner pairing after 20 wrong codes from the LAN",
            paired.status_code == 200,
            f"the TV showed {len(shown.replace(' ', ''))} characters; pairing with them: "
            f"{paired.status_code}",
        )
        # Wrong codes from 200 addresses at once, each a first try: the TV and the pages go on answering.
        guessers = [_client(stack, url, f"127.0.6.{k + 2}") for k in range(200)]
        answers: list[int] = []

        def guess(guesser: httpx.Client) -> None:
            answers.append(guesser.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code)

        threads = [threading.Thread(target=guess, args=(g,)) for g in guessers]
        for thread in threads:
            thread.start()
        # Each on a new connection: the kiosk's last one idled while the threads started and may be closed
        # by the scorer as it is reused (a browser sends again then; httpx says "reset by peer").
        tv = [kiosk.get("/api/tv", headers={"Connection": "close"}) for _ in range(5)]
        for thread in threads:
            thread.join()
        attack(
            "wrong codes from 200 addresses at once, the TV asking meanwhile",
            all(r.status_code == 200 for r in tv) and set(answers) <= {403, 503},
            f"TV {[r.status_code for r in tv]}, slowest {max(r.elapsed.total_seconds() for r in tv):.2f} s; "
            f"guesses {sorted(set(answers))}",
        )


def _hostile_jpegs(root: Path, attack: Report) -> None:
    """JPEGs whose decoding costs far more than their size says: a large progressive one (its coefficients
    held whole) and one of thousands of empty scans (each a pass over every block)."""
    with _server(root) as url, ExitStack() as stack:
        phone = _client(stack, url, LAN_ADDRESS)
        flat = np.full((8192, 8192, 3), 128, np.uint8)
        ok, coded = cv2.imencode(".jpg", flat, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
        assert ok
        progressive = coded.tobytes()
        del flat
        small = cv2.imencode(".jpg", cv2.imread(str(PHOTO)), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
        for name, photo in (
            (f"a progressive 8192 x 8192 JPEG of {len(progressive) // 1000} KB", progressive),
            ("a JPEG of 5000 empty scans", with_empty_scans(small, 5000)),
        ):
            sent = phone.post(
                "/api/score?game=alices-garden", files={"file": ("photo.jpg", photo, "image/jpeg")}
            )
            attack(
                name,
                sent.status_code == 400,
                f"{sent.status_code}: {sent.json()['detail'][:90]}",
            )


def _privacy(root: Path, attack: Report) -> None:
    with _server(root) as url, ExitStack() as stack:
        phone = _client(stack, url, LAN_ADDRESS)
        owner = _client(stack, url, OWNER_ADDRESS)
        pair(owner, _client(stack, url))

        # A photo with its GPS position, owner and camera serial.
        picture = cv2.imencode(".jpg", cv2.imread(str(PHOTO)))[1].tobytes()
        sent = phone.post(
            f"/api/score?game={GAME}",
            files={"file": ("gps.jpg", with_personal_metadata(picture, 1), "image/jpeg")},
        )
        served = (
            phone.get(f"/api/result/{sent.json()['game_id']}/photo").content
            if sent.status_code == 200
            else b""
        )
        kept = b"".join(p.read_bytes() for p in (root / RESULTS_DIR).rglob("*") if p.is_file())
        leaked = [s.decode() for s in SECRETS if s in served or s in kept]
        attack(
            "a photo's GPS position, owner and camera served or kept",
            sent.status_code == 200 and served.startswith(b"\xff\xd8") and not leaked,
            f"upload {sent.status_code}; served {len(served)} bytes; what it still says: "
            f"{leaked or 'nothing'}",
        )

        # A player id of the client's own choosing.
        chosen = _client(stack, url, OTHER_LAN_ADDRESS)
        chosen.cookies.set(PLAYER_COOKIE, "ChosenByTheClient0001")
        upload = chosen.post(
            f"/api/score?game={GAME}", files={"file": (PHOTO.name, PHOTO.read_bytes(), "image/jpeg")}
        )
        issued = upload.cookies.get(PLAYER_COOKIE)
        attack(
            "a player id chosen by the client",
            upload.status_code == 200 and issued is not None and issued != "ChosenByTheClient0001",
            f"upload {upload.status_code}; the scorer issued its own id: {issued is not None}",
        )

        # Formulas in the CSV export, from a player's name.
        named = owner.put(
            "/api/setup", json={"game": GAME, "players": ['=HYPERLINK("http://ev.il","x")'], "hand": {}}
        )
        phone.post(f"/api/score?game={GAME}", files={"file": (PHOTO.name, PHOTO.read_bytes(), "image/jpeg")})
        rows = list(csv.DictReader(io.StringIO(phone.get("/api/history.csv").text)))
        players = [row["player"] for row in rows if row["player"]]
        attack(
            "a formula in the CSV export",
            named.status_code == 200 and bool(players) and all(p.startswith("'=") for p in players),
            f"the player's cell as exported: {players[:1]}",
        )

        # The kiosk's token: never taken from an address, its cookie a session of its own that can be revoked.
        taker = _client(stack, url)
        taker.get("/kiosk", params={"token": KIOSK_TOKEN})
        by_address = taker.get("/api/tv/pairing").status_code
        kiosk = _client(stack, url)
        kiosk.post("/kiosk", data={"token": KIOSK_TOKEN}, follow_redirects=False)
        cookie = kiosk.cookies.get(KIOSK_COOKIE) or ""
        sessions = [d for d in owner.get("/api/devices").json() if d["role"] == "kiosk"]
        revoked = [owner.delete(f"/api/devices/{d['id']}").status_code for d in sessions]
        after = kiosk.get("/api/tv/pairing").status_code
        autostart = (Path(__file__).parents[2] / "systemd" / "kiosk-autostart").read_text()
        line = next(line for line in autostart.splitlines() if not line.startswith("#"))
        attack(
            "the kiosk's token on a command line or as its cookie",
            by_address == 403
            and bool(cookie)
            and cookie != KIOSK_TOKEN
            and revoked == [200] * len(sessions)
            and after == 403
            and "token=" not in line
            and "cat " not in line,
            f"signed in by an address: {by_address != 403}; its cookie is the token: "
            f"{cookie == KIOSK_TOKEN}; revoked: {revoked}, then {after}; the token in the autostart line: "
            f"{'token=' in line}",
        )


def _every_address(attack: Report) -> None:
    """``--host ::``: the scorer listens on IPv4 and IPv6 alike, as its banner says."""
    try:
        sock = listening_socket("::", 0)
    except ValueError as exc:
        attack("--host :: listening on IPv6 alone", True, f"no IPv6 on this machine: {exc}")
        return

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    config = server_config(app)  # type: ignore[arg-type]
    config.lifespan = "off"
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    port = sock.getsockname()[1]
    answers: dict[str, int | str] = {}
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        for name, host in (("IPv4", "127.0.0.1"), ("IPv6", "[::1]")):
            try:
                answers[name] = httpx.get(f"http://{host}:{port}/", timeout=HANG_GUARD_S).status_code
            except httpx.HTTPError as exc:
                answers[name] = type(exc).__name__
    finally:
        server.should_exit = True
        thread.join(HANG_GUARD_S)
        sock.close()
    attack("--host :: listening on IPv6 alone", answers == {"IPv4": 204, "IPv6": 204}, f"answers {answers}")


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
