"""``garden-scorer-lab bench --reliability``'s soak: the real live loop over a long scripted game, memory
watched.

A :class:`Story` is what a steady camera over a table sees, step by step: an empty table, a board laid down,
hands reaching over it, its state changing, the camera unplugged for a while and back, the board taken away.
Its photos are rendered once per scene with lab/synth (cached under the temp folder) and played as fast
as the loop takes them, so 20,000 frames take minutes. The real :class:`LiveLoop` and :class:`LiveScorer`
with the shipped models run on them; the camera itself checks, before each frame, what the previous one
made the loop publish, so every step is judged against its truth frame by frame: the published totals equal
the step's (a table step), the status says a hand is over the board (a hand step) or the camera is gone.

A TV on the web app (a Server-Sent Events client on /api/events) drops its connection every so often and
reconnects with Last-Event-ID, and must end up showing the loop's latest score and status.

Scenes whose photos the pipeline misreads on their own are skipped when the story is built: the soak judges
the loop, not the reader's accuracy (``garden-scorer-lab bench`` measures that).
"""

from __future__ import annotations

import bisect
import gc
import http.client
import itertools
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from device.camera import Camera, CameraError
from device.live import Broadcaster, LiveLoop, LiveScorer
from lab.reliability.loadtest import quiet
from lab.serving import serve_in_thread

GAME = "alices-garden"
# Small enough that a frame's motion check and a copy stay cheap, large enough that the models read it.
SIZE_WH = (1600, 900)
MAX_TILT_DEG = 30.0
# The pack the shipped Alice's Garden model reads best; the soak is about the loop, not the art.
PACK = "ink"
STATES_PER_SCENE = 3
HANDS_PER_SCENE = 3
RENDER_VERSION = 2
# The first scene the shipped models read right in every state (render_scenes checks each anyway).
FIRST_SEED = 4

StepKind = Literal["table", "hand", "camera_gone"]


@dataclass(frozen=True)
class Step:
    """``frames`` ticks of one situation: ``photos`` (cycled, one per frame) or, camera_gone, no frame.

    ``totals`` is what a table step must end up published ({} for an empty table).
    """

    kind: StepKind
    frames: int
    photos: tuple[int, ...] = ()
    totals: dict[str, int] | None = None
    label: str = ""


@dataclass
class Scene:
    """One table seen by one steady camera: its photos (empty, each state, hands over state 0) and truths."""

    seed: int
    empty: int
    states: list[int]
    totals: list[int]
    hands: list[int]


