"""Classifiers side by side on real index crops: general top-1, and nearest-prototype reading with their embeddings.

    python -m vision_models.checks.backbone_check --model shipped=vision_models/weights --model backbone=var/backbone_weights
    python -m vision_models.checks.backbone_check ... --cache var/backbone-check.pkl --json var/backbone-check.json

With ``--cache`` the readings are kept, and a later call with another ``--model`` reads only that
model, on the very boxes (the first model named in the first call finds them).

Every model reads the same index boxes, cut and turned as the runtime cuts and turns them
(``Detector.embed_boxes``: ``classifier_crop`` and ``plausible_turns``; the best turn as
``best_rotation`` picks it). The boxes:

* ``cardcounterml``: the labelled index boxes of the held-out photos (``companion.vision.holdout``;
  never trained on by either network);
* the decks no network was trained on, index boxes found by the shipped detector (the same boxes for
  every model): ``rf100-test``/``rf100-valid`` (poker-cards-rf100, a box is labelled by the one
  whole-card box holding its centre; boxes in two cards' boxes are left out), and the one-card photos
  named by their code (``camdowless-cards``, ``camdowless-single``, ``kentdoan-cards``,
  ``kalkaran-cards``, ``piercebriney-iphone``, ``piercebriney-pi-camera``): every index box found is
  that card's (a box on a pip or on the art then counts as a misread for every model alike).

Nearest-prototype reading (a learned deck's reading, without its ink colours or none floor): the
prototypes are one set of photos of a deck, each crop at the turn where its own model reads its
labelled code best (as ``companion deck learn`` stores them); each test crop is compared at every
plausible turn with every prototype by cosine, and takes the nearest one's code. Pairs, prototypes
→ test, never sharing a photo: cardcounterml held-out photos split by photo (even/odd hash of the
source photo, salted); piercebriney iPhone → Pi camera; camdowless cropped cards → single photos; rf100 train
(``--rf100-prototype-photos`` photos spread evenly over the split, which runs card by card) → rf100 test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from pathlib import Path

import numpy as np

from vision_models.checks.real_check import REAL, Photo, _by_file_name, photos_of, truth_of

CLASSIFY_SOURCES = ("cardcounterml", "rf100-test", "rf100-valid", "camdowless-cards", "camdowless-single",
                    "kentdoan-cards", "kalkaran-cards", "piercebriney-iphone", "piercebriney-pi-camera")
UNSEEN_DECKS = CLASSIFY_SOURCES[1:]
PROTOTYPE_PAIRS = (("cardcounterml:even", "cardcounterml:odd"), ("piercebriney-iphone", "piercebriney-pi-camera"),
                   ("camdowless-cards", "camdowless-single"), ("rf100-train", "rf100-test"))
EXTRA_FOLDERS = {"camdowless-cards": ("camdowless", "cards"), "kentdoan-cards": ("kentdoan", "cards"),
                 "kalkaran-cards": ("kalkaran", "cards")}


def source_photos(source: str, datasets: Path = REAL, rf100_prototype_photos: int = 120) -> list[Photo]:
    if source in EXTRA_FOLDERS:
        deck, folder = EXTRA_FOLDERS[source]
        return _by_file_name(source, datasets / "real" / "decks" / deck / folder)
    if source == "rf100-train":
        from vision_models.checks.real_check import _rf100

        photos = _rf100(datasets / "real" / "poker-cards-rf100", "train")
        step = max(1, len(photos) // max(1, rf100_prototype_photos))   # spread: the photos run card by card
        return photos[::step][:rf100_prototype_photos]
    return photos_of([source], datasets)


def labelled_boxes(photo: Photo, frame: np.ndarray, detector) -> tuple[np.ndarray, list[str]]:
    """The index boxes to read in this photo and each one's true code."""
    from companion.vision.detector import INDEX_CLASS

    height, width = frame.shape[:2]
    truth = truth_of(photo, width, height)
    if photo.labels == "index":
        parts = [part for card in truth for part in card.parts if card.code not in ("BACK",)]
        boxes = np.array([part.box for part in parts], np.float32).reshape(-1, 4)
        return boxes, [part.code for part in parts]
    raw = detector.detect_boxes(frame)
    found = raw.boxes[raw.classes == INDEX_CLASS].reshape(-1, 4)
    found = found[(found[:, 2] - found[:, 0] >= 2) & (found[:, 3] - found[:, 1] >= 2)]
    if photo.labels == "codes":
        if len(photo.codes) != 1:
            raise ValueError(f"{photo.path}: a one-card source holds {len(photo.codes)} codes")
        return found, [photo.codes[0]] * len(found)
    cards = [(card.code, card.parts[0].box) for card in truth if card.code != "BACK"]
    keep, codes = [], []
    for k, box in enumerate(found):
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        holders = [code for code, (x1, y1, x2, y2) in cards if x1 <= cx <= x2 and y1 <= cy <= y2]
        if len(holders) == 1:
            keep.append(k)
            codes.append(holders[0])
    return found[keep], codes


