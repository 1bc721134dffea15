"""Index boxes for real photos labelled only by whole cards, kept where the card's known code agrees.

poker-cards-rf100's train split and the webcam strips' train split box every card whole, with its code
(the strips: its rank) or ``back``; the detector learns corner indices. Each photo is read by the shipped
networks at a low index threshold and twice (the whole frame with its closer look, and 2x2 overlapping
windows at about twice the scale), and an index box becomes a training label only when the classifier's
code for it is the code of a labelled card whose box holds the index's centre (ranks only for the
strips) and the classifier is at least ``VERIFY_CONFIDENCE`` sure. Backs keep their whole-card boxes.

A card none of whose indices is verified keeps no label, so its index teaches "background"; the
coverage (cards with at least one verified index) is written beside the labels and in the model card.

    python -m vision_models.data.real_labels                    # both sources into var/data/real_labels/
    python -m vision_models.data.real_labels --source rf100-train --limit 20

Only development sources (``real_check.DEV_SOURCES``) are labelled: the measured splits stay unseen.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "var" / "data" / "real_labels"
SOURCES = ("rf100-train", "webcam-strips-train")
# A low index threshold: a proposal costs nothing here, since the known code, not the detector, decides.
PROPOSAL_CONF = 0.15
# The classifier's confidence a proposal needs beside the matching code: below it a right code is
# mostly luck among a card's neighbours (the runtime's lone-index floor is 0.6).
VERIFY_CONFIDENCE = 0.5
# Of the rank alone (spade/club and heart/diamond of one rank are the classifier's commonest real
# misreads, and the detector's label is "index" whatever the suit): a lower bar, since a wrong rank
# at the right card is rarer still.
RANK_CONFIDENCE = 0.3
# The frame as it is (0) and turned a quarter (1): the detector finds indices at some angles better
# than at others, and the known code decides which proposals stay.
TURNS = (0, 1)
# The second pass's windows: the frame cut 2x2 with a quarter overlap, each read at the network's size.
WINDOW_SHARE = 0.625


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float = 0.5) -> list[int]:
    from companion.vision.decode import nms

    return list(nms(boxes, scores, iou)) if len(boxes) else []


def _looks(detector, frame: np.ndarray) -> list:
    """The whole frame's look (with its closer look) and 2x2 windows at about twice the scale."""
    from companion.vision.detector import tile_starts

    size = int(max(frame.shape[:2]) * WINDOW_SHARE)
    height, width = frame.shape[:2]
    starts = [(x, y) for y in tile_starts(height, size) for x in tile_starts(width, size)]
    return [detector.detect_boxes(frame), *detector.detect_windows(frame, starts, size)]


def _unturn(boxes: np.ndarray, height: int) -> np.ndarray:
    """Boxes found on the frame turned a quarter clockwise, in the frame's own pixels."""
    out = np.empty_like(boxes)
    out[:, 0], out[:, 2] = boxes[:, 1], boxes[:, 3]
    out[:, 1], out[:, 3] = height - boxes[:, 2], height - boxes[:, 0]
    return out


