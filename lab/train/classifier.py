"""Train a game's cell classifier on the synthetic table and export it to one ONNX file with a model card.

Needs the ``train`` extra (torch). Deterministic: the data are photos (seed, i), torch is seeded and runs
single-threaded with deterministic kernels, so the same command rebuilds the same model on this machine.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from lab.synth.art import HELD_OUT_PACK, TRAINING_PACKS
from lab.train.dataset import CellSet, build_cells, joined, real_cells, table_cells
from lab.train.quantise import quantise, set_info
from models import model_path
from vision.model_file import METADATA_KEY, model_input, open_model
from vision.reader_api import COMPASS, TurnedLook
from vision.readers import IGNORE, Reader, get_reader
from vision.readers.tang_garden import DECORATION_HEADS, EDGE_HEADS


@dataclass(frozen=True)
class TrainConfig:
    photos: int = 300
    val_photos: int = 40
    epochs: int = 14
    orient_epochs: int = 25
    # The orientation model's own rate: a classifier's recipe may change its ``lr`` (Tang Garden's larger
    # batches) without changing the orientation model's (at 4e-3 Tang Garden's erred on 1 of 40 boards).
    orient_lr: float = 3e-3
    batch: int = 128
    lr: float = 3e-3
    seed: int = 1
    val_seed: int = 1001
    workers: int = 2
    # The share of training boards in a random printing of their pack (validation: the packs as they are).
    vary_art: float = 0.5
    # The share of training boards drawn crowded (small pieces side by side on a space; see
    # lab.synth.scene.CrowdingArtist), for games whose artist draws them.
    crowded: float = 0.0
    # Crops cut from each training board, each from its own corner error (more for a board of one cell).
    views: int = 1
    # Stride of the first convolution: 2 keeps a large crop (wide context at full detail) as cheap as a
    # small one.
    stem_stride: int = 1
    # Pool the last features into bins x bins places instead of one average, so the heads know where in
    # the crop a thing lies: a crop with wide context shows the neighbours' contents too.
    spatial_bins: int = 1
    # Add to the pooled places each feature's strongest response over the crop's middle (the last feature
    # map without its outer ring, which is the context round the cell when that is as wide as one of its
    # places): a small thing anywhere on the cell shows there alike, wherever it lies.
    middle_max: bool = False
    # Heads whose art has no up (a printed square seen from any side): half of each batch is turned a random
    # number of quarters and teaches only these heads, as the rest (the lean of a standing piece) would be
    # drawn wrong turned. For crops cut turned by the camera's foot (``lean_up``), where that art shows at any
    # angle.
    turned_heads: tuple[str, ...] = ()
    # Training crops moved by up to this many pixels either way (edges repeated): a crop is cut where a
    # board's corners were found, never exactly where they are.
    shift_px: int = 0
    # From this epoch on (0: never), an epoch trains on the ``hard_share`` of the crops whose loss was the
    # highest when last seen and a random ``easy_share`` of the others: most crops are learnt within a few
    # epochs, and the few left (a small decoration beside a miniature) then get the time.
    hard_from: int = 0
    hard_share: float = 0.4
    easy_share: float = 0.2
    # AdamW's weight decay on the classifier's weights: a model that learns by heart the few crops it cannot
    # read (a decoration half under a miniature) reads them less often on photos it never saw.
    weight_decay: float = 1e-4
    # Threads the epochs run on: two buy Sanssouci and Tang Garden their data within the 20-minute rebuild;
    # the others keep one, so that they rebuild as committed.
    threads: int = 1
    # Train in bfloat16 with channels-last images (the weights and the exported model stay float32): on this
    # machine's CPU a Tang Garden batch ran 1.9 times as fast, which buys epochs within the 20-minute rebuild.
    bf16: bool = False
    # Heads whose loss counts more than the others' (name, weight): every head reads one shared embedding,
    # and a small cue (which way a miniature faces) is otherwise crowded out of it by the many other heads.
    loss_weights: tuple[tuple[str, float], ...] = ()
    # Heads whose loss counts this much more again on the crops where a piece stands (the reader's turned
    # look's gate reads one): a small thing beside a miniature is missed far more often than one alone.
    beside_piece: tuple[tuple[str, float], ...] = ()
    # Export the classifier in 8-bit integers (lab/train/quantise.py): for a model whose reading dominates a
    # photo's time (Tang Garden's 120 crops of 96 pixels).
    int8: bool = False
    # Real photos learnt from beside the synthetic ones: a folder of boards that fill their photo (as
    # `garden-scorer-lab bench --photos --whole-photo` reads them), relative to the project's folder; each
    # photo cut ``real_views`` times. Where the folder is absent, the model learns from synthetic photos
    # alone.
    real: str = ""
    real_views: int = 8
    # The share of those photos also cut as seen at a slant (lab.train.dataset.tilted): a phone across a
    # table foreshortens a board that every real photo shows from straight above.
    real_tilt: float = 0.0
    # Photometric jitter (:func:`augment`): the gain drawn from ``gain`` (lowest, highest), and each crop's
    # colours pulled towards its grey by up to ``desaturate`` (0: not). Phones differ in white balance and
    # saturation more than the renderer's lights: Kingdomino's dev photos show fields at saturation 241 (of
    # 255), a phone on a home table 160-200, which that model read as grassland or the bare table.
    gain: tuple[float, float] = (0.8, 1.2)
    desaturate: float = 0.0
    # A lamp's or a window's colour (:func:`augment`, red against blue by up to this share), and the share
    # of crops washed out by glare, each as a whole (towards white by up to WASH_MOST): real kingdoms' squares
    # misread under a warm lamp and under glare over a whole tile (docs/experiments.md).
    warm: float = 0.0
    wash: float = 0.0
    # Layouts of the real photos left out of training: a fold's, read after to measure the model.
    leave_out: tuple[str, ...] = ()
    # Real photos of boards on tables, at a slant (a folder of photos with their outlines marked, and a
    # ``lab/truth`` file of their cells), each cut ``table_views`` times: what no photo from straight above
    # shows (a standing piece leaning over the next square, the tiles' sides, lamp glare). Where the folder
    # is absent, the model learns without them.
    table: str = ""
    table_truth: str = ""
    table_views: int = 16
    # Games of the table photos left out of training: a fold's, scored after to measure the model.
    leave_out_games: tuple[str, ...] = ()


# Per game, where the recipe differs from TrainConfig's defaults. Alice's Garden reads the held-out art
# perfectly without varied printings, and trained on them its orientation model grew lax about a half board
# cut by the photo's edge (scored it twice in 30 tries): it keeps the plain recipe.
GAME_CONFIG: dict[str, dict[str, Any]] = {"alices-garden": {"vary_art": 0.0, "epochs": 12}}
# The Extra-rewards tile is one cell a photo: each board is cut several times, and more boards are checked.
GAME_CONFIG["four-gardens-reward"] = {"photos": 600, "views": 8, "val_photos": 150}
# Zen Garden: 64-pixel crops through a strided first layer (as cheap as 32 at full stride; see its reader);
# twice the photos and two more epochs took its boards read perfectly from 96.0 % to 99.2 % (500 photos).
GAME_CONFIG["zen-garden"] = {"photos": 1000, "epochs": 16, "stem_stride": 2}
# The Scoreboard: 64-pixel crops through a strided first layer, from four times the photos (markers misread
# where they stand 1.1-1.6 % -> 0.2-1.0 %, classify 6.0 -> 2.4 ms). Its crops are cut turned by the camera's
# foot and pooled by place, as Sanssouci's are: a marker leaning in from the next space always comes from
# below (200 photos: cell error 0.156 -> 0.021 %, boards perfect 95.0 -> 99.0 %).
GAME_CONFIG["four-gardens"] = {"photos": 1200, "epochs": 12, "stem_stride": 2, "spatial_bins": 2}
# Tang Garden: 84 cells a photo, 96-pixel crops with context (tall miniatures lean over their neighbours).
# A strided first layer keeps it cheap; pooling by place tells a tile from its neighbours, and the middle
# maximum shows a small decoration alike wherever on the tile it lies. Its error is bound by data within the
# 20-minute rebuild: bfloat16 epochs, two threads, 8-bit export and the focused epochs (hard_from) buy 1500
# photos in 16 epochs. Small cues weigh more (a miniature's identity and facing, the decorations, most of all
# beside a miniature); the edge heads weigh half, or they crowd the identity out of the shared embedding.
# Crowded boards show the rare sight of decorations side by side; weight decay keeps it from learning its
# hardest crops by heart. Every trial behind these numbers: docs/experiments.md.
# Sanssouci: wide context for noblemen leaning over their neighbours (see its reader), read as Tang Garden's
# is: a strided first layer, pooling by place; more photos, as the leaning nobleman is a rare sight. Its
# crops are cut turned (lean_up), so a square's art shows at any angle: half of each batch is turned by
# quarters for the square head. Two threads and bfloat16 buy 1900 photos in 20 epochs within the 20-minute
# rebuild; its orientation model needs only 6 epochs (docs/experiments.md).
# Kingdomino: real photos of finished kingdoms (the shared data's, 45 of 23 layouts) beside the synthetic
# ones, whose painted terrains the synthetic art only suggests; a square has no up, so half of each batch is
# turned by quarters for both heads. Those photos are from straight above: each is also seen at a slant,
# and the 14 phone photos of kingdoms on home tables (labelled in lab/truth) are learnt from too, and crops
# lit by a warm lamp or a cool window and washed out whole by glare; left out a game at a time, each game's
# photos read better (62 -> 30 -> 22 squares misread of 350, docs/experiments.md).
GAME_CONFIG["kingdomino"] = {
    "real": "../shared/data/kingdomino-aau",
    "real_views": 8,
    "real_tilt": 1.0,
    "table": "../shared/data/kingdomino-table",
    "table_truth": "lab/truth/kingdomino-table.json",
    "turned_heads": ("terrain", "crowns"),
    "stem_stride": 2,
    "gain": (0.75, 1.5),
    "desaturate": 0.45,
    "warm": 0.2,
    "wash": 0.25,
}
GAME_CONFIG["sanssouci"] = {
    "photos": 1900,
    "threads": 2,
    "epochs": 20,
    "bf16": True,
    "orient_epochs": 6,
    "stem_stride": 2,
    "spatial_bins": 2,
    "turned_heads": ("square",),
}
GAME_CONFIG["tang-garden"] = {
    "photos": 1500,
    "views": 1,
    "epochs": 16,
    "batch": 128,
    "lr": 4e-3,
    "bf16": True,
    "orient_epochs": 40,
    "stem_stride": 2,
    "spatial_bins": 4,
    "threads": 2,
    "loss_weights": (
        ("character", 3.0),
        ("facing", 3.0),
        *((name, 2.0) for name in DECORATION_HEADS),
        *((name, 0.5) for name in EDGE_HEADS),
    ),
    "beside_piece": tuple((name, 4.0) for name in DECORATION_HEADS),
    "crowded": 0.6,
    "shift_px": 2,
    "hard_from": 4,
    "weight_decay": 0.2,
    "middle_max": True,
    "int8": True,
}


def real_folder(path: str) -> Path:
    """A recipe's folder of real photos: as given when absolute, else from the project's folder."""
    folder = Path(path)
    return folder if folder.is_absolute() else Path(__file__).resolve().parents[2] / folder


def config_for(game: str, **given: Any) -> TrainConfig:
    """The recipe the committed model of ``game`` was built with, with ``given`` fields changed."""
    return TrainConfig(**{**GAME_CONFIG.get(game, {}), **given})


def _network(reader: Reader, stem_stride: int = 1, spatial_bins: int = 1, middle_max: bool = False) -> Any:
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
        return [
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]

    class CellNet(nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            # Sized for a Pi: about 5 million multiply-adds per 32-pixel cell, most of them at 8x8.
            self.features = nn.Sequential(
                *block(3, 16, stem_stride),
                nn.MaxPool2d(2),
                *block(16, 32),
                nn.MaxPool2d(2),
                *block(32, 48),
                *block(48, 64),
                nn.MaxPool2d(2),
                *block(64, 96),
                *_pooling(spatial_bins, middle_max),
            )
            self.heads = nn.ModuleDict({h.name: nn.Linear(96, len(h.classes)) for h in reader.heads})

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
            z = self.features(x)
            return (*(self.heads[h.name](z) for h in reader.heads), z)

    return CellNet()


def _pooling(bins: int, middle_max: bool) -> list[Any]:
    import torch
    from torch import nn

    if bins == 1:
        return [nn.AdaptiveAvgPool2d(1), nn.Flatten()]
    # Squeezed to 32 channels a place first, so the layer to the 96-wide embedding stays small.
    places = [nn.AdaptiveAvgPool2d(bins), nn.Conv2d(96, 32, 1), nn.ReLU(inplace=True), nn.Flatten()]
    if not middle_max:
        return [*places, nn.Linear(32 * bins * bins, 96), nn.ReLU(inplace=True)]

    class PlacesAndMiddle(nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.places = nn.Sequential(*places)
            self.mix = nn.Sequential(nn.Linear(32 * bins * bins + 96, 96), nn.ReLU(inplace=True))

        def forward(self, z: torch.Tensor) -> torch.Tensor:
            middle = z[:, :, 1:-1, 1:-1].amax(dim=(2, 3))
            mixed: torch.Tensor = self.mix(torch.cat([self.places(z), middle], dim=1))
            return mixed

    return [PlacesAndMiddle()]


def _orient_network() -> Any:
    from torch import nn

    def block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
        return [
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        ]

    return nn.Sequential(
        *block(3, 16, 2),
        *block(16, 32),
        nn.MaxPool2d(2),
        *block(32, 48),
        nn.MaxPool2d(2),
        *block(48, 64),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, 1),
    )


def _train_orientation(data: CellSet, val: CellSet, config: TrainConfig, log: Any) -> tuple[Any, float]:
    """The "is this board upright" model; returns it and its validation error on choosing the rotation."""
    import torch

    net = _orient_network()
    optimiser = torch.optim.AdamW(net.parameters(), lr=config.orient_lr, weight_decay=1e-4)
    generator = torch.Generator().manual_seed(config.seed + 1)
    x_all = torch.from_numpy(model_input(data.thumbs))
    y_all = torch.from_numpy(data.upright)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    for _ in range(config.orient_epochs):
        net.train()
        order = torch.randperm(len(x_all), generator=generator)
        for start in range(0, len(order), 64):
            idx = order[start : start + 64]
            loss = loss_fn(net(augment(x_all[idx], generator)).squeeze(1), y_all[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    net.eval()
    with torch.no_grad():
        scores = net(torch.from_numpy(model_input(val.thumbs))).squeeze(1).numpy().reshape(-1, 4)
    # Thumbnails come in fours per board, the upright one first: the model must rank it highest.
    error = float((scores.argmax(axis=1) != 0).mean())
    log(f"orientation: validation error {error:.2%} over {len(scores)} boards")
    return net, error


# Glare washes a crop towards white by at most this share (:func:`augment`).
WASH_MOST = 0.6


def augment(
    batch: Any,
    generator: Any,
    gain: tuple[float, float] = (0.8, 1.2),
    desaturate: float = 0.0,
    warm: float = 0.0,
    wash: float = 0.0,
) -> Any:
    import torch

    # Photometric jitter the camera simulator's lighting does not already cover: gain and per-channel cast,
    # and where asked the colours pulled towards grey, a lamp's warmth or a window's coolness (red against
    # blue), and glare washing a whole crop towards white (each drawn only where asked: other recipes'
    # streams stay as built).
    n = batch.shape[0]
    low, high = gain
    out = batch * (low + (high - low) * torch.rand(n, 1, 1, 1, generator=generator))
    out = out * (0.92 + 0.16 * torch.rand(n, 3, 1, 1, generator=generator))
    if desaturate:
        grey = out.mean(dim=1, keepdim=True)
        out = grey + (1 - desaturate * torch.rand(n, 1, 1, 1, generator=generator)) * (out - grey)
    if warm:
        tilt = warm * (2 * torch.rand(n, 1, 1, 1, generator=generator) - 1)
        # BGR crops: blue down and red up by the same share, or the other way round.
        out = out * torch.cat([1 - tilt, torch.ones_like(tilt), 1 + tilt], dim=1)
    if wash:
        washed = torch.rand(n, 1, 1, 1, generator=generator) < wash
        amount = WASH_MOST * torch.rand(n, 1, 1, 1, generator=generator) * washed
        out = out + amount * (1 - out)
    return out.clamp(0, 1)


def shift_batch(x: Any, most_px: int, generator: Any) -> Any:
    """The crops ``x`` (N, C, H, W) moved together by a whole number of pixels up to ``most_px`` along each
    axis, the edge pixels repeated where they moved away from them (one move a batch: per crop it cost as
    much as the step itself)."""
    import torch
    from torch.nn import functional

    dx, dy = (int(v) for v in torch.randint(-most_px, most_px + 1, (2,), generator=generator))
    if dx == dy == 0:
        return x
    h, w = x.shape[2:]
    padded = functional.pad(x, (most_px, most_px, most_px, most_px), mode="replicate")
    return padded[:, :, most_px + dy : most_px + dy + h, most_px + dx : most_px + dx + w]


def turn_some(
    x: Any, targets: dict[str, Any], kept: tuple[str, ...], generator: Any
) -> tuple[Any, dict[str, Any]]:
    """Half of the batch ``x`` (N, C, H, W) turned 1 to 3 quarters at random; on those crops only the
    ``kept`` heads' targets stay, the others are ignored."""
    import torch

    n = x.shape[0]
    quarters = torch.randint(1, 4, (n,), generator=generator)
    quarters[torch.rand(n, generator=generator) < 0.5] = 0
    x = x.clone()
    targets = {name: t.clone() for name, t in targets.items()}
    for q in (1, 2, 3):
        chosen = quarters == q
        x[chosen] = torch.rot90(x[chosen], q, dims=(2, 3))
    for name, t in targets.items():
        if name not in kept:
            t[quarters > 0] = IGNORE
    return x, targets


