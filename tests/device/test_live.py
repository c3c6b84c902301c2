"""Live scoring: motion, debounce, reuse of known corners, occlusion, reconnection and fan-out.

The scorer's logic runs on synthetic frames (a textured table, boards as rectangles, a hand as a blob) with
a fake score callable whose answers the test sets; the loop runs over rendered photos with the real models.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.seats import seats_from_boards
from device.camera import Camera, CameraError, Frame, ReplayCamera
from device.live import (
    RESTARTING,
    Backoff,
    Broadcaster,
    LiveEvent,
    LiveLoop,
    LiveScorer,
    MotionDetector,
    Subscription,
    measure_live,
)
from device.photo import ScoredBoard, score_image
from lab.synth.camera import PhotoOptions
from lab.synth.render import RenderSpec, render_photo
from scoring.core import ScoreBreakdown, ScoreLine
from scoring.registry import get_game
from vision.geometry import BoardFrame
from vision.pipeline import BoardReading, NoBoardError
from vision.profile import default_profile
from vision.read.classify import CellPredictions
from vision.read.rectify import Rectified

W, H = 320, 180
LEFT = np.array([[30.0, 40.0], [130.0, 40.0], [130.0, 140.0], [30.0, 140.0]])
RIGHT = LEFT + np.array([160.0, 0.0])
PROFILE = default_profile("alices-garden")


def _table(boards: Sequence[np.ndarray] = (LEFT, RIGHT)) -> np.ndarray:
    """A smooth table texture with boards as flat rectangles: identical frames have no motion at all."""
    rng = np.random.default_rng(0)
    coarse = rng.integers(40, 120, (9, 16, 3), dtype=np.uint8)
    image = np.asarray(cv2.resize(coarse, (W, H), interpolation=cv2.INTER_CUBIC), np.uint8)
    for corners in boards:
        (x0, y0), (x1, y1) = corners[0].astype(int), corners[2].astype(int)
        cv2.rectangle(image, (x0, y0), (x1, y1), (200, 220, 230), -1)
    return image


def _with_hand(image: np.ndarray, centre: tuple[int, int]) -> np.ndarray:
    out = image.copy()
    cv2.circle(out, centre, 12, (90, 130, 185), -1)
    return out


def _scored(corners: np.ndarray, points: int, trusted: bool = True) -> ScoredBoard:
    state = {"points": points}
    rectified = Rectified(np.zeros((1, 1, 3), np.uint8), BoardFrame(PROFILE, 1.0), np.eye(3))
    predictions = CellPredictions((), (), {}, np.zeros((0, 4), np.float32))
    reading = BoardReading(
        "alices-garden", PROFILE, corners, True, trusted, state, 1.0, (), (), rectified, predictions, {}
    )
    breakdown = ScoreBreakdown("alices-garden", (ScoreLine("points", "", points),)) if trusted else None
    return ScoredBoard(reading, state, breakdown, ())


class FakeTable:
    """Scores the boards it is told are on the table; records what it was asked.

    ``script`` answers the next reads (points for every board) before falling back to ``points``;
    ``bad_known`` is how many reads at known corners come back untrusted, ``bad`` makes every read so;
    ``hidden`` boards are on the table but missed by locating (glare on their edges). Read at the corners of
    a board not on the table, the empty table reads untrusted, as a real one reads unsure.
    """

    def __init__(self, points: Mapping[str, int]) -> None:
        self.corners = {"left": LEFT, "right": RIGHT}
        self.points = dict(points)
        self.script: list[dict[str, int]] = []
        self.bad_known = 0
        self.bad = False
        self.hidden: set[str] = set()
        self.calls: list[list[np.ndarray] | None] = []

    def __call__(self, image: np.ndarray, *, known_boards: Sequence[np.ndarray] | None) -> list[ScoredBoard]:
        self.calls.append(None if known_boards is None else [np.array(c) for c in known_boards])
        points = self.script.pop(0) if self.script else self.points
        if known_boards is None:
            if not points:
                raise NoBoardError("no board found in the photo")
            return [
                _scored(self.corners[name], p, not self.bad)
                for name, p in points.items()
                if name not in self.hidden
            ]
        out = []
        for corners in known_boards:
            name = min(self.corners, key=lambda n: float(np.abs(self.corners[n] - corners).sum()))
            there = name in points and self.bad_known == 0 and not self.bad
            out.append(_scored(corners, points.get(name, 0), trusted=there))
            self.bad_known = max(0, self.bad_known - 1)
        return out


class Feeder:
    """Frames into a scorer, with the events they cause."""

    def __init__(self, scorer: LiveScorer) -> None:
        self.scorer = scorer
        self.sequence = 0

    def __call__(self, *images: np.ndarray) -> list[LiveEvent]:
        events = []
        for image in images:
            events += self.scorer.feed(Frame(image, time.monotonic(), self.sequence))
            self.sequence += 1
        return events


def _scorer(table: FakeTable, **options: Any) -> tuple[LiveScorer, Feeder]:
    scorer = LiveScorer(table, motion=MotionDetector(still_frames=2), **options)
    return scorer, Feeder(scorer)


def _scores(events: list[LiveEvent]) -> list[dict[str, Any]]:
    return [dict(e.payload["totals"]) for e in events if e.kind == "score"]


def _statuses(events: list[LiveEvent]) -> list[str]:
    return [e.payload["message"] for e in events if e.kind == "status"]


# Motion


def test_a_static_table_becomes_still_after_quiet_frames() -> None:
    motion = MotionDetector(still_frames=3)
    table = _table()
    noise = np.random.default_rng(1)
    shares = []
    for _ in range(4):
        # Sensor noise of sigma 4 is not motion.
        noisy = np.clip(table + noise.normal(0, 4, table.shape), 0, 255).astype(np.uint8)
        shares.append(motion.update(noisy))
        assert motion.still == (len(shares) == 4)
    assert shares[0] == 1.0
    assert shares[1:] == [0.0, 0.0, 0.0]


def test_a_moving_hand_keeps_the_table_moving_and_shows_where() -> None:
    motion = MotionDetector(still_frames=2)
    table = _table()
    motion.update(table)
    for x in range(200, 280, 10):
        assert motion.update(_with_hand(table, (x, 90))) > motion.moving_share
        assert not motion.still
        assert motion.share_within(RIGHT, (W, H)) > 0.01
        assert motion.share_within(LEFT, (W, H)) == 0.0


# Debounce and reuse of known corners


def test_a_new_state_is_published_once_read_twice() -> None:
    table = FakeTable({"left": 3})
    scorer, feed = _scorer(table)
    table_image = _table([LEFT])
    events = feed(*[table_image] * 6)
    assert _scores(events) == [{"board 1": 3}]
    assert _statuses(events) == ["looking for boards", "watching 1 board"]
    board = next(e for e in events if e.kind == "score").payload["boards"][0]
    assert board["state"] == {"points": 3} and board["total"] == 3 and "seat" not in board
    # Located once, read once more at the corners found, then left alone while nothing moves.
    assert table.calls[0] is None
    assert len(table.calls) == 2
    assert table.calls[1] is not None and np.array_equal(table.calls[1][0], LEFT)
    assert scorer.scored == 2

    def touch(points: int, script: Sequence[int] = ()) -> list[LiveEvent]:
        table.points = {"left": points}
        table.script = [{"left": p} for p in script]
        return feed(_with_hand(table_image, (80, 90)), *[table_image] * 6)

    # Read 5 once, then 3 again: a flicker, never shown.
    events = touch(3, script=[5])
    assert _scores(events) == []
    assert _statuses(events) == ["a hand is over board 1", "watching 1 board"]
    assert table.calls[2] is None, "motion means locating afresh"
    assert len(table.calls) == 5
    assert _scores(touch(5)) == [{"board 1": 5}]
    assert _scores(touch(5)) == []
    assert _scores(touch(3)) == [{"board 1": 3}]


def test_a_bad_reading_at_known_corners_locates_again() -> None:
    table = FakeTable({"left": 3})
    _, feed = _scorer(table)
    image = _table([LEFT])
    feed(*[image] * 6)
    table.points = {"left": 8}
    table.bad_known = 1
    events = feed(_with_hand(image, (80, 90)), *[image] * 6)
    assert _scores(events) == [{"board 1": 8}]
    # The second locating is the second reading of 8 in a row.
    assert _kinds(table.calls[2:]) == ["locate", "known", "locate"]


def test_a_board_locating_misses_is_read_where_it_lay() -> None:
    table = FakeTable({"left": 3, "right": 4})
    _, feed = _scorer(table)
    assert _scores(feed(*[_table()] * 6)) == [{"board 1": 3, "board 2": 4}]
    # Something moves; then glare hides the right board's edges from locating. It has not moved.
    table.hidden = {"right"}
    table.points = {"left": 5, "right": 6}
    before = len(table.calls)
    events = feed(_with_hand(_table(), (80, 90)), *[_table()] * 6)
    assert _scores(events) == [{"board 1": 5, "board 2": 6}]
    located, where = table.calls[before : before + 2]
    assert located is None and where is not None and len(where) == 1 and np.allclose(where[0], RIGHT)
    # Taken away, it reads unsure where it lay, and is gone once missed twice.
    table.points = {"left": 5}
    events = feed(_with_hand(_table([LEFT]), (80, 90)), *[_table([LEFT])] * 6)
    assert _scores(events) == [{"board 1": 5}]


def test_a_board_that_reads_badly_wherever_it_is_found_is_shown_as_read() -> None:
    table = FakeTable({"left": 3})
    _, feed = _scorer(table, confirm_frames=3)
    table.bad = True
    events = feed(*[_table([LEFT])] * 10)
    assert _scores(events) == [{"board 1": None}]
    # One more locating to check the first bad reading at known corners, then no locating loop.
    assert _kinds(table.calls) == ["locate", "known", "locate", "known"]


def _known(table: FakeTable) -> list[np.ndarray]:
    """Every set of corners the table was read at, in order."""
    return [corners for call in table.calls if call is not None for corners in call]


def _kinds(calls: list[list[np.ndarray] | None]) -> list[str]:
    return ["locate" if c is None else "known" for c in calls]


def test_a_board_taken_away_is_gone_once_missed_twice() -> None:
    table = FakeTable({"left": 3, "right": 4})
    _, feed = _scorer(table)
    assert _scores(feed(*[_table()] * 6)) == [{"board 1": 3, "board 2": 4}]
    table.points = {"left": 3}
    events = feed(*[_table([LEFT])] * 6)
    assert _scores(events) == [{"board 1": 3}]
    # The locating that missed it looked where it lay, and found the table there unsure.
    assert _kinds(table.calls[-3:]) == ["locate", "known", "locate"]
    assert np.allclose(_known(table)[-1], RIGHT)


def test_an_empty_table_says_so_and_is_not_searched_again_until_something_moves() -> None:
    table = FakeTable({})
    _, feed = _scorer(table)
    events = feed(*[_table([])] * 8)
    assert _statuses(events) == ["looking for boards", "no board in view"]
    assert table.calls == [None]


# Seats and occlusion


def test_a_hand_over_one_seat_leaves_the_other_readable() -> None:
    setup = seats_from_boards("alices-garden", [LEFT, RIGHT], (W, H), players=["Ann", "Bob"])
    table = FakeTable({"left": 3, "right": 4})
    _, feed = _scorer(table, setup=setup)
    image = _table()
    events = feed(*[image] * 6)
    assert _scores(events) == [{"seat 1": 3, "seat 2": 4}]
    boards = next(e for e in events if e.kind == "score").payload["boards"]
    assert [(b["seat"], b["player"], b["total"]) for b in boards] == [
        ("seat 1", "Ann", 3),
        ("seat 2", "Bob", 4),
    ]

    table.points = {"left": 7, "right": 4}
    calls = len(table.calls)
    events = feed(_with_hand(image, (80, 90)))
    assert _statuses(events) == ["a hand is over seat 1's board"]
    # The hand moves on to seat 2 and keeps moving there while seat 1 is read at its known corners.
    events = feed(*[_with_hand(image, (220 + 8 * (i % 4), 90)) for i in range(8)])
    assert _statuses(events)[0] == "a hand is over seat 1's board and seat 2's board"
    last = [e for e in events if e.kind == "status"][-1].payload
    assert last["message"] == "a hand is over seat 2's board" and last["occluded"] == ["seat 2"]
    assert _scores(events) == [{"seat 1": 7, "seat 2": 4}]
    reads = table.calls[calls:]
    assert reads and all(r is not None and len(r) == 1 and np.array_equal(r[0], LEFT) for r in reads)


def test_a_table_game_waits_for_every_board() -> None:
    table = FakeTable({"left": 3, "right": 4})
    _, feed = _scorer(table, whole_table=True)
    image = _table()
    feed(*[image] * 6)
    calls = len(table.calls)
    feed(_with_hand(image, (80, 90)), *[_with_hand(image, (220 + 8 * (i % 4), 90)) for i in range(6)])
    assert len(table.calls) == calls, "no board is read while any is occluded"
    table.points = {"left": 5, "right": 6}
    assert _scores(feed(*[image] * 6)) == [{"board 1": 5, "board 2": 6}]
    assert all(c is None or len(c) == 2 for c in table.calls[calls:])


# Broadcaster


def _event(event_id: int, kind: str = "status") -> LiveEvent:
    return LiveEvent(kind, event_id, 0.0, {"n": event_id})  # type: ignore[arg-type]


def test_a_late_subscriber_gets_the_latest_score_and_status() -> None:
    hub = Broadcaster()
    for i, kind in enumerate(["status", "score", "status", "score", "status"], start=1):
        hub.publish(_event(i, kind))
    sub = hub.subscribe()
    assert [e.id for e in sub.events] == [4, 5]
    assert [getattr(hub.get(sub, 0), "id", None) for _ in range(2)] == [4, 5]
    assert hub.get(sub, 0.01) is None
    hub.publish(_event(6))
    got = hub.get(sub, 1)
    assert got is not None and got.to_json() == {
        "id": 6,
        "kind": "status",
        "timestamp": 0.0,
        "payload": {"n": 6},
    }


def test_a_slow_subscriber_loses_the_oldest_events_without_holding_anyone_up() -> None:
    hub = Broadcaster(queue_size=4)
    slow, other = hub.subscribe(), hub.subscribe()
    # Publishing never waits on a subscriber: a full queue drops its oldest event instead.
    for i in range(1, 101):
        hub.publish(_event(i))
    assert [e.id for e in slow.events] == [97, 98, 99, 100]
    assert slow.dropped == 96
    hub.unsubscribe(other)
    hub.publish(_event(101))
    assert [e.id for e in other.events] == [97, 98, 99, 100]


def test_asyncio_code_waits_for_the_next_event() -> None:
    hub = Broadcaster()
    sub = hub.subscribe()

    async def listen() -> tuple[LiveEvent | None, LiveEvent | None]:
        timer = threading.Timer(0.05, hub.publish, [_event(1)])
        timer.start()
        first = await hub.next(sub, timeout=60)
        nothing = await hub.next(sub, timeout=0.05)
        timer.join()
        return first, nothing

    first, nothing = asyncio.run(listen())
    assert first is not None and first.id == 1
    assert nothing is None


# The loop


class StillCamera(Camera):
    """One picture over and over at about 200 fps; gone after ``frames`` frames if given."""

    def __init__(self, image: np.ndarray, frames: int | None = None) -> None:
        super().__init__("still")
        self.image = image
        self.frames = frames

    def _grab(self) -> np.ndarray:
        if self.frames is not None and self._sequence >= self.frames:
            raise CameraError("camera still was unplugged")
        time.sleep(0.005)
        return self.image


class Cameras:
    """Fails to open ``failures`` times, then gives cameras lasting ``lives`` frames each (None: forever)."""

    def __init__(self, image: np.ndarray, failures: int, lives: Sequence[int | None]) -> None:
        self.image = image
        self.failures = failures
        self.lives = list(lives)
        self.opened = 0
        self.made: list[StillCamera] = []

    def __call__(self) -> Camera:
        self.opened += 1
        if self.opened <= self.failures:
            raise CameraError("no camera found")
        camera = StillCamera(self.image, self.lives.pop(0) if self.lives else None)
        self.made.append(camera)
        return camera


def _wait_for(
    hub: Broadcaster, sub: Subscription, done: Callable[[LiveEvent], bool], timeout: float = 60.0
) -> list[LiveEvent]:
    events: list[LiveEvent] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = hub.get(sub, 0.1)
        if event is not None:
            events.append(event)
            if done(event):
                return events
    raise AssertionError(f"timed out; events: {[e.to_json() for e in events]}")


def test_the_loop_reports_a_lost_camera_and_reconnects() -> None:
    table = FakeTable({"left": 3})
    cameras = Cameras(_table([LEFT]), failures=2, lives=[20, None])
    hub = Broadcaster()
    sub = hub.subscribe()
    loop = LiveLoop(cameras, LiveScorer(table, motion=MotionDetector(still_frames=2)), hub, retry_s=0.01)
    loop.start()
    try:
        events = _wait_for(hub, sub, lambda e: e.kind == "score")
        assert _statuses(events)[0] == "camera is gone: reconnecting (no camera found)"
        assert _scores(events) == [{"board 1": 3}]
        events = _wait_for(hub, sub, lambda e: e.payload.get("message") == "watching 1 board")
        assert _statuses(events) == [
            "camera is gone: reconnecting (camera still was unplugged)",
            "looking for boards",
            "watching 1 board",
        ]
        assert cameras.opened == 4
        stats = loop.stats()
        assert stats.camera_ok and stats.problem is None and stats.fps > 0
        assert stats.frames > 20 and stats.scored >= 3
        latest = loop.latest_frame()
        assert latest is not None and latest.image.shape == _table([LEFT]).shape
    finally:
        loop.stop()
    assert not loop.stats().camera_ok
    assert loop.latest_frame() is None  # the preview shows no stale picture of a camera that is gone
    ids = [e.id for e in events]
    assert ids == sorted(ids)


def _drain(hub: Broadcaster, sub: Subscription) -> list[LiveEvent]:
    events = []
    while (event := hub.get(sub, 0)) is not None:
        events.append(event)
    return events


def _run_until_scored(loop: LiveLoop) -> None:
    """Runs ``loop`` in this thread until it publishes its first score: no threads, no waiting on a clock."""
    loop.record = lambda _boards: loop.stop()
    loop.run()


def test_the_loop_restarts_after_a_scoring_error_and_scores_again(caplog: pytest.LogCaptureFixture) -> None:
    table = FakeTable({"left": 3})
    failures = 3

    def score(image: np.ndarray, *, known_boards: Sequence[np.ndarray] | None) -> list[ScoredBoard]:
        nonlocal failures
        if failures:
            failures -= 1
            raise ValueError("a bug in the reader")
        return table(image, known_boards=known_boards)

    hub = Broadcaster()
    sub = hub.subscribe()
    waits: list[float] = []
    cameras = Cameras(_table([LEFT]), 0, [])
    scorer = LiveScorer(score, motion=MotionDetector(still_frames=2))
    loop = LiveLoop(cameras, scorer, hub, clock=lambda: 0.0, wait=waits.append)
    _run_until_scored(loop)
    events = _drain(hub, sub)
    assert _statuses(events) == ["looking for boards", RESTARTING] * 3 + [
        "looking for boards",
        "watching 1 board",
    ]
    assert _scores(events) == [{"board 1": 3}]
    # Each failure closed the camera and opened it again after a pause twice as long as the one before.
    assert waits == [1.0, 2.0, 4.0]
    assert cameras.opened == 4 and all(camera.closed for camera in cameras.made)
    failed = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(failed) == 3 and all(r.exc_info and r.exc_info[0] is ValueError for r in failed)


class FlakyBroadcaster(Broadcaster):
    """Fails to publish its first event."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def publish(self, event: LiveEvent) -> None:
        if not self.failed:
            self.failed = True
            raise RuntimeError("a listener's queue broke")
        super().publish(event)


