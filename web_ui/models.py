"""The shipped models and their reading contract, for a phone that reads its own cards (issue 23).

``GET /api/models`` says what a browser needs to read exactly as ``companion.vision.Detector`` does:
which ONNX files (int8 or f32, each with its sha256 so a cached copy is known), their input sizes and
classes, the thresholds, and the pre/post-processing constants the Python reader uses (the letterbox's
pad value, NMS, the closer look, the classifier crop). ``reader.models`` in a post of detections is
the ``models`` fingerprint given here. ``GET /api/models/<file>`` serves one file, cached for a year
(the URL carries its sha256, so a new file is a new URL).

The browser's reader (``web_ui/static/reader_core.js``) takes every number from here rather than
copying them, so a retrained model or a tuned threshold reaches the phones with the server.
"""
from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request, send_file, url_for
from flask_babel import gettext as _

from companion.table import pipeline
from companion.vision import decode as decoding
from companion.vision import detector as reading
from companion.vision.letterbox import PAD_VALUE
from companion.vision.models import ModelsManifest, WeightsMissingError, default_weights_dir, models_fingerprint
from web_ui.api import ApiError

bp = Blueprint("models", __name__, url_prefix="/api")

# A year: the URL names the file's sha256, so a changed file is fetched at its new URL.
MODEL_CACHE_SECONDS = 365 * 24 * 3600
VENDOR = Path(__file__).resolve().parent / "static" / "vendor"
# What the page needs of onnxruntime-web (scripts/setup.sh vendors them): without them it sends frames.
RUNTIME_FILES = ("ort.wasm.min.js", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")

_hashes: dict[tuple[str, float, int], str] = {}
_hashes_lock = threading.Lock()


def weights_dir() -> Path:
    configured = current_app.config.get("MODELS_DIR")
    return Path(configured) if configured else default_weights_dir()


def file_sha256(path: Path) -> str:
    """The file's sha256, remembered while its modification time and size stay the same."""
    stat = path.stat()
    key = (str(path), stat.st_mtime, stat.st_size)
    with _hashes_lock:
        if key not in _hashes:
            _hashes[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        return _hashes[key]


def manifest() -> ModelsManifest:
    try:
        return ModelsManifest.load(weights_dir())
    except (WeightsMissingError, ValueError) as error:
        raise ApiError(404, _("this server has no models to hand out: %(reason)s", reason=str(error))) from None


def runtime() -> dict | None:
    """The vendored onnxruntime-web (its version and folder), or None when the install left it out."""
    if not all((VENDOR / name).is_file() for name in RUNTIME_FILES):
        return None
    version = (VENDOR / "VERSION").read_text().strip() if (VENDOR / "VERSION").is_file() else None
    return {"version": version, "path": url_for("static", filename="vendor/"),
            "webgpu": (VENDOR / "ort.webgpu.min.js").is_file() and (VENDOR / "ort-wasm-simd-threaded.jsep.wasm").is_file()}


def _file_entry(path: Path | None) -> dict | None:
    if path is None:
        return None
    digest = file_sha256(path)
    return {"file": path.name, "url": url_for("models.model_file", name=path.name, v=digest[:16]), "sha256": digest,
            "bytes": path.stat().st_size}


def served_files(found: ModelsManifest) -> dict[str, Path]:
    return {path.name: path for spec in (found.detector, found.classifier) for path in (spec.path, spec.int8_path) if path is not None}


@bp.get("/models")
def models():
    found = manifest()
    detector, classifier = found.detector, found.classifier
    return jsonify({
        "models": models_fingerprint(found.directory),
        # The server's own reader takes the int8 copies where there are (Detector.load, precision "auto"):
        # a phone reading the same files reads what the server would.
        "precision": "int8" if detector.int8_path is not None and classifier.int8_path is not None else "f32",
        "detector": {"imgsz": detector.imgsz, "classes": list(detector.classes),
                     "f32": _file_entry(detector.path), "int8": _file_entry(detector.int8_path)},
        "classifier": {"imgsz": classifier.imgsz, "classes": list(classifier.classes), "crop_expand": found.crop_expand,
                       "normalize": "rgb/255", "f32": _file_entry(classifier.path), "int8": _file_entry(classifier.int8_path)},
        "thresholds": dict(found.thresholds),
        # Where the frame's scale is unknown (no index size answered yet), as companion.vision reads photos.
        "photo_thresholds": {"conf": reading.PHOTO_INDEX_CONF, "back_conf": reading.PHOTO_BACK_CONF},
        "contract": {
            "pad_value": PAD_VALUE, "max_det": 300, "max_nms": decoding._MAX_NMS, "class_offset": decoding._MAX_WH,
            "target_index_px": reading.TARGET_INDEX_PX, "tile_below_px": reading.TILE_BELOW_PX,
            "max_zoom": reading.MAX_ZOOM, "oriented_aspect": reading.ORIENTED_ASPECT,
            "index_class": reading.INDEX_CLASS, "back_class": reading.BACK_CLASS, "none_class": reading.NONE_CLASS,
            "rotations": list(reading.ROTATIONS), "tile": "auto",
            # a hand over the table (companion.table.pipeline.skin_fraction): the reader says so in each post
            "skin": {"width": pipeline.SKIN_WIDTH, "ycrcb_low": list(pipeline.SKIN_YCRCB_LOW),
                     "ycrcb_high": list(pipeline.SKIN_YCRCB_HIGH), "occluder_fraction": pipeline.PipelineConfig().occluder_fraction},
        },
        "runtime": runtime(),
        # How the page's reader behaves (web_ui/static/phone_reader.js): slower than this a frame, it sends frames.
        "reader": {"enabled": bool(current_app.config.get("PHONE_READER", True)),
                   "slow_read_ms": float(current_app.config.get("READER_SLOW_MS", 3000.0))},
    })


@bp.get("/models/<name>")
def model_file(name: str):
    path = served_files(manifest()).get(name)
    if path is None:
        raise ApiError(404, _("no model file %(name)s here", name=name[:80]))
    response = send_file(path, mimetype="application/octet-stream", conditional=True, etag=file_sha256(path),
                         max_age=MODEL_CACHE_SECONDS if request.args.get("v") else 0)
    if request.args.get("v"):
        response.headers["Cache-Control"] = f"public, max-age={MODEL_CACHE_SECONDS}, immutable"
    return response
