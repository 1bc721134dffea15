"""``companion demo render``: draw a synthetic table recording (frames + truth.json) from a seed.

Its help text (the examples and notes ``--help`` shows) is :func:`description`, in the command line's language.
"""
from __future__ import annotations

import argparse

from companion.commands import CommandError, error_text
from companion.i18n import _
from companion.games import GAMES


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(_("size must be WIDTHxHEIGHT, e.g. 960x720, got %(size)s", size=repr(text))) from None
    if not (160 <= width <= 4096 and 120 <= height <= 4096):
        raise argparse.ArgumentTypeError(_("size must be between 160x120 and 4096x4096"))
    return width, height


def description() -> str:
    """The help text in the command line's language (chosen before the parsers are built)."""
    return _(
        '`companion demo render`: draw a synthetic table recording (frames + truth.json) from a seed.\n'
        '\n'
        '    companion demo render --game kingdoms --seed 1 --out rec/kingdoms-1\n'
        '    companion table run --game kingdoms --source rec/kingdoms-1 --check-truth\n'
        '\n'
        "The recording is a seeded game played on the printed mat with the project's own deck: a hand lays\n"
        'cards one by one, turns some face down, moves others; the camera is tilted, noisy and slightly\n'
        'blurred. `truth.json` holds the setup, the engine events the table implies and the final state.')


def register(subparsers) -> None:
    parser = subparsers.add_parser("demo", help=_("synthetic table recordings"), description=description(),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="demo_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    render = commands.add_parser("render", help=_("render a recording and its truth.json"), description=description(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    render.add_argument("--game", required=True, choices=GAMES)
    render.add_argument("--seed", type=int, default=0)
    render.add_argument("--out", required=True, help=_("folder to write (frames/ or recording.mp4, truth.json)"))
    render.add_argument("--video", action="store_true", help=_("write recording.mp4 (mp4v) instead of a JPEG folder"))
    render.add_argument("--size", type=_size, default=(960, 720), help=_("frame size WIDTHxHEIGHT (default 960x720)"))
    render.add_argument("--fps", type=float, default=8.0, help=_("frames per second (default 8)"))
    render.add_argument("--quality", type=int, default=85, help=_("JPEG quality of the frames (default 85)"))
    render.add_argument("--noise", type=float, default=4.0, help=_("sensor noise, grey levels (default 4; 0 makes small videos)"))
    render.add_argument("--blur", type=float, default=0.6, help=_("lens blur sigma in pixels (default 0.6)"))
    render.add_argument("--deck-art", metavar="DIR",
                        help=_("draw the cards with this deck's art: a folder of card images named by code "
                             "(10c.jpg, QH.png, BJ.png, back.png; case-insensitive) instead of the project's drawn deck"))
    render.add_argument("--card-truth", action="store_true",
                        help=_("also write cards.jsonl.gz: every card a perfect detector would see, per frame"))
    render.set_defaults(handler=render_command)


def render_command(args) -> int:
    from companion.synthetic.deck import load_deck_art
    from companion.synthetic.recording import CameraSettings, build_scenario, write_recording

    if args.fps <= 0 or args.fps > 60:
        raise CommandError(_("--fps must be between 0 and 60"))
    if not 10 <= args.quality <= 100:
        raise CommandError(_("--quality must be between 10 and 100"))
    scenario = build_scenario(args.game, args.seed)
    if not 0 <= args.noise <= 50 or not 0 <= args.blur <= 10:
        raise CommandError(_("--noise must be 0-50 and --blur 0-10"))
    try:
        deck = load_deck_art(args.deck_art)
    except ValueError as error:
        raise CommandError(_('--deck-art: %(error)s', error=error_text(error))) from None
    camera = CameraSettings(width=args.size[0], height=args.size[1], fps=args.fps, noise=args.noise, blur=args.blur,
                            deck=deck)
    truth = write_recording(scenario, args.out, camera, video=args.video, jpeg_quality=args.quality,
                            card_truth=args.card_truth)
    with_deck = _(" with the deck %(deck)s", deck=deck.name) if args.deck_art else ""
    print(_("wrote %(frames)s frames (%(seconds)s s) of %(game)s seed %(seed)s to %(out)s%(deck)s: %(description)s", frames=truth["frames"],
            seconds=format(truth["frames"] / camera.fps, ".1f"), game=args.game, seed=args.seed, out=args.out, deck=with_deck,
            description=_(scenario.description)))
    return 0
