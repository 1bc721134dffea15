"""Detector training images of whole tables: the project's rendered recordings, cut as the pipeline cuts them.

The detector learned cards on cloths and in photos. On a mat filmed from above it misses what
those never showed: face-down cards along the far edge under a resting hand, indices next to
printed outlines and markers. The recording renderer (``companion.synthetic.recording``) knows
where every index and back is in every frame, so its frames are labelled data of exactly that
view. Each sampled frame gives the whole frame (what the whole-frame pass sees) and one window of
the closer look's size at a random place (416 px of the frame's own pixels, ``companion.vision.detector``).
``--crops`` writes upright index crops of other recordings for the classifier instead
(``vision_models.train.finetune_classifier --crops table`` builds and uses them).

Scenarios come from seeds far from those of the shipped demos (1), the tests (11-13) and
``vision_models.checks.evaluate_table`` (21-23); cameras, frame sizes and deck styles vary per seed::

    .venv/bin/python -m vision_models.data.table_scenes --scenes 48 --original-share 2   # var/data/detect_table/
    .venv/bin/python -m vision_models.train.continue_detector --from detector_gpu --name detector_table2 \\
        --data var/data/detect_table/data.yaml --epochs 5 --lr0 0.0003

``data.yaml`` trains on the table images together with a random ``--original-share`` as many images of the
original training set (``var/data/detect``: synthetic scenes and real photos), so the detector
keeps what it knew; it validates on the real validation photos (``data_val_table.yaml``: on
held-out table scenes).
"""
from __future__ import annotations

import argparse
import json
import random
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from vision_models.data.datasets import DATA_DIR, link_original
from vision_models.data.synth import BACK_CLASS, INDEX_CLASS

TABLE_DIR = DATA_DIR / "detect_table"
FIRST_SEED = 1000          # scenario seeds FIRST_SEED.. are training; VAL_SEEDS validate
VAL_SEEDS = range(5000, 5006)
GAMES = ("kingdoms", "dungeon", "chosen")
FRAME_SIZES = ((960, 720), (1280, 960), (1600, 1200))
WINDOW = 416               # the closer look's window at these sizes (never magnified)
FRAMES_PER_SCENE = 8
KEEP_FRACTION = 0.6        # of a box's area inside a window, or it is left out of that window


def camera_for(seed: int):
    from companion.synthetic.recording import CameraSettings

    rng = random.Random(seed)
    width, height = FRAME_SIZES[(seed // len(GAMES)) % len(FRAME_SIZES)]   # every game at every size
    return CameraSettings(width=width, height=height, fps=3.0, tilt=rng.uniform(0.03, 0.2),
                          roll_degrees=rng.uniform(0.5, 6.0), noise=rng.uniform(1.5, 7.0),
                          blur=rng.uniform(0.3, 1.1), style_seed=rng.choice([0, 1, 2] + list(range(10, 30))))


def frame_boxes(cards: list[dict]) -> list[tuple[int, list[float]]]:
    """(class, box in frame pixels) for every readable index and every face-down card."""
    boxes = []
    for card in cards:
        if card["code"] == "BACK":
            boxes.append((BACK_CLASS, card["box"]))
        boxes.extend((INDEX_CLASS, index["box"]) for index in card.get("indices", []))
    return boxes


def yolo_lines(boxes: list[tuple[int, list[float]]], left: float, top: float, width: int, height: int) -> list[str]:
    """Boxes inside the window (left, top, width, height), in YOLO's normalised form."""
    lines = []
    for cls, (x1, y1, x2, y2) in boxes:
        area = max((x2 - x1) * (y2 - y1), 1e-6)
        cx1, cy1 = max(x1 - left, 0.0), max(y1 - top, 0.0)
        cx2, cy2 = min(x2 - left, width), min(y2 - top, height)
        if cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) < KEEP_FRACTION * area:
            continue
        lines.append(f"{cls} {(cx1 + cx2) / 2 / width:.6f} {(cy1 + cy2) / 2 / height:.6f} "
                     f"{(cx2 - cx1) / width:.6f} {(cy2 - cy1) / height:.6f}")
    return lines


def sampled_frames(seed: int, count: int, rng: random.Random) -> list:
    """Renders the seed's recording (its game, camera and deck style) and picks ``count`` frames: (number, frame)."""
    from companion.synthetic.recording import build_scenario, render_frames

    frames = list(render_frames(build_scenario(GAMES[seed % len(GAMES)], seed), camera_for(seed)))
    return [(n, frames[n]) for n in sorted(rng.sample(range(len(frames)), min(count, len(frames))))]


def render_scene(job: tuple) -> int:
    """Renders one seeded recording and writes its sampled frames and windows under ``root/split``
    (``TABLE_DIR`` unless the job names another root); returns images written."""
    import cv2

    seed, split, *rest = job
    root = Path(rest[0]) if rest else TABLE_DIR
    rng = random.Random(seed * 13 + 7)
    images, labels = root / split / "images", root / split / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    written = 0
    for n, frame in sampled_frames(seed, FRAMES_PER_SCENE, rng):
        height, width = frame.image.shape[:2]
        boxes = frame_boxes(frame.cards)
        left, top = rng.randrange(0, width - WINDOW + 1), rng.randrange(0, height - WINDOW + 1)
        views = [("full", 0, 0, width, height), ("window", left, top, WINDOW, WINDOW)]
        for name, left, top, w, h in views:
            stem = f"table_{seed}_{n:03d}_{name}"
            cv2.imwrite(str(images / f"{stem}.jpg"), frame.image[top:top + h, left:left + w], [cv2.IMWRITE_JPEG_QUALITY, 90])
            (labels / f"{stem}.txt").write_text("\n".join(yolo_lines(boxes, left, top, w, h)) + "\n")
            written += 1
    return written


CROP_DIR = DATA_DIR / "classify_table"
CROP_FIRST_SEED = 3000     # the classifier's table crops come from other recordings than the detector's
CROP_FRAMES_PER_SCENE = 10


def index_crops(frame: np.ndarray, cards: list[dict], rng: random.Random, expand: float = 0.10, jitter: float = 0.1):
    """(code, upright crop) for every readable index, each edge of its box moved by up to ``jitter``
    of its size, as a detector's box would be."""
    from companion.vision.detector import classifier_crop, rotations_of
    from vision_models.train.first_run import CLASSIFIER_IMGSZ

    for card in cards:
        for index in card.get("indices", []):
            x1, y1, x2, y2 = index["box"]
            w, h = x2 - x1, y2 - y1
            jittered = (x1 + rng.uniform(-jitter, jitter) * w, y1 + rng.uniform(-jitter, jitter) * h,
                        x2 + rng.uniform(-jitter, jitter) * w, y2 + rng.uniform(-jitter, jitter) * h)
            crop = classifier_crop(frame, jittered, CLASSIFIER_IMGSZ, expand)
            # turn the crop so the index reads upright: undo the nearest quarter-turn of its top
            quarter = round(index["up_degrees"] / 90) % 4
            yield card["code"], rotations_of(crop, ((360 - 90 * quarter) % 360,))[0]


def render_crops(seed: int) -> int:
    """Renders one seeded recording and writes the index crops of some of its frames; returns crops written."""
    import cv2

    from vision_models.data.datasets import CLASSIFIER_CLASSES, class_folder

    rng = random.Random(seed * 17 + 3)
    written = 0
    for n, frame in sampled_frames(seed, CROP_FRAMES_PER_SCENE, rng):
        for k, (code, crop) in enumerate(index_crops(frame.image, frame.cards, rng)):
            folder = CROP_DIR / "train" / class_folder(CLASSIFIER_CLASSES.index(code))
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"table_{seed}_{n:03d}_{k}.png"), crop)
            written += 1
    return written


