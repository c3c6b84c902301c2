"""``garden-scorer serve``: the camera, the live loop and the web app, wired together in one process.

Uploads are scored like ``garden-scorer score`` (with a stored profile when the page names one); the camera's
frames go through the live loop, whose results reach the TV page as Server-Sent Events. Everything the scorer
learns and records lives in the state folder.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import os
import re
import secrets
import socket
import ssl
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import uvicorn
from numpy.typing import NDArray
from starlette.types import ASGIApp

from calibration.profiles import load_bundle
from calibration.statedir import StateDir
from calibration.store import sweep_temporaries
from device.camera import Camera, open_camera
from device.history import History, LiveRecord
from device.learn import corner_order_words, corner_turn, outdated, reteach
from device.live import Broadcaster, LiveLoop, LiveScorer
from device.memory import give_back_freed_memory
from device.mqtt.link import NONE, BrokerLink
from device.mqtt.settings import MqttSettings
from device.notify import Systemd, supervise
from device.photo import ScoredBoard, profile_models, score_image, state_camera
from device.web import AppConfig, create_app
from device.web.connections import ConnectionLimits, guarded_h11
from scoring.core import StateError
from scoring.registry import Kind, get_entry
from vision.geometry import Points

# A replayed folder is paced like a camera and holds each photo as a still table would.
REPLAY_FPS = 4.0
REPLAY_HOLD = 12


# systemd's name for the kiosk's token file, which LoadCredential= passes (systemd/kiosk-token.conf).
KIOSK_TOKEN_CREDENTIAL = "kiosk-token"
# The kiosk's token goes into the TV browser's address, so it is kept to characters a URL carries as they are.
_KIOSK_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,}")
_HOST_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_HOST_NAME = re.compile(rf"{_HOST_LABEL}(\.{_HOST_LABEL})*\.?", re.IGNORECASE)
# Once the server is asked to stop, the TV's event streams (which never end by themselves) get this long.
GRACEFUL_STOP_S = 5
# A kept-alive connection idle this long is closed (uvicorn's default): a phone opens a new one in no time.
KEEP_ALIVE_S = 5
CONCURRENCY_MARGIN = 64
# Connections the kernel may hold before they are accepted (the caps then sort them out).
BACKLOG = 512


@dataclass(frozen=True)
class ServeOptions:
    """What ``garden-scorer serve`` was asked for; checked when made, so a mistake is told before starting."""

    game: str
    camera: str | None  # a camera spec (see device.camera.open_camera), or None for uploads only
    host: str = "127.0.0.1"
    port: int = 8080
    profile: str | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    allowed_hosts: tuple[str, ...] = ()
    """Host names the app answers to besides localhost, IP addresses and this machine's names."""
    kiosk_token_file: Path | None = None
    """The kiosk's token; None: systemd's kiosk-token credential if passed, else a new one for this run."""
    mqtt: MqttSettings | None = None
    """The broker the table's scores are published to (device.mqtt); None: none, the scorer on its own."""
    table: str | None = None
    """This table's name on the broker."""

    def __post_init__(self) -> None:
        if (self.mqtt is None) != (self.table is None):
            raise ValueError(
                "a table on a broker needs both --mqtt URL and --table NAME; give neither for a table alone"
            )
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("HTTPS needs both --tls-cert and --tls-key; give neither for plain HTTP")
        for name in self.allowed_hosts:
            if not _HOST_NAME.fullmatch(name):
                raise ValueError(
                    f"--allowed-host {name!r} is not a host name: give a name such as scorer.lan, "
                    "without http:// or a port"
                )

    @property
    def scheme(self) -> str:
        return "http" if self.tls_cert is None else "https"


def upload_scorer(state: StateDir) -> Any:
    """What the web app calls for an uploaded photo: read and score it, with the named stored profile."""

    def score(
        image: NDArray[np.uint8],
        game: str,
        hand: Mapping[str, Any],
        profile: str | None,
        also: Sequence[NDArray[np.uint8]] = (),
        /,
        *,
        corners: Points | None = None,
    ) -> list[ScoredBoard]:
        # Read per photo, like the profile: a calibration made on the calibration page counts at once. It is
        # the table camera's: a photo of another size was taken by another camera (a phone), read without.
        camera = state_camera(state)
        if camera is not None and tuple(camera.size_wh) != (image.shape[1], image.shape[0]):
            camera = None
        models = profile_models(state, game, profile)
        if corners is not None and profile is not None:
            # Handles placed from another corner than the board's top left: said, not read turned over (the
            # reading would replace the result it was placed on).
            board = models["profiles"][0]
            if first := corner_turn(state, board, image, corners):
                raise StateError(
                    f"{corner_order_words(first, board)}: place handle 1 on the board's top-left corner, "
                    "then the others round clockwise"
                )
        return score_image(image, game, hand, camera, corners_xy=corners, also=also, **models)

    return score


