"""Loading the two exported models (``models.json`` + ONNX files) behind a small backend interface.

Two interchangeable backends read the same ``.onnx`` files: ONNX Runtime (the default, a runtime
dependency, the faster on the table laptop) and OpenVINO (optional: ``pip install openvino``, the
fallback; ``backend="auto"`` picks the faster installed). Neither needs torch or ultralytics.
"""
from __future__ import annotations

import importlib.util
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.cards import CLASS_NAMES
from companion.messages import MessageError

BACKENDS = ("onnxruntime", "openvino")
DEFAULT_THREADS = 2
WEIGHTS_ENV = "COMPANION_WEIGHTS"
CLASSIFIER_CLASSES: tuple[str, ...] = CLASS_NAMES[:54] + ("NONE",)
DETECTOR_CLASSES: tuple[str, ...] = ("index", "back")
# A detector may box whole face-up cards too (issue 28 item 1 b, the training chain's card ending); reading
# uses indices and backs only and leaves those boxes to vision_models.checks.card_class_check.
DETECTOR_OPTIONAL_CLASSES: tuple[str, ...] = ("card",)

HOW_TO_GET_WEIGHTS = (
    "the recognition models are built by the training recipe in vision_models/ "
    "(they land in vision_models/weights/: models.json, detector.onnx, classifier.onnx); "
    f"point --weights or ${WEIGHTS_ENV} at a folder holding them")


class WeightsMissingError(MessageError, ValueError):
    """The model files are not where they were looked for."""


def default_weights_dir() -> Path:
    """``$COMPANION_WEIGHTS`` if set, else ``vision_models/weights`` next to the installed package."""
    if os.environ.get(WEIGHTS_ENV):
        return Path(os.environ[WEIGHTS_ENV])
    spec = importlib.util.find_spec("vision_models")
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0]) / "weights"
    return Path(__file__).resolve().parents[2] / "vision_models" / "weights"


PRECISIONS = ("auto", "f32", "int8")
HOW_TO_GET_INT8 = "python -m vision_models.train.quantize writes them next to the f32 models and names them in models.json"


@dataclass(frozen=True)
class ModelSpec:
    path: Path
    imgsz: int
    classes: tuple[str, ...]
    int8_path: Path | None = None  # the int8 (quantized) copy of the same network, when models.json names one

    def path_for(self, backend: str, precision: str = "auto") -> Path:
        """The file to load: ``auto`` takes the int8 copy with ONNX Runtime where there is one (measured
        faster at the same accuracy, vision_models/EVALUATION.md), else f32; OpenVINO keeps f32."""
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}: choose one of {', '.join(PRECISIONS)}")
        if precision == "int8" and self.int8_path is None:
            raise ValueError(f"models.json names no int8 copy of {self.path.name}: {HOW_TO_GET_INT8}")
        if precision == "int8" or precision == "auto" and backend == "onnxruntime" and self.int8_path is not None:
            return self.int8_path
        return self.path


def models_fingerprint(weights_dir: str | os.PathLike | None = None) -> str:
    """The sha256 of ``models.json`` (hex): which exported models, thresholds and classes a reading came
    from. A reader elsewhere (a phone's browser, a table computer) names it with each post of readings,
    so a server refuses readings of models it does not know rather than trusting their confidences."""
    import hashlib

    directory = Path(weights_dir) if weights_dir is not None else default_weights_dir()
    try:
        return hashlib.sha256((directory / "models.json").read_bytes()).hexdigest()
    except OSError as error:
        raise WeightsMissingError(f"no models.json in {directory}: {HOW_TO_GET_WEIGHTS}") from error


# Thresholds used when neither the caller nor models.json names one (ultralytics' own defaults).
DEFAULT_THRESHOLDS = {"conf": 0.25, "back_conf": 0.25, "iou": 0.7}


