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

import base64
import hashlib
import json
import threading
from pathlib import Path

import numpy as np

from flask import Blueprint, current_app, jsonify, request, send_file, url_for
from flask_babel import gettext as _

from companion.table import pipeline
from companion.vision import decode as decoding
from companion.vision import detector as reading
from companion.vision.letterbox import PAD_VALUE
from companion.vision import incremental, ink
from companion.vision.decks import profile as decks
from companion.vision.models import (ModelsManifest, WeightsMissingError, default_weights_dir, models_fingerprint,
                                     onnx_with_embedding)
from web_ui.api import ApiError, registry

bp = Blueprint("models", __name__, url_prefix="/api")

# A year: the URL names the file's sha256, so a changed file is fetched at its new URL.
MODEL_CACHE_SECONDS = 365 * 24 * 3600
VENDOR = Path(__file__).resolve().parent / "static" / "vendor"
# What the page needs of onnxruntime-web (scripts/setup.sh vendors them): without them it sends frames.
RUNTIME_FILES = ("ort.wasm.min.js", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")

# A learned deck's prototypes a phone takes (each 4 bytes × the classifier's 1280 features): a deck taught
# from a few photos holds 100-250 (two to four corners of 54 cards), so 1024 (5 MB) leaves room for a
# deck taught twice over and keeps a hostile or broken profile from being sent to every phone.
MAX_BROWSER_PROTOTYPES = 1024
# The suffix of a classifier's copy with its pooled features as a second output (a learned deck reads them).
EMBEDDING_SUFFIX = ".embedding.onnx"

_hashes: dict[tuple[str, float, int], str] = {}
_hashes_lock = threading.Lock()
_embedding_copies: dict[tuple[str, float, int], bytes | None] = {}


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


def embedding_copy(path: Path) -> bytes | None:
    """The classifier file with its embedding output and a free batch dimension (companion.vision.models.
    onnx_with_embedding: the page classifies a frame's crops in one run), made once while the file stays the
    same; None where it cannot be made here (no onnx package)."""
    stat = path.stat()
    key = (str(path), stat.st_mtime, stat.st_size)
    with _hashes_lock:
        if key not in _embedding_copies:
            _embedding_copies[key] = onnx_with_embedding(path, free_batch=True)
        return _embedding_copies[key]


def embedding_name(path: Path) -> str:
    return path.name[: -len(".onnx")] + EMBEDDING_SUFFIX if path.name.endswith(".onnx") else path.name + EMBEDDING_SUFFIX


def _file_entry(path: Path | None) -> dict | None:
    if path is None:
        return None
    digest = file_sha256(path)
    return {"file": path.name, "url": url_for("models.model_file", name=path.name, v=digest[:16]), "sha256": digest,
            "bytes": path.stat().st_size}


def _embedding_entry(path: Path | None) -> dict | None:
    made = None if path is None else embedding_copy(path)
    if made is None:
        return None
    digest = hashlib.sha256(made).hexdigest()
    name = embedding_name(path)
    return {"file": name, "url": url_for("models.model_file", name=name, v=digest[:16]), "sha256": digest, "bytes": len(made)}


def served_files(found: ModelsManifest) -> dict[str, Path]:
    return {path.name: path for spec in (found.detector, found.classifier) for path in (spec.path, spec.int8_path) if path is not None}


def embedding_files(found: ModelsManifest) -> dict[str, Path]:
    spec = found.classifier
    return {embedding_name(path): path for path in (spec.path, spec.int8_path) if path is not None}


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
                       "normalize": "rgb/255", "f32": _file_entry(classifier.path), "int8": _file_entry(classifier.int8_path),
                       # the same networks with the pooled features as a second output, "embedding": what a learned deck reads
                       "embedding": {"f32": _embedding_entry(classifier.path), "int8": _embedding_entry(classifier.int8_path)}},
        "thresholds": dict(found.thresholds),
        # Where the frame's scale is unknown (no index size answered yet), as companion.vision reads photos.
        "photo_thresholds": {"conf": reading.PHOTO_INDEX_CONF, "back_conf": reading.PHOTO_BACK_CONF},
        "contract": {
            "pad_value": PAD_VALUE, "max_det": 300, "max_nms": decoding._MAX_NMS, "class_offset": decoding._MAX_WH,
            "target_index_px": reading.TARGET_INDEX_PX, "tile_below_px": reading.TILE_BELOW_PX,
            "photo_tile_below_px": reading.PHOTO_TILE_BELOW_PX,
            "max_zoom": reading.MAX_ZOOM, "oriented_aspect": reading.ORIENTED_ASPECT,
            "index_class": reading.INDEX_CLASS, "back_class": reading.BACK_CLASS, "none_class": reading.NONE_CLASS,
            "rotations": list(reading.ROTATIONS), "tile": "auto",
            # a hand over the table (companion.table.pipeline.skin_fraction): the reader says so in each post
            # what changed since the frame read before (companion.vision.incremental): the page reads a camera's frames so
            "incremental": {"shrink": incremental.SHRINK, "changed_levels": incremental.CHANGED_LEVELS,
                            "same_box_iou": incremental.SAME_BOX_IOU, "recheck_every": incremental.RECHECK_EVERY_FRAMES,
                            "whole_pass_every_changed": incremental.WHOLE_PASS_EVERY_CHANGED,
                            "settled_after_readings": incremental.SETTLED_AFTER_READINGS,
                            "keep_above_confidence": incremental.KEEP_ABOVE_CONFIDENCE,
                            # the index size answered is taken only when it moved this share (the table pipeline's
                            # own detector is told so): each new size reads everything anew
                            "rescale": pipeline.PipelineConfig().detector_rescale},
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
    found = manifest()
    path = served_files(found).get(name)
    if path is None and name in embedding_files(found):
        made = embedding_copy(embedding_files(found)[name])
        if made is None:
            raise ApiError(404, _("this server cannot give the classifier's embedding (the onnx package is not installed)"))
        response = current_app.response_class(made, mimetype="application/octet-stream")
        response.set_etag(hashlib.sha256(made).hexdigest())
        response.make_conditional(request)
    elif path is None:
        raise ApiError(404, _("no model file %(name)s here", name=name[:80]))
    else:
        response = send_file(path, mimetype="application/octet-stream", conditional=True, etag=file_sha256(path),
                             max_age=MODEL_CACHE_SECONDS if request.args.get("v") else 0)
    if request.args.get("v"):
        response.headers["Cache-Control"] = f"public, max-age={MODEL_CACHE_SECONDS}, immutable"
    return response


def _floats(array: np.ndarray | None) -> str | None:
    """float32 numbers, little-endian, base64: a deck's prototypes as compact as JSON allows (and exact)."""
    return None if array is None else base64.b64encode(np.ascontiguousarray(array, "<f4").tobytes()).decode("ascii")


def browser_profile(profile, found: ModelsManifest) -> dict:
    """What a phone needs to read with a learned deck as ``Detector.with_deck(profile, closer=False)`` does
    (the table pipeline's reader, companion.session.camera): the prototypes and their codes, ink colours,
    back, none-floor and trust, the deck's thresholds, and every constant of companion.vision.decks.profile
    and companion.vision.ink the reading uses. ``version`` is the sha256 of the rest: a phone keeps a copy
    while it stays the same (the ETag)."""
    conf, back_conf = reading.thresholds_with_deck(found.thresholds["conf"], found.thresholds["back_conf"], profile)
    body = {
        "deck": profile.name, "codes": list(profile.codes), "dim": int(profile.prototypes.shape[1]),
        "prototypes": _floats(profile.prototypes), "colours": _floats(profile.colours), "back": _floats(profile.back),
        "none_floor": profile.none_floor, "trusted": profile.trusted,
        # closer=False: the table pipeline's reader keeps the general closer look (Detector.with_deck)
        "thresholds": {"conf": conf, "back_conf": back_conf, "max_zoom": reading.MAX_ZOOM},
        "constants": {
            "deck_codes": list(decks.DECK_CODES), "similarity_temperature": decks.SIMILARITY_TEMPERATURE,
            "ink_colour_weight": decks.INK_COLOUR_WEIGHT, "abstain_confidence": decks.ABSTAIN_CONFIDENCE,
            "back": {"bins": list(decks.BACK_BINS), "max_distance": decks.BACK_MAX_DISTANCE,
                     "inner_margin": decks.BACK_INNER_MARGIN},
            "ink": {"hue_bins": ink.INK_HUE_BINS, "darker_than_paper": ink.INK_DARKER_THAN_PAPER,
                    "min_chroma": ink.INK_MIN_CHROMA},
        },
    }
    body["version"] = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    return body


@bp.get("/tables/<table_id>/deck/profile")
def table_deck_profile(table_id: str):
    """The learned deck this table's readings are checked against (``reader.deck``), exported for a phone
    that reads its own cards: ``{"deck": null}`` when the table reads with the general models (its deck
    named none, or gone from the data folder). Anyone who may watch the table may read it, as GET /api/decks."""
    table = registry().get(table_id)
    profile, use = current_app.extensions["camera"].decks.resolve(table.deck)
    if profile is None:
        response = jsonify({"deck": None, "use": use.to_json()})
        response.headers["Cache-Control"] = "no-cache"
        return response
    if len(profile.codes) > MAX_BROWSER_PROTOTYPES:
        raise ApiError(413, _("the deck %(deck)s holds %(count)s prototypes, more than a phone is sent (%(limit)s): the phone "
                              "sends frames and the server reads with it", deck=repr(profile.name), count=len(profile.codes),
                              limit=MAX_BROWSER_PROTOTYPES))
    body = browser_profile(profile, manifest())
    response = jsonify(body)
    response.set_etag(body["version"])
    response.headers["Cache-Control"] = "no-cache"   # the table may change its deck: asked again, answered 304 while the same
    return response.make_conditional(request)
