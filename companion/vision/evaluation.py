"""Card-level scoring of the recogniser on labelled photos (the cardcounterml / YOLO folder layout).

Layout: ``DIR/images/*.jpg``, ``DIR/labels/<same stem>.txt`` (YOLO lines ``class cx cy w h`` in 0…1,
or a polygon ``class x1 y1 x2 y2 …`` whose bounding box is taken), ``DIR/data.yaml`` with ``names``.

What counts (the rules, so the figures can be argued with):

* **Ground-truth cards.** Labels box corner indices (and whole face-down cards). Two labelled boxes
  of the same code whose centres are at most ``GT_PAIR_SPAN`` index scales apart (about a card
  diagonal; scale = the longer side of the box, as in :mod:`companion.vision.grouping`) are the two
  corners of one card; pairs are taken closest first, each box once. Every other labelled box is a card of its own; every ``BACK`` box is one card.
* **Where a prediction is.** A predicted card is *at* a ground-truth card when its box contains
  one of that card's labelled index centres, or its estimated centre lies within
  ``MATCH_RADIUS`` index scales of one (a correctly read lone corner puts the centre about 2.25
  scales away from it).
* **Matching**, one-to-one, nearest first: first predictions at a ground-truth card with the same
  code (true positives); then, among what is left, predictions at a ground-truth card with another
  code (a *confusion*: one false positive and one miss, listed as ``truth → predicted``); everything
  still left is a miss (false negative) or a false positive.
* Photos often label only one corner per card, and some visible cards carry no label at all, so a
  few "false positives" are real cards nobody labelled: read the examples before trusting the count.
"""
from __future__ import annotations

import math
import re
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.cards import RANK_NAMES, Card, InvalidCardError
from companion.messages import Message, MessageError
from companion.vision.detections import Detections
from companion.vision.frames import load_image
from companion.vision.holdout import is_holdout

GT_PAIR_SPAN = 6.5
MATCH_RADIUS = 3.0
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
# Names other datasets use for our codes.
NAME_ALIASES = {"RED JOKER": "BJ", "BLACK JOKER": "SJ", "BIG JOKER": "BJ", "SMALL JOKER": "SJ", "JOKER": "BJ"}


class LabelledFolderError(MessageError, ValueError):
    """A labelled folder that cannot be scored as it is (no data.yaml, no images, a label line that is none); its
    message names the file and says why, translated where shown (``companion evaluate DIR``)."""


# The split's one rule lives in companion.vision.holdout; ``holdout_rule`` is its older name here.
holdout_rule = is_holdout


def code_for_name(name: str) -> str:
    text = str(name).strip().upper()
    try:
        return Card.parse(NAME_ALIASES.get(text, text)).code
    except InvalidCardError:
        raise LabelledFolderError(Message("data.yaml class %(name)s is not a card this project knows", name=repr(name))) from None


def read_class_names(data_yaml: Path) -> list[str]:
    """The ``names`` of a YOLO data.yaml (flow list, block list or index mapping), as card codes."""
    if not data_yaml.is_file():
        raise LabelledFolderError(Message("%(file)s: missing (a labelled folder needs data.yaml with the class names)", file=str(data_yaml)))
    text = data_yaml.read_text()
    try:
        import yaml  # present wherever ultralytics is; the small parser below covers the rest

        names = yaml.safe_load(text).get("names")
    except ImportError:
        names = _parse_names(text)
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names, key=int)]
    if not names:
        raise LabelledFolderError(Message("%(file)s: no 'names' list", file=str(data_yaml)))
    return [code_for_name(n) for n in names]


def _parse_names(text: str) -> list[str] | dict | None:
    flow = re.search(r"^names:\s*\[(.*?)\]", text, re.M | re.S)
    if flow:
        return [item.strip().strip("'\"") for item in flow.group(1).split(",") if item.strip()]
    block = re.search(r"^names:\s*\n((?:[ \t]+.*\n?)+)", text, re.M)
    if not block:
        return None
    lines = [line.strip() for line in block.group(1).splitlines() if line.strip()]
    if all(line.startswith("- ") for line in lines):
        return [line[2:].strip().strip("'\"") for line in lines]
    return {int(k): v.strip().strip("'\"") for k, v in (line.split(":", 1) for line in lines)}