@dataclass(frozen=True)
class ModelsManifest:
    """What ``models.json`` says about the detector and the classifier.

    ``thresholds`` are the detector's operating point: ``conf`` for index boxes, ``back_conf``
    for face-down cards, ``iou`` for NMS. models.json may set them under ``"detector"`` (chosen on
    validation photos for those very weights); otherwise :data:`DEFAULT_THRESHOLDS`.
    """

    directory: Path
    detector: ModelSpec
    classifier: ModelSpec
    crop_expand: float
    raw: dict
    thresholds: dict = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))

    @classmethod
    def load(cls, weights_dir: str | os.PathLike | None = None) -> "ModelsManifest":
        directory = Path(weights_dir) if weights_dir is not None else default_weights_dir()
        manifest = directory / "models.json"
        if not manifest.is_file():
            raise WeightsMissingError(f"no models.json in {directory}: {HOW_TO_GET_WEIGHTS}")
        try:
            raw = json.loads(manifest.read_text())
            det, clf = raw["detector"], raw["classifier"]
            detector = ModelSpec(directory / det["file"], int(det.get("imgsz", 640)), tuple(det["classes"]),
                                 directory / det["int8_file"] if det.get("int8_file") else None)
            classifier = ModelSpec(directory / clf["file"], int(clf.get("imgsz", 64)), tuple(clf["classes"]),
                                   directory / clf["int8_file"] if clf.get("int8_file") else None)
            crop_expand = float(clf.get("crop_expand", 0.10))
            normalize = clf.get("normalize", "rgb/255")
            thresholds = {k: float(det.get(k, v)) for k, v in DEFAULT_THRESHOLDS.items()}
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{manifest}: not a valid models manifest ({error})") from None
        if detector.classes not in (DETECTOR_CLASSES, DETECTOR_CLASSES + DETECTOR_OPTIONAL_CLASSES):
            raise ValueError(f"{manifest}: detector classes must be {list(DETECTOR_CLASSES)} (optionally then "
                             f"{list(DETECTOR_OPTIONAL_CLASSES)}), got {list(detector.classes)}")
        if classifier.classes != CLASSIFIER_CLASSES:
            raise ValueError(f"{manifest}: classifier classes must be the 54 face codes then NONE, got {list(classifier.classes)[:6]}…")
        if normalize != "rgb/255":
            raise ValueError(f"{manifest}: unsupported classifier normalisation {normalize!r} (only 'rgb/255')")
        for spec in (detector, classifier):
            if not spec.path.is_file():
                raise WeightsMissingError(f"{spec.path} is missing: {HOW_TO_GET_WEIGHTS}")
            if spec.int8_path is not None and not spec.int8_path.is_file():
                raise WeightsMissingError(f"{spec.int8_path} (named by models.json) is missing: {HOW_TO_GET_INT8}")
        return cls(directory, detector, classifier, crop_expand, raw, thresholds)


