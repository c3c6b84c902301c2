"""Debian's mosquitto, run for a measurement or a test: on a free loopback port, in a folder of its own.

It keeps its retained messages and its clients' queued ones across a restart (``persistence``), as a broker
run by systemd does, so a run can restart it mid-game.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
STARTUP_S = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def have_mosquitto() -> bool:
    return Path(MOSQUITTO).is_file() and os.access(MOSQUITTO, os.X_OK)


class Broker:
    """mosquitto on 127.0.0.1:``port``; ``extra`` lines are added to its configuration (users, ACLs)."""

    def __init__(self, folder: Path, extra: str = "") -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = folder / "mosquitto.conf"
        (folder / "data").mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            # Started as root (CI), mosquitto would become the user "mosquitto", who may not write here.
            f"user {getpass.getuser()}\n"
            f"listener {self.port} 127.0.0.1\n"
            f"{extra if extra else 'allow_anonymous true'}\n"
            "persistence true\n"
            f"persistence_location {folder / 'data'}/\n"
            f"log_dest file {folder / 'mosquitto.log'}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto stopped at once: {self.process.stderr.read().decode()}")  # type: ignore[union-attr]
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {STARTUP_S:.0f} s")

    def stop(self) -> None:
        """Stopped as systemd stops it (SIGTERM): it saves what it holds first."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STARTUP_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()
