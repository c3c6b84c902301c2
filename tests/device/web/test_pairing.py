"""Pairing a phone, the kiosk's sign-in, the paired devices, and the checks every request passes: the names
the scorer answers to, where a state-changing request comes from, and the headers of every response."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from numpy.typing import NDArray

from calibration.statedir import StateDir
from device.web import ATTEMPTS_FILE, AppConfig, create_app
from device.web.auth import (
    ALL_TRIES,
    CLIENT_TRIES,
    CODE_LIFE_S,
    LONG_CODE_ALPHABET,
    LONG_CODE_CHARS,
    Attempts,
    PairingCode,
    normal_code,
)
from lab.pairing import KIOSK_TOKEN, pairing_code
from tests.conftest import BASE_URL, LOCAL, REMOTE


def _no_scoring(
    image: NDArray[Any], game: str, hand: Mapping[str, Any], profile: str | None, *a: Any, **k: Any
) -> list[Any]:
    return []


def _app(root: Path, **options: Any) -> FastAPI:
    return create_app(AppConfig(StateDir(root), _no_scoring, kiosk_token=KIOSK_TOKEN, **options))


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return _app(tmp_path)


def _client(app: FastAPI, address: tuple[str, int] = REMOTE, base_url: str = BASE_URL) -> TestClient:
    return TestClient(app, base_url=base_url, client=address)


def test_only_the_kiosk_is_shown_the_pairing_code(app: FastAPI, remote: TestClient) -> None:
    # Not for where it connects from: a client on the scorer itself is no kiosk either.
    on_the_pi = _client(app, LOCAL)
    for client in (remote, on_the_pi):
        refused = client.get("/api/tv/pairing")
        assert refused.status_code == 403 and "on the TV only" in refused.json()["detail"]
        assert "code" not in client.get("/api/tv").json()
    assert on_the_pi.post("/kiosk", data={"token": "not-the-token-at-all"}).status_code == 403
    # A token in an address signs nobody in: addresses end up on command lines, in histories and logs.
    on_the_pi.get("/kiosk", params={"token": KIOSK_TOKEN})
    assert on_the_pi.get("/api/tv/pairing").status_code == 403
    signed_in = on_the_pi.post("/kiosk", data={"token": KIOSK_TOKEN}, follow_redirects=False)
    assert signed_in.status_code == 303 and signed_in.headers["location"] == "/tv"
    cookie = signed_in.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    # The cookie is a session of the kiosk's own, not the token.
    assert KIOSK_TOKEN not in cookie
    shown = on_the_pi.get("/api/tv/pairing").json()
    assert shown["code"][:4].isdigit() and shown["code"][4] == " " and shown["code"][5:].isdigit()
    assert 0 < shown["expires_in_s"] <= CODE_LIFE_S and shown["address"].endswith("/pair")
    assert on_the_pi.get("/api/me").json() == {"paired": False, "name": None, "kiosk": True}


def test_a_scorer_on_this_machine_only_gives_the_tv_no_address_to_pair_at(tmp_path: Path) -> None:
    # An independent try ran `serve --host 127.0.0.1` (the default): the TV named the machine's network
    # address, where nothing listened, for phones to pair at.
    kiosk = _client(_app(tmp_path, on_network=False), LOCAL)
    kiosk.post("/kiosk", data={"token": KIOSK_TOKEN}).raise_for_status()
    shown = kiosk.get("/api/tv/pairing").json()
    assert shown["address"] is None and shown["code"][:4].isdigit()


def test_a_phone_paired_with_the_code_may_do_the_owners_tasks_until_unpaired(
    app: FastAPI, remote: TestClient
) -> None:
    kiosk = _client(app, LOCAL)
    assert remote.put("/api/setup", json={"game": "sanssouci"}).status_code == 403
    assert remote.post("/api/pair", json={"code": "0000 0000", "name": "Ann's phone"}).status_code == 403
    code = pairing_code(kiosk)
    paired = remote.post("/api/pair", json={"code": code, "name": "  Ann's   phone "})
    assert paired.status_code == 200 and paired.json() == {
        "paired": True,
        "name": "Ann's phone",
        "kiosk": False,
    }
    assert "HttpOnly" in paired.headers["set-cookie"] and "SameSite=strict" in paired.headers["set-cookie"]
    assert remote.put("/api/setup", json={"game": "sanssouci"}).status_code == 200
    # A code pairs one phone: the next needs the next code.
    other = _client(app, ("192.168.1.30", 4000))
    assert other.post("/api/pair", json={"code": code, "name": "Bob"}).status_code == 403
    other.post("/api/pair", json={"code": pairing_code(kiosk), "name": "Bob"}).raise_for_status()
    listed = [d for d in remote.get("/api/devices").json() if d["role"] == "phone"]
    assert [(d["name"], d["this"]) for d in listed] == [("Ann's phone", True), ("Bob", False)]
    bob = listed[1]["id"]
    assert other.put("/api/setup", json={}).status_code == 200
    assert remote.delete(f"/api/devices/{bob}").json() == {"unpaired": bob}
    assert other.put("/api/setup", json={}).status_code == 403
    assert other.get("/api/devices").status_code == 403
    assert remote.delete(f"/api/devices/{bob}").status_code == 404


def test_a_login_survives_a_restart_and_a_damaged_device_list_stops_the_start(tmp_path: Path) -> None:
    # A device on the list, not a session in memory.
    first = _app(tmp_path)
    phone = _client(first)
    phone.post(
        "/api/pair", json={"code": pairing_code(_client(first, LOCAL)), "name": "Ann"}
    ).raise_for_status()
    again = _client(_app(tmp_path))
    again.cookies = phone.cookies
    assert again.get("/api/me").json()["name"] == "Ann"
    (tmp_path / "devices.json").write_text("{broken")
    with pytest.raises(ValueError, match="pair your phones again"):
        _app(tmp_path)


def test_the_kiosks_session_is_listed_with_the_paired_devices_and_can_be_signed_out(
    app: FastAPI, remote: TestClient
) -> None:
    kiosk = _client(app, LOCAL)
    # The TV's start-up page is a file: its form's Origin is "null", which only the kiosk's sign-in takes.
    started = kiosk.post(
        "/kiosk", data={"token": KIOSK_TOKEN}, headers={"Origin": "null"}, follow_redirects=False
    )
    assert started.status_code == 303
    assert (
        kiosk.post(
            "/kiosk", data={"token": KIOSK_TOKEN}, headers={"Origin": "http://evil.example"}
        ).status_code
        == 403
    )
    assert (
        remote.post("/api/pair", json={"code": "0", "name": "x"}, headers={"Origin": "null"}).status_code
        == 403
    )
    remote.post("/api/pair", json={"code": pairing_code(kiosk), "name": "Ann"}).raise_for_status()
    listed = remote.get("/api/devices").json()
    assert sorted(d["role"] for d in listed) == ["kiosk", "phone"]
    for session in (d for d in listed if d["role"] == "kiosk"):
        assert remote.delete(f"/api/devices/{session['id']}").status_code == 200
    # Signed out: the TV is no longer shown the code, and must sign in again.
    assert kiosk.get("/api/tv/pairing").status_code == 403
    assert kiosk.get("/api/me").json()["kiosk"] is False
    # A kiosk session is no owner: it may not change the set-up.
    pairing_code(kiosk)
    assert kiosk.put("/api/setup", json={}).status_code == 403


def test_wrong_codes_are_limited_per_client_and_a_flood_makes_the_code_long(tmp_path: Path) -> None:
    app = _app(tmp_path)
    kiosk = _client(app, LOCAL)
    guesser = _client(app)
    for _ in range(CLIENT_TRIES):
        assert guesser.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code == 403
    # Now even the right code is not compared: the client's tries are spent.
    stopped = guesser.post("/api/pair", json={"code": pairing_code(kiosk), "name": "x"})
    assert stopped.status_code == 429 and "try again in" in stopped.json()["detail"]
    assert int(stopped.headers["Retry-After"]) > 0
    # Across a restart, from the same client: the app stopping writes the tries not written yet (they are
    # written at most once a second, so that a flood from many addresses holds nobody waiting for the disk).
    with _client(app):
        pass  # started and stopped
    guesses = json.loads((tmp_path / ATTEMPTS_FILE).read_text())["tries"]
    assert [k for k, _ in guesses] == [REMOTE[0]] * CLIENT_TRIES
    restarted = _client(_app(tmp_path))
    assert restarted.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code == 429
    # Other clients still may.
    short = pairing_code(kiosk)
    assert len(short.replace(" ", "")) == 8 and _client(app).get("/api/pair").json() == {
        "length": 8,
        "letters": False,
    }
    for k in range(ALL_TRIES - CLIENT_TRIES):
        other = _client(app, (f"192.168.1.{100 + k}", 4000))
        assert other.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code == 403
    # Everyone's tries together are spent: nobody is locked out, but the TV shows a long code now, and the
    # short one shown before the flood pairs nobody.
    owner = _client(app, ("192.168.1.99", 4000))
    assert owner.post("/api/pair", json={"code": short, "name": "x"}).status_code == 403
    long = pairing_code(kiosk)
    assert len(long.replace(" ", "")) == 12 and not long.replace(" ", "").isdigit()
    assert owner.get("/api/pair").json() == {"length": 12, "letters": True}
    typed = long.lower().replace(" ", "-")  # as a phone's keyboard may give it
    paired = owner.post("/api/pair", json={"code": typed, "name": "Owner"})
    assert paired.status_code == 200, paired.text
    # The flood goes on from the same addresses: their own limit stops them, the owner pairs another phone.
    assert guesser.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code == 429
    second = _client(app, ("192.168.1.98", 4000))
    assert second.post("/api/pair", json={"code": pairing_code(kiosk), "name": "Tab"}).status_code == 200
    # One device of IPv6 addresses at will is one guesser: its /64 network.
    for k in range(CLIENT_TRIES):
        v6 = _client(app, (f"2001:db8:1:2::{k + 1:x}", 4000))
        assert v6.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code == 403
    fresh = _client(app, ("2001:db8:1:2:aaaa::99", 4000))
    assert fresh.post("/api/pair", json={"code": "1111 1111", "name": "x"}).status_code == 429


def test_tries_are_counted_before_the_secret_is_compared_so_a_burst_gets_no_more(tmp_path: Path) -> None:
    attempts = Attempts(tmp_path / ATTEMPTS_FILE)
    passed: list[float] = []
    refused: list[int] = []
    start = threading.Barrier(40)

    def guess() -> None:
        start.wait()
        try:
            passed.append(attempts.begin("192.168.1.66"))
        except Exception as exc:
            refused.append(getattr(exc, "status_code", 0))

    threads = [threading.Thread(target=guess) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(passed) == CLIENT_TRIES and refused == [429] * (40 - CLIENT_TRIES)
    # A right try is taken back, so the owner who typed it wrong once keeps their tries.
    fresh = Attempts(tmp_path / "other.json")
    at = fresh.begin("192.168.1.7")
    fresh.succeeded("192.168.1.7", at)
    for _ in range(CLIENT_TRIES):
        fresh.begin("192.168.1.7")


def test_a_flood_retires_the_short_code_at_once_and_its_end_brings_it_back() -> None:
    flooded = [False]
    code = PairingCode(long=lambda: flooded[0], clock=lambda: 0.0)
    short, _ = code.current()
    flooded[0] = True
    long, _ = code.current()
    assert len(long) == LONG_CODE_CHARS and set(long) <= set(LONG_CODE_ALPHABET)
    assert not code.redeem(short)
    # Letters read alike are read as the code's: O as 0, I and L as 1.
    look_alike = long.replace("0", "o").replace("1", "I")
    assert normal_code(look_alike) == long
    flooded[0] = False
    assert len(code.current()[0]) == 8 and not code.redeem(long)


def test_a_code_expires_and_is_used_once() -> None:
    now = [0.0]
    code = PairingCode(clock=lambda: now[0])
    first, left = code.current()
    assert len(first) == 8 and left == CODE_LIFE_S
    assert code.current()[0] == first
    assert not code.redeem("")
    assert code.redeem(f"{first[:4]} {first[4:]}")
    assert not code.redeem(first)
    second, _ = code.current()
    now[0] += CODE_LIFE_S
    assert not code.redeem(second)
    assert code.current()[1] == CODE_LIFE_S  # a new code, for as long again


def test_only_the_scorers_own_names_are_answered(app: FastAPI, tmp_path: Path) -> None:
    for base in ("http://127.0.0.1:8080", "http://192.168.1.5", "http://[::1]:8080", "http://localhost"):
        assert _client(app, base_url=base).get("/api/tv").status_code == 200, base
    rebound = _client(app, base_url="http://evil.example")
    refused = rebound.get("/api/tv")
    assert refused.status_code == 421 and "does not answer to 'evil.example'" in refused.json()["detail"]
    assert rebound.post("/api/score?game=alices-garden").status_code == 421
    named = _app(tmp_path / "named", allowed_hosts=("garden.example.org",))
    assert _client(named, base_url="http://garden.example.org").get("/api/tv").status_code == 200


def test_a_page_of_another_site_cannot_change_anything(app: FastAPI, local: TestClient) -> None:
    evil = {"Origin": "http://evil.example"}
    refused = local.put("/api/setup", json={}, headers=evil)
    assert refused.status_code == 403 and "another site" in refused.json()["detail"]
    assert local.post("/api/score?game=alices-garden", headers=evil).status_code == 403
    assert (
        local.put("/api/setup", json={}, headers={"Referer": "http://evil.example/page"}).status_code == 403
    )
    assert local.put("/api/setup", json={}, headers={"Origin": "null"}).status_code == 403
    # The same host by another scheme is another origin.
    other_scheme = BASE_URL.replace("http://", "https://")
    assert local.put("/api/setup", json={}, headers={"Origin": other_scheme}).status_code == 403
    # The scorer's own pages, and programs that send no Origin.
    assert local.put("/api/setup", json={}, headers={"Origin": BASE_URL}).status_code == 200
    assert local.put("/api/setup", json={}, headers={"Referer": f"{BASE_URL}/setup"}).status_code == 200
    assert local.put("/api/setup", json={}).status_code == 200
    # Reading is not refused: a cross-site page cannot read the answer anyway.
    assert local.get("/api/setup", headers=evil).status_code == 200


@pytest.mark.parametrize("path", ["/", "/api/tv", "/api/games", "/docs", "/static/common.js", "/api/nothing"])
def test_every_response_carries_the_security_headers(remote: TestClient, path: str) -> None:
    headers = remote.get(path).headers
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
