"""``garden-scorer serve``: the camera, the live loop and the web app, wired together in one process.

Uploads are scored like ``garden-scorer score`` (with a stored profile when the page names one); the camera's
frames go through the live loop, whose results reach the TV page as Server-Sent Events. Everything the scorer
learns and records lives in the state folder.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.statedir import StateDir
from calibration.store import sweep_temporaries
from device.camera import Camera, open_camera
from device.history import History, LiveRecord
from device.live import Broadcaster, LiveLoop, LiveScorer
from device.photo import ScoredBoard, profile_models, score_image, state_camera
from device.web import AppConfig, create_app
from scoring.registry import Kind, get_entry
from vision.geometry import Points

# A replayed folder is paced like a camera and holds each photo as a still table would.
REPLAY_FPS = 4.0
REPLAY_HOLD = 12


@dataclass(frozen=True)
class ServeOptions:
    game: str
    camera: str | None  # a camera spec (see device.camera.open_camera), or None for uploads only
    host: str = "127.0.0.1"
    port: int = 8080
    profile: str | None = None
    pin: str | None = None


def upload_scorer(state: StateDir) -> Any:
    """What the web app calls for an uploaded photo: read and score it, with the named stored profile."""

    def score(
        image: NDArray[np.uint8],
        game: str,
        hand: Mapping[str, Any],
        profile: str | None,
        also: Sequence[NDArray[np.uint8]] = (),
        /,
        *,
        corners: Points | None = None,
    ) -> list[ScoredBoard]:
        # Read per photo, like the profile: a calibration made on the calibration page counts at once. It is
        # the table camera's: a photo of another size was taken by another camera (a phone), read without.
        camera = state_camera(state)
        if camera is not None and tuple(camera.size_wh) != (image.shape[1], image.shape[0]):
            camera = None
        models = profile_models(state, game, profile)
        return score_image(image, game, hand, camera, corners_xy=corners, also=also, **models)

    return score


def live_scorer(state: StateDir, game: str, profile: str | None) -> LiveScorer:
    """The live loop's reader for ``game``, tied to the stored seats when they are for that game."""
    from calibration.seats import load

    camera = state_camera(state)
    models = profile_models(state, game, profile)

    def score(image: NDArray[np.uint8], *, known_boards: Sequence[Points] | None) -> list[ScoredBoard]:
        return score_image(image, game, {}, camera, known_boards=known_boards, **models)

    seats = load(state.table) if state.table.is_file() else None
    return LiveScorer(
        score,
        seats if seats is not None and seats.game == game else None,
        whole_table=get_entry(game).kind is Kind.TABLE,
    )


def open_live_camera(spec: str) -> Camera:
    if spec.startswith("replay:"):
        return open_camera(spec, loop=True, fps=REPLAY_FPS, hold=REPLAY_HOLD)
    return open_camera(spec)


def _latest_image(loop: LiveLoop) -> NDArray[np.uint8] | None:
    frame = loop.latest_frame()
    return None if frame is None else frame.image


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve(state: StateDir, options: ServeOptions) -> None:
    """Run until interrupted; prints the URL and the PIN that changes set-up from other devices."""
    import uvicorn

    # Fail now, with a clear message, on a bad game, profile or calibration rather than on the first frame.
    profile_models(state, options.game, options.profile)
    state_camera(state)
    for path in sweep_temporaries(state.root):
        print(f"Removed {path}, left by a write cut short (power cut or kill).")
    loop = None
    events = None
    if options.camera:
        spec = options.camera
        events = Broadcaster()
        loop = LiveLoop(
            functools.partial(open_live_camera, spec),
            live_scorer(state, options.game, options.profile),
            events,
            # The live game is kept in the history as the TV shows it, as uploads are.
            record=LiveRecord(History.open(state.history)).scored,
        )
    preview = None if loop is None else functools.partial(_latest_image, loop)
    config = AppConfig(state, upload_scorer(state), events, preview=preview)
    if options.pin:
        config = replace(config, pin=options.pin)
    app = create_app(config)
    shown = "127.0.0.1" if options.host in ("0.0.0.0", "::") else options.host
    print(f"garden-scorer: http://{shown}:{options.port}/  (TV: http://{shown}:{options.port}/tv)")
    if not _is_loopback(options.host):
        print(f"Other devices change set-up with the PIN {config.pin} (also shown on the TV page).")
    print(f"State folder: {state.root}; camera: {options.camera or 'none (uploads only)'}")
    if loop is not None:
        loop.start()
    try:
        uvicorn.run(app, host=options.host, port=options.port, log_level="warning")
    finally:
        if loop is not None:
            loop.stop()