@dataclass(frozen=True)
class LabelledBox:
    code: str
    box: tuple[float, float, float, float]  # pixels

    @property
    def center(self) -> np.ndarray:
        return np.array([(self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2])

    @property
    def scale(self) -> float:
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1], 1e-6)


@dataclass(frozen=True)
class TruthCard:
    """One labelled card: its code and its labelled corner indices, or (``whole``) one box around the whole card."""

    code: str
    parts: tuple[LabelledBox, ...]
    whole: bool = False

    @property
    def scale(self) -> float:
        return float(np.mean([p.scale for p in self.parts]))


def whole_cards(boxes: list[LabelledBox]) -> list[TruthCard]:
    """Labels that box whole cards (poker-cards-rf100, the webcam strips): each box is one card."""
    return [TruthCard(box.code, (box,), whole=True) for box in boxes]


def read_labels(label_path: Path, names: list[str], width: int, height: int) -> list[LabelledBox]:
    boxes = []
    if not label_path.is_file():
        return boxes
    for number, line in enumerate(label_path.read_text().splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            cls, values = int(fields[0]), [float(v) for v in fields[1:]]
        except ValueError:
            raise LabelledFolderError(Message("%(file)s:%(line)s: not a YOLO label line: %(text)s", file=str(label_path), line=number,
                                              text=repr(line))) from None
        if not 0 <= cls < len(names):
            raise LabelledFolderError(Message("%(file)s:%(line)s: class %(number)s outside data.yaml's %(count)s names",
                                              file=str(label_path), line=number, number=cls, count=len(names)))
        if len(values) == 4:
            cx, cy, w, h = values
            x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
        elif len(values) >= 6 and len(values) % 2 == 0:  # a polygon: take its bounding box
            xs, ys = values[0::2], values[1::2]
            x1, y1, x2, y2 = min(xs), min(ys), max(xs), max(ys)
        else:
            raise LabelledFolderError(Message("%(file)s:%(line)s: expected 4 box values or a polygon, got %(count)s numbers",
                                              file=str(label_path), line=number, count=len(values)))
        boxes.append(LabelledBox(names[cls], (x1 * width, y1 * height, x2 * width, y2 * height)))
    return boxes


def group_truth(boxes: list[LabelledBox]) -> list[TruthCard]:
    """Labelled boxes → ground-truth cards (see the module's rules)."""
    cards: list[TruthCard] = []
    by_code: dict[str, list[LabelledBox]] = defaultdict(list)
    for box in boxes:
        if box.code == "BACK":
            cards.append(TruthCard("BACK", (box,)))
        else:
            by_code[box.code].append(box)
    for code, group in by_code.items():
        pairs = []
        for i in range(len(group)):
            for j in range(i + 1, len(group)):
                distance = float(np.linalg.norm(group[i].center - group[j].center))
                if distance <= GT_PAIR_SPAN * (group[i].scale + group[j].scale) / 2:
                    pairs.append((distance, i, j))
        used: set[int] = set()
        for _, i, j in sorted(pairs):
            if i not in used and j not in used:
                used.update((i, j))
                cards.append(TruthCard(code, (group[i], group[j])))
        cards.extend(TruthCard(code, (box,)) for k, box in enumerate(group) if k not in used)
    return cards


def _inside(point: np.ndarray, box) -> bool:
    return bool(box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3])


def _distance_if_at(prediction_box: np.ndarray, prediction_centre: np.ndarray, truth: TruthCard,
                    other_centre: np.ndarray | None = None) -> float | None:
    """Normalised distance from a prediction to a ground-truth card, or None when it is not at that card.

    A whole-card label holds a prediction whose centre lies inside its box, or whose other centre
    does (a lone index read facing the wrong way puts the centre on its far side): the distance is
    then from the box's centre, in the box's longer side.
    """
    if truth.whole:
        box = truth.parts[0].box
        scale = truth.parts[0].scale
        centres = [prediction_centre] + ([other_centre] if other_centre is not None and np.isfinite(other_centre).all() else [])
        inside = [float(np.linalg.norm(c - truth.parts[0].center)) / scale for c in centres if _inside(c, box)]
        return min(inside) if inside else None
    best = None
    for part in truth.parts:
        centre = part.center
        distance = float(np.linalg.norm(prediction_centre - centre)) / part.scale
        inside = prediction_box[0] <= centre[0] <= prediction_box[2] and prediction_box[1] <= centre[1] <= prediction_box[3]
        if inside or distance <= MATCH_RADIUS:
            best = distance if best is None else min(best, distance)
    return best


