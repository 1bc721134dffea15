"""``companion detect IMAGE...``: read the cards in photos with the exported recognition models."""
from __future__ import annotations

import json
import time
from pathlib import Path

from companion.cards import Card
from companion.commands import CommandError, error_text
from companion.commands._model_options import add_model_options
from companion.commands.deck import add_deck_options, load_named_deck
from companion.i18n import _, current, ngettext


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "detect", help=_("find and read the cards in images"),
        description=_("Find and read the cards in one or more images (corner-index detector + classifier)."))
    parser.add_argument("images", nargs="+", metavar="IMAGE", help=_("image files (JPEG, PNG, …)"))
    parser.add_argument("--json", action="store_true",
                        help=_('one JSON object per image per line: {"image", "cards": [{"code", "confidence", "box"}], "ms"}'))
    parser.add_argument("--tile", default="auto", metavar="auto|off|PX",
                        help=_("look closer in overlapping windows when the indices are small for the frame "
                             "(a whole table, a high-resolution photo): auto sizes the windows from what the first "
                             "pass found; PX fixes their side in pixels; off reads the whole frame once (default auto)"))
    add_model_options(parser)
    add_deck_options(parser)
    parser.add_argument("--save-annotated", metavar="DIR", help=_("also write each image with boxes and codes drawn into DIR"))
    parser.set_defaults(handler=run)


def run(args) -> int:
    # Imported here so that `companion --help` never loads the inference runtimes.
    from companion.vision import Detector, load_image
    from companion.vision.annotate import draw_cards

    if args.threads < 1:
        raise CommandError(_("--threads must be at least 1, got %(n)s", n=args.threads))
    deck = load_named_deck(args)
    detector = Detector.load(args.weights, backend=args.backend, threads=args.threads, conf=args.conf, tile=args.tile,
                             precision=args.precision)
    detector = detector.with_deck(deck)
    out_dir = Path(args.save_annotated) if args.save_annotated else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    failures = 0
    for path in args.images:
        try:
            frame = load_image(path)
        except ValueError as error:
            # One bad file should not hide the results for the others; it still fails the run.
            failures += 1
            if args.json:
                print(json.dumps({"image": path, "error": str(error)}), flush=True)
            else:
                print(_('%(path)s: error: %(error)s', path=path, error=error_text(error)), flush=True)
            continue
        start = time.perf_counter()
        reading = detector.read(frame)
        elapsed_ms = (time.perf_counter() - start) * 1000
        cards = reading.cards
        if args.json:
            print(json.dumps({"image": path, "cards": cards.to_json(), "ms": round(elapsed_ms, 1)}), flush=True)
        else:
            print(ngettext("%(path)s: %(n)d card (%(ms)s ms)", "%(path)s: %(n)d cards (%(ms)s ms)", len(cards), path=path,
                           ms=format(elapsed_ms, ".0f")))
            for code, confidence, box in zip(cards.codes, cards.confidences, cards.boxes):
                x1, y1, x2, y2 = (int(round(v)) for v in box)
                print(_("  %(code)s %(pretty)s %(confidence)s  at (%(x1)s, %(y1)s)–(%(x2)s, %(y2)s)",
                        code=format(code, '<5'), pretty=format(current().card_name(Card.parse(code).code), '<15'),
                        confidence=format(confidence, '.2f'), x1=x1, y1=y1, x2=x2, y2=y2))
        if out_dir is not None:
            import cv2

            target = out_dir / (Path(path).stem + ".annotated.jpg")
            if not cv2.imwrite(str(target), draw_cards(frame, cards, reading.indices)):
                raise CommandError(_("could not write %(path)s", path=target))
    if failures:
        raise CommandError(ngettext("%(failures)d of %(n)d image could not be read", "%(failures)d of %(n)d images could not be read",
                                     len(args.images), failures=failures))
    return 0
