"""The camera backends: replay over real PNGs, OpenCV over a real MJPG video, the Pi camera over a fake."""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from device.camera import (
    SPEC_FORMS,
    Camera,
    CameraError,
    OpenCVCamera,
    PiCamera,
    ReplayCamera,
    open_camera,
)

W, H = 64, 48


def _grey(value: int) -> np.ndarray:
    return np.full((H, W, 3), value, np.uint8)


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    """Three PNGs whose grey level tells them apart, written out of name order, plus a file to ignore."""
    folder = tmp_path / "photos"
    folder.mkdir()
    for name, value in (("b.png", 100), ("a.png", 50), ("c.PNG", 150)):
        assert cv2.imwrite(str(folder / name), _grey(value))
    (folder / "notes.txt").write_text("not a photo")
    return folder


@pytest.fixture
def video(tmp_path: Path) -> Path:
    """Five MJPG frames of rising grey levels."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (W, H))
    assert writer.isOpened()
    for i in range(5):
        writer.write(_grey(40 * i))
    writer.release()
    return path


def _levels(camera: Camera, count: int) -> list[int]:
    return [int(camera.read().image[0, 0, 0]) for _ in range(count)]


# Replay


def test_replay_reads_photos_in_name_order_then_ends(photos: Path) -> None:
    with ReplayCamera(photos) as camera:
        frames = [camera.read() for _ in range(3)]
        assert [int(f.image[0, 0, 1]) for f in frames] == [50, 100, 150]
        assert [f.sequence for f in frames] == [0, 1, 2]
        assert frames[0].timestamp <= frames[1].timestamp <= frames[2].timestamp
        assert frames[0].image.shape == (H, W, 3) and frames[0].image.dtype == np.uint8
        with pytest.raises(CameraError, match=r"all 3 photos replayed; pass loop=True"):
            camera.read()
    assert camera.closed
    with pytest.raises(CameraError, match="is closed"):
        camera.read()


def test_replay_loops_and_keeps_counting(photos: Path) -> None:
    camera = ReplayCamera(photos, loop=True)
    assert _levels(camera, 7) == [50, 100, 150, 50, 100, 150, 50]
    assert camera.read().sequence == 7
    assert "3 photos, looping" in camera.describe()


def test_replay_holds_each_photo_for_several_frames(photos: Path) -> None:
    camera = ReplayCamera(photos, loop=True, hold=3)
    assert _levels(camera, 8) == [50, 50, 50, 100, 100, 100, 150, 150]
    held = [camera.read().image for _ in range(2)]
    assert held[0] is not held[1]
    assert "3 frames each" in camera.describe()
    with pytest.raises(ValueError, match="hold must be 1 or more"):
        ReplayCamera(photos, hold=0)


def test_replay_paces_reads_at_the_requested_fps(photos: Path) -> None:
    camera = ReplayCamera(photos, fps=50)
    start = time.monotonic()
    frames = [camera.read() for _ in range(3)]
    assert time.monotonic() - start >= 2 / 50 * 0.95
    assert frames[2].timestamp - frames[0].timestamp >= 2 / 50 * 0.95


def test_replay_names_a_corrupt_photo(photos: Path) -> None:
    (photos / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    camera = ReplayCamera(photos)
    camera.read()
    with pytest.raises(CameraError, match=r"b\.png"):
        camera.read()


def test_replay_refuses_an_empty_or_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no photos here")
    with pytest.raises(CameraError, match=r"no \.jpg/\.jpeg/\.png photos"):
        ReplayCamera(tmp_path)
    with pytest.raises(CameraError, match="no such folder"):
        ReplayCamera(tmp_path / "absent")
    with pytest.raises(ValueError, match="fps must be positive"):
        ReplayCamera(tmp_path, fps=0)


# OpenCV


def test_video_frames_come_back_then_end(video: Path) -> None:
    with OpenCVCamera(video) as camera:
        frames = [camera.read() for _ in range(5)]
        assert all(f.image.shape == (H, W, 3) and f.image.dtype == np.uint8 for f in frames)
        # MJPG is lossy: the grey levels come back within a few steps.
        assert np.allclose([f.image[0, 0, 1] for f in frames], [0, 40, 80, 120, 160], atol=4)
        assert [f.sequence for f in frames] == list(range(5))
        with pytest.raises(CameraError, match=r"has no more frames; pass loop=True"):
            camera.read()
        assert camera.describe().startswith(f"video:{video} (FFMPEG, {W}x{H}")


def test_video_loops(video: Path) -> None:
    camera = OpenCVCamera(video, loop=True)
    levels = [round(v / 40) for v in _levels(camera, 12)]
    assert levels == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]
    camera.close()


def test_missing_sources_are_camera_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such file"):
        OpenCVCamera(tmp_path / "absent.avi")
    not_video = tmp_path / "notes.avi"
    not_video.write_text("not a video")
    with pytest.raises(CameraError, match="could not be opened"):
        OpenCVCamera(not_video)
    with pytest.raises(CameraError, match="camera webcam:99 could not be opened"):
        OpenCVCamera(99)


def test_unreachable_stream_fails_fast_without_showing_its_password() -> None:
    start = time.monotonic()
    with pytest.raises(CameraError, match="could not be opened") as info:
        OpenCVCamera("rtsp://admin:secret@127.0.0.1:9/stream", timeout=1.0)
    # Given up on well within a stalled stream's wait (no speed asked: a loaded machine takes its time).
    assert time.monotonic() - start < 30
    assert "secret" not in str(info.value)
    assert "rtsp://admin:***@127.0.0.1:9/stream" in str(info.value)


def test_loop_is_only_for_files() -> None:
    with pytest.raises(ValueError, match="loop=True needs a video file"):
        OpenCVCamera(0, loop=True)


# Specs


def test_open_camera_parses_specs(photos: Path, video: Path) -> None:
    assert isinstance(open_camera(f"replay:{photos}", loop=True), ReplayCamera)
    with open_camera(f"video:{video}") as camera:
        assert isinstance(camera, OpenCVCamera)
        assert camera.name == f"video:{video}"
    with pytest.raises(CameraError, match="webcam:99"):
        open_camera("webcam:99")


@pytest.mark.parametrize("spec", ["", "webcam", "usb:0", "replay:", "video:", "picamera0"])
def test_open_camera_lists_the_accepted_forms(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown camera spec") as info:
        open_camera(spec)
    assert all(form in str(info.value) for form in SPEC_FORMS)


@pytest.mark.parametrize("spec", ["webcam:", "webcam:x", "picamera:-1", "webcam:1.5"])
def test_open_camera_wants_camera_numbers(spec: str) -> None:
    with pytest.raises(ValueError, match="is not a camera number"):
        open_camera(spec)


# Raspberry Pi camera, against a stand-in for picamera2

METADATA = {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "Lux": 310.0}


class FakePicamera2:
    """Records every call; delivers ``frames`` frames (None: endless), then times out like a lost camera."""

    # Class-level, so a test sets them on the fixture's fresh subclass before the camera is made.
    calls: ClassVar[list[tuple[Any, ...]]]
    frames: ClassVar[int | None] = None
    controls: ClassVar[dict[str, Any]] = {"AfMode": (0, 2, 0), "ExposureTime": (1, 1_000_000, None)}
    cameras: ClassVar[list[dict[str, Any]]] = [{"Model": "imx708", "Num": 0}]

    def __init__(self, camera_num: int = 0) -> None:
        self.calls.append(("init", camera_num))
        self.camera_controls = self.controls
        self.size = (0, 0)

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return cls.cameras

    def create_video_configuration(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create_video_configuration", kwargs))
        return {"use_case": "video", **kwargs}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(("configure", config))
        self.size = config["main"]["size"]

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", controls))

    def start(self) -> None:
        self.calls.append(("start",))

    def stop(self) -> None:
        self.calls.append(("stop",))

    def close(self) -> None:
        self.calls.append(("close",))

    def capture_array(self, name: str = "main", wait: bool | None = None) -> str:
        assert (name, wait) == ("main", False)
        return "array"

    def capture_metadata(self, wait: bool | None = None) -> str:
        assert wait is False
        return "metadata"

    def wait(self, job: str, timeout: float | None = None) -> Any:
        assert timeout is not None
        self.calls.append(("wait", job, timeout))
        if job == "metadata":
            return dict(METADATA)
        if self.frames is not None:
            if self.frames == 0:
                raise TimeoutError
            type(self).frames = self.frames - 1
        width, height = self.size
        return np.zeros((height, width, 3), np.uint8)


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    fake = type("Picamera2", (FakePicamera2,), {"calls": []})
    module = types.ModuleType("picamera2")
    module.Picamera2 = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return fake


def _names(calls: list[tuple[Any, ...]]) -> list[str]:
    return [c[0] for c in calls if c[0] != "wait"]


def test_picamera_configures_once_focuses_and_locks_exposure(picamera2: type[FakePicamera2]) -> None:
    camera = open_camera("picamera", size=(32, 24), settle_frames=5)
    frames = [camera.read() for _ in range(3)]
    assert [f.sequence for f in frames] == [0, 1, 2]
    assert frames[0].image.shape == (24, 32, 3) and frames[0].image.dtype == np.uint8
    calls = picamera2.calls
    assert _names(calls) == [
        "init",
        "create_video_configuration",
        "configure",
        "set_controls",
        "start",
        "set_controls",
    ]
    assert calls[0] == ("init", 0)
    assert calls[1][1] == {"main": {"size": (32, 24), "format": "RGB888"}}
    assert calls[3][1] == {"AfMode": 2}
    # The lock comes after the settling frames and the metadata read, with the values the camera reported.
    waits = [c[1] for c in calls if c[0] == "wait"]
    assert waits == ["array"] * 5 + ["metadata"] + ["array"] * 3
    assert all(c[2] == 2.0 for c in calls if c[0] == "wait")
    lock_at = max(i for i, c in enumerate(calls) if c[0] == "set_controls")
    assert [c[1] for c in calls[:lock_at] if c[0] == "wait"][-1] == "metadata"
    assert calls[lock_at][1] == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 12345,
        "AnalogueGain": 2.5,
        "ColourGains": (1.9, 1.6),
    }
    assert "imx708, 32x24, exposure locked at 12345 us, gain 2.50" in camera.describe()

    camera.close()
    assert _names(calls)[-2:] == ["stop", "close"]
    camera.close()
    assert _names(calls).count("close") == 1
    with pytest.raises(CameraError, match="is closed"):
        camera.read()


def test_picamera_defaults_and_a_camera_without_autofocus(picamera2: type[FakePicamera2]) -> None:
    picamera2.controls = {"ExposureTime": (1, 1_000_000, None)}
    picamera2.cameras = [{"Model": "imx219"}, {"Model": "imx708"}]
    with PiCamera(1, settle_frames=0) as camera:
        assert camera.read().image.shape == (1296, 2304, 3)
        assert camera.describe() == "picamera:1 (imx708, 2304x1296, automatic exposure)"
    assert picamera2.calls[0] == ("init", 1)
    assert picamera2.calls[1][1]["main"] == {"size": (2304, 1296), "format": "RGB888"}
    assert "set_controls" not in _names(picamera2.calls)


def test_picamera_that_stops_delivering_is_a_camera_error(picamera2: type[FakePicamera2]) -> None:
    picamera2.frames = 3
    camera = PiCamera(size=(8, 6), settle_frames=2, timeout=0.5)
    camera.read()
    with pytest.raises(CameraError, match=r"picamera:0 gave no frame in 0.5 s: is the ribbon cable seated"):
        camera.read()


def test_picamera_failing_to_settle_releases_the_camera(picamera2: type[FakePicamera2]) -> None:
    picamera2.frames = 1
    with pytest.raises(CameraError, match="gave no frame"):
        PiCamera(size=(8, 6), settle_frames=3)
    assert _names(picamera2.calls)[-1] == "close"


def test_picamera_number_beyond_the_cameras_found(picamera2: type[FakePicamera2]) -> None:
    with pytest.raises(CameraError, match=r"picamera:2: 1 Raspberry Pi camera\(s\) found; check the ribbon"):
        open_camera("picamera:2")
    assert picamera2.calls == []


def test_picamera_import_failure_explains_the_apt_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What Bookworm's apt picamera2 does under the venv's NumPy 2.
    (tmp_path / "picamera2.py").write_text(
        "raise ValueError('numpy.dtype size changed, may indicate binary incompatibility')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    with pytest.raises(CameraError) as info:
        PiCamera()
    message = str(info.value)
    assert "ValueError: numpy.dtype size changed" in message
    assert "sudo apt install python3-picamera2" in message
    assert "--system-site-packages" in message
