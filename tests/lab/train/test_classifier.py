"""Parts of the classifier recipe that a wrong line would spoil silently (need the train extra)."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest

from vision.readers import IGNORE


def test_turned_crops_teach_only_the_heads_whose_art_has_no_up() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import turn_some

    x = torch.arange(64 * 3 * 4 * 4, dtype=torch.float32).reshape(64, 3, 4, 4)
    targets = {"square": torch.arange(64), "noble": torch.arange(64) % 5}
    turned, t = turn_some(x, targets, ("square",), torch.Generator().manual_seed(3))
    same = (turned == x).flatten(1).all(dim=1)
    # About half the batch is turned; each turned crop is its own crop turned a whole number of quarters.
    assert 16 < int((~same).sum()) < 48
    for i in np.flatnonzero(~same.numpy()):
        assert any(torch.equal(turned[i], torch.rot90(x[i], q, dims=(1, 2))) for q in (1, 2, 3))
    torch.testing.assert_close(t["square"], targets["square"])
    assert bool((t["noble"][~same] == IGNORE).all())
    torch.testing.assert_close(t["noble"][same], targets["noble"][same])
    # The caller's tensors are left as they were.
    assert int((targets["noble"] == IGNORE).sum()) == 0


def test_a_moved_batch_is_its_crops_moved_together_their_edges_repeated() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import shift_batch

    x = torch.arange(2 * 3 * 6 * 6, dtype=torch.float32).reshape(2, 3, 6, 6)
    generator = torch.Generator().manual_seed(0)
    moves = set()
    for _ in range(40):
        moved = shift_batch(x, 2, generator)
        # Pixel (i, j) of a crop moved by (dx, dy) is the original's (i + dy, j + dx), the edge's own
        # pixel beyond it; exactly one move within 2 pixels explains the whole batch.
        found = []
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                rows = torch.clamp(torch.arange(6) + dy, 0, 5)
                cols = torch.clamp(torch.arange(6) + dx, 0, 5)
                if torch.equal(moved, x[:, :, rows][:, :, :, cols]):
                    found.append((dx, dy))
        assert len(found) == 1
        moves.add(found[0])
    assert len(moves) > 10


def test_the_middle_maximum_sees_a_thing_alike_anywhere_on_the_cell_and_not_round_it() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import _pooling

    (pool,) = _pooling(4, middle_max=True)
    pool.eval()
    with torch.no_grad():
        # Silence the places, so that what is left is the middle maximum's part of the embedding.
        pool.places[1].weight.zero_()
        pool.places[1].bias.zero_()

        def embed(spot: tuple[int, int] | None) -> Any:
            z = torch.zeros(1, 96, 6, 6)
            if spot is not None:
                z[0, 7, spot[0], spot[1]] = 3.0
            return pool(z)

        nothing = embed(None)
        assert not torch.allclose(embed((1, 1)), nothing)
        # A thing in any place of the middle (the cell) gives the same embedding, one in the ring round it
        # (the context, a neighbour's) none.
        for spot in ((1, 4), (4, 4), (2, 3)):
            torch.testing.assert_close(embed(spot), embed((1, 1)))
        for spot in ((0, 0), (5, 2), (3, 5)):
            torch.testing.assert_close(embed(spot), nothing)
    assert len(_pooling(4, middle_max=False)) == 6


def test_every_recipe_weighs_and_turns_only_heads_its_reader_has() -> None:
    from lab.train.classifier import GAME_CONFIG, config_for
    from vision.readers import get_reader

    # A misspelt head would be weighed or turned as nothing, silently.
    for game in GAME_CONFIG:
        config = config_for(game)
        names = {h.name for h in get_reader(game).heads}
        assert {name for name, _ in config.loss_weights} <= names, game
        assert {name for name, _ in config.beside_piece} <= names, game
        assert set(config.turned_heads) <= names, game
    assert dict(config_for("tang-garden").loss_weights)["tree-5"] == 2.0
    assert dict(config_for("tang-garden").beside_piece)["tree-5"] == 4.0


def test_a_head_weighed_beside_a_piece_counts_its_crops_with_a_miniature_more() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import config_for, recipe_loss
    from vision.readers import get_reader

    reader = get_reader("tang-garden")
    heads = reader.heads
    bird = next(h for h in heads if h.name == "bird")
    character = next(h for h in heads if h.name == "character")
    # Two crops: a miniature stands on the first, none on the second. Only the bird and the character have
    # targets; the bird is read wrongly (sure "no") on one crop and rightly on the other.
    outs = tuple(torch.zeros(2, len(h.classes)) for h in heads)
    outs[heads.index(bird)][:] = torch.tensor([3.0, -3.0])
    targets = {h.name: torch.full((2,), IGNORE) for h in heads}
    targets["character"] = torch.tensor([character.classes.index("poet"), 0])

    def loss(config: Any, wrong_on: int) -> float:
        t = dict(targets)
        t["bird"] = torch.tensor([0, 0])
        t["bird"][wrong_on] = 1
        return float(recipe_loss(reader, config)(outs, t))

    plain = config_for("tang-garden", beside_piece=(), loss_weights=())
    weighed = config_for("tang-garden", beside_piece=(("bird", 4.0),), loss_weights=())
    wrong, right = (
        float(torch.nn.functional.cross_entropy(outs[heads.index(bird)][:1], torch.tensor([k])))
        for k in (1, 0)
    )
    chars = float(torch.nn.functional.cross_entropy(outs[heads.index(character)], targets["character"]))
    # Unweighed, it is the same mistake wherever it is made; beside the miniature it counts four times.
    assert loss(plain, 0) == pytest.approx(loss(plain, 1))
    assert loss(plain, 0) == pytest.approx(chars + (wrong + right) / 2)
    assert loss(weighed, 0) == pytest.approx(chars + (4 * wrong + right) / 2)
    assert loss(weighed, 1) == pytest.approx(chars + (wrong + 4 * right) / 2)


def test_a_crops_own_loss_weighs_its_heads_as_the_batch_loss_does() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import config_for, recipe_loss
    from vision.readers import get_reader

    reader = get_reader("tang-garden")
    heads = reader.heads
    names = [h.name for h in heads]
    generator = torch.Generator().manual_seed(4)
    outs = tuple(torch.randn(3, len(h.classes), generator=generator) for h in heads)
    targets = {h.name: torch.full((3,), IGNORE) for h in heads}
    # A poet stands on crop 0 only; the bird head has a target on all three crops, the fish head on crop 2.
    targets["character"] = torch.tensor([heads[names.index("character")].classes.index("poet"), 0, 0])
    targets["bird"] = torch.tensor([1, 0, 1])
    targets["fish"] = torch.tensor([IGNORE, IGNORE, 0])
    config = config_for("tang-garden", beside_piece=(("bird", 4.0),), loss_weights=(("fish", 3.0),))
    each = recipe_loss(reader, config, per_crop=True)(outs, targets)

    def ce(head: str, i: int) -> float:
        out = outs[names.index(head)][i : i + 1]
        return float(torch.nn.functional.cross_entropy(out, targets[head][i : i + 1]))

    assert each.shape == (3,)
    assert float(each[0]) == pytest.approx(ce("character", 0) + 4 * ce("bird", 0))
    assert float(each[1]) == pytest.approx(ce("character", 1) + ce("bird", 1))
    assert float(each[2]) == pytest.approx(ce("character", 2) + ce("bird", 2) + 3 * ce("fish", 2))


def test_a_focused_epoch_takes_the_hardest_crops_and_a_random_share_of_the_rest() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import Focus

    last = torch.randperm(100, generator=torch.Generator().manual_seed(1)).float()
    focus = Focus(3, hard_share=0.3, easy_share=0.5, each=lambda outs, t: None)
    picked = [focus.pick(last, torch.Generator().manual_seed(seed)) for seed in (7, 7, 8)]
    assert torch.equal(picked[0], picked[1])
    hardest = set(torch.argsort(last, descending=True)[:30].tolist())
    for chosen in picked:
        # 30 hardest and half the other 70, each once, in a random order.
        assert len(chosen) == focus.size(100) == 65
        assert len(set(chosen.tolist())) == 65
        assert hardest <= set(chosen.tolist())
        assert sorted(chosen[:30].tolist()) != sorted(hardest)
    assert set(picked[0].tolist()) != set(picked[2].tolist())
    # Crops never seen count as the hardest.
    last[[5, 9]] = float("inf")
    assert {5, 9} <= set(focus.pick(last, torch.Generator().manual_seed(0)).tolist())


def test_a_head_cannot_be_weighed_beside_a_piece_on_a_board_without_pieces() -> None:
    pytest.importorskip("torch")
    from lab.train.classifier import config_for, recipe_loss
    from vision.readers import get_reader

    with pytest.raises(ValueError, match="no piece"):
        recipe_loss(get_reader("alices-garden"), config_for("alices-garden", beside_piece=(("tile", 2.0),)))


def _fit_toy(network: Any, n: int, **given: Any) -> tuple[Any, Any, Any]:
    """``fit_loop`` (``given``: its keyword arguments) on ``n`` toy crops, dark ones class 0 and bright ones
    class 1, a task any working loop learns in a few epochs; the trained net, the crops and their labels."""
    from types import SimpleNamespace

    import torch

    from lab.train.classifier import fit_loop

    generator = torch.Generator().manual_seed(0)
    labels = torch.arange(n) % 2
    x_all = (
        0.2 + 0.5 * labels.float().reshape(-1, 1, 1, 1) + 0.1 * torch.rand(n, 3, 8, 8, generator=generator)
    )
    config = SimpleNamespace(epochs=10, batch=32, lr=3e-2, seed=5)
    net = fit_loop(
        network,
        x_all,
        labels,
        config,
        torch.nn.functional.cross_entropy,
        lambda x, t, g: (x, t),
        lambda net: "",
        lambda line: None,
        **given,
    )
    return net, x_all, labels


@pytest.mark.parametrize("focused", [False, True])
def test_training_in_bfloat16_learns_the_same_weights_run_to_run_and_reads_in_float32(focused: bool) -> None:
    torch = pytest.importorskip("torch")

    from lab.train.classifier import Focus

    def network() -> Any:
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 4, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1),
            torch.nn.Flatten(),
            torch.nn.Linear(4, 2),
        )

    # Focused, the later epochs train on the crops of highest loss and some of the others.
    each = partial(torch.nn.functional.cross_entropy, reduction="none")
    focus = Focus(3, hard_share=0.2, easy_share=0.2, each=each) if focused else None
    first, x_all, labels = _fit_toy(network, 256, bf16=True, focus=focus)
    second, _, _ = _fit_toy(network, 256, bf16=True, focus=focus)
    for a, b in zip(first.state_dict().values(), second.state_dict().values(), strict=True):
        assert a.dtype != torch.bfloat16
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    with torch.no_grad():
        read = first(x_all).argmax(1)
    assert bool((read == labels).all())


def test_the_recipes_weight_decay_reaches_the_optimiser_and_keeps_the_weights_smaller() -> None:
    torch = pytest.importorskip("torch")

    def norm(weight_decay: float) -> float:
        def network() -> Any:
            return torch.nn.Sequential(
                torch.nn.Flatten(), torch.nn.Linear(192, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)
            )

        net, _, _ = _fit_toy(network, 128, weight_decay=weight_decay)
        return float(sum(p.detach().square().sum() for p in net.parameters()))

    assert norm(0.5) < 0.9 * norm(0.0)


def test_a_classifier_exported_in_8_bits_reads_as_its_float_model_does(tmp_path: Any) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from lab.train.classifier import TrainConfig, _export, _network
    from lab.train.quantise import quantise, set_info
    from vision.model_file import model_input, open_model
    from vision.read.classify import OnnxCellClassifier
    from vision.readers import get_reader

    reader = get_reader("alices-garden")
    torch.manual_seed(0)
    net = _network(reader)
    # Crops whose colour sets the class (a trained model's kind of margin), with the untrained net's
    # batch-norm statistics taken from them.
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 256, (96, reader.crop_px, reader.crop_px, 3), dtype=np.uint8)
    net.train()
    with torch.no_grad():
        net(torch.from_numpy(model_input(crops)))
    path = tmp_path / "alices-garden.onnx"
    zero = {h.name: 0.0 for h in reader.heads}
    metrics: dict[str, Any] = {"validation": zero, "held_out_pack": zero}
    metrics.update(orientation_validation=0.0, orientation_held_out_pack=0.0)
    _export(net, reader, path, TrainConfig(), metrics, len(crops), 1.0)
    session, info = open_model(path)
    names = [h.name for h in reader.heads]
    before = session.run(names, {"crops": model_input(crops)})
    quantise(path, crops)

    import onnx

    ops = {node.op_type for node in onnx.load(str(path)).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    classifier = OnnxCellClassifier(path)  # the metadata survives: heads, crop size, game
    assert classifier.game == "alices-garden"
    after = classifier._run(crops)
    for name, logits in zip(names, before, strict=True):
        spread = float(np.ptp(logits))
        assert float(np.abs(after[name] - logits).max()) < 0.1 * spread, name
        assert float((after[name].argmax(1) == logits.argmax(1)).mean()) > 0.9, name
    set_info(path, {**info, "metrics": {"validation": {"cell": 0.5}}})
    assert open_model(path)[1]["metrics"]["validation"]["cell"] == 0.5


def test_photometric_jitter_keeps_its_stream_and_pulls_colours_to_grey_only_when_asked() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import augment

    batch = torch.rand(6, 3, 4, 4, generator=torch.Generator().manual_seed(0))
    # As the committed models were built: a gain of 0.8-1.2 and a cast of 0.92-1.08, two draws a batch.
    mine = torch.Generator().manual_seed(3)
    gain = 0.8 + 0.4 * torch.rand(6, 1, 1, 1, generator=mine)
    cast = 0.92 + 0.16 * torch.rand(6, 3, 1, 1, generator=mine)
    torch.testing.assert_close(
        augment(batch, torch.Generator().manual_seed(3)), (batch * gain * cast).clamp(0, 1)
    )
    # Pulled towards grey, each pixel's colours spread less; a pixel's grey stays where the gain put it
    # (colours kept below 1, where nothing is clipped).
    dim = batch / 2
    plain = augment(dim, torch.Generator().manual_seed(3), (1.0, 1.0))
    grey = augment(dim, torch.Generator().manual_seed(3), (1.0, 1.0), desaturate=1.0)

    def spread(x: Any) -> float:
        return float((x - x.mean(dim=1, keepdim=True)).abs().sum())

    assert spread(grey) < spread(plain)
    torch.testing.assert_close(grey.mean(dim=1), plain.mean(dim=1))


def test_a_lamps_warmth_tilts_red_against_blue_and_glare_washes_a_whole_crop_towards_white() -> None:
    torch = pytest.importorskip("torch")
    from lab.train.classifier import augment

    dim = torch.rand(400, 3, 4, 4, generator=torch.Generator().manual_seed(0)) / 2
    plain = augment(dim, torch.Generator().manual_seed(3), (1.0, 1.0))
    warmed = augment(dim, torch.Generator().manual_seed(3), (1.0, 1.0), warm=0.2)
    # BGR: where red rose, blue fell by the same share, green as it was.
    red, blue = warmed[:, 2] / plain[:, 2] - 1, warmed[:, 0] / plain[:, 0] - 1
    torch.testing.assert_close(red, -blue)
    torch.testing.assert_close(warmed[:, 1], plain[:, 1])
    assert float(red.abs().max()) <= 0.2 + 1e-6
    washed = augment(dim, torch.Generator().manual_seed(3), (1.0, 1.0), wash=0.25)
    lighter = (washed - plain).flatten(1).min(dim=1).values > 1e-6
    # About a quarter of the crops, each brighter in every pixel; the rest as they were.
    assert 0.15 < float(lighter.float().mean()) < 0.35
    torch.testing.assert_close(washed[~lighter], plain[~lighter])
