"""The two training sets in ultralytics' folder layouts, built from synthetic scenes and real photos.

Detector (``var/data/detect``): YOLO detect layout with ``train``/``val`` image and label folders
and ``data.yaml`` (classes ``index``, ``back``). Training = synthetic scenes of the training decks
+ the real photos of the training split; validation = scenes of the held-out decks + a small slice
of real training-split photos kept out of training (``is_real_val``). The held-out real photos
(``real_split.is_holdout``) are used nowhere here.

Classifier (``var/data/classify``): ImageFolder layout ``train/<NN_CODE>/*.png``; folders carry a
two-digit prefix so ultralytics' alphabetical class order equals the contract's order
(``CLASS_NAMES[:54]`` then ``NONE``).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from companion.cards import CLASS_NAMES
from vision_models.data import artwork, real_split, synth

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "var" / "data"
CLASSIFIER_CLASSES: tuple[str, ...] = tuple(CLASS_NAMES[:54]) + ("NONE",)


def class_folder(index: int) -> str:
    return f"{index:02d}_{CLASSIFIER_CLASSES[index]}"


def is_real_val(image_filename: str) -> bool:
    """A ~5 % slice of the real training split watched during training (never the held-out photos)."""
    stem = real_split.source_stem(image_filename)
    return not real_split.is_holdout(image_filename) and int(hashlib.sha1(("val" + stem).encode()).hexdigest(), 16) % 20 == 0


def deck_split(deck_dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    train = [d for d in deck_dirs if d.name not in artwork.HOLDOUT_DECKS]
    held = [d for d in deck_dirs if d.name in artwork.HOLDOUT_DECKS]
    return train, held


def real_detect_lines(image: Path) -> list[str]:
    lines = []
    for code, cx, cy, w, h in real_split.read_labels(real_split.label_path_for(image)):
        cls = synth.BACK_CLASS if code == "BACK" else synth.INDEX_CLASS
        lines.append(f"{cls} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return lines


def _link(source: Path, target: Path) -> None:
    if target.exists() or target.is_symlink():
        return
    try:
        os.symlink(source, target)
    except OSError:
        target.write_bytes(source.read_bytes())


def link_original(out: Path) -> None:
    """Links the classifier's original training crops in beside new ones; validation is the original's."""
    source = DATA_DIR / "classify"
    for folder in sorted((source / "train").iterdir()):
        target = out / "train" / folder.name
        target.mkdir(parents=True, exist_ok=True)
        for crop in folder.iterdir():
            link = target / crop.name
            if not link.exists():
                os.symlink(crop.resolve(), link)
    if not (out / "val").exists():
        os.symlink((source / "val").resolve(), out / "val")


def build_detect(seed: int, scenes: int, val_scenes: int, out: Path = DATA_DIR / "detect", real: bool = True,
                 distractor_share: float = 0.0) -> Path:
    deck_dirs = artwork.available_decks()
    if not deck_dirs:
        raise SystemExit("no card artwork under var/artwork: run python -m vision_models.data.artwork first")
    train_decks, held_decks = deck_split(deck_dirs)
    decks_train = [d for d in synth.load_decks(train_decks, for_scenes=True) if d.faces]
    decks_held = [d for d in synth.load_decks(held_decks, for_scenes=True) if d.faces] or decks_train
    backs = [d.back for d in synth.load_decks(deck_dirs, with_faces=False)]
    synth.write_scenes(out / "train", decks_train, backs, scenes, seed, distractor_share=distractor_share)
    synth.write_scenes(out / "val", decks_held, backs, val_scenes, seed + 100_000, distractor_share=distractor_share)
    if real and real_split.REAL_DATASET.is_dir():
        for image in real_split.real_images():
            if real_split.is_holdout(image.name):
                continue
            split = "val" if is_real_val(image.name) else "train"
            name = "real_" + image.stem
            _link(image, out / split / "images" / (name + image.suffix))
            label = out / split / "labels" / (name + ".txt")
            if not label.exists():
                lines = real_detect_lines(image)
                label.write_text("\n".join(lines) + ("\n" if lines else ""))
    yaml = out / "data.yaml"
    yaml.write_text(f"path: {out}\ntrain: train/images\nval: val/images\nnames:\n  0: index\n  1: back\n")
    # per-domain validation sets, for the final report
    for domain, prefix in (("synthetic", "scene_"), ("real", "real_")):
        listing = out / f"val_{domain}.txt"
        listing.write_text("".join(f"{p}\n" for p in sorted((out / "val" / "images").glob(prefix + "*"))))
        (out / f"data_val_{domain}.yaml").write_text(
            f"path: {out}\ntrain: train/images\nval: {listing}\nnames:\n  0: index\n  1: back\n")
    return yaml


def _write_crop(folder: Path, name: str, crop: np.ndarray) -> None:
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{name}.png"), crop)


def build_classify(seed: int, variants: int, none_count: int, real_variants: int = 2,
                   out: Path = DATA_DIR / "classify", real: bool = True) -> Path:
    """Crops per the contract; a ``done.json`` marker makes a finished build a cache hit."""
    import cv2

    marker = out / "done.json"
    settings = {"seed": seed, "variants": variants, "none_count": none_count, "real_variants": real_variants, "real": real}
    if marker.exists() and json.loads(marker.read_text()) == settings:
        return out
    deck_dirs = artwork.available_decks()
    train_decks, held_decks = deck_split(deck_dirs)
    splits = {"train": [d for d in synth.load_decks(train_decks) if d.faces],
              "val": [d for d in synth.load_decks(held_decks) if d.faces]}
    none_index = len(CLASSIFIER_CLASSES) - 1
    for split, decks in splits.items():
        split_variants = variants if split == "train" else max(1, variants // 4)
        jobs = [(deck, face, corner) for deck in decks for face in deck.faces.values() for corner in range(len(face.index_boxes))]
        for j, (deck, face, corner) in enumerate(synth.progress(jobs, f"index crops {split}")):
            class_id = CLASSIFIER_CLASSES.index(face.code)
            for v in range(split_variants):
                if (out / split / class_folder(class_id) / f"{deck.name}_{face.code}_{corner}_{v}.png").exists():
                    continue  # cached: crops are a pure function of (seed, deck, card, corner, variant)
                rng = np.random.default_rng([seed, 1 if split == "train" else 2, j, v])
                background = synth.table_texture(rng, 160, 160)
                crop = synth.render_index_crop(rng, face, corner, background)
                _write_crop(out / split / class_folder(class_id), f"{deck.name}_{face.code}_{corner}_{v}", crop)
        count = none_count if split == "train" else max(50, none_count // 8)
        for k in synth.progress(range(count), f"none crops {split}"):
            if (out / split / class_folder(none_index) / f"none_{k}.png").exists():
                continue
            rng = np.random.default_rng([seed, 3 if split == "train" else 4, k])
            crop = synth.render_none_crop(rng, decks or splits["train"], synth.table_texture(rng, 160, 160))
            _write_crop(out / split / class_folder(none_index), f"none_{k}", crop)
    if real and real_split.REAL_DATASET.is_dir():
        images = [p for p in real_split.real_images() if not real_split.is_holdout(p.name)]
        for n, image_path in enumerate(synth.progress(images, "real crops")):
            split = "val" if is_real_val(image_path.name) else "train"
            image = cv2.imread(str(image_path))
            if image is None:
                continue
            h, w = image.shape[:2]
            boxes = []
            for i, (code, cx, cy, bw, bh) in enumerate(real_split.read_labels(real_split.label_path_for(image_path))):
                box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
                boxes.append(box)
                if code == "BACK":
                    continue
                class_id = CLASSIFIER_CLASSES.index(code)
                for v in range(real_variants if split == "train" else 1):
                    rng = np.random.default_rng([seed, 5, n, i, v])
                    jittered = synth.jitter_box(rng, box, 0.06) if v else box
                    _write_crop(out / split / class_folder(class_id), f"real_{image_path.stem}_{i}_{v}", synth.crop_box(image, jittered))
            # NONE from the photo: index-sized boxes away from every labelled box
            rng = np.random.default_rng([seed, 6, n])
            typical = np.median([b[3] - b[1] for b in boxes]) if boxes else 40.0
            for k in range(2):
                bh = typical * rng.uniform(0.6, 1.5)
                bw = bh * rng.uniform(0.4, 0.9)
                x1, y1 = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
                candidate = (x1, y1, x1 + bw, y1 + bh)
                if all(box_iou(candidate, b) < 0.05 for b in boxes):
                    _write_crop(out / split / class_folder(none_index), f"realnone_{image_path.stem}_{k}", synth.crop_box(image, candidate))
    for split in ("train", "val"):  # ultralytics wants every class folder present in both splits
        for i in range(len(CLASSIFIER_CLASSES)):
            (out / split / class_folder(i)).mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(settings))
    return out


def box_iou(a, b) -> float:
    """Intersection over union of two x1, y1, x2, y2 boxes."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