def test_the_loop_restarts_after_a_camera_or_broadcaster_error() -> None:
    class BrokenDriver(Cameras):
        def __call__(self) -> Camera:
            if not self.opened:
                self.opened += 1
                raise OSError("the camera driver crashed")
            return super().__call__()

    hub = Broadcaster()
    sub = hub.subscribe()
    waits: list[float] = []
    scorer = LiveScorer(FakeTable({"left": 3}), motion=MotionDetector(still_frames=2))
    loop = LiveLoop(BrokenDriver(_table([LEFT]), 0, []), scorer, hub, wait=waits.append)
    _run_until_scored(loop)
    assert _statuses(_drain(hub, sub))[:2] == [RESTARTING, "looking for boards"]
    assert waits == [1.0]

    flaky = FlakyBroadcaster()
    sub = flaky.subscribe()
    waits.clear()
    scorer = LiveScorer(FakeTable({"left": 3}), motion=MotionDetector(still_frames=2))
    loop = LiveLoop(Cameras(_table([LEFT]), 0, []), scorer, flaky, wait=waits.append)
    _run_until_scored(loop)
    # The first "looking for boards" was lost; the restart's message was not.
    events = _drain(flaky, sub)
    assert _statuses(events) == [RESTARTING, "looking for boards", "watching 1 board"]
    assert _scores(events) == [{"board 1": 3}]
    assert waits == [1.0]