@dataclass
class ImageScore:
    image: str
    true_positives: list[str] = field(default_factory=list)
    confusions: list[tuple[str, str]] = field(default_factory=list)  # (truth, predicted)
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)
    ms: float = 0.0
    false_positive_rows: list[int] = field(default_factory=list)   # which of the predictions they were
    found_rows: list[int] = field(default_factory=list)   # which of the truth cards were read right

    @property
    def errors(self) -> int:
        return len(self.confusions) * 2 + len(self.misses) + len(self.false_positives)


def rank_only(code: str) -> str:
    """A code as labels that name ranks only read it (the webcam strips): ``10H`` → ``10``; jokers and BACK stay."""
    card = Card.parse(code)
    return RANK_NAMES[card.rank - 1] if card.rank is not None else card.code


def score_image(image: str, truth: list[TruthCard], predicted: Detections, read_as=None) -> ImageScore:
    """Match one photo's predicted cards to its labelled cards (the module's rules).

    ``read_as`` maps each predicted code before it is compared (e.g. :func:`rank_only` where the labels
    name ranks only)."""
    score = ImageScore(image)
    codes = [read_as(c) for c in predicted.codes] if read_as is not None else list(predicted.codes)
    other = predicted.other_centers
    distances = {}
    for p in range(len(predicted)):
        for t, card in enumerate(truth):
            d = _distance_if_at(predicted.boxes[p], predicted.centers[p], card, other[p])
            if d is not None:
                distances[p, t] = d
    free_p, free_t = set(range(len(predicted))), set(range(len(truth)))
    for same_code in (True, False):
        for (p, t), _ in sorted(distances.items(), key=lambda item: item[1]):
            if p not in free_p or t not in free_t:
                continue
            if (codes[p] == truth[t].code) != same_code:
                continue
            free_p.discard(p)
            free_t.discard(t)
            if same_code:
                score.true_positives.append(truth[t].code)
                score.found_rows.append(t)
            else:
                score.confusions.append((truth[t].code, codes[p]))
    score.misses = sorted(truth[t].code for t in free_t)
    score.false_positives = sorted(codes[p] for p in free_p)
    score.false_positive_rows = sorted(free_p)
    return score


def _share_rank_or_suit(a: str, b: str) -> bool:
    try:
        first, second = Card.parse(a), Card.parse(b)
    except InvalidCardError:   # rank-only codes: nothing but the rank to share
        return a == b
    return (first.rank is not None and first.rank == second.rank) or (first.suit is not None and first.suit is second.suit)


def score_codes(image: str, truth: list[str], predicted: list[str]) -> ImageScore:
    """Score a photo whose labels list its cards without saying where they lie (one code per card).

    Each code is matched by count: as many right as it is both read and there. A code read but not
    there is a confusion with a code there but not read (a misread), a shared rank or suit first
    (a misread keeps one of them more often than not), as long as both remain; what is left over is
    missed or false.
    """
    score = ImageScore(image)
    wanted, seen = Counter(truth), Counter(predicted)
    for code in sorted(set(wanted) & set(seen)):
        score.true_positives += [code] * min(wanted[code], seen[code])
    missing = sorted((wanted - seen).elements())
    extra = sorted(code for code in (seen - wanted).elements() if code not in wanted)
    surplus = sorted(code for code in (seen - wanted).elements() if code in wanted)
    for alike in (True, False):
        for wrong in list(extra):
            partner = next((m for m in missing if alike is False or _share_rank_or_suit(m, wrong)), None)
            if partner is not None and (wrong != "BACK") == (partner != "BACK"):
                missing.remove(partner)
                extra.remove(wrong)
                score.confusions.append((partner, wrong))
    score.misses = missing
    score.false_positives = sorted(extra + surplus)
    return score


