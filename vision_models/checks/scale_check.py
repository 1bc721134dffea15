"""Recall by the index's size at the detector's input, the closer look off and on (issue 28, item 4).

    python -m vision_models.checks.scale_check                         # real_check's sources with places, both modes
    python -m vision_models.checks.scale_check --tile auto --tile off --cache-dir var/scale-check --json

Every face-up card labelled with a place in ``real_check``'s sources (``cardcounterml``'s index boxes,
the whole-card boxes of rf100 and the webcam strips; the single-card and code-list sources have no
place and are left out) is binned by how tall its index is at the detector's input: its size in the
photo times the whole-frame fit (the input's side over the photo's longer side, 416 / 4000 for the
feliksh scan, 416 / 640 for cardcounterml). An index box gives the size itself (its longer side); a
whole-card box does not, so the index is estimated from the card: the card box's longer side times
the ratio index / card measured on that source's own cards found with the closer look (the median,
over those cards, of the readings of its code inside its box, their longer side over the box's).
Per bin and tile mode: cards, found (read right, ``real_check``'s scorer), recall, and the median
cost per photo of the photos whose cards lie in that bin (a photo is counted in each bin its cards
reach). The readings of each mode are kept in ``--cache-dir`` (as ``real_check --cache`` keeps them).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

from vision_models.checks import real_check

# Index px at the detector's input: bin edges (the last bin is open).
BINS = (0.0, 8.0, 12.0, 16.0, 20.0, 25.0, 30.0, 40.0)
# The sources whose labels say where each card lies.
PLACED = ("cardcounterml", "rf100-test", "rf100-valid", "webcam-strips")


def bin_of(index_px: float, bins=BINS) -> int:
    """The bin holding ``index_px`` (the last one is open above)."""
    return max(k for k, low in enumerate(bins) if index_px >= low)


def bin_label(k: int, bins=BINS) -> str:
    return f"{bins[k]:g}-{bins[k + 1]:g}" if k + 1 < len(bins) else f"{bins[k]:g}+"


def index_ratio(cards: list[tuple], readings_inside) -> float | None:
    """Median index size over card size for whole-card labels: ``cards`` (truth card, found) pairs and
    ``readings_inside(card)`` the index scales read of its code inside its box. None: no card to tell."""
    ratios = []
    for card, found in cards:
        if not found or not card.whole:
            continue
        scales = readings_inside(card)
        if scales:
            x1, y1, x2, y2 = card.parts[0].box
            ratios.append(float(np.median(scales)) / max(x2 - x1, y2 - y1))
    return float(np.median(ratios)) if ratios else None


def card_rows(photo, reading: dict, input_side: int) -> list[dict]:
    """One row per labelled face-up card of one photo: its index size in the photo (None for a whole-card
    label: estimated later from the card), its card size, whether it was read right, the photo's cost."""
    from companion.vision.evaluation import rank_only

    height, width = reading["shape"]
    truth = real_check.truth_of(photo, width, height)
    score = real_check.score_reading(photo, reading)
    found = set(score.found_rows)
    fit = input_side / max(height, width)
    rows = []
    for t, card in enumerate(truth):
        if card.code == "BACK":
            continue
        row = {"source": photo.source, "photo": photo.path.name, "found": t in found, "fit": fit, "ms": reading["ms"]}
        if card.whole:
            x1, y1, x2, y2 = card.parts[0].box
            row["card_px"] = max(x2 - x1, y2 - y1)
            code = card.code
            inside = [r.scale for r in reading["indices"] if r.code is not None
                      and (rank_only(r.code) if photo.ranks_only else r.code) == code
                      and x1 <= r.center[0] <= x2 and y1 <= r.center[1] <= y2]
            row["inside"] = inside
        else:
            row["index_px"] = float(np.mean([p.scale for p in card.parts]))
        rows.append(row)
    return rows


def ratios_by_source(rows: list[dict]) -> dict[str, float]:
    """Per whole-labelled source: the ratio index / card on its cards found (see :func:`index_ratio`)."""
    ratios: dict[str, list[float]] = {}
    for row in rows:
        if "card_px" in row and row["found"] and row["inside"]:
            ratios.setdefault(row["source"], []).append(float(np.median(row["inside"])) / row["card_px"])
    return {source: float(np.median(values)) for source, values in ratios.items()}


def input_px(row: dict, ratios: dict[str, float]) -> float | None:
    """The card's index size at the detector's input (None: a whole-card source with no ratio)."""
    if "index_px" in row:
        return row["index_px"] * row["fit"]
    ratio = ratios.get(row["source"])
    return None if ratio is None else ratio * row["card_px"] * row["fit"]


def recall_by_bin(rows_by_mode: dict[str, list[dict]], ratios: dict[str, float], bins=BINS) -> dict:
    """{mode: {bin label: {"cards", "found", "recall", "median_ms"}}}: ``ratios`` from one mode for all."""
    result: dict = {}
    for mode, rows in rows_by_mode.items():
        table: dict = {}
        for k in range(len(bins)):
            members = [r for r in rows if (px := input_px(r, ratios)) is not None and bin_of(px, bins) == k]
            if not members:
                continue
            photos = {(r["source"], r["photo"]): r["ms"] for r in members}
            found = sum(r["found"] for r in members)
            table[bin_label(k, bins)] = {"cards": len(members), "found": found, "recall": round(found / len(members), 3),
                                         "median_ms": round(statistics.median(photos.values()), 1)}
        all_photos = {(r["source"], r["photo"]): r["ms"] for r in rows}
        found = sum(r["found"] for r in rows)
        table["all"] = {"cards": len(rows), "found": found, "recall": round(found / max(len(rows), 1), 3),
                        "median_ms": round(statistics.median(all_photos.values()), 1) if all_photos else 0.0}
        result[mode] = table
    return result


