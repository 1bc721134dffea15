"""The fixed held-out split of the real photos (cardcounterml): the one rule, owned by the runtime.

``companion evaluate --split holdout`` measures the headline F1 on these photos, and training
(``vision_models``, which sits above the runtime) keeps them out by importing this same rule.

Roboflow exports every source photo several times (``<stem>_jpg.rf.<hash>.jpg``, one per
augmentation), so the split is decided by the source photo's stem: all copies of one photo fall on
the same side, and the held-out F1 is never measured on a near-duplicate of a training image.
"""
from __future__ import annotations

import hashlib
from pathlib import Path


def source_stem(image_filename: str) -> str:
    """The source photo a Roboflow export came from: the name before the first ``_jpg``."""
    name = Path(image_filename).name
    stem = name.split("_jpg", 1)[0]
    if stem == name:  # not a Roboflow name: fall back to the plain stem
        stem = Path(name).stem
    return stem


def is_holdout(image_filename: str) -> bool:
    """True for the ~25 % of source photos kept out of training; the headline F1 is measured on them."""
    digest = hashlib.sha1(source_stem(image_filename).encode()).hexdigest()
    return int(digest, 16) % 4 == 0
