"""Card artwork for synthetic training data: rendered from Debian's gnome-cards-data, never committed.

Each aisleriot deck is one ``.svgz`` sheet of 13 x 5 cells: rows clubs, diamonds, hearts, spades
(ace ... king), then black joker, red joker, back. We render the sheet once, cut the grid into
per-card RGBA PNGs under ``var/artwork/<deck>/<CODE>.png`` (+ ``back.png``) and measure each card's
two corner index boxes (top-left and the 180-degree one at bottom-right) from the ink inside the
corner region, into ``var/artwork/<deck>/index_boxes.json`` (pixel ``x1 y1 x2 y2`` per code).

    python -m vision_models.data.artwork          # render every deck (cached)
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ARTWORK_DIR = ROOT / "var" / "artwork"
AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
CARD_WIDTH = 240  # pixels of one rendered card; synthetic scenes scale down from here

SHEET_ROWS = ("C", "D", "H", "S")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
# Decks whose index art teaches the wrong classes (no Latin ranks, tarot layout, bitmaps that
# duplicate another deck) are left out of the face set; their backs are still used.
SKIP_FACES = {"tarocco", "swiss-xvii", "Атласные", "atlasnye", "atlasnye_skat", "anglo_bitmap", "gnomangelo_bitmap"}
# Held out of training for a deck-disjoint synthetic test.
FACE_CELLS = tuple((f"{RANKS[c]}{SHEET_ROWS[r]}", r, c) for r in range(4) for c in range(13)) + (("SJ", 4, 0), ("BJ", 4, 1))
HOLDOUT_DECKS = ("lattmann", "tigullio", "neoclassical_4_color", "plastic")
# Decks printing an index in all four corners: our labels know two, so their faces stay out of
# detector scenes (an unlabelled index would be taught as background); crops still use them.
FOUR_INDEX_DECKS = {"bonded", "dondorf"}


def ensure_installed() -> None:
    if AISLERIOT_DIR.is_dir() and any(AISLERIOT_DIR.glob("*.svgz")):
        return
    if shutil.which("apt-get") is None or not hasattr(__import__("os"), "geteuid") or __import__("os").geteuid() != 0:
        raise SystemExit(
            f"card artwork missing: {AISLERIOT_DIR} has no decks. Install it as root: "
            "apt-get install -y gnome-cards-data aisleriot"
        )
    subprocess.run(["apt-get", "install", "-y", "gnome-cards-data", "aisleriot"], check=True)
    if not any(AISLERIOT_DIR.glob("*.svgz")):
        raise SystemExit("apt-get installed gnome-cards-data but no decks appeared in " + str(AISLERIOT_DIR))


def deck_names() -> list[str]:
    return sorted(p.name[: -len(".svgz")] for p in AISLERIOT_DIR.glob("*.svgz"))


def _render_sheet(svgz: Path) -> np.ndarray:
    import cairosvg
    import cv2

    data = gzip.open(svgz).read() if svgz.suffix == ".svgz" else svgz.read_bytes()
    png = cairosvg.svg2png(bytestring=data, output_width=CARD_WIDTH * 13)
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ValueError(f"{svgz.name}: rendering gave no RGBA image")
    return image


def corner_index_box(card: np.ndarray) -> tuple[int, int, int, int] | None:
    """Bounding box (x1, y1, x2, y2) of the top-left index, from the ink's connected components.

    Ink = opaque pixels that differ clearly from the card's paper colour. The rank glyph is the
    component nearest the top-left corner (frames and face art are too big to qualify); the index
    grows by the components beside it (the "0" of "10") and below it (the suit) within small gaps.
    """
    import cv2

    h, w = card.shape[:2]
    x0, y0 = int(0.03 * w), int(0.02 * h)
    x1, y1 = int(0.26 * w), int(0.36 * h)
    region = card[y0:y1, x0:x1].astype(np.int16)
    paper = np.median(card[int(0.45 * h):int(0.55 * h), int(0.04 * w):int(0.08 * w), :3].reshape(-1, 3), axis=0)
    diff = np.abs(region[:, :, :3] - paper[None, None, :]).max(axis=2)
    ink = ((diff > 60) & (region[:, :, 3] > 200)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    parts = []
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        if area < 0.00015 * w * h or bw > 0.15 * w or bh > 0.16 * h:
            continue
        if x == 0 and y == 0:  # the card outline / corner arc
            continue
        parts.append([x, y, x + bw, y + bh])
    seeds = [p for p in parts if p[0] < 0.12 * w and p[1] < 0.12 * h]
    if not seeds:
        return None
    box = list(min(seeds, key=lambda p: p[0] + p[1]))
    gap_x, gap_y = 0.03 * w, 0.045 * h
    grown = True
    while grown:
        grown = False
        for p in parts:
            if p[0] >= box[0] and p[1] >= box[1] and p[2] <= box[2] and p[3] <= box[3]:
                continue
            beside = p[1] < box[3] and p[3] > box[1] and box[2] <= p[0] <= box[2] + gap_x and p[1] < box[1] + 0.5 * (box[3] - box[1])
            below = box[3] - 2 <= p[1] <= box[3] + gap_y and p[0] < box[2] and p[2] > box[0]
            if beside or below:
                union = [min(box[0], p[0]), min(box[1], p[1]), max(box[2], p[2]), max(box[3], p[3])]
                if union[2] - union[0] > 0.17 * w or union[3] - union[1] > 0.3 * h:
                    continue
                box, grown = union, True
    bw, bh = box[2] - box[0], box[3] - box[1]
    if bw < 0.04 * w or bh < 0.07 * h:
        return None
    return (x0 + box[0], y0 + box[1], x0 + box[2], y0 + box[3])


def render_deck(name: str, out_dir: Path = ARTWORK_DIR, force: bool = False) -> Path:
    import cv2

    deck_dir = out_dir / name
    manifest = deck_dir / "index_boxes.json"
    if manifest.exists() and not force:
        return deck_dir
    sheet = _render_sheet(AISLERIOT_DIR / f"{name}.svgz")
    cell_w, cell_h = sheet.shape[1] / 13, sheet.shape[0] / 5
    deck_dir.mkdir(parents=True, exist_ok=True)

    def cut(row: int, col: int) -> np.ndarray:
        card = sheet[round(row * cell_h):round((row + 1) * cell_h), round(col * cell_w):round((col + 1) * cell_w)]
        # trim fully transparent margins so the card fills its image
        ys, xs = np.nonzero(card[:, :, 3] > 0)
        return card[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()

    for code, r, c in FACE_CELLS:
        cv2.imwrite(str(deck_dir / f"{code}.png"), cut(r, c))
    cv2.imwrite(str(deck_dir / "back.png"), cut(4, 2))
    measure_index_boxes(deck_dir)
    return deck_dir


def measure_index_boxes(deck_dir: Path) -> dict:
    """Write ``index_boxes.json``: both corner index boxes of every face the measurement trusts."""
    import cv2

    boxes: dict[str, list[list[int]]] = {}
    for code, _, _ in FACE_CELLS:
        card = cv2.imread(str(deck_dir / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        h, w = card.shape[:2]
        found = []
        top = corner_index_box(card)
        if top:
            found.append([int(v) for v in top])
        bottom = corner_index_box(card[::-1, ::-1])
        if bottom:
            bx1, by1, bx2, by2 = (int(v) for v in bottom)
            found.append([w - bx2, h - by2, w - bx1, h - by1])
        boxes[code] = found
    manifest = {"deck": deck_dir.name, "faces": deck_dir.name not in SKIP_FACES, "index_boxes": boxes}
    (deck_dir / "index_boxes.json").write_text(json.dumps(manifest, indent=0))
    return manifest


PROCEDURAL_STYLES = (0, 1, 2)


def render_procedural(style_seed: int, out_dir: Path = ARTWORK_DIR, force: bool = False) -> Path | None:
    """The project's own drawn deck (``companion.synthetic.deck``), one design per style seed."""
    try:
        from companion.synthetic import deck as procedural
    except ImportError:
        return None
    import cv2

    deck_dir = out_dir / f"procedural_{style_seed}"
    if (deck_dir / "index_boxes.json").exists() and not force:
        return deck_dir
    deck_dir.mkdir(parents=True, exist_ok=True)
    width, height = CARD_WIDTH, round(CARD_WIDTH * 1.4)
    alpha = procedural.card_mask(width, height)
    for code, _, _ in FACE_CELLS:
        bgr = procedural.render_card(code, width, height, style_seed=style_seed)
        cv2.imwrite(str(deck_dir / f"{code}.png"), np.dstack([bgr, alpha]))
    bgr = procedural.render_card("BACK", width, height, style_seed=style_seed)
    cv2.imwrite(str(deck_dir / "back.png"), np.dstack([bgr, alpha]))
    manifest = measure_index_boxes(deck_dir)
    # the drawn deck knows its index rectangles: use them where the ink measurement failed
    for code, boxes in manifest["index_boxes"].items():
        if len(boxes) < 2:
            manifest["index_boxes"][code] = [list(b) for b in procedural.index_boxes(code, width, height)]
    (deck_dir / "index_boxes.json").write_text(json.dumps(manifest, indent=0))
    return deck_dir