class _Crops:
    """Crops kept as uint8 and made the model's input a batch at a time (as :func:`fit_loop` takes them):
    as float32 all at once, Tang Garden's 80,000 crops of 96 pixels took 9 GB, so two models could not be
    trained side by side on this machine."""

    def __init__(self, crops: np.ndarray) -> None:
        self.crops = crops

    def __len__(self) -> int:
        return len(self.crops)

    def __getitem__(self, idx: Any) -> Any:
        import torch

        return torch.from_numpy(model_input(self.crops[idx.numpy()]))


class _HeadTargets:
    """Per-head target tensors of one set of crops, taken together by index (as :func:`fit_loop` takes a
    batch's targets)."""

    def __init__(self, targets: dict[str, Any]) -> None:
        self.targets = targets

    def __getitem__(self, idx: Any) -> dict[str, Any]:
        return {name: t[idx] for name, t in self.targets.items()}


@dataclass(frozen=True)
class Focus:
    """Which crops an epoch trains on from ``from_epoch`` on (see ``TrainConfig.hard_from``); ``each``
    gives a batch's loss per crop, (outputs, targets) -> (N,)."""

    from_epoch: int
    hard_share: float
    easy_share: float
    each: Callable[[Any, Any], Any]

    def size(self, n: int) -> int:
        return round(self.hard_share * n) + round(self.easy_share * (n - round(self.hard_share * n)))

    def pick(self, last: Any, generator: Any) -> Any:
        """The epoch's crops in a random order, from each crop's loss when last seen (``last``)."""
        import torch

        hard = round(self.hard_share * len(last))
        ranked = torch.argsort(last, descending=True, stable=True)
        rest = ranked[hard:]
        easy = rest[torch.randperm(len(rest), generator=generator)[: self.size(len(last)) - hard]]
        chosen = torch.cat([ranked[:hard], easy])
        return chosen[torch.randperm(len(chosen), generator=generator)]