def build_crops(scenes: int, jobs: int = 2) -> dict:
    """Table index crops beside links to the classifier's original training crops (validation: the original's)."""
    marker = CROP_DIR / "done.json"
    if marker.exists() and json.loads(marker.read_text()).get("scenes") == scenes:
        return json.loads(marker.read_text())
    with Pool(jobs) as pool:
        written = pool.map(render_crops, [CROP_FIRST_SEED + k for k in range(scenes)], chunksize=1)
    link_original(CROP_DIR)
    summary = {"scenes": scenes, "table_crops": sum(written)}
    marker.write_text(json.dumps(summary))
    return summary


def render_recordings(root: Path, scenes: int, processes: int) -> tuple[int, int]:
    """Renders ``scenes`` training recordings and the validation seeds into ``root/{train,val}``;
    (training images, validation images) written. Spawned workers: a caller may hold torch already."""
    from multiprocessing import get_context

    work = [(FIRST_SEED + k, "train", str(root)) for k in range(scenes)] + [(s, "val", str(root)) for s in VAL_SEEDS]
    with get_context("spawn").Pool(processes) as pool:
        written = pool.map(render_scene, work, chunksize=1)
    return sum(written[:scenes]), sum(written[scenes:])


def build(scenes: int, original_share: float = 0.75, jobs: int = 2, seed: int = 0) -> dict:
    """Renders the table images and writes ``data.yaml`` (table + original training images)."""
    marker = TABLE_DIR / "done.json"
    rendered = json.loads(marker.read_text()) if marker.exists() else {}
    if rendered.get("scenes") != scenes:
        _, val_images = render_recordings(TABLE_DIR, scenes, jobs)
        rendered = {"scenes": scenes, "val_images": val_images}
    # the mix is cheap to rewrite, so a new --original-share reuses the rendered images
    table_train = sorted(str(p) for p in (TABLE_DIR / "train" / "images").glob("*.jpg"))
    original = sorted(str(p) for p in (DATA_DIR / "detect" / "train" / "images").iterdir())
    sample = random.Random(seed).sample(original, min(len(original), round(original_share * len(table_train))))
    (TABLE_DIR / "train.txt").write_text("\n".join(table_train + sample) + "\n")
    real_val = DATA_DIR / "detect" / "val_real.txt"
    (TABLE_DIR / "data.yaml").write_text(
        f"path: {TABLE_DIR}\ntrain: {TABLE_DIR / 'train.txt'}\nval: {real_val}\nnames:\n  0: index\n  1: back\n")
    (TABLE_DIR / "data_val_table.yaml").write_text(
        f"path: {TABLE_DIR}\ntrain: {TABLE_DIR / 'train.txt'}\nval: {TABLE_DIR / 'val' / 'images'}\nnames:\n  0: index\n  1: back\n")
    summary = {**rendered, "table_train_images": len(table_train), "original_images": len(sample),
               "original_share": original_share}
    marker.write_text(json.dumps(summary))
    return summary


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=48, help="training recordings to render (8 frames each)")
    parser.add_argument("--original-share", type=float, default=0.75,
                        help="original training images per table image in data.yaml")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--crops", action="store_true",
                        help=f"write the classifier's table index crops instead ({CROP_DIR.relative_to(DATA_DIR.parent.parent)})")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if args.crops:
        print(json.dumps(build_crops(args.scenes, args.jobs)), flush=True)
    else:
        print(json.dumps(build(args.scenes, args.original_share, args.jobs)), flush=True)


if __name__ == "__main__":
    main()
