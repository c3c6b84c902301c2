from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.enroll import (
    EnrolledClassifier,
    Enrolment,
    Example,
    HeadCorrection,
    enrol,
    example_colour,
    fit,
    load,
    save,
)
from calibration.store import StoreError
from models import orient_model_path
from tests.fakes import TruthClassifier
from tests.support import ALICE_PHOTO, ALICE_TRUTH
from vision.profile import default_profile
from vision.read.cells import CellGrid
from vision.read.classify import CellPredictions
from vision.read.orient import OrientationModel
from vision.readers import IGNORE, Head

HEAD = Head("cell", ("a", "b", "c"))


def _predictions(embedding: np.ndarray, base: np.ndarray) -> CellPredictions:
    keys = tuple(("grid", 0, i) for i in range(len(embedding)))
    return CellPredictions(keys, (HEAD,), {"cell": base.astype(np.float32)}, embedding.astype(np.float32))


class Fixed:
    """A classifier that always answers with the same predictions."""

    game: str = "g"
    heads: tuple[Head, ...] = (HEAD,)
    crop_px: int = 8
    context_mm: float = 1.0
    lean_up: bool = False
    model_id: str = "fixed"

    def __init__(self, pred: CellPredictions) -> None:
        self.pred = pred

    def classify(self, cells: CellGrid) -> CellPredictions:
        return self.pred


def test_fit_corrects_a_model_that_confuses_new_art() -> None:
    rng = np.random.default_rng(0)
    # New art: the embedding still separates the classes, but the base model calls every "c" a "b".
    truth = rng.integers(0, 3, 120)
    centres = rng.normal(0, 1, (3, 16))
    embedding = centres[truth] + rng.normal(0, 0.1, (120, 16))
    base = np.full((120, 3), 0.05)
    base[np.arange(120), np.where(truth == 2, 1, truth)] = 0.9
    pred = _predictions(embedding, base / base.sum(axis=1, keepdims=True))
    targets = [{key: {"cell": int(t)} for key, t in zip(pred.keys, truth, strict=True)}]
    enrolment = fit("g", (HEAD,), [pred], targets, "fixed")
    assert enrolment.cells == 120 and enrolment.photos == 1

    cells = CellGrid(np.zeros((120, 8, 8, 3), np.uint8), pred.keys)
    before = (pred.probabilities["cell"].argmax(axis=1) == truth).mean()
    after = (
        EnrolledClassifier(Fixed(pred), enrolment).classify(cells).probabilities["cell"].argmax(axis=1)
        == truth
    ).mean()
    assert before < 0.75
    assert after > 0.97


def _two_photos(shared: bool) -> tuple[list[CellPredictions], list[dict[Any, dict[str, int]]]]:
    """Two photos of 60 cells each that a base model reads right but unsure; with ``shared`` both show each
    class alike in the embedding (the art of the table), else the second shows each class where the first
    shows another (what one board shows and the next does not share)."""
    rng = np.random.default_rng(1)
    predictions, targets = [], []
    for order in ((0, 1, 2), (0, 1, 2) if shared else (2, 0, 1)):
        truth = rng.integers(0, 3, 60)
        embedding = np.eye(3, 16)[np.array(order)[truth]] * 3 + rng.normal(0, 0.1, (60, 16))
        base = np.full((60, 3), 0.2)
        base[np.arange(60), truth] = 0.6
        pred = _predictions(embedding, base)
        predictions.append(pred)
        targets.append({key: {"cell": int(t)} for key, t in zip(pred.keys, truth, strict=True)})
    return predictions, targets


def test_a_correction_that_reads_another_photo_worse_is_left_to_the_model() -> None:
    for shared in (True, False):
        predictions, targets = _two_photos(shared)
        checked = fit("g", (HEAD,), predictions, targets, "fixed", photos=[1, 2], checked={"cell"})
        unchecked = fit("g", (HEAD,), predictions, targets, "fixed", photos=[1, 2])
        # Unchecked, or from one photo, every head is corrected.
        assert "cell" in unchecked.corrections and unchecked.unchanged == ()
        alone = fit("g", (HEAD,), predictions[:1], targets[:1], "fixed", photos=[1], checked={"cell"})
        assert "cell" in alone.corrections
        if shared:
            assert "cell" in checked.corrections and checked.unchanged == ()
        else:
            assert checked.corrections == {} and checked.unchanged == ("cell",)


