"""``garden-scorer-lab arm64``: the product on the Pi's architecture, against this machine's answers.

An arm64 Debian bookworm root (the Pi OS's base, Python 3.11) is built once with ``debootstrap`` and run
through ``qemu-user-static`` (both Debian packages; the kernel's binfmt_misc runs its programs). The product
goes in as a Pi installs it, from aarch64 wheels only: fetched on this machine (``pip download --platform
... --only-binary :all:``, pinned to the versions of this machine's venv) and installed in the root with no
index, so the root needs no network for pip. Then every bundled photo (and, unless ``quick``, drawn photos
of every game) is scored with ``score --json`` on both sides, and the demo run on both: totals, states and
flags must be the same; confidences (the demo's printed ones too) and corners are reported with their largest
differences.

Under qemu, onnxruntime's CPU detection crashes on the x86 ``/proc/cpuinfo`` the emulator shows programs: a
Pi 5's own (Cortex-A76) is bound over it in the root while the check runs (an artefact of emulation, never
needed on a Pi).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from device.cli import example_hand
from examples import example_photos, example_views
from lab.bench import _hand
from lab.synth.render import RenderSpec, render_photo
from scoring.core import StateError

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
ROOT_PACKAGES = ("python3", "python3-venv", "python3-pip", "ca-certificates")
PLATFORMS = ("manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64", "linux_aarch64")
VENV = "/opt/garden-scorer"
WORK = "/opt/check"  # wheels, photos and answers inside the root
DRAWN_SEED = 20261129
# A Raspberry Pi 5's /proc/cpuinfo (4 x Cortex-A76), for onnxruntime's CPU detection under emulation.
PI5_CORE = (
    "BogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
    "asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x4\n"
    "CPU part\t: 0xd0b\nCPU revision\t: 1\n\n"
)
PI5_CPUINFO = "".join(f"processor\t: {n}\n{PI5_CORE}" for n in range(4)) + (
    "Revision\t: d04170\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n"
)
NEEDED = {"debootstrap": "debootstrap", "qemu-aarch64-static": "qemu-user-static", "chroot": "coreutils"}


def _run(argv: Sequence[str], report: Callable[[str], None], **kwargs: Any) -> None:
    report("$ " + " ".join(argv))
    subprocess.run(list(argv), check=True, **kwargs)


def check_host() -> None:
    """Refuse, saying what to install, where this machine cannot build or run the root."""
    missing = sorted({package for tool, package in NEEDED.items() if shutil.which(tool) is None})
    if missing:
        raise StateError(f"the arm64 check needs {', '.join(missing)}: apt-get install {' '.join(missing)}")
    if platform.machine() != "aarch64" and not Path("/proc/sys/fs/binfmt_misc/qemu-aarch64").exists():
        raise StateError(
            "no binfmt_misc entry runs arm64 programs: mount binfmt_misc (mount -t binfmt_misc binfmt_misc "
            "/proc/sys/fs/binfmt_misc) and reinstall qemu-user-static, as root"
        )


def build_root(root: Path, report: Callable[[str], None]) -> None:
    """The arm64 bookworm root, unless one is there already."""
    if (root / "etc" / "debian_version").is_file() and (root / "usr" / "bin" / "python3").exists():
        report(f"{root}: an arm64 root already")
        return
    _run(
        ["debootstrap", "--arch=arm64", "--variant=minbase", f"--include={','.join(ROOT_PACKAGES)}", SUITE,
         str(root), MIRROR],
        report,
    )  # fmt: skip


def _pins() -> list[str]:
    """The product's dependencies at this machine's versions: the two sides differ in architecture only."""
    requires = metadata.requires("garden-scorer") or []
    names = [re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]
    return [f"{name}=={metadata.version(name)}" for name in names]


def fetch_wheels(project: Path, into: Path, report: Callable[[str], None]) -> None:
    """The product's wheel and every aarch64 wheel it needs, pinned, into ``into`` (emptied first)."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    pip = [sys.executable, "-m", "pip"]
    _run([*pip, "wheel", "--quiet", "--no-deps", "-w", str(into), str(project)], report)
    (wheel,) = into.glob("garden_scorer-*.whl")
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    _run(
        [*pip, "download", "--quiet", *platforms, "--only-binary=:all:", "--python-version", "3.11",
         "--implementation", "cp", "-d", str(into), str(wheel), *_pins()],
        report,
    )  # fmt: skip


