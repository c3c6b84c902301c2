"""Tile enrolment: adapt a game's classifier to the real tile art from a few photos with known states.

The shipped model's per-cell embedding stays as it is; per head, a small linear correction on top of the
model's own logits is fitted in numpy (no torch on the table): ``logits = log p_model + e W + b``, with
``W`` and ``b`` pulled towards zero. With no photos it changes nothing; classes the photos never show keep
the model's judgement, and classes they do show are corrected towards the real art.

Two photos or more: each head's correction is also fitted without each photo in turn and must read that
photo no worse than the model alone (:func:`_holds`); one that does not is left out, and that head keeps
the model's reading. A few boards teach a head little that the next board shares where what it reads is
hidden or rare: Tang Garden's miniatures, its icons, a tile's edges under them.

A correction reads one model's embedding: an enrolment names the model it was fitted to, and a retrained
model (a new version of the software) refuses it rather than apply it to features that now mean something
else: the same photos enrol it again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.store import read_versioned, write_json_atomic
from vision.camera_model import CameraModel
from vision.geometry import CellKey, Points, as_points, quad_size
from vision.locate.art import ArtColours
from vision.pipeline import BoardReading, read_photo
from vision.profile import BoardProfile
from vision.read.cells import CellGrid
from vision.read.classify import CellClassifier, CellPredictions
from vision.read.colour import BoardColour, measure
from vision.read.orient import OrientationModel
from vision.read.rectify import Rectified, board_homography, rectify
from vision.readers import IGNORE, CellLabels, Head, check_fits, reader_for

KIND = "enrolment"
# 2: the model the corrections were fitted to is recorded (``model``). 3: a head may scale its features
# (``centre``, ``spread``). 4: a head may know its bare cell's looks (``bare``). 5: a head may weigh the
# model's own reading less (``model_weight``: its class prototypes alone). 6: a head knows which of its
# classes its teaching cells showed (``taught``). Versions 2 to 5 still read.
VERSION = 6
# Extra reads of each enrolment board (see :func:`enrol`), each in a light up to LIGHT_JITTER per channel
# unlike the photo's. On the held-out pack, Zen Garden enrolled from 2 photos read 95.5 % of boards perfectly
# with 8 views at 8 %, 96.0 % at 15 %, 97.0 % with 16 views at 15 % (one run each; enrolling takes 3-6 s).
VIEWS = 16
ART_PX_PER_MM = 1.0  # boards are rectified this fine to learn their art's colours: colours, not detail
CORNER_JITTER = 0.004  # share of the board's size: about how far off located corners lie
LIGHT_JITTER = 0.15  # per-channel gain: a lamp or white balance unlike the enrolment photo's
# How much worse (mean log-loss per cell, nats) a correction may read a photo it was not fitted to than the
# model alone and still be kept: Zen Garden's floor, whose corrections cut its held-out pack's cell error
# 0.10 -> 0.05 % (100 photos), read its enrolment photos 0.0002 worse so, within noise; the Tang Garden
# corrections that cost most on the held-out pack (its characters, facings, rockery edges, icons) 0.02-0.2.
HELD_OUT_TOLERANCE = 1e-3
SPREAD_FLOOR = 1e-3
# A head's prototypes (each class's mean look over its teaching cells) read a cell by its cosine to each,
# over this temperature. Chosen on two Alice's Garden copies in art no model learnt (fresh photos' cells
# wrong after one game taught, linear correction -> prototypes: 11 -> 6 and 23 -> 6 of 960; at 0.05 and 0.1
# as many wrong, but 5-10 times the cells flagged); a third copy, held out, 23 -> 1.
PROTOTYPE_T = 0.02
# Looks of a bare cell kept per head: enough to span a board's bare cells in two photos' light, few enough
# that the profile's file stays small and a photo's cells are compared with them in a moment.
BARE_LOOKS = 128
# A cell read bare but unlike every bare look taught: what its tile labels are worth, mixed with an even
# share of every label so that the cell is flagged for checking (below ``LOW_CONFIDENCE``, 0.9).
UNLIKE_BARE_TRUST = 0.75
# How far past the farthest taught bare cell (squared distance; 1.7 times the distance) a cell must lie to be
# unlike the bare looks. Two photos show a real kingdom's few empty squares, the table between its tiles:
# taught from 2 layouts, cells misread 5.17 % with no rule, 5.46 % at 1x, 5.20 % at 3x; the cells of a
# terrain never taught read empty 16.5 %, 0 % and 1.3 %.
BARE_REACH_MARGIN = 3.0


@dataclass(frozen=True)
class BareLooks:
    """How a cell with no tile on it looks (the bare board or table), as taught: where a head's labels name
    tiles the teaching photos may not all show (a game of dozens of faces taught from two photos), a cell
    unlike every taught bare look is a tile of some face, not a bare cell (``docs/experiments.md``)."""

    label: int  # the head's class of a bare cell
    looks: NDArray[np.float64]  # (looks, features), scaled as the head scales them
    # Squared distance: past the farthest any taught bare cell lay from the looks of the other teaching photos
    # (:data:`BARE_REACH_MARGIN`).
    reach: float

    def unlike(self, scaled: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Per cell (features scaled as :attr:`looks`), whether it lies beyond :attr:`reach` of every look."""
        return _nearest(scaled, self.looks) > self.reach

    def to_json(self) -> dict[str, Any]:
        # Four decimals of a feature's spread: the file a third the size, the distances as near as matters.
        return {"label": self.label, "looks": np.round(self.looks, 4).tolist(), "reach": self.reach}


