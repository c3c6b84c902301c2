"""Places for requests that hold something while they run (a body being received, an endless stream): at
most so many from one address and so many in all, so that one client, or a few, cannot take them all."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from ipaddress import IPv6Address, ip_address, ip_network


def client_key(host: str) -> str:
    """Whom a request's address counts as: an IPv4 address (also mapped into IPv6) itself; an IPv6 one its
    /64 network, from which one device may take new addresses at will (privacy addresses)."""
    try:
        address = ip_address(host)
    except ValueError:
        return host
    if isinstance(address, IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        if not address.is_loopback:
            return str(ip_network(f"{address}/64", strict=False))
    return str(address)


class Busy(Exception):
    """Every place is taken (:class:`Places`)."""


class Places:
    """Places for requests, at most ``per_client`` from one address and ``total`` in all."""

    def __init__(self, per_client: int, total: int) -> None:
        if not 1 <= per_client <= total:
            raise ValueError(f"places: need 1 <= per_client <= total, not {per_client} and {total}")
        self.per_client = per_client
        self.total = total
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}

    @contextmanager
    def place(self, client: str) -> Iterator[None]:
        """One place for ``client``, held while the block runs; :class:`Busy` when none is left. Taken in one
        step under a lock, so that requests arriving together cannot all pass the check first."""
        with self._lock:
            if self._held.get(client, 0) >= self.per_client or sum(self._held.values()) >= self.total:
                raise Busy
            self._held[client] = self._held.get(client, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._held[client] -= 1
                if not self._held[client]:
                    del self._held[client]

    def held(self, client: str | None = None) -> int:
        """The places held by ``client``, or by all."""
        with self._lock:
            return self._held.get(client, 0) if client is not None else sum(self._held.values())