def read_sources(models: dict[str, tuple[Path, str]], sources: list[str], datasets: Path = REAL,
                 rf100_prototype_photos: int = 120, cached: list[dict] | None = None) -> list[dict]:
    """Per photo: the boxes, their codes, and each model's (turns, probabilities, embeddings) per box.

    With ``cached`` readings (an earlier run's), the boxes are kept and only the models missing there
    read them, so a new classifier is compared on exactly the boxes the others read."""
    from companion.vision import Detector, load_image

    done = {(entry["source"], entry["name"]): entry for entry in cached or []}
    loaded = {name: Detector.load(path, tile="auto", precision=precision)
              for name, (path, precision) in models.items()}
    finder = next(iter(loaded.values()))
    photos = [photo for source in sources for photo in source_photos(source, datasets, rf100_prototype_photos)]
    out = []
    for n, photo in enumerate(photos, 1):
        entry = done.get((photo.source, photo.path.name))
        missing = [name for name in loaded if entry is None or name not in entry["models"]]
        if missing:
            frame = load_image(photo.path)
            if entry is None:
                boxes, codes = labelled_boxes(photo, frame, finder)
                entry = {"source": photo.source, "name": photo.path.name, "boxes": boxes, "codes": codes, "models": {}}
            for name in missing:
                entry["models"][name] = loaded[name].embed_boxes(frame, entry["boxes"]) if len(entry["boxes"]) else []
        out.append(entry)
        if n % 50 == 0 or n == len(photos):
            print(f"[backbone check] {n}/{len(photos)} photos", file=sys.stderr, flush=True)
    return out


def best_code(turns, probabilities, classes) -> str | None:
    from companion.vision.detector import ROTATIONS, best_rotation

    full = np.zeros((len(ROTATIONS), len(classes)), np.float32)
    for row, turn in enumerate(turns):
        full[ROTATIONS.index(turn)] = probabilities[row]
    return best_rotation(full, classes)[0]


def classification(readings: list[dict], model: str, classes) -> dict[str, dict]:
    by_source: dict[str, list[int]] = {}
    for entry in readings:
        for (turns, probabilities, _), code in zip(entry["models"][model], entry["codes"]):
            right = best_code(turns, probabilities, classes) == code
            by_source.setdefault(entry["source"], [0, 0])
            by_source[entry["source"]][0] += int(right)
            by_source[entry["source"]][1] += 1
    return {source: {"right": r, "crops": n, "top1": r / n if n else None} for source, (r, n) in by_source.items()}


def _half(name: str) -> str:
    from companion.vision.holdout import source_stem

    # salted: the held-out photos are exactly those whose plain hash is 0 mod 4, so all of them are even there
    return "even" if int(hashlib.sha1(("prototypes" + source_stem(name)).encode()).hexdigest(), 16) % 2 == 0 else "odd"


def _side(entry: dict, side: str) -> bool:
    if ":" in side:
        source, half = side.split(":")
        return entry["source"] == source and _half(entry["name"]) == half
    return entry["source"] == side


def prototype_reading(readings: list[dict], model: str, classes, prototypes: str, test: str) -> dict:
    """Nearest-prototype top-1 of ``test``'s crops against ``prototypes``' crops, in ``model``'s embedding."""
    proto_vectors, proto_codes = [], []
    for entry in readings:
        if not _side(entry, prototypes):
            continue
        for (_turns, probabilities, embeddings), code in zip(entry["models"][model], entry["codes"]):
            row = int(np.argmax(probabilities[:, classes.index(code)]))
            proto_vectors.append(embeddings[row])
            proto_codes.append(code)
    if not proto_vectors:
        return {"prototypes": 0, "crops": 0, "top1": None}
    matrix = np.asarray(proto_vectors, np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    right = total = 0
    for entry in readings:
        if not _side(entry, test):
            continue
        for (_, _, embeddings), code in zip(entry["models"][model], entry["codes"]):
            unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-9)
            nearest = int(np.argmax((unit @ matrix.T).max(axis=0)))
            right += int(proto_codes[nearest] == code)
            total += 1
    return {"prototypes": len(proto_codes), "crops": total, "top1": right / total if total else None,
            "codes_with_prototypes": len(set(proto_codes))}


