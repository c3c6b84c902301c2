"""``--mqtt mqtt://[USER@]HOST[:PORT]`` (or ``mqtts://`` with TLS), the table's name and password, checked.

The password never goes on a command line (``ps`` shows it to every user of the machine) nor into the URL: it
is read from a file (``--mqtt-password-file``) or systemd's ``mqtt-password`` credential.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from device.mqtt.topics import check_table

PORTS = {"mqtt": 1883, "mqtts": 8883}
# systemd's name for the password's file (LoadCredential=mqtt-password:/etc/garden-scorer/mqtt-password).
PASSWORD_CREDENTIAL = "mqtt-password"


@dataclass(frozen=True)
class MqttSettings:
    """Where the broker is and who this client is on it."""

    host: str
    port: int
    tls: bool
    user: str | None = None
    password: str | None = None
    ca_file: Path | None = None
    """The authority the broker's certificate is checked against (mqtts://); None: the system's."""

    @classmethod
    def from_url(
        cls, url: str, password_file: Path | None = None, ca_file: Path | None = None
    ) -> MqttSettings:
        """The settings ``url`` names; ValueError, saying what to write instead, for one that names none."""
        parts = urlsplit(url)
        if parts.scheme not in PORTS:
            raise ValueError(
                f"--mqtt {url!r}: give the broker as mqtt://HOST or mqtts://HOST (TLS), with USER@ and :PORT "
                "when needed, e.g. mqtt://table-3@broker.local"
            )
        if parts.password is not None:
            raise ValueError(
                "--mqtt: the password does not go in the address (anyone on this machine can read a command "
                "line): put it in a file and give --mqtt-password-file, or systemd's mqtt-password credential"
            )
        if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"--mqtt {url!r}: give only the broker's host, e.g. mqtt://broker.local:1883")
        try:
            port = parts.port or PORTS[parts.scheme]
        except ValueError:
            raise ValueError(f"--mqtt {url!r}: the port must be a number from 1 to 65535") from None
        if ca_file is not None and parts.scheme != "mqtts":
            raise ValueError("--mqtt-ca is for a broker reached over TLS: write mqtts:// in --mqtt")
        password = read_password(password_file) if password_file is not None else None
        user = unquote(parts.username) if parts.username else None
        if password is not None and user is None:
            raise ValueError("--mqtt: a password needs a user name too: mqtt://USER@HOST")
        return cls(parts.hostname, port, parts.scheme == "mqtts", user, password, ca_file)

    def where(self) -> str:
        """The broker's address as the log and the set-up page say it (no password)."""
        user = f"{self.user}@" if self.user else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def read_password(path: Path) -> str:
    """The password in ``path`` (its one line, the newline after it dropped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the MQTT password file {path}: {exc}") from None
    password = text.removesuffix("\n").removesuffix("\r")
    if not password or "\n" in password:
        raise ValueError(f"the MQTT password file {path} must hold the password alone, on one line")
    return password


def table_name(name: str) -> str:
    """``--table``'s value, checked (:func:`device.mqtt.topics.check_table`), with the option named."""
    try:
        return check_table(name)
    except ValueError as exc:
        raise ValueError(f"--table: {exc}") from None