def fit_loop(
    network: Callable[[], Any],
    x_all: Any,
    t_all: Any,
    config: Any,
    loss: Callable[[Any, Any], Any],
    flip: Callable[[Any, Any, Any], tuple[Any, Any]],
    report: Callable[[Any], str],
    log: Callable[[str], None],
    threads: int = 1,
    bf16: bool = False,
    focus: Focus | None = None,
    weight_decay: float = 1e-4,
    jitter: Callable[[Any, Any], Any] = augment,
) -> Any:
    """Every model's recipe: a seeded network (``network()``) trained on ``threads`` threads (its weights
    are the same run to run for a given count, not from one count to another) with deterministic
    kernels, AdamW (``weight_decay``) with a one-cycle schedule over ``config.epochs`` (``config.batch``,
    ``config.lr``, ``config.seed``), photometric :func:`augment` and the model's own random ``flip`` of
    inputs and targets per batch (a board model's mirror images, a classifier's turned crops); after each
    epoch ``report(net)`` (validation) is logged. With ``bf16`` the forward pass runs in bfloat16 on
    channels-last images. With ``focus``, the later epochs train on the crops it picks."""
    import torch

    torch.manual_seed(config.seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    net = network()
    layout = torch.channels_last if bf16 else torch.contiguous_format
    net = net.to(memory_format=layout)
    optimiser = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=weight_decay)
    n = len(x_all)
    sizes = [focus.size(n) if focus and e >= focus.from_epoch else n for e in range(config.epochs)]
    steps = sum(size // config.batch + 1 for size in sizes)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=config.lr, total_steps=steps)
    generator = torch.Generator().manual_seed(config.seed)
    last = torch.full((n,), float("inf"))  # each crop's loss when last seen; never seen: the highest
    for epoch in range(config.epochs):
        net.train()
        # Drawn on focused epochs too, though unused there: the generator's stream, and so the committed
        # models' weights, stay what they were built with.
        order = torch.randperm(n, generator=generator)
        if focus and epoch >= focus.from_epoch:
            order = focus.pick(last, generator)
        total = 0.0
        for start in range(0, len(order), config.batch):
            idx = order[start : start + config.batch]
            x, t = flip(jitter(x_all[idx], generator), t_all[idx], generator)
            # Under autocast the losses (cross-entropy) still run in float32.
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                outs = net(x.contiguous(memory_format=layout))
                value = loss(outs, t)
                if focus is not None:
                    with torch.no_grad():
                        last[idx] = focus.each(outs, t).float()
            optimiser.zero_grad()
            value.backward()
            optimiser.step()
            schedule.step()
            total += float(value.detach()) * len(idx)
        log(f"epoch {epoch + 1}/{config.epochs}: loss {total / len(order):.4f}, {report(net)}")
    net.eval()
    return net


def with_turned_copies(data: CellSet, reader: Reader, look: TurnedLook) -> CellSet:
    """``data`` plus each crop that shows a piece (``look.gate`` not ``look.absent``) turned 1, 2 and 3
    quarters clockwise, as ``reader`` reads it again (:func:`vision.read.classify.look_turned`): a compass
    head's target turned alike (N to E for a quarter), an unturned head's kept, every other head ignored, as
    the rest of the art (decorations, the lean of a piece) is not drawn turned in a photo. Four times the
    examples of a piece's small cues (its face, its colours), in every direction equally."""
    gate = data.targets[look.gate]
    shown = np.flatnonzero((gate != IGNORE) & (gate != look.absent_index(reader.heads)))
    crops = [data.crops]
    targets = {name: [t] for name, t in data.targets.items()}
    for quarters in (1, 2, 3):
        crops.append(np.rot90(data.crops[shown], k=-quarters, axes=(1, 2)))
        for name, t in targets.items():
            kept = data.targets[name][shown]
            if name in look.compass:
                t.append(np.where(kept == IGNORE, IGNORE, (kept + quarters) % len(COMPASS)))
            elif name in look.unturned:
                t.append(kept)
            else:
                t.append(np.full(len(shown), IGNORE, np.int64))
    return replace(
        data,
        crops=np.ascontiguousarray(np.concatenate(crops)),
        targets={name: np.concatenate(t) for name, t in targets.items()},
    )


def _evaluate(net: Any, data: CellSet, reader: Reader) -> dict[str, float]:
    import torch

    net.eval()

    def logits(crops: np.ndarray) -> list[np.ndarray]:
        with torch.no_grad():
            return [out.numpy() for out in net(torch.from_numpy(model_input(crops)))]

    return _errors(logits, data, reader)


def _file_errors(path: Path, data: CellSet, reader: Reader) -> dict[str, float]:
    """:func:`_evaluate` for the exported model file, as onnxruntime reads it."""
    session, _ = open_model(path)
    names = [h.name for h in reader.heads]
    return _errors(lambda crops: session.run(names, {"crops": model_input(crops)}), data, reader)


Logits = Callable[[np.ndarray], list[np.ndarray]]


def _errors(logits: Logits, data: CellSet, reader: Reader) -> dict[str, float]:
    """Per head, the share of crops (where the head applies) whose likeliest class is not the target;
    ``logits`` gives a batch of crops' outputs in the reader's head order."""
    errors = {h.name: 0 for h in reader.heads}
    counts = {h.name: 0 for h in reader.heads}
    for start in range(0, len(data.crops), 512):
        outs = logits(data.crops[start : start + 512])
        for h, out in zip(reader.heads, outs, strict=False):
            t = data.targets[h.name][start : start + 512]
            valid = t != IGNORE
            errors[h.name] += int((out.argmax(1)[valid] != t[valid]).sum())
            counts[h.name] += int(valid.sum())
    return {h: errors[h] / max(counts[h], 1) for h in errors}


def recipe_loss(
    reader: Reader, config: TrainConfig, per_crop: bool = False
) -> Callable[[tuple[Any, ...], dict[str, Any]], Any]:
    """The training loss over a batch: per head with a target, its mean cross-entropy (``IGNORE`` targets
    left out) times its ``config.loss_weights`` weight; a head in ``config.beside_piece`` counts each crop
    where a piece stands (the reader's turned look's gate reads one) that many times, over the same count
    of targets. ``per_crop``: each crop's own, (N,), its heads' cross-entropies weighed alike and summed."""
    import torch

    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=IGNORE)
    each_fn = torch.nn.CrossEntropyLoss(ignore_index=IGNORE, reduction="none")
    weights = dict(config.loss_weights)
    beside = dict(config.beside_piece)
    look = reader.turned_look
    if beside and look is None:
        raise ValueError(
            f"{reader.game} has no piece to weigh heads beside (beside_piece needs a turned look)"
        )

    absent = look.absent_index(reader.heads) if look is not None and beside else None

    def head_loss(name: str, out: Any, target: Any, piece: Any) -> Any:
        if not per_crop and (piece is None or name not in beside):
            return loss_fn(out, target)
        each = each_fn(out, target)  # 0 where the target is IGNORE
        if piece is not None and name in beside:
            each = each * torch.where(piece, beside[name], 1.0)
        return each if per_crop else each.sum() / (target != IGNORE).sum()

    def loss(outs: tuple[Any, ...], t: dict[str, Any]) -> Any:
        piece = None
        if look is not None and absent is not None:
            gate = t[look.gate]
            piece = (gate != IGNORE) & (gate != absent)
        return sum(
            weights.get(h.name, 1.0) * head_loss(h.name, out, t[h.name], piece)
            for h, out in zip(reader.heads, outs, strict=False)
            if bool((t[h.name] != IGNORE).any())
        )

    return loss


