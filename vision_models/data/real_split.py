"""The real photos (cardcounterml) for training: their names, labels and the fixed held-out split.

The split's rule is :mod:`companion.vision.holdout` (the runtime's evaluation owns it; training imports it).

Roboflow exports every source photo several times (``<stem>_jpg.rf.<hash>.jpg``, one per
augmentation), so the split is decided by the source photo's stem: all copies of one photo fall on
the same side, and the held-out F1 is never measured on a near-duplicate of a training image.
"""
from __future__ import annotations

from pathlib import Path

from companion.vision.holdout import is_holdout, source_stem  # the rule itself belongs to the runtime

__all__ = ["REAL_DATASET", "REAL_NAMES", "REAL_CODES", "is_holdout", "source_stem", "real_images", "split",
           "read_labels", "label_path_for"]

# ../shared beside the checkout, as on every developer machine and in CI.
REAL_DATASET = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "cardcounterml"

# cardcounterml's data.yaml names, in its order, mapped to the card model's codes.
REAL_NAMES: tuple[str, ...] = (
    "10C", "10D", "10H", "10S", "2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S", "4C", "4D", "4H", "4S",
    "5C", "5D", "5H", "5S", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "8D", "8H", "8S",
    "9C", "9D", "9H", "9S", "AC", "AD", "AH", "AS", "BACK", "BLACK JOKER", "JC", "JD", "JH", "JS",
    "KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "RED JOKER",
)
_REAL_TO_CODE = {"RED JOKER": "BJ", "BLACK JOKER": "SJ"}
REAL_CODES: tuple[str, ...] = tuple(_REAL_TO_CODE.get(name, name) for name in REAL_NAMES)


def real_images(dataset: Path = REAL_DATASET) -> list[Path]:
    return sorted(p for p in (dataset / "images").iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})


def split(dataset: Path = REAL_DATASET) -> tuple[list[Path], list[Path]]:
    """(training images, held-out images), both sorted."""
    images = real_images(dataset)
    return [p for p in images if not is_holdout(p.name)], [p for p in images if is_holdout(p.name)]


def read_labels(label_path: Path) -> list[tuple[str, float, float, float, float]]:
    """YOLO label lines as (code, cx, cy, w, h), normalised; polygon lines become their bounding box."""
    rows = []
    if not label_path.exists():
        return rows
    for line in label_path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        cls = int(parts[0])
        values = [float(v) for v in parts[1:]]
        if len(values) == 4:
            cx, cy, w, h = values
        else:
            xs, ys = values[0::2], values[1::2]
            x1, x2, y1, y2 = min(xs), max(xs), min(ys), max(ys)
            cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1
        rows.append((REAL_CODES[cls], cx, cy, w, h))
    return rows


def label_path_for(image: Path) -> Path:
    return image.parent.parent / "labels" / (image.stem + ".txt")


if __name__ == "__main__":
    train, held = split()
    print(f"{len(train)} training photos, {len(held)} held out")
