"""Train the side model (:mod:`vision.locate.sides`) on the synthetic table; export ``models/sides.onnx``.

Needs the ``train`` extra (torch). Deterministic like the other models: photos (seed, i), a seeded torch on
one thread with deterministic kernels.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lab.synth.art import TRAINING_PACKS
from lab.train.classifier import export_onnx, fit_loop
from lab.train.segment_data import PROFILES
from lab.train.sides_data import JITTER, JITTER_MAX, StripSet, build_strips
from models import sides_model_path
from vision.locate.sides import ACROSS, ALONG, COLUMNS, REACH, read_rows


@dataclass(frozen=True)
class SidesConfig:
    photos: int = 2800
    val_photos: int = 120
    epochs: int = 16
    batch: int = 64
    lr: float = 4e-3
    seed: int = 3
    val_seed: int = 1003
    workers: int = 2


def _network() -> Any:
    import torch
    from torch import nn

    def conv(cin: int, cout: int, stride: tuple[int, int] = (1, 1), rows: int = 1) -> nn.Module:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, padding=(rows, 1), dilation=(rows, 1), bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    class SideNet(nn.Module):  # type: ignore[misc]
        """Full resolution across the side, a quarter of it along: two strided layers along the side, then
        layers dilated across it (to 16 rows apart) so every row sees the whole strip's width: whether table
        lies outside an edge, or more board."""

        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(
                conv(3, 16, (1, 2)),
                conv(16, 16, (1, 2)),
                conv(16, 16, rows=2),
                conv(16, 16, rows=4),
                conv(16, 16, rows=8),
                conv(16, 16, rows=16),
                conv(16, 16),
            )
            self.head = nn.Conv2d(16, 1, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            logits: torch.Tensor = self.head(self.body(x))
            return logits

    return SideNet()


def _inputs(pixels: np.ndarray) -> Any:
    import torch

    return torch.from_numpy(np.ascontiguousarray(pixels.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0)


def _loss(logits: Any, rows: Any) -> Any:
    """Cross-entropy over the rows of each stretch against its true (fractional) row shared between the two
    rows either side of it; stretches whose side leaves the strip (NaN) are not taught."""
    import torch

    log_p = torch.log_softmax(logits[:, 0], dim=1)  # (N, ACROSS, COLUMNS)
    taught = ~torch.isnan(rows)
    r = torch.nan_to_num(rows, nan=0.0).clamp(0, ACROSS - 1)
    low = r.floor().long().clamp(max=ACROSS - 2)
    frac = r - low.float()
    picked = (1 - frac) * log_p.gather(1, low[:, None]).squeeze(1) + frac * log_p.gather(
        1, (low + 1)[:, None]
    ).squeeze(1)
    return -(picked * taught).sum() / taught.sum().clamp(min=1)


def row_errors(net: Any, data: StripSet) -> dict[str, float]:
    """How far the rows read on ``data`` lie from the truth: median and 95th percentile (rows), and the
    share of stretches more than two rows off."""
    import torch

    net.eval()
    errors = []
    with torch.no_grad():
        for start in range(0, len(data.pixels), 256):
            logits = net(_inputs(data.pixels[start : start + 256]))[:, 0].numpy()
            rows, _ = read_rows(logits)
            errors.append(np.abs(rows - data.rows[start : start + 256]))
    err = np.concatenate(errors).ravel()
    err = err[~np.isnan(err)]
    return {
        "median_rows": round(float(np.median(err)), 3),
        "p95_rows": round(float(np.percentile(err, 95)), 3),
        "over_2_rows": round(float(np.mean(err > 2)), 5),
    }


def fit(data: StripSet, val: StripSet, config: SidesConfig, log: Any = print) -> Any:
    """The trained network (for :func:`train_sides`, and for trying recipes on strips already cut)."""
    import torch

    def mirror(x: Any, r: Any, generator: Any) -> tuple[Any, Any]:
        # A side read from its other end is as good a side (outside stays outside: no flip across).
        if bool(torch.rand(1, generator=generator) < 0.5):
            x, r = x.flip(3), r.flip(1)
        return x, r

    def report(net: Any) -> str:
        e = row_errors(net, val)
        return (
            f"validation rows off median {e['median_rows']}, p95 {e['p95_rows']}, over 2 rows "
            f"{e['over_2_rows']:.2%}"
        )

    rows = torch.from_numpy(data.rows)
    return fit_loop(_network, _inputs(data.pixels), rows, config, _loss, mirror, report, log)


def train_sides(config: SidesConfig, out: Path | None = None, log: Any = print) -> Path:
    """Render photos, cut strips, train, export the side model and its card; returns the model's path."""
    started = time.time()
    log(f"rendering {config.photos} training photos (every game, packs {', '.join(TRAINING_PACKS)}) ...")
    data = build_strips(config.seed, config.photos, TRAINING_PACKS, config.workers)
    val = build_strips(config.val_seed, config.val_photos, TRAINING_PACKS, config.workers)
    log(f"{len(data.pixels)} training strips, {len(val.pixels)} validation ({time.time() - started:.0f} s)")
    net = fit(data, val, config, log)
    path = out or sides_model_path()
    export_sides(net, val, config, time.time() - started, path)
    log(f"wrote {path} ({path.stat().st_size} bytes) in {time.time() - started:.0f} s")
    return path


