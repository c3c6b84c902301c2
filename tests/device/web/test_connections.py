"""The connection guards on a real uvicorn on loopback, over raw sockets: a request head sent a byte at a time
is cut off at its deadline while everything else is served, and no client, nor the LAN together, holds more
connections than its cap. Other loopback addresses than 127.0.0.1 stand for phones on the LAN."""

from __future__ import annotations

import asyncio
import select
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from typing import Any, Protocol

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from device.web.connections import ConnectionLimits, GuardedH11Protocol, OpenConnections, guarded_h11

PI = "127.0.0.1"  # the scorer itself, as the kiosk's browser
LAN = "127.0.0.2"  # a phone
OTHER_LAN = "127.0.0.3"
THIRD_LAN = "127.0.0.4"
HEAD_TIMEOUT_S = 1.0
SLOW_S = 2 * HEAD_TIMEOUT_S  # what /slow takes to answer: longer than a head may take
WAIT_S = 10.0  # how long an outcome is waited for: never how fast it must come
TRICKLE_S = 0.2
# A deadline test's limits, and a cap test's: there idle connections must stay open for the test's length.
TIMED = ConnectionLimits(per_client=8, total=16, loopback=8, head_timeout_s=HEAD_TIMEOUT_S)
UNTIMED_S = 600.0

GET = b"GET / HTTP/1.1\r\nHost: scorer\r\n\r\n"
GET_SLOW = b"GET /slow HTTP/1.1\r\nHost: scorer\r\n\r\n"
HALF_HEAD = b"GET / HTTP/1.1\r\nHost: scorer\r\nX-Slow: "  # a byte more of X-Slow's value at a time


async def hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


async def slow(request: Request) -> PlainTextResponse:
    await asyncio.sleep(SLOW_S)
    return PlainTextResponse("slow")


async def echo(request: Request) -> PlainTextResponse:
    return PlainTextResponse(await request.body())


HOLD = threading.Event()  # /hold answers once a test sets it


async def hold(request: Request) -> PlainTextResponse:
    await asyncio.to_thread(HOLD.wait, WAIT_S)
    return PlainTextResponse("held")


APP = Starlette(
    routes=[
        Route("/", hello),
        Route("/slow", slow),
        Route("/hold", hold),
        Route("/echo", echo, methods=["POST"]),
    ]
)
GET_HOLD = b"GET /hold HTTP/1.1\r\nHost: scorer\r\n\r\n"


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def parse_head(head: bytes) -> tuple[str, dict[str, str]]:
    """A response head's status line and headers (names in lower case)."""
    status_line, *lines = head.decode("latin-1").split("\r\n")
    pairs = (line.partition(":") for line in lines)
    return status_line, {name.strip().lower(): value.strip() for name, _, value in pairs}


class Client:
    """One raw connection to the server, made from the address ``source``."""

    def __init__(self, port: int, source: str) -> None:
        server = "::1" if ":" in source else PI
        self.sock = socket.create_connection((server, port), timeout=WAIT_S, source_address=(source, 0))
        self.buffer = b""

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def get(self) -> Response:
        self.send(GET)
        return self.response()

    def response(self) -> Response:
        """The next whole response (all the test app's have a Content-Length)."""
        while b"\r\n\r\n" not in self.buffer:
            self._receive()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, headers = parse_head(head)
        length = int(headers["content-length"])
        while len(self.buffer) < length:
            self._receive()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return Response(int(status_line.split()[1]), headers, body)

    def reset(self) -> None:
        """Drops the connection with a reset, as a phone leaving the Wi-Fi might."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.sock.close()

    def close(self) -> None:
        self.sock.close()

    def _receive(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("closed before a whole response")
        self.buffer += data


@dataclass
class Scorer:
    """The test app served through a guarded protocol; connections made here are closed before it stops."""

    port: int
    protocol: type[GuardedH11Protocol]
    stack: ExitStack

    def connect(self, source: str = PI) -> Client:
        return self.stack.enter_context(closing(Client(self.port, source)))

    @property
    def counts(self) -> OpenConnections:
        return self.protocol.open_connections


class Serve(Protocol):
    def __call__(
        self, limits: ConnectionLimits, host: str = PI, lan_from_loopback: bool = True
    ) -> Scorer: ...


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Starts uvicorn with ``guarded_h11(limits)`` in a thread (as lab/browser.py's ``serve_in_thread``, on a
    socket bound beforehand); ``lan_from_loopback``: only 127.0.0.1 counts as loopback."""
    with ExitStack() as stack:

        def start(limits: ConnectionLimits, host: str = PI, lan_from_loopback: bool = True) -> Scorer:
            protocol = guarded_h11(limits, ("127.0.0.1/32",) if lan_from_loopback else None)
            sock = stack.enter_context(socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET))
            if ":" in host:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, 0))
            config = uvicorn.Config(
                APP, http=protocol, lifespan="off", log_level="warning", timeout_graceful_shutdown=2
            )
            server = uvicorn.Server(config)
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
            thread.start()

            @stack.callback
            def stop() -> None:
                server.should_exit = True
                thread.join(WAIT_S)

            assert eventually(lambda: server.started or not thread.is_alive()) and thread.is_alive()
            return Scorer(sock.getsockname()[1], protocol, stack)

        yield start