class Model:
    """One loaded network: ``run(batch)`` maps an N×3×H×W float32 array to its first output."""

    backend: str
    input_shape: tuple  # as declared by the model; a non-integer batch entry means "any batch size"
    batchable: bool     # whether run() takes more than one image at a time
    has_embedding: bool = False  # whether run_with_embedding() works (the classifier under ONNX Runtime)

    def run(self, batch: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def run_many(self, batch: np.ndarray) -> np.ndarray:
        """Run any number of images, in one call when the model allows it."""
        if len(batch) == 0:
            return np.zeros((0,), np.float32)
        if self.batchable:
            return self.run(batch)
        return np.concatenate([self.run(batch[i:i + 1]) for i in range(len(batch))])


# The classifier's pooled features, the input of its last linear layer: a 1280-number description
# of a crop that a learned deck's prototypes are compared in (companion.vision.decks.profile).
EMBEDDING_OUTPUT = "embedding"


def _expose_embedding(model) -> bool:
    """Add the input of the graph's final Gemm (before the softmax) as a second output named ``embedding``."""
    from onnx import helper

    gemms = [node for node in model.graph.node if node.op_type == "Gemm"]
    if not gemms:
        return False
    features = gemms[-1].input[0]
    model.graph.node.append(helper.make_node("Identity", [features], [EMBEDDING_OUTPUT]))
    model.graph.output.append(helper.make_value_info(EMBEDDING_OUTPUT, helper.make_tensor_type_proto(1, None)))
    return True


def onnx_with_embedding(path: Path, free_batch: bool = False) -> bytes | None:
    """The classifier's graph with its pooled features as a second output named ``embedding`` (as the
    learned decks read them), batch size as exported, or free where ``free_batch`` asks and the graph
    allows it (see ``_batchable_onnx``: the same numbers, any number of crops a run); None without the
    ``onnx`` package or a final Gemm. A phone's reader (web_ui.models) runs this copy: every crop of a
    frame in one run, and a learned deck's features."""
    try:
        import onnx
    except ImportError:
        return None
    if free_batch:
        made = _batchable_onnx(path, embedding=True)
        if made is not None:
            return made
    model = onnx.load(str(path))
    if EMBEDDING_OUTPUT in [output.name for output in model.graph.output]:
        return model.SerializeToString()
    return model.SerializeToString() if _expose_embedding(model) else None


def _batchable_onnx(path: Path, embedding: bool = False) -> bytes | None:
    """The ONNX graph with a free batch dimension, or None when that cannot be done here.

    ultralytics exports static shapes, batch 1, and writes that batch into a few Reshape
    constants (the attention block). A Reshape size of 0 means "copy this dimension from the
    input", so turning a leading 1 into 0 makes the graph batch-agnostic without changing any
    number it computes. Classifying all crops × rotations in one call is several times faster
    than one call per crop. Needs the ``onnx`` package; without it we simply loop.
    """
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return None
    model = onnx.load(str(path))
    if embedding and EMBEDDING_OUTPUT in [output.name for output in model.graph.output]:
        # A classifier exported with its own embedding head (vision_models.train.backbone) names it, and
        # was exported with a free batch dimension: it is used as it is.
        return model.SerializeToString() if _free_batch(model) else None
    if embedding and not _expose_embedding(model):
        return None
    if not embedding and _free_batch(model):
        return model.SerializeToString()
    for value in list(model.graph.input) + list(model.graph.output)[:1]:
        dims = value.type.tensor_type.shape.dim
        if not dims or dims[0].dim_value != 1:
            return None
        dims[0].dim_param = "batch"
    del model.graph.value_info[:]
    initializers = {init.name: init for init in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "Reshape":
            continue
        shape = initializers.get(node.input[1])
        if shape is None:
            return None  # a computed shape we cannot reason about
        values = numpy_helper.to_array(shape).copy()
        if values.size and values[0] == 1:
            values[0] = 0
            shape.CopyFrom(numpy_helper.from_array(values, shape.name))
    return model.SerializeToString()


def _free_batch(model) -> bool:
    """Whether the graph's input and first output already take any batch size (a named first dimension)."""
    for value in list(model.graph.input)[:1] + list(model.graph.output)[:1]:
        dims = value.type.tensor_type.shape.dim
        if not dims or not dims[0].dim_param:
            return False
    return True


class OnnxRuntimeModel(Model):
    backend = "onnxruntime"

    def __init__(self, path: Path, threads: int = DEFAULT_THREADS, allow_batching: bool = False):
        import onnxruntime as ort

        self.has_embedding = False

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Idle worker threads would otherwise spin after each run; with two sessions (detector,
        # classifier) on two cores they spin against each other and against the camera loop.
        # Measured side by side under load: whole path 124 -> 68 ms (EVALUATION.md, Latency).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        source = _batchable_onnx(path, embedding=True) if allow_batching else None
        if allow_batching and source is None:
            source = _batchable_onnx(path)
        else:
            self.has_embedding = source is not None
        self.batchable = source is not None
        self._session = ort.InferenceSession(source if source is not None else str(path), options,
                                             providers=["CPUExecutionProvider"])
        declared = self._session.get_inputs()[0]
        self._input_name = declared.name
        self.input_shape = tuple(declared.shape)
        if self.batchable and not _batching_agrees(self, ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])):
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            self.batchable = self.has_embedding = False
            self.input_shape = tuple(self._session.get_inputs()[0].shape)

    def run(self, batch: np.ndarray) -> np.ndarray:
        return self._session.run(None, {self._input_name: batch})[0]

    def run_with_embedding(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities, embeddings) of a batch; needs ``has_embedding``."""
        if not self.has_embedding:
            raise ValueError("this classifier model gives no embedding (the onnx package is needed to expose it)")
        if len(batch) == 0:
            return np.zeros((0,), np.float32), np.zeros((0,), np.float32)
        probabilities, embedding = self._session.run(None, {self._input_name: batch})
        return probabilities, embedding.reshape(len(batch), -1)


def _batching_agrees(model: OnnxRuntimeModel, reference) -> bool:
    """Check once that the batch-free graph gives the reference graph's numbers."""
    shape = [2] + [int(d) for d in model.input_shape[1:]]
    probe = np.random.default_rng(0).random(shape, dtype=np.float32)
    name = reference.get_inputs()[0].name
    expected = np.concatenate([reference.run(None, {name: probe[i:i + 1]})[0] for i in range(2)])
    try:
        got = model.run(probe)
    except Exception:  # noqa: BLE001 - any failure means: do not batch
        return False
    return got.shape == expected.shape and bool(np.allclose(got, expected, atol=1e-5))


class OpenVinoModel(Model):
    backend = "openvino"

    def __init__(self, path: Path, threads: int = DEFAULT_THREADS, allow_batching: bool = False):
        try:
            import openvino as ov
        except ImportError:
            raise ValueError("the openvino backend needs the openvino package: pip install openvino") from None
        core = ov.Core()
        # f32 as exported: on a CPU with bf16 (this project's AVX-512 EPYC) OpenVINO otherwise
        # computes in bf16 by default, and its scores came out up to 0.012 apart from ONNX
        # Runtime's, boxes rounded to whole pixels, a different closer look chosen.
        config = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32"}
        self.batchable = False
        model = core.read_model(str(path))
        self.input_shape = tuple(int(d) for d in model.inputs[0].get_shape())
        compiled = None
        if allow_batching:
            source = _batchable_onnx(path)
            if source is not None:
                try:
                    dynamic = core.read_model(source, b"")
                    compiled = core.compile_model(dynamic, "CPU", config)
                    self.batchable = True
                except Exception:  # noqa: BLE001 - fall back to one image per call
                    compiled = None
        if compiled is None:
            compiled = core.compile_model(model, "CPU", config)
        self._compiled = compiled
        self._request = compiled.create_infer_request()
        self._lock = threading.Lock()
        if self.batchable and not self._agrees_with(core.compile_model(model, "CPU", config)):
            self._compiled = core.compile_model(model, "CPU", config)
            self._request = self._compiled.create_infer_request()
            self.batchable = False

    def _agrees_with(self, reference) -> bool:
        shape = [2] + list(self.input_shape[1:])
        probe = np.random.default_rng(0).random(shape, dtype=np.float32)
        request = reference.create_infer_request()
        expected = np.concatenate([np.array(request.infer({0: probe[i:i + 1]})[0]) for i in range(2)])
        try:
            got = self.run(probe)
        except Exception:  # noqa: BLE001
            return False
        return got.shape == expected.shape and bool(np.allclose(got, expected, atol=1e-4))

    def run(self, batch: np.ndarray) -> np.ndarray:
        with self._lock:   # one infer request: the feeds sharing a detector take turns on it
            return np.array(self._request.infer({0: batch})[0])


# "auto" takes the first of these that is installed: the faster first. Measured side by side on
# the 2-core laptop (AMD EPYC, AVX-512; `python benchmarks/run.py detect`, docs/table.md): the same
# detector pass, but ONNX Runtime's whole path is faster (its batched classifier), so it leads and
# OpenVINO is the fallback where ONNX Runtime does not install.
BACKENDS_FASTEST_FIRST = ("onnxruntime", "openvino")


def available_backends() -> list[str]:
    """The installed backends, the faster first."""
    return [name for name in BACKENDS_FASTEST_FIRST if importlib.util.find_spec(name) is not None]


def resolve_backend(backend: str) -> str:
    """``"auto"`` → the fastest installed backend; any other name is checked and returned."""
    if backend == "auto":
        found = available_backends()
        if not found:
            raise ValueError("no inference backend is installed: pip install onnxruntime (or openvino)")
        return found[0]
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)} or auto")
    return backend


def load_model(path: Path, backend: str = "auto", threads: int = DEFAULT_THREADS,
               allow_batching: bool = False) -> Model:
    backend = resolve_backend(backend)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if not Path(path).is_file():
        raise WeightsMissingError(f"{path} is missing: {HOW_TO_GET_WEIGHTS}")
    cls = OnnxRuntimeModel if backend == "onnxruntime" else OpenVinoModel
    try:
        return cls(Path(path), threads, allow_batching)
    except (WeightsMissingError, ValueError):
        raise
    except Exception as error:  # the runtimes raise their own types for unreadable files
        raise ValueError(f"{path}: cannot load this model with {backend} ({error})") from None