def rss_bytes() -> int:
    """This process's resident memory, from /proc (0 where there is none)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


# Rendering


def _shoot(seed: int, board: Any | None, hand: int) -> NDArray[np.uint8]:
    """A photo of ``board`` (None: the bare table) with, for ``hand`` > 0, an arm over it.

    The synth's photograph() draws camera, table, light and noise from one random stream, so a hand or a
    new state would change them all. A steady camera keeps them, so each gets a stream of its own here.
    """
    from lab.synth import camera as synth

    model = synth.random_camera(np.random.default_rng([seed, 0]), SIZE_WH)
    table = synth._table(SIZE_WH, np.random.default_rng([seed, 4]))
    if board is None:
        image = table
    else:
        placing = np.random.default_rng([seed, 2])
        placements = synth.place_boards([board], placing)
        pose = synth.frame_scene(placements, model, placing, MAX_TILT_DEG)
        # The same draws for shadows and board sides with or without a hand: only the hand differs.
        layers, _ = synth._draw_layers(
            model, pose, placements, np.random.default_rng([seed, 3, hand]), 1.0 if hand else 1e-300
        )
        map_x, map_y = model.undistort_maps()
        map_x -= layers.origin[0]
        map_y -= layers.origin[1]

        def bend(layer: NDArray[np.float32], outside: float) -> NDArray[np.float32]:
            return np.asarray(
                cv2.remap(
                    layer, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=outside
                ),
                np.float32,
            )

        image = table * bend(layers.shade, 1.0)[..., None]
        image = image * (1 - bend(layers.alpha, 0.0)[..., None]) + bend(layers.colour, 0.0)
    effects = np.random.default_rng([seed, 5])
    synth._light(image, effects)
    return synth._sensor(np.clip(image, 0, 255).astype(np.uint8), effects)


def _render_scene(seed: int, folder: Path) -> dict[str, Any]:
    """Writes the scene's photos as PNG (lossless, so repeats are identical frames); returns their names,
    the states' true totals and ``reads_true``: whether the pipeline reads every state right on its own.
    A scene that fails is left unfinished."""
    from lab.synth.art import get_pack
    from lab.synth.games import get_artist
    from lab.synth.render import DRAW_PX_PER_MM
    from lab.synth.scene import make_board
    from scoring.registry import get_game
    from vision.profile import default_profile

    rules = get_game(GAME)
    profile = default_profile(GAME)
    names: dict[str, Any] = {"empty": f"{seed}-empty.png", "states": [], "totals": [], "hands": []}
    boards = []
    for k in range(STATES_PER_SCENE):
        board = make_board(
            get_artist(GAME), profile, get_pack(PACK), np.random.default_rng([seed, 1, k]), DRAW_PX_PER_MM
        )
        # The camera alone cannot see the unplaced bonus tiles: the live score counts none.
        breakdown = rules.score(rules.parse({**board.state, "unplaced_bonus_tiles": 0}))
        total = int(breakdown.total)  # type: ignore[union-attr]
        image = _shoot(seed, board, 0)
        if _read_total(image) != total:
            return {**names, "reads_true": False}
        names["states"].append(f"{seed}-state{k}.png")
        names["totals"].append(total)
        cv2.imwrite(str(folder / names["states"][-1]), image)
        boards.append(board)
    cv2.imwrite(str(folder / names["empty"]), _shoot(seed, None, 0))
    for hand in range(1, HANDS_PER_SCENE + 1):
        names["hands"].append(f"{seed}-hand{hand}.png")
        cv2.imwrite(str(folder / names["hands"][-1]), _shoot(seed, boards[0], hand))
    return {**names, "reads_true": True}


def _read_total(image: NDArray[np.uint8]) -> int | None:
    """The total the pipeline reads for the photo's one board (None: no board, several, or unscored)."""
    from device.photo import score_image
    from vision.pipeline import NoBoardError

    try:
        boards = score_image(image, GAME)
    except NoBoardError:
        return None
    totals = [board.to_json()["total"] for board in boards]
    return totals[0] if len(totals) == 1 else None


def render_scenes(
    count: int, folder: Path | None = None, first_seed: int = FIRST_SEED
) -> tuple[Path, list[dict[str, Any]]]:
    """``count`` scenes the pipeline reads right, rendered into ``folder`` once (default: a temp folder
    kept across runs); returns the folder and each scene's photo names and totals."""
    folder = folder or Path(tempfile.gettempdir()) / f"garden-scorer-soak-v{RENDER_VERSION}"
    folder.mkdir(parents=True, exist_ok=True)
    index_path = folder / "scenes.json"
    known: dict[str, Any] = json.loads(index_path.read_text()) if index_path.is_file() else {}
    scenes: list[dict[str, Any]] = []
    seed = first_seed
    while len(scenes) < count:
        if seed > first_seed + 20 * count:
            raise RuntimeError(f"soak: too few scenes read right ({len(scenes)} of {count})")
        key = str(seed)
        if key not in known:
            known[key] = _render_scene(seed, folder)
            index_path.write_text(json.dumps(known, indent=1))
        if known[key]["reads_true"]:
            scenes.append(known[key])
        seed += 1
    return folder, scenes


# The story


@dataclass
class Story:
    """The photos (decoded once) and the steps of one cycle through every scene."""

    images: list[NDArray[np.uint8]]
    steps: list[Step]

    @property
    def cycle_frames(self) -> int:
        return sum(step.frames for step in self.steps)


