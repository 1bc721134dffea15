"""The general models (or a learned deck) end to end over every real labelled photo we have, by source.

    python -m vision_models.checks.real_check                       # all sources, a table per source and in total
    python -m vision_models.checks.real_check --source feliksh-scan --json
    python -m vision_models.checks.real_check --jobs 2 --cache var/real-readings.pkl   # re-score later from the cache
    python -m vision_models.checks.real_check --deck NAME [--data DIR]
    python -m vision_models.checks.real_check --source backs-by-eye --tile off

Each photo is read as ``companion detect`` reads it (the shipped models, the closer look on ``auto``)
and scored card by card with the project's scorer (:mod:`companion.vision.evaluation`): card-level
precision, recall and F1, face-down backs alone, and where the errors are (``error_taxonomy``):
cards | counted twice | missed faces | missed backs | misread | phantom faces | phantom backs.

The material (``../shared/datasets/``, never committed; see ``real/README.md`` there):

* ``cardcounterml``: the project's held-out split (:mod:`companion.vision.holdout`), labels box corner
  indices;
* ``rf100-test``, ``rf100-valid``: poker-cards-rf100 as its authors split it, labels box whole cards
  (a reading belongs to the card whose box holds its card centre);
* ``kentdoan-play``: photos of several cards, labelled by the code lists in the README (no places);
* ``camdowless-single``, ``piercebriney-iphone``, ``piercebriney-pi-camera``: one card per photo, its
  code the file name;
* ``feliksh-scan``: a 600 dpi scan of one whole four-index deck, each of the 52 cards once;
* ``webcam-strips``: the val split of a webcam over green felt, whole-card labels naming ranks only
  and ``back``: the readings' codes are compared by rank.

Face-down cards labelled by eye (``BACK_SOURCES``, only by ``--source``; ``vision_models/checks/real_backs.json``, how
they were made in its header): ``backs-by-eye``, every real photo we found showing a back (and the
photos looked at that show none), its backs boxed by eye and its faces scored by its own labels;
``backs-by-eye-unseen``, the same on the photos no network trained on. They share photos with the
sources above (and the development ones), so they are measured on their own, never in the default.

Development sources (``DEV_SOURCES``, only by ``--source``): ``rf100-train`` and ``webcam-strips-train``,
the other splits of the same two sets, where post-processing rules are chosen before they are
measured on the sources above.

Missing material is an error, never skipped: a figure from part of the sources must say so
(``--source``). Readings (the index boxes, their codes, the back boxes) can be kept in ``--cache``:
grouping runs again from them on every call, so a change to :mod:`companion.vision.grouping` is
measured without reading the photos again (the readings themselves change only with the networks).
"""
from __future__ import annotations

import argparse
import json
import pickle
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REAL = Path(__file__).resolve().parents[3] / "shared" / "datasets"
REAL_BACKS = Path(__file__).with_name("real_backs.json")
TAXONOMY = ("cards", "counted_twice", "missed_faces", "missed_backs", "misread", "phantom_faces", "phantom_backs")
# poker-cards-rf100's class names: "10 Diamonds", "A Trefoils" (clubs); "59" is one stray box.
_RF100_SUITS = {"Diamonds": "D", "Hearts": "H", "Spades": "S", "Trefoils": "C"}
_RF100_DROPPED = {"59"}
# Its label files do not number the classes in data.yaml's order: data.yaml lists "10 Diamonds" first
# and "59" 21st, but the labels number "10 Hearts" ... "5 Trefoils" 0-18, the one stray box 19 and
# "10 Diamonds" 20 (the rest agree). Found from the shipped models' readings inside each labelled box
# (2026-12-02, both splits): labels 0-18 read as data.yaml's next name (e.g. label 9, "3 Hearts", holds
# 3S 24 times, 3H never), label 20 ("59") holds 10D 32 times, every other label its own name; checked by
# eye on IMG_20220316_135316 (three spades labelled as hearts, the ace right).
_RF100_MOVED = ("10 Diamonds", "59")
# The webcam strips' classes.txt: ranks by name, and back.
_RANK_WORDS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
               "nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "back": "BACK"}


