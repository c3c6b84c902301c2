"""Photos an older version kept with their personal metadata (EXIF's GPS position, owner, camera serial...),
rewritten once without it: from this version on, every photo is kept and served without it (the web app
removes it as a photo comes in), and this makes that true of the photos kept before, too."""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from vision.image_io import ImageError, without_personal_metadata

log = logging.getLogger(__name__)

# In the state folder once every kept photo has been rewritten: the pass is not made again.
DONE_FILE = ".photos-without-metadata"


def strip_kept_photos(root: Path, photos: Iterable[Path]) -> int:
    """Rewrite each of ``photos`` (atomically) without its personal metadata, unless ``root`` says this was
    done; the number rewritten. A file that is no whole photo is left as it is (it is read, and refused, as
    any other)."""
    done = root / DONE_FILE
    if done.exists():
        return 0
    rewritten = 0
    for path in photos:
        try:
            data = path.read_bytes()
            clean = without_personal_metadata(data)
        except (OSError, ImageError) as exc:
            log.warning("%s: left as it is (%s)", path, exc)
            continue
        if clean != data:
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as out:
                out.write(clean)
            os.replace(tmp, path)
            rewritten += 1
    root.mkdir(parents=True, exist_ok=True)
    done.write_text("every photo kept before this version was rewritten without its personal metadata\n")
    return rewritten