def _far_art(order: tuple[int, int, int], seed: int) -> tuple[CellPredictions, dict[Any, dict[str, int]]]:
    """A photo of 60 cells in art far from the model's: it reads half of them as another class, surely,
    and which half their looks do not tell; each look is mostly features of other art (96 of them, each a
    little off): a class's mean look is learnt from a few dozen cells, a line through every feature is not."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, 60)
    embedding = np.eye(3, 96)[np.array(order)[truth]] + rng.normal(0, 0.2, (60, 96))
    said = np.where(rng.random(60) < 0.5, (truth + rng.integers(1, 3, 60)) % 3, truth)
    base = np.full((60, 3), 0.01)
    base[np.arange(60), said] = 0.98
    pred = _predictions(embedding, base)
    return pred, {key: {"cell": int(t)} for key, t in zip(pred.keys, truth, strict=True)}


def test_where_the_models_reading_misleads_its_classes_prototypes_read_instead() -> None:
    photos = [_far_art((0, 1, 2), seed) for seed in (1, 2)]
    predictions, targets = [p for p, _ in photos], [t for _, t in photos]
    enrolment = fit("g", (HEAD,), predictions, targets, "fixed", photos=[1, 2], checked={"cell"})
    assert enrolment.corrections["cell"].model_weight == 0.0
    fresh, truth = _far_art((0, 1, 2), 3)
    cells = CellGrid(np.zeros((60, 8, 8, 3), np.uint8), fresh.keys)
    read = EnrolledClassifier(Fixed(fresh), enrolment).classify(cells).probabilities["cell"].argmax(axis=1)
    assert (read == [truth[key]["cell"] for key in fresh.keys]).all()
    # From one photo, its cells in two halves tell the same.
    alone = fit("g", (HEAD,), predictions[:1], targets[:1], "fixed", photos=[1], checked={"cell"})
    assert alone.corrections["cell"].model_weight == 0.0
    # Where one photo's looks are not the other's, prototypes of one do not read the other: not taken.
    mixed = [_far_art((0, 1, 2), 1), _far_art((2, 0, 1), 2)]
    apart = fit(
        "g", (HEAD,), [p for p, _ in mixed], [t for _, t in mixed], "fixed", photos=[1, 2], checked={"cell"}
    )
    assert all(c.model_weight == 1.0 for c in apart.corrections.values())


def test_ignored_cells_do_not_train_a_head_and_zero_correction_changes_nothing() -> None:
    embedding = np.eye(3, 4)
    base = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    pred = _predictions(embedding, base)
    enrolment = fit("g", (HEAD,), [pred], [{key: {"cell": IGNORE} for key in pred.keys}], "fixed")
    assert enrolment.corrections == {}
    zero = Enrolment("g", {"cell": HeadCorrection(np.zeros((4, 3)), np.zeros(3))}, 3, 1, "fixed")

    out = EnrolledClassifier(Fixed(pred), zero).classify(
        CellGrid(np.zeros((3, 8, 8, 3), np.uint8), pred.keys)
    )
    np.testing.assert_allclose(out.probabilities["cell"], base, atol=1e-6)
    with pytest.raises(ValueError, match="cannot correct"):
        EnrolledClassifier(Fixed(pred), Enrolment("other", {}, 0, 0, "fixed"))


def test_an_enrolment_reads_only_the_model_it_was_fitted_to() -> None:
    embedding = np.eye(3, 4)
    pred = _predictions(embedding, np.full((3, 3), 1 / 3))
    targets = [{key: {"cell": i} for i, key in enumerate(pred.keys)}]
    enrolment = fit("g", (HEAD,), [pred], targets, Fixed.model_id)
    assert enrolment.model == "fixed"
    EnrolledClassifier(Fixed(pred), enrolment)

    class Retrained(Fixed):
        model_id = "retrained"

    # Its corrections would read features that now mean something else: refused, with what to do.
    refused = r"another g model \(fixed; this version's is retrained\): enrol again"
    with pytest.raises(ValueError, match=refused):
        EnrolledClassifier(Retrained(pred), enrolment)


def test_a_head_with_no_model_under_it_is_fitted_on_scaled_features() -> None:
    # A user's own labels: no model's opinion, features whose spreads differ a thousandfold (a colour's
    # share beside a texture's count); only the smallest feature tells the classes apart.
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 90)
    embedding = np.concatenate(
        [rng.normal(0, 1, (90, 8)), (truth[:, None] == np.arange(3)) * 0.002 + rng.normal(0, 2e-4, (90, 3))],
        axis=1,
    )
    pred = CellPredictions(tuple(("grid", 0, i) for i in range(90)), (), {}, embedding.astype(np.float32))
    targets = [{key: {"cell": int(t)} for key, t in zip(pred.keys, truth, strict=True)}]
    plain = fit("g", (HEAD,), [pred], targets, "fixed")
    scaled = fit("g", (HEAD,), [pred], targets, "fixed", scaled={"cell"})
    assert plain.corrections["cell"].centre is None
    correction = scaled.corrections["cell"]
    assert correction.centre is not None and correction.spread is not None

    def accuracy(enrolment: Enrolment) -> float:
        out = EnrolledClassifier(Fixed(pred), enrolment, (HEAD,)).classify(
            CellGrid(np.zeros((90, 8, 8, 3), np.uint8), pred.keys)
        )
        return float((out.probabilities["cell"].argmax(axis=1) == truth).mean())

    assert accuracy(plain) < 0.8
    assert accuracy(scaled) > 0.95


@pytest.mark.parametrize("far", [False, True])
def test_a_class_no_teaching_cell_showed_keeps_the_models_reading(far: bool) -> None:
    """A Sanssouci copy taught from one player's red nobles read every blue one as red, surely: the
    correction (prototypes, or a fitted one) knew only the classes it was taught."""
    # Art far from the model's is read by its prototypes; art near it, by a fitted correction.
    pred, truth = _far_art((0, 1, 2), 1) if far else (_two_photos(shared=True)[0][0], _two_photos(True)[1][0])
    taught_keys = [key for key in pred.keys if truth[key]["cell"] != 2]
    untaught = {key: ({"cell": IGNORE} if key not in taught_keys else truth[key]) for key in pred.keys}
    enrolment = fit("g", (HEAD,), [pred], [untaught], "fixed", photos=[1], checked={"cell"})
    correction = enrolment.corrections["cell"]
    assert correction.model_weight == (0.0 if far else 1.0)
    assert correction.taught is not None and correction.taught.tolist() == [True, True, False]
    # Fresh cells the model reads surely as "c", the class teaching never showed: still "c".
    said = [2, 2, 0, 1]
    fresh = _predictions(np.eye(3, pred.embedding.shape[1])[said] * 3, np.eye(3)[said] * 0.97 + 0.01)
    cells = CellGrid(np.zeros((4, 8, 8, 3), np.uint8), fresh.keys)
    read = EnrolledClassifier(Fixed(fresh), enrolment).classify(cells).probabilities["cell"]
    assert read.argmax(axis=1)[:2].tolist() == [2, 2] and (read[:2, 2] > 0.9).all()
    np.testing.assert_allclose(read.sum(axis=1), 1.0, rtol=1e-5)
    # As the correction had it, "c" is never read.
    forgetful = EnrolledClassifier(
        Fixed(fresh), replace(enrolment, corrections={"cell": replace(correction, taught=None)})
    )
    assert 2 not in forgetful.classify(cells).probabilities["cell"].argmax(axis=1)[:2].tolist()


def test_enrolment_files_round_trip(tmp_path: Path) -> None:
    enrolment = Enrolment(
        "g", {"cell": HeadCorrection(np.ones((4, 3)), np.arange(3.0))}, 10, 2, "m1", ("facing",)
    )
    save(enrolment, tmp_path / "e.json")
    again = load(tmp_path / "e.json")
    assert again.game == "g" and again.cells == 10 and again.photos == 2 and again.model == "m1"
    assert again.unchanged == ("facing",)
    # Files from before heads could be left to the model name none.
    (tmp_path / "before.json").write_text(
        json.dumps({k: v for k, v in enrolment.to_json().items() if k != "unchanged"})
    )
    assert load(tmp_path / "before.json").unchanged == ()
    np.testing.assert_allclose(again.corrections["cell"].bias, [0, 1, 2])
    # A head fitted on scaled features keeps its scale; a scale that cannot be applied is refused.
    scaled = HeadCorrection(np.ones((4, 3)), np.zeros(3), np.arange(4.0), np.full(4, 0.5))
    save(Enrolment("g", {"cell": scaled}, 10, 2, "m1"), tmp_path / "s.json")
    kept = load(tmp_path / "s.json").corrections["cell"]
    assert kept.centre is not None and kept.spread is not None
    base = np.log(np.full((1, 3), 1 / 3))
    np.testing.assert_allclose(kept.corrected(base, np.ones((1, 4))), scaled.corrected(base, np.ones((1, 4))))
    # A head read by its prototypes alone keeps the model's reading out.
    alone = HeadCorrection(np.ones((4, 3)), np.zeros(3), model_weight=0.0)
    save(Enrolment("g", {"cell": alone}, 10, 2, "m1"), tmp_path / "p.json")
    assert load(tmp_path / "p.json").corrections["cell"].model_weight == 0.0
    # The classes a head was taught are kept; a file that names them wrongly is refused.
    taught = HeadCorrection(np.ones((4, 3)), np.zeros(3), taught=np.array([True, False, True]))
    save(Enrolment("g", {"cell": taught}, 10, 2, "m1"), tmp_path / "t.json")
    again_taught = load(tmp_path / "t.json").corrections["cell"].taught
    assert again_taught is not None and again_taught.tolist() == [True, False, True]
    assert load(tmp_path / "e.json").corrections["cell"].taught is None
    bad_taught = json.loads((tmp_path / "t.json").read_text())
    bad_taught["heads"]["cell"]["taught"] = [True, False]
    (tmp_path / "t.json").write_text(json.dumps(bad_taught))
    with pytest.raises(ValueError, match=r"taught: one true or false per class"):
        load(tmp_path / "t.json")
    data = json.loads((tmp_path / "s.json").read_text())
    for field, value in (("spread", [1, 1, 0, 1]), ("centre", [0, 1])):
        data["heads"]["cell"][field] = value
        (tmp_path / "s.json").write_text(json.dumps(data))
        with pytest.raises(ValueError, match=r"bad or missing field.*(spread|centre)"):
            load(tmp_path / "s.json")
    (tmp_path / "bad.json").write_text('{"kind": "enrolment", "version": 2, "heads": 3}')
    with pytest.raises(ValueError, match="bad or missing field"):
        load(tmp_path / "bad.json")
    # A file from before enrolments named their model cannot say which embedding its corrections read.
    old = {k: v for k, v in enrolment.to_json().items() if k != "model"}
    (tmp_path / "old.json").write_text(json.dumps({**old, "version": 1}))
    with pytest.raises(StoreError, match="version 1 of enrolment files is not readable"):
        load(tmp_path / "old.json")
    with pytest.raises(StoreError, match="no such file"):
        load(tmp_path / "none.json")


class _Recording(TruthClassifier):
    """The truth, and the mean colour of the crops of every read."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.means: list[np.ndarray] = []

    def classify(self, cells: CellGrid) -> CellPredictions:
        self.means.append(cells.crops_bgr.reshape(-1, 3).mean(axis=0))
        return super().classify(cells)


