"""Telling systemd how the service is doing (sd_notify): ready, still alive, stopping.

With ``Type=notify`` systemd counts the service started only once it says ``READY=1``, so units after it
(the TV's browser) find the app answering; with ``WatchdogSec=`` it restarts a service that stops saying
``WATCHDOG=1`` in time, which is how a hung camera read or scorer is got out of. The protocol is one
datagram of ``KEY=value`` lines to the AF_UNIX socket named in ``$NOTIFY_SOCKET`` (a name starting with "@"
is in the abstract namespace), so it needs no library. Outside systemd there is no ``$NOTIFY_SOCKET`` and
nothing is sent.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Systemd:
    """Where to send notifications (None: not run by systemd) and the watchdog's period (None: no watchdog).

    The watchdog restarts the service when ``watchdog_s`` seconds pass without ``WATCHDOG=1``.
    """

    notify_socket: str | None
    watchdog_s: float | None

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None, pid: int | None = None) -> Systemd:
        """What systemd set for this process (``env``: os.environ; ``pid``: this process's)."""
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET") or None
        if address is not None and not address.startswith(("/", "@")):
            # systemd also knows vsock: addresses, for virtual machines; not needed on a Pi.
            logger.warning("NOTIFY_SOCKET=%s is not a Unix socket: systemd is not notified", address)
            address = None
        usec = env.get("WATCHDOG_USEC", "")
        # WATCHDOG_PID names the process the watchdog is for: a child that inherited it must not answer.
        watched = env.get("WATCHDOG_PID", "")
        for_us = not watched or watched == str(os.getpid() if pid is None else pid)
        watchdog_s = int(usec) / 1e6 if usec.isdigit() and int(usec) > 0 and for_us else None
        return cls(address, watchdog_s)

    def notify(self, *states: str) -> bool:
        """Sends ``states`` (e.g. "READY=1"); False when not run by systemd or the message was not taken.

        A message that cannot be sent is logged, never raised: the app runs the same without systemd.
        """
        if self.notify_socket is None:
            return False
        address = "\0" + self.notify_socket[1:] if self.notify_socket.startswith("@") else self.notify_socket
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto("\n".join(states).encode(), address)
        except OSError as exc:
            logger.warning("could not tell systemd %s: %s", ", ".join(states), exc)
            return False
        return True


async def supervise(
    systemd: Systemd,
    started: Callable[[], bool],
    stopping: Callable[[], bool],
    healthy: Callable[[], bool],
    *,
    poll_s: float = 0.2,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> None:
    """Says READY=1 once ``started()``, WATCHDOG=1 every half watchdog period while ``healthy()``, and
    STOPPING=1 once ``stopping()``, then returns.

    Run as a task in the web server's event loop, so that a blocked loop stops the pings as a stuck live loop
    does (``healthy``). While unhealthy it asks again at every poll, so the ping goes the moment it recovers.
    """
    while not started():
        if stopping():
            systemd.notify("STOPPING=1")
            return
        await sleep(poll_s)
    systemd.notify("READY=1")
    due = clock()
    stuck = False
    while not stopping():
        if systemd.watchdog_s is not None and clock() >= due:
            if healthy():
                systemd.notify("WATCHDOG=1")
                due = clock() + systemd.watchdog_s / 2
                if stuck:
                    logger.warning("the live loop is moving again")
                stuck = False
            elif not stuck:
                stuck = True
                logger.error("the live loop is stuck: systemd's watchdog will restart the service")
        await sleep(poll_s)
    systemd.notify("STOPPING=1")
