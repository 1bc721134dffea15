"""``companion evaluate DIR``: score the recognition models card by card on labelled real photos."""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from companion.commands._model_options import add_model_options
from companion.commands.deck import add_deck_options, load_named_deck
from companion.commands import CommandError
from companion.i18n import _, current


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate", help=_("score the card recogniser on a folder of labelled photos"),
        description=_("Score the recogniser card by card (precision, recall, F1, confusions) on a folder in the "
                      "YOLO layout: images/, labels/, data.yaml. Rules: see companion/vision/evaluation.py."))
    parser.add_argument("folder", metavar="DIR", help=_("labelled folder (e.g. ../shared/datasets/cardcounterml)"))
    parser.add_argument("--split", choices=("holdout", "all"), default="holdout",
                        help=_("holdout: only the photos never used in training (vision_models/data/real_split.py); all: every photo"))
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help=_("score photos in N worker processes, each with its own detector (default 1)"))
    parser.add_argument("--limit", type=int, metavar="N", help=_("score only the first N photos of the split (a smoke run)"))
    parser.add_argument("--tile", default="auto", metavar="auto|off|PX",
                        help=_("a closer look in overlapping windows for frames whose indices are small, as "
                             "`companion detect` does (default auto)"))
    parser.add_argument("--mosaic", type=int, default=1, metavar="K",
                        help=_("score K×K photos at a time as one frame: the same cards seen K times farther away"))
    add_model_options(parser)
    add_deck_options(parser)
    parser.add_argument("--json", action="store_true", help=_("print the full result as one JSON object"))
    parser.add_argument("--out", metavar="REPORT.md", help=_("also write a Markdown report (e.g. vision_models/EVALUATION.md)"))
    parser.set_defaults(handler=run)


def _models_note(detector) -> str:
    manifest = detector.manifest
    training = manifest.raw.get("training") or {}
    summary = ", ".join(f"{k} {training[k]}" for k in ("epochs", "seed") if k in training)
    detector_file, classifier_file = (Path(path).name for path in detector.model_files)
    return (f"`{manifest.directory}` (detector {detector_file} at imgsz {manifest.detector.imgsz}, "
            f"classifier {classifier_file} at {manifest.classifier.imgsz}"
            f"{'; ' + summary if summary else ''}), backend {detector.backend}, "
            f"thresholds: index conf {detector.conf}, back conf {detector.back_conf}, NMS IoU {detector.iou}, "
            f"closer look (tile): {detector.tile or 'off'}"
            + (f", learned deck {detector.deck.name!r}" if detector.deck is not None else ""))


def _command_line(args) -> str:
    """The options that shaped this result, written as the command that reproduces it."""
    parts = ["companion", "evaluate", args.folder, "--split", args.split]
    if args.weights:
        parts += ["--weights", args.weights]
    if args.conf is not None:
        parts += ["--conf", str(args.conf)]
    if args.backend != "auto":
        parts += ["--backend", args.backend]
    if args.precision != "auto":
        parts += ["--precision", args.precision]
    if args.threads != 2:
        parts += ["--threads", str(args.threads)]
    if args.limit is not None:
        parts += ["--limit", str(args.limit)]
    if args.tile != "auto":
        parts += ["--tile", str(args.tile)]
    if args.mosaic != 1:
        parts += ["--mosaic", str(args.mosaic)]
    if args.jobs != 1:
        parts += ["--jobs", str(args.jobs)]
    if args.deck:
        parts += ["--deck", args.deck] + (["--data", args.data] if args.data else [])
    parts += ["--out", args.out]
    return " ".join(shlex.quote(p) for p in parts)


def run(args) -> int:
    from companion.vision import Detector
    from companion.vision.evaluation import evaluate_folder, list_images, markdown_report, read_class_names

    if args.jobs < 1:
        raise CommandError(_("--jobs must be at least 1, got %(n)s", n=args.jobs))
    if args.limit is not None and args.limit < 1:
        raise CommandError(_("--limit must be at least 1, got %(n)s", n=args.limit))
    if args.mosaic < 1:
        raise CommandError(_("--mosaic must be at least 1, got %(n)s", n=args.mosaic))
    if not Path(args.folder).is_dir():
        raise CommandError(_("%(folder)s: no such folder", folder=args.folder))
    # The folder's layout before the models load (seconds): a folder that is not a labelled one is said at once,
    # in the command line's language (LabelledFolderError carries its message).
    read_class_names(Path(args.folder) / "data.yaml")
    list_images(Path(args.folder), args.split)
    deck = load_named_deck(args)
    detector = Detector.load(args.weights, backend=args.backend, threads=args.threads, conf=args.conf, tile=args.tile,
                             precision=args.precision)
    detector = detector.with_deck(deck)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(_('\r%(done)s/%(total)s photos', done=done, total=total), end="" if done < total else "\n", file=sys.stderr, flush=True)
        elif done == total or done % 50 == 0:
            print(_('%(done)s/%(total)s photos', done=done, total=total), file=sys.stderr, flush=True)

    load_options = {"weights_dir": args.weights, "backend": args.backend, "threads": args.threads, "conf": args.conf,
                    "tile": args.tile, "precision": args.precision, "deck": args.deck, "data": args.data}
    summary = evaluate_folder(detector, args.folder, split=args.split, limit=args.limit, progress=progress,
                              jobs=args.jobs, load_options=load_options, mosaic=args.mosaic)
    if args.out:
        command = _command_line(args)
        Path(args.out).write_text(markdown_report(summary, command, _models_note(detector)))
    if args.json:
        print(json.dumps(summary))
    else:
        overall = summary["overall"]
        print(_("%(images)s photos (%(split)s), %(truth_cards)s cards: precision %(precision)s  recall %(recall)s  F1 %(f1)s",
                images=summary["images"], split=summary["split"], truth_cards=summary["truth_cards"],
                precision=format(overall["precision"], ".3f"), recall=format(overall["recall"], ".3f"), f1=format(overall["f1"], ".3f")))
        print(_("  %(tp)s right, %(confused)s read as another card, %(misses)s missed, %(false_positives)s false",
                tp=overall['tp'], confused=summary['confused'], misses=summary['misses'], false_positives=summary['false_positives']))
        if summary["confusions"]:
            print(_("  top confusions: %(confusions)s", confusions=current().words(
                f"{c['truth']}→{c['predicted']} ×{c['count']}" for c in summary["confusions"][:8])))
        if args.out:
            print(_('  report written to %(out)s', out=args.out))
    return 0