@dataclass(frozen=True)
class Photo:
    """One real photo and how its labels say what it holds."""

    source: str
    path: Path
    labels: str            # "index", "whole", "codes"
    codes: tuple[str, ...] = ()        # labels "codes": the cards it holds
    label_path: Path | None = None     # labels "index" / "whole": the YOLO file
    names: tuple[str | None, ...] = ()  # the YOLO file's class names as codes (None: dropped)
    ranks_only: bool = False
    # Backs boxed by eye (real_backs.json): they stand for the photo's own back labels, if any.
    eye_backs: tuple[tuple[float, float, float, float], ...] | None = None


def _need(path: Path) -> Path:
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing (real_check reads ../shared/datasets beside the checkout)")
    return path


def _images(folder: Path) -> list[Path]:
    from companion.vision.evaluation import IMAGE_SUFFIXES

    return sorted(p for p in _need(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


def _cardcounterml(root: Path) -> list[Photo]:
    from companion.vision.evaluation import list_images, read_class_names

    names = tuple(read_class_names(_need(root / "data.yaml")))
    return [Photo("cardcounterml", p, "index", label_path=root / "labels" / (p.stem + ".txt"), names=names)
            for p in list_images(root, "holdout")]


def _rf100_names(data_yaml: Path) -> tuple[str | None, ...]:
    import yaml

    names = list(yaml.safe_load(_need(data_yaml).read_text())["names"])
    first, stray = _RF100_MOVED
    if names.index(first) != 0 or names.index(stray) != 20:
        raise ValueError(f"{data_yaml}: not the class list real_check knows how to renumber ({_RF100_MOVED} moved)")
    names = names[1:20] + [stray, first] + names[21:]
    codes = []
    for name in names:
        if name in _RF100_DROPPED:
            codes.append(None)
            continue
        rank, suit = name.split()
        codes.append(rank + _RF100_SUITS[suit])
    return tuple(codes)


def _rf100(root: Path, split: str) -> list[Photo]:
    names = _rf100_names(root / "data.yaml")
    return [Photo(f"rf100-{split}", p, "whole", label_path=root / split / "labels" / (p.stem + ".txt"), names=names)
            for p in _images(root / split / "images")]


def kentdoan_labels(readme: Path) -> dict[str, tuple[str, ...]]:
    """The code lists of ``decks/kentdoan/play/`` from the real folder's README table."""
    rows = re.findall(r"^\|\s*(Cards_\d+\.jpg)\s*\|\s*([^|]+?)\s*\|", _need(readme).read_text(), re.M)
    if not rows:
        raise ValueError(f"{readme}: no table of decks/kentdoan/play labels")
    return {name: tuple(codes.split()) for name, codes in rows}


def _kentdoan(real: Path) -> list[Photo]:
    labels = kentdoan_labels(real / "README.md")
    folder = real / "decks" / "kentdoan" / "play"
    photos = [Photo("kentdoan-play", p, "codes", codes=labels[p.name]) for p in _images(folder) if p.name in labels]
    if len(photos) != len(labels):
        raise FileNotFoundError(f"{folder}: {len(labels)} labelled photos in the README, {len(photos)} found")
    return photos


def _by_file_name(source: str, folder: Path) -> list[Photo]:
    from companion.vision.deck_folder import code_from_filename

    return [Photo(source, p, "codes", codes=(code_from_filename(p),)) for p in _images(folder)]


def _feliksh(real: Path) -> list[Photo]:
    from companion.cards import CLASS_NAMES

    return [Photo("feliksh-scan", _need(real / "decks" / "feliksh" / "whole-deck-scan.jpg"), "codes",
                  codes=tuple(CLASS_NAMES[:52]))]


def _webcam_strips(root: Path, split: str = "val") -> list[Photo]:
    words = [line.strip() for line in _need(root / "classes.txt").read_text().splitlines() if line.strip()]
    names = tuple(_RANK_WORDS[w.lower()] for w in words)
    source = "webcam-strips" if split == "val" else f"webcam-strips-{split}"
    return [Photo(source, p, "whole", label_path=root / split / "labels" / (p.stem + ".txt"), names=names,
                  ranks_only=True)
            for p in _images(root / split / "images")]


def load_real_backs(path: Path = REAL_BACKS) -> list[dict]:
    """The photos of ``real_backs.json``, checked: each a dataset-relative path, its size and its backs'
    boxes, every box inside its photo and not empty, no photo twice. Bad entries are an error, never skipped."""
    photos = json.loads(_need(path).read_text())["photos"]
    seen = set()
    for number, entry in enumerate(photos):
        where = f"{path.name} photo {number} ({entry.get('path')})"
        rel = entry.get("path")
        if not isinstance(rel, str) or rel.startswith("/") or ".." in Path(rel).parts:
            raise ValueError(f"{where}: the path must be relative to the shared datasets folder")
        if rel in seen:
            raise ValueError(f"{where}: listed twice")
        seen.add(rel)
        width, height = entry["size"]
        for box in entry["backs"]:
            x1, y1, x2, y2 = box
            if not (0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height):
                raise ValueError(f"{where}: box {box} does not lie inside its {width}x{height} photo")
    return photos


def _backs_by_eye(datasets: Path, unseen_only: bool = False, path: Path = REAL_BACKS) -> list[Photo]:
    """The photos of ``real_backs.json`` (with ``unseen_only``, those of splits no network trained on),
    each with its own labels for faces and the backs boxed by eye."""
    source = "backs-by-eye-unseen" if unseen_only else "backs-by-eye"
    trained_on = ("cardcounterml-train", "rf100-train", "webcam-strips-train")
    names: dict[str, tuple] = {}
    photos = []
    for entry in load_real_backs(path):
        if unseen_only and entry["split"] in trained_on:
            continue
        image = _need(datasets / entry["path"])
        backs = tuple(tuple(float(v) for v in box) for box in entry["backs"])
        if entry["path"].startswith("cardcounterml/"):
            from companion.vision.evaluation import read_class_names

            root = datasets / "cardcounterml"
            key = "cardcounterml"
            if key not in names:
                names[key] = tuple(read_class_names(_need(root / "data.yaml")))
            photos.append(Photo(source, image, "index", label_path=root / "labels" / (image.stem + ".txt"),
                                names=names[key], eye_backs=backs))
        elif "/poker-cards-rf100/" in entry["path"]:
            key = "rf100"
            if key not in names:
                names[key] = _rf100_names(datasets / "real" / "poker-cards-rf100" / "data.yaml")
            photos.append(Photo(source, image, "whole", label_path=image.parent.parent / "labels" / (image.stem + ".txt"),
                                names=names[key], eye_backs=backs))
        elif "/webcam-strips/" in entry["path"]:
            key = "webcam"
            if key not in names:
                root = datasets / "real" / "backs" / "webcam-strips"
                words = [line.strip() for line in _need(root / "classes.txt").read_text().splitlines() if line.strip()]
                names[key] = tuple(_RANK_WORDS[w.lower()] for w in words)
            photos.append(Photo(source, image, "whole", label_path=image.parent.parent / "labels" / (image.stem + ".txt"),
                                names=names[key], ranks_only=True, eye_backs=backs))
        else:
            raise ValueError(f"{path.name}: {entry['path']}: real_check knows no labels for this folder")
    return photos


SOURCES = {
    "cardcounterml": lambda d: _cardcounterml(d / "cardcounterml"),
    "rf100-test": lambda d: _rf100(d / "real" / "poker-cards-rf100", "test"),
    "rf100-valid": lambda d: _rf100(d / "real" / "poker-cards-rf100", "valid"),
    "kentdoan-play": lambda d: _kentdoan(d / "real"),
    "camdowless-single": lambda d: _by_file_name("camdowless-single", d / "real" / "decks" / "camdowless" / "single-photos"),
    "piercebriney-iphone": lambda d: _by_file_name("piercebriney-iphone", d / "real" / "decks" / "piercebriney" / "iphone"),
    "piercebriney-pi-camera": lambda d: _by_file_name("piercebriney-pi-camera",
                                                      d / "real" / "decks" / "piercebriney" / "pi-camera"),
    "feliksh-scan": lambda d: _feliksh(d / "real"),
    "webcam-strips": lambda d: _webcam_strips(d / "real" / "backs" / "webcam-strips"),
}
# Development photos: real, labelled, and no shipped network trained on them, but kept out of the
# figure above (and out of the default) because post-processing rules are chosen on them: a rule is
# then measured on SOURCES, which it was not chosen on.
DEV_SOURCES = {
    "rf100-train": lambda d: _rf100(d / "real" / "poker-cards-rf100", "train"),
    "webcam-strips-train": lambda d: _webcam_strips(d / "real" / "backs" / "webcam-strips", "train"),
}
BACK_SOURCES = {
    "backs-by-eye": lambda d: _backs_by_eye(d),
    "backs-by-eye-unseen": lambda d: _backs_by_eye(d, unseen_only=True),
}


def photos_of(sources: list[str], datasets: Path = REAL) -> list[Photo]:
    known = {**SOURCES, **DEV_SOURCES, **BACK_SOURCES}
    unknown = [s for s in sources if s not in known]
    if unknown:
        raise ValueError(f"unknown source(s) {', '.join(unknown)}: choose from {', '.join(known)}")
    return [photo for source in sources for photo in known[source](datasets)]


def truth_of(photo: Photo, width: int, height: int):
    """The photo's labelled cards (a list of TruthCard), or None where the labels give codes only."""
    from companion.vision.evaluation import LabelledBox, group_truth, read_labels, whole_cards

    if photo.labels == "codes":
        return None
    # read_labels wants names for every class; dropped classes are read under a placeholder and left out
    placeholder = "BACK"
    boxes = read_labels(photo.label_path, [n or placeholder for n in photo.names], width, height)
    dropped = {k for k, n in enumerate(photo.names) if n is None}
    if dropped:
        classes = [int(line.split()[0]) for line in photo.label_path.read_text().splitlines() if line.split()]
        boxes = [b for b, cls in zip(boxes, classes) if cls not in dropped]
    eye = []
    if photo.eye_backs is not None:   # the backs boxed by eye stand for the photo's own back labels
        boxes = [b for b in boxes if b.code != "BACK"]
        eye = whole_cards([LabelledBox("BACK", box) for box in photo.eye_backs])
    if photo.labels == "index":
        return group_truth(boxes) + eye
    return whole_cards([LabelledBox(b.code, b.box) for b in boxes]) + eye


# -- reading -----------------------------------------------------------------------------------------

def read_photo(detector, photo: Photo) -> dict:
    """What the networks gave for one photo: everything grouping needs, and the labels."""
    from companion.vision import load_image

    frame = load_image(photo.path)
    start = time.perf_counter()
    reading = detector.read(frame)
    ms = (time.perf_counter() - start) * 1000
    # as Detector.read groups: with a learned back the shape of a face-down box is not asked
    shape_check = False if detector.deck is not None and detector.deck.back is not None else None
    return {"source": photo.source, "name": photo.path.name, "shape": frame.shape[:2], "indices": reading.indices,
            "backs": reading.backs, "shape_check": shape_check, "ms": ms}


_worker = None


def _start_worker(options: dict) -> None:
    global _worker
    _worker = _load_detector(**options)


def _read_in_worker(photo: Photo) -> dict:
    return read_photo(_worker, photo)


def _load_detector(deck: str | None = None, data: str | None = None, weights: str | None = None, threads: int = 1,
                   conf: float | None = None, back_conf: float | None = None, tile: str = "auto"):
    from companion.vision import Detector
    from companion.vision.decks.store import load_deck

    return Detector.load(weights, tile=tile, threads=threads, conf=conf, back_conf=back_conf).with_deck(load_deck(deck, data))


def read_all(photos: list[Photo], jobs: int = 1, progress=None, **options) -> list[dict]:
    if jobs <= 1:
        detector = _load_detector(**options)
        readings = []
        for n, photo in enumerate(photos, 1):
            readings.append(read_photo(detector, photo))
            if progress:
                progress(n, len(photos))
        return readings
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")   # see companion.vision.evaluation.evaluate_folder
    readings = []
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker, initargs=(options,)) as pool:
        for n, reading in enumerate(pool.map(_read_in_worker, photos, chunksize=2), 1):
            readings.append(reading)
            if progress:
                progress(n, len(photos))
    return readings


# -- scoring -------------------------------------------------------------------------------------------

def cards_of(reading: dict, **grouping):
    """The reading grouped into cards, as ``Detector.read`` groups a photo (``grouping``: group_cards' options)."""
    from companion.vision.grouping import group_cards

    options = {"check_back_shape": reading["shape_check"], **grouping}
    return group_cards(reading["indices"], reading["backs"], reading["shape"], **options)


def score_reading(photo: Photo, reading: dict, **grouping):
    """One photo's readings grouped and scored against its labels."""
    from companion.vision.evaluation import rank_only, score_codes, score_image

    cards = cards_of(reading, **grouping)
    height, width = reading["shape"]
    truth = truth_of(photo, width, height)
    if truth is None:
        score = score_codes(reading["name"], list(photo.codes), list(cards.codes))
    else:
        score = score_image(reading["name"], truth, cards, read_as=rank_only if photo.ranks_only else None)
    score.ms = reading["ms"]
    return score


def summary_of(scores) -> dict:
    from companion.vision.evaluation import error_taxonomy, summarise

    summary = summarise(scores)
    taxonomy = error_taxonomy(scores)
    backs = summary["per_class"].get("BACK", {"tp": 0, "fp": 0, "fn": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0})
    return {"photos": len(scores), "cards": summary["overall"], "backs": backs, "errors": taxonomy,
            "counted_twice_share": round(taxonomy["counted_twice"] / max(taxonomy["cards"], 1), 4),
            "median_ms": summary["median_ms"], "worst_images": summary["worst_images"][:5]}


def check(photos: list[Photo], readings: list[dict], **grouping) -> dict:
    """Per source and in total: the summary of :func:`summary_of`."""
    by_name = {(p.source, p.path.name): p for p in photos}
    per_source: dict[str, list] = {}
    for reading in readings:
        photo = by_name[reading["source"], reading["name"]]
        per_source.setdefault(photo.source, []).append(score_reading(photo, reading, **grouping))
    result = {source: summary_of(scores) for source, scores in per_source.items()}
    result["total"] = summary_of([s for scores in per_source.values() for s in scores])
    return result


def table(result: dict) -> str:
    lines = ["| source | photos | cards | P | R | F1 | backs P / R | counted twice | missed faces | missed backs | "
             "misread | phantom faces | phantom backs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for source, s in result.items():
        c, b, e = s["cards"], s["backs"], s["errors"]
        backs = f"{b['precision']:.2f} / {b['recall']:.2f} ({b['tp']}/{b['fp']}/{b['fn']})" if b["tp"] + b["fp"] + b["fn"] else "–"
        name = f"**{source}**" if source == "total" else source
        lines.append(f"| {name} | {s['photos']} | {e['cards']} | {c['precision']:.3f} | {c['recall']:.3f} | **{c['f1']:.3f}** | "
                     f"{backs} | {e['counted_twice']} ({100 * s['counted_twice_share']:.1f} %) | {e['missed_faces']} | "
                     f"{e['missed_backs']} | {e['misread']} | {e['phantom_faces']} | {e['phantom_backs']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--source", action="append", choices=[*SOURCES, *DEV_SOURCES, *BACK_SOURCES], metavar="NAME",
                        help=f"only this source (repeatable; default all: {', '.join(SOURCES)}; development photos, "
                             f"never in the default: {', '.join(DEV_SOURCES)}; backs labelled by eye, on their own: "
                             f"{', '.join(BACK_SOURCES)})")
    parser.add_argument("--deck", metavar="NAME", help="read with a deck learned by `companion deck learn`")
    parser.add_argument("--data", metavar="DIR", help="data folder holding learned decks")
    parser.add_argument("--weights", metavar="DIR", help="folder with models.json and the ONNX files")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="read in N worker processes (default 1)")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="inference threads per process (default 2 with one job, 1 per job with more)")
    parser.add_argument("--conf", type=float, metavar="P", help="index threshold to read at (default models.json's)")
    parser.add_argument("--back-conf", type=float, metavar="P", help="back threshold to read at (default models.json's)")
    parser.add_argument("--lone-floor", type=float, metavar="P",
                        help="group with this floor for a card read from one index (grouping.LONE_CARD_MIN_CONFIDENCE; "
                             "the readings, and a --cache of them, are the same for any floor; set, it is every "
                             "photo's floor, four-index decks' too)")
    parser.add_argument("--four-index-floor", type=float, metavar="P",
                        help="group with this floor for a card read from one index in a photo where three or four "
                             "corners of one card were joined (grouping.FOUR_INDEX_LONE_CARD_MIN_CONFIDENCE)")
    parser.add_argument("--tile", default="auto", metavar="MODE",
                        help="the closer look as `companion detect --tile` takes it: auto (default), off or a window in pixels")
    parser.add_argument("--cache", type=Path, metavar="FILE",
                        help="keep the readings here and reuse them when the file exists (grouping runs anew)")
    parser.add_argument("--datasets", type=Path, default=REAL, help="the shared datasets folder (default ../shared/datasets)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    from companion.vision.detector import parse_tile

    try:
        parse_tile(args.tile)
    except ValueError as error:
        parser.error(str(error))
    sources = args.source or list(SOURCES)
    try:
        photos = photos_of(sources, args.datasets)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    options = {"deck": args.deck, "data": args.data, "weights": args.weights,
               "threads": args.threads or (2 if args.jobs == 1 else 1)}
    if args.conf is not None or args.back_conf is not None:   # older caches hold neither
        options.update(conf=args.conf, back_conf=args.back_conf)
    if args.tile != "auto":   # nor this
        options["tile"] = args.tile
    wanted = {(p.source, p.path.name) for p in photos}
    readings = None
    if args.cache is not None and args.cache.exists():
        cached = pickle.loads(args.cache.read_bytes())
        if cached.get("options") != {k: v for k, v in options.items() if k != "threads"}:
            print(f"error: {args.cache} holds readings made with {cached.get('options')}; "
                  "remove it or name another --cache", file=sys.stderr)
            return 1
        readings = [r for r in cached["readings"] if (r["source"], r["name"]) in wanted]
        missing = wanted - {(r["source"], r["name"]) for r in readings}
        if missing:
            print(f"error: {args.cache} lacks {len(missing)} of these photos; remove it to read them all", file=sys.stderr)
            return 1
    if readings is None:
        def progress(n, total):
            if not args.json:
                print(f"\rread {n}/{total}", end="", file=sys.stderr, flush=True)
        started = time.time()
        readings = read_all(photos, args.jobs, progress, **options)
        if not args.json:
            print(f"\rread {len(readings)} photos in {time.time() - started:.0f} s", file=sys.stderr)
        if args.cache is not None:
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            args.cache.write_bytes(pickle.dumps({"options": {k: v for k, v in options.items() if k != "threads"},
                                                 "readings": readings}))
    grouping = {} if args.lone_floor is None else {"min_lone_confidence": args.lone_floor}
    if args.four_index_floor is not None:
        grouping["four_index_lone_confidence"] = args.four_index_floor
    result = check(photos, readings, **grouping)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(table(result))
        times = [r["ms"] for r in readings]
        print(f"\n{len(readings)} photos; median {statistics.median(times):.0f} ms per photo as read "
              f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