def build_story(folder: Path, scenes: Sequence[dict[str, Any]], hold: int = 12, gone: int = 6) -> Story:
    """Per scene: empty table, a board, hands over it, a new state, the camera gone and back, hands, the
    last state, the board taken away. ``hold`` frames per still step, ``gone`` failed reads or opens."""
    images: list[NDArray[np.uint8]] = []

    def load(name: str) -> int:
        images.append(np.asarray(cv2.imread(str(folder / name), cv2.IMREAD_COLOR), np.uint8))
        return len(images) - 1

    steps: list[Step] = []
    for scene in scenes:
        empty = load(scene["empty"])
        states = [load(name) for name in scene["states"]]
        hands = tuple(load(name) for name in scene["hands"])
        totals = [{"board 1": total} for total in scene["totals"]]
        seed = scene["empty"].split("-")[0]
        steps += [
            Step("table", hold, (empty,), {}, f"scene {seed}: empty table"),
            Step("table", hold, (states[0],), totals[0], f"scene {seed}: board laid down"),
            Step("hand", hold, hands, None, f"scene {seed}: hands over the board"),
            Step("table", hold, (states[1],), totals[1], f"scene {seed}: tiles placed"),
            Step("camera_gone", gone, (), None, f"scene {seed}: camera unplugged"),
            Step("table", hold, (states[1],), totals[1], f"scene {seed}: camera back"),
            Step("hand", hold, hands[::-1], None, f"scene {seed}: hands again"),
            Step("table", hold, (states[2],), totals[2], f"scene {seed}: more tiles"),
            Step("table", hold, (empty,), {}, f"scene {seed}: board taken away"),
        ]
    return Story(images, steps)


@dataclass
class StepResult:
    label: str
    kind: StepKind
    frames_to_ok: int | None = None  # ticks into the step until it was published; None: never
    ok_at_end: bool = False


class StoryPlayer:
    """Plays ``story`` for ``frames`` ticks to a live loop: the camera factory, and each camera's frames.

    A tick is a frame given, or a read or an open that fails while the story has the camera gone. Before
    each tick it judges the previous one by what the broadcaster holds (the loop reads a frame only after
    publishing what the last one caused); ``observe`` is called with the tick's number too.
    """

    def __init__(
        self, story: Story, frames: int, broadcaster: Broadcaster, observe: Callable[[int], None]
    ) -> None:
        self.story = story
        self.frames = frames
        self.broadcaster = broadcaster
        self.observe = observe
        self.done = threading.Event()
        self.tick = 0
        self.opened = 0
        self.results: list[StepResult] = []
        self._starts = list(itertools.accumulate((s.frames for s in story.steps), initial=0))[:-1]
        self._step = story.steps[0]
        self._step_start = -1
        self._last_image: NDArray[np.uint8] = story.images[0]

    def open(self) -> Camera:
        if (
            not self.done.is_set()
            and self.tick < self.frames
            and self._step_at(self.tick)[0].kind == "camera_gone"
        ):
            self._start_tick()
            raise CameraError("camera soak was unplugged (scripted)")
        self.opened += 1
        return _StoryCamera(self)

    def grab(self) -> NDArray[np.uint8]:
        if not self.done.is_set():
            self._start_tick()
        if self.done.is_set():
            # The loop is being stopped: idle on the last picture, uncounted.
            time.sleep(0.005)
            return self._last_image.copy()
        if self._step.kind == "camera_gone":
            raise CameraError("camera soak gave no frame (scripted)")
        photos = self._step.photos
        image = self.story.images[photos[(self.tick - 1 - self._step_start) % len(photos)]]
        self._last_image = image
        # A fresh buffer per frame, as a camera gives: the soak should churn memory as a real one does.
        return image.copy()

    def _step_at(self, tick: int) -> tuple[Step, int]:
        """The step that tick number ``tick`` (from 0) falls in, and the tick that step began at."""
        cycle = self.story.cycle_frames
        position = tick % cycle
        index = bisect.bisect_right(self._starts, position) - 1
        return self.story.steps[index], tick - position + self._starts[index]

    def _start_tick(self) -> None:
        if self.tick > 0:
            self._judge()
            self.observe(self.tick)
        if self.tick == self.frames:
            self.done.set()
            return
        step, start = self._step_at(self.tick)
        if start != self._step_start:
            self._step, self._step_start = step, start
            self.results.append(StepResult(step.label, step.kind))
        self.tick += 1

    def _judge(self) -> None:
        result = self.results[-1]
        ok = self._holds(self._step)
        if ok and result.frames_to_ok is None:
            result.frames_to_ok = self.tick - self._step_start
        # Judged at every tick; what counts is the last one of the step.
        result.ok_at_end = ok

    def _holds(self, step: Step) -> bool:
        latest = {event.kind: event for event in self.broadcaster.latest()}
        status = latest["status"].payload.get("status") if "status" in latest else None
        if step.kind == "hand":
            return status == "occluded"
        if step.kind == "camera_gone":
            return status == "camera_gone"
        totals = dict(latest["score"].payload["totals"]) if "score" in latest else {}
        return totals == step.totals and status in ("watching", "no_board")