def proposals(detector, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index boxes (frame pixels) and scores from every look, on the frame as it is and turned (``TURNS``)."""
    import cv2

    from companion.vision.detector import INDEX_CLASS

    box_sets, score_sets = [], []
    for turn in TURNS:
        view = frame if turn == 0 else cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
        for found in _looks(detector, view):
            boxes = found.boxes[found.classes == INDEX_CLASS].reshape(-1, 4)
            box_sets.append(boxes if turn == 0 else _unturn(boxes, frame.shape[0]))
            score_sets.append(found.scores[found.classes == INDEX_CLASS])
    boxes, scores = np.concatenate(box_sets), np.concatenate(score_sets)
    height, width = frame.shape[:2]
    boxes = np.clip(boxes, 0, [width, height, width, height]).astype(np.float32)
    # a box clipped to a sliver at the frame's edge holds nothing to read
    keep = (scores > PROPOSAL_CONF) & (boxes[:, 2] - boxes[:, 0] >= 2) & (boxes[:, 3] - boxes[:, 1] >= 2)
    boxes, scores = boxes[keep], scores[keep]
    kept = _nms(boxes, scores)
    return boxes[kept], scores[kept]


def _rank(code: str) -> str:
    return code[:-1] if code not in ("BJ", "SJ", "BACK") else code


def verified_indices(truth, boxes: np.ndarray, readings, ranks_only: bool) -> tuple[list[tuple], set[int]]:
    """The proposals whose code is that of a labelled card holding their centre; and those cards' numbers."""
    kept, cards_found = [], set()
    for box, (code, confidence, _rotation) in zip(boxes, readings):
        if code is None or confidence < RANK_CONFIDENCE:
            continue
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for number, card in enumerate(truth):
            if card.code == "BACK":
                continue
            x1, y1, x2, y2 = card.parts[0].box
            if not (x1 <= cx <= x2 and y1 <= cy <= y2):
                continue
            same_rank = _rank(code) == (card.code if ranks_only else _rank(card.code))
            if (code == card.code and confidence >= VERIFY_CONFIDENCE) or (same_rank and confidence >= RANK_CONFIDENCE):
                kept.append(tuple(float(v) for v in box))
                cards_found.add(number)
                break
    return kept, cards_found


def label_photo(detector, photo) -> dict:
    from companion.vision import load_image
    from vision_models.checks.real_check import truth_of

    frame = load_image(photo.path)
    height, width = frame.shape[:2]
    truth = truth_of(photo, width, height)
    boxes, _scores = proposals(detector, frame)
    readings = detector.classify_boxes(frame, boxes)
    indices, found = verified_indices(truth, boxes, readings, photo.ranks_only)
    backs = [card.parts[0].box for card in truth if card.code == "BACK"]
    faces = sum(card.code != "BACK" for card in truth)
    return {"name": photo.path.name, "path": str(photo.path), "shape": (height, width), "indices": indices,
            "backs": [tuple(float(v) for v in b) for b in backs], "faces": faces, "faces_found": len(found),
            "proposals": len(boxes)}


def yolo_lines(result: dict) -> list[str]:
    from vision_models.data.synth import BACK_CLASS, INDEX_CLASS

    height, width = result["shape"]
    lines = []
    for cls, boxes in ((INDEX_CLASS, result["indices"]), (BACK_CLASS, result["backs"])):
        for x1, y1, x2, y2 in boxes:
            x1, y1, x2, y2 = max(0.0, x1), max(0.0, y1), min(width, x2), min(height, y2)
            if x2 - x1 < 1 or y2 - y1 < 1:
                continue
            lines.append(f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                         f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


def write_source(source: str, out: Path = OUT, limit: int | None = None, threads: int = 2) -> dict:
    """Label one development source into ``out/<source>/{images,labels}``; cached by ``summary.json``."""
    import os

    from companion.vision import Detector
    from vision_models.checks.real_check import DEV_SOURCES, photos_of

    if source not in DEV_SOURCES:
        raise SystemExit(f"{source}: only development sources are labelled for training ({', '.join(DEV_SOURCES)})")
    folder = out / source
    summary_path = folder / "summary.json"
    settings = {"proposal_conf": PROPOSAL_CONF, "verify_confidence": VERIFY_CONFIDENCE, "rank_confidence": RANK_CONFIDENCE,
                "turns": TURNS, "window_share": WINDOW_SHARE,
                "limit": limit}
    if summary_path.exists():
        summary = json.loads(summary_path.read_text())
        if summary.get("settings") == settings:
            return summary
    photos = photos_of([source])[:limit] if limit else photos_of([source])
    detector = Detector.load(tile="auto", threads=threads, conf=PROPOSAL_CONF)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    started = time.time()
    totals = {"photos": 0, "faces": 0, "faces_found": 0, "index_labels": 0, "back_labels": 0}
    for n, photo in enumerate(photos, 1):
        result = label_photo(detector, photo)
        stem = f"real_{source}_{photo.path.stem}"
        image_link = folder / "images" / (stem + photo.path.suffix.lower())
        if not image_link.exists():
            os.symlink(photo.path.resolve(), image_link)
        lines = yolo_lines(result)
        (folder / "labels" / (stem + ".txt")).write_text("\n".join(lines) + ("\n" if lines else ""))
        totals["photos"] += 1
        totals["faces"] += result["faces"]
        totals["faces_found"] += result["faces_found"]
        totals["index_labels"] += len(result["indices"])
        totals["back_labels"] += len(result["backs"])
        if n % 50 == 0:
            print(f"[real_labels] {source} {n}/{len(photos)} {time.time() - started:.0f} s", flush=True)
    summary = {"source": source, "settings": settings, **totals,
               "face_coverage": round(totals["faces_found"] / max(1, totals["faces"]), 4),
               "seconds": round(time.time() - started)}
    summary_path.write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", choices=SOURCES, help="default: both")
    parser.add_argument("--limit", type=int, default=None, help="only the first N photos of each source (a try)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    for source in args.source or SOURCES:
        print(json.dumps(write_source(source, args.out, args.limit, args.threads), indent=2), flush=True)


if __name__ == "__main__":
    main()
