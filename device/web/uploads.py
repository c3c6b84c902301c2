"""The calibration page's photos, kept between two requests under ``calibrate-uploads/`` by a random token.

Only the newest ``KEEP_UPLOADS`` photos are kept, so abandoned ones never fill the card. The page is shown a
re-encoded copy of each photo: a phone's EXIF rotation would otherwise turn the picture, but not the pixels
the corners are given in.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.statedir import StateDir
from calibration.store import StoreError
from vision.image_io import without_personal_metadata

UPLOADS_DIR = "calibrate-uploads"
KEEP_UPLOADS = 8
# The longest side of the copy of a photo the page shows: plenty for a phone, a fraction of the photo's bytes.
PREVIEW_PX = 1600
TOKEN = r"^[0-9a-f]{32}$"


class UploadStore:
    """Photos kept between two requests, as ``TOKEN.photo.jpg|png`` (as sent) and ``TOKEN.preview.jpg``."""

    def __init__(self, state: StateDir, keep: int = KEEP_UPLOADS) -> None:
        self.root = state.root / UPLOADS_DIR
        self.keep = keep

    def add(self, data: bytes, image: NDArray[np.uint8]) -> str:
        """Keep a photo (its bytes, without what they say of who took it where, and the decoded image);
        returns its token."""
        data = without_personal_metadata(data)
        token = secrets.token_hex(16)
        self.root.mkdir(parents=True, exist_ok=True)
        suffix = ".png" if data.startswith(b"\x89PNG") else ".jpg"
        (self.root / f"{token}.photo{suffix}").write_bytes(data)
        (self.root / f"{token}.preview.jpg").write_bytes(_preview(image))
        self._prune()
        return token

    def photo(self, token: str) -> Path | None:
        paths = (self._path(token, f"photo{suffix}") for suffix in (".jpg", ".png"))
        return next((p for p in paths if p.is_file()), None)

    def preview(self, token: str) -> Path | None:
        path = self._path(token, "preview.jpg")
        return path if path.is_file() else None

    def add_turns(self, token: str, pictures: Sequence[bytes]) -> list[str]:
        """Keep the pictures of the board's turns beside its photo; their addresses."""
        for k, picture in enumerate(pictures, start=1):
            self._path(token, f"turn-{k}.jpg").write_bytes(picture)
        return [f"/api/calibrate/uploads/{token}/turn-{k}.jpg" for k in range(1, len(pictures) + 1)]

    def turn(self, token: str, turn: int) -> Path | None:
        path = self._path(token, f"turn-{int(turn)}.jpg")
        return path if path.is_file() else None

    def drop(self, token: str) -> None:
        for path in self.root.glob(self._path(token, "*").name):
            path.unlink(missing_ok=True)

    def _path(self, token: str, what: str) -> Path:
        if not re.fullmatch(TOKEN, token):
            raise StoreError(f"upload token {token!r}: expected 32 hexadecimal digits")
        return self.root / f"{token}.{what}"

    def _prune(self) -> None:
        # Names starting with a dot are a camera calibration's photos, which remove themselves.
        files = [p for p in self.root.iterdir() if p.is_file() and not p.name.startswith(".")]
        newest: dict[str, float] = {}
        for path in files:
            token = path.name.split(".")[0]
            newest[token] = max(newest.get(token, 0.0), path.stat().st_mtime)
        old = set(sorted(newest, key=newest.__getitem__)[: -self.keep])
        for path in files:
            if path.name.split(".")[0] in old:
                path.unlink(missing_ok=True)


def _preview(image: NDArray[np.uint8]) -> bytes:
    h, w = image.shape[:2]
    scale = PREVIEW_PX / max(h, w)
    if scale < 1:
        image = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise OSError("could not encode the photo's preview")
    return bytes(jpeg.tobytes())