def _nearest(points: NDArray[np.float64], looks: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per point, the squared distance to the nearest of ``looks`` (a matrix product: no points x looks x
    features array)."""
    squared = (points**2).sum(axis=1)[:, None] + (looks**2).sum(axis=1)[None, :] - 2 * points @ looks.T
    return np.asarray(np.maximum(squared.min(axis=1), 0.0), np.float64)


@dataclass(frozen=True)
class HeadCorrection:
    weights: NDArray[np.float64]  # (embedding, classes)
    bias: NDArray[np.float64]  # (classes,)
    # Per feature, its mean and spread over the teaching cells, for a head fitted with no model's opinion
    # under it (a user's own labels): the features' spreads differ by orders of magnitude (a colour's share,
    # a texture's), and real Kingdomino tiles weighed unscaled were misread twice as often. None: as they are.
    centre: NDArray[np.float64] | None = None
    spread: NDArray[np.float64] | None = None
    bare: BareLooks | None = None
    # How much the model's own log-probabilities count: 1, corrected; 0, replaced (prototypes, where a copy's
    # art is so far from the model's that its reading misleads more than it tells).
    model_weight: float = 1.0
    # Per class, whether a teaching cell showed it; None: every class as corrected. A correction knows only
    # the classes it was taught: a prototype never reads another, and a fitted one pushes the others down
    # (a Sanssouci copy taught from red nobles read every yellow and blue one as red, surely). A cell the
    # model reads as a class never taught keeps the model's reading.
    taught: NDArray[np.bool_] | None = None

    def scaled(self, embedding: NDArray[np.float64]) -> NDArray[np.float64]:
        """``embedding`` as the correction weighs it (scaled, where it scales)."""
        if self.centre is None or self.spread is None:
            return embedding
        return np.asarray((embedding - self.centre) / self.spread, np.float64)

    def corrected(self, base_log: NDArray[np.float64], embedding: NDArray[np.float64]) -> NDArray[np.float64]:
        """The corrected logits of cells of ``embedding`` whose model's log-probabilities are ``base_log``."""
        return np.asarray(self.model_weight * base_log + self._weighed(self.scaled(embedding)), np.float64)

    def _weighed(self, scaled: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(scaled @ self.weights + self.bias, np.float64)

    def probabilities(
        self, base_log: NDArray[np.float64], embedding: NDArray[np.float64]
    ) -> NDArray[np.float32]:
        """Per cell, the corrected probabilities of the head's classes; a cell read bare but unlike every
        taught bare look (:class:`BareLooks`) is read as its likeliest tile, flagged for checking."""
        scaled = self.scaled(embedding)  # once: the bare looks are compared in the same scale
        logits = self.model_weight * base_log + self._weighed(scaled)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        if self.bare is not None:
            label = self.bare.label
            moved = (p.argmax(axis=1) == label) & self.bare.unlike(scaled)
            tiles = p[moved]
            tiles[:, label] = 0.0
            tiles /= np.maximum(tiles.sum(axis=1, keepdims=True), 1e-12)
            p[moved] = UNLIKE_BARE_TRUST * tiles + (1 - UNLIKE_BARE_TRUST) / p.shape[1]
        if self.taught is not None and not self.taught.all():
            # The classes never taught keep the model's share; the taught ones share the rest as corrected.
            model = np.exp(base_log - base_log.max(axis=1, keepdims=True))
            model /= model.sum(axis=1, keepdims=True)
            taught = p * self.taught
            rest = model[:, ~self.taught].sum(axis=1, keepdims=True)
            p = np.where(
                self.taught, (1 - rest) * taught / np.maximum(taught.sum(axis=1, keepdims=True), 1e-12), model
            )
        return p.astype(np.float32)

    def to_json(self) -> dict[str, Any]:
        scaled = (
            {}
            if self.centre is None or self.spread is None
            else {"centre": self.centre.tolist(), "spread": self.spread.tolist()}
        )
        bare = {} if self.bare is None else {"bare": self.bare.to_json()}
        weighed = {} if self.model_weight == 1.0 else {"model_weight": self.model_weight}
        taught = {} if self.taught is None else {"taught": self.taught.tolist()}
        return {
            "weights": self.weights.tolist(),
            "bias": self.bias.tolist(),
            **scaled,
            **bare,
            **weighed,
            **taught,
        }


@dataclass(frozen=True)
class Enrolment:
    game: str
    corrections: Mapping[str, HeadCorrection]
    cells: int
    photos: int
    # The classifier whose embedding the corrections read (its ``model_id``).
    model: str
    # Heads left to the model's own reading: their correction read a photo it was not fitted to worse.
    unchanged: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "version": VERSION,
            "game": self.game,
            "model": self.model,
            "cells": self.cells,
            "photos": self.photos,
            "unchanged": list(self.unchanged),
            "heads": {name: c.to_json() for name, c in self.corrections.items()},
        }


def _fit_head(
    embedding: NDArray[np.float64],
    base_log: NDArray[np.float64],
    targets: NDArray[np.int64],
    l2: float,
    steps: int = 1500,
    rate: float = 2.0,
    scaled: bool = False,
) -> HeadCorrection:
    """A correction fitted by gradient descent on the log-loss; ``scaled``: on each feature scaled to its
    spread over these cells (:attr:`HeadCorrection.centre`)."""
    centre = spread = None
    if scaled:
        # The floor keeps a feature no teaching cell varies in (a colour none shows) from weighing in.
        centre, spread = embedding.mean(axis=0), embedding.std(axis=0) + SPREAD_FLOOR
        embedding = (embedding - centre) / spread
    n, d = embedding.shape
    k = base_log.shape[1]
    weights = np.zeros((d, k))
    bias = np.zeros(k)
    onehot = np.eye(k)[targets]
    for _ in range(steps):
        logits = base_log + embedding @ weights + bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = (p - onehot) / n
        weights -= rate * (embedding.T @ grad + l2 * weights)
        bias -= rate * grad.sum(axis=0)
    return HeadCorrection(weights, bias, centre, spread)


def _normalise(embedding: NDArray[np.float32]) -> NDArray[np.float64]:
    e = embedding.astype(np.float64)
    return np.asarray(e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-9), dtype=np.float64)