def test_enrolment_views_vary_the_light_even_in_the_profiles_light() -> None:
    # Read in the profile's light, a photo made brighter is brought back to it: the views must change the
    # profile's light instead, or they would all show the tiles alike.
    image = cv2.imread(str(ALICE_PHOTO))
    assert image is not None
    profile = default_profile("alices-garden")
    example = Example(image, ALICE_TRUTH["state"], np.array(ALICE_TRUTH["corners_xy"]))
    plain = _Recording(profile, ALICE_TRUTH["cells"])
    colour = example_colour(profile, plain, None, example)
    assert colour is not None
    for reference in (None, colour):
        recording = _Recording(profile, ALICE_TRUTH["cells"])
        enrolment = enrol(profile, recording, None, [example], views=4, reference=reference)
        assert enrolment.photos == 1 and len(recording.means) == 5
        means = np.array(recording.means)
        spread = (means.max(axis=0) - means.min(axis=0)) / means.mean(axis=0)
        assert spread.max() > 0.04, (reference, spread)


def test_a_photo_placed_in_doubt_is_not_taught_from() -> None:
    # The example photo read as a Zen Garden board: no rotation stands out to the layout model, so which way
    # up it lies is in doubt. Taught from, the profile would learn each cell as another's: refused, asking for
    # its corners. With them, it is taught.
    image = cv2.imread(str(ALICE_PHOTO))
    assert image is not None
    profile = default_profile("alices-garden")
    orienter = OrientationModel(orient_model_path("zen-garden"))
    found = Example(image, ALICE_TRUTH["state"], None)
    with pytest.raises(ValueError, match=r"enrolment photo 1: .*give its corners"):
        enrol(profile, TruthClassifier(profile, ALICE_TRUTH["cells"]), orienter, [found], views=1)
    placed = Example(image, ALICE_TRUTH["state"], np.array(ALICE_TRUTH["corners_xy"]))
    enrolment = enrol(profile, TruthClassifier(profile, ALICE_TRUTH["cells"]), orienter, [placed], views=1)
    assert enrolment.photos == 1


@pytest.mark.parametrize(("change", "said"), [(1, "7 rows of 8 cells"), (-1, "5 rows of 8 cells")])
def test_a_state_whose_grid_is_not_the_boards_teaches_nothing(change: int, said: str) -> None:
    # A row more or less than the board has: every cell past it would learn another's label, or none.
    image = cv2.imread(str(ALICE_PHOTO))
    assert image is not None
    profile = default_profile("alices-garden")
    truth = dict(ALICE_TRUTH["state"])
    rows = list(truth["rows"])
    truth["rows"] = [*rows, rows[0]] if change > 0 else rows[:-1]
    truth["setup"] = {**truth.get("setup", {}), "rows": len(truth["rows"])}
    wrong = Example(image, truth, np.array(ALICE_TRUTH["corners_xy"]))
    with pytest.raises(
        ValueError, match=f"enrolment photo 1: the state's grid has {said}, the board 6 rows of 8"
    ):
        enrol(profile, TruthClassifier(profile, ALICE_TRUTH["cells"]), None, [wrong], views=1)
