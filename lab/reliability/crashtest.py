"""Killing the scorer while it writes: every stored file must still load and the history hold whole games.

A child process (``python -c``, the project's own code) writes one kind of data in a loop through the real
savers: the camera calibration, a board profile, its colour, its enrolment (each through
``calibration.store.write_json_atomic``), the table's seats, or games with one to four boards into the
history (``History.record``, every fifth one a correction with ``replaces=``). Each write is numbered; the
child prints ``B n`` before it and ``E n`` once it has returned. The parent lets the first write finish,
waits a random moment, SIGKILLs the child, then checks with the project's loaders:

* the file loads, and holds version ``n`` of the last write that returned or of the one under way (old or
  new, never a mix, never nothing);
* nothing else is in its folder but the data files and write temporaries (``.NAME.XXXX.tmp``, which no
  loader reads and ``list_profiles`` does not list: left over by a kill, never taken for data);
* the history opens (its quick check), passes ``PRAGMA integrity_check``, and holds exactly the games whose
  ``record`` returned (a correction having removed the game it replaces), plus at most the one under way
  with all its boards; every game has all its boards; ids rise with the write number.

The state folder is kept from round to round, so every round also starts from what the last kill left
(SQLite's write-ahead log replayed by the next opening, as after a real power cut).

A kill counts as landing mid-write when the child's last word was ``B n``: the write had begun and not
returned. The pipe makes that an estimate (a kill just after the write returned but before ``E`` was
printed counts too).

What this does not prove: SIGKILL ends the process, not the machine, so what the kernel had already
accepted (page cache) still reaches the card. It proves atomicity and consistency (no half file, no half
game), not durability after a power cut; that rests on the fsyncs ``write_json_atomic`` does (file and
folder) and on SQLite's ``synchronous=FULL`` in WAL mode, which this cannot exercise.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.store import TEMP_FILE, sweep_temporaries

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# History first: a short run's extra round then reopens a history a kill left mid-transaction.
KINDS = ("history", "camera", "profile", "colour", "enrolment", "table")
PROFILE = "p"
GAME = "alices-garden"
CORRECTION_EVERY = 5
# A child writes until killed; these only stop one whose parent is gone.
CHILD_MAX_WRITES = 100_000
CHILD_MAX_S = 120.0
# Waiting for the child's first write covers Python's start and imports on a busy Pi.
START_TIMEOUT_S = 120.0
MAX_DELAY_S = 0.25


@dataclass
class KindFigures:
    rounds: int = 0
    mid_write: int = 0
    """Kills that landed while a write was under way (the child's last word was ``B n``)."""
    temp_files_swept: int = 0
    """Write temporaries left by kills, removed as the scorer's start removes them (none may survive)."""
    failures: list[str] = field(default_factory=list)


@dataclass
class KillReport:
    seed: int
    rounds: int
    seconds: float = 0.0
    kinds: dict[str, KindFigures] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        return sum(len(k.failures) for k in self.kinds.values())

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "failed": self.failed}


# --- the child ------------------------------------------------------------------------------------------


def _write_camera(root: Path, n: int) -> None:
    from calibration import camera
    from calibration.statedir import StateDir

    matrix = np.array([[800.0 + n, 0.0, 320.0], [0.0, 800.0, 240.0], [0.0, 0.0, 1.0]])
    per_photo = {f"photo-{i}.jpg": 0.25 for i in range(50)}
    calibration = camera.Calibration(matrix, np.zeros(5), (640, 480), float(n), "standard", per_photo)
    camera.save(calibration, StateDir(root).camera)


def _base_profile() -> Any:
    from vision.profile import default_profile

    return replace(default_profile(GAME), name=PROFILE)


def _write_profile(root: Path, n: int) -> None:
    from calibration.profiles import save_profile
    from calibration.statedir import StateDir

    save_profile(StateDir(root), replace(_base_profile(), orientation_cue=f"version {n}"))


def _write_colour(root: Path, n: int) -> None:
    from calibration.profiles import save_colour
    from calibration.statedir import StateDir
    from vision.read.colour import BoardColour

    save_colour(StateDir(root), PROFILE, BoardColour((100.0, 120.0, 130.0), n / 1_000_000))


def _write_enrolment(root: Path, n: int) -> None:
    from calibration import enroll
    from calibration.profiles import save_enrolment
    from calibration.statedir import StateDir

    # Of a real enrolment's size (a 64-wide embedding, several heads), so a write takes real time.
    weights = np.full((64, 8), n / 1000.0)
    heads = {name: enroll.HeadCorrection(weights, np.zeros(8)) for name in ("tile", "symbol", "colour")}
    save_enrolment(StateDir(root), PROFILE, enroll.Enrolment(GAME, heads, n, 2, "crash-test"))


def _write_table(root: Path, n: int) -> None:
    from calibration import seats
    from calibration.statedir import StateDir

    left = ((0.05, 0.05), (0.45, 0.05), (0.45, 0.5), (0.05, 0.5))
    right = ((0.55, 0.05), (0.95, 0.05), (0.95, 0.5), (0.55, 0.5))
    setup = seats.TableSetup(GAME, (seats.Seat(f"seat {n}", "Ann", left), seats.Seat("other", None, right)))
    seats.save(setup, StateDir(root).table)