def _base_logs(pred: CellPredictions, head: Head) -> NDArray[np.float64]:
    """The model's own log-probabilities for a head, per cell; a head the model lacks (a user's new labels)
    starts from no opinion, so the correction is the whole classifier."""
    if head not in pred.heads:
        return np.zeros((len(pred.keys), len(head.classes)))
    return np.asarray(np.log(np.maximum(pred.probabilities[head.name], 1e-6)), dtype=np.float64)


def _log_loss(logits: NDArray[np.float64], targets: NDArray[np.int64]) -> float:
    """The summed negative log-likelihood of ``targets`` under softmax ``logits``."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(targets)), targets].sum())


def _holds(
    embedding: NDArray[np.float64],
    base_log: NDArray[np.float64],
    targets: NDArray[np.int64],
    photos: NDArray[np.int64],
    l2: float,
    scaled: bool,
) -> bool:
    """Whether a head's correction, fitted without each photo in turn, reads that photo's cells about as well
    as the model alone or better (:data:`HELD_OUT_TOLERANCE`); one photo cannot tell."""
    if len(np.unique(photos)) < 2:
        return True
    worse = 0.0
    for photo in np.unique(photos):
        out = photos == photo
        c = _fit_head(embedding[~out], base_log[~out], targets[~out], l2, scaled=scaled)
        corrected = c.corrected(base_log[out], embedding[out])
        worse += _log_loss(corrected, targets[out]) - _log_loss(base_log[out], targets[out])
    return worse / len(targets) <= HELD_OUT_TOLERANCE


def _prototypes(embedding: NDArray[np.float64], targets: NDArray[np.int64], classes: int) -> HeadCorrection:
    """A head read by its classes' prototypes alone (:data:`PROTOTYPE_T`); a class no teaching cell shows is
    never read so (its logit below any cosine)."""
    weights = np.zeros((embedding.shape[1], classes))
    bias = np.full(classes, -1.0 / PROTOTYPE_T)
    for c in np.unique(targets):
        mean = embedding[targets == c].mean(axis=0)
        weights[:, c] = mean / max(float(np.linalg.norm(mean)), 1e-9) / PROTOTYPE_T
        bias[c] = 0.0
    return HeadCorrection(weights, bias, model_weight=0.0)


def _held_out_misreads(
    fitter: Callable[[NDArray[np.bool_]], HeadCorrection],
    embedding: NDArray[np.float64],
    base_log: NDArray[np.float64],
    targets: NDArray[np.int64],
    groups: NDArray[np.int64],
) -> int:
    """How many of each group's cells a correction ``fitter`` fitted without them reads wrong."""
    wrong = 0
    for group in np.unique(groups):
        out = groups == group
        read = fitter(~out).corrected(base_log[out], embedding[out]).argmax(axis=1)
        wrong += int((read != targets[out]).sum())
    return wrong


