"""The serve wiring: the demo replay camera through the live scorer, uploads with a profile, the options
for listening (TLS, host names, the kiosk's token) and telling systemd when the server is ready."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.statedir import StateDir
from device.camera import ReplayCamera
from device.notify import Systemd
from device.serve import (
    KIOSK_TOKEN_CREDENTIAL,
    ServeOptions,
    banner,
    check_tls,
    credential,
    listening_socket,
    live_scorer,
    open_live_camera,
    reaches_network,
    read_kiosk_token,
    serve_supervised,
    upload_scorer,
)
from examples import REPLAY_DIR
from scoring.registry import get_game
from vision.camera_model import CameraModel
from vision.image_io import read_image


def _truth_total(path: Path) -> int:
    """The photo's true score with nothing entered by hand (as the camera alone sees it)."""
    state = json.loads(path.with_suffix(".json").read_text())["boards"][0]["state"]
    state = {**state, "unplaced_bonus_tiles": 0}
    rules = get_game("alices-garden")
    return rules.score(rules.parse(state)).total  # type: ignore[union-attr]


def test_the_demo_table_is_scored_live_as_its_photos_say(tmp_path: Path) -> None:
    scorer = live_scorer(StateDir(tmp_path), "alices-garden", None)
    photos = sorted(REPLAY_DIR.glob("*.jpg"))
    published = []
    with ReplayCamera(REPLAY_DIR, hold=5) as camera:
        for _ in range(5 * len(photos)):
            published += [e for e in scorer.feed(camera.read()) if e.kind == "score"]
    totals = [e.payload["boards"][0]["total"] for e in published]
    assert totals == [_truth_total(p) for p in photos]


def test_the_demo_camera_loops_and_holds_each_photo() -> None:
    camera = open_live_camera(f"replay:{REPLAY_DIR}")
    assert isinstance(camera, ReplayCamera) and camera.loop and camera.hold > 1
    camera.close()


def test_uploads_are_scored_with_a_stored_profile_or_refused_clearly(tmp_path: Path) -> None:
    from calibration.store import StoreError

    score = upload_scorer(StateDir(tmp_path))
    photo = sorted(REPLAY_DIR.glob("*.jpg"))[0]
    boards = score(read_image(str(photo)), "alices-garden", {}, None)
    assert boards[0].to_json()["total"] == _truth_total(photo)
    with pytest.raises(StoreError, match="no profile named 'kitchen'"):
        score(np.zeros((10, 10, 3), np.uint8), "alices-garden", {}, "kitchen")


def test_uploads_use_the_table_cameras_calibration_only_for_its_own_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import device.serve as serve_module

    matrix = np.array([[1000.0, 0.0, 320.0], [0.0, 1000.0, 240.0], [0.0, 0.0, 1.0]])
    table = CameraModel(matrix, np.zeros(5), (640, 480))
    monkeypatch.setattr(serve_module, "state_camera", lambda _state: table)
    seen: list[CameraModel | None] = []

    def read(image: object, game: str, hand: object, camera: CameraModel | None, **_: object) -> list[object]:
        seen.append(camera)
        return []

    monkeypatch.setattr(serve_module, "score_image", read)
    score = upload_scorer(StateDir(tmp_path))
    score(np.zeros((480, 640, 3), np.uint8), "alices-garden", {}, None)
    # A phone's photo is of another size: the table camera's lens is not its lens.
    score(np.zeros((3024, 4032, 3), np.uint8), "alices-garden", {}, None)
    assert seen == [table, None]


# Listening, TLS, the kiosk's token and systemd


def test_options_want_both_tls_files_and_plain_host_names() -> None:
    with pytest.raises(ValueError, match="both --tls-cert and --tls-key"):
        ServeOptions("alices-garden", None, tls_cert=Path("cert.pem"))
    for bad in ("http://scorer.lan", "scorer.lan:8080", "-scorer", "a..b", "*.lan"):
        with pytest.raises(ValueError, match="is not a host name"):
            ServeOptions("alices-garden", None, allowed_hosts=(bad,))
    options = ServeOptions("alices-garden", None, allowed_hosts=("scorer.lan", "Garden-Pi", "pi.home.arpa."))
    assert options.scheme == "http"


def test_the_kiosk_token_is_read_from_its_file_and_refused_when_unusable(tmp_path: Path) -> None:
    path = tmp_path / "kiosk-token"
    path.write_text("  AbCdEfGhIjKlMnOp_-0123456789\n")
    assert read_kiosk_token(path) == "AbCdEfGhIjKlMnOp_-0123456789"
    for bad in ("", "\n", "short", "sixteen letters!", "with space in the middle of it"):
        path.write_text(bad)
        with pytest.raises(
            ValueError, match=r"must be 16 or more letters, digits, '-' or '_'; make one with"
        ):
            read_kiosk_token(path)
    with pytest.raises(ValueError, match=r"cannot read the kiosk token file .*gone: No such file"):
        read_kiosk_token(tmp_path / "gone")


