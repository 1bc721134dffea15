"""Turn the shipped detector's ONNX file back into an ultralytics checkpoint that training can continue.

The PyTorch checkpoints of the shipped detector lived under ``var/runs/`` on machines that are gone
(checkpoints never go into git); only ``weights/detector.onnx`` is kept. Its export fused every
convolution with its batch norm (``W' = W * gamma / sigma``, ``b' = beta - mu * gamma / sigma``), and
the initializers keep ultralytics' module names (``model.0.conv.weight``, ``model.0.conv.bias`` ...), so
the network is rebuilt from ``yolo11n.yaml`` and each ``Conv`` gets the fused weight with a batch norm
that gives back exactly ``W' x + b'`` in eval mode.

The batch norms are not set to the identity: in training mode a batch norm normalises by the batch's
own statistics, and an identity one (gamma 1, beta b') would throw away every layer's scale and shift
on the first step. Each one is instead *recalibrated* on real training images: with ``mu``, ``sigma``
the per-channel mean and deviation of ``W' x`` over those images, gamma = sigma, beta = mu + b',
running mean = mu, running var = sigma^2; eval mode is then exact, and training mode starts close to the
shipped function (the batch's statistics close to the calibration's).

    python -m vision_models.train.recover --out var/runs/detector_recovered/weights/last.pt

The result is checked against the ONNX file on the calibration images (``--check``: largest difference
of the raw outputs; a mismatch stops the command).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
# The raw outputs (box coordinates in input pixels, class scores in 0..1) of the rebuilt network and of
# the ONNX file on the same images: float32 rounding through 100+ layers, measured 2026-12-04 at about
# 1e-3 on box coordinates of up to 416; anything near a pixel means a layer was mapped wrongly.
MAX_OUTPUT_DIFFERENCE = 0.05


def onnx_tensors(path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    return {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}


def onnx_names(path: Path) -> dict[int, str]:
    import ast

    import onnx

    meta = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    return ast.literal_eval(meta["names"])


def build_model(names: dict[int, str]):
    """An untrained YOLO11n detection model with these classes (ultralytics' own builder)."""
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel("yolo11n.yaml", nc=len(names), verbose=False)
    model.names = dict(names)
    return model


def load_fused(model, tensors: dict[str, np.ndarray]) -> list[str]:
    """Put the fused weights into ``model`` (batch norms neutral for now); returns the Conv modules' names."""
    import torch
    from ultralytics.nn.modules.conv import Conv

    conv_names = []
    with torch.no_grad():
        for name, module in model.named_modules():
            if isinstance(module, Conv):
                weight = tensors[f"{name}.conv.weight"]
                bias = tensors[f"{name}.conv.bias"]
                module.conv.weight.copy_(torch.from_numpy(weight))
                bn = module.bn
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(bias))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                conv_names.append(name)
            elif isinstance(module, torch.nn.Conv2d) and f"{name}.weight" in tensors and not name.endswith(".conv"):
                module.weight.copy_(torch.from_numpy(tensors[f"{name}.weight"]))
                if module.bias is not None and f"{name}.bias" in tensors:
                    module.bias.copy_(torch.from_numpy(tensors[f"{name}.bias"]))
    left = {key for key in tensors if key.startswith("model.")} - {
        f"{n}.conv.{p}" for n in conv_names for p in ("weight", "bias")} - {
        f"{n}.{p}" for n, m in model.named_modules() if isinstance(m, torch.nn.Conv2d) for p in ("weight", "bias")}
    if left:
        raise SystemExit(f"ONNX weights with no place in yolo11n: {sorted(left)[:5]}")
    return conv_names


def recalibrate(model, conv_names: list[str], batches: list) -> None:
    """Give each Conv's batch norm the statistics of ``W' x`` on real images (see the module's docstring)."""
    import torch

    modules = dict(model.named_modules())
    sums: dict[str, list] = {}
    hooks = []

    def hook_for(name):
        def hook(_module, _inputs, output):
            values = output.detach().double().transpose(0, 1).reshape(output.shape[1], -1)
            total = sums.setdefault(name, [0, torch.zeros(values.shape[0], dtype=torch.float64),
                                           torch.zeros(values.shape[0], dtype=torch.float64)])
            total[0] += values.shape[1]
            total[1] += values.sum(1)
            total[2] += (values * values).sum(1)
        return hook

    for name in conv_names:
        hooks.append(modules[name].conv.register_forward_hook(hook_for(name)))
    model.eval()
    with torch.no_grad():
        for batch in batches:
            model(batch)
    for hook in hooks:
        hook.remove()
    with torch.no_grad():
        for name in conv_names:
            count, total, squares = sums[name]
            mean = total / count
            var = (squares / count - mean * mean).clamp(min=1e-6)
            bn = modules[name].bn
            fused_bias = bn.bias.detach().double().clone()
            # gamma * (y - mu) / sqrt(var + eps) + beta == y + b' when gamma = sqrt(var + eps), beta = mu + b'
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((mean + fused_bias).float())
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())


