"""``companion table run``: run the table pipeline on a camera, video or image folder; print the game.

Its help text (the examples and notes ``--help`` shows) is :func:`description`, in the command line's language.
"""
from __future__ import annotations

import json
import pathlib
import sys

from companion.commands import CommandError, error_text, read_json_file
from companion.i18n import _, current
from companion.commands.deck import add_deck_options, load_named_deck
from companion.games import GAMES

NO_GAME = "none"   # table run without a game: the settled cards and their changes (bindings/none.py)


def description() -> str:
    """The help text in the command line's language (chosen before the parsers are built)."""
    return _(
        '`companion table run`: run the table pipeline on a camera, video or image folder; print the game.\n'
        '\n'
        '    companion table run --game kingdoms --source demo/kingdoms            # a shipped recording\n'
        '    companion table run --game chosen --source 0 --players Ann,Bob        # a webcam\n'
        '    companion table run --game dungeon --source rec/ --json --check-truth # compare with truth.json\n'
        '    companion table run --source 0 --post-to http://192.168.1.20:8000 --table K7M2QX --pin 123456\n'
        '                                                                          # a table computer: read here, referee there\n'
        '    companion table run --game none --source clip.mp4 --live              # no game: the settled cards and their changes\n'
        '\n'
        '`--game none` needs no engine and no mat: it prints the cards the table settled, when, and every\n'
        'change after (moved, turned, removed), so any real clip can be checked; a still table settles its\n'
        'cards once and changes nothing after.\n'
        '\n'
        "A rendered recording's folder carries `truth.json`: its setup (players, guild choices) is used\n"
        'unless `--players`/`--setup` say otherwise, and `--check-truth` compares the final state.\n'
        "`--detector truth` replays the recording's own `cards.jsonl.gz` instead of the neural detector:\n"
        'it tests the tracking and the bindings only, never the eyes.')


