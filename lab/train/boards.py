"""Train the board-mask model (:mod:`vision.locate.mask`) on the synthetic table; export
``models/boards.onnx``.

Needs the ``train`` extra (torch). Deterministic like the cell classifiers: photos (seed, i), a seeded torch
on one thread with deterministic kernels.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lab.synth.art import TRAINING_PACKS
from lab.train.classifier import export_onnx, fit_loop
from lab.train.segment_data import FULL, IGNORE, PROFILES, MaskSet, build_masks
from models import boards_model_path
from vision.locate.mask import CORE_INSET, INPUT_WIDTH, STRIDE


@dataclass(frozen=True)
class BoardsConfig:
    photos: int = 1800
    val_photos: int = 160
    epochs: int = 20
    batch: int = 16
    lr: float = 4e-3
    seed: int = 1
    val_seed: int = 1001
    workers: int = 2


def _network() -> Any:
    import torch
    from torch import nn
    from torch.nn import functional

    def conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Module:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    class BoardNet(nn.Module):  # type: ignore[misc]
        """A small U-Net: four halvings (the last with dilated layers, to see a board whole), then back up
        level by level with each level's features added in, to two maps at the input's own size (its
        full-size first layer, added in last, sees where an edge crosses a pixel)."""

        def __init__(self) -> None:
            super().__init__()
            self.e0 = conv(3, 8)
            self.e1 = conv(8, 16, 2)
            self.e2 = nn.Sequential(conv(16, 24, 2), conv(24, 24))
            self.e3 = nn.Sequential(conv(24, 48, 2), conv(48, 48))
            self.e4 = nn.Sequential(conv(48, 64, 2), conv(64, 64, dilation=2), conv(64, 64, dilation=4))
            self.d3, self.s3 = conv(64, 48), nn.Conv2d(48, 64, 1)
            self.d2, self.s2 = conv(48, 24), nn.Conv2d(24, 48, 1)
            self.d1, self.s1 = conv(24, 16), nn.Conv2d(16, 24, 1)
            self.s0 = nn.Conv2d(16, 8, 1)
            self.head = nn.Conv2d(8, 2, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            def up(t: torch.Tensor) -> torch.Tensor:
                return functional.interpolate(t, scale_factor=2.0, mode="bilinear", align_corners=False)

            f0 = self.e0(x)
            f1 = self.e1(f0)
            f2 = self.e2(f1)
            f3 = self.e3(f2)
            f4 = self.e4(f3)
            y = self.d3(up(f4) + self.s3(f3))
            y = self.d2(up(y) + self.s2(f2))
            y = self.d1(up(y) + self.s1(f1))
            masks: torch.Tensor = self.head(functional.relu(self.s0(up(y)) + f0))
            return masks

    return BoardNet()


def _inputs(images: np.ndarray) -> Any:
    import torch

    return torch.from_numpy(np.ascontiguousarray(images.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0)


def _loss(logits: Any, target: Any) -> Any:
    from torch.nn import functional

    taught = (target != IGNORE).float()
    cover = target.float().clamp(max=FULL) / FULL
    loss = functional.binary_cross_entropy_with_logits(logits, cover, reduction="none")
    return (loss * taught).sum() / taught.sum().clamp(min=1.0)


def _iou(net: Any, data: MaskSet) -> list[float]:
    """Per map, intersection over union of the predicted and true masks over the set (taught pixels)."""
    import torch

    net.eval()
    inter = np.zeros(2)
    union = np.zeros(2)
    with torch.no_grad():
        for start in range(0, len(data.images), 32):
            pred = (net(_inputs(data.images[start : start + 32])) > 0).numpy()
            target = data.targets[start : start + 32]
            taught = target != IGNORE
            true = (target > FULL // 2) & taught
            inter += ((pred & true) & taught).sum(axis=(0, 2, 3))
            union += ((pred | true) & taught).sum(axis=(0, 2, 3))
    return [float(i / max(u, 1)) for i, u in zip(inter, union, strict=True)]


def train_boards(config: BoardsConfig, out: Path | None = None, log: Any = print) -> Path:
    """Render photos, train, export the board-mask model and its card; returns the model's path."""
    started = time.time()
    log(f"rendering {config.photos} training photos (every game, packs {', '.join(TRAINING_PACKS)}) ...")
    data = build_masks(config.seed, config.photos, TRAINING_PACKS, config.workers)
    val = build_masks(config.val_seed, config.val_photos, TRAINING_PACKS, config.workers)
    log(f"{len(data.images)} training photos, {len(val.images)} validation ({time.time() - started:.0f} s)")
    net = fit(data, val, config, log)
    path = out or boards_model_path()
    export_boards(net, val, config, time.time() - started, path)
    log(f"wrote {path} ({path.stat().st_size} bytes) in {time.time() - started:.0f} s")
    return path


