"""``serve --mqtt``: the command line and the systemd unit's settings as the service runs them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from device.cli import build_parser, mqtt_settings

SYSTEMD = Path(__file__).parents[3] / "systemd"


def _exec_start(settings: dict[str, str], unit: str = "garden-scorer") -> list[str]:
    """The unit's ExecStart as systemd runs it with the settings file's values (``settings`` changed): each
    ``${NAME}`` one argument, empty when the setting is."""
    defaults = dict(
        re.findall(r"^(GARDEN_SCORER_\w+)=(.*)$", (SYSTEMD / f"{unit}.default").read_text(), re.M)
    )
    defaults.update(settings)
    line = next(
        line
        for line in (SYSTEMD / f"{unit}.service").read_text().splitlines()
        if line.startswith("ExecStart=")
    )
    words = shlex.split(line.removeprefix("ExecStart="))
    return [re.sub(r"\$\{(\w+)\}", lambda m: defaults.get(m.group(1), ""), word) for word in words][1:]


def test_the_service_as_shipped_has_no_broker() -> None:
    args = build_parser().parse_args(_exec_start({}))
    assert mqtt_settings(args) is None and not args.table


def test_the_service_with_a_broker_reads_its_password_from_systemds_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mqtt-password").write_text("s3cret\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    argv = _exec_start({"GARDEN_SCORER_MQTT": "mqtt://table-3@hall.local", "GARDEN_SCORER_TABLE": "table-3"})
    args = build_parser().parse_args(argv)
    settings = mqtt_settings(args)
    assert settings is not None
    assert (settings.host, settings.user, settings.password, args.table) == (
        "hall.local",
        "table-3",
        "s3cret",
        "table-3",
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--mqtt-password-file", "/x"], "give --mqtt too"),
        (["--mqtt-ca", "/x"], "give --mqtt too"),
        (["--mqtt", "mqtt://u:p@h"], "does not go in the address"),
    ],
)
def test_broker_options_that_cannot_work_are_refused_before_starting(argv: list[str], said: str) -> None:
    args = build_parser().parse_args(["serve", *argv])
    with pytest.raises(ValueError, match=said):
        mqtt_settings(args)


def test_serve_says_what_is_missing_for_a_table_on_a_broker(capsys: pytest.CaptureFixture[str]) -> None:
    from device.cli import main

    assert main(["serve", "--mqtt", "mqtt://hall.local"]) != 0
    assert "--table NAME" in capsys.readouterr().err
    assert main(["serve", "--mqtt", "mqtt://hall.local", "--table", "Table 3"]) != 0
    assert "lowercase letters" in capsys.readouterr().err


def test_the_halls_service_runs_the_hall_with_its_settings_and_its_password_as_a_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unit = (SYSTEMD / "garden-scorer-hall.service").read_text()
    assert "LoadCredential=mqtt-password:/etc/garden-scorer/hall-password" in unit
    (tmp_path / "mqtt-password").write_text("hall-secret\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    args = build_parser().parse_args(_exec_start({}, "garden-scorer-hall"))
    settings = mqtt_settings(args)
    assert settings is not None
    assert (args.func.__name__, settings.user, settings.password, settings.host) == (
        "cmd_hall",
        "hall",
        "hall-secret",
        "localhost",
    )
    assert (args.host, args.port, args.evening_hours, args.allowed_host) == ("0.0.0.0", 8090, 12.0, [""])