def export_sides(net: Any, val: StripSet, config: SidesConfig, seconds: float, path: Path) -> None:
    """The trained network as ``path`` with its card beside it (validation figures from ``val``)."""
    import torch

    info = {
        "kind": "board-sides",
        "strip": {"across": ACROSS, "along": ALONG, "columns": COLUMNS, "reach": REACH},
        "training": {
            "photos": config.photos,
            "seed": config.seed,
            "packs": list(TRAINING_PACKS),
            "profiles": list(PROFILES),
            "jitter": [JITTER, JITTER_MAX],
            "epochs": config.epochs,
            "seconds": round(seconds),
        },
        "metrics": {"validation": row_errors(net, val)},
    }
    batch = torch.export.Dim("batch", min=1, max=256)
    example = torch.zeros(8, 3, ACROSS, ALONG)
    export_onnx(net, example, ("strips",), ("rows",), {"x": {0: batch}}, info, path)
    _write_card(path.with_suffix(".md"), info, path.stat().st_size)


def _write_card(path: Path, info: dict[str, Any], size: int) -> None:
    t = info["training"]
    m = info["metrics"]["validation"]
    path.write_text(
        "\n".join(
            [
                "# Board-side model",
                "",
                f"- File: `{path.with_suffix('.onnx').name}`, {size} bytes, one ONNX file.",
                f"- Input: `strips` (N, 3, {ACROSS}, {ALONG}) float32, BGR in [0, 1]: photo pixels sampled "
                f"across each side of a rough board outline, {REACH:.1%} of the board's size either side, "
                "outside at the top (see `vision/locate/sides.py`).",
                f"- Output: `rows` (N, 1, {ACROSS}, {COLUMNS}) logits: for each of {COLUMNS} stretches "
                "along the side, which row the board's top face ends at.",
                f"- Training data: strips of {t['photos']} synthetic photos (seed {t['seed']}) of 1-3 "
                f"boards each, drawn from the profiles {', '.join(t['profiles'])}, art packs "
                f"{', '.join(t['packs'])} and random printings of them, hands over 30 % of photos. "
                "Each board seen whole is looked at from the board-mask model's outline and from its "
                f"true outline with every corner moved at random ({t['jitter'][0]:.1%} of its size, at "
                f"most {t['jitter'][1]:.0%}); {t['epochs']} epochs; {t['seconds']} s on this machine's CPU.",
                "- Rebuild: `garden-scorer-lab train --sides` (needs `pip install -e '.[train]'`; uses the "
                "shipped `boards.onnx`).",
                f"- Validation (seen packs): the row read is off by {m['median_rows']} rows at the median, "
                f"{m['p95_rows']} at the 95th percentile; {m['over_2_rows']:.2%} of stretches are "
                "off by more than 2 rows.",
                "",
            ]
        )
    )
