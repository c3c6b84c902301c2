"""Live scoring: watch the table through the camera and publish each board's score when it settles.

Three layers, so that the logic is tested without threads or a camera:

* :class:`MotionDetector` compares each frame with the one before it, grey, about 160 px wide and blurred,
  so sensor noise and JPEG blocks do not count; a pixel changed by more than ``threshold`` grey levels is
  moving. The table is still after ``still_frames`` quiet frames in a row, and so is each board's area.
* :class:`LiveScorer` (pure: frames in, :class:`LiveEvent` out) scores a frame only where it is worth it.
  Motion anywhere means boards may have been placed, moved or taken away, so once the whole table is still
  they are located afresh. Motion over a board's area marks it occluded (a hand over it) and unread; once
  that area is quiet the board is read again at its known corners (``known_boards=``: no locating, a few
  milliseconds a board), even while hands move elsewhere. A board read at its known corners that reads
  badly may have been nudged: it is located afresh before that reading is believed. A board a locating
  misses (glare, a hand over its edge) is read where it lay before, the camera being fixed, and kept only
  if it reads surely there. A board is read until
  ``confirm_frames`` readings in a row agree, then not again until something moves over it, so a settled
  table costs only the motion check. A new state is published only once confirmed, so a reading spoiled
  for one frame (a shadow, a tile half put down) never reaches the screen; a board that is gone must be
  missing from as many locatings in a row. Boards are tied to the seats of a :class:`TableSetup`, or
  without one named "board 1".."board 4" in reading order. A hand held perfectly still is not seen as
  a hand: what is read under it is confirmed like any reading, its low-confidence cells flagged.
* :class:`LiveLoop` runs a camera into a scorer on a background thread and hands the events to a
  :class:`Broadcaster`, which fans them out to any number of listeners (TV pages) without ever waiting for
  them. A lost camera is reported and reopened with back-off; any other error is logged, shown on the TV,
  and the loop starts over after a back-off of its own. The loop reads a frame only after the last one is
  processed, so it never falls behind: frames that arrive meanwhile are simply not seen.

Event ids rise by one per event, so a listener can tell what it missed; a listener that subscribes late is
given the latest score and status at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.seats import TableSetup, assign, reading_order
from device.camera import Camera, CameraError, Frame
from device.photo import ScoredBoard
from vision.geometry import Points
from vision.pipeline import NoBoardError

logger = logging.getLogger(__name__)

# A board's motion area reaches this share of its size beyond its edges, so a hand about to reach over the
# board already counts as over it.
BOARD_MARGIN = 0.1

EventKind = Literal["score", "status"]


class ScoreFn(Protocol):
    """Reads and scores the boards of a photo, e.g. ``functools.partial(score_image, game="zen-garden")``.

    ``known_boards`` are oriented corners (TL, TR, BR, BL) of boards to read without locating them; with
    None every board is located, and NoBoardError raised when there is none.
    """

    def __call__(
        self, image: NDArray[np.uint8], *, known_boards: Sequence[Points] | None
    ) -> list[ScoredBoard]: ...


@dataclass(frozen=True)
class LiveEvent:
    """Something to show: ``kind`` "score" (every board's reading and total) or "status" (a message).

    ``id`` rises by one per event; ``timestamp`` is in seconds since the epoch. ``payload`` is JSON-ready
    and shared by every listener, so it is never changed after the event is made.
    """

    kind: EventKind
    id: int
    timestamp: float
    payload: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "timestamp": self.timestamp, "payload": dict(self.payload)}


class MotionDetector:
    """Which pixels changed since the previous frame, at a small scale; still after a run of quiet frames.

    ``threshold`` is in grey levels; a frame (or a board's area) moves when more than ``moving_share`` of
    its pixels changed. The first frame, and one of a new size, counts as all moving.
    """

    def __init__(
        self, width: int = 160, threshold: int = 20, moving_share: float = 0.003, still_frames: int = 3
    ) -> None:
        if width < 8 or threshold < 1 or not 0 <= moving_share < 1 or still_frames < 1:
            raise ValueError(
                "motion: expected width >= 8, threshold >= 1, moving_share in 0..1 and still_frames >= 1, "
                f"got {width}, {threshold}, {moving_share}, {still_frames}"
            )
        self.width = width
        self.threshold = threshold
        self.moving_share = moving_share
        self.still_frames = still_frames
        self.mask: NDArray[np.bool_] = np.ones((1, 1), np.bool_)
        self.quiet_frames = 0
        self._previous: NDArray[np.uint8] | None = None

    def update(self, image: NDArray[np.uint8]) -> float:
        """Takes the next frame (BGR); returns the share of its pixels that changed."""
        h, w = image.shape[:2]
        # Every 4th pixel is plenty at 1/14 scale and makes the area average 10x cheaper on a full frame.
        step = max(1, w // (self.width * 4))
        size = (self.width, max(1, round(h * self.width / w)))
        small = cv2.resize(image[::step, ::step], size, interpolation=cv2.INTER_AREA)
        grey = np.asarray(cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0), np.uint8)
        if self._previous is None or self._previous.shape != grey.shape:
            self.mask = np.ones(grey.shape, np.bool_)
        else:
            self.mask = np.asarray(cv2.absdiff(grey, self._previous) > self.threshold, np.bool_)
        self._previous = grey
        share = float(self.mask.mean())
        self.quiet_frames = 0 if share > self.moving_share else self.quiet_frames + 1
        return share

    @property
    def still(self) -> bool:
        return self.quiet_frames >= self.still_frames

    def share_within(self, corners_xy: Points, size_wh: tuple[int, int], grow: float = 0.0) -> float:
        """The share of changed pixels inside a quad (photo pixels of a ``size_wh`` frame) grown about its
        centre by ``grow`` of its size."""
        mask_h, mask_w = self.mask.shape
        centre = corners_xy.mean(axis=0)
        quad = (centre + (corners_xy - centre) * (1.0 + grow)) * (mask_w / size_wh[0], mask_h / size_wh[1])
        area = np.zeros((mask_h, mask_w), np.uint8)
        cv2.fillPoly(area, [np.round(quad).astype(np.int32)], 1)
        inside = area.astype(np.bool_)
        return float(self.mask[inside].mean()) if inside.any() else 0.0

    def reset(self) -> None:
        """Forget the previous frame: the next one starts a new wait for stillness."""
        self._previous = None
        self.quiet_frames = 0


@dataclass
class _Board:
    slot: str
    corners_xy: Points
    quiet: int
    unread: bool = True


@dataclass(frozen=True)
class _Status:
    code: str
    message: str
    occluded: tuple[str, ...] = ()


def _same_place(a: Points, b: Points) -> bool:
    """Whether two outlines are one board's: their middles within a quarter of its size."""
    size = float(np.sqrt(np.ptp(a[:, 0]) * np.ptp(a[:, 1])))
    return float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0))) < 0.25 * size


