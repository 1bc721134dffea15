"""The int8 copies of the models: which file each backend and precision loads, and the quantizer itself."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from companion.vision import Detector
from companion.vision.models import ModelsManifest, OnnxRuntimeModel, WeightsMissingError
from helpers.dummy_weights import dummy_weights_dir
from vision_models.train.quantize import head_postprocess_nodes, quantize


@pytest.fixture(scope="session")
def weights(request):
    return dummy_weights_dir(request)


@pytest.fixture
def int8_weights(weights, tmp_path):
    """The throwaway models with "int8 copies" named in models.json (here plain copies: the loader's
    choice of file is what is tested; the quantizer is tested on its own below)."""
    folder = tmp_path / "weights"
    shutil.copytree(weights, folder)
    raw = json.loads((folder / "models.json").read_text())
    for key in ("detector", "classifier"):
        shutil.copy(folder / f"{key}.onnx", folder / f"{key}.int8.onnx")
        raw[key]["int8_file"] = f"{key}.int8.onnx"
    (folder / "models.json").write_text(json.dumps(raw))
    return folder


def test_auto_takes_the_int8_copies_with_onnxruntime_and_f32_with_openvino(int8_weights):
    spec = ModelsManifest.load(int8_weights).detector
    assert spec.path_for("onnxruntime").name == "detector.int8.onnx"
    assert spec.path_for("openvino").name == "detector.onnx"
    assert spec.path_for("onnxruntime", "f32").name == "detector.onnx"
    assert spec.path_for("openvino", "int8").name == "detector.int8.onnx"
    assert [p.name for p in Detector.load(int8_weights, backend="onnxruntime").model_files] == [
        "detector.int8.onnx", "classifier.int8.onnx"]
    assert [p.name for p in Detector.load(int8_weights, backend="onnxruntime", precision="f32").model_files] == [
        "detector.onnx", "classifier.onnx"]


def test_without_int8_copies_auto_is_f32_and_asking_for_int8_is_one_clear_error(weights):
    assert [p.name for p in Detector.load(weights, backend="onnxruntime").model_files] == [
        "detector.onnx", "classifier.onnx"]
    with pytest.raises(ValueError, match="no int8 copy.*vision_models.train.quantize"):
        Detector.load(weights, backend="onnxruntime", precision="int8")
    with pytest.raises(ValueError, match="unknown precision"):
        Detector.load(weights, precision="fp16")


def test_an_int8_copy_named_but_missing_is_refused(int8_weights):
    (int8_weights / "classifier.int8.onnx").unlink()
    with pytest.raises(WeightsMissingError, match="classifier.int8.onnx"):
        ModelsManifest.load(int8_weights)


def test_the_detector_head_decoding_stays_f32(weights):
    excluded = head_postprocess_nodes(weights / "detector.onnx")
    import onnx

    output_node = onnx.load(str(weights / "detector.onnx")).graph.node[-1].name
    assert output_node in excluded  # the Concat of pixel boxes and 0-1 scores
    assert not any("/cv2" in name or "/cv3" in name for name in excluded)  # the head's convolutions quantize
    assert head_postprocess_nodes(weights / "classifier.onnx") == [
        onnx.load(str(weights / "classifier.onnx")).graph.node[-1].name]


def test_the_quantized_classifier_is_smaller_and_agrees_with_the_f32_one(weights, tmp_path):
    rng = np.random.default_rng(0)
    samples = [rng.random((1, 3, 64, 64), dtype=np.float32) for _ in range(16)]
    target = tmp_path / "classifier.int8.onnx"
    quantize(weights / "classifier.onnx", target, samples)
    assert target.stat().st_size < (weights / "classifier.onnx").stat().st_size / 2
    f32, int8 = OnnxRuntimeModel(weights / "classifier.onnx"), OnnxRuntimeModel(target)
    probe = np.concatenate(samples[:4])
    expected, got = f32.run_many(probe), int8.run_many(probe)
    assert got.shape == expected.shape
    assert np.allclose(got.sum(axis=1), 1, atol=1e-3)  # still probabilities: the Softmax stayed f32
    # An untrained network on noise is the hardest case for int8; its log-probabilities still follow
    # the f32 ones (correlation 0.96 measured with this seed; a broken quantization is near 0).
    assert np.corrcoef(np.log(got).ravel(), np.log(expected).ravel())[0, 1] > 0.9
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(target)).graph
    initializers = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    conv_weight_scales = [initializers[node.input[1]] for node in graph.node
                          if node.op_type == "DequantizeLinear" and node.input[0].endswith("weight_quantized")]
    assert conv_weight_scales and all(scale.size > 1 for scale in conv_weight_scales)  # QDQ, per channel
