"""Index crops for the pretrained backbone (``vision_models.train.backbone``): rendered and real, kept apart by split.

Every crop is cut as the runtime cuts it (``synth.crop_box``: the box grown by 10 % per side and
stretched to 64×64, BGR), so what the network learns from is what it will read. One ``.npz`` per
split under ``--out`` (default ``var/data/backbone``), each with ``crops`` (N×64×64×3 uint8),
``labels`` (index into the classifier contract, ``NONE`` last), ``source`` (``rendered`` or
``real``) and ``group`` (the deck or source photo a crop came from, so a later split never puts
two crops of one photo on both sides)::

    .venv/bin/python -m vision_models.data.backbone_data --variants 3 --none-crops 2500 --real-variants 2

Splits, so that nothing evaluated on is trained on:
- ``train``: rendered crops of the training decks (``artwork.HOLDOUT_DECKS`` left out), the real
  cardcounterml photos of the training split (neither ``holdout.is_holdout`` nor ``is_real_val``),
  exact and jittered boxes, and index-sized NONE boxes away from every label.
- ``val``: rendered crops of the held-out decks and the real ``is_real_val`` photos (chooses the epoch).
- ``holdout``: the real held-out photos' labelled index boxes, cut exactly (never trained on, never
  used to choose anything): the side-by-side figures of ``vision_models.checks.backbone_check``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from vision_models.data import artwork, real_split, synth
from vision_models.data.datasets import CLASSIFIER_CLASSES, DATA_DIR, box_iou, deck_split, is_real_val

OUT_DIR = DATA_DIR / "backbone"
NONE_INDEX = len(CLASSIFIER_CLASSES) - 1
REAL_NONE_PER_PHOTO = 2  # as vision_models.data.datasets.build_classify: index-sized bare patches of each photo


class _Split:
    def __init__(self):
        self.crops: list[np.ndarray] = []
        self.labels: list[int] = []
        self.source: list[str] = []
        self.group: list[str] = []

    def add(self, crop: np.ndarray, label: int, source: str, group: str) -> None:
        self.crops.append(crop)
        self.labels.append(label)
        self.source.append(source)
        self.group.append(group)

    def save(self, path: Path) -> int:
        path.parent.mkdir(parents=True, exist_ok=True)
        crops = np.stack(self.crops) if self.crops else np.zeros((0, synth.CROP_SIZE, synth.CROP_SIZE, 3), np.uint8)
        np.savez(path, crops=crops, labels=np.asarray(self.labels, np.int64),
                 source=np.asarray(self.source), group=np.asarray(self.group))
        return len(self.labels)


def rendered_crops(splits: dict[str, _Split], seed: int, variants: int, none_count: int) -> None:
    deck_dirs = artwork.available_decks()
    if not deck_dirs:
        print("[backbone data] no rendered artwork under var/artwork (python -m vision_models.data.artwork): real crops only")
        return
    train_decks, held_decks = deck_split(deck_dirs)
    for split, dirs in (("train", train_decks), ("val", held_decks)):
        decks = [d for d in synth.load_decks(dirs) if d.faces]
        count = variants if split == "train" else 1
        jobs = [(deck, face, corner) for deck in decks for face in deck.faces.values() for corner in range(len(face.index_boxes))]
        for j, (deck, face, corner) in enumerate(synth.progress(jobs, f"rendered crops {split}")):
            for v in range(count):
                rng = np.random.default_rng([seed, 11 if split == "train" else 12, j, v])
                crop = synth.render_index_crop(rng, face, corner, synth.table_texture(rng, 160, 160))
                splits[split].add(crop, CLASSIFIER_CLASSES.index(face.code), "rendered", deck.name)
        nones = none_count if split == "train" else max(50, none_count // 8)
        for k in range(nones):
            rng = np.random.default_rng([seed, 13 if split == "train" else 14, k])
            crop = synth.render_none_crop(rng, decks, synth.table_texture(rng, 160, 160))
            splits[split].add(crop, NONE_INDEX, "rendered", "none")


def real_crops(splits: dict[str, _Split], seed: int, real_variants: int, dataset: Path = real_split.REAL_DATASET) -> None:
    import cv2

    if not dataset.is_dir():
        print(f"[backbone data] {dataset} is missing: rendered crops only")
        return
    images = real_split.real_images(dataset)
    for n, path in enumerate(synth.progress(images, "real crops")):
        split = "holdout" if real_split.is_holdout(path.name) else "val" if is_real_val(path.name) else "train"
        image = cv2.imread(str(path))
        if image is None:
            continue
        height, width = image.shape[:2]
        group = real_split.source_stem(path.name)
        boxes = []
        for i, (code, cx, cy, bw, bh) in enumerate(real_split.read_labels(real_split.label_path_for(path))):
            box = ((cx - bw / 2) * width, (cy - bh / 2) * height, (cx + bw / 2) * width, (cy + bh / 2) * height)
            boxes.append(box)
            if code == "BACK" or box[2] - box[0] < 2 or box[3] - box[1] < 2:
                continue
            for v in range(real_variants if split == "train" else 1):
                rng = np.random.default_rng([seed, 15, n, i, v])
                cut = synth.jitter_box(rng, box, 0.06) if v else box
                splits[split].add(synth.crop_box(image, cut), CLASSIFIER_CLASSES.index(code), "real", group)
        if split == "holdout" or not boxes:
            continue
        rng = np.random.default_rng([seed, 16, n])
        typical = float(np.median([b[3] - b[1] for b in boxes]))
        for _ in range(REAL_NONE_PER_PHOTO):
            bh = typical * rng.uniform(0.6, 1.5)
            bw = bh * rng.uniform(0.4, 0.9)
            if bw >= width or bh >= height:
                continue
            x1, y1 = rng.uniform(0, width - bw), rng.uniform(0, height - bh)
            candidate = (x1, y1, x1 + bw, y1 + bh)
            if all(box_iou(candidate, b) < 0.05 for b in boxes):
                splits[split].add(synth.crop_box(image, candidate), NONE_INDEX, "real", group)


def build(out: Path = OUT_DIR, seed: int = 0, variants: int = 3, none_count: int = 2500, real_variants: int = 2) -> dict:
    marker = out / "done.json"
    settings = {"seed": seed, "variants": variants, "none_count": none_count, "real_variants": real_variants}
    if marker.exists() and json.loads(marker.read_text()).get("settings") == settings:
        return json.loads(marker.read_text())
    splits = {name: _Split() for name in ("train", "val", "holdout")}
    rendered_crops(splits, seed, variants, none_count)
    real_crops(splits, seed, real_variants)
    counts = {name: split.save(out / f"{name}.npz") for name, split in splits.items()}
    summary = {"settings": settings, "counts": counts}
    marker.write_text(json.dumps(summary, indent=2))
    return summary


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", type=int, default=3, help="rendered crops per training deck's index")
    parser.add_argument("--none-crops", type=int, default=2500, help="rendered NONE crops for training")
    parser.add_argument("--real-variants", type=int, default=2, help="crops per real training index (exact + jittered)")
    args = parser.parse_args(argv)
    print(json.dumps(build(args.out, args.seed, args.variants, args.none_crops, args.real_variants), indent=2))


if __name__ == "__main__":
    main()