def available_decks(out_dir: Path = ARTWORK_DIR) -> list[Path]:
    return sorted(p.parent for p in out_dir.glob("*/index_boxes.json"))


def install(out_dir: Path = ARTWORK_DIR, force: bool = False, limit: int | None = None) -> list[Path]:
    ensure_installed()
    names = deck_names()[:limit] if limit else deck_names()
    done = []
    for i, name in enumerate(names, 1):
        print(f"[artwork] {i}/{len(names)} {name}", flush=True)
        try:
            done.append(render_deck(name, out_dir, force))
        except Exception as error:  # one broken sheet must not stop the others
            print(f"[artwork] skipped {name}: {error}", file=sys.stderr)
    for style in PROCEDURAL_STYLES:
        deck_dir = render_procedural(style, out_dir, force)
        if deck_dir is not None:
            done.append(deck_dir)
    return done


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="re-render decks already present")
    parser.add_argument("--reindex", action="store_true", help="only re-measure the index boxes of rendered decks")
    parser.add_argument("--limit", type=int, default=None, help="render only the first N decks")
    args = parser.parse_args(argv)
    if args.reindex:
        for deck_dir in available_decks():
            measure_index_boxes(deck_dir)
        return
    install(force=args.force, limit=args.limit)


if __name__ == "__main__":
    main()