def _better_by_prototypes(
    linear: HeadCorrection | None,
    embedding: NDArray[np.float64],
    base_log: NDArray[np.float64],
    targets: NDArray[np.int64],
    groups: NDArray[np.int64],
    l2: float,
) -> bool:
    """Whether the head's prototypes misread fewer cells they were not taught from than its linear
    correction does (or than the model alone, where that correction was not kept). Counted, not weighed by
    log-loss: the prototypes' chances are sharp, and a few sure misses would outweigh many cells read right.
    ``groups``: the photos, or with one photo its cells in two halves (each cell's views together)."""
    k = base_log.shape[1]
    prototypes = _held_out_misreads(
        lambda keep: _prototypes(embedding[keep], targets[keep], k), embedding, base_log, targets, groups
    )
    if linear is None:
        other = int((base_log.argmax(axis=1) != targets).sum())
    else:
        other = _held_out_misreads(
            lambda keep: _fit_head(embedding[keep], base_log[keep], targets[keep], l2),
            embedding,
            base_log,
            targets,
            groups,
        )
    return prototypes < other


def _bare_looks(
    correction: HeadCorrection,
    embedding: NDArray[np.float64],
    targets: NDArray[np.int64],
    photos: NDArray[np.int64],
    label: int,
) -> BareLooks | None:
    """The looks of the teaching cells of class ``label`` (bare), and how far a bare cell of one photo lies
    from those of the others; None unless two photos or more show a bare cell (one photo cannot tell)."""
    bare = targets == label
    if len(np.unique(photos[bare])) < 2:
        return None
    scaled = correction.scaled(embedding[bare])
    sources = photos[bare]
    # Seeded: the same photos teach the same profile.
    rng = np.random.default_rng(0)
    pick = np.arange(len(scaled))
    if len(pick) > BARE_LOOKS:
        pick = np.sort(rng.choice(pick, BARE_LOOKS, replace=False))
    reach = 0.0
    for photo in np.unique(sources):
        others = pick[sources[pick] != photo]
        if not len(others):
            return None
        reach = max(reach, float(_nearest(scaled[sources == photo], scaled[others]).max()))
    return BareLooks(label, scaled[pick], reach * BARE_REACH_MARGIN)