def interleaved_cost(frames: list, settings: dict[str, dict], repeats: int = 1) -> dict[str, dict]:
    """Each setting's cost on the same frames, read in turns (A B A B ...) by one detector so that a load
    that comes and goes weighs on each alike: {setting: {"median_ms", "mean_ms", "tiled"}}. A setting is
    ``companion.vision.detector``'s constants (e.g. ``{"TILE_BELOW_PX": 26.0}``), set for its reads only."""
    import time

    from companion.vision import Detector
    from companion.vision import detector as detector_module

    detector = Detector.load(tile="auto")
    times: dict[str, list[float]] = {name: [] for name in settings}
    tiled: dict[str, int] = {name: 0 for name in settings}
    for _ in range(repeats):
        for frame in frames:
            for name, constants in settings.items():
                before = {key: getattr(detector_module, key) for key in constants}
                try:
                    for key, value in constants.items():
                        setattr(detector_module, key, value)
                    start = time.perf_counter()
                    detector.read(frame)
                    times[name].append((time.perf_counter() - start) * 1000)
                    whole = detector._detect_window(frame, 0, 0)
                    tiled[name] += detector.window_size(frame.shape[:2], whole) is not None
                finally:
                    for key, value in before.items():
                        setattr(detector_module, key, value)
    return {name: {"median_ms": round(statistics.median(values), 1), "mean_ms": round(statistics.mean(values), 1),
                   "tiled": tiled[name] // repeats, "frames": len(frames)} for name, values in times.items()}


def table(result: dict) -> str:
    modes = list(result)
    labels = list(dict.fromkeys(label for mode in modes for label in result[mode]))
    lines = ["| index px at the input | " + " | ".join(f"`--tile {m}`: cards, recall, ms / photo" for m in modes) + " |",
             "|---|" + "---|" * len(modes)]
    for label in labels:
        cells = []
        for mode in modes:
            c = result[mode].get(label)
            cells.append(f"{c['cards']}, **{c['recall']:.3f}**, {c['median_ms']:.0f}" if c else "–")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--tile", action="append", metavar="MODE", help="tile modes to compare (default: auto and off)")
    parser.add_argument("--source", action="append", choices=PLACED, metavar="NAME", help=f"default: {', '.join(PLACED)}")
    parser.add_argument("--cache-dir", type=Path, default=Path("var/scale-check"), metavar="DIR")
    parser.add_argument("--datasets", type=Path, default=real_check.REAL)
    parser.add_argument("--cost", type=int, default=0, metavar="N",
                        help="also time N of the photos (every k-th) with TILE_BELOW_PX at its value and at --below, in turns")
    parser.add_argument("--below", type=float, default=26.0, metavar="PX", help="the other TILE_BELOW_PX --cost times")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    modes = args.tile or ["auto", "off"]
    from companion.vision.detector import parse_tile

    for mode in modes:
        try:
            parse_tile(mode)
        except ValueError as error:
            parser.error(str(error))
    sources = args.source or list(PLACED)
    try:
        photos = real_check.photos_of(sources, args.datasets)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    rows_by_mode = {}
    input_side = None
    for mode in modes:
        cache = args.cache_dir / f"readings-{mode}.pkl"
        argv_mode = [a for s in sources for a in ("--source", s)] + ["--tile", mode, "--cache", str(cache),
                                                                     "--datasets", str(args.datasets), "--json"]
        # real_check reads (or reuses) the readings; its printed result is not needed here
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            if real_check.main(argv_mode) != 0:
                return 1
        import pickle

        readings = pickle.loads(cache.read_bytes())["readings"]
        if input_side is None:
            from companion.vision.models import ModelsManifest

            input_side = ModelsManifest.load(None).detector.imgsz
        by_name = {(p.source, p.path.name): p for p in photos}
        rows_by_mode[mode] = [row for r in readings if (r["source"], r["name"]) in by_name
                              for row in card_rows(by_name[r["source"], r["name"]], r, input_side)]
    ratios = ratios_by_source(rows_by_mode[modes[0]])
    result = {"ratios": ratios, "recall": recall_by_bin(rows_by_mode, ratios)}
    if args.cost:
        from companion.vision import load_image
        from companion.vision.detector import TILE_BELOW_PX

        step = max(1, len(photos) // args.cost)
        frames = [load_image(p.path) for p in photos[::step][:args.cost]]
        result["cost"] = interleaved_cost(frames, {f"TILE_BELOW_PX {TILE_BELOW_PX:g}": {},
                                                   f"TILE_BELOW_PX {args.below:g}": {"TILE_BELOW_PX": args.below}})
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(table(result["recall"]))
        for name, cost in result.get("cost", {}).items():
            print(f"{name}: median {cost['median_ms']} ms, mean {cost['mean_ms']} ms a photo, "
                  f"{cost['tiled']} of {cost['frames']} photos read with windows (timed in turns)")
        print("\nindex / card ratio (whole-card labels, found cards, first mode): "
              + ", ".join(f"{s} {v:.3f}" for s, v in ratios.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