def rendered_top1(model_dir: Path, precision: str, data: Path) -> dict:
    """Top-1 on the rendered validation crops of the held-out decks (``vision_models.data.backbone_data`` val), upright."""
    from companion.vision.detector import crops_to_batch
    from companion.vision.models import ModelsManifest, load_model
    from vision_models.data.backbone_data import load

    val = load(data / "val.npz")
    rendered = val["source"] == "rendered"
    manifest = ModelsManifest.load(model_dir)
    model = load_model(manifest.classifier.path_for("onnxruntime", precision), "onnxruntime", allow_batching=True)
    crops, labels = val["crops"][rendered], val["labels"][rendered]
    predicted = np.concatenate([model.run_many(crops_to_batch(list(crops[s:s + 256]))).argmax(1)
                                for s in range(0, len(crops), 256)])
    return {"crops": int(len(crops)), "top1": float((predicted == labels).mean())}


def summarise(readings: list[dict], models: dict[str, tuple[Path, str]], data: Path | None) -> dict:
    from companion.vision.models import CLASSIFIER_CLASSES

    classes = CLASSIFIER_CLASSES
    report = {"classification": {}, "prototypes": {}, "rendered": {}}
    for name in models:
        per_source = classification(readings, name, classes)
        unseen = [per_source[s] for s in UNSEEN_DECKS if s in per_source]
        right, crops = sum(s["right"] for s in unseen), sum(s["crops"] for s in unseen)
        per_source["unseen decks (all)"] = {"right": right, "crops": crops, "top1": right / crops if crops else None}
        report["classification"][name] = per_source
        report["prototypes"][name] = {f"{p} -> {t}": prototype_reading(readings, name, classes, p, t) for p, t in PROTOTYPE_PAIRS}
        if data is not None and (data / "val.npz").exists():
            report["rendered"][name] = rendered_top1(*models[name], data)
    return report


def markdown(report: dict) -> str:
    names = list(report["classification"])
    lines = ["| real index crops (general reading, top-1) | crops | " + " | ".join(names) + " |",
             "|---|---|" + "---|" * len(names)]
    sources = list(report["classification"][names[0]])
    for source in sources:
        cells = [f"{report['classification'][n][source]['top1']:.3f}" for n in names]
        lines.append(f"| {source} | {report['classification'][names[0]][source]['crops']} | " + " | ".join(cells) + " |")
    lines += ["", "| nearest prototype (prototypes -> test) | prototypes / test crops | " + " | ".join(names) + " |",
              "|---|---|" + "---|" * len(names)]
    for pair in report["prototypes"][names[0]]:
        first = report["prototypes"][names[0]][pair]
        cells = [f"{report['prototypes'][n][pair]['top1']:.3f}" if report['prototypes'][n][pair]['top1'] is not None else "–"
                 for n in names]
        lines.append(f"| {pair} | {first['prototypes']} / {first['crops']} | " + " | ".join(cells) + " |")
    if report["rendered"]:
        lines += ["", "| rendered (held-out decks' crops, upright) | crops | " + " | ".join(names) + " |",
                  "|---|---|" + "---|" * len(names)]
        first = report["rendered"][names[0]]
        lines.append(f"| top-1 | {first['crops']} | " + " | ".join(f"{report['rendered'][n]['top1']:.3f}" for n in names) + " |")
    return "\n".join(lines)


def parse_model(text: str) -> tuple[str, tuple[Path, str]]:
    """``NAME=DIR`` or ``NAME=DIR:PRECISION`` (f32, int8 or auto; default f32)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--model wants NAME=WEIGHTS_DIR[:PRECISION], got {text!r}")
    name, rest = text.split("=", 1)
    path, _, precision = rest.partition(":")
    return name, (Path(path), precision or "f32")


def main(argv: list[str] | None = None) -> int:
    from vision_models.data.backbone_data import OUT_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", type=parse_model, required=True,
                        help="NAME=WEIGHTS_DIR[:PRECISION]; the first one's detector finds the boxes")
    parser.add_argument("--source", action="append", default=None, help=f"default: all of {', '.join(CLASSIFY_SOURCES)} and rf100-train")
    parser.add_argument("--rf100-prototype-photos", type=int, default=120)
    parser.add_argument("--data", type=Path, default=OUT_DIR, help="backbone_data's folder (the rendered figure)")
    parser.add_argument("--cache", type=Path, default=None, help="keep the readings here, and re-score from it")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    models = dict(args.model)
    sources = args.source or [*CLASSIFY_SOURCES, "rf100-train"]
    cached = pickle.loads(args.cache.read_bytes()) if args.cache is not None and args.cache.exists() else None
    readings = read_sources(models, sources, rf100_prototype_photos=args.rf100_prototype_photos, cached=cached)
    if args.cache is not None:
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_bytes(pickle.dumps(readings))
    report = summarise(readings, models, args.data)
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
