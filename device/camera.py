"""Cameras: one small interface over the Raspberry Pi camera, OpenCV sources and a folder of photos.

Every camera is a :class:`Camera`: ``read()`` gives the next :class:`Frame` (a BGR uint8 ``HxWx3`` image, the
``time.monotonic()`` it arrived and its sequence number from 0), ``close()`` releases the device, and ``with``
closes it too. ``name`` is the spec it was opened with and ``describe()`` adds what it is running as.

Anything that goes wrong is a :class:`CameraError` saying what happened and what to do. No read waits
forever: the Pi camera and network streams have a timeout, and OpenCV's V4L2 webcam reader gives up after
its own select() timeout (10 s, ``OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT``).

:func:`open_camera` turns a spec into a camera: ``picamera``, ``picamera:N``, ``webcam:N``, ``video:PATH``,
``rtsp://...``, ``http(s)://...`` or ``replay:DIR``.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit, urlunsplit

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image_io import ImageError, read_image

SPEC_FORMS = (
    "picamera",
    "picamera:N",
    "webcam:N",
    "video:PATH",
    "rtsp://...",
    "http://...",
    "https://...",
    "replay:DIR",
)
_STREAM_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://")
REPLAY_SUFFIXES = (".jpg", ".jpeg", ".png")

# libcamera's AfModeEnum.Continuous; the plain value spares importing libcamera next to picamera2.
_AF_MODE_CONTINUOUS = 2

_PICAMERA2_HINT = (
    "on Raspberry Pi OS install it with `sudo apt install python3-picamera2 --no-install-recommends` "
    "and make the venv with `python3 -m venv --system-site-packages` (pip cannot install it); "
    "'numpy.dtype size changed' means the venv's NumPy 2 does not match apt's NumPy 1.24 on Bookworm: "
    "use the system NumPy with opencv-python-headless<4.12"
)


class CameraError(RuntimeError):
    """A camera could not be opened or gave no frame; the message says what to do."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture: ``image`` is BGR uint8 ``HxWx3``; ``timestamp`` is ``time.monotonic()`` on arrival."""

    image: NDArray[np.uint8]
    timestamp: float
    sequence: int