class LiveScorer:
    """Frames in, events out: decides which frames to score and which readings to publish (see module).

    ``whole_table`` is for games whose boards are scored together (Zen Garden's majorities): then every
    board is read at once, and only when none is occluded. ``scored`` counts the frames that were read.

    A status payload is ``{"status", "message", "occluded"}``; ``status`` is "watching", "occluded" (the
    slots under a hand in ``occluded``), "no_board", or the code given to :meth:`interrupted` (the loop
    uses "camera_gone", and "error" while it restarts after one). A score payload is
    ``{"boards": [...], "totals": {slot: total}}``.
    """

    def __init__(
        self,
        score: ScoreFn,
        setup: TableSetup | None = None,
        *,
        confirm_frames: int = 2,
        whole_table: bool = False,
        motion: MotionDetector | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if confirm_frames < 1:
            raise ValueError(f"confirm_frames: expected 1 or more, got {confirm_frames}")
        self._score = score
        self.setup = setup
        self.confirm_frames = confirm_frames
        self.whole_table = whole_table
        self.motion = motion or MotionDetector()
        self._clock = clock
        self.scored = 0
        self._boards: list[_Board] = []
        self._relocate = True
        # After one locating to check a bad reading at known corners, a second bad one is the board itself.
        self._recheck_spent = False
        self._no_board = False
        # Per slot: the latest reading's key and how many readings in a row had it (None: board missing).
        self._pending: dict[str, tuple[str | None, int]] = {}
        self._published: dict[str, tuple[str, dict[str, Any]]] = {}
        self._status: _Status | None = None
        self._last_id = 0

    def feed(self, frame: Frame) -> list[LiveEvent]:
        """Takes the next camera frame; returns the events it caused (often none)."""
        image = frame.image
        size_wh = (image.shape[1], image.shape[0])
        motion = self.motion
        if motion.update(image) > motion.moving_share:
            self._relocate = True
            self._recheck_spent = False
        for board in self._boards:
            if motion.share_within(board.corners_xy, size_wh, BOARD_MARGIN) > motion.moving_share:
                board.quiet = 0
                board.unread = True
                # Readings from before the hand came are no part of the run that confirms what it left.
                self._pending.pop(board.slot, None)
            else:
                board.quiet += 1
        changed = self._locate(image, size_wh) if self._relocate and motion.still else self._reread(image)
        events = [self._score_event()] if changed else []
        return events + self._set_status(self._current_status())

    def interrupted(self, code: str, message: str) -> list[LiveEvent]:
        """Frames stopped (camera gone, scoring failed): publish why; the boards are located afresh after."""
        self.motion.reset()
        # The camera may come back moved: known corners would read the wrong pixels.
        self._boards = []
        self._relocate = True
        self._no_board = False
        return self._set_status(_Status(code, message))

    def _locate(self, image: NDArray[np.uint8], size_wh: tuple[int, int]) -> bool:
        self.scored += 1
        self._relocate = False
        try:
            found = self._score(image, known_boards=None)
        except NoBoardError:
            found = []
        found += self._where_they_were(image, found)
        self._no_board = not found
        slots = self._slots(found, size_wh)
        self._boards = [
            _Board(slot, board.reading.corners_xy, self.motion.still_frames) for slot, board in slots
        ]
        seen = {slot for slot, _ in slots}
        for slot in [s for s in self._pending if s not in seen and s not in self._published]:
            del self._pending[slot]
        changed = False
        for slot, board in slots:
            changed |= self._confirm(slot, board)
        for slot in [s for s in self._published if s not in seen]:
            changed |= self._confirm(slot, None)
            if slot in self._published:
                # Not yet confirmed gone: look again on the next still frame rather than wait for motion.
                self._relocate = True
        return changed

    def _where_they_were(self, image: NDArray[np.uint8], found: list[ScoredBoard]) -> list[ScoredBoard]:
        """The boards this locating missed, read where they lay before: the camera is fixed, and a board not
        moved is still there though glare or a hand at its edge hid its outline. Kept only when read surely
        (a board taken away leaves the table, read there, unsure)."""
        missed = [
            b.corners_xy
            for b in self._boards
            if not any(_same_place(b.corners_xy, f.reading.corners_xy) for f in found)
        ]
        if not missed:
            return []
        read = self._score(image, known_boards=missed)
        return [s for s in read if s.reading.trusted and s.reading.in_frame and not s.reading.low_confidence]

    def _reread(self, image: NDArray[np.uint8]) -> bool:
        still = self.motion.still_frames
        ready = [b for b in self._boards if b.unread and b.quiet >= still]
        if self.whole_table:
            ready = self._boards if ready and all(b.quiet >= still for b in self._boards) else []
        if not ready:
            return False
        self.scored += 1
        found = self._score(image, known_boards=[b.corners_xy for b in ready])
        changed = False
        bad = False
        for board, scored in zip(ready, found, strict=True):
            reading = scored.reading
            if not (reading.trusted and reading.in_frame) and not self._recheck_spent:
                bad = True
                continue
            changed |= self._confirm(board.slot, scored)
        if bad:
            self._relocate = True
            self._recheck_spent = True
        return changed

    def _slots(self, found: list[ScoredBoard], size_wh: tuple[int, int]) -> list[tuple[str, ScoredBoard]]:
        corners = [board.reading.corners_xy for board in found]
        if self.setup is None:
            return [(f"board {n + 1}", found[i]) for n, i in enumerate(reading_order(corners))]
        slots = []
        for board, match in zip(found, assign(self.setup, corners, size_wh), strict=True):
            if match.seat is None:
                # A board no seat can claim would be scored for nobody, or for the wrong player.
                logger.info("a board is not scored live: %s", match.reason)
            else:
                slots.append((match.seat, board))
        return slots

    def _confirm(self, slot: str, board: ScoredBoard | None) -> bool:
        """Counts one reading of ``slot`` (None: board missing); True when the published boards changed."""
        data = None if board is None else self._board_json(slot, board)
        key = None if data is None else json.dumps([data["state"], data["total"]], sort_keys=True)
        previous = self._pending.get(slot)
        count = previous[1] + 1 if previous is not None and previous[0] == key else 1
        self._pending[slot] = (key, count)
        if count < self.confirm_frames:
            return False
        for known in self._boards:
            if known.slot == slot:
                known.unread = False
        if key is None or data is None:
            return self._published.pop(slot, None) is not None
        if slot in self._published and self._published[slot][0] == key:
            return False
        self._published[slot] = (key, data)
        return True

    def _board_json(self, slot: str, board: ScoredBoard) -> dict[str, Any]:
        data = board.to_json()
        if self.setup is not None:
            seat = next(s for s in self.setup.seats if s.name == slot)
            data = {**data, "seat": seat.name, "player": seat.player}
        return data

    def _score_event(self) -> LiveEvent:
        if self.setup is None:
            order = sorted(self._published)
        else:
            order = [s.name for s in self.setup.seats if s.name in self._published]
        boards = [self._published[slot][1] for slot in order]
        totals = {slot: board["total"] for slot, board in zip(order, boards, strict=True)}
        return self._event("score", {"boards": boards, "totals": totals})

    def _current_status(self) -> _Status:
        still = self.motion.still_frames
        occluded = tuple(b.slot for b in self._boards if b.quiet < still)
        if occluded:
            names = [f"{slot}'s board" if self.setup is not None else slot for slot in occluded]
            listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
            return _Status("occluded", f"a hand is over {listed}", occluded)
        if self._no_board:
            return _Status("no_board", "no board in view")
        count = len(self._boards)
        if not count:
            return _Status("watching", "looking for boards")
        return _Status("watching", f"watching {count} board{'s' if count > 1 else ''}")

    def _set_status(self, status: _Status) -> list[LiveEvent]:
        if status == self._status:
            return []
        self._status = status
        payload = {"status": status.code, "message": status.message, "occluded": list(status.occluded)}
        return [self._event("status", payload)]

    def _event(self, kind: EventKind, payload: Mapping[str, Any]) -> LiveEvent:
        self._last_id += 1
        return LiveEvent(kind, self._last_id, self._clock(), payload)


@dataclass(eq=False)
class Subscription:
    """One listener's queue; when it is full the oldest event is dropped (counted in ``dropped``)."""

    size: int
    events: deque[LiveEvent] = field(init=False)
    dropped: int = 0
    # Set while a coroutine waits in Broadcaster.next: how to wake it from the publishing thread.
    waker: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def __post_init__(self) -> None:
        self.events = deque(maxlen=self.size)


class Broadcaster:
    """Thread-safe fan-out of events; publishing never waits for a listener.

    It remembers the latest event of each kind, and a new subscription starts with them, so a page that
    (re)connects shows the current scores and status at once.
    """

    def __init__(self, queue_size: int = 32) -> None:
        if queue_size < 2:
            raise ValueError(f"queue_size: expected 2 or more (a score and a status), got {queue_size}")
        self.queue_size = queue_size
        self._changed = threading.Condition()
        self._subscriptions: list[Subscription] = []
        self._latest: dict[str, LiveEvent] = {}

    def publish(self, event: LiveEvent) -> None:
        with self._changed:
            self._latest[event.kind] = event
            for sub in self._subscriptions:
                self._push(sub, event)
            self._changed.notify_all()

    def latest(self) -> list[LiveEvent]:
        """The latest event of each kind, oldest first."""
        with self._changed:
            return sorted(self._latest.values(), key=lambda e: e.id)

    def subscribe(self) -> Subscription:
        sub = Subscription(self.queue_size)
        with self._changed:
            sub.events.extend(sorted(self._latest.values(), key=lambda e: e.id))
            self._subscriptions.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._changed:
            if sub in self._subscriptions:
                self._subscriptions.remove(sub)

    def get(self, sub: Subscription, timeout: float) -> LiveEvent | None:
        """The subscription's next event, waiting up to ``timeout`` seconds (None if none came)."""
        with self._changed:
            self._changed.wait_for(lambda: bool(sub.events), timeout)
            return sub.events.popleft() if sub.events else None

    async def next(self, sub: Subscription, timeout: float) -> LiveEvent | None:
        """:meth:`get` for asyncio code: waits without holding a thread (None after ``timeout`` seconds)."""
        woken = asyncio.Event()
        with self._changed:
            if sub.events:
                return sub.events.popleft()
            sub.waker = (asyncio.get_running_loop(), woken)
        try:
            await asyncio.wait_for(woken.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            with self._changed:
                sub.waker = None
        with self._changed:
            return sub.events.popleft() if sub.events else None

    @staticmethod
    def _push(sub: Subscription, event: LiveEvent) -> None:
        if len(sub.events) == sub.size:
            sub.dropped += 1
        sub.events.append(event)
        if sub.waker is not None:
            loop, woken = sub.waker
            try:
                loop.call_soon_threadsafe(woken.set)
            except RuntimeError:
                # Its event loop has closed: nobody is waiting any more.
                sub.waker = None


@dataclass(frozen=True)
class LiveStats:
    """How the loop is doing: frames read and scored, frames per second lately, and the camera's state."""

    frames: int
    scored: int
    fps: float
    camera_ok: bool
    camera: str | None
    problem: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "frames": self.frames,
            "scored": self.scored,
            "fps": round(self.fps, 2),
            "camera_ok": self.camera_ok,
            "camera": self.camera,
            "problem": self.problem,
        }


class Backoff:
    """How long to wait before the next retry: ``first_s``, doubling up to ``max_s`` while failures follow
    one another, so a lasting fault costs little while a passing one is retried soon.

    It starts over at ``first_s`` on :meth:`reset`, or on its own once ``healthy_s`` seconds (of ``clock``)
    went by after the last wait without a failure; None: only on :meth:`reset`.
    """

    def __init__(
        self,
        first_s: float,
        max_s: float,
        healthy_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 < first_s <= max_s or (healthy_s is not None and healthy_s <= 0):
            raise ValueError(
                "back-off: expected 0 < first_s <= max_s and healthy_s > 0, "
                f"got {first_s}, {max_s}, {healthy_s}"
            )
        self.first_s = first_s
        self.max_s = max_s
        self.healthy_s = healthy_s
        self._clock = clock
        self._next = first_s
        self._resumed: float | None = None

    def next_delay(self) -> float:
        """The wait before retrying after a failure now; the one after it is twice as long."""
        now = self._clock()
        if self.healthy_s is not None and self._resumed is not None and now - self._resumed >= self.healthy_s:
            self._next = self.first_s
        delay = self._next
        self._next = min(delay * 2, self.max_s)
        self._resumed = now + delay
        return delay

    def reset(self) -> None:
        self._next = self.first_s
        self._resumed = None


# What the TV shows while the loop starts over after an unexpected error (the log has the details).
RESTARTING = "the live scorer hit a problem and is restarting"


class LiveLoop:
    """Reads ``open_camera()``'s frames into ``scorer`` on a background thread and publishes the events.

    A camera that cannot be opened or stops giving frames is closed, reported ("camera is gone:
    reconnecting") and opened again after ``retry_s`` seconds, doubling up to ``max_retry_s`` while it
    keeps failing. Any other error, from the camera, the scorer or the broadcaster, is logged, shown
    (:data:`RESTARTING`) and the loop starts over with the camera reopened, after ``restart_s`` seconds
    doubling up to ``max_restart_s``, back to ``restart_s`` after ``healthy_s`` seconds without one: the web
    app keeps running, so live scoring must not quietly end behind it. KeyboardInterrupt and SystemExit
    still end it. ``clock`` (monotonic seconds) and ``wait`` (pauses for a number of seconds; by default
    until :meth:`stop`) are for tests.

    ``fps`` in :meth:`stats` counts the frames of the last ``fps_window_s`` seconds. ``record`` is given the
    boards of each score published (:class:`device.history.LiveRecord`).
    """

    def __init__(
        self,
        open_camera: Callable[[], Camera],
        scorer: LiveScorer,
        broadcaster: Broadcaster,
        *,
        record: Callable[[Sequence[Mapping[str, Any]]], object] | None = None,
        retry_s: float = 0.5,
        max_retry_s: float = 10.0,
        restart_s: float = 1.0,
        max_restart_s: float = 60.0,
        healthy_s: float = 300.0,
        fps_window_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], object] | None = None,
    ) -> None:
        self._open_camera = open_camera
        self.scorer = scorer
        self.broadcaster = broadcaster
        self.record = record
        self.fps_window_s = fps_window_s
        self._retries = Backoff(retry_s, max_retry_s, clock=clock)
        self._restarts = Backoff(restart_s, max_restart_s, healthy_s, clock)
        self._clock = clock
        self._stop = threading.Event()
        self._wait = wait or self._stop.wait
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._device: Camera | None = None
        self._frames = 0
        self._times: deque[float] = deque()
        self._started = 0.0
        self._camera: str | None = None
        self._camera_ok = False
        self._problem: str | None = None
        self._latest: Frame | None = None
        # The watchdog's view (healthy()): whether run() runs, when it last finished a step, whether it waits.
        self._running = False
        self._beat = 0.0
        self._pausing = False

    def latest_frame(self) -> Frame | None:
        """The last frame the camera gave (for the live preview); None before one or while it is gone."""
        with self._lock:
            return self._latest if self._camera_ok else None

    def start(self) -> None:
        """Runs :meth:`run` on a background thread."""
        if self._thread is not None:
            raise RuntimeError("the live loop is already running")
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="live-scoring", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ends the loop, waiting up to ``timeout`` s for the frame in hand (a camera read can take 2 s)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                # Kept, so that start() refuses to run a second loop over the same scorer.
                logger.warning("the live loop did not stop within %g s", timeout)
            else:
                self._thread = None

    def healthy(self, within_s: float) -> bool:
        """Whether the loop runs and is not stuck: it finished a step (a frame, a retry) in the last
        ``within_s`` seconds, or is waiting on purpose before a retry. The systemd watchdog asks."""
        with self._lock:
            return self._running and (self._pausing or self._clock() - self._beat < within_s)

    def stats(self) -> LiveStats:
        now = time.monotonic()
        with self._lock:
            self._forget_before(now - self.fps_window_s)
            elapsed = min(self.fps_window_s, now - self._started)
            fps = len(self._times) / elapsed if elapsed > 0 else 0.0
            return LiveStats(
                self._frames, self.scorer.scored, fps, self._camera_ok, self._camera, self._problem
            )

    def _forget_before(self, cutoff: float) -> None:
        while self._times and self._times[0] < cutoff:
            self._times.popleft()

    def run(self) -> None:
        """Reads and scores frames in the calling thread until :meth:`stop` (see the class)."""
        with self._lock:
            self._running = True
            self._started = time.monotonic()
            self._beat = self._clock()
        try:
            while not self._stop.is_set():
                try:
                    self._step()
                except Exception as exc:
                    self._restart(exc)
                with self._lock:
                    self._beat = self._clock()
        finally:
            self._close_camera()
            with self._lock:
                self._camera_ok = False
                self._running = False

    def _step(self) -> None:
        """Opens the camera if it is not open, then reads one frame into the scorer."""
        if self._device is None:
            try:
                self._device = self._open_camera()
            except CameraError as exc:
                self._lost(exc)
                return
            with self._lock:
                self._camera = self._device.describe()
        try:
            frame = self._device.read()
        except CameraError as exc:
            self._close_camera()
            self._lost(exc)
            return
        # Only a frame proves the camera back: one that opens but gives nothing keeps backing off.
        self._retries.reset()
        with self._lock:
            self._frames += 1
            self._times.append(frame.timestamp)
            # Trimmed here, not only in stats(): nothing may ever ask, and a day at 30 fps would keep
            # 2.6 million timestamps (80 MB).
            self._forget_before(frame.timestamp - self.fps_window_s)
            self._camera_ok = True
            self._problem = None
            self._latest = frame
        self._process(frame)

    def _process(self, frame: Frame) -> None:
        for event in self.scorer.feed(frame):
            self.broadcaster.publish(event)
            if event.kind == "score" and self.record is not None:
                try:
                    self.record(event.payload["boards"])
                except Exception:
                    # The TV shows the score all the same; the history is told at the next one.
                    logger.exception("a live score was not recorded in the history")

    def _lost(self, exc: CameraError) -> None:
        with self._lock:
            self._camera_ok = False
            self._problem = str(exc)
        events = self.scorer.interrupted("camera_gone", f"camera is gone: reconnecting ({exc})")
        if events:
            logger.warning("camera is gone: %s", exc)
        for event in events:
            self.broadcaster.publish(event)
        self._pause(self._retries.next_delay())

    def _restart(self, exc: Exception) -> None:
        """After an unexpected error: log it, show it, close the camera and pause before starting over."""
        delay = self._restarts.next_delay()
        logger.error("live scoring failed; starting over in %g s", delay, exc_info=exc)
        self._close_camera()
        with self._lock:
            self._camera_ok = False
            self._problem = f"{RESTARTING} ({type(exc).__name__}: {exc})"
        try:
            for event in self.scorer.interrupted("error", RESTARTING):
                self.broadcaster.publish(event)
        except Exception:
            logger.exception("the live scorer's problem could not be shown on the TV")
        self._pause(delay)

    def _pause(self, delay: float) -> None:
        with self._lock:
            self._pausing = True
        try:
            self._wait(delay)
        finally:
            with self._lock:
                self._pausing = False
                self._beat = self._clock()

    def _close_camera(self) -> None:
        camera, self._device = self._device, None
        if camera is None:
            return
        try:
            camera.close()
        except Exception:
            # A camera that fails even to close is dropped all the same: the next one is opened afresh.
            logger.exception("the camera did not close cleanly")


