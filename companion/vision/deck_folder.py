"""A deck as a folder of card images named by code, and where a printed deck's corner indices lie.

The vision runtime reads such folders to learn a deck (``companion deck learn DIR``); the synthetic
layer, which sits above it, draws recordings with the same art (``companion demo render --deck-art``).
"""
from __future__ import annotations

import os
from pathlib import Path

from companion.cards import CLASS_NAMES, Card, InvalidCardError
from companion.messages import Message, MessageError, Words

# How a folder's images must be named, as its refusals advise
NAMING = "10c.jpg, QH.png, BJ.png, back.png"

_DECK_CODES: tuple[str, ...] = CLASS_NAMES[:54]
_STANDARD_CODES: tuple[str, ...] = CLASS_NAMES[:52]
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp"}


class CardFolderError(MessageError, ValueError):
    """A folder of card images that cannot be used as one (its message says why, translated where shown:
    ``companion deck learn DIR`` in the command line's language)."""


def code_from_filename(path: Path) -> str:
    """``10c.jpg`` → 10C, ``QH.png`` → QH, ``bj.png`` → BJ, ``back.png`` → BACK (case-insensitive)."""
    stem = path.stem.strip().upper()
    if stem == "BACK":
        return "BACK"
    try:
        code = Card.parse(stem).code
    except InvalidCardError:
        raise CardFolderError(Message("%(file)s: not a card code (expected e.g. %(naming)s)", file=path.name, naming=NAMING)) from None
    if code not in _DECK_CODES:
        raise CardFolderError(Message("%(file)s: not a card code (expected e.g. %(naming)s)", file=path.name, naming=NAMING))
    return code


def card_images(folder: str | os.PathLike, complete: bool = True) -> dict[str, Path]:
    """The folder's card images by code; unknown names and duplicates are errors, and so are missing
    cards when ``complete`` (a deck drawn from it needs them all; a deck learned from it may lack some:
    the general models read those). A folder with no card image at all is always an error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CardFolderError(Message("%(folder)s: no such folder", folder=str(folder)))
    found: dict[str, Path] = {}
    unknown, twice = [], []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue    # notes, licences, index_boxes.json: not card images
        try:
            code = code_from_filename(path)
        except ValueError:
            unknown.append(path.name)
            continue
        if code in found:
            twice.append(Message("%(first)s and %(second)s", first=found[code].name, second=path.name))
        found[code] = path
    if unknown:
        raise CardFolderError(Message("%(folder)s: file names that are not card codes: %(files)s (name each image by its card: %(naming)s)",
                                      folder=str(folder), files=unknown, naming=NAMING))
    if twice:
        raise CardFolderError(Message("%(folder)s: two images of one card: %(pairs)s", folder=str(folder), pairs=Words(twice, clauses=True)))
    if not any(code in found for code in _DECK_CODES):
        raise CardFolderError(Message("%(folder)s: no card images in it (name each image by its card: %(naming)s)",
                                      folder=str(folder), naming=NAMING))
    missing = [c for c in _STANDARD_CODES if c not in found]
    if missing and complete:
        raise CardFolderError(Message("%(folder)s: no image for %(cards)s", folder=str(folder), cards=" ".join(missing)))
    return found


# Where a printed deck's corner index lies, as fractions of the card (left, top, right, bottom):
# the median of the 31 rendered gnome-cards-data decks' measured boxes is close to the drawn deck's.
_ART_INDEX_FRACTION = (0.03, 0.02, 0.19, 0.27)


def art_index_fractions() -> list[tuple[float, float, float, float]]:
    """Where a printed card's two corner indices usually lie, as fractions of the card (top-left, bottom-right)."""
    x1, y1, x2, y2 = _ART_INDEX_FRACTION
    return [(x1, y1, x2, y2), (1 - x2, 1 - y2, 1 - x1, 1 - y1)]
