"""Teaching a deck as ``companion deck learn`` does: photos of the whole deck, or one folder of card images.

    result = teach(detector, ["spread.jpg"], "home")            # or teach(detector, ["cards/"], "home")
    if result.complete: DeckStore(data).save(result.profile)

The command line, the checks on real decks (``vision_models.checks.real_deck_check``) and anything else that
teaches from files go through here, so what is measured is what a player gets.
"""
from __future__ import annotations

from pathlib import Path

from companion.vision.decks.profile import DeckError
from companion.vision.decks.result import LearnResult
from companion.messages import Message


def teaching_frames(inputs: list[str]) -> tuple[str | None, list[tuple[str, object]]]:
    """(the one folder of card images, or None; else the photos as (path, frame)), every image checked
    before any model is loaded: a missing, corrupt or oversized file is a clear error."""
    from companion.vision.deck_folder import card_images
    from companion.vision.frames import load_image

    if not inputs:
        raise DeckError(Message("no photos given: photograph the whole deck face up (each card once)"))
    folders = [p for p in inputs if Path(p).is_dir()]
    if folders and len(inputs) > 1:
        raise DeckError(Message("give either one folder of card images or photos, not both"))
    if folders:
        card_images(folders[0], complete=False)
        return str(folders[0]), []
    return None, [(str(path), load_image(path)) for path in inputs]


def teach(detector, inputs: list[str], name: str, parts: bool = False,
          corrections: dict[int, str] | None = None) -> LearnResult:
    """Learn deck ``name`` from ``inputs`` (photo paths, or one folder of card images named by code)."""
    from companion.vision.decks.folder import learn_from_folder
    from companion.vision.decks.photos import learn_from_photos

    folder, frames = teaching_frames(inputs)
    if folder is not None:
        return learn_from_folder(detector, folder, name)
    return learn_from_photos(detector, frames, name, parts=parts, corrections=corrections)