def test_a_keyboard_interrupt_still_ends_the_loop() -> None:
    def interrupted(image: np.ndarray, *, known_boards: Sequence[np.ndarray] | None) -> list[ScoredBoard]:
        raise KeyboardInterrupt

    cameras = Cameras(_table([LEFT]), 0, [])
    loop = LiveLoop(cameras, LiveScorer(interrupted, motion=MotionDetector(still_frames=2)), Broadcaster())
    with pytest.raises(KeyboardInterrupt):
        loop.run()
    assert cameras.made[0].closed
    assert not loop.healthy(60)


def test_restarts_back_off_to_a_minute_and_start_over_after_a_healthy_stretch() -> None:
    now = 0.0
    backoff = Backoff(1.0, 60.0, healthy_s=300.0, clock=lambda: now)
    delays = [backoff.next_delay() for _ in range(8)]
    assert delays == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    now = 60.0 + 299.0  # the last wait ended at 60 s: not yet five healthy minutes
    assert backoff.next_delay() == 60.0
    now += 60.0 + 300.0
    assert backoff.next_delay() == 1.0
    assert backoff.next_delay() == 2.0
    backoff.reset()
    assert backoff.next_delay() == 1.0
    with pytest.raises(ValueError, match="back-off"):
        Backoff(2.0, 1.0)