def live_scorer(state: StateDir, game: str, profile: str | None) -> LiveScorer:
    """The live loop's reader for ``game``, tied to the stored seats when they are for that game."""
    from calibration.seats import load

    camera = state_camera(state)
    models = profile_models(state, game, profile)

    def score(image: NDArray[np.uint8], *, known_boards: Sequence[Points] | None) -> list[ScoredBoard]:
        return score_image(image, game, {}, camera, known_boards=known_boards, **models)

    seats = load(state.table) if state.table.is_file() else None
    return LiveScorer(
        score,
        seats if seats is not None and seats.game == game else None,
        whole_table=get_entry(game).kind is Kind.TABLE,
    )


def open_live_camera(spec: str) -> Camera:
    if spec.startswith("replay:"):
        return open_camera(spec, loop=True, fps=REPLAY_FPS, hold=REPLAY_HOLD)
    return open_camera(spec)


def _latest_image(loop: LiveLoop) -> NDArray[np.uint8] | None:
    frame = loop.latest_frame()
    return None if frame is None else frame.image


def credential(name: str) -> Path | None:
    """The file systemd passed as credential ``name`` (LoadCredential=), if it did.

    The service runs as a throw-away user that cannot read /etc/garden-scorer/; systemd copies the files
    named in the unit into ``$CREDENTIALS_DIRECTORY`` for it.
    """
    folder = os.environ.get("CREDENTIALS_DIRECTORY")
    path = Path(folder, name) if folder else None
    return path if path is not None and path.is_file() else None


def read_kiosk_token(path: Path) -> str:
    """The token in ``path`` (surrounding blanks ignored); ValueError, saying what to do, when unusable."""
    try:
        token = path.read_bytes().decode("ascii", "replace").strip()
    except OSError as exc:
        raise ValueError(f"cannot read the kiosk token file {path}: {exc.strerror or exc}") from None
    if not _KIOSK_TOKEN.fullmatch(token):
        raise ValueError(
            f"the kiosk token in {path} must be 16 or more letters, digits, '-' or '_'; make one with: "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(24))'"
        )
    return token


def check_tls(cert: Path, key: Path) -> None:
    """Refuses, saying why, a certificate and key that cannot be read or do not go together, before the
    server would fail on them at start-up."""
    for path, what in ((cert, "certificate"), (key, "private key")):
        try:
            path.open("rb").close()
        except OSError as exc:
            raise ValueError(f"cannot read the TLS {what} {path}: {exc.strerror or exc}") from None
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except ssl.SSLError as exc:
        raise ValueError(
            f"the TLS certificate {cert} and key {key} cannot be used ({exc.reason or exc}): give the PEM "
            "files of one certificate and its own private key"
        ) from None


def _url_host(host: str) -> str:
    """How a browser on this machine reaches ``host`` (all addresses: the loopback one)."""
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def banner(options: ServeOptions, token: str, token_file: Path | None, terminal: bool) -> list[str]:
    """What serve prints on start. The kiosk's token is printed only to a terminal, never into a log (the
    journal), which more people can read than the token's file."""
    base = f"{options.scheme}://{_url_host(options.host)}:{options.port}"
    lines = [f"garden-scorer: {base}/  (TV: {base}/tv)"]
    if options.host in ("0.0.0.0", "::"):
        lines.append(f"On the home network: {options.scheme}://{socket.gethostname()}.local:{options.port}/")
    if terminal:
        lines.append(f"Kiosk (the TV's browser): open {base}/kiosk and paste the kiosk's token, {token}")
    elif token_file is not None:
        lines.append(
            f"Kiosk: garden-scorer kiosk-page --token-file {token_file} --url {base}/ --out PAGE writes the "
            "page the TV's browser opens"
        )
    else:
        lines.append("Kiosk: its token is printed on a terminal only (or give --kiosk-token-file)")
    return lines


def _health(loop: LiveLoop | None, systemd: Systemd) -> Callable[[], bool]:
    """What the watchdog asks: whether the live loop moved within the watchdog's period (no loop: fine)."""
    if loop is None or systemd.watchdog_s is None:
        return lambda: True
    return functools.partial(loop.healthy, systemd.watchdog_s)


def server_config(
    app: ASGIApp,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    local: tuple[str, ...] | None = None,
) -> uvicorn.Config:
    """uvicorn as the scorer runs it, on a socket given to ``Server.serve``: every request head due within
    seconds and open connections capped per client and in all (device.web.connections), kept-alive
    connections closed when idle, no WebSocket, no proxy headers. ``local``: the lab's narrower idea of this
    machine's own clients (see ``guarded_h11``)."""
    limits = ConnectionLimits()
    return uvicorn.Config(
        app,
        http=guarded_h11(limits, local),
        ws="none",
        log_level="warning",
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
        # Nothing stands in front of the app: an X-Forwarded-For from a local process must not pass for
        # where a request came from.
        proxy_headers=False,
        timeout_keep_alive=KEEP_ALIVE_S,
        # A backstop past the connection caps: requests in flight are bounded even should they be lifted.
        limit_concurrency=limits.total + limits.loopback + CONCURRENCY_MARGIN,
        timeout_graceful_shutdown=GRACEFUL_STOP_S,
    )