class _StoryCamera(Camera):
    def __init__(self, player: StoryPlayer) -> None:
        super().__init__("soak")
        self.player = player

    def _grab(self) -> NDArray[np.uint8]:
        return self.player.grab()


# The TV


class _TurnedAway(Exception):
    """/api/events answered 503: every place for this client's streams is taken."""


@dataclass
class SseClient:
    """A TV on ``url``'s /api/events that drops its connection every ``drop_after`` events and reconnects
    with the last id it saw; remembers the latest score and status it was shown."""

    url: str
    drop_after: int = 25
    connects: int = 0
    events: int = 0
    errors: list[str] = field(default_factory=list)
    out_of_order: int = 0
    turned_away: int = 0
    last_id: int | None = None
    latest: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        host, port = self.url.removeprefix("http://").split(":")
        while not self._stop.is_set():
            connection = http.client.HTTPConnection(host, int(port), timeout=2.0)
            try:
                self._listen(connection)
            except TimeoutError:
                # No answer within the socket's timeout (a loaded machine): asked again. A scorer that
                # never answers is caught by the TV not catching up, not by how fast it answered.
                continue
            except _TurnedAway:
                # The place of the stream just dropped not yet given back (the server learns of a closed
                # stream when it next writes to it): asked again shortly, as the TV page does.
                self.turned_away += 1
                time.sleep(0.2)
            except (OSError, http.client.HTTPException) as exc:
                if not self._stop.is_set():
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                    time.sleep(0.1)
            finally:
                connection.close()

    def stop(self) -> None:
        self._stop.set()

    def _listen(self, connection: http.client.HTTPConnection) -> None:
        headers = {"Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = str(self.last_id)
        connection.request("GET", "/api/events", headers=headers)
        response = connection.getresponse()
        if response.status == 503:
            raise _TurnedAway
        if response.status != 200:
            raise http.client.HTTPException(f"/api/events answered {response.status}")
        self.connects += 1
        seen = 0
        fields: dict[str, str] = {}
        while not self._stop.is_set() and seen < self.drop_after:
            try:
                line = response.readline()
            except TimeoutError:
                # A quiet stream (nothing published for the socket's timeout, on a loaded machine): a read
                # that timed out leaves the response unreadable ("cannot read from timed out object"), so
                # the TV connects again from the last event it saw, as a browser does.
                return
            if not line:
                raise http.client.HTTPException("the event stream ended")
            text = line.decode().rstrip("\r\n")
            if text:
                name, _, value = text.partition(":")
                fields[name] = value.removeprefix(" ")
                continue
            if "data" in fields and "id" in fields:
                self._take(fields)
                seen += 1
            fields = {}

    def _take(self, fields: dict[str, str]) -> None:
        event_id = int(fields["id"])
        if self.last_id is not None and event_id <= self.last_id:
            self.out_of_order += 1
        self.last_id = event_id
        self.events += 1
        self.latest[fields.get("event", "message")] = (event_id, json.loads(fields["data"]))


@contextmanager
def _tv(broadcaster: Broadcaster, drop_after: int) -> Iterator[SseClient]:
    from calibration.statedir import StateDir
    from device.web import AppConfig, create_app

    with tempfile.TemporaryDirectory(prefix="soak-state-") as tmp:

        def no_uploads(*_: Any, **__: Any) -> list[Any]:
            raise ValueError("the soak's app scores no uploads")

        app = create_app(AppConfig(StateDir(Path(tmp)), no_uploads, broadcaster))
        with serve_in_thread(app) as url:
            client = SseClient(url, drop_after)
            thread = threading.Thread(target=client.run, name="soak-tv", daemon=True)
            thread.start()
            try:
                yield client
            finally:
                client.stop()
                thread.join(5.0)


def _tv_caught_up(client: SseClient, broadcaster: Broadcaster, timeout_s: float) -> bool:
    """Whether the TV shows the broadcaster's latest score and status within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        want = {e.kind: (e.id, dict(e.payload)) for e in broadcaster.latest()}
        if all(client.latest.get(kind) == value for kind, value in want.items()):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


# The soak


def _slope_per_1000(samples: Sequence[tuple[int, int]]) -> float:
    """Least-squares growth of RSS in bytes per 1000 frames."""
    if len(samples) < 2:
        return 0.0
    x = np.array([s[0] for s in samples], np.float64)
    y = np.array([s[1] for s in samples], np.float64)
    if np.ptp(x) == 0:
        return 0.0
    return float(np.polyfit(x, y, 1)[0] * 1000)


def _real_scorer() -> LiveScorer:
    from calibration.statedir import StateDir
    from device.serve import live_scorer

    # As `garden-scorer serve` wires it, with an empty state folder: no calibration, no seats, no profile.
    with tempfile.TemporaryDirectory(prefix="soak-scorer-") as tmp:
        return live_scorer(StateDir(Path(tmp)), GAME, None)


def run_soak(
    frames: int,
    seed: int = FIRST_SEED,
    *,
    scenes: int = 3,
    hold: int = 12,
    gone: int = 6,
    sample_every: int = 500,
    max_frames_to_publish: int = 10,
    tv: bool = True,
    tv_drop_after: int = 25,
    scorer: LiveScorer | None = None,
    folder: Path | None = None,
    trace: bool = False,
) -> dict[str, Any]:
    """Plays ``frames`` ticks of the story (scenes from ``seed`` on) through the real live loop.

    A step fails when what it should publish was not published within ``max_frames_to_publish`` ticks, or
    no longer held at its last tick. Returns memory (RSS in MB at start, after the first cycle through the
    story, every ``sample_every`` ticks and at the end; growth per 1000 frames after warm-up), counts,
    the slowest step to publish, failures and, with ``tv``, what the reconnecting TV saw.
    """
    if frames < 1:
        raise ValueError(f"frames: expected 1 or more, got {frames}")
    started = time.perf_counter()
    rss_start = rss_bytes()
    fds_start = open_fds()
    threads_start = threading.active_count()
    scene_folder, chosen = render_scenes(scenes, folder, seed)
    story = build_story(scene_folder, chosen, hold, gone)
    live = scorer or _real_scorer()
    broadcaster = Broadcaster()
    warm_at = min(story.cycle_frames, frames)
    samples: list[tuple[int, int]] = []
    warm_fds: list[int] = []
    if trace:
        import tracemalloc

        tracemalloc.start(10)
    snapshots: list[Any] = []

    def observe(tick: int) -> None:
        if tick in (warm_at, frames) or tick % sample_every == 0:
            samples.append((tick, rss_bytes()))
        if tick == warm_at:
            warm_fds.append(open_fds())
            if trace:
                import tracemalloc

                snapshots.append(tracemalloc.take_snapshot())

    player = StoryPlayer(story, frames, broadcaster, observe)
    loop = LiveLoop(player.open, live, broadcaster, retry_s=0.001, max_retry_s=0.004)
    listener = broadcaster.subscribe()
    counts = {"score": 0, "status": 0}
    statuses: dict[str, int] = {}
    tv_report: dict[str, Any] | None = None
    with ExitStack() as stack:
        client = stack.enter_context(_tv(broadcaster, tv_drop_after)) if tv else None
        # The story unplugs the camera hundreds of times: its warnings would bury everything else.
        stack.enter_context(quiet("device.live"))
        loop_started = time.perf_counter()
        loop.start()
        try:
            while not player.done.wait(0.05):
                _drain(broadcaster, listener, counts, statuses)
        finally:
            loop.stop()
        loop_s = time.perf_counter() - loop_started
        _drain(broadcaster, listener, counts, statuses)
        if client is not None:
            caught_up = _tv_caught_up(client, broadcaster, 5.0)
            tv_report = {
                "connects": client.connects,
                "reconnects": max(0, client.connects - 1),
                "events": client.events,
                "out_of_order": client.out_of_order,
                "errors": client.errors[:5],
                "turned_away": client.turned_away,
                "caught_up": caught_up,
            }
    gc.collect()
    rss_end = rss_bytes()
    top_growth: list[str] = []
    if trace:
        import tracemalloc

        if snapshots:
            stats = tracemalloc.take_snapshot().compare_to(snapshots[0], "lineno")
            top_growth = [str(stat) for stat in stats[:5]]
        tracemalloc.stop()
    return _report(
        player, story, samples, warm_at, max_frames_to_publish,
        rss={"start": rss_start, "end": rss_end},
        counts=counts, statuses=statuses, stats=loop.stats().to_json(), tv=tv_report,
        loop_s=loop_s, total_s=time.perf_counter() - started, dropped=listener.dropped,
        resources={
            "fds": {"start": fds_start, "warm": warm_fds[0] if warm_fds else None, "end": open_fds()},
            "threads": {"start": threads_start, "end": threading.active_count()},
        },
        top_growth=top_growth,
    )  # fmt: skip


def _drain(broadcaster: Broadcaster, sub: Any, counts: dict[str, int], statuses: dict[str, int]) -> None:
    while (event := broadcaster.get(sub, 0)) is not None:
        counts[event.kind] += 1
        if event.kind == "status":
            code = str(event.payload.get("status"))
            statuses[code] = statuses.get(code, 0) + 1


def _failure(result: StepResult, bound: int) -> str | None:
    if result.frames_to_ok is None:
        return "never published"
    if result.frames_to_ok > bound:
        return f"published only after {result.frames_to_ok} frames"
    return None if result.ok_at_end else "no longer held at the step's end"


def _report(
    player: StoryPlayer,
    story: Story,
    samples: list[tuple[int, int]],
    warm_at: int,
    bound: int,
    **parts: Any,
) -> dict[str, Any]:
    mb = 1024 * 1024
    # The last step may be cut short by the frame count: judge only whole steps.
    whole = player.tick == player._step_start + player._step.frames
    steps = player.results if whole else player.results[:-1]
    failures = [f"{r.label}: {why}" for r in steps if (why := _failure(r, bound))]
    by_kind: dict[str, list[int]] = {}
    for r in steps:
        if r.frames_to_ok is not None:
            by_kind.setdefault(r.kind, []).append(r.frames_to_ok)
    after_warm = [s for s in samples if s[0] >= warm_at]
    warm_rss = after_warm[0][1] if after_warm else parts["rss"]["end"]
    end_tick = player.tick
    growth = (parts["rss"]["end"] - warm_rss) / max(end_tick - warm_at, 1) * 1000
    return {
        "frames": end_tick,
        "seconds": round(parts["total_s"], 1),
        "fps": round(end_tick / max(parts["loop_s"], 1e-6), 1),
        "steps": len(steps),
        "failures": failures[:20],
        "failed_steps": len(failures),
        "max_frames_to_publish": {kind: max(values) for kind, values in by_kind.items()},
        "events": parts["counts"],
        "statuses": parts["statuses"],
        "dropped_events": parts["dropped"],
        "camera_opens": player.opened,
        "loop": parts["stats"],
        "rss_mb": {
            "start": round(parts["rss"]["start"] / mb, 1),
            "warm": round(warm_rss / mb, 1),
            "end": round(parts["rss"]["end"] / mb, 1),
            "samples": [[tick, round(value / mb, 1)] for tick, value in samples],
        },
        "rss_growth_kb_per_1000_frames": round(growth / 1024, 1),
        "rss_slope_kb_per_1000_frames": round(_slope_per_1000(after_warm) / 1024, 1),
        "open_fds": parts["resources"]["fds"],
        "threads": parts["resources"]["threads"],
        "tv": parts["tv"],
        "top_growth": parts["top_growth"],
    }