def train(game: str, config: TrainConfig, out: Path | None = None, log: Any = print) -> Path:
    """Render data, train, export ``models/GAME.onnx`` and its card ``models/GAME.md``; returns the path."""
    import torch

    reader = get_reader(game)
    started = time.time()
    log(f"rendering {config.photos} training photos of {game} (packs {', '.join(TRAINING_PACKS)}) ...")
    data = build_cells(
        game,
        config.seed,
        config.photos,
        TRAINING_PACKS,
        config.workers,
        hands=0.0,
        vary_art=config.vary_art,
        views=config.views,
        crowded=config.crowded,
    )
    # A recipe that turns crops at random as it learns (turned_heads) already shows every head each turn.
    if reader.turned_look is not None and not config.turned_heads:
        data = with_turned_copies(data, reader, reader.turned_look)
    real_names: tuple[str, ...] = ()
    table_names: tuple[str, ...] = ()
    if config.real:
        folder = real_folder(config.real)
        if folder.is_dir():
            real, real_names = real_cells(
                game, folder, config.real_views, config.seed, config.leave_out, config.real_tilt
            )
            data = joined([data, real])
            log(f"{len(real_names)} real photos of {folder} added ({len(real.crops)} cells)")
        else:
            log(f"{folder} is not here: learning from the synthetic table alone")
    if config.table:
        folder = real_folder(config.table)
        if folder.is_dir():
            table, table_names = table_cells(
                game,
                folder,
                real_folder(config.table_truth),
                config.table_views,
                config.seed,
                config.leave_out_games,
            )
            data = joined([data, table])
            log(f"{len(table_names)} table photos of {folder} added ({len(table.crops)} cells)")
        else:
            log(f"{folder} is not here: learning without photos at a slant")
    val = build_cells(game, config.val_seed, config.val_photos, TRAINING_PACKS, config.workers)
    held = build_cells(game, config.val_seed, config.val_photos, (HELD_OUT_PACK,), config.workers)
    log(
        f"{len(data.crops)} training cells, {len(val.crops)} validation cells ({time.time() - started:.0f} s)"
    )
    loss = recipe_loss(reader, config)
    focus = None
    if config.hard_from:
        each = recipe_loss(reader, config, per_crop=True)
        focus = Focus(config.hard_from, config.hard_share, config.easy_share, each)

    def move(x: Any, t: dict[str, Any], generator: Any) -> tuple[Any, dict[str, Any]]:
        if config.shift_px:
            x = shift_batch(x, config.shift_px, generator)
        return turn_some(x, t, config.turned_heads, generator) if config.turned_heads else (x, t)

    def report(net: Any) -> str:
        return "validation error " + ", ".join(f"{k} {v:.4%}" for k, v in _evaluate(net, val, reader).items())

    net = fit_loop(
        lambda: _network(reader, config.stem_stride, config.spatial_bins, config.middle_max),
        _Crops(data.crops),
        _HeadTargets({h.name: torch.from_numpy(data.targets[h.name]) for h in reader.heads}),
        config,
        loss,
        move,
        report,
        log,
        config.threads,
        config.bf16,
        focus,
        config.weight_decay,
        partial(augment, gain=config.gain, desaturate=config.desaturate, warm=config.warm, wash=config.wash),
    )
    metrics: dict[str, Any] = {
        "validation": _evaluate(net, val, reader),
        "held_out_pack": _evaluate(net, held, reader),
    }
    path = out or model_path(game)
    # A board that reads alike whichever way up it lies (a kingdom) needs no layout model.
    if not reader.turns_freely:
        orient_net, orient_error = _train_orientation(data, val, config, log)
        metrics.update(
            orientation_validation=orient_error, orientation_held_out_pack=_orient_error(orient_net, held)
        )
        _export_orientation(orient_net, reader.game, path.with_name(f"{reader.game}-orient.onnx"))
    info = _export(net, reader, path, config, metrics, len(data.crops), time.time() - started)
    if config.real and real_names and out is None:
        from lab.train.art import write_art

        log(f"art colours: {write_art(game, real_folder(config.real))}")
    info["training"].update(real_photos=list(real_names), table_photos=list(table_names))
    set_info(path, info)
    if config.int8:
        # Calibrated on the validation crops, checked again on them and on the held-out pack's: the card
        # gives the errors of the file that ships.
        quantise(path, val.crops)
        info["metrics"].update(
            validation=_file_errors(path, val, reader), held_out_pack=_file_errors(path, held, reader)
        )
        info["training"].update(int8=True, seconds=round(time.time() - started))
        set_info(path, info)
    _write_card(path.with_suffix(".md"), info, path.stat().st_size)
    log(f"wrote {path} ({path.stat().st_size} bytes) in {time.time() - started:.0f} s")
    return path


