"""Int8 copies of the exported detector and classifier, with ONNX Runtime's own static quantization.

    python -m vision_models.train.quantize [--weights vision_models/weights] [--frames 8]

Calibration: every shipped demo recording (demo/*/recording.mp4) gives ``--frames`` frames spread
over its length; the f32 models read each frame exactly as ``companion table run`` does (closer look
on), and every detector input and classifier crop they are fed is kept as a calibration sample. The
quantized graphs are QDQ, per-channel int8 weights, uint8 activations (U8S8, ONNX Runtime's usual
CPU form), MinMax calibration. The int8 copies are written next to the
f32 models (detector.int8.onnx, classifier.int8.onnx) and named in models.json (``int8_file``):
ONNX Runtime then loads them by default (``--precision f32`` takes the exported ones back).
Figures (speed, holdout F1, live demos): vision_models/EVALUATION.md and docs/table.md.
Needs only onnx and onnxruntime (no torch). Rerun it after every retraining (train.py drops the int8
names from models.json, so a stale copy is never loaded).
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# Enough to cover the demo tables' range of light, card counts and hands; each frame feeds one
# detector input per closer-look window and a few dozen classifier crops.
DEFAULT_FRAMES_PER_RECORDING = 8
# The classifier sees many near-identical crops per frame; this many are plenty for MinMax ranges.
MAX_CLASSIFIER_SAMPLES = 600


class _Recorder:
    """Stands in for a loaded model: runs it and keeps every input it was given."""

    def __init__(self, model):
        self._model = model
        self.seen: list[np.ndarray] = []

    def __getattr__(self, name):
        return getattr(self._model, name)

    def run(self, batch):
        self.seen.extend(np.array(sample[None]) for sample in batch)
        return self._model.run(batch)

    def run_many(self, batch):
        self.seen.extend(np.array(sample[None]) for sample in batch)
        return self._model.run_many(batch)


def demo_frames(per_recording: int) -> list[np.ndarray]:
    frames = []
    for recording in sorted((ROOT / "demo").glob("*/recording.mp4")):
        capture = cv2.VideoCapture(str(recording))
        total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        for index in np.linspace(0, max(total - 1, 0), per_recording).astype(int):
            capture.set(cv2.CAP_PROP_POS_FRAMES, int(index))
            ok, frame = capture.read()
            if ok:
                frames.append(frame)
        capture.release()
    if not frames:
        raise SystemExit("no demo recordings found under demo/*/recording.mp4")
    return frames


def calibration_inputs(weights: Path | None, per_recording: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    from companion.vision import Detector

    detector = Detector.load(weights, backend="onnxruntime", tile="auto", precision="f32")
    detector.detector_model = _Recorder(detector.detector_model)
    detector.classifier_model = _Recorder(detector.classifier_model)
    for frame in demo_frames(per_recording):
        detector.read(frame)
    crops = detector.classifier_model.seen
    if len(crops) > MAX_CLASSIFIER_SAMPLES:
        keep = np.random.default_rng(0).choice(len(crops), MAX_CLASSIFIER_SAMPLES, replace=False)
        crops = [crops[i] for i in sorted(keep)]
    return detector.detector_model.seen, crops


def head_postprocess_nodes(path: Path) -> list[str]:
    """The nodes that stay f32: the detector head's decoding, and the classifier's Softmax.

    ultralytics' detector ends by concatenating box coordinates (frame pixels, up to the input size)
    with class scores (0 to 1) into one output; quantized as one uint8 tensor, every score rounds to 0
    (first try: F1 0.000 on the holdout). Only the head's convolutions (its cv2/cv3 branches) are
    quantized; the DFL, the anchors' arithmetic, the Sigmoid and the Concats stay in f32.
    """
    import onnx

    nodes = onnx.load(str(path)).graph.node
    if nodes[-1].op_type == "Softmax":  # the classifier: its probabilities stay f32
        return [nodes[-1].name]
    head = nodes[-1].name.split("/")[1]  # e.g. "model.23": the module that makes the output
    prefix = f"/{head}/"
    return [node.name for node in nodes
            if node.name.startswith(prefix) and not node.name.startswith((prefix + "cv2", prefix + "cv3"))]


def quantize(source: Path, target: Path, samples: list[np.ndarray]) -> None:
    import onnxruntime as ort
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quant_pre_process,
                                          quantize_static)

    input_name = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Reader(CalibrationDataReader):
        def __init__(self):
            self._samples = iter(samples)

        def get_next(self):
            sample = next(self._samples, None)
            return None if sample is None else {input_name: sample.astype(np.float32)}

    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / source.name
        quant_pre_process(str(source), str(prepared))
        quantize_static(str(prepared), str(target), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=head_postprocess_nodes(prepared))


def int8_name(path: Path) -> str:
    return path.stem + ".int8" + path.suffix


def main(argv=None) -> int:
    import json

    from companion.vision.models import ModelsManifest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, help="folder with the f32 models (default vision_models/weights)")
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES_PER_RECORDING,
                        help=f"calibration frames per demo recording (default {DEFAULT_FRAMES_PER_RECORDING})")
    args = parser.parse_args(argv)
    manifest = ModelsManifest.load(args.weights)
    detector_samples, classifier_samples = calibration_inputs(args.weights, args.frames)
    print(f"calibration: {len(detector_samples)} detector inputs, {len(classifier_samples)} classifier crops")
    raw = json.loads((manifest.directory / "models.json").read_text())
    for key, spec, samples in (("detector", manifest.detector, detector_samples),
                               ("classifier", manifest.classifier, classifier_samples)):
        target = manifest.directory / int8_name(spec.path)
        quantize(spec.path, target, samples)
        raw[key]["int8_file"] = target.name
        print(f"{target}: {target.stat().st_size / 1e6:.1f} MB")
    (manifest.directory / "models.json").write_text(json.dumps(raw, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