def eventually(check: Callable[[], bool], timeout_s: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def until_closed(clients: Sequence[Client], trickle: bool) -> list[bytes | None]:
    """Waits for the server to close each of ``clients``, sending each a byte more of its head every TRICKLE_S
    meanwhile if ``trickle``: what the server sent each before closing it (None: still open after WAIT_S)."""
    received = {client: client.buffer for client in clients}
    still_open = set(clients)
    deadline = time.monotonic() + WAIT_S
    while still_open and time.monotonic() < deadline:
        if trickle:
            for client in list(still_open):
                try:
                    client.send(b"a")
                except OSError:  # the server has closed it, and reset it on the byte
                    still_open.discard(client)
        readable, _, _ = select.select(list(still_open), [], [], TRICKLE_S)
        for client in readable:
            try:
                data = client.sock.recv(65536)
            except OSError:
                data = b""
            if data:
                received[client] += data
            else:
                still_open.discard(client)
    return [None if client in still_open else received[client] for client in clients]


def assert_refused(client: Client) -> None:
    """The server answers ``client``, which sent nothing, a short 503 and closes the connection."""
    [answer] = until_closed([client], trickle=False)
    assert answer is not None, "the connection over the cap was kept open"
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, headers = parse_head(head)
    assert status_line == "HTTP/1.1 503 Service Unavailable"
    assert headers["connection"] == "close"
    assert int(headers["retry-after"]) > 0
    assert headers["content-type"] == "text/plain; charset=utf-8"
    assert int(headers["content-length"]) == len(body)
    line = body.decode("ascii").removesuffix("\n")
    assert line.isprintable() and " " in line


def test_a_head_sent_a_byte_at_a_time_is_cut_off_while_others_are_served(serve: Serve) -> None:
    scorer = serve(TIMED)
    started = time.monotonic()
    slow_heads = [scorer.connect(LAN) for _ in range(4)]
    for client in slow_heads:
        client.send(HALF_HEAD)

    response = scorer.connect(LAN).get()
    assert (response.status, response.body) == (200, b"hello")
    assert until_closed(slow_heads, trickle=True) == [b""] * 4  # closed, and with no answer
    assert time.monotonic() - started >= HEAD_TIMEOUT_S


def test_the_deadline_holds_again_after_each_response_on_a_kept_alive_connection(serve: Serve) -> None:
    scorer = serve(TIMED)
    client = scorer.connect(LAN)
    assert client.get().status == 200

    client.send(HALF_HEAD)  # which stops uvicorn's own keep-alive timer, as every byte does
    assert until_closed([client], trickle=True) == [b""]


def test_pipelined_heads_already_in_are_served_and_the_next_is_still_due(serve: Serve) -> None:
    scorer = serve(TIMED)
    client = scorer.connect(LAN)
    client.send(GET_SLOW + GET_SLOW + HALF_HEAD)

    # The second head was in when the first response ended: the deadline started then does not cut off its
    # answer, which takes longer than the deadline.
    assert [client.response().body, client.response().body] == [b"slow", b"slow"]
    assert until_closed([client], trickle=True) == [b""]


def test_a_slow_body_after_a_whole_head_is_not_cut_off(serve: Serve) -> None:
    scorer = serve(TIMED)
    uploading = scorer.connect(LAN)
    uploading.send(b"POST /echo HTTP/1.1\r\nHost: scorer\r\nContent-Length: 8\r\n\r\n")
    slow_head = scorer.connect(LAN)
    slow_head.send(HALF_HEAD)
    for _ in range(7):
        uploading.send(b"x")
        time.sleep(TRICKLE_S)

    # The slow head, which came after the upload's, is cut off: so the upload's would have been by now.
    assert until_closed([slow_head], trickle=True) == [b""]
    uploading.send(b"x")
    response = uploading.response()
    assert (response.status, response.body) == (200, b"x" * 8)


def test_a_client_over_its_cap_is_refused_while_others_are_served(serve: Serve) -> None:
    scorer = serve(ConnectionLimits(per_client=2, total=8, loopback=4, head_timeout_s=UNTIMED_S))
    first, second = scorer.connect(LAN), scorer.connect(LAN)
    assert [first.get().status, second.get().status] == [200, 200]  # answered, so counted

    assert_refused(scorer.connect(LAN))
    assert scorer.connect(OTHER_LAN).get().status == 200

    first.close()
    assert eventually(lambda: scorer.counts.per_client[LAN] == 1)
    assert scorer.connect(LAN).get().status == 200
    assert_refused(scorer.connect(LAN))


def test_the_lan_at_its_total_makes_room_from_those_that_only_wait(serve: Serve) -> None:
    scorer = serve(ConnectionLimits(per_client=3, total=4, loopback=2, head_timeout_s=UNTIMED_S))
    counts = scorer.counts
    HOLD.clear()
    busy = [scorer.connect(LAN) for _ in range(3)] + [scorer.connect(OTHER_LAN)]
    try:
        for client in busy:
            client.send(GET_HOLD)
        assert eventually(lambda: counts.lan == 4 and not counts.waiting)
        # Every place of the LAN is busy with a request: a client with no connection yet is refused.
        assert_refused(scorer.connect(THIRD_LAN))
        kiosk = [scorer.connect(PI), scorer.connect(PI)]
        assert [client.get().status for client in kiosk] == [200, 200]
        assert_refused(scorer.connect(PI))  # loopback's reserve has its own cap
    finally:
        HOLD.set()
    assert [client.response().status for client in busy] == [200] * 4
    # Now those connections only wait for a next request: the client holding the most gives one up.
    newcomer = scorer.connect(THIRD_LAN)
    assert newcomer.get().status == 200
    assert eventually(lambda: (counts.per_client[LAN], counts.per_client[OTHER_LAN], counts.lan) == (2, 1, 4))
    # One of the first client's connections was closed to make room; the others still serve it.
    served: list[int | None] = []
    for client in busy[:3]:
        try:
            served.append(client.get().status)
        except OSError:
            served.append(None)
    assert sorted(served, key=str) == [200, 200, None]


def test_counts_return_to_zero_however_connections_end(serve: Serve) -> None:
    scorer = serve(ConnectionLimits(per_client=2, total=8, loopback=4, head_timeout_s=HEAD_TIMEOUT_S))
    counts = scorer.counts
    answered, timed_out, kiosk = scorer.connect(LAN), scorer.connect(LAN), scorer.connect(PI)
    assert [answered.get().status, timed_out.get().status, kiosk.get().status] == [200] * 3
    assert_refused(scorer.connect(LAN))
    cut_short = scorer.connect(OTHER_LAN)
    cut_short.send(GET_SLOW)
    assert eventually(lambda: counts.per_client == Counter({LAN: 2, OTHER_LAN: 1, PI: 1}))
    assert (counts.lan, counts.loopback) == (3, 1)
    assert guarded_h11(TIMED).open_connections == OpenConnections()  # another server's are its own
    # Handed over to uvicorn's WebSocket protocol, whose end this protocol does not see.
    upgraded = scorer.connect(OTHER_LAN)
    upgraded.send(
        b"GET /ws HTTP/1.1\r\nHost: scorer\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )

    answered.close()  # by the client
    kiosk.reset()
    cut_short.close()  # before its answer
    timed_out.send(HALF_HEAD)
    assert until_closed([timed_out], trickle=False) == [b""]  # by the head deadline
    assert until_closed([upgraded], trickle=False)[0] is not None  # the app has no WebSocket route

    assert eventually(lambda: counts == OpenConnections()), counts


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not has_ipv6_loopback(), reason="no IPv6 loopback here")
def test_ipv4_mapped_and_ipv6_loopback_clients_are_loopback(serve: Serve) -> None:
    scorer = serve(
        ConnectionLimits(per_client=1, total=1, loopback=2, head_timeout_s=UNTIMED_S),
        host="::",
        lan_from_loopback=False,
    )
    mapped = scorer.connect(PI)  # to a dual-stack socket, which sees it as ::ffff:127.0.0.1
    ipv6 = scorer.connect("::1")
    assert [mapped.get().status, ipv6.get().status] == [200, 200]
    assert scorer.counts == OpenConnections(Counter({PI: 1, "::1": 1}), lan=0, loopback=2)


@pytest.mark.parametrize(
    "wrong",
    [
        {"per_client": 0},
        {"total": 0},
        {"loopback": -1},
        {"per_client": 10, "total": 5},
        {"head_timeout_s": 0.0},
        {"head_timeout_s": float("nan")},
        {"head_timeout_s": float("inf")},
    ],
)
def test_limits_no_server_could_keep_are_refused(wrong: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ConnectionLimits(**wrong)