def _orient_error(net: Any, data: CellSet) -> float:
    import torch

    with torch.no_grad():
        scores = net(torch.from_numpy(model_input(data.thumbs))).squeeze(1).numpy().reshape(-1, 4)
    return float((scores.argmax(axis=1) != 0).mean())


def export_onnx(
    net: Any,
    example: Any,
    input_names: tuple[str, ...],
    output_names: tuple[str, ...],
    dynamic_shapes: dict[str, Any],
    info: dict[str, Any],
    path: Path,
) -> None:
    """``net`` as one checked ONNX file, ``info`` in its metadata (what :func:`vision.model_file.open_model`
    reads back)."""
    import onnx
    import torch

    net.eval()
    program = torch.onnx.export(
        net,
        (example,),
        input_names=list(input_names),
        output_names=list(output_names),
        dynamic_shapes=dynamic_shapes,
        external_data=False,
        dynamo=True,
    )
    assert program is not None, "torch.onnx.export with dynamo=True returns the program"
    model = program.model_proto
    entry = model.metadata_props.add()
    entry.key = METADATA_KEY
    entry.value = json.dumps(info)
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


def _export_orientation(net: Any, game: str, path: Path) -> None:
    import torch

    batch = torch.export.Dim("batch", min=1, max=64)
    info = {"game": game, "kind": "orientation", "thumb_px": 64}
    export_onnx(net, torch.zeros(4, 3, 64, 64), ("thumbs",), ("upright",), {"input": {0: batch}}, info, path)