def fit(
    game: str,
    heads: Sequence[Head],
    predictions: Sequence[CellPredictions],
    targets: Sequence[Mapping[CellKey, Mapping[str, int]]],
    model: str,
    l2: float = 1e-3,
    photos: Sequence[int] | None = None,
    checked: Collection[str] = (),
    scaled: Collection[str] = (),
    bare: Mapping[str, int] | None = None,
) -> Enrolment:
    """Corrections from the predictions of classifier ``model`` on enrolment photos and each cell's true class
    per head. ``photos``: which photo each prediction read (its extra views share its number); the heads
    ``checked`` (those the model reads itself) keep a correction only where it :func:`_holds`; the heads
    ``scaled`` (those with no model's opinion under them) are fitted on scaled features; ``bare``: per head
    so scaled, its class of a cell with no tile, whose looks it learns (:class:`BareLooks`)."""
    corrections = {}
    unchanged = []
    for head in heads:
        emb, base, y, source, half = [], [], [], [], []
        for n, (pred, truth) in enumerate(zip(predictions, targets, strict=True)):
            logs = _base_logs(pred, head)
            for i, key in enumerate(pred.keys):
                t = truth[key][head.name]
                if t == IGNORE:
                    continue
                emb.append(pred.embedding[i])
                base.append(logs[i])
                y.append(t)
                source.append(photos[n] if photos is not None else 0)
                half.append(i % 2)
        if not y:
            continue
        data = (
            _normalise(np.asarray(emb, np.float32)),
            np.asarray(base, np.float64),
            np.asarray(y, np.int64),
        )
        scale = head.name in scaled
        sources = np.asarray(source, np.int64)
        holds = head.name not in checked or _holds(*data, sources, l2, scale)
        # Fitted even where the model already reads every enrolment cell right: the correction still moves
        # its margins towards the real art (Zen Garden's held-out error 0.51 % -> 0.19 % from 2 photos).
        correction = _fit_head(*data, l2, scaled=scale) if holds else None
        # Only where the model has an opinion to set aside: a user's own labels are fitted on scaled features.
        if head.name in checked and not scale:
            groups = sources if len(np.unique(sources)) > 1 else np.asarray(half, np.int64)
            if _better_by_prototypes(correction, *data, groups, l2):
                correction = _prototypes(data[0], data[2], len(head.classes))
        if correction is None:
            unchanged.append(head.name)
            continue
        if head.name in checked and not scale:
            correction = replace(correction, taught=np.isin(np.arange(len(head.classes)), data[2]))
        if scale and bare and head.name in bare:
            looks = _bare_looks(correction, data[0], data[2], sources, bare[head.name])
            correction = replace(correction, bare=looks)
        corrections[head.name] = correction
    cells = sum(len(p.keys) for p in predictions)
    return Enrolment(game, corrections, cells, len(predictions), model, tuple(unchanged))


@dataclass(frozen=True)
class Example:
    """One enrolment photo: the picture, the true state of its one board (as ``score-state`` reads it; for a
    table game, the table with this board's player first), and, when known, the board's corners as the user
    marked them and the camera's calibration; ``untaught``: cells left out of teaching (their state is not
    known for sure), e.g. to measure how a face the photos never show is read."""

    image: NDArray[np.uint8]
    state: Mapping[str, Any]
    corners_xy: Points | None = None
    camera: CameraModel | None = None
    untaught: frozenset[CellKey] = frozenset()


def _labels(i: int, example: Example, profile: BoardProfile) -> CellLabels:
    """What each cell of enrolment photo ``i``'s board shows, by its state; refused where the state's grids
    are not the board's."""
    labels = reader_for(profile).cell_labels(profile, example.state)
    try:
        check_fits(profile, labels)
    except ValueError as exc:
        raise ValueError(f"enrolment photo {i}: {exc}") from None
    return labels


def _read_example(
    i: int,
    example: Example,
    profile: BoardProfile,
    classifier: CellClassifier,
    orienter: OrientationModel | None,
    stickers: bool,
    reference: BoardColour | None,
) -> BoardReading:
    game = reader_for(profile).game
    readings = read_photo(
        example.image,
        [profile],
        {game: classifier},
        {game: orienter} if orienter is not None else {},
        example.camera,
        corners_xy=example.corners_xy,
        stickers=stickers,
        references={game: reference} if reference is not None else None,
    )
    if len(readings) != 1:
        raise ValueError(
            f"enrolment photo {i}: {len(readings)} boards found; photograph one board at a time "
            "(or give its corners)"
        )
    reading = readings[0]
    if example.corners_xy is None and reading.photo_flags:
        # Where it lies or which way up is in doubt: taught from a board placed wrongly, the profile would
        # learn every cell as another's.
        raise ValueError(
            f"enrolment photo {i}: {reading.photo_flags[0]}: give its corners (--corners), top-left first"
        )
    return reading


