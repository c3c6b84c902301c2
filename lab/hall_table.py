"""One simulated table of ``garden-scorer-lab bench --hall``: a scorer's history, live record and publisher
(the product's own), fed a game's live scores once a second instead of a camera's.

``python -m lab.hall_table URL TABLE STATE SEED [SHORTEST LONGEST]``: plays games of 2 to 4 named players
until SIGTERM, each SHORTEST to LONGEST (default 20 to 40) seconds of scores rising once a second, then the
table cleared (the game's result). Each finished
game's history id is appended to ``STATE/finished.txt`` once its result is in the outbox: the run's truth of
what the hall must count. Killed with -9, it is started again on the same folder, as systemd restarts a
scorer: results still waiting in its outbox are sent then.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from pathlib import Path

from device.history import History, LiveRecord
from device.mqtt.outbox import FILE, Outbox
from device.mqtt.publisher import Publisher
from device.mqtt.settings import MqttSettings

FINISHED = "finished.txt"
DRAIN_S = 60.0
GAME = "alices-garden"
# Players' names across the hall: a few dozen, so that each plays at several tables in an evening.
NAMES = tuple(f"Player {n:02d}" for n in range(1, 61))


def play(url: str, table: str, state: Path, seed: int, game_s: tuple[int, int] = (20, 40)) -> None:
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    state.mkdir(parents=True, exist_ok=True)
    publisher = Publisher(MqttSettings.from_url(url), table, Outbox(state / FILE), "bench")
    publisher.start()
    live = LiveRecord(History.open(state / "history.sqlite", listener=publisher), publisher.finished)
    # Another game plan each start (a restarted table does not replay the one it was killed in).
    rng = random.Random(f"{seed}-{time.time_ns()}")
    truth = state / FINISHED
    while not stopping:
        players = rng.sample(NAMES, rng.randint(2, 4))
        totals = [0] * len(players)
        game_id = None
        for _ in range(rng.randint(*game_s)):
            if stopping:
                break
            totals = [t + rng.randint(0, 3) for t in totals]
            boards = [
                {"game": GAME, "total": t, "lines": [], "player": p}
                for p, t in zip(players, totals, strict=True)
            ]
            game_id = live.scored(boards)
            time.sleep(1.0)
        if stopping or game_id is None:
            break
        live.scored([])  # the table cleared: the game's result goes into the outbox, then out
        with truth.open("a") as out:
            out.write(f"{game_id}\n")
            out.flush()
            os.fsync(out.fileno())
    # Stopped at the run's end: what waits in the outbox goes out first (a kill -9 leaves it for the restart).
    deadline = time.monotonic() + DRAIN_S
    while publisher.outbox.waiting() and time.monotonic() < deadline:
        time.sleep(0.1)
    publisher.stop()
    publisher.outbox.close()


if __name__ == "__main__":
    url, table, folder, seed = sys.argv[1:5]
    lengths = tuple(int(n) for n in sys.argv[5:7]) or (20, 40)
    play(url, table, Path(folder), int(seed), (lengths[0], lengths[-1]))
