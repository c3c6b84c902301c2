"""``garden-scorer-lab bench --hall``: many tables, one broker, one hall, for minutes, with faults.

A real mosquitto (lab.mosquitto), a real hall (``garden-scorer hall``, its own process) and ``--tables``
simulated tables (lab.hall_table: each the product's history, live record and publisher in a process of its
own) publishing live scores once a second and a finished game every 20-40 s. During the run the broker is
restarted ``--restarts`` times (as systemd restarts it) and tables are killed with SIGKILL ``--kills`` times,
each started again on its folder a second later, as systemd would.

Measured:

- **latency**: from a table's score (its ``time``) to the hall's event stream, which the page reads
  (``/api/hall/events``): median, p99, worst, over each new score heard (a table going off or on line is an
  event too, its score an old one: not counted); and the same for the scores made away from a broker's
  restart (those made while it was down wait for it by design);
- **memory**: the hall process's resident set, sampled every few seconds: first minute against last;
- **games lost or doubled**: each table's finished games (its ``finished.txt``, their result ids from its
  outbox) against the hall's results: lost (finished, never counted), doubled (counted twice), extra
  (counted, never finished: none expected); and the standings (games, points per player) against those the
  finished games make.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from device.mqtt.outbox import FILE as OUTBOX
from lab.hall_table import FINISHED
from lab.mosquitto import Broker, free_port

HALL_FILE = "hall.sqlite"
START_S = 60.0
SETTLE_S = 90.0  # after the run: tables drain their outboxes and the hall takes the last results
MEMORY_EVERY_S = 5.0
RECONNECT_S = 5.0  # a client's reconnect after the broker is back: 1 s, then 2 s, of back-off


@dataclass
class _Heard:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (score's time, its way to the hall)
    events: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


def _follow(url: str, heard: _Heard) -> None:
    """Reads the hall's event stream as the page does, noting each table's score's way there."""
    while not heard.stop.is_set():
        try:
            client = httpx.Client(timeout=httpx.Timeout(10.0, read=60.0))
            with client, client.stream("GET", f"{url}/api/hall/events") as stream:
                event = ""
                seen: dict[str, str] = {}  # each table's last score: a change of availability alone is none
                for line in stream.iter_lines():
                    if heard.stop.is_set():
                        return
                    if line.startswith("event:"):
                        event = line.partition(":")[2].strip()
                    elif line.startswith("data:") and event == "table":
                        received = time.time()
                        table = json.loads(line.partition(":")[2])["table"]
                        heard.events += 1
                        scored_at = table.get("scored_at")
                        if scored_at and seen.get(table["name"]) != scored_at:
                            seen[table["name"]] = scored_at
                            sent = datetime.fromisoformat(scored_at).timestamp()
                            heard.latencies.append((sent, received - sent))
        except (httpx.HTTPError, OSError):
            time.sleep(0.5)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _truth(folders: list[Path]) -> dict[str, tuple[str, int]]:
    """Every finished game's result id: (table, history game id) by result id."""
    out: dict[str, tuple[str, int]] = {}
    for folder in folders:
        finished = folder / FINISHED
        if not finished.is_file():
            continue
        ids = [int(line) for line in finished.read_text().split()]
        with sqlite3.connect(folder / OUTBOX) as conn:
            known = dict(conn.execute("SELECT game_id, result_id FROM result_ids").fetchall())
        for game_id in ids:
            out[known[game_id]] = (folder.name, game_id)
    return out


def _hall_results(path: Path) -> tuple[Counter[str], dict[str, list[tuple[str | None, int | None]]]]:
    """The hall's results (how often each result id is kept) and each one's seats."""
    with sqlite3.connect(path) as conn:
        counted = Counter(r for (r,) in conn.execute("SELECT result_id FROM results"))
        seats: dict[str, list[tuple[str | None, int | None]]] = {}
        rows = conn.execute(
            "SELECT r.result_id, s.player, s.total FROM results r JOIN seats s ON s.seq = r.seq "
            "ORDER BY r.seq, s.seat"
        )
        for result_id, player, total in rows:
            seats.setdefault(result_id, []).append((player, total))
    return counted, seats


