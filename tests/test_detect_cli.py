"""``companion detect`` and ``companion evaluate`` from the command line, on throwaway models."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cards import Card
from companion.cli import main
from helpers.dummy_weights import dummy_weights_dir


@pytest.fixture(scope="session")
def weights(request):
    return dummy_weights_dir(request)


@pytest.fixture
def photos(tmp_path):
    rng = np.random.default_rng(2)
    paths = []
    for n, shape in enumerate([(720, 1280, 3), (480, 640, 3)]):
        path = tmp_path / f"photo{n}.png"
        cv2.imwrite(str(path), rng.integers(0, 255, shape, dtype=np.uint8))
        paths.append(str(path))
    return paths


def test_json_output_is_one_object_per_image_per_line(weights, photos, capsys):
    assert main(["detect", *photos, "--json", "--weights", str(weights), "--conf", "0.3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    seen_cards = 0
    for line, path in zip(lines, photos):
        record = json.loads(line)
        assert set(record) == {"image", "cards", "ms"}
        assert record["image"] == path
        assert isinstance(record["ms"], (int, float)) and record["ms"] > 0
        for card in record["cards"]:
            assert set(card) == {"code", "confidence", "box"}
            assert Card.parse(card["code"]).code == card["code"]
            assert 0 < card["confidence"] <= 1
            x1, y1, x2, y2 = card["box"]
            assert x1 <= x2 and y1 <= y2
        seen_cards += len(record["cards"])
    assert seen_cards > 0  # the throwaway model sees "cards" in noise: enough to check the shape


def test_text_output_and_annotated_images(weights, photos, tmp_path, capsys):
    out_dir = tmp_path / "annotated"
    assert main(["detect", photos[1], "--weights", str(weights), "--save-annotated", str(out_dir)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{photos[1]}: ") and " card" in text and " ms)" in text
    written = list(out_dir.glob("*.jpg"))
    assert len(written) == 1
    assert cv2.imread(str(written[0])).shape == (480, 640, 3)


def test_missing_weights_are_one_clear_error(tmp_path, photos, capsys):
    assert main(["detect", photos[0], "--weights", str(tmp_path / "nowhere")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "models.json" in error and "vision_models/weights" in error


def test_a_bad_image_fails_the_run_but_not_the_other_images(weights, photos, tmp_path, capsys):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    assert main(["detect", str(broken), photos[1], "--json", "--weights", str(weights)]) == 2
    captured = capsys.readouterr()
    first, second = (json.loads(line) for line in captured.out.strip().splitlines())
    assert first["image"] == str(broken) and "not a readable image" in first["error"]
    assert second["image"] == photos[1] and "cards" in second
    assert "1 of 2 images could not be read" in captured.err


def test_bad_options_are_refused(weights, photos, capsys):
    assert main(["detect", photos[0], "--weights", str(weights), "--conf", "1.5"]) == 2
    assert "conf" in capsys.readouterr().err


def test_evaluate_writes_a_report_and_json(weights, tmp_path, capsys):
    folder = tmp_path / "labelled"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    (folder / "data.yaml").write_text("names: ['AS', 'RED JOKER', 'BACK']\n")
    rng = np.random.default_rng(4)
    for stem in ("a", "b"):
        cv2.imwrite(str(folder / "images" / f"{stem}.jpg"), rng.integers(0, 255, (320, 320, 3), dtype=np.uint8))
        (folder / "labels" / f"{stem}.txt").write_text("0 0.3 0.3 0.05 0.08\n2 0.7 0.7 0.2 0.3\n")
    report = tmp_path / "EVALUATION.md"
    assert main(["evaluate", str(folder), "--split", "all", "--weights", str(weights), "--json", "--out", str(report)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["images"] == 2 and summary["truth_cards"] == 4
    overall = summary["overall"]
    assert overall["tp"] + overall["fn"] == 4
    text = report.read_text()
    assert "# Recognition evaluation" in text and "F1" in text and "companion evaluate" in text
    # Two worker processes, each with its own detector, score the same photos the same way.
    assert main(["evaluate", str(folder), "--split", "all", "--weights", str(weights), "--json", "--jobs", "2"]) == 0
    parallel = json.loads(capsys.readouterr().out)
    assert parallel["overall"] == summary["overall"] and parallel["confusions"] == summary["confusions"]
    assert main(["evaluate", str(tmp_path / "none"), "--weights", str(weights)]) == 2
    assert capsys.readouterr().err.strip() == f"companion: error: {tmp_path / 'none'}: no such folder"


def test_evaluate_says_what_a_folder_lacks_before_the_models_load(tmp_path, capsys):
    """No models named here exist: each refusal below comes from the folder's check, made before they load."""
    no_models = ["--weights", str(tmp_path / "no-models")]
    folder = tmp_path / "labelled"
    folder.mkdir()
    for lacking, said in ((None, f"{folder / 'data.yaml'}: missing (a labelled folder needs data.yaml with the class names)"),
                          ("data.yaml", f"{folder}: no images/ folder (expected images/, labels/ and data.yaml)"),
                          ("images", f"{folder}: no images to score with --split 'all'")):
        if lacking == "data.yaml":
            (folder / "data.yaml").write_text("names: ['AS', 'KD']\n")
        elif lacking == "images":
            (folder / "images").mkdir()
        assert main(["evaluate", str(folder), "--split", "all", *no_models]) == 2
        assert capsys.readouterr().err.strip() == f"companion: error: {said}"
    assert main(["evaluate", str(folder), "--mosaic", "0", *no_models]) == 2
    assert capsys.readouterr().err.strip() == "companion: error: --mosaic must be at least 1, got 0"


def test_detect_and_evaluate_take_the_backend_auto_picks_by_default(weights, photos, tmp_path, monkeypatch, capsys):
    from companion.vision import Detector
    from companion.vision.models import resolve_backend

    asked = []
    real_load = Detector.load.__func__

    def recording_load(cls, *args, **kwargs):
        asked.append(kwargs["backend"])
        return real_load(cls, *args, **kwargs)

    monkeypatch.setattr(Detector, "load", classmethod(recording_load))
    assert main(["detect", photos[1], "--json", "--weights", str(weights)]) == 0
    capsys.readouterr()
    folder = tmp_path / "labelled"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    (folder / "data.yaml").write_text("names: ['AS', 'RED JOKER', 'BACK']\n")
    cv2.imwrite(str(folder / "images" / "a.jpg"), np.full((320, 320, 3), 90, dtype=np.uint8))
    (folder / "labels" / "a.txt").write_text("0 0.3 0.3 0.05 0.08\n")
    report = tmp_path / "EVALUATION.md"
    assert main(["evaluate", str(folder), "--split", "all", "--weights", str(weights), "--out", str(report)]) == 0
    assert asked == ["auto", "auto"]
    text = report.read_text()
    # The report names the backend auto resolved to, and its command line leaves the default out.
    assert f"backend {resolve_backend('auto')}" in text and "--backend" not in text
    with pytest.raises(SystemExit) as refused:
        main(["detect", photos[1], "--weights", str(weights), "--backend", "tensorflow"])
    assert refused.value.code == 2 and "tensorflow" in capsys.readouterr().err