def test_the_kiosk_token_may_come_as_a_systemd_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    assert credential(KIOSK_TOKEN_CREDENTIAL) is None
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    assert credential(KIOSK_TOKEN_CREDENTIAL) is None  # not passed: the unit has no LoadCredential for it
    (tmp_path / "kiosk-token").write_text("x" * 32)
    assert credential(KIOSK_TOKEN_CREDENTIAL) == tmp_path / "kiosk-token"


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate and its key, made as install.sh --tls makes them (a smaller key)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    key_type = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
    subject = ["-subj", "/CN=garden.local", "-addext", "subjectAltName=DNS:garden.local"]
    subprocess.run(
        ["openssl", "req", "-x509", *key_type, *subject, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_tls_files_are_checked_before_serving(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "one")
    check_tls(cert, key)
    with pytest.raises(ValueError, match=r"cannot read the TLS private key .*gone\.key: No such file"):
        check_tls(cert, tmp_path / "gone.key")
    with pytest.raises(ValueError, match="cannot read the TLS certificate"):
        check_tls(tmp_path, key)  # a folder
    _, other_key = _certificate(tmp_path, "two")
    with pytest.raises(ValueError, match=r"cannot be used .*one certificate and its own private key"):
        check_tls(cert, other_key)


def test_the_kiosk_token_is_printed_to_a_terminal_only_and_never_in_an_address() -> None:
    token = "T0ken-for-the-kiosk-only"
    plain = ServeOptions("alices-garden", None, host="0.0.0.0")
    shown = banner(plain, token, None, terminal=True)
    assert shown[0] == "garden-scorer: http://127.0.0.1:8080/  (TV: http://127.0.0.1:8080/tv)"
    assert shown[-1] == (
        f"Kiosk (the TV's browser): open http://127.0.0.1:8080/kiosk and paste the kiosk's token, {token}"
    )
    logged = banner(plain, token, None, terminal=False)
    assert not any(token in line for line in logged)
    assert logged[-1] == "Kiosk: its token is printed on a terminal only (or give --kiosk-token-file)"
    tls = ServeOptions("alices-garden", None, port=8443, tls_cert=Path("c"), tls_key=Path("k"))
    logged = banner(tls, token, Path("/run/credentials/garden-scorer.service/kiosk-token"), terminal=False)
    assert logged == [
        "garden-scorer: https://127.0.0.1:8443/  (TV: https://127.0.0.1:8443/tv)",
        "Kiosk: garden-scorer kiosk-page --token-file /run/credentials/garden-scorer.service/kiosk-token "
        "--url https://127.0.0.1:8443/ --out PAGE writes the page the TV's browser opens",
    ]
    assert not any("PIN" in line or "?token=" in line for line in shown + logged)


def test_every_address_listens_on_ipv4_and_ipv6_alike() -> None:
    """``--host ::`` listened on IPv6 alone while the banner and the kiosk said 127.0.0.1 (issue #58)."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        sock = listening_socket("::", 0)
    except ValueError as exc:
        pytest.skip(f"no IPv6 here: {exc}")
    with sock:
        port = sock.getsockname()[1]
        for family, address in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            with socket.socket(family) as client:
                client.settimeout(10)
                client.connect((address, port))
    with (
        listening_socket("127.0.0.1", 0) as taken,
        pytest.raises(ValueError, match="is another scorer running"),
    ):
        listening_socket("127.0.0.1", taken.getsockname()[1])


def test_the_server_tells_systemd_when_it_is_ready_and_when_it_stops(tmp_path: Path) -> None:
    import uvicorn

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise AssertionError("no request is made")

    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning"))
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd_end:
        systemd_end.bind(str(tmp_path / "notify"))
        systemd_end.setblocking(False)

        async def run() -> None:
            async def stop_once_started() -> None:
                while not server.started:
                    await asyncio.sleep(0.01)
                server.should_exit = True

            stopper = asyncio.create_task(stop_once_started())
            with listening_socket("127.0.0.1", 0) as sock:
                await serve_supervised(server, Systemd(str(tmp_path / "notify"), None), lambda: True, sock)
            await stopper

        asyncio.run(run())
        assert [systemd_end.recv(100), systemd_end.recv(100)] == [b"READY=1", b"STOPPING=1"]


def test_the_server_gives_freed_memory_back() -> None:
    """Three Tang Garden uploads at once left the server 220 MB larger for good (issue #58): glibc kept
    what they freed. Where glibc is the C library, the scorer asks it to give it back."""
    import ctypes

    from device.memory import give_back_freed_memory

    glibc = getattr(ctypes.CDLL(None), "gnu_get_libc_version", None) is not None
    assert give_back_freed_memory() is glibc


@pytest.mark.parametrize(
    ("host", "reached"),
    [("127.0.0.1", False), ("localhost", False), ("::1", False), ("0.0.0.0", True), ("::", True)],
)
def test_only_an_address_beyond_loopback_lets_phones_reach_the_scorer(host: str, reached: bool) -> None:
    assert reaches_network(host) is reached