def _expected_standings(folders: list[Path], truth: dict[str, tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """(games, points) per player over the finished games, from each table's own history."""
    out: dict[str, tuple[int, int]] = {}
    for folder in folders:
        ids = {game_id for table, game_id in truth.values() if table == folder.name}
        if not ids:
            continue
        with sqlite3.connect(folder / "history.sqlite") as conn:
            rows = conn.execute("SELECT game_id, player, total FROM boards").fetchall()
        for game_id, player, total in rows:
            if game_id in ids and player:
                games, points = out.get(player, (0, 0))
                out[player] = (games + 1, points + (total or 0))
    return out


def run_hall_bench(
    tables: int,
    seconds: float,
    restarts: int,
    kills: int,
    seed: int,
    report: Callable[[str], None],
    game_s: tuple[int, int] = (20, 40),
    root: Path | None = None,
) -> dict[str, Any]:
    """The run's figures (see the module doc); ``root`` keeps its broker, hall and tables (default: a new
    temporary folder, left for a look at their logs)."""
    rng = random.Random(seed)
    root = root or Path(tempfile.mkdtemp(prefix="bench-hall-"))
    broker = Broker(root / "broker")
    broker.start()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    hall_state = root / "hall"
    env = {**os.environ, "GARDEN_SCORER_STATE_DIR": str(hall_state)}
    hall = subprocess.Popen(
        [sys.executable, "-m", "device.cli", "hall", "--mqtt", broker.url, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(root / "hall.log").open("w"),
    )
    folders = [root / f"t-{n:02d}" for n in range(1, tables + 1)]

    def start_table(folder: Path) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "lab.hall_table", broker.url, folder.name, str(folder), str(seed)]
        command += [str(n) for n in game_s]
        return subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=(folder.parent / f"{folder.name}.log").open("a")
        )

    heard = _Heard()
    memory: list[tuple[float, float]] = []
    outages: list[tuple[float, float]] = []  # each broker restart: (down, up), wall-clock
    procs: dict[Path, subprocess.Popen[bytes]] = {}
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                if httpx.get(f"{url}/api/hall", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or hall.poll() is not None:
                raise RuntimeError(f"the hall did not start: {(root / 'hall.log').read_text()[-2000:]}")
            time.sleep(0.2)
        follower = threading.Thread(target=_follow, args=(url, heard), daemon=True)
        follower.start()
        for folder in folders:
            procs[folder] = start_table(folder)
        report(f"{tables} tables publishing to {broker.url}, hall at {url}, for {seconds:.0f} s")
        # The faults, spread over the run (away from its first and last 20 s), in a random order.
        faults = ["restart"] * restarts + ["kill"] * kills
        rng.shuffle(faults)
        span = max(seconds - 40.0, 1.0)
        plan = [(20.0 + span * (i + 0.5) / max(len(faults), 1), fault) for i, fault in enumerate(faults)]
        started = time.monotonic()
        next_sample = started
        for at, fault in [*plan, (seconds, "end")]:
            while time.monotonic() - started < at:
                if time.monotonic() >= next_sample:
                    memory.append((time.monotonic() - started, _rss_mb(hall.pid)))
                    next_sample += MEMORY_EVERY_S
                time.sleep(0.2)
            if fault == "restart":
                down = time.time()
                broker.restart()
                outages.append((down, time.time()))
            elif fault == "kill":
                folder = rng.choice(folders)
                procs[folder].send_signal(signal.SIGKILL)
                procs[folder].wait()
                time.sleep(1.0)
                procs[folder] = start_table(folder)
        report("run over: the tables finish their last results")
        for proc in procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            proc.wait(SETTLE_S)
        truth = _truth(folders)
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline:
            counted, _ = _hall_results(hall_state / HALL_FILE)
            if set(truth) <= set(counted):
                break
            time.sleep(1.0)
        standings = httpx.get(f"{url}/api/hall", timeout=30).json()["standings"]
    finally:
        heard.stop.set()
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
        hall.send_signal(signal.SIGTERM)
        try:
            hall.wait(30)
        except subprocess.TimeoutExpired:
            hall.kill()
        broker.stop()
    counted, seats = _hall_results(hall_state / HALL_FILE)
    expected = _expected_standings(folders, truth)
    shown = {s["name"]: (s["games"], s["points"]) for s in standings}
    latencies = sorted(way for _, way in heard.latencies)
    # Scores made while their table could not reach the broker (a restart, and the reconnect after it) wait
    # for it by design: their way is counted apart.
    steady = sorted(
        way
        for sent, way in heard.latencies
        if not any(down - 0.5 <= sent <= up + RECONNECT_S for down, up in outages)
    )
    minute = 60.0 / MEMORY_EVERY_S
    first = [mb for _, mb in memory[: int(minute)]]
    last = [mb for _, mb in memory[-int(minute) :]]
    return {
        "tables": tables,
        "seconds": seconds,
        "broker_restarts": restarts,
        "tables_killed": kills,
        "events_heard": heard.events,
        "scores_heard": len(heard.latencies),
        "latency_s": _spread(latencies),
        "latency_away_from_restarts_s": _spread(steady),
        "scores_away_from_restarts": len(steady),
        "hall_rss_mb": {
            "first_minute": statistics.mean(first) if first else None,
            "last_minute": statistics.mean(last) if last else None,
            "highest": max((mb for _, mb in memory), default=None),
        },
        "games_finished": len(truth),
        "games_lost": len(set(truth) - set(counted)),
        "games_doubled": sum(1 for n in counted.values() if n > 1),
        "games_extra": len(set(counted) - set(truth)),
        "standings_wrong": sorted(p for p in set(expected) | set(shown) if expected.get(p) != shown.get(p)),
        "seats_kept": sum(len(s) for s in seats.values()),
        "folder": str(root),
    }


def _spread(values: list[float]) -> dict[str, float | None]:
    """Median, 99th percentile and worst of sorted ``values``, and the share over a second."""
    if not values:
        return {"median": None, "p99": None, "worst": None, "share_over_1s": None}
    return {
        "median": statistics.median(values),
        "p99": values[int(0.99 * (len(values) - 1))],
        "worst": values[-1],
        "share_over_1s": sum(v > 1.0 for v in values) / len(values),
    }


def format_hall(result: dict[str, Any]) -> str:
    lat, away, rss = result["latency_s"], result["latency_away_from_restarts_s"], result["hall_rss_mb"]

    def s(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f} s"

    def mb(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f} MB"

    return "\n".join(
        [
            "| tables | minutes | broker restarts | tables killed | table events heard "
            "| latency median / p99 / worst | the same away from restarts "
            "| hall memory first / last minute, highest "
            "| games finished | lost | doubled | extra "
            "| standings wrong |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            f"| {result['tables']} | {result['seconds'] / 60:.1f} | {result['broker_restarts']} "
            f"| {result['tables_killed']} | {result['events_heard']} "
            f"| {s(lat['median'])} / {s(lat['p99'])} / {s(lat['worst'])} "
            f"| {s(away['median'])} / {s(away['p99'])} / {s(away['worst'])} "
            f"| {mb(rss['first_minute'])} / {mb(rss['last_minute'])}, {mb(rss['highest'])} "
            f"| {result['games_finished']} | {result['games_lost']} | {result['games_doubled']} "
            f"| {result['games_extra']} | {len(result['standings_wrong'])} |",
        ]
    )
