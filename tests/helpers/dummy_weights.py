"""Throwaway models for the runtime's plumbing tests (imported by the vision test files).

The real models are trained elsewhere; these are untrained YOLO11n / YOLO11n-cls networks exported
by ultralytics exactly as the real ones are (ONNX, static shapes, simplify), so decoding, letterboxing,
crop preprocessing and batching can be checked against ultralytics' own ``predict`` on the same file.
Building them needs ultralytics (a training dependency); tests that need them skip without it.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import pytest

from companion.cards import CLASS_NAMES

CLASSIFIER_NAMES = list(CLASS_NAMES[:54]) + ["NONE"]


def build_dummy_weights(out: Path) -> Path:
    """Export an untrained 2-class detector and 55-class classifier plus models.json into ``out``.

    Test processes running at once (pytest -n) share ``out`` (pytest's cache folder): one builds while the
    others wait on a lock beside it and then take its build. models.json is written last and whole, so a
    process that finds it (without the lock) finds the models beside it complete."""
    if (out / "models.json").is_file():
        return out
    pytest.importorskip("ultralytics", reason="building throwaway models needs ultralytics (pip install -e .[train])")
    pytest.importorskip("onnxslim", reason="ultralytics' ONNX export with simplify needs onnxslim")
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f"{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # released when the file closes, or the process ends
        if not (out / "models.json").is_file():
            shutil.rmtree(out, ignore_errors=True)   # what a build stopped halfway left
            _build(out)
    return out


def _build(out: Path) -> None:
    from vision_models.train.first_run import offline_font

    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(out.parent / "yolo_config"))
    offline_font(Path(os.environ["YOLO_CONFIG_DIR"]))
    import torch
    from ultralytics import YOLO
    from ultralytics.nn.tasks import ClassificationModel, DetectionModel

    torch.manual_seed(0)
    work = out.parent / "export-work"
    work.mkdir(parents=True, exist_ok=True)
    detector = DetectionModel("yolo11n.yaml", nc=2, verbose=False)
    detector.names, detector.task = {0: "index", 1: "back"}, "detect"
    classifier = ClassificationModel("yolo11n-cls.yaml", nc=55, verbose=False)
    classifier.names, classifier.task = dict(enumerate(CLASSIFIER_NAMES)), "classify"
    # Untrained, every activation fades to ~0 through the layers (batch-norm statistics still say mean 0,
    # variance 1), so all boxes score alike. Set the statistics from one batch of noise instead, and
    # randomise the detector's class layer so boxes of both classes pass 0.25 at scattered places.
    for network, size in ((detector, 640), (classifier, 64)):
        _calibrate_batch_norm(network, size)
    for level in detector.model[-1].cv3:
        with torch.no_grad():
            torch.nn.init.normal_(level[-1].weight, 0.0, 0.1)
            level[-1].bias.fill_(-3.0)
    out.mkdir(parents=True, exist_ok=True)
    for network, yaml, imgsz, name in ((detector, "yolo11n.yaml", 640, "detector.onnx"),
                                       (classifier, "yolo11n-cls.yaml", 64, "classifier.onnx")):
        wrapper = YOLO(yaml)
        wrapper.model = network
        network.args = {"imgsz": imgsz, "data": ""}
        cwd = os.getcwd()
        os.chdir(work)
        try:
            exported = wrapper.export(format="onnx", imgsz=imgsz, simplify=True, device="cpu")
        finally:
            os.chdir(cwd)
        shutil.move(str(work / exported), out / name)  # export answers a path relative to its cwd
    manifest = out / "models.json.part"
    manifest.write_text(json.dumps({
        "detector": {"file": "detector.onnx", "imgsz": 640, "train_imgsz": 416, "classes": ["index", "back"]},
        "classifier": {"file": "classifier.onnx", "imgsz": 64, "classes": CLASSIFIER_NAMES, "crop_expand": 0.10,
                       "normalize": "rgb/255"},
        "training": {"note": "untrained throwaway models for plumbing tests"},
    }, indent=1))
    os.replace(manifest, out / "models.json")


def _calibrate_batch_norm(network, size: int) -> None:
    import torch

    for module in network.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.momentum = 1.0
    network.train()
    with torch.no_grad():
        network(torch.rand(4, 3, size, size))
    network.eval()


def dummy_weights_dir(request) -> Path:
    """Built once and kept in pytest's cache folder (``.pytest_cache``), so later runs take no time."""
    return build_dummy_weights(Path(request.config.cache.mkdir("vision-dummy-weights")) / "weights")