def calibration_batches(images: list[Path], imgsz: int, batch: int = 8) -> list:
    """Letterboxed images as ultralytics' trainer feeds them (RGB, 0..1, NCHW)."""
    import cv2
    import torch

    from companion.vision.letterbox import Letterbox

    tensors = []
    for path in images:
        frame = cv2.imread(str(path))
        if frame is None:
            continue
        box = Letterbox.fit(frame.shape[:2], (imgsz, imgsz))
        rgb = cv2.cvtColor(box.apply(frame), cv2.COLOR_BGR2RGB)
        tensors.append(torch.from_numpy(rgb.transpose(2, 0, 1).copy()).float() / 255.0)
    return [torch.stack(tensors[k:k + batch]) for k in range(0, len(tensors), batch)]


def output_difference(model, onnx_path: Path, batches: list) -> float:
    import onnxruntime
    import torch

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    model.eval()
    worst = 0.0
    with torch.no_grad():
        for batch in batches:
            ours = model(batch)
            ours = (ours[0] if isinstance(ours, (list, tuple)) else ours).numpy()
            for k in range(batch.shape[0]):
                theirs = session.run(None, {input_name: batch[k:k + 1].numpy()})[0]
                worst = max(worst, float(np.abs(ours[k:k + 1] - theirs).max()))
    return worst


def save_checkpoint(model, out: Path, source: Path, calibration: int, difference: float) -> None:
    """An ultralytics checkpoint: ``YOLO(out).train(..., pretrained=True)`` continues from these weights.

    Kept in float32 (ultralytics keeps half): rounded to half the outputs moved by up to a pixel."""
    import copy
    import datetime

    import torch
    from ultralytics import __version__

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": copy.deepcopy(model), "ema": None, "optimizer": None, "epoch": -1,
                "train_args": {"task": "detect", "imgsz": 416}, "date": datetime.datetime.now().isoformat(),
                "version": __version__,
                "recovered_from": {"onnx": str(source), "calibration_images": calibration,
                                   "max_output_difference": difference}}, out)


def recover(onnx_path: Path, out: Path, images: list[Path], imgsz: int = 416) -> dict:
    import torch

    torch.manual_seed(0)
    model = build_model(onnx_names(onnx_path))
    conv_names = load_fused(model, onnx_tensors(onnx_path))
    batches = calibration_batches(images, imgsz)
    if not batches:
        raise SystemExit("no readable calibration images")
    recalibrate(model, conv_names, batches)
    difference = output_difference(model, onnx_path, batches[:4])
    if difference > MAX_OUTPUT_DIFFERENCE:
        raise SystemExit(f"the rebuilt detector differs from {onnx_path} by {difference:.4f} (> {MAX_OUTPUT_DIFFERENCE})")
    save_checkpoint(model, out, onnx_path, sum(b.shape[0] for b in batches), difference)
    # training mode on the same images: how close the batch statistics keep the function (a report, not a gate)
    return {"onnx": str(onnx_path), "out": str(out), "convs": len(conv_names),
            "calibration_images": sum(b.shape[0] for b in batches), "max_output_difference": round(difference, 6)}


def default_calibration_images(count: int = 64) -> list[Path]:
    """Real training photos (cardcounterml's training split and rf100's train split), never held-out ones."""
    from vision_models.data import real_split

    rf100 = sorted((real_split.REAL_DATASET.parent / "real" / "poker-cards-rf100" / "train" / "images").glob("*.jpg"))
    cardcounterml = [p for p in real_split.real_images() if not real_split.is_holdout(p.name)]
    picked = cardcounterml[:: max(1, len(cardcounterml) // (count // 2))][: count // 2]
    picked += rf100[:: max(1, len(rf100) // (count // 2))][: count // 2]
    return picked


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=WEIGHTS / "detector.onnx")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "runs" / "detector_recovered" / "weights" / "last.pt")
    parser.add_argument("--images", type=int, default=64, help="real training photos to recalibrate the batch norms on")
    args = parser.parse_args(argv)
    from vision_models.train.first_run import offline_environment

    offline_environment()
    print(json.dumps(recover(args.onnx, args.out, default_calibration_images(args.images)), indent=2))


if __name__ == "__main__":
    main()