def _export(
    net: Any,
    reader: Reader,
    path: Path,
    config: TrainConfig,
    metrics: dict[str, Any],
    cells: int,
    seconds: float,
) -> dict[str, Any]:
    """The classifier as one ONNX file at ``path``; returns the metadata written into it."""
    import torch

    example = torch.zeros(2, 3, reader.crop_px, reader.crop_px)
    names = (*(h.name for h in reader.heads), "embedding")
    batch = torch.export.Dim("batch", min=1, max=4096)
    info = {
        "game": reader.game,
        "heads": [{"name": h.name, "classes": list(h.classes)} for h in reader.heads],
        "crop_px": reader.crop_px,
        "context_mm": reader.context_mm,
        "lean_up": reader.lean_up,
        "training": {
            "photos": config.photos,
            "cells": cells,
            "seed": config.seed,
            "packs": list(TRAINING_PACKS),
            "vary_art": config.vary_art,
            "views": config.views,
            "crowded": config.crowded,
            "shift_px": config.shift_px,
            "gain": list(config.gain),
            "desaturate": config.desaturate,
            "warm": config.warm,
            "wash": config.wash,
            "turned_heads": list(config.turned_heads),
            "epochs": config.epochs,
            "hard_from": config.hard_from,
            "hard_share": config.hard_share,
            "easy_share": config.easy_share,
            "weight_decay": config.weight_decay,
            "bf16": config.bf16,
            "real_views": config.real_views,
            "real_tilt": config.real_tilt,
            "table_views": config.table_views,
            "seconds": round(seconds),
        },
        "metrics": metrics,
    }
    export_onnx(net, example, ("crops",), names, {"x": {0: batch}}, info, path)
    return info