def reaches_network(host: str) -> bool:
    """Whether listening on ``host`` lets other machines reach the app: any address but this machine's own
    loopback (127.0.0.1, the default, keeps it to this machine)."""
    try:
        found = socket.getaddrinfo(host, None)
    except OSError:
        return True  # a name not resolved here: said as before, with the machine's address
    return not all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in found)


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port``. ``::`` (every address) takes IPv4 too: asyncio would listen
    on IPv6 alone, while the banner and the TV's browser say 127.0.0.1."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, dualstack_ipv6=host == "::", backlog=BACKLOG)
    except OSError as exc:
        raise ValueError(
            f"cannot listen on {host} port {port}: {exc.strerror or exc} (is another scorer running? choose "
            "another --port, or --host 127.0.0.1 or 0.0.0.0)"
        ) from None


async def serve_supervised(
    server: uvicorn.Server, systemd: Systemd, healthy: Callable[[], bool], sock: socket.socket
) -> None:
    """Runs the server on ``sock``, telling systemd when it is ready, alive and stopping (device.notify)."""
    finished = False
    supervisor = asyncio.create_task(
        supervise(systemd, lambda: server.started, lambda: finished or server.should_exit, healthy)
    )
    try:
        await server.serve(sockets=[sock])
    finally:
        finished = True
        await supervisor


def serve(state: StateDir, options: ServeOptions) -> None:
    """Run until interrupted; prints the addresses, and the kiosk's token on a terminal only."""
    give_back_freed_memory()
    if options.profile is not None and outdated(state, options.profile):
        # The live loop reads with it from the first frame: taught again now, not in the background.
        print(f"Teaching profile {options.profile!r} again from its photos: this version reads cells anew.")
        reteach(state, load_bundle(state, options.profile).profile, state_camera(state))
    # Fail now, with a clear message, on a bad game, profile, calibration, certificate or kiosk token rather
    # than on the first frame or the first request.
    profile_models(state, options.game, options.profile)
    state_camera(state)
    if options.tls_cert is not None and options.tls_key is not None:
        check_tls(options.tls_cert, options.tls_key)
    token_file = options.kiosk_token_file or credential(KIOSK_TOKEN_CREDENTIAL)
    token = secrets.token_urlsafe(24) if token_file is None else read_kiosk_token(token_file)
    for path in sweep_temporaries(state.root):
        print(f"Removed {path}, left by a write cut short (power cut or kill).")
    broker = broker_link(state, options)
    loop = None
    events = None
    if options.camera:
        spec = options.camera
        events = Broadcaster()
        loop = LiveLoop(
            functools.partial(open_live_camera, spec),
            live_scorer(state, options.game, options.profile),
            events,
            # The live game is kept in the history as the TV shows it, as uploads are; and goes to the broker.
            record=LiveRecord(History.open(state.history, listener=broker), broker.finished).scored,
        )
    preview = None if loop is None else functools.partial(_latest_image, loop)
    config = AppConfig(
        state,
        upload_scorer(state),
        events,
        preview=preview,
        kiosk_token=token,
        allowed_hosts=options.allowed_hosts,
        broker=broker,
        on_network=reaches_network(options.host),
    )
    app = create_app(config)
    # The journal then says which part spoke; uvicorn's own loggers keep their handlers.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    for line in banner(options, token, token_file, sys.stdout.isatty()):
        print(line)
    print(f"State folder: {state.root}; camera: {options.camera or 'none (uploads only)'}")
    sock = listening_socket(options.host, options.port)
    server = uvicorn.Server(server_config(app, options.tls_cert, options.tls_key))
    systemd = Systemd.from_environment()
    if loop is not None:
        loop.start()
    try:
        asyncio.run(serve_supervised(server, systemd, _health(loop, systemd), sock))
    finally:
        sock.close()
        if loop is not None:
            loop.stop()
        broker.stop()


def broker_link(state: StateDir, options: ServeOptions) -> BrokerLink:
    """The table's tie to a broker: the one ``options`` name, else the set-up page's, connecting in the
    background (the scorer starts at once, broker or not); with neither, one that does nothing."""
    from importlib.metadata import version

    fixed = None if options.mqtt is None or options.table is None else (options.mqtt, options.table)
    link = BrokerLink(state.root, fixed, version("garden-scorer"))
    link.start()
    status = link.status()
    if status.source != NONE:
        print(f"Publishing to {status.where} as table {status.table!r} (garden-scorer/{status.table}/...)")
    return link
