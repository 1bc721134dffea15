"""The runtime against real exported models: our decoding must equal ultralytics' own ``predict``.

Uses untrained throwaway models exported exactly like the shipped ones (see
helpers/dummy_weights.py); skipped where ultralytics is not installed.
"""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from companion.cards import Card
from companion.vision import Detections, Detector, WeightsMissingError, available_backends
from companion.vision.detector import classifier_crop, crops_to_batch
from companion.vision.grouping import card_shaped
from companion.vision.models import load_model
from helpers.dummy_weights import dummy_weights_dir

from conftest import REAL_DATASET

REAL_PHOTOS = str(REAL_DATASET / "images")


@pytest.fixture(scope="session")
def weights(request):
    return dummy_weights_dir(request)


@pytest.fixture(scope="session")
def detector(weights):
    return Detector.load(weights)


@pytest.fixture(scope="session")
def ultralytics_yolo():
    pytest.importorskip("ultralytics")
    os.environ["YOLO_OFFLINE"] = "1"
    from ultralytics import YOLO

    return YOLO


def _frames():
    rng = np.random.default_rng(7)
    yield "noise 1280x720", rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    yield "noise 480x640 portrait", rng.integers(0, 255, (640, 480, 3), dtype=np.uint8)
    if os.path.isdir(REAL_PHOTOS):
        import cv2

        name = sorted(os.listdir(REAL_PHOTOS))[0]
        yield "real photo", cv2.imread(os.path.join(REAL_PHOTOS, name))


def test_detector_stage_gives_exactly_what_ultralytics_predict_gives(detector, weights, ultralytics_yolo):
    theirs_model = ultralytics_yolo(str(weights / "detector.onnx"), task="detect")
    compared, boxes_seen = 0, 0
    for name, frame in _frames():
        ours = detector.detect_boxes(frame)
        # ultralytics keeps every class at one threshold: the photo's index one, which is below its back one
        conf, back_conf = detector.thresholds()
        theirs = theirs_model.predict(frame, imgsz=640, conf=conf, iou=detector.iou, verbose=False, device="cpu")[0].boxes
        keep = (theirs.cls.numpy() != 1) | (theirs.conf.numpy() > back_conf)
        theirs = theirs[keep]
        assert len(ours) == len(theirs), name
        boxes_seen += len(ours)
        order = np.lexsort((ours.boxes[:, 1], ours.boxes[:, 0], -ours.scores))
        their_boxes, their_scores, their_classes = theirs.xyxy.numpy(), theirs.conf.numpy(), theirs.cls.numpy()
        their_order = np.lexsort((their_boxes[:, 1], their_boxes[:, 0], -their_scores))
        assert np.allclose(ours.boxes[order], their_boxes[their_order], atol=0.05), name
        assert np.allclose(ours.scores[order], their_scores[their_order], atol=1e-5), name
        assert (ours.classes[order] == their_classes[their_order]).all(), name
        compared += 1
    assert compared >= 2
    assert boxes_seen > 20, "the throwaway model should produce boxes to compare"


def test_classifier_preprocessing_gives_exactly_what_ultralytics_predict_gives(detector, weights, ultralytics_yolo):
    theirs_model = ultralytics_yolo(str(weights / "classifier.onnx"), task="classify")
    rng = np.random.default_rng(11)
    frame = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    for box in [(10, 10, 74, 74), (100, 50, 160, 140), (300, 200, 340, 230)]:
        crop = classifier_crop(frame, box, 64, detector.manifest.crop_expand)
        ours = detector.classifier_model.run_many(crops_to_batch([crop]))[0]
        theirs = theirs_model.predict(crop, imgsz=64, verbose=False, device="cpu")[0].probs.data.numpy()
        assert np.allclose(ours, theirs, atol=1e-5)
        assert ours.shape == (55,) and ours.sum() == pytest.approx(1, abs=1e-4)


def test_batched_classification_equals_one_crop_at_a_time(weights):
    batched = load_model(weights / "classifier.onnx", allow_batching=True)
    single = load_model(weights / "classifier.onnx", allow_batching=False)
    assert not single.batchable
    crops = np.random.default_rng(5).random((9, 3, 64, 64), dtype=np.float32)
    assert np.allclose(batched.run_many(crops), single.run_many(crops), atol=1e-5)