class StuckCamera(Camera):
    """Hangs on its 4th frame until ``release`` is set (``stuck`` says it hangs); ``moved_on`` is set once it
    is asked for the 5th, so the 4th was processed."""

    def __init__(self, image: np.ndarray) -> None:
        super().__init__("stuck")
        self.image = image
        self.stuck = threading.Event()
        self.release = threading.Event()
        self.moved_on = threading.Event()

    def _grab(self) -> np.ndarray:
        if self._sequence == 3:
            self.stuck.set()
            self.release.wait(60)
        if self._sequence == 4:
            self.moved_on.set()
        return self.image


def test_the_watchdog_is_told_of_a_loop_stuck_longer_than_it_allows() -> None:
    now = 0.0
    camera = StuckCamera(_table([LEFT]))
    loop = LiveLoop(lambda: camera, LiveScorer(FakeTable({"left": 3})), Broadcaster(), clock=lambda: now)
    assert not loop.healthy(60)  # not running
    loop.start()
    try:
        assert camera.stuck.wait(60)
        assert loop.healthy(60)
        now = 61.0
        assert not loop.healthy(60)
        camera.release.set()
        assert camera.moved_on.wait(60)
        assert loop.healthy(60)
    finally:
        camera.release.set()
        loop.stop()
    assert not loop.healthy(60)