def install(root: Path, report: Callable[[str], None]) -> None:
    """A fresh venv in the root with the product from the fetched wheels, no index."""
    shutil.rmtree(root / VENV.lstrip("/"), ignore_errors=True)
    _run(["chroot", str(root), "/usr/bin/python3", "-m", "venv", VENV], report)
    wheels = f"{WORK}/wheels"
    _run(
        ["chroot", str(root), f"{VENV}/bin/pip", "install", "--quiet", "--no-index", "--find-links", wheels,
         "garden-scorer"],
        report,
    )  # fmt: skip


@contextlib.contextmanager
def mounted(root: Path) -> Iterator[None]:
    """/proc and /sys in the root for as long as the block runs (onnxruntime reads the processors there),
    with a Pi's cpuinfo over /proc's under emulation."""
    proc, sys_ = root / "proc", root / "sys"
    subprocess.run(["mount", "-t", "proc", "proc", str(proc)], check=True)
    subprocess.run(["mount", "-t", "sysfs", "sysfs", str(sys_)], check=True)
    try:
        if platform.machine() != "aarch64":
            cpuinfo = root / WORK.lstrip("/") / "cpuinfo"
            cpuinfo.write_text(PI5_CPUINFO)
            subprocess.run(["mount", "--bind", str(cpuinfo), str(proc / "cpuinfo")], check=True)
        yield
    finally:
        subprocess.run(["umount", "-R", str(proc)], check=False)
        subprocess.run(["umount", "-R", str(sys_)], check=False)


def write_photos(work: Path, count: int, report: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every bundled photo (the two-photo Tang Garden example read together) and ``count`` drawn photos of
    each game, into ``work/photos``; the manifest of what to score, paths relative to ``work``."""
    photos = work / "photos"
    shutil.rmtree(photos, ignore_errors=True)
    photos.mkdir(parents=True)
    items: list[dict[str, Any]] = []
    for path in example_photos():
        truth = json.loads(path.with_suffix(".json").read_text())["boards"][0]["state"]
        shutil.copy(path, photos / path.name)
        hand = example_hand(path.stem, truth)
        items.append({"name": path.stem, "game": path.stem, "photo": f"photos/{path.name}", "hand": hand})
    for game, views in example_views().items():
        for view in views:
            shutil.copy(view, photos / f"views-{view.name}")
        hand = json.loads((views[0].parent / f"{game}.json").read_text())
        names = [f"photos/views-{v.name}" for v in views]
        items.append({"name": f"{game}-views", "game": game, "photo": names[0], "hand": hand})
        items[-1]["also"] = names[1:]
    for game in sorted({item["game"] for item in items if "views" not in item["name"]}):
        spec = RenderSpec((game,), DRAWN_SEED)
        for index in range(count):
            photo = render_photo(spec, index)
            name = f"{game}-drawn-{index:03d}"
            (photos / f"{name}.jpg").write_bytes(photo.jpeg)
            hand = _hand(game, photo.truth["boards"][0]["state"])
            items.append({"name": name, "game": game, "photo": f"photos/{name}.jpg", "hand": hand})
        report(f"{game}: {count} drawn photos")
    return items


# Raspberry Pi OS's picamera2 is not in Debian: a stand-in package of that name (importable, no camera),
# depending on python3-numpy as the real one does: install.sh takes the Bookworm path it takes on a Pi.
PICAMERA2_CONTROL = """Package: python3-picamera2
Version: 0.0-standin
Architecture: all
Maintainer: garden-scorer lab <lab@localhost>
Depends: python3, python3-numpy
Description: stand-in for Raspberry Pi OS's picamera2 in garden-scorer's arm64 install check
"""
PICAMERA2_MODULE = (
    "class Picamera2:\n    def __init__(self, *args, **kwargs):\n"
    "        raise RuntimeError('no camera: the arm64 install check\\'s stand-in for picamera2')\n"
)
# A root has no init: units are enabled offline; reloads and (re)starts are only said.
SYSTEMCTL = """#!/bin/sh
case "$1" in
    enable|disable|is-enabled) exec /usr/bin/systemctl "$@" ;;
    *) echo "install check (no init in this root): systemctl $*" ;;
