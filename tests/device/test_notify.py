"""sd_notify: messages reach a real datagram socket (a path or an abstract name), and the supervisor says
READY, WATCHDOG (only while healthy) and STOPPING at the right moments of a fake clock."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.notify import Systemd, supervise


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """systemd's end: a datagram socket in tmp_path, and its name as $NOTIFY_SOCKET gives it."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.setblocking(False)
        yield sock, str(path)


def _received(sock: socket.socket) -> list[str]:
    messages = []
    while True:
        try:
            messages.append(sock.recv(4096).decode())
        except BlockingIOError:
            return messages


def test_messages_reach_the_notify_socket(receiver: tuple[socket.socket, str]) -> None:
    sock, name = receiver
    systemd = Systemd.from_environment({"NOTIFY_SOCKET": name})
    assert systemd.notify("READY=1", "STATUS=serving")
    assert _received(sock) == ["READY=1\nSTATUS=serving"]


def test_an_abstract_socket_is_named_with_an_at_sign() -> None:
    name = f"garden-scorer-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.setblocking(False)
        assert Systemd.from_environment({"NOTIFY_SOCKET": "@" + name}).notify("WATCHDOG=1")
        assert _received(sock) == ["WATCHDOG=1"]


def test_without_systemd_or_its_socket_nothing_is_sent_and_nothing_fails(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert not Systemd.from_environment({}).notify("READY=1")
    assert Systemd.from_environment({"NOTIFY_SOCKET": "vsock:2:1234"}).notify_socket is None
    gone = Systemd.from_environment({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert not gone.notify("READY=1")
    assert "could not tell systemd READY=1" in caplog.text


def test_the_watchdog_period_is_for_this_process_only() -> None:
    env = {"NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "60000000"}
    assert Systemd.from_environment(env).watchdog_s == 60.0
    assert Systemd.from_environment({**env, "WATCHDOG_PID": str(os.getpid())}).watchdog_s == 60.0
    # Inherited by a child process: the watchdog is its parent's business.
    assert Systemd.from_environment({**env, "WATCHDOG_PID": "1"}, pid=2).watchdog_s is None
    assert Systemd.from_environment({**env, "WATCHDOG_USEC": "0"}).watchdog_s is None
    assert Systemd.from_environment({"NOTIFY_SOCKET": "/run/systemd/notify"}).watchdog_s is None


def _supervised(
    sock: socket.socket, systemd: Systemd, started_at: float, stopping_at: float, stuck: tuple[float, float]
) -> list[tuple[float, str]]:
    """Runs the supervisor on a fake clock that one poll moves on by 1 s; the messages and when they came."""
    now = 0.0
    timeline: list[tuple[float, str]] = []

    async def sleep(seconds: float) -> None:
        nonlocal now
        timeline.extend((now, message) for message in _received(sock))
        now += seconds

    asyncio.run(
        supervise(
            systemd,
            started=lambda: now >= started_at,
            stopping=lambda: now >= stopping_at,
            healthy=lambda: not stuck[0] <= now < stuck[1],
            poll_s=1.0,
            clock=lambda: now,
            sleep=sleep,
        )
    )
    return timeline + [(now, message) for message in _received(sock)]


def test_ready_then_pings_at_half_the_period_while_healthy_then_stopping(
    receiver: tuple[socket.socket, str], caplog: pytest.LogCaptureFixture
) -> None:
    sock, name = receiver
    systemd = Systemd(name, watchdog_s=10.0)
    timeline = _supervised(sock, systemd, started_at=1, stopping_at=30, stuck=(12, 20))
    assert timeline == [
        (1, "READY=1"),
        (1, "WATCHDOG=1"),
        (6, "WATCHDOG=1"),
        (11, "WATCHDOG=1"),
        # Stuck from 12 s: no ping at 16 s; the ping goes as soon as the loop moves again.
        (20, "WATCHDOG=1"),
        (25, "WATCHDOG=1"),
        (30, "STOPPING=1"),
    ]
    assert caplog.text.count("the live loop is stuck") == 1


def test_no_pings_without_a_watchdog_and_no_ready_when_stopped_before_starting(
    receiver: tuple[socket.socket, str],
) -> None:
    sock, name = receiver
    timeline = _supervised(sock, Systemd(name, None), started_at=2, stopping_at=9, stuck=(0, 0))
    assert timeline == [(2, "READY=1"), (9, "STOPPING=1")]
    timeline = _supervised(sock, Systemd(name, 10.0), started_at=5, stopping_at=3, stuck=(0, 0))
    assert timeline == [(3, "STOPPING=1")]