def test_a_loop_waiting_to_retry_is_not_stuck() -> None:
    now = 0.0
    pausing = threading.Event()
    resume = threading.Event()

    def wait(_seconds: float) -> None:
        pausing.set()
        resume.wait(60)

    loop = LiveLoop(
        Cameras(_table([LEFT]), 10**9, []),
        LiveScorer(FakeTable({})),
        Broadcaster(),
        clock=lambda: now,
        wait=wait,
    )
    loop.start()
    try:
        assert pausing.wait(60)
        now = 1000.0
        assert loop.healthy(60)
    finally:
        resume.set()
        loop.stop()


def test_each_live_score_is_recorded_and_a_failed_record_stops_nothing() -> None:
    table = FakeTable({"left": 3})
    recorded: list[list[int | None]] = []

    def record(boards: Sequence[Mapping[str, Any]]) -> None:
        recorded.append([b["total"] for b in boards])
        if len(recorded) == 1:
            raise OSError("disk full")

    hub = Broadcaster()
    sub = hub.subscribe()
    scorer = LiveScorer(table, motion=MotionDetector(still_frames=2))
    loop = LiveLoop(Cameras(_table([LEFT]), 0, []), scorer, hub, record=record)
    loop.start()
    try:
        _wait_for(hub, sub, lambda e: e.kind == "score")
        table.points = {"left": 5}
        scorer.motion.reset()  # as after a hand: the board is located and read afresh
        _wait_for(hub, sub, lambda e: e.kind == "score")
    finally:
        loop.stop()
    # The first record failed (logged); the loop went on and recorded the next score.
    assert recorded[:2] == [[3], [5]]


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """Four frames of one board, then four after it was swapped for another; and the two true totals."""
    folder = tmp_path_factory.mktemp("replay")
    rules = get_game("alices-garden")
    options = PhotoOptions(size_wh=(1600, 900), max_tilt_deg=30)
    totals = []
    for n, seed in enumerate((1, 3)):
        photo = render_photo(RenderSpec(("alices-garden",), seed, options=options), 0)
        for i in range(4):
            (folder / f"{4 * n + i:04d}.jpg").write_bytes(photo.jpeg)
        state = {**photo.truth["boards"][0]["state"], "unplaced_bonus_tiles": 0}
        result = rules.score(rules.parse(state))
        assert isinstance(result, ScoreBreakdown)
        totals.append(result.total)
    assert totals[0] != totals[1]
    return folder, totals