def error_taxonomy(scores: list[ImageScore]) -> dict:
    """Where the errors are, photo by photo: each labelled card is right, misread or missed, and each
    false reading is a card counted twice or a phantom.

    * **counted twice**: a face code read more often than it is there (the surplus of a code the photo
      holds, up to its false readings): two readings of one card that the grouping left apart;
    * **misread**: a wrong code where a labelled card was not read right (a confusion);
    * **missed faces / backs**: labelled cards nothing was read at;
    * **phantom faces / backs**: the other false readings (a code the photo does not hold, or a code
      it holds read at a place none lies; every false back).

    ``cards`` = right + misread + missed faces + missed backs; precision's false positives = counted
    twice + misread + phantom faces + phantom backs.
    """
    totals = Counter()
    for s in scores:
        truth = Counter(s.true_positives) + Counter(t for t, _ in s.confusions) + Counter(s.misses)
        read = Counter(s.true_positives) + Counter(p for _, p in s.confusions) + Counter(s.false_positives)
        false = Counter(s.false_positives)
        twice = sum(min(false[c], max(0, read[c] - truth[c])) for c in false if c != "BACK" and truth[c])
        totals["cards"] += sum(truth.values())
        totals["right"] += len(s.true_positives)
        totals["counted_twice"] += twice
        totals["misread"] += len(s.confusions)
        totals["missed_faces"] += sum(1 for c in s.misses if c != "BACK")
        totals["missed_backs"] += sum(1 for c in s.misses if c == "BACK")
        totals["phantom_backs"] += false["BACK"]
        totals["phantom_faces"] += sum(false.values()) - false["BACK"] - twice
    keys = ("cards", "right", "counted_twice", "missed_faces", "missed_backs", "misread", "phantom_faces", "phantom_backs")
    return {k: totals[k] for k in keys}


def _code_order(code: str) -> tuple:
    """Cards in the card model's order, BACK last; rank-only codes (``K``) by rank."""
    if code in RANK_NAMES:
        return (False, 0, RANK_NAMES.index(code))
    card = Card.parse(code)
    return (code == "BACK", 1, card.kind.value, card.rank or 0, card.suit.value if card.suit else "")


def _prf(tp: int, fp: int, fn: int) -> dict:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def summarise(scores: list[ImageScore]) -> dict:
    tp, fp, fn = Counter(), Counter(), Counter()
    confusions = Counter()
    for s in scores:
        tp.update(s.true_positives)
        fn.update(s.misses)
        fp.update(s.false_positives)
        for truth, predicted in s.confusions:
            confusions[truth, predicted] += 1
            fn[truth] += 1
            fp[predicted] += 1
    codes = sorted(set(tp) | set(fp) | set(fn), key=_code_order)
    timings = [s.ms for s in scores]
    return {
        "images": len(scores),
        "overall": _prf(sum(tp.values()), sum(fp.values()), sum(fn.values())),
        "per_class": {c: _prf(tp[c], fp[c], fn[c]) for c in codes},
        "confusions": [{"truth": t, "predicted": p, "count": n} for (t, p), n in confusions.most_common()],
        "misses": sum(len(s.misses) for s in scores),
        "false_positives": sum(len(s.false_positives) for s in scores),
        "confused": sum(confusions.values()),
        "median_ms": round(statistics.median(timings), 1) if timings else None,
        "worst_images": [
            {"image": s.image, "errors": s.errors, "confusions": [f"{t}->{p}" for t, p in s.confusions],
             "misses": s.misses, "false_positives": s.false_positives}
            for s in sorted(scores, key=lambda s: -s.errors)[:10] if s.errors
        ],
    }