def _board_count(n: int) -> int:
    return 1 + n % 4


def _replaces(n: int) -> int | None:
    """The write number a history write corrects, if it is a correction."""
    return n - 1 if n % CORRECTION_EVERY == CORRECTION_EVERY - 1 else None


def _history_child(root: Path, start: int) -> None:
    from calibration.statedir import StateDir
    from device.history import History

    with History.open(StateDir(root).history) as history:
        newest = history.list(limit=1)
        last_id = newest[0].id if newest else None
        for n in range(start, start + CHILD_MAX_WRITES):
            k = _board_count(n)
            prev = _replaces(n)
            boards = [{"n": n, "seat": s, "of": k, "total": 10 * n + s, "replaces": prev} for s in range(k)]
            print(f"B {n}", flush=True)
            last_id = history.record(
                GAME,
                boards,
                "corrected" if prev is not None else "live",
                [f"player {s}" for s in range(k)],
                replaces=last_id if prev is not None else None,
            )
            print(f"E {n}", flush=True)


WRITERS = {
    "camera": _write_camera,
    "profile": _write_profile,
    "colour": _write_colour,
    "enrolment": _write_enrolment,
    "table": _write_table,
}


def child_main(argv: Sequence[str]) -> None:
    """The child's loop: ``KIND ROOT START``; writes version START, START + 1, ... until killed."""
    kind, root, start = argv[0], Path(argv[1]), int(argv[2])
    deadline = time.monotonic() + CHILD_MAX_S
    if kind == "history":
        _history_child(root, start)
        return
    write = WRITERS[kind]
    for n in range(start, start + CHILD_MAX_WRITES):
        if time.monotonic() > deadline:
            return
        print(f"B {n}", flush=True)
        write(root, n)
        print(f"E {n}", flush=True)


# --- the parent -----------------------------------------------------------------------------------------


@dataclass
class _Progress:
    began: int | None = None
    ended: int | None = None

    def read(self, line: str) -> None:
        word, _, number = line.strip().partition(" ")
        if word == "B":
            self.began = int(number)
        elif word == "E":
            self.ended = int(number)

    @property
    def in_flight(self) -> int | None:
        return self.began if self.began is not None and self.began != self.ended else None


def _kill_round(kind: str, root: Path, start: int, delay: float) -> tuple[_Progress, str]:
    """Run a child writing ``kind`` from version ``start``; SIGKILL it ``delay`` s after its first write."""
    code = "import sys; from lab.reliability.crashtest import child_main; child_main(sys.argv[1:])"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    progress = _Progress()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, kind, str(root), str(start)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while progress.ended is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break  # the child ended (a crash) before its first write returned
            progress.read(line)
        time.sleep(delay)
    finally:
        proc.send_signal(signal.SIGKILL)
        # Through the same reader as above: lines it has buffered already would be lost to communicate().
        rest = proc.stdout.read()
        err = proc.stderr.read() if proc.stderr is not None else ""
        proc.wait()
        proc.stdout.close()
        if proc.stderr is not None:
            proc.stderr.close()
    for line in rest.splitlines():
        progress.read(line)
    return progress, err if proc.returncode != -signal.SIGKILL else ""


def _loaded_version(kind: str, root: Path) -> int:
    """The version number in the stored file of ``kind``, read by the project's loaders."""
    from calibration import camera, enroll, seats
    from calibration.profiles import ENROLMENT_FILE, load_bundle
    from calibration.statedir import StateDir

    state = StateDir(root)
    if kind == "camera":
        return int(camera.load(state.camera).rms)
    if kind == "table":
        return int(seats.load(state.table).seats[0].name.removeprefix("seat "))
    bundle = load_bundle(state, PROFILE)
    if kind == "profile":
        return int(bundle.profile.orientation_cue.removeprefix("version "))
    if kind == "colour":
        if bundle.colour is None:
            raise FileNotFoundError("colour.json is gone")
        return round(bundle.colour.usable_share * 1_000_000)
    if bundle.enrolment is None:
        raise FileNotFoundError("enrolment.json is gone")
    # Also through the enrolment's own loader, as the calibration page reads it.
    if enroll.load(state.profile(PROFILE) / ENROLMENT_FILE).cells != bundle.enrolment.cells:
        raise ValueError("enrolment.json read twice gave two versions")
    return bundle.enrolment.cells


def _check_folder(kind: str, root: Path) -> list[str]:
    """Problems with the folder's contents once the write temporaries are swept."""
    from calibration.profiles import list_profiles
    from calibration.statedir import StateDir

    state = StateDir(root)
    problems = []
    known = {"camera.json", "table.json", "history.sqlite", "history.sqlite-wal", "history.sqlite-shm"}
    known |= {"profile.json", "colour.json", "enrolment.json", "profiles"}
    for path in [
        *root.iterdir(),
        *(state.profile(PROFILE).iterdir() if state.profile(PROFILE).is_dir() else ()),
    ]:
        if TEMP_FILE.fullmatch(path.name):
            problems.append(f"write temporary {path.relative_to(root)} survived the sweep")
        elif path.name not in known and path.name != PROFILE:
            problems.append(f"unexpected file {path.relative_to(root)}")
    if kind in ("profile", "colour", "enrolment") and list_profiles(state) != [PROFILE]:
        problems.append(f"profiles listed: {list_profiles(state)}, expected only {PROFILE!r}")
    return problems


