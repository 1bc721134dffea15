"""``companion table run``: run the table pipeline on a camera, video or image folder; print the game.

    companion table run --game kingdoms --source demo/kingdoms            # a shipped recording
    companion table run --game chosen --source 0 --players Ann,Bob        # a webcam
    companion table run --game dungeon --source rec/ --json --check-truth # compare with truth.json

A rendered recording's folder carries ``truth.json``: its setup (players, guild choices) is used
unless ``--players``/``--setup`` say otherwise, and ``--check-truth`` compares the final state.
``--detector truth`` replays the recording's own ``cards.jsonl.gz`` instead of the neural detector:
it tests the tracking and the bindings only, never the eyes.
"""
from __future__ import annotations

import json
import pathlib
import sys

from companion.commands import CommandError
from companion.commands.deck import add_deck_options, load_named_deck
from companion.games import GAMES


def register(subparsers) -> None:
    parser = subparsers.add_parser("table", help="the camera table pipeline", description=__doc__,
                                   formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="table_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    run = commands.add_parser("run", help="run the pipeline on a source and print the final game state",
                              description=__doc__, formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    run.add_argument("--game", required=True, choices=GAMES)
    run.add_argument("--source", required=True, help="camera index, video file, image folder or recording folder")
    run.add_argument("--players", default=None, help="player names, comma-separated (e.g. Ann,Bob,Cy), or a count")
    run.add_argument("--setup", default=None, metavar="FILE", help="a JSON game setup (players, options) and optional setup_events")
    run.add_argument("--mat", choices=("auto", "none"), default="auto",
                     help="auto: find the mat's markers (Kingdoms falls back to the cards alone); none: no mat (Kingdoms only)")
    run.add_argument("--layout", default=None, help="a mat layout name or JSON file (default: the game's shipped mat)")
    run.add_argument("--lens", default=None, metavar="FILE", help="lens calibration JSON for this camera")
    run.add_argument("--detector", choices=("auto", "truth"), default="auto",
                     help="auto: the shipped neural detector; truth: the recording's cards.jsonl.gz (tests the tracking only)")
    run.add_argument("--tile", default="auto", metavar="auto|off|PX",
                     help="neural detector: look closer in overlapping windows when the cards are small in the frame "
                          "(auto: sized from what the first pass found; PX: window side in pixels; default auto)")
    add_deck_options(run, "neural detector: read with a deck learned by `companion deck learn`")
    run.add_argument("--fps", type=float, default=None, help="frame rate of an image folder (default: truth.json's, else 10)")
    run.add_argument("--live", action="store_true",
                     help="play a recording at its own frame rate as a camera would: frames the pipeline cannot keep up "
                          "with are dropped")
    run.add_argument("--frame-cost", default=None, metavar="SECONDS|work",
                     help="with --live: charge every frame this many seconds on a simulated clock instead of timing it, "
                          "or 'work': by the detector passes and readings it took, as on the 2-core laptop "
                          "(the same frames on any machine)")
    run.add_argument("--max-frames", type=int, default=None, help="stop after this many frames (live cameras)")
    run.add_argument("--settle", type=float, default=None, help="seconds a card must be seen steadily (default 0.6)")
    run.add_argument("--refresh", type=float, default=3.0, help="re-find the mat's markers every this many seconds (default 3)")
    run.add_argument("--json", action="store_true", help="print the whole result as JSON")
    run.add_argument("--events", action="store_true", help="print each table and engine event as it happens")
    run.add_argument("--check-truth", action="store_true", help="compare the final state with the recording's truth.json")
    run.set_defaults(handler=run_command)
    lens = commands.add_parser("calibrate-lens", help="lens calibration from views of the ChArUco board (companion mat --charuco)",
                               description="Film the printed ChArUco board from several angles (a video, a folder of photos "
                                           "or a camera); the camera matrix and distortion are saved as JSON for --lens.")
    lens.add_argument("--source", required=True, help="video file, image folder or camera index")
    lens.add_argument("--out", required=True, help="the JSON file to write")
    lens.add_argument("--camera", default="", help="a name for this camera, stored in the file")
    lens.add_argument("--every", type=int, default=5, help="use every Nth frame of a video or camera (default 5)")
    lens.add_argument("--max-views", type=int, default=40, help="stop after this many frames used (default 40)")
    lens.set_defaults(handler=calibrate_lens_command)


def _truth_near(source: str) -> dict | None:
    path = pathlib.Path(source)
    for candidate in (path / "truth.json", path.parent / "truth.json"):
        if candidate.is_file():
            return json.loads(candidate.read_text())
    return None


def _setup(args, truth: dict | None) -> tuple[dict, list[dict]]:
    if args.setup:
        try:
            data = json.loads(pathlib.Path(args.setup).read_text())
        except FileNotFoundError:
            raise CommandError(f"no setup file {args.setup}") from None
        except json.JSONDecodeError as error:
            raise CommandError(f"{args.setup} is not JSON: {error}") from None
        if not isinstance(data, dict):
            raise CommandError(f"{args.setup} must hold a JSON object")
        events = data.pop("setup_events", [])
        return data, events
    if args.players:
        text = args.players.strip()
        names = [f"P{i + 1}" for i in range(int(text))] if text.isdigit() else [n.strip() for n in text.split(",") if n.strip()]
        if len(names) < 2:
            raise CommandError("--players needs at least two names (or a count of 2 or more)")
        return {"players": names}, []
    if truth and truth.get("game") == args.game:
        return dict(truth["setup"]), list(truth.get("setup_events", []))
    defaults = {"kingdoms": ["Red", "Black"], "dungeon": ["P1", "P2", "P3"], "chosen": ["P1", "P2"]}
    return {"players": defaults[args.game]}, []


def _detector(args):
    if args.detector == "truth":
        from companion.synthetic.recording import TruthDetector

        if args.deck:
            raise CommandError("--deck reads with the neural detector: it does not go with --detector truth")
        path = pathlib.Path(args.source)
        folder = path if path.is_dir() else path.parent
        try:
            return TruthDetector.from_jsonl(folder)
        except ValueError as error:
            raise CommandError(f"--detector truth needs the recording's card list ({error})") from None
    from companion.vision import Detector, WeightsMissingError

    deck = load_named_deck(args)
    try:
        return Detector.load(tile=args.tile).with_deck(deck, closer=False)
    except WeightsMissingError as error:
        raise CommandError(f"the card detector is not installed ({error}); "
                           "'--detector truth' replays a rendered recording's cards.jsonl.gz to test the tracking only") from None


def _frame_cost(args):
    """--frame-cost as a SimulatedClock cost: seconds, or the work model; None for the wall clock."""
    if args.frame_cost is None:
        return None
    if not args.live:
        raise CommandError("--frame-cost needs --live")
    if args.frame_cost == "work":
        from companion.table.live import WorkCost

        return WorkCost()
    try:
        seconds = float(args.frame_cost)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise CommandError(f"--frame-cost is a number of seconds of at least 0 or 'work', got {args.frame_cost!r}")
    return seconds


def run_command(args) -> int:
    from calibration.homography import LensCalibration
    from calibration.layouts import load_layout
    from companion.table.bindings import BINDINGS
    from companion.table.pipeline import build_pipeline
    from companion.table.sources import open_source
    from companion.table.tracker import TrackerConfig

    if args.refresh <= 0 or (args.settle is not None and args.settle <= 0):
        raise CommandError("--refresh and --settle must be positive numbers of seconds")
    frame_cost = _frame_cost(args)
    truth = _truth_near(args.source)
    setup, setup_events = _setup(args, truth)
    layout = load_layout(args.layout) if args.layout else None
    lens = LensCalibration.load(args.lens) if args.lens else None
    detector = _detector(args)      # first: a wrong --deck or missing weights fail before a camera opens
    source = open_source(args.source, args.fps)
    tracker = None
    if args.settle is not None:
        tracker = TrackerConfig(settle_seconds=args.settle, copies=BINDINGS[args.game].card_copies(setup))
    pipeline = build_pipeline(args.game, detector, setup, setup_events, mat=args.mat, layout=layout, tracker=tracker,
                              lens=lens, refresh_seconds=args.refresh)

    def show(result):
        if not args.events:
            return
        for event in result.table_events:
            print(f"{event.time:7.2f}s  {event.describe()}", file=sys.stderr)
        for outcome in result.outcomes:
            for engine_event in outcome.engine_events:
                print(f"           → {json.dumps(engine_event)}", file=sys.stderr)
            for engine_event in outcome.automatic_events:
                print(f"           → {json.dumps(engine_event)} (automatic)", file=sys.stderr)
            for question in outcome.questions:
                print(f"           ? {question}", file=sys.stderr)

    flush = pipeline.end_hold_seconds
    try:
        if args.live:
            from companion.table.live import LiveSource, SimulatedClock, WallClock, run_live
            from companion.table.sources import CameraSource, SourceError

            if isinstance(source, CameraSource):
                raise CommandError("--live plays a recording as a camera would; a camera is live already")
            try:
                live = LiveSource(source, SimulatedClock(frame_cost) if frame_cost is not None else WallClock())
            except SourceError as error:
                raise CommandError(str(error)) from None
            if hasattr(detector, "following"):   # --detector truth: the card list of the frame delivered
                detector.following(live)
            summary = run_live(pipeline, live, on_frame=show, flush_seconds=flush, max_frames=args.max_frames)
        else:
            frames = iter(source)
            if args.max_frames:
                frames = (item for _, item in zip(range(args.max_frames), frames))
            summary = pipeline.run(frames, on_frame=show, flush_seconds=flush)
    finally:
        source.close()
    matched = None
    if args.check_truth:
        if not truth:
            raise CommandError(f"no truth.json beside {args.source}")
        from companion.synthetic.recording import replay_truth

        matched = json.loads(json.dumps(summary["state"])) == replay_truth(truth)
        summary["truth_matched"] = matched
        summary["truth_events_applied"] = _events_in_common(truth.get("events", []), summary["engine_events"])
    if args.json:
        print(json.dumps(summary, indent=1, default=str))
    else:
        _print_text(summary)
        if matched is not None:
            print("truth: the final state matches truth.json" if matched else "truth: the final state DIFFERS from truth.json")
            applied, total = summary["truth_events_applied"]
            print(f"truth: {applied} of its {total} engine events were applied")
    return 0 if matched in (None, True) else 1


def _events_in_common(truth_events: list[dict], applied: list[dict]) -> list[int]:
    """[how many of the truth's engine events were applied (each at most as often as the truth has it), how many it has]."""
    from collections import Counter

    def key(event: dict) -> str:
        return json.dumps(event, sort_keys=True, default=str)

    common = Counter(map(key, truth_events)) & Counter(map(key, applied))
    return [sum(common.values()), len(truth_events)]


def _print_text(summary: dict) -> None:
    state = summary["state"]
    mat = summary.get("mat")
    print(f"{summary['game']}: {summary['frames']} frames, positions in {summary['units'] or '?'}"
          + (f", mat {mat['layout']} (markers {mat['markers']}, {mat['error_mm']} mm)" if mat else ""))
    print(f"engine events applied: {len(summary['engine_events'])}")
    live = summary.get("live")
    if live:
        print(f"live at {live['fps']:g} fps: {live['frames_read']} frames read, {live['frames_dropped']} dropped")
    for question in summary["questions"]:
        print(f"question: {question}")
    for notice in summary["notices"]:
        print(f"note: {notice}")
    log = state.get("log") or []
    for line in log[-12:]:
        print(f"  {line}")


def calibrate_lens_command(args) -> int:
    from calibration.homography import calibrate_lens
    from companion.table.sources import open_source

    if args.every < 1 or args.max_views < 4:
        raise CommandError("--every must be at least 1 and --max-views at least 4")
    source = open_source(args.source)
    views = []
    try:
        for index, (_, frame) in enumerate(source):
            if index % args.every == 0:
                views.append(frame)
            if len(views) >= args.max_views:
                break
    finally:
        source.close()
    lens = calibrate_lens(views, camera=args.camera)
    lens.save(args.out)
    print(f"wrote {args.out}: {lens.image_size[0]}x{lens.image_size[1]}, focal {lens.camera_matrix[0, 0]:.0f} px, "
          f"reprojection error {lens.error:.2f} px from {len(views)} frames")
    return 0