esac
"""


def _chroot(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # Not this machine's pip settings (its wheel folder): the root installs as a Pi does, from the index.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_FIND_LINKS")}
    return subprocess.run(["chroot", str(root), *argv], capture_output=True, text=True, check=False, env=env)


def install_check(root: Path, project: Path, report: Callable[[str], None]) -> dict[str, Any]:
    """``systemd/install.sh`` run in the root as on a Pi (a stand-in picamera2, systemd for its unit), then
    the unit verified, the venv's NumPy and OpenCV read, and the installed demo run."""
    with tempfile.TemporaryDirectory() as tmp:
        package = Path(tmp) / "python3-picamera2"
        (package / "DEBIAN").mkdir(parents=True)
        (package / "DEBIAN" / "control").write_text(PICAMERA2_CONTROL)
        module = package / "usr/lib/python3/dist-packages/picamera2"
        module.mkdir(parents=True)
        (module / "__init__.py").write_text(PICAMERA2_MODULE)
        deb = root / "opt" / "picamera2-standin.deb"
        _run(["dpkg-deb", "--build", "-Zgzip", str(package), str(deb)], report)
    # This machine's certificate authorities (a network that inspects TLS needs them; a Pi has its own).
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "etc/ssl/certs/ca-certificates.crt")
    systemctl = root / "usr/local/sbin/systemctl"
    systemctl.write_text(SYSTEMCTL)
    systemctl.chmod(0o755)
    source = root / "opt" / "src"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(project), "archive", "HEAD"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    steps = [
        ("apt", ("apt-get", "update", "-q")),
        ("apt", ("apt-get", "install", "-y", "-q", "--no-install-recommends", "/opt/picamera2-standin.deb",
                 "systemd")),
        ("install.sh", ("sh", "/opt/src/systemd/install.sh")),
    ]  # fmt: skip
    for name, argv in steps:
        report(f"in the root: {' '.join(argv)}")
        done = _chroot(root, *argv)
        if done.returncode:
            return {"installed": False, "failed": name, "output": (done.stdout + done.stderr)[-2000:]}
    venv = "/opt/garden-scorer/venv/bin"
    with mounted(root):
        verify = _chroot(root, "systemd-analyze", "verify", "/etc/systemd/system/garden-scorer.service")
        versions = _chroot(
            root, f"{venv}/python", "-c", "import numpy, cv2, onnxruntime; print(numpy.__version__, "
            "cv2.__version__, onnxruntime.__version__)",
        )  # fmt: skip
        demo = _chroot(root, f"{venv}/garden-scorer", "demo")
    numpy, opencv, onnxruntime = (versions.stdout.split() + ["?"] * 3)[:3]
    return {
        "installed": True,
        "unit_verified": verify.returncode == 0 and not verify.stdout.strip(),
        "verify_output": (verify.stdout + verify.stderr).strip()[-2000:],
        "numpy": numpy,
        "opencv": opencv,
        "onnxruntime": onnxruntime,
        "demo_ran": demo.returncode == 0,
    }