def export_boards(net: Any, val: MaskSet, config: BoardsConfig, seconds: float, path: Path) -> None:
    """The trained network as ``path`` with its card beside it (validation figures from ``val``)."""
    import torch

    info = {
        "kind": "board-mask",
        "input_width": INPUT_WIDTH,
        "core_inset": CORE_INSET,
        "training": {
            "photos": config.photos,
            "seed": config.seed,
            "packs": list(TRAINING_PACKS),
            "profiles": list(PROFILES),
            "epochs": config.epochs,
            "seconds": round(seconds),
        },
        "metrics": {"validation_iou": dict(zip(("board", "core"), _iou(net, val), strict=True))},
    }
    height = torch.export.Dim("height16", min=1, max=64)
    example = torch.zeros(1, 3, 144, INPUT_WIDTH)
    export_onnx(net, example, ("photo",), ("masks",), {"x": {2: STRIDE * height}}, info, path)
    _write_card(path.with_suffix(".md"), info, path.stat().st_size)


def fit(data: MaskSet, val: MaskSet, config: BoardsConfig, log: Any = print) -> Any:
    """The trained network (for :func:`train_boards`, and for trying recipes on masks already rendered)."""
    import torch

    def mirror(x: Any, t: Any, generator: Any) -> tuple[Any, Any]:
        # Mirrored photos: a board's layout is no cue to where its edge is.
        if bool(torch.rand(1, generator=generator) < 0.5):
            x, t = x.flip(3), t.flip(3)
        if bool(torch.rand(1, generator=generator) < 0.5):
            x, t = x.flip(2), t.flip(2)
        return x, t

    def report(net: Any) -> str:
        iou = _iou(net, val)
        return f"validation IoU board {iou[0]:.4f}, core {iou[1]:.4f}"

    targets = torch.from_numpy(data.targets)
    return fit_loop(_network, _inputs(data.images), targets, config, _loss, mirror, report, log)


def _write_card(path: Path, info: dict[str, Any], size: int) -> None:
    t = info["training"]
    iou = info["metrics"]["validation_iou"]
    width, inset = info["input_width"], info["core_inset"]
    path.write_text(
        "\n".join(
            [
                "# Board-mask model",
                "",
                f"- File: `{path.with_suffix('.onnx').name}`, {size} bytes, one ONNX file.",
                f"- Input: `photo` (1, 3, H, {width}) float32, BGR in [0, 1]: the photo brought "
                f"down to {width} pixels wide, its height padded to a multiple of {STRIDE} "
                "(see `vision/locate/mask.py`).",
                "- Output: `masks` (1, 2, H, W) logits: a board's top face, and the face shrunk by "
                f"{inset:.0%} of the board's shorter side (one per board, so boards laid edge to "
                "edge stay apart).",
                f"- Training data: {t['photos']} synthetic photos (seed {t['seed']}) of 1-3 boards each, "
                f"drawn from the profiles {', '.join(t['profiles'])}, art packs {', '.join(t['packs'])} and "
                "random printings of them, hands over 30 % of photos; "
                f"{t['epochs']} epochs; {t['seconds']} s on this machine's CPU.",
                "- Rebuild: `garden-scorer-lab train --boards` (needs `pip install -e '.[train]'`).",
                f"- Validation (seen packs): intersection over union {iou['board']:.4f} (face), "
                f"{iou['core']:.4f} (core).",
                "",
            ]
        )
    )