def list_images(root: Path, split: str) -> list[Path]:
    if split not in ("holdout", "all"):
        raise LabelledFolderError(Message("unknown split %(split)s: choose holdout or all", split=repr(split)))
    images_dir = root / "images"
    if not images_dir.is_dir():
        raise LabelledFolderError(Message("%(folder)s: no images/ folder (expected images/, labels/ and data.yaml)", folder=str(root)))
    images = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if split == "holdout":
        images = [p for p in images if is_holdout(p.name)]
    if not images:
        raise LabelledFolderError(Message("%(folder)s: no images to score with --split %(split)s", folder=str(root), split=repr(split)))
    return images


def load_scene(root: Path, names: list[str], paths: list[Path]) -> tuple[np.ndarray, list[TruthCard]]:
    """One photo, or a square mosaic of several: the frame and its ground-truth cards.

    A mosaic of k×k photos is the same cards seen from k times farther away in a k times larger
    frame (each photo in a cell the size of the largest, top-left, the rest black): what a whole
    table or a high-resolution photo does to the indices' size relative to the frame.
    """
    frames = [load_image(path) for path in paths]
    side = math.isqrt(len(frames))
    if side * side != len(frames):
        raise ValueError(f"a mosaic needs a square number of photos, got {len(frames)}")
    cell_h, cell_w = max(f.shape[0] for f in frames), max(f.shape[1] for f in frames)
    canvas = frames[0] if side == 1 else np.zeros((cell_h * side, cell_w * side, 3), np.uint8)
    boxes: list[LabelledBox] = []
    for n, (path, frame) in enumerate(zip(paths, frames)):
        top, left = (n // side) * cell_h, (n % side) * cell_w
        if side > 1:
            canvas[top:top + frame.shape[0], left:left + frame.shape[1]] = frame
        for box in read_labels(root / "labels" / (path.stem + ".txt"), names, frame.shape[1], frame.shape[0]):
            x1, y1, x2, y2 = box.box
            boxes.append(LabelledBox(box.code, (x1 + left, y1 + top, x2 + left, y2 + top)))
    return canvas, group_truth(boxes)


def _score_photo(detector, root: Path, names: list[str], paths: list[Path]) -> ImageScore:
    frame, truth = load_scene(root, names, paths)
    start = time.perf_counter()
    predicted = detector(frame)
    elapsed = (time.perf_counter() - start) * 1000
    score = score_image("+".join(path.name for path in paths), truth, predicted)
    score.ms = elapsed
    return score


_worker_detector = None


def _start_worker(load_options: dict) -> None:
    global _worker_detector
    from companion.vision.detector import Detector

    from companion.vision.decks.store import load_deck

    options = dict(load_options)
    deck = load_deck(options.pop("deck", None), options.pop("data", None))
    _worker_detector = Detector.load(**options).with_deck(deck)


def _score_in_worker(job: tuple[Path, list[str], list[Path]]) -> ImageScore:
    return _score_photo(_worker_detector, *job)


def evaluate_folder(detector, root: str | Path, split: str = "holdout", limit: int | None = None,
                    progress=None, jobs: int = 1, load_options: dict | None = None, mosaic: int = 1) -> dict:
    """Run ``detector`` (frame → Detections) over a labelled folder and score it card by card.

    With ``jobs`` > 1, that many worker processes each load their own detector from
    ``load_options`` (the keyword arguments of :meth:`Detector.load`) and share the photos.
    With ``mosaic`` k > 1, consecutive photos are scored k×k at a time as one frame
    (:func:`load_scene`); a remainder that cannot fill a mosaic is left out.
    """
    root = Path(root)
    if mosaic < 1:
        raise LabelledFolderError(Message("--mosaic must be at least 1, got %(n)s", n=mosaic))
    names = read_class_names(root / "data.yaml")
    images = list_images(root, split)
    if limit is not None:
        images = images[:limit]
    per_scene = mosaic * mosaic
    scenes = [images[n:n + per_scene] for n in range(0, len(images) - per_scene + 1, per_scene)]
    if not scenes:
        raise LabelledFolderError(Message("%(count)s photos cannot fill one %(side)s×%(side)s mosaic", count=len(images), side=mosaic))
    scores = []
    if jobs > 1:
        if load_options is None:
            raise ValueError("parallel evaluation needs load_options to build a detector in each worker")
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # "spawn", not fork: a forked child of a process whose inference runtime already started its
        # thread pool (OpenVINO does) can hang for ever.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker, initargs=(load_options,)) as pool:
            for n, score in enumerate(pool.map(_score_in_worker, [(root, names, scene) for scene in scenes], chunksize=4), 1):
                scores.append(score)
                if progress is not None:
                    progress(n, len(scenes))
    else:
        for n, scene in enumerate(scenes, 1):
            scores.append(_score_photo(detector, root, names, scene))
            if progress is not None:
                progress(n, len(scenes))
    summary = summarise(scores)
    summary["split"] = split
    summary["folder"] = str(root)
    summary["mosaic"] = mosaic
    summary["truth_cards"] = summary["overall"]["tp"] + summary["overall"]["fn"]
    return summary


def markdown_report(summary: dict, command: str, models_note: str = "", when: str | None = None) -> str:
    when = when or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    overall = summary["overall"]
    k = summary.get("mosaic", 1)
    scenes = "photos" if k == 1 else f"frames, each a {k}×{k} mosaic of photos ({k}× farther away)"
    lines = [
        "# Recognition evaluation", "",
        f"- Command: `{command}`",
        f"- Date: {when}",
        f"- Folder: `{summary['folder']}`, split **{summary['split']}**: {summary['images']} {scenes}, "
        f"{summary['truth_cards']} ground-truth cards",
    ]
    if models_note:
        lines.append(f"- Models: {models_note}")
    if summary.get("median_ms") is not None:
        lines.append(f"- Median time per photo (decoded image → cards, as run here): {summary['median_ms']} ms")
    lines += [
        "", "## Card-level result", "",
        "| precision | recall | F1 | true positives | false positives | misses | of which confusions |",
        "|---|---|---|---|---|---|---|",
        f"| {overall['precision']:.3f} | {overall['recall']:.3f} | **{overall['f1']:.3f}** | {overall['tp']} | "
        f"{overall['fp']} | {overall['fn']} | {summary['confused']} |",
        "", "Target from the issue: F1 ≥ 0.95 on real photos of unseen decks and tables.", "",
        "## Top confusions (truth → predicted, matched by position)", "",
    ]
    if summary["confusions"]:
        lines += ["| truth | predicted | count |", "|---|---|---|"]
        lines += [f"| {c['truth']} | {c['predicted']} | {c['count']} |" for c in summary["confusions"][:15]]
    else:
        lines.append("None.")
    lines += ["", "## Per class", "", "| code | precision | recall | F1 | tp | fp | fn |", "|---|---|---|---|---|---|---|"]
    for code, m in summary["per_class"].items():
        lines.append(f"| {code} | {m['precision']:.2f} | {m['recall']:.2f} | {m['f1']:.2f} | {m['tp']} | {m['fp']} | {m['fn']} |")
    lines += ["", "## Photos with the most errors", ""]
    for w in summary["worst_images"]:
        parts = []
        if w["confusions"]:
            parts.append("confused " + ", ".join(w["confusions"]))
        if w["misses"]:
            parts.append("missed " + " ".join(w["misses"]))
        if w["false_positives"]:
            parts.append("false " + " ".join(w["false_positives"]))
        lines.append(f"- `{w['image']}`: " + "; ".join(parts))
    lines += ["", "## How it is scored", "", _RULES_TEXT]
    return "\n".join(lines) + "\n"


_RULES_TEXT = (
    "Ground truth: labelled boxes of the same code within "
    f"{GT_PAIR_SPAN:g} index sizes (the longer side of a box) of each other are the two corners of one card; every other box is a "
    "card of its own; BACK boxes are face-down cards. A prediction is at a ground-truth card when its box contains "
    f"one of the card's labelled index centres or its centre lies within {MATCH_RADIUS:g} index sizes of one. "
    "Matching is one-to-one, nearest first: same code first (true positives), then a different code (a confusion, "
    "counted as one false positive and one miss); the rest are misses and false positives. The labels often mark "
    "only one corner per card and sometimes skip a card, so some false positives are unlabelled real cards. "
    "Implementation: `companion/vision/evaluation.py`."
)
