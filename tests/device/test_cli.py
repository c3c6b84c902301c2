from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from device.cli import main
from scoring.core import ScoreBreakdown
from scoring.registry import get_game
from tests.support import EXAMPLES, ROOT


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_state_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score-state", str(EXAMPLES / "alices-garden.json"))
    assert code == 0
    assert "Alice's Garden" in out
    assert out.rstrip().splitlines()[-1].split() == ["Total", "97"]


def test_score_state_json_for_a_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score-state", str(EXAMPLES / "alices-garden.json"), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["game"] == "alices-garden"
    assert data["total"] == 97
    assert [line["points"] for line in data["lines"]] == [45, 26, 24, 17, -15, 0]
    assert all({"rule", "detail", "points"} <= set(line) for line in data["lines"])


def test_score_state_json_for_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score-state", str(EXAMPLES / "sanssouci.json"), "--json")
    data = json.loads(out)
    assert code == 0
    assert [(p["player"], p["total"], p["rank"]) for p in data["players"]] == [
        ("Ann", 63, 2),
        ("Bruno", 63, 1),
    ]
    assert data["players"][1]["tiebreak"] == {"rule": "more gardener tiles", "values": [2]}


def test_table_text_has_standings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score-state", str(EXAMPLES / "four-gardens.json"))
    assert code == 0
    assert "Standings\n1. Cleo: 20" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"game": "go"}', "unknown game 'go'"),
        ('{"game": "alices-garden", "rows": ["RR"]}', "rows: expected 6 rows, got 1"),
        ('{"game": "alices-garden", "rows": ["RRRRRRRX"]', "malformed JSON at line 1"),
        ('{"game": "sanssouci", "rows": [1]}', r"rows[0]: expected a string"),
        (b"\xff\xfe", "not UTF-8 text"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "this is a photo, not a state file"),
        (b"\x00\x00\x00\x18ftypheic", "give the photo first"),
    ],
)
def test_bad_input_exits_non_zero_without_a_score(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | bytes, message: str
) -> None:
    path = tmp_path / "state.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    code, out, err = run(capsys, "score-state", str(path))
    assert code == 2
    assert out == ""
    assert message in err


def test_missing_and_huge_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "score-state", str(tmp_path / "nope.json"))
    assert code == 2
    assert "cannot read the state file" in err
    code, _, err = run(capsys, "score-state", str(tmp_path))
    assert code == 2
    assert "not a file" in err
    huge = tmp_path / "huge.json"
    huge.write_text(" " * 1_000_001)
    code, _, err = run(capsys, "score-state", str(huge))
    assert code == 2
    assert "too large" in err


def test_demo_scores_every_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo")
    assert code == 0
    for title in ("Alice's Garden", "Sanssouci", "Zen Garden", "Four Gardens", "Tang Garden", "Kingdomino"):
        assert title in out
    # The example photos are read as on a calibrated table: those of games the models read well come out
    # sure, with nothing flagged for the player to check.
    lines = out.splitlines()
    for name in ("alices-garden", "sanssouci", "four-gardens"):
        (at,) = [i for i, line in enumerate(lines) if line.startswith(f"Photo {name}.jpg:")]
        assert float(lines[at].rsplit(" ", 1)[1]) > 0.9, lines[at]
        assert not lines[at + 1].startswith("  !"), lines[at + 1]
    # The drawn kingdom is in art the model reads less surely than the real tiles it learnt (a square near
    # the "check this cell" line, flagged or not by a hair): its score is the one its truth gives.
    truth = json.loads((ROOT / "examples" / "photos" / "kingdomino.json").read_text())["boards"][0]["state"]
    rules = get_game("kingdomino")
    breakdown = rules.score(rules.parse(truth))
    assert isinstance(breakdown, ScoreBreakdown)
    (at,) = [i for i, line in enumerate(lines) if line.startswith("Photo kingdomino.jpg:")]
    scored = next(line for line in lines[at:] if line.startswith("Total"))
    assert scored.split()[-1] == str(breakdown.total)
    # A table's photo names each of its boards, not the photo twice.
    assert [line.split(":")[0] for line in lines if line.startswith("Photo zen-garden.jpg")] == [
        "Photo zen-garden.jpg, board 1 of 2",
        "Photo zen-garden.jpg, board 2 of 2",
    ]
    # Photos of one board from two sides are read together, and the slant of the first is not flagged, as
    # the second was taken from above.
    pair = "Photos tang-garden-1.jpg and tang-garden-2.jpg, read together"
    (at,) = [i for i, line in enumerate(lines) if line.startswith(pair)]
    flags = [line for line in lines[at + 1 : at + 8] if line.startswith("  !")]
    assert flags and not any("degrees off straight above" in line for line in flags)