def test_detector_returns_one_valid_entry_per_card(detector):
    frame = np.random.default_rng(3).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    reading = detector.read(frame)
    cards = detector(frame)
    assert isinstance(cards, Detections)
    assert cards.codes == reading.cards.codes
    # a face-down card is a back detection that is card-shaped at the frame's index size (and holds no
    # face-up card's joined corners, grouping.holds_face_card: on noise many boxes do, so at most these)
    index_scale = float(np.median([r.scale for r in reading.indices])) if reading.indices else None
    card_shaped_backs = [box for box, _ in reading.backs if card_shaped(box, index_scale)]
    backs = cards.codes.count("BACK")
    assert backs <= len(card_shaped_backs)
    assert len(cards) - backs == len([r for r in reading.indices if r.code]) - _pairs(reading)
    for code in cards.codes:
        Card.parse(code)
    assert (cards.boxes[:, [0, 2]] >= 0).all() and (cards.boxes[:, [0, 2]] <= 1280).all()
    assert (cards.boxes[:, [1, 3]] >= 0).all() and (cards.boxes[:, [1, 3]] <= 720).all()
    assert ((cards.confidences > 0) & (cards.confidences <= 1)).all()
    for index in reading.indices:
        assert index.rotation in (0, 90, 180, 270)


def _pairs(reading) -> int:
    """How many cards were made of two readings: a reading-count minus card-count for face cards."""
    face_cards = sum(1 for c in reading.cards.codes if c != "BACK")
    return len([r for r in reading.indices if r.code]) - face_cards


@pytest.mark.parametrize("bad", [np.zeros((10, 10), np.uint8), np.zeros((100, 100, 3), np.float64), "frame.jpg"])
def test_detector_refuses_bad_frames(detector, bad):
    with pytest.raises(ValueError):
        detector(bad)


def test_missing_or_broken_weights_say_what_to_do(tmp_path, weights):
    with pytest.raises(WeightsMissingError, match="vision_models/weights"):
        Detector.load(tmp_path)
    shutil.copytree(weights, tmp_path / "w")
    (tmp_path / "w" / "classifier.onnx").unlink()
    with pytest.raises(WeightsMissingError, match="classifier.onnx is missing"):
        Detector.load(tmp_path / "w")
    shutil.copy(weights / "classifier.onnx", tmp_path / "w" / "classifier.onnx")
    manifest = json.loads((weights / "models.json").read_text())
    manifest["classifier"]["classes"] = manifest["classifier"]["classes"][::-1]
    (tmp_path / "w" / "models.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="classifier classes"):
        Detector.load(tmp_path / "w")
    (tmp_path / "w" / "models.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a valid models manifest"):
        Detector.load(tmp_path / "w")
    with pytest.raises(ValueError, match="unknown backend"):
        Detector.load(weights, backend="tensorflow")


def test_corrupt_model_file_is_a_clear_error(tmp_path, weights):
    shutil.copytree(weights, tmp_path / "w")
    (tmp_path / "w" / "detector.onnx").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="cannot load"):
        Detector.load(tmp_path / "w")


@pytest.mark.skipif("openvino" not in available_backends(), reason="openvino not installed")
def test_openvino_backend_reads_the_same_files_and_agrees(weights, detector):
    other = Detector.load(weights, backend="openvino", conf=detector.conf)
    frame = np.random.default_rng(9).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    ours, theirs = detector.detect_boxes(frame), other.detect_boxes(frame)
    assert len(ours) == len(theirs)
    assert np.allclose(np.sort(ours.scores), np.sort(theirs.scores), atol=1e-3)
    crops = np.random.default_rng(5).random((6, 3, 64, 64), dtype=np.float32)
    assert np.allclose(detector.classifier_model.run_many(crops), other.classifier_model.run_many(crops), atol=1e-4)


def test_thresholds_come_from_models_json_unless_given(tmp_path, weights):
    shutil.copytree(weights, tmp_path / "w")
    manifest = json.loads((weights / "models.json").read_text())
    manifest["detector"].update({"conf": 0.3, "back_conf": 0.6, "iou": 0.5})
    (tmp_path / "w" / "models.json").write_text(json.dumps(manifest))
    tuned = Detector.load(tmp_path / "w")
    assert (tuned.conf, tuned.back_conf, tuned.iou) == (0.3, 0.6, 0.5)
    assert Detector.load(tmp_path / "w", conf=0.4).conf == 0.4
    plain = Detector.load(weights)
    assert (plain.conf, plain.back_conf, plain.iou) == (0.25, 0.25, 0.7)
    with pytest.raises(ValueError, match="back_conf"):
        Detector.load(weights, back_conf=1.5)


def test_backs_and_indices_each_meet_their_own_threshold(weights):
    frame = np.random.default_rng(3).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    loose = Detector.load(weights, conf=0.3, back_conf=0.3).detect_boxes(frame)
    strict_backs = Detector.load(weights, conf=0.3, back_conf=0.6).detect_boxes(frame)
    assert (loose.classes == 1).sum() > (strict_backs.classes == 1).sum()
    assert (strict_backs.scores[strict_backs.classes == 1] > 0.6).all()
    assert (strict_backs.scores[strict_backs.classes == 0] > 0.3).all()
    assert (strict_backs.classes == 0).sum() == (loose.classes == 0).sum()