def _boards(answer: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return list(answer["boards"]) if answer else []


def compare(
    here: Mapping[str, Mapping[str, Any]], there: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Per photo: whether both sides gave the same exit, totals, states, flags and unsure cells, and how far
    the boards' confidences and corners moved."""
    rows = []
    for name, mine in here.items():
        theirs = there.get(name, {"exit": None, "answer": None})
        a, b = _boards(mine["answer"]), _boards(theirs["answer"])
        keys = ("total", "state", "flags", "low_confidence_cells", "players")
        same = mine["exit"] == theirs["exit"] and len(a) == len(b)
        same = same and all(x.get(k) == y.get(k) for x, y in zip(a, b, strict=False) for k in keys)
        pairs = list(zip(a, b, strict=False)) if len(a) == len(b) else []
        confidence = max((abs(x["confidence"] - y["confidence"]) for x, y in pairs), default=0.0)
        corners = max(
            (abs(p - q) for x, y in pairs for pa, pb in zip(x["corners_xy"], y["corners_xy"], strict=True)
             for p, q in zip(pa, pb, strict=True)),
            default=0.0,
        )  # fmt: skip
        game = str(name).split("-drawn-")[0].removesuffix("-views")
        rows.append(
            {"photo": name, "game": game, "same": same, "confidence": confidence, "corners_px": corners}
        )
    return rows


# A confidence as the demo prints it: reported with its largest move, as the photos' are, not compared.
PRINTED_CONFIDENCE = re.compile(r"confidence (\d+\.\d+)")


def compare_demo(here: str, there: str) -> dict[str, Any]:
    """The demo's printed output on both machines: whether it is the same but for the confidences it prints
    (``same``), their largest move, and the first lines that differ otherwise (``- here`` / ``+ there``)."""
    mine, theirs = here.splitlines(), there.splitlines()
    moves = [
        abs(float(a) - float(b))
        for x, y in zip(mine, theirs, strict=False)
        for a, b in zip(PRINTED_CONFIDENCE.findall(x), PRINTED_CONFIDENCE.findall(y), strict=False)
    ]
    masked = [[PRINTED_CONFIDENCE.sub("confidence ?", line) for line in lines] for lines in (mine, theirs)]
    differ = [f"- {x}\n+ {y}" for x, y in itertools.zip_longest(*masked, fillvalue="(no line)") if x != y]
    return {"same": not differ, "confidence": max(moves, default=0.0), "differ": differ[:5]}


def summary(rows: Sequence[Mapping[str, Any]], demo: Mapping[str, Any] | None) -> dict[str, Any]:
    games: dict[str, dict[str, Any]] = {}
    for row in rows:
        g = games.setdefault(row["game"], {"photos": 0, "same": 0, "confidence": 0.0, "corners_px": 0.0})
        g["photos"] += 1
        g["same"] += bool(row["same"])
        g["confidence"] = max(g["confidence"], row["confidence"])
        g["corners_px"] = max(g["corners_px"], row["corners_px"])
    return {"games": games, "demo": demo, "rows": list(rows)}


def format_summary(result: Mapping[str, Any]) -> str:
    lines = [
        "| game | photos | same totals, states, flags | largest confidence move | largest corner move, px |",
        "|---|---|---|---|---|",
    ]
    for game, g in result["games"].items():
        lines.append(
            f"| {game} | {g['photos']} | {g['same']} | {g['confidence']:.4f} | {g['corners_px']:.2f} |"
        )
    demo = result["demo"]
    if demo is None:
        lines += ["", "demo: not run"]
    else:
        said = "the same output" if demo["same"] else "DIFFERENT output"
        lines += ["", f"demo: {said} (its printed confidences moved by at most {demo['confidence']:.3f})"]
        lines += demo["differ"]
    differ = [r["photo"] for r in result["rows"] if not r["same"]]
    if differ:
        lines.append("differ: " + ", ".join(differ))
    checked = result.get("install")
    if checked is not None and not checked["installed"]:
        lines.append(f"install.sh in the root: FAILED at {checked['failed']}: {checked['output']}")
    elif checked is not None:
        verified = "verified" if checked["unit_verified"] else f"NOT verified: {checked['verify_output']}"
        lines.append(
            f"install.sh in the root: installed; the unit {verified}; its venv has NumPy {checked['numpy']}, "
            f"OpenCV {checked['opencv']}, onnxruntime {checked['onnxruntime']}; the installed demo "
            + ("ran" if checked["demo_ran"] else "FAILED")
        )
    return "\n".join(lines)


def run_check(
    root: Path, project: Path, quick: bool, count: int, report: Callable[[str], None], installer: bool = False
) -> dict[str, Any]:
    """Build (or reuse) the root, install the product from wheels, score on both sides, compare; with
    ``installer``, also the Pi's own install path (:func:`install_check`)."""
    check_host()
    build_root(root, report)
    work = root / WORK.lstrip("/")
    work.mkdir(parents=True, exist_ok=True)
    fetch_wheels(project, work / "wheels", report)
    install(root, report)
    manifest = write_photos(work, 0 if quick else count, report)
    (work / "manifest.json").write_text(json.dumps(manifest))
    runner = Path(__file__).with_name("arm64_score.py")
    shutil.copy(runner, work / runner.name)
    report(f"scoring {len(manifest)} photos here")
    subprocess.run(
        [sys.executable, runner.name, "manifest.json", "here.json"], cwd=work, check=True
    )  # fmt: skip
    demo_here = subprocess.run(
        [sys.executable, "-m", "device.cli", "demo"], capture_output=True, text=True, check=True
    ).stdout
    with mounted(root):
        report(f"scoring {len(manifest)} photos on arm64 (emulated: minutes)")
        inside = f"cd {WORK} && {VENV}/bin/python {runner.name} manifest.json arm64.json"
        subprocess.run(["chroot", str(root), "/bin/sh", "-c", inside], check=True)
        demo = ["chroot", str(root), f"{VENV}/bin/garden-scorer", "demo"]
        demo_there = subprocess.run(demo, capture_output=True, text=True, check=True).stdout
    here = json.loads((work / "here.json").read_text())
    there = json.loads((work / "arm64.json").read_text())
    (work / "demo-here.txt").write_text(demo_here)
    (work / "demo-arm64.txt").write_text(demo_there)
    result = summary(compare(here, there), compare_demo(demo_here, demo_there))
    if installer:
        result["install"] = install_check(root, project, report)
    return result