class Camera(ABC):
    """A source of frames. Subclasses give ``_grab`` and, if they hold a device, extend ``close``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False
        self._sequence = 0

    def read(self) -> Frame:
        """The next frame; CameraError when there is none (device gone, end of a video, timeout)."""
        if self.closed:
            raise CameraError(f"camera {self.name} is closed; open it again to read")
        image = self._grab()
        frame = Frame(image, time.monotonic(), self._sequence)
        self._sequence += 1
        return frame

    @abstractmethod
    def _grab(self) -> NDArray[np.uint8]: ...

    def describe(self) -> str:
        return self.name

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


class PiCamera(Camera):
    """A Raspberry Pi camera through picamera2 (Raspberry Pi OS's apt package, never pip).

    One video configuration serves all live work, because switching modes costs 500-700 ms and repeated
    switching can fail with "Cannot allocate memory". Focus is continuous where the module has autofocus.
    After ``settle_frames`` frames (about 1 s at the video configuration's 30 fps) exposure and white balance
    are locked at what they settled to, so the tile colours the classifier sees do not drift while hands and
    shadows move over the table; ``settle_frames=0`` leaves them automatic.
    """

    def __init__(
        self,
        number: int = 0,
        *,
        size: tuple[int, int] = (2304, 1296),
        settle_frames: int = 30,
        timeout: float = 2.0,
    ) -> None:
        super().__init__(f"picamera:{number}")
        self.timeout = timeout
        self.locked: dict[str, Any] = {}
        try:
            from picamera2 import Picamera2
        except Exception as exc:  # NumPy ABI mismatches raise ValueError, not ImportError
            raise CameraError(
                f"camera {self.name}: picamera2 cannot be imported ({type(exc).__name__}: {exc}); "
                + _PICAMERA2_HINT
            ) from None
        cameras = Picamera2.global_camera_info()
        if number >= len(cameras):
            raise CameraError(
                f"camera {self.name}: {len(cameras)} Raspberry Pi camera(s) found; check the ribbon cable "
                "and that the camera is enabled (`rpicam-hello --list-cameras` lists them)"
            )
        self.model = str(cameras[number].get("Model", "unknown"))
        self.size = size
        try:
            self._camera = Picamera2(number)
        except Exception as exc:
            raise CameraError(
                f"camera {self.name} could not be opened ({exc}); is another program using the camera?"
            ) from None
        try:
            self._start(settle_frames)
        except Exception:
            # A camera left acquired blocks every later attempt until the process exits.
            self._camera.close()
            raise

    def _start(self, settle_frames: int) -> None:
        self._camera.configure(
            self._camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
        )
        if "AfMode" in self._camera.camera_controls:
            self._camera.set_controls({"AfMode": _AF_MODE_CONTINUOUS})
        self._camera.start()
        if settle_frames <= 0:
            return
        for _ in range(settle_frames):
            self._wait(self._camera.capture_array("main", wait=False))
        metadata = self._wait(self._camera.capture_metadata(wait=False))
        self.locked = {
            "ExposureTime": metadata["ExposureTime"],
            "AnalogueGain": metadata["AnalogueGain"],
            "ColourGains": metadata["ColourGains"],
        }
        self._camera.set_controls({"AeEnable": False, "AwbEnable": False, **self.locked})

    def _wait(self, job: Any) -> Any:
        try:
            return self._camera.wait(job, timeout=self.timeout)
        except TimeoutError:
            raise CameraError(
                f"camera {self.name} gave no frame in {self.timeout:g} s: is the ribbon cable seated? "
                "(power the Pi off before reseating it)"
            ) from None

    def _grab(self) -> NDArray[np.uint8]:
        # RGB888 is stored B, G, R in memory: already OpenCV's order.
        return np.asarray(self._wait(self._camera.capture_array("main", wait=False)), dtype=np.uint8)

    def describe(self) -> str:
        width, height = self.size
        if self.locked:
            locked = self.locked
            gains = ", ".join(f"{g:.2f}" for g in locked["ColourGains"])
            state = (
                f"exposure locked at {locked['ExposureTime']} us, gain {locked['AnalogueGain']:.2f}, "
                f"colour gains {gains}"
            )
        else:
            state = "automatic exposure"
        return f"{self.name} ({self.model}, {width}x{height}, {state})"

    def close(self) -> None:
        if not self.closed:
            self._camera.stop()
            self._camera.close()
        super().close()


def _redact(url: str) -> str:
    """``url`` without its password: camera names end up in logs and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class OpenCVCamera(Camera):
    """A USB webcam (an int index), a video file (a Path or a plain string) or a network stream (a URL).

    ``size`` is the (width, height) asked of a webcam, which picks its nearest mode; files and streams keep
    their own. ``loop`` plays a video file again from the start instead of ending. ``timeout`` bounds opening
    and reading a file or stream.
    """

    def __init__(
        self,
        source: int | str | Path,
        *,
        size: tuple[int, int] = (1920, 1080),
        loop: bool = False,
        timeout: float = 5.0,
    ) -> None:
        if isinstance(source, int):
            kind, name = "webcam", f"webcam:{source}"
        elif isinstance(source, str) and source.startswith(_STREAM_SCHEMES):
            kind, name = "stream", _redact(source)
        else:
            kind, name = "video", f"video:{source}"
            if not Path(source).is_file():
                raise CameraError(f"camera {name}: no such file")
        super().__init__(name)
        if loop and kind != "video":
            raise ValueError(f"{name}: loop=True needs a video file")
        self.loop = loop
        if kind == "webcam":
            self._capture = cv2.VideoCapture(source)
            self._no_frame = f"camera {name} gave no frame: is it plugged in? Reconnect it and restart"
        else:
            milliseconds = round(timeout * 1000)
            # FFmpeg is the backend that honours these timeouts (others refuse parameters they do not know).
            self._capture = cv2.VideoCapture(
                str(source),
                cv2.CAP_FFMPEG,
                [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, milliseconds, cv2.CAP_PROP_READ_TIMEOUT_MSEC, milliseconds],
            )
            self._no_frame = (
                f"stream {name} gave no frame within {timeout:g} s: is it reachable and still sending?"
                if kind == "stream"
                else f"video {source} has no more frames; pass loop=True to play it again"
            )
        if not self._capture.isOpened():
            raise CameraError(
                f"camera {name} could not be opened: check that it exists, is plugged in or reachable, "
                "and that OpenCV can decode it"
            )
        if kind == "webcam":
            # Uncompressed YUYV at 1080p is limited to about 5 fps by USB 2; MJPG gives webcams full speed.
            self._capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def _grab(self) -> NDArray[np.uint8]:
        ok, image = self._capture.read()
        if not ok and self.loop:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._capture.read()
        if not ok:
            raise CameraError(self._no_frame)
        return np.asarray(image, dtype=np.uint8)

    def describe(self) -> str:
        width = round(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = round(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
        looping = ", looping" if self.loop else ""
        return f"{self.name} ({self._capture.getBackendName()}, {width}x{height}{looping})"

    def close(self) -> None:
        self._capture.release()
        super().close()


class ReplayCamera(Camera):
    """The .jpg/.jpeg/.png photos of a folder in name order, for tests and the demo.

    ``loop`` starts again after the last photo instead of ending; ``fps`` paces reads like a live camera
    (by default photos come as fast as they decode); ``hold`` gives each photo as that many frames, as a
    camera over a still table would. Photos are decoded when read, so a corrupt one fails then, naming
    the file.
    """

    def __init__(
        self, folder: str | Path, *, loop: bool = False, fps: float | None = None, hold: int = 1
    ) -> None:
        super().__init__(f"replay:{folder}")
        if fps is not None and fps <= 0:
            raise ValueError(f"{self.name}: fps must be positive, not {fps}")
        if hold < 1:
            raise ValueError(f"{self.name}: hold must be 1 or more, not {hold}")
        folder = Path(folder)
        if not folder.is_dir():
            raise CameraError(f"camera {self.name}: no such folder")
        self.files = sorted(
            (p for p in folder.iterdir() if p.suffix.lower() in REPLAY_SUFFIXES), key=lambda p: p.name
        )
        if not self.files:
            raise CameraError(
                f"camera {self.name}: the folder holds no {'/'.join(REPLAY_SUFFIXES)} photos to replay"
            )
        self.loop = loop
        self.fps = fps
        self.hold = hold
        self._index = 0
        self._due = 0.0
        self._held: tuple[NDArray[np.uint8], int] | None = None

    def _grab(self) -> NDArray[np.uint8]:
        if self._held is not None and self._held[1] < self.hold:
            image, shown = self._held
            self._held = (image, shown + 1)
            # A copy, as a camera gives a fresh buffer per frame: a consumer may draw on what it gets.
            return self._paced(image.copy())
        if self._index == len(self.files):
            if not self.loop:
                raise CameraError(
                    f"camera {self.name}: all {len(self.files)} photos replayed; "
                    "pass loop=True to repeat them"
                )
            self._index = 0
        path = self.files[self._index]
        self._index += 1
        try:
            image = read_image(str(path))
        except ImageError as exc:
            raise CameraError(f"camera {self.name}: {exc}") from None
        self._held = (image, 1)
        return self._paced(image)

    def _paced(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        if self.fps is not None:
            now = time.monotonic()
            if self._due > now:
                time.sleep(self._due - now)
            # Pacing from the later of due and now: a slow consumer gets no burst of catch-up frames.
            self._due = max(self._due, now) + 1.0 / self.fps
        return image

    def describe(self) -> str:
        looping = ", looping" if self.loop else ""
        pace = f", {self.fps:g} fps" if self.fps is not None else ""
        held = f", {self.hold} frames each" if self.hold > 1 else ""
        return f"{self.name} ({len(self.files)} photos{looping}{pace}{held})"


def _camera_number(spec: str, text: str) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        raise ValueError(f"camera spec {spec!r}: {text!r} is not a camera number (0, 1, ...)")
    return int(text)


def open_camera(spec: str, **options: Any) -> Camera:
    """The camera a spec names; ``options`` go to its class (e.g. ``size=``, ``loop=``, ``fps=``)."""
    kind, sep, rest = spec.partition(":")
    if spec.startswith(_STREAM_SCHEMES):
        return OpenCVCamera(spec, **options)
    if spec == "picamera":
        return PiCamera(0, **options)
    if kind == "picamera" and sep:
        return PiCamera(_camera_number(spec, rest), **options)
    if kind == "webcam" and sep:
        return OpenCVCamera(_camera_number(spec, rest), **options)
    if kind == "video" and rest:
        return OpenCVCamera(Path(rest), **options)
    if kind == "replay" and rest:
        return ReplayCamera(Path(rest), **options)
    raise ValueError(f"unknown camera spec {spec!r}; use one of: {', '.join(SPEC_FORMS)}")