def example_art(profile: BoardProfile, examples: Sequence[Example]) -> ArtColours | None:
    """The colours of the boards' art in the enrolment photos whose corners are known (each board rectified
    alone), by which a board that is a grid is found with none given (:mod:`vision.locate.lattice`)."""
    boards = [
        rectify(e.image, profile, board_homography(profile, _ideal(e)), e.camera, ART_PX_PER_MM).image_bgr
        for e in examples
        if e.corners_xy is not None
    ]
    return ArtColours.learn(boards) if boards else None


def example_picture(profile: BoardProfile, examples: Sequence[Example]) -> Rectified | None:
    """The first enrolment photo whose corners are known, its board rectified: the picture a profile keeps
    to find its board again by (:mod:`vision.locate.picture`); None when no corners are known."""
    for example in examples:
        if example.corners_xy is not None:
            return rectify(example.image, profile, board_homography(profile, _ideal(example)), example.camera)
    return None


def _ideal(example: Example) -> Points:
    assert example.corners_xy is not None
    corners = as_points(example.corners_xy)
    return example.camera.undistort_px(corners) if example.camera is not None else corners


def example_colour(
    profile: BoardProfile,
    classifier: CellClassifier,
    orienter: OrientationModel | None,
    example: Example,
    stickers: bool = False,
) -> BoardColour | None:
    """The board's background colour in an enrolment photo, as a profile's colour is measured (None when too
    little of it shows): the light that photos read with this profile are brought to."""
    reader = reader_for(profile)
    reading = _read_example(
        1, example, profile, _AnsweringFor(classifier, reader.heads), orienter, stickers, None
    )
    return measure(reading.rectified, profile)