def test_console_entry_point_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "device.cli", "score-state", "--json", str(EXAMPLES / "four-gardens.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["game"] == "four-gardens"


def test_output_cut_short_by_its_reader_ends_quietly() -> None:
    # `score-state ... --json | head`: the reader has gone before the table is written.
    example = str(EXAMPLES / "tang-garden.json")
    command = [sys.executable, "-m", "device.cli", "score-state", "--json", example]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as done:
        assert done.stdout is not None and done.stderr is not None
        done.stdout.close()
        err = done.stderr.read().decode()
        done.wait()
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_help_lists_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = capsys.readouterr().out
    assert all(game in out for game in ("alices-garden", "four-gardens", "kingdomino", "custom-grid"))


def test_score_exits_non_zero_when_no_board_could_be_scored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Sanssouci's board is read, but its missions are not typed in: shown, not scored.
    photo = str(ROOT / "examples" / "photos" / "sanssouci.jpg")
    code = main(["score", photo, "--game", "sanssouci", "--json"])
    (board,) = json.loads(capsys.readouterr().out)["boards"]
    assert board["total"] is None and code == 1
    code = main(["score", photo, "--game", "sanssouci", "--set", "missions=[1,6]", "--set", "track_score=50"])
    assert code == 0 and "Total" in capsys.readouterr().out


def _serve(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str
) -> tuple[int, list[object], str]:
    """Runs ``serve`` up to starting the server (not started): the exit code, the options it got, stderr."""
    import device.serve

    started: list[object] = []
    monkeypatch.setattr(device.serve, "serve", lambda _state, options: started.append(options))
    code, _, err = run(capsys, "--state-dir", str(tmp_path), "serve", *argv)
    return code, started, err


def test_serve_without_a_camera_serves_uploads_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from device.serve import ServeOptions
    from examples import REPLAY_DIR

    for argv in ((), ("--camera", "none"), ("--camera", "")):
        code, started, _ = _serve(monkeypatch, capsys, tmp_path, *argv)
        assert code == 0 and started == [ServeOptions("alices-garden", None)]
    _, started, _ = _serve(monkeypatch, capsys, tmp_path, "--camera", "demo")
    assert started == [ServeOptions("alices-garden", f"replay:{REPLAY_DIR}")]


def test_serve_takes_tls_host_names_and_a_kiosk_token_file_and_no_pin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from device.serve import ServeOptions

    names = ("--allowed-host", "scorer.lan, garden.home", "--allowed-host", "tv.lan")
    files = ("--tls-cert", "c.pem", "--tls-key", "k.pem", "--kiosk-token-file", "token")
    _, started, _ = _serve(monkeypatch, capsys, tmp_path, *names, *files)
    assert started == [
        ServeOptions(
            "alices-garden",
            None,
            tls_cert=Path("c.pem"),
            tls_key=Path("k.pem"),
            allowed_hosts=("scorer.lan", "garden.home", "tv.lan"),
            kiosk_token_file=Path("token"),
        )
    ]
    # The service passes its settings as they are: empty ones mean not given.
    empty = ("--tls-cert", "", "--tls-key", "", "--allowed-host", "", "--kiosk-token-file", "")
    _, started, _ = _serve(monkeypatch, capsys, tmp_path, *empty)
    assert started == [ServeOptions("alices-garden", None)]
    code, started, err = _serve(monkeypatch, capsys, tmp_path, "--tls-cert", "c.pem")
    assert (code, started) == (2, [])
    assert "error: HTTPS needs both --tls-cert and --tls-key" in err
    with pytest.raises(SystemExit):
        _serve(monkeypatch, capsys, tmp_path, "--pin", "123456")
    assert "unrecognized arguments: --pin" in capsys.readouterr().err


def test_kiosk_page_writes_the_tvs_start_up_page_for_its_user_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.support import run_cli

    token = tmp_path / "kiosk-token"
    token.write_text("Kiosk_token-0123456789abcdef\n")
    page = tmp_path / "run" / "garden-scorer-kiosk.html"
    code, out, _ = run_cli(
        capsys,
        "kiosk-page",
        "--token-file",
        str(token),
        "--url",
        "https://127.0.0.1:8443/",
        "--out",
        str(page),
    )
    assert code == 0 and f"file://{page}" in out
    html = page.read_text()
    # A form that posts the token to the scorer as the page opens; the token in no address.
    assert '<form method="post" action="https://127.0.0.1:8443/kiosk">' in html
    assert '<input type="hidden" name="token" value="Kiosk_token-0123456789abcdef">' in html
    assert 'onload="document.forms[0].submit()"' in html and "?token" not in html
    assert page.stat().st_mode & 0o777 == 0o600
    token.write_text("short")
    code, _, err = run_cli(capsys, "kiosk-page", "--token-file", str(token), "--out", str(page))
    assert code == 2 and "16 or more letters" in err
    token.write_text("Kiosk_token-0123456789abcdef")
    code, _, err = run_cli(
        capsys, "kiosk-page", "--token-file", str(token), "--url", "127.0.0.1:8080", "--out", str(page)
    )
    assert code == 2 and "give the scorer's address" in err