def _real_scorer() -> LiveScorer:
    return LiveScorer(
        functools.partial(score_image, game="alices-garden"), motion=MotionDetector(still_frames=1)
    )


def test_the_loop_scores_rendered_photos_with_the_shipped_models(replay: tuple[Path, list[int]]) -> None:
    folder, totals = replay
    hub = Broadcaster()
    sub = hub.subscribe()
    loop = LiveLoop(lambda: ReplayCamera(folder), _real_scorer(), hub, retry_s=0.05)
    loop.start()
    try:
        events = _wait_for(
            hub, sub, lambda e: e.kind == "score" and e.payload["totals"] == {"board 1": totals[1]}
        )
    finally:
        loop.stop()
    assert _scores(events) == [{"board 1": totals[0]}, {"board 1": totals[1]}]
    assert hub.latest()[-1].kind == "score"


def test_measure_live_reports_speed_and_the_share_scored(replay: tuple[Path, list[int]]) -> None:
    folder, _ = replay
    with ReplayCamera(folder) as camera:
        result = measure_live(camera, _real_scorer(), 8)
    # Each board is located when the table is still, read once more to confirm, then left alone.
    assert result["frames"] == 8 and result["scored_pct"] == 50.0
    assert result["fps"] > 0 and result["process_fps"] > result["fps"]
    assert result["process_ms"]["median"] <= result["process_ms"]["p95"]