def enrol(
    profile: BoardProfile,
    classifier: CellClassifier,
    orienter: OrientationModel | None,
    examples: Sequence[Example],
    stickers: bool = False,
    views: int = VIEWS,
    seed: int = 0,
    reference: BoardColour | None = None,
) -> Enrolment:
    """Read each example's board with the shipped ``classifier`` and fit the corrections to its true state.

    Two photos hold only a hundred or so cells, and the boards scored later will be located a little off and
    lit a little differently: each board is also read ``views`` more times from corners nudged by about as
    much as locating errs and under a slightly different light, so the correction learns the tile, not one
    crop of it. ``reference``: the profile's background colour, which the boards are brought to before their
    cells are read (as they will be when scored with the profile).
    """
    rng = np.random.default_rng(seed)

    reader = reader_for(profile)
    # The heads the model reads itself; a user's own labels have only their correction.
    own = {h.name for h in classifier.heads if h in reader.heads}
    classifier = _AnsweringFor(classifier, reader.heads)
    # Models, artists and enrolments are keyed by reader: a companion object (Four Gardens' Extra-rewards
    # tile) is a board of its game read by a model of its own.
    game = reader.game
    predictions: list[CellPredictions] = []
    targets: list[dict[CellKey, dict[str, int]]] = []
    photos: list[int] = []
    for i, example in enumerate(examples, start=1):
        reading = _read_example(i, example, profile, classifier, orienter, stickers, reference)
        # The reader maps a state to what each cell shows, for teaching and training alike.
        labels = _labels(i, example, profile)
        truth = {
            key: (
                {head.name: IGNORE for head in reader.heads}
                if key in example.untaught
                else reader.targets(profile, key, labels[key[0]][key[1]][key[2]])
            )
            for key in reading.predictions.keys
        }
        predictions.append(reading.predictions)
        targets.append(truth)
        photos.append(i)
        corners = reading.corners_xy
        size = quad_size(corners)
        for _ in range(views):
            gains = rng.uniform(1 - LIGHT_JITTER, 1 + LIGHT_JITTER, 3)
            nudged = corners + rng.normal(0, CORNER_JITTER * size, corners.shape)
            # Read in the profile's light, a brighter photo is brought back: the profile's light changes.
            image, references = (
                (np.clip(example.image * gains, 0, 255).astype(np.uint8), None)
                if reference is None
                else (example.image, {game: _lit(reference, gains)})
            )
            view = read_photo(
                image,
                [profile],
                {game: classifier},
                {},
                example.camera,
                corners_xy=nudged,
                references=references,
            )[0].predictions
            predictions.append(view)
            targets.append(truth)
            photos.append(i)
    new = {h.name for h in reader.heads} - own
    bare = {h.name: h.classes.index(reader.bare) for h in reader.heads if reader.bare in h.classes}
    enrolment = fit(
        game,
        reader.heads,
        predictions,
        targets,
        classifier.model_id,
        photos=photos,
        checked=own,
        scaled=new,
        bare=bare,
    )
    # What the user gave, not the extra views made of it.
    return replace(enrolment, cells=enrolment.cells // (views + 1), photos=len(examples))


def left_out(
    profile: BoardProfile,
    classifier: CellClassifier,
    orienter: OrientationModel | None,
    examples: Sequence[Example],
    stickers: bool = False,
    reference: BoardColour | None = None,
) -> list[tuple[int, int]]:
    """Per example, its cells and how many of them are misread (any head) when the profile is enrolled from
    the other examples alone: how well the profile reads a board it has not seen. Empty for one example."""
    if len(examples) < 2:
        return []
    reader = reader_for(profile)
    own = [h for h in reader.heads if h in classifier.heads]
    heads = None if len(own) == len(reader.heads) else reader.heads
    figures = []
    for i, example in enumerate(examples):
        others = [e for j, e in enumerate(examples) if j != i]
        enrolment = enrol(profile, classifier, orienter, others, stickers, reference=reference)
        taught = EnrolledClassifier(classifier, enrolment, heads)
        reading = _read_example(i + 1, example, profile, taught, orienter, stickers, reference)
        labels = _labels(i + 1, example, profile)
        read = reading.predictions.readings()
        wrong = 0
        for key in reading.predictions.keys:
            truth = reader.targets(profile, key, labels[key[0]][key[1]][key[2]])
            wrong += any(
                truth.get(head.name, IGNORE) not in (IGNORE, head.classes.index(read[key][head.name][0]))
                for head in reader.heads
            )
        figures.append((len(reading.predictions.keys), wrong))
    return figures


def _lit(colour: BoardColour, gains: NDArray[np.float64]) -> BoardColour:
    """``colour`` under a light ``gains`` (B, G, R) times as bright."""
    b, g, r = (float(v) * float(k) for v, k in zip(colour.median_bgr, gains, strict=True))
    return replace(colour, median_bgr=(b, g, r))


class _AnsweringFor:
    """A classifier that also answers for the heads it lacks, with no opinion (as :func:`_base_logs` starts
    them), so a board whose reader has a head the model never learnt (a table's own marker colour) can be
    read for enrolment."""

    def __init__(self, base: CellClassifier, heads: Sequence[Head]) -> None:
        known = {h.name for h in base.heads}
        self.base = base
        self.game = base.game
        self.heads = (*base.heads, *(h for h in heads if h.name not in known))
        self.model_id = base.model_id
        self.crop_px = base.crop_px
        self.context_mm = base.context_mm
        self.lean_up = base.lean_up

    def classify(self, cells: CellGrid) -> CellPredictions:
        pred = self.base.classify(cells)
        if len(self.heads) == len(pred.heads):
            return pred
        n = len(pred.keys)
        probabilities = {
            h.name: pred.probabilities[h.name]
            if h in pred.heads
            else np.full((n, len(h.classes)), 1 / len(h.classes), np.float32)
            for h in self.heads
        }
        return CellPredictions(pred.keys, self.heads, probabilities, pred.embedding)


class EnrolledClassifier:
    """A shipped classifier with an enrolment's corrections applied to its outputs.

    With ``heads`` (a user-defined grid game's labels), the shipped model only lends its cell embedding and
    the enrolment's heads are the whole answer.
    """

    def __init__(
        self, base: CellClassifier, enrolment: Enrolment, heads: tuple[Head, ...] | None = None
    ) -> None:
        if heads is None and enrolment.game != base.game:
            raise ValueError(f"an enrolment for {enrolment.game} cannot correct a {base.game} classifier")
        self.heads = heads or base.heads
        missing = [h.name for h in heads or () if h.name not in enrolment.corrections]
        if missing:
            raise ValueError(f"the enrolment has learnt no {', '.join(missing)}: enrol again")
        if enrolment.model != base.model_id:
            raise ValueError(
                f"the enrolment was fitted to another {base.game} model ({enrolment.model}; this version's "
                f"is {base.model_id}): enrol again"
            )
        self.base = base
        self.enrolment = enrolment
        self.model_id = base.model_id
        self.game = enrolment.game
        self.crop_px = base.crop_px
        self.context_mm = base.context_mm
        self.lean_up = base.lean_up

    def classify(self, cells: CellGrid) -> CellPredictions:
        pred = self.base.classify(cells)
        emb = _normalise(pred.embedding)
        probabilities = {h.name: pred.probabilities[h.name] for h in self.heads if h in pred.heads}
        for head in self.heads:
            c = self.enrolment.corrections.get(head.name)
            if c is not None:
                probabilities[head.name] = c.probabilities(_base_logs(pred, head), emb)
        return CellPredictions(pred.keys, self.heads, probabilities, pred.embedding)


def unchanged_note(enrolment: Enrolment) -> str:
    """What a player is told of the heads an enrolment left to the model (:attr:`Enrolment.unchanged`)."""
    return (
        f"{', '.join(enrolment.unchanged)}: corrected from some of the photos, they read the others worse "
        "than the model alone. More photos showing them may teach them."
    )


def save(enrolment: Enrolment, path: Path) -> None:
    write_json_atomic(path, enrolment.to_json())


def load(path: Path) -> Enrolment:
    data = read_versioned(path, KIND, (2, 3, 4, 5, VERSION))
    try:
        corrections = {str(name): _correction(str(name), h) for name, h in data["heads"].items()}
        cells, photos = int(data["cells"]), int(data["photos"])
        if cells < 0 or photos < 0:
            raise ValueError(f"cells {cells} and photos {photos} must not be negative")
        unchanged = tuple(str(name) for name in data.get("unchanged", []))
        return Enrolment(str(data["game"]), corrections, cells, photos, str(data["model"]), unchanged)
    # OverflowError: an infinite count, or a number beyond float's range in the weights.
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise ValueError(f"{path}: bad or missing field ({exc})") from None


def _correction(name: str, data: Mapping[str, Any]) -> HeadCorrection:
    weights = np.array(data["weights"], np.float64)
    bias = np.array(data["bias"], np.float64)
    # The shapes must fit each other here: a mismatch would otherwise fail at the first photo scored.
    if weights.ndim != 2 or bias.shape != (weights.shape[1],):
        raise ValueError(
            f"heads.{name}: weights must be embedding x classes and bias one per class, "
            f"got {weights.shape} and {bias.shape}"
        )
    if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
        raise ValueError(f"heads.{name}: weights and bias must be finite numbers")
    model_weight = float(data.get("model_weight", 1.0))
    if not 0.0 <= model_weight <= 1.0:
        raise ValueError(f"heads.{name}: model_weight must be from 0 to 1, not {model_weight}")
    taught = _taught(name, data.get("taught"), weights.shape[1])
    if "centre" not in data and "spread" not in data:
        return HeadCorrection(weights, bias, model_weight=model_weight, taught=taught)
    centre = np.array(data["centre"], np.float64)
    spread = np.array(data["spread"], np.float64)
    if centre.shape != (weights.shape[0],) or spread.shape != centre.shape:
        raise ValueError(f"heads.{name}: centre and spread must be one per feature, as the weights' rows")
    if not (np.isfinite(centre).all() and (spread > 0).all() and np.isfinite(spread).all()):
        raise ValueError(f"heads.{name}: centre must be finite and spread finite and above zero")
    bare = _bare(name, data.get("bare"), weights.shape)
    return HeadCorrection(weights, bias, centre, spread, bare, model_weight, taught)


def _taught(name: str, data: Any, classes: int) -> NDArray[np.bool_] | None:
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != classes or not all(isinstance(t, bool) for t in data):
        raise ValueError(f"heads.{name}.taught: one true or false per class of the head")
    return np.array(data, bool)


def _bare(name: str, data: Any, shape: tuple[int, ...]) -> BareLooks | None:
    if data is None:
        return None
    label, looks, reach = int(data["label"]), np.array(data["looks"], np.float64), float(data["reach"])
    if not 0 <= label < shape[1] or looks.ndim != 2 or looks.shape[1] != shape[0] or not len(looks):
        raise ValueError(
            f"heads.{name}.bare: a class of the head and looks one feature each as the weights' rows"
        )
    if not (np.isfinite(looks).all() and np.isfinite(reach) and reach >= 0):
        raise ValueError(f"heads.{name}.bare: looks and reach must be finite, reach not negative")
    return BareLooks(label, looks, reach)
