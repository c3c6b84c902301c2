"""Connection guards for uvicorn's HTTP/1.1 server: a deadline on every request head and caps on open
connections, per client and in all.

They defend against slowloris: a client opens many connections and sends each one's request head a byte at
a time. uvicorn waits for a head for ever (its keep-alive timer is armed only after a response, and any byte
cancels it) and takes any number of connections from anybody, so about a thousand such connections use up
the process's file descriptors: other requests time out and accepting fails with EMFILE.

So the request line and headers must arrive in full within ``head_timeout_s`` of the connection being made,
and again of each response's end on a kept-alive connection, or the connection is closed; what follows a
whole head (the body, the app's answer) is left alone. A connection over a cap is answered a short 503 and
closed before anything is read, so it holds its descriptor only for a moment. When the LAN's total is
reached, a new client still gets in where a connection only waits for a head (a slow one, or a kept-alive
one idle): that of the client holding the most connections is closed to make room, as a server drops idle
connections when it runs short of them. A slowloris from many addresses then churns through its own
connections while phones keep getting in.

The numbers: a phone's browser opens up to 6 connections to one host and a home has a few phones, so 32 per
client address leave one device room for several tabs and browsers, and 256 from the LAN together leave a
houseful of them room (a device with many addresses, as IPv6 allows, is held by that total). The kiosk's
browser runs on the Pi itself: loopback clients get 64 of their own that nobody on the LAN can take. At most
256 + 64 = 320 connections then stay well under the Pi's default soft limit of 1024 open files, which the
app's own files and the refused connections' moments share. A head is a few hundred bytes, sent in well
under a second even over poor Wi-Fi: 10 s is ample for it and makes an attacker start again every 10 s.

Over TLS the protocol only sees a connection once its handshake is done, so these guards start there; the
handshake itself is bounded by asyncio's own timeout (60 s).
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from device.web.places import client_key

RETRY_AFTER_S = 5


def _refusal(message: str) -> bytes:
    """A whole 503 response saying ``message`` in one line, to send just before closing the connection."""
    body = f"{message}\n".encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Retry-After: {RETRY_AFTER_S}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


TOO_MANY_FROM_CLIENT = _refusal(
    "This device has too many connections open to the scorer; close a few pages and try again in a moment."
)
TOO_MANY = _refusal("The scorer has too many connections open; try again in a moment.")


@dataclass(frozen=True)
class ConnectionLimits:
    """How many connections the server keeps open, and how long a request head may take to arrive.

    ``per_client``: from one client address; ``total``: from all clients but loopback ones together;
    ``loopback``: from this machine's clients together, a reserve of their own; ``head_timeout_s``: from a
    connection's start, and from each response's end, until the next request line and headers are in.
    """

    per_client: int = 32
    total: int = 256
    loopback: int = 64
    head_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        caps = {"per_client": self.per_client, "total": self.total, "loopback": self.loopback}
        for name, cap in caps.items():
            if cap < 1:
                raise ValueError(f"{name} must be at least 1, not {cap}")
        if self.per_client > self.total:
            raise ValueError(f"per_client ({self.per_client}) cannot be more than total ({self.total})")
        if not (0 < self.head_timeout_s < math.inf):
            raise ValueError(f"head_timeout_s must be a positive, finite time, not {self.head_timeout_s}")


@dataclass
class OpenConnections:
    """The connections a server holds open: per client address, and from the LAN and loopback together;
    and those from the LAN that wait for a request head, oldest first (:meth:`evictable`)."""

    per_client: Counter[str] = field(default_factory=Counter)
    lan: int = 0
    loopback: int = 0
    waiting: dict[GuardedH11Protocol, str] = field(default_factory=dict)

    def evictable(self) -> GuardedH11Protocol | None:
        """The connection to close so that a new one from the LAN may come in when all are taken: one that
        waits for its head (a slow one, or a kept-alive one idle), of the client that holds the most, the
        oldest of them; None when every connection is busy with a request."""
        if not self.waiting:
            return None
        most = max(self.per_client[client] for client in self.waiting.values())
        return next(c for c, client in self.waiting.items() if self.per_client[client] == most)

    def admit(self, client: str, loopback: bool, limits: ConnectionLimits) -> bytes | None:
        """Counts a new connection from ``client`` and returns None, or returns the refusal to send it if it
        would be over a cap (and counts nothing)."""
        if self.per_client[client] >= limits.per_client:
            return TOO_MANY_FROM_CLIENT
        if loopback:
            if self.loopback >= limits.loopback:
                return TOO_MANY
            self.loopback += 1
        else:
            if self.lan >= limits.total:
                return TOO_MANY
            self.lan += 1
        self.per_client[client] += 1
        return None

    def release(self, client: str, loopback: bool) -> None:
        """Gives back the place of a connection :meth:`admit` counted."""
        self.per_client[client] -= 1
        if not self.per_client[client]:
            del self.per_client[client]
        if loopback:
            self.loopback -= 1
        else:
            self.lan -= 1


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on every request head and caps on open connections.

    Made by :func:`guarded_h11`, which gives each subclass its ``limits`` and counts (``open_connections``).
    """

    limits: ClassVar[ConnectionLimits]
    open_connections: ClassVar[OpenConnections]
    # The clients on this machine, with loopback's own reserve (tests narrow it, so that other loopback
    # addresses can stand for phones on the LAN).
    loopback_networks: ClassVar[tuple[IPv4Network | IPv6Network, ...]] = (
        ip_network("127.0.0.0/8"),
        ip_network("::1/128"),
    )

    # Per connection: the pending head deadline, and how the connection was counted (None: not, or no longer).
    _head_deadline: asyncio.TimerHandle | None = None
    _counted_as: tuple[str, bool] | None = None

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        # Admits or refuses the connection before anything is read, and starts the first head's deadline.
        super().connection_made(transport)
        client, loopback = self._client()
        refusal = self.open_connections.admit(client, loopback, self.limits)
        victim = self.open_connections.evictable() if refusal is TOO_MANY and not loopback else None
        if victim is not None:
            # The LAN's places are all taken, some by connections that only wait: the one a slowloris is most
            # likely to hold makes room, as a server drops an idle connection when it runs out of them.
            victim.evict()
            refusal = self.open_connections.admit(client, loopback, self.limits)
        if refusal is not None:
            transport.write(refusal)
            transport.close()
            return
        self._counted_as = (client, loopback)
        self._start_head_deadline()

    def handle_events(self) -> None:
        # Every request head is parsed here, from data_received and, for a pipelined one already buffered,
        # from on_response_complete; uvicorn makes a new scope for each (a WebSocket upgrade's too).
        scope = self.scope
        super().handle_events()
        if self.scope is not scope:
            self._stop_head_deadline()

    def on_response_complete(self) -> None:
        # A kept-alive connection's next head is due within the deadline of this response's end. Started
        # before uvicorn's own code runs, which parses a pipelined head already buffered (and so stops it).
        if not self.transport.is_closing():
            self._start_head_deadline()
        super().on_response_complete()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The connection goes over to the WebSocket protocol, whose connection_lost is called instead of ours:
        # its place is given back here, as uvicorn stops counting it here too.
        self._release()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        # The one place every connection ends: its deadline stopped and its place given back, exactly once.
        self._stop_head_deadline()
        self._release()
        super().connection_lost(exc)

    def _client(self) -> tuple[str, bool]:
        """Whom the client counts as (``places.client_key``: an IPv6 one by its /64) and whether it is
        loopback."""
        if self.client is None:  # a Unix socket (only this machine reaches one), or a client gone already
            return "", True
        address = ip_address(self.client[0])
        if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        loopback = any(address in network for network in self.loopback_networks)
        return client_key(str(address)), loopback

    def evict(self) -> None:
        """Close this connection, which waits for a head, to make room: its place is given back now."""
        self._stop_head_deadline()
        self._release()
        self.timeout_keep_alive_handler()

    def _start_head_deadline(self) -> None:
        self._stop_head_deadline()
        # Closed as uvicorn closes an idle kept-alive connection.
        close = self.timeout_keep_alive_handler
        self._head_deadline = self.loop.call_later(self.limits.head_timeout_s, close)
        if self._counted_as is not None and not self._counted_as[1]:
            self.open_connections.waiting[self] = self._counted_as[0]

    def _stop_head_deadline(self) -> None:
        self.open_connections.waiting.pop(self, None)
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _release(self) -> None:
        if self._counted_as is not None:
            self.open_connections.release(*self._counted_as)
            self._counted_as = None


def guarded_h11(limits: ConnectionLimits, local: tuple[str, ...] | None = None) -> type[GuardedH11Protocol]:
    """uvicorn's HTTP/1.1 protocol guarded by ``limits``, for ``uvicorn.Config(http=...)``: a class of its own
    with counts of its own, so that two servers in one process never share them. ``local``: the networks of
    this machine's own clients (default: loopback), which a lab narrows to stand other loopback addresses
    for phones on the LAN."""

    class Guarded(GuardedH11Protocol):
        pass

    Guarded.limits = limits
    Guarded.open_connections = OpenConnections()
    if local is not None:
        Guarded.loopback_networks = tuple(ip_network(network) for network in local)
    return Guarded