def _check_file(kind: str, root: Path, progress: _Progress) -> list[str]:
    try:
        version = _loaded_version(kind, root)
    except Exception as exc:
        return [f"{kind}: the file does not load after the kill: {type(exc).__name__}: {exc}"]
    allowed = {v for v in (progress.ended, progress.began) if v is not None}
    if version not in allowed:
        return [f"{kind}: version {version} loaded, expected one of {sorted(allowed)}"]
    return []


@dataclass
class _Ledger:
    """The history's games as the parent knows them: write numbers whose ``record`` returned."""

    present: set[int] = field(default_factory=set)

    def commit(self, n: int) -> None:
        prev = _replaces(n)
        if prev is not None:
            self.present.discard(prev)
        self.present.add(n)

    @property
    def next_write(self) -> int:
        return max(self.present, default=-1) + 1


def _check_history(root: Path, progress: _Progress, ledger: _Ledger, start: int) -> list[str]:
    from calibration.statedir import StateDir
    from device.history import History

    path = StateDir(root).history
    problems = []
    try:
        with History.open(path) as history:
            games = history.list(limit=1_000_000)
    except Exception as exc:
        return [f"history: does not open after the kill: {type(exc).__name__}: {exc}"]
    conn = sqlite3.connect(path)
    try:
        integrity = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
    finally:
        conn.close()
    if integrity != ["ok"]:
        problems.append(f"history: integrity_check says {integrity[:3]}")
    found: dict[int, int] = {}
    for game in games:
        ns = {b.data.get("n") for b in game.boards}
        if len(ns) != 1:
            problems.append(f"history: game {game.id} mixes boards of writes {sorted(map(str, ns))}")
            continue
        n = int(next(iter(ns)) or 0)
        if [b.seat for b in game.boards] != list(range(_board_count(n))):
            problems.append(f"history: game {game.id} (write {n}) has seats {[b.seat for b in game.boards]}")
        found[n] = game.id
    # Every write that returned, less the games corrections replaced; the one under way may be there too.
    for n in range(start, progress.ended + 1 if progress.ended is not None else start):
        ledger.commit(n)
    expected = set(ledger.present)
    inflight = progress.in_flight
    if inflight is not None and inflight in found:
        ledger.commit(inflight)
        expected = set(ledger.present)
    if set(found) != expected:
        missing, extra = sorted(expected - set(found)), sorted(set(found) - expected)
        problems.append(f"history: games of writes {missing} missing, {extra} unexpected")
    ids = [found[n] for n in sorted(found)]
    if ids != sorted(ids):
        problems.append("history: ids do not rise with the write order")
    return problems


def _prepare(kind: str, root: Path) -> None:
    """What a kind's writes need beside them: a profile for its colour or enrolment."""
    if kind in ("colour", "enrolment") and not (root / "profiles" / PROFILE / "profile.json").is_file():
        _write_profile(root, 0)


def kill_test(rounds: int, seed: int, workdir: Path, kinds: Sequence[str] = KINDS) -> KillReport:
    """``rounds`` kills spread over ``kinds`` in turn, each kind in its own state folder under ``workdir``."""
    rng = random.Random(seed)
    start_time = time.perf_counter()
    report = KillReport(seed, rounds, kinds={k: KindFigures() for k in kinds})
    versions = dict.fromkeys(kinds, 0)
    ledger = _Ledger()
    for i in range(rounds):
        kind = kinds[i % len(kinds)]
        figures = report.kinds[kind]
        root = workdir / kind
        root.mkdir(parents=True, exist_ok=True)
        _prepare(kind, root)
        start = ledger.next_write if kind == "history" else versions[kind]
        progress, error = _kill_round(kind, root, start, rng.uniform(0, MAX_DELAY_S))
        figures.rounds += 1
        if error:
            figures.failures.append(f"round {i}: the child failed: {error.strip().splitlines()[-1][:300]}")
            continue
        if progress.in_flight is not None:
            figures.mid_write += 1
        if kind == "history":
            problems = _check_history(root, progress, ledger, start)
        else:
            problems = _check_file(kind, root, progress)
            versions[kind] = max(v for v in (progress.began, progress.ended, start) if v is not None) + 1
        swept = sweep_temporaries(root, older_than_s=0)
        figures.temp_files_swept += len(swept)
        folder_problems = _check_folder(kind, root)
        figures.failures.extend(f"round {i}: {p}" for p in [*problems, *folder_problems])
    report.seconds = round(time.perf_counter() - start_time, 2)
    return report


def run_kill(rounds: int, seed: int, workdir: Path) -> dict[str, Any]:
    """:func:`kill_test` over every kind, as JSON-ready figures for ``garden-scorer-lab bench
    --reliability``."""
    return kill_test(rounds, seed, workdir).to_json()