def measure_live(camera: Camera, scorer: LiveScorer, frames: int) -> dict[str, Any]:
    """``garden-scorer-lab bench --live``: reads ``frames`` frames into ``scorer`` as the live loop does.

    ``fps`` is frames per second end to end, ``read_fps`` and ``process_fps`` what reading or processing
    alone would sustain; ``scored_pct`` is the share of frames that were read for boards.
    """
    if frames < 1:
        raise ValueError(f"frames: expected 1 or more, got {frames}")
    read_ms: list[float] = []
    process_ms: list[float] = []
    scored_before = scorer.scored
    started = time.perf_counter()
    for _ in range(frames):
        t0 = time.perf_counter()
        frame = camera.read()
        t1 = time.perf_counter()
        scorer.feed(frame)
        t2 = time.perf_counter()
        read_ms.append((t1 - t0) * 1000)
        process_ms.append((t2 - t1) * 1000)
    elapsed = time.perf_counter() - started

    def latency(values: list[float]) -> dict[str, float]:
        return {
            "median": round(float(np.median(values)), 2),
            "p95": round(float(np.percentile(values, 95)), 2),
        }

    def rate(values: list[float]) -> float:
        # The floor keeps a clock too coarse to see a fake camera's read from dividing by zero.
        return round(1000 * len(values) / max(sum(values), 1e-6), 2)

    return {
        "frames": frames,
        "fps": round(frames / elapsed, 2),
        "read_fps": rate(read_ms),
        "process_fps": rate(process_ms),
        "scored_pct": round(100.0 * (scorer.scored - scored_before) / frames, 3),
        "read_ms": latency(read_ms),
        "process_ms": latency(process_ms),
    }
