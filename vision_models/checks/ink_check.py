"""Do an index's ink colours tell apart the cards that differ only in colour? (``companion.vision.ink``)

    python -m vision_models.checks.ink_check lattmann plastic neoclassical_4_color

On the labelled test scenes of the deck check (``vision_models.checks.deck_check`` renders them into
``var/deckcheck/<deck>/test``), every ground-truth index box is cut as the classifier sees it and
described by :func:`companion.vision.ink.ink_colours`; for pairs of codes that differ in colour (or
only in colour: the jokers) it counts how often a crop's colours are nearer its own code's mean
than the other's. Pairs of one colour are listed as the control (only the amount of ink differs).
"""
from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

PAIRS = (("BJ", "SJ"), ("JS", "JH"), ("JD", "JH"), ("JC", "JS"), ("QC", "9C"))


def colours_by_code(deck: str) -> dict[str, list[np.ndarray]]:
    from companion.vision.detector import classifier_crop
    from companion.vision.evaluation import list_images, load_scene, read_class_names
    from companion.vision.ink import ink_colours
    from vision_models.checks.deck_check import CHECK_DIR

    root = CHECK_DIR / deck / "test"
    if not (root / "data.yaml").is_file():
        raise SystemExit(f"{root}: no test scenes (run python -m vision_models.checks.deck_check {deck} first)")
    names = read_class_names(root / "data.yaml")
    found: dict[str, list[np.ndarray]] = defaultdict(list)
    for image in list_images(root, "all"):
        frame, truth = load_scene(root, names, [image])
        for card in truth:
            for part in card.parts:
                found[card.code].append(ink_colours(classifier_crop(frame, part.box, 64, 0.1)))
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="+")
    args = parser.parse_args(argv)
    print("| deck | pair | nearer its own code's colours |")
    print("|---|---|---|")
    for deck in args.decks:
        found = colours_by_code(deck)
        means = {code: np.mean(rows, 0) for code, rows in found.items()}
        for a, b in PAIRS:
            if a not in found or b not in found:
                continue
            right = total = 0
            for code, other in ((a, b), (b, a)):
                for row in found[code]:
                    right += int(np.minimum(row, means[code]).sum() > np.minimum(row, means[other]).sum())
                    total += 1
            print(f"| {deck} | {a} / {b} | {right} of {total} |", flush=True)


if __name__ == "__main__":
    main()
