"""``companion mat``: print a game mat at true scale (PDF), drawn from its layout file.

Its help text (the examples and notes ``--help`` shows) is :func:`description`, in the command line's language.
"""
from __future__ import annotations

import argparse

from companion.commands import CommandError
from companion.i18n import _, current, ngettext
from companion.games import GAMES


def description() -> str:
    """The help text in the command line's language (chosen before the parsers are built)."""
    return _(
        '`companion mat`: print a game mat at true scale (PDF), drawn from its layout file.\n'
        '\n'
        '    companion mat --game dungeon --players 4 --paper A4-tiled --out dungeon-4p.pdf\n'
        '    companion mat --layout my-table.json --paper A3 --out mine.pdf\n'
        '    companion --language zh-Hans mat --game chosen --players 3 --out chosen-3p.pdf\n'
        '\n'
        "The mat's words follow the command line's language (`--language`, else the shell's): a Chinese mat\n"
        "labels its zones with the seeds' terms (休息区, 仓库, 战场, 放逐区…).\n"
        '\n'
        "Check the 100 mm ruler after printing: the camera's zones are in true millimetres. A mat larger\n"
        'than the paper is tiled across several sheets with an overlap strip and alignment crosses.')


def register(subparsers) -> None:
    from calibration.mats import PAPERS

    parser = subparsers.add_parser("mat", help=_("print a game mat (PDF, true scale)"), description=description(),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, default=None)
    parser.add_argument("--players", type=int, default=None, help=_("2, 3 or 4 (Guilds and Dungeon, The Chosen)"))
    parser.add_argument("--layout", default=None, help=_("a layout JSON file (or shipped name) instead of --game"))
    parser.add_argument("--paper", choices=PAPERS, default="A3")
    parser.add_argument("--charuco", action="store_true",
                        help=_("print the ChArUco board for 'companion table calibrate-lens' instead of a game mat"))
    parser.add_argument("--out", required=True, help=_("the PDF to write"))
    parser.set_defaults(handler=mat_command)


def mat_command(args) -> int:
    from calibration.layouts import layout_for, load_layout
    from calibration.mats import sheet_plan, write_charuco_pdf, write_mat_pdf

    if not args.out.lower().endswith(".pdf"):
        raise CommandError(_('--out must name a .pdf file, got %(out)s', out=repr(args.out)))
    if args.charuco:
        size = write_charuco_pdf(args.out, args.paper, language=current().language)
        print(_("wrote %(out)s: ChArUco board %(size)s×%(size2)s mm, true scale; film it from several angles",
                out=args.out, size=format(size[0], 'g'), size2=format(size[1], 'g')))
        return 0
    if args.layout:
        layout = load_layout(args.layout)
    elif args.game:
        if args.game == "kingdoms" and args.players not in (None, 2, 3, 4):
            raise CommandError(_("Kingdoms takes 2 to 4 players"))
        layout = layout_for(args.game, args.players)
    else:
        raise CommandError(_("say which mat: --game kingdoms|dungeon|chosen, or --layout FILE (or --charuco)"))
    pages = write_mat_pdf(layout, args.out, args.paper, language=current().language)
    page, _sheets = sheet_plan(layout, args.paper)
    print(ngettext("wrote %(out)s: %(name)s mat, %(width)s×%(height)s mm on %(n)d %(paper)s sheet (%(page)s mm), true scale",
                   "wrote %(out)s: %(name)s mat, %(width)s×%(height)s mm on %(n)d %(paper)s sheets (%(page)s mm), true scale", pages,
                   out=args.out, name=layout.name, width=format(layout.width, "g"), height=format(layout.height, "g"),
                   paper=args.paper.split("-")[0], page=f"{page[0]:g}×{page[1]:g}"))
    return 0