def register(subparsers) -> None:
    parser = subparsers.add_parser("table", help=_("the camera table pipeline"), description=description(),
                                   formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="table_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    run = commands.add_parser("run", help=_("run the pipeline on a source and print the final game state"),
                              description=description(), formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    run.add_argument("--game", choices=GAMES + (NO_GAME,),
                     help=_("the game (required, except with --post-to: the server's table has one); "
                            "none: no game, the settled cards and their changes only"))
    run.add_argument("--source", required=True, help=_("camera index, video file, image folder or recording folder"))
    run.add_argument("--players", default=None, help=_("player names, comma-separated (e.g. Ann,Bob,Cy), or a count"))
    run.add_argument("--decks", type=int, default=None, metavar="N",
                     help=_("with --game none: decks in play, so copies of one card the table may hold (default 1)"))
    run.add_argument("--setup", default=None, metavar="FILE", help=_("a JSON game setup (players, options) and optional setup_events"))
    run.add_argument("--mat", choices=("auto", "none"), default="auto",
                     help=_("auto: find the mat's markers (Kingdoms falls back to the cards alone); none: no mat (Kingdoms only)"))
    run.add_argument("--layout", default=None, help=_("a mat layout name or JSON file (default: the game's shipped mat)"))
    run.add_argument("--lens", default=None, metavar="FILE", help=_("lens calibration JSON for this camera"))
    run.add_argument("--detector", choices=("auto", "truth"), default="auto",
                     help=_("auto: the shipped neural detector; truth: the recording's cards.jsonl.gz (tests the tracking only)"))
    run.add_argument("--tile", default="auto", metavar="auto|off|PX",
                     help=_("neural detector: look closer in overlapping windows when the cards are small in the frame "
                          "(auto: sized from what the first pass found; PX: window side in pixels; default auto)"))
    add_deck_options(run, _("neural detector: read with a deck learned by `companion deck learn`"))
    run.add_argument("--fps", type=float, default=None, help=_("frame rate of an image folder (default: truth.json's, else 10)"))
    run.add_argument("--live", action="store_true",
                     help=_("play a recording at its own frame rate as a camera would: frames the pipeline cannot keep up "
                          "with are dropped"))
    run.add_argument("--frame-cost", default=None, metavar="SECONDS|work",
                     help=_("with --live: charge every frame this many seconds on a simulated clock instead of timing it, "
                          "or 'work': by the detector passes and readings it took, as on the 2-core laptop "
                          "(the same frames on any machine)"))
    run.add_argument("--max-frames", type=int, default=None, help=_("stop after this many frames (live cameras)"))
    run.add_argument("--settle", type=float, default=None, help=_("seconds a card must be seen steadily (default 0.6)"))
    run.add_argument("--refresh", type=float, default=3.0, help=_("re-find the mat's markers every this many seconds (default 3)"))
    run.add_argument("--json", action="store_true", help=_("print the whole result as JSON"))
    run.add_argument("--events", action="store_true", help=_("print each table and engine event as it happens"))
    run.add_argument("--check-truth", action="store_true", help=_("compare the final state with the recording's truth.json"))
    remote = run.add_argument_group(_("a table computer (read here, referee on a server)"))
    remote.add_argument("--post-to", metavar="URL", help=_("post what is read to this companion server (e.g. http://192.168.1.20:8000) "
                                                           "instead of running the game here"))
    remote.add_argument("--table", metavar="ID", help=_("with --post-to: the server's table (its 6-character code)"))
    remote.add_argument("--pin", help=_("with --post-to: the table's referee PIN"))
    remote.add_argument("--token", help=_("with --post-to: the table's referee token (instead of the PIN)"))
    remote.add_argument("--feed", default=None, help=_("with --post-to: this reader's feed id (default: a new random one per run)"))
    remote.add_argument("--insecure", action="store_true", help=_("with --post-to https://…: accept the server's self-signed certificate"))
    run.set_defaults(handler=run_command)
    lens = commands.add_parser("calibrate-lens", help=_("lens calibration from views of the ChArUco board (companion mat --charuco)"),
                               description=_("Film the printed ChArUco board from several angles (a video, a folder of photos "
                                             "or a camera); the camera matrix and distortion are saved as JSON for --lens."))
    lens.add_argument("--source", required=True, help=_("video file, image folder or camera index"))
    lens.add_argument("--out", required=True, help=_("the JSON file to write"))
    lens.add_argument("--camera", default="", help=_("a name for this camera, stored in the file"))
    lens.add_argument("--every", type=int, default=5, help=_("use every Nth frame of a video or camera (default 5)"))
    lens.add_argument("--max-views", type=int, default=40, help=_("stop after this many frames used (default 40)"))
    lens.set_defaults(handler=calibrate_lens_command)


def _truth_near(source: str) -> dict | None:
    path = pathlib.Path(source)
    for candidate in (path / "truth.json", path.parent / "truth.json"):
        if candidate.is_file():
            return json.loads(candidate.read_text())
    return None


def _setup(args, truth: dict | None) -> tuple[dict, list[dict]]:
    if args.game == NO_GAME:
        if args.players or args.setup:
            raise CommandError(_("--game none has no players and no setup: it reports the cards only"))
        if args.decks is not None and args.decks < 1:
            raise CommandError(_("--decks must be a whole number of at least 1"))
        return {"decks": args.decks or 1}, []
    if args.decks is not None:
        raise CommandError(_("--decks goes with --game none (a game's setup says its decks)"))
    if args.setup:
        data = read_json_file(args.setup)
        if not isinstance(data, dict):
            raise CommandError(_('%(setup)s must hold a JSON object', setup=args.setup))
        events = data.pop("setup_events", [])
        return data, events
    if args.players:
        text = args.players.strip()
        names = [f"P{i + 1}" for i in range(int(text))] if text.isdigit() else [n.strip() for n in text.split(",") if n.strip()]
        if len(names) < 2:
            raise CommandError(_("--players needs at least two names (or a count of 2 or more)"))
        return {"players": names}, []
    if truth and truth.get("game") == args.game:
        return dict(truth["setup"]), list(truth.get("setup_events", []))
    defaults = {"kingdoms": ["Red", "Black"], "dungeon": ["P1", "P2", "P3"], "chosen": ["P1", "P2"]}
    return {"players": defaults[args.game]}, []


def _detector(args):
    if args.detector == "truth":
        from companion.synthetic.recording import TruthDetector

        if args.deck:
            raise CommandError(_("--deck reads with the neural detector: it does not go with --detector truth"))
        path = pathlib.Path(args.source)
        folder = path if path.is_dir() else path.parent
        try:
            return TruthDetector.from_jsonl(folder)
        except ValueError as error:
            raise CommandError(_("--detector truth needs the recording's card list (%(error)s)", error=error_text(error))) from None
    from companion.vision import Detector, WeightsMissingError

    deck = load_named_deck(args)
    try:
        return Detector.load(tile=args.tile).with_deck(deck, closer=False)
    except WeightsMissingError as error:
        raise CommandError(_("the card detector is not installed (%(error)s); '--detector truth' replays a rendered recording's "
                             "cards.jsonl.gz to test the tracking only",
                             error=error_text(error))) from None


def _frame_cost(args):
    """--frame-cost as a SimulatedClock cost: seconds, or the work model; None for the wall clock."""
    if args.frame_cost is None:
        return None
    if not args.live:
        raise CommandError(_("--frame-cost needs --live"))
    if args.frame_cost == "work":
        from companion.table.live import WorkCost

        return WorkCost()
    try:
        seconds = float(args.frame_cost)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise CommandError(_("--frame-cost is a number of seconds of at least 0 or 'work', got %(frame_cost)s", frame_cost=repr(args.frame_cost)))
    return seconds


def run_command(args) -> int:
    from calibration.homography import LensCalibration
    from calibration.layouts import load_layout
    from companion.table.bindings import BINDINGS
    from companion.table.pipeline import build_pipeline
    from companion.table.sources import open_source
    from companion.table.tracker import TrackerConfig

    if args.refresh <= 0 or (args.settle is not None and args.settle <= 0):
        raise CommandError(_("--refresh and --settle must be positive numbers of seconds"))
    if args.post_to:
        return post_command(args)
    for name in ("table", "pin", "token", "feed"):
        if getattr(args, name):
            raise CommandError(_("%(option)s goes with --post-to (a table on a server)", option="--" + name))
    if not args.game:
        raise CommandError(_("--game is required (except with --post-to)"))
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
            print(_('%(time)ss  %(describe)s', time=format(event.time, '7.2f'), describe=current().render(event.describe())), file=sys.stderr)
        for outcome in result.outcomes:
            for engine_event in outcome.engine_events:
                print(_('           → %(dumps)s', dumps=json.dumps(engine_event)), file=sys.stderr)
            for engine_event in outcome.automatic_events:
                print(_('           → %(dumps)s (automatic)', dumps=json.dumps(engine_event)), file=sys.stderr)
            for question in outcome.questions:
                print(_('           ? %(question)s', question=current().render(question)), file=sys.stderr)

    flush = pipeline.end_hold_seconds
    try:
        if args.live:
            from companion.table.live import LiveSource, SimulatedClock, WallClock, run_live
            from companion.table.sources import CameraSource, SourceError

            if isinstance(source, CameraSource):
                raise CommandError(_("--live plays a recording as a camera would; a camera is live already"))
            try:
                live = LiveSource(source, SimulatedClock(frame_cost) if frame_cost is not None else WallClock())
            except SourceError as error:
                raise CommandError(error.message) from None
            if hasattr(detector, "following"):   # --detector truth: the card list of the frame delivered
                detector.following(live)
            summary = run_live(pipeline, live, on_frame=show, flush_seconds=flush, max_frames=args.max_frames)
        else:
            frames = iter(source)
            if args.max_frames:
                frames = (item for _index, item in zip(range(args.max_frames), frames))
            summary = pipeline.run(frames, on_frame=show, flush_seconds=flush)
    finally:
        source.close()
    matched = None
    if args.check_truth and args.game == NO_GAME:
        matched = _check_cards(args, summary)
    elif args.check_truth:
        if not truth:
            raise CommandError(_('no truth.json beside %(source)s', source=args.source))
        from companion.synthetic.recording import replay_truth

        matched = json.loads(json.dumps(summary["state"])) == replay_truth(truth)
        summary["truth_matched"] = matched
        summary["truth_events_applied"] = _events_in_common(truth.get("events", []), summary["engine_events"])
    if args.json:
        print(json.dumps(summary, indent=1, default=str))
    elif args.game == NO_GAME:
        _print_cards(summary)
    else:
        _print_text(summary)
        if matched is not None:
            print(_("truth: the final state matches truth.json") if matched else _("truth: the final state DIFFERS from truth.json"))
            applied, total = summary["truth_events_applied"]
            print(_('truth: %(applied)s of its %(total)s engine events were applied', applied=applied, total=total))
    return 0 if matched in (None, True) else 1


def post_command(args) -> int:
    """``table run --post-to``: the frames read here with the full local detector, the readings posted to
    the server's table (companion.table.remote), until the source ends, Ctrl-C, or the server refuses."""
    from companion.i18n import current, tag
    from companion.table.remote import PostRefused, RemoteError, ServerTable, post_frames
    from companion.table.sources import CameraSource, SourceError, open_source
    from companion.vision import Detector, WeightsMissingError
    from companion.vision.models import models_fingerprint

    if not args.table:
        raise CommandError(_("--post-to needs --table ID (the table's code on the server)"))
    for name in ("players", "setup", "decks", "layout", "lens", "frame_cost", "settle"):
        if getattr(args, name) is not None:
            raise CommandError(_("%(option)s is the server's business with --post-to: its table has its own setup",
                                 option="--" + name.replace("_", "-")))
    if args.live or args.detector != "auto" or args.mat != "auto":
        raise CommandError(_("--live, --detector and --mat do not go with --post-to (the server runs the table pipeline)"))
    try:
        server = ServerTable(args.post_to, args.table.strip().upper(), pin=args.pin, token=args.token, insecure=args.insecure,
                             language=tag(current().language))
    except RemoteError as error:
        raise CommandError(current().render(error.message)) from None
    deck = load_named_deck(args)
    try:
        detector = Detector.load(tile=args.tile).with_deck(deck, closer=False)
    except WeightsMissingError as error:
        raise CommandError(_("the card detector is not installed (%(reason)s)", reason=str(error))) from None
    reader = {"kind": "table-computer", "backend": detector.backend, "models": models_fingerprint(detector.manifest.directory),
              "deck": getattr(deck, "name", None) if deck is not None else None}
    try:
        source = open_source(args.source, args.fps)
    except SourceError as error:
        raise CommandError(error.message) from None
    camera = isinstance(source, CameraSource)
    truth = _truth_near(args.source) if args.check_truth else None
    if args.check_truth and not truth:
        raise CommandError(_("no truth.json beside %(source)s", source=args.source))

    def show(answer: dict) -> None:
        if args.events:
            for event in answer.get("events", []):
                print(f"{event.get('time', 0):7.2f}s  {event.get('type')} {event.get('card')} {event.get('zone') or ''}", file=sys.stderr)

    frames = iter(source)
    if args.max_frames:
        frames = (item for _, item in zip(range(args.max_frames), frames))
    print(_("reading %(source)s here, posting to table %(table)s on %(server)s", source=current().render(source.description), table=server.table_id,
            server=server.base_url), file=sys.stderr)
    try:
        # a recording plays at its own pace and its last frame is held, as `table run` holds it
        report = post_frames(frames, detector, server, reader, feed=args.feed, pace=not camera,
                             hold_seconds=0.0 if camera else 2.5, on_answer=show,
                             log=lambda message: print(current().render(message), file=sys.stderr))
    except PostRefused as refused:
        print(_("error: %(reason)s", reason=current().render(refused.message)), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_("stopped"), file=sys.stderr)
        return 0
    finally:
        source.close()
    summary = {"table": server.table_id, "server": server.base_url, **report.to_json()}
    code = 0
    if truth is not None:
        from companion.synthetic.recording import replay_truth

        state = server.state()
        expected = replay_truth(truth)
        def comparable(view: dict) -> dict:   # the session's bookkeeping and the log's wording aside
            return {key: value for key, value in json.loads(json.dumps(view)).items() if key not in ("session", "log")}

        summary["truth_matched"] = comparable(state) == comparable(expected)
        code = 0 if summary["truth_matched"] else 1
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(_("posted %(posted)s frames' readings (%(stills)s with a still) to table %(table)s; %(events)s table events; "
                "%(retries)s network retries", posted=report.posted, stills=report.stills, table=server.table_id,
                events=len(report.events), retries=report.retries))
        if "truth_matched" in summary:
            print(_("truth: the server's table matches truth.json") if summary["truth_matched"]
                  else _("truth: the server's table DIFFERS from truth.json"))
    return code


def _events_in_common(truth_events: list[dict], applied: list[dict]) -> list[int]:
    """[how many of the truth's engine events were applied (each at most as often as the truth has it), how many it has]."""
    from collections import Counter

    def key(event: dict) -> str:
        return json.dumps(event, sort_keys=True, default=str)

    common = Counter(map(key, truth_events)) & Counter(map(key, applied))
    return [sum(common.values()), len(truth_events)]


def _check_cards(args, summary: dict) -> bool:
    """--game none --check-truth: the cards settled at the end against a drawn recording's last frame
    (its ``cards.jsonl.gz``: every card a perfect detector sees there)."""
    from companion.synthetic.recording import TruthDetector

    path = pathlib.Path(args.source)
    try:
        frames = TruthDetector.from_jsonl(path if path.is_dir() else path.parent).frames_cards
    except ValueError as error:
        raise CommandError(_("--check-truth with --game none needs the recording's card list (%(error)s)",
                             error=error_text(error))) from None
    expected = sorted(card["code"] for card in (frames[-1] if frames else []))
    summary["truth_cards"] = expected
    summary["truth_matched"] = summary["state"]["cards"] == expected
    return summary["truth_matched"]


def _print_cards(summary: dict) -> None:
    """--game none as text: each settled change when it happened, then the cards lying there at the end."""
    print(_("%(frames)s frames, positions in %(units)s", frames=summary["frames"], units=_unit_words(summary["units"])))
    live = summary.get("live")
    if live:
        print(_("live at %(fps)s fps: %(frames_read)s frames read, %(frames_dropped)s dropped",
                fps=format(live['fps'], 'g'), frames_read=live['frames_read'], frames_dropped=live['frames_dropped']))
    from companion.table.events import TableEvent

    state = summary["state"]
    for change in state["changes"]:
        # one zone, the whole table: said without it ("3H placed", "3H moved")
        event = TableEvent(**{**change, "position": tuple(change["position"]), "zone": None, "previous_zone": None})
        print(_('%(time)ss  %(describe)s', time=format(event.time, '7.2f'), describe=current().render(event.describe())))
    for question in summary["questions"]:
        print(_('question: %(question)s', question=question))
    cards = current().list_separator.join(current().card_name(code) for code in state["cards"]) if state["cards"] else _("none")
    print(_("on the table at the end (%(count)s): %(cards)s", count=len(state["cards"]), cards=cards))
    if "truth_matched" in summary:
        print(_("truth: the cards match the recording's last frame") if summary["truth_matched"]
              else _("truth: the cards DIFFER from the recording's last frame"))


def _print_text(summary: dict) -> None:
    state = summary["state"]
    mat = summary.get("mat")
    seen = _("%(game)s: %(frames)s frames, positions in %(units)s", game=summary["game"], frames=summary["frames"],
             units=_unit_words(summary["units"]))
    if mat:
        seen += _(", mat %(layout)s (markers %(markers)s, %(error)s mm)", layout=mat["layout"], markers=mat["markers"], error=mat["error_mm"])
    print(seen)
    print(_('engine events applied: %(count)s', count=len(summary['engine_events'])))
    live = summary.get("live")
    if live:
        print(_("live at %(fps)s fps: %(frames_read)s frames read, %(frames_dropped)s dropped",
                fps=format(live['fps'], 'g'), frames_read=live['frames_read'], frames_dropped=live['frames_dropped']))
    for question in summary["questions"]:
        print(_('question: %(question)s', question=question))
    for notice in summary["notices"]:
        print(_('note: %(notice)s', notice=notice))
    log = state.get("log") or []
    for line in log[-12:]:
        print("  " + (current().render(line) if isinstance(line, dict) and "msg" in line else json.dumps(line, ensure_ascii=False)))


def calibrate_lens_command(args) -> int:
    from calibration.homography import calibrate_lens
    from companion.table.sources import open_source

    if args.every < 1 or args.max_views < 4:
        raise CommandError(_("--every must be at least 1 and --max-views at least 4"))
    source = open_source(args.source)
    views = []
    try:
        for index, (_time, frame) in enumerate(source):
            if index % args.every == 0:
                views.append(frame)
            if len(views) >= args.max_views:
                break
    finally:
        source.close()
    lens = calibrate_lens(views, camera=args.camera)
    lens.save(args.out)
    print(_("wrote %(out)s: %(width)sx%(height)s, focal %(focal)s px, reprojection error %(error)s px from %(count)s frames",
            out=args.out, width=lens.image_size[0], height=lens.image_size[1], focal=format(lens.camera_matrix[0, 0], ".0f"),
            error=format(lens.error, ".2f"), count=len(views)))
    return 0


def _unit_words(units: str | None) -> str:
    """The pipeline's units (``mm`` on a located mat, ``px`` in the picture) as the reader says them."""
    return {"mm": _("millimetres"), "px": _("pixels")}.get(units or "", units or "?")