def _write_card(path: Path, info: dict[str, Any], size: int) -> None:
    t = info["training"]
    rows = [
        f"# {info['game']} cell classifier",
        "",
        f"- File: `{path.with_suffix('.onnx').name}`, {size} bytes, one ONNX file.",
        f"- Input: `crops` (N, 3, {info['crop_px']}, {info['crop_px']}) float32, BGR in [0, 1], each a cell "
        f"with {info['context_mm']} mm of context (see `vision/read/cells.py`)"
        + (
            ", turned so that a standing piece's top lies above its footprint."
            if info.get("lean_up")
            else "."
        ),
        "- Outputs: "
        + ", ".join(f"`{h['name']}` ({len(h['classes'])} logits)" for h in info["heads"])
        + ", `embedding` (N, 96) for enrolment.",
        f"- Training data: {t['photos']} synthetic photos (seed {t['seed']}), {t['cells']} cells, art packs "
        f"{', '.join(t['packs'])}"
        + (f", {t['vary_art']:.0%} of boards in a random printing of their pack" if t["vary_art"] else "")
        + (f", {t['crowded']:.0%} of boards drawn crowded" if t.get("crowded") else "")
        + (f", each board cut {t['views']} times" if t.get("views", 1) > 1 else "")
        + (f", each batch moved up to {t['shift_px']} pixels" if t.get("shift_px") else "")
        + (
            f", lit {t['gain'][0]:g}-{t['gain'][1]:g} times as bright and its colours pulled up to "
            f"{t['desaturate']:.0%} towards grey"
            if t.get("desaturate")
            else ""
        )
        + (f", its red and blue tilted against each other by up to {t['warm']:.0%}" if t.get("warm") else "")
        + (
            f", {t['wash']:.0%} of its crops washed towards white by up to {WASH_MOST:.0%}"
            if t.get("wash")
            else ""
        )
        + (
            f", half of each batch turned by quarters for the {', '.join(t['turned_heads'])} head"
            if t.get("turned_heads")
            else ""
        )
        + f"; {t['epochs']} epochs"
        + (
            f" (from epoch {t['hard_from'] + 1} on, each on the {t['hard_share']:.0%} of the crops hardest "
            f"when last seen and {t['easy_share']:.0%} of the rest at random)"
            if t.get("hard_from")
            else ""
        )
        + (" in bfloat16" if t.get("bf16") else "")
        + f", weight decay {t['weight_decay']:g}"
        + f"; {t['seconds']} s on this machine's CPU"
        + (
            "; exported in 8-bit integers (`lab/train/quantise.py`), the errors below that file's."
            if t.get("int8")
            else "."
        ),
        f"- Rebuild: `garden-scorer-lab train --game {info['game']}` (needs `pip install -e '.[train]'`).",
        *(
            [
                f"- Real photos learnt from as well: {len(t['real_photos'])} "
                f"({', '.join(t['real_photos'])}), each cut {t.get('real_views', 1)} times"
                + (
                    f", {t['real_tilt']:.0%} of them as many times again as seen at a slant"
                    if t.get("real_tilt")
                    else ""
                )
                + ".",
                *(
                    [
                        f"- Real photos at a slant on home tables learnt from as well: "
                        f"{len(t['table_photos'])} ({', '.join(t['table_photos'])}), each cut "
                        f"{t['table_views']} times from its hand-marked outline, labelled in `lab/truth/`."
                    ]
                    if t.get("table_photos")
                    else []
                ),
                f"- Art colours: `{info['game']}-art.json`, learnt from the first real photos (every one), "
                "by which its board is found by its grid of tiles (`vision/locate/lattice.py`); rebuilt "
                f"alone by `garden-scorer-lab train --game {info['game']} --art` (no torch needed).",
            ]
            if t.get("real_photos")
            else []
        ),
        (
            f"- Orientation: `{info['game']}-orient.onnx` picks the upright rotation of a located board "
            "from a 64x64 thumbnail; wrong rotation on "
            f"{info['metrics']['orientation_validation']:.2%} of validation boards, "
            f"{info['metrics']['orientation_held_out_pack']:.2%} on the held-out pack."
            if "orientation_validation" in info["metrics"]
            else "- Orientation: none; the board reads alike whichever way up it lies."
        ),
        "",
        "| head | validation error (seen packs) | held-out pack error |",
        "|---|---|---|",
    ]
    for h in info["heads"]:
        name = h["name"]
        rows.append(
            f"| {name} | {info['metrics']['validation'][name]:.4%} "
            f"| {info['metrics']['held_out_pack'][name]:.4%} |"
        )
    rows += [
        "",
        "Classes: " + "; ".join(f"{h['name']}: {', '.join(h['classes'])}" for h in info["heads"]),
        "",
    ]
    path.write_text("\n".join(rows))
