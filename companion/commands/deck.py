"""``companion deck learn|list|show|remove``: teach the companion a player's own deck.

Its help text (the examples and notes ``--help`` shows) is :func:`description`, in the command line's language.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.commands import CommandError, error_text
from companion.i18n import _, current
from companion.messages import N_


def add_deck_options(parser, deck_help: str | None = None) -> None:
    """``--deck NAME`` and ``--data DIR``, shared by every command that reads cards."""
    parser.add_argument("--deck", metavar="NAME", help=deck_help or _("read with a deck learned by `companion deck learn`"))
    parser.add_argument("--data", metavar="DIR",
                        help=_("data folder holding learned decks (default $COMPANION_DATA, else companion-data)"))


def load_named_deck(args):
    """The deck ``--deck`` names (None without one); a clear error when it does not exist."""
    from companion.vision.decks.store import load_deck

    return load_deck(getattr(args, "deck", None), getattr(args, "data", None))


def description() -> str:
    """The help text in the command line's language (chosen before the parsers are built)."""
    return _(
        "`companion deck learn|list|show|remove`: teach the companion a player's own deck.\n"
        '\n'
        '    companion deck learn --name home spread.jpg                 # one photo of the whole deck, face up\n'
        '    companion deck learn --name home a.jpg b.jpg --parts        # the photos together show the deck once\n'
        '    companion deck learn --name home --set 17=6S spread.jpg     # name a card it was not sure of\n'
        '    companion deck learn --name scans cards/                    # a folder of 10c.jpg, QH.png, ..., back.png\n'
        '    companion detect --deck home photo.jpg\n'
        '\n'
        'Each photo shows every card of the deck face up once (dealt in rows or fanned so each corner index\n'
        'shows; jokers and a face-down card may be in it). Because each card is there once, the photos\n'
        'label themselves; cards it cannot place surely are listed by number, to name with `--set`\n'
        'or to re-photograph. Profiles live in the data folder (`--data`, else `$COMPANION_DATA`, else\n'
        "`companion serve`'s `companion-data`) under `decks/`.")


def register(subparsers) -> None:
    parser = subparsers.add_parser("deck", help=_("learn and manage the players' own decks"), description=description(),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="deck_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    learn = commands.add_parser("learn", help=_("learn a deck from photos of it (or a folder of card images)"),
                                description=description(), formatter_class=argparse.RawDescriptionHelpFormatter)
    learn.add_argument("photos", nargs="+", metavar="PHOTO", help=_("photos of the whole deck face up, or one folder of card images"))
    learn.add_argument("--name", required=True, help=_("the deck's name"))
    learn.add_argument("--data", metavar="DIR", help=_("data folder (default $COMPANION_DATA, else companion-data)"))
    learn.add_argument("--parts", action="store_true", help=_("the photos together, not each, show the deck once"))
    learn.add_argument("--set", action="append", default=[], metavar="NUMBER=CODE",
                       help=_("name card NUMBER (as listed by an earlier try) yourself, e.g. 17=6S; repeatable"))
    learn.add_argument("--replace", action="store_true", help=_("replace a deck of that name"))
    learn.add_argument("--json", action="store_true", help=_("print the result (every card found, its code and sureness) as JSON"))
    learn.add_argument("--crops", metavar="DIR", help=_("write a picture of each card it asks about to this folder"))
    learn.add_argument("--weights", metavar="PATH", help=_("folder with models.json and the ONNX files"))
    learn.set_defaults(handler=learn_command)
    listing = commands.add_parser("list", help=_("the learned decks"))
    listing.add_argument("--data", metavar="DIR")
    listing.set_defaults(handler=list_command)
    show = commands.add_parser("show", help=_("what a learned deck knows"))
    show.add_argument("name")
    show.add_argument("--data", metavar="DIR")
    show.set_defaults(handler=show_command)
    remove = commands.add_parser("remove", help=_("forget a learned deck"))
    remove.add_argument("name")
    remove.add_argument("--data", metavar="DIR")
    remove.set_defaults(handler=remove_command)


def _corrections(items: list[str]) -> dict[int, str]:
    from companion.cards import Card, InvalidCardError

    fixed = {}
    for item in items:
        number, _equals, code = item.partition("=")
        try:
            fixed[int(number)] = Card.parse(code).code
        except (ValueError, InvalidCardError):
            raise CommandError(_('--set %(item)s: expected NUMBER=CODE, e.g. 17=6S', item=repr(item))) from None
    return fixed


def learn_command(args) -> int:
    from companion.vision import Detector
    from companion.vision.decks.store import DeckStore
    from companion.vision.decks.teaching import teach, teaching_frames

    store = DeckStore(args.data)
    args.name = store.check_name(store.clean_name(args.name))   # in any language: --name 家里的牌
    if store.exists(args.name) and not args.replace:
        raise CommandError(_("a deck named %(name)s already exists in %(root)s: pick another name, or --replace it, or `companion deck "
                             "remove` it first",
                             name=repr(args.name), root=store.root))
    corrections = _corrections(args.set)
    try:
        teaching_frames(args.photos)    # unknown file names, two images of a card, unreadable photos: before the models load
    except ValueError as error:
        raise CommandError(error_text(error)) from None
    detector = Detector.load(args.weights, tile="auto")
    result = teach(detector, args.photos, args.name, parts=args.parts, corrections=corrections)
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        crops = _write_crops(result, args.crops) if args.crops else {}
        for number, card in result.asked():
            where = _("%(photo)s at (%(x)s, %(y)s)", photo=result.photos[card.photo], x=f"{card.box[0]:.0f}", y=f"{card.box[1]:.0f}")
            reading = _("read %(code)s?", code=card.code) if card.code else _("not placed")
            print(_("  #%(number)s: %(where)s: %(reading)s (classifier: %(guesses)s)", number=number, where=where, reading=reading,
                    guesses=current().words(card.guesses)) + (f" → {crops[number]}" if number in crops else ""))
        if result.cards and result.profile is not None and result.profile.info.get("source", "").startswith("photos"):
            print("  " + current().render(result.sureness))
    if not result.complete:
        say = current().render
        problems = [say(problem) for problem in result.problems] or [_("nothing could be learned from these photos")]
        raise CommandError(_("deck %(name)s not saved:", name=repr(args.name)) + "\n  " + "\n  ".join(problems))
    target = store.save(result.profile, replace=args.replace)
    for note in result.notes:
        print(_("  note: %(note)s", note=current().render(note)))
    info = result.profile.info
    print(_('learned deck %(name)s: %(cards)s cards, %(count)s index views%(value)s, in %(seconds)s s → %(target)s',
            name=repr(args.name), cards=info['cards'], count=len(result.profile.codes),
            value=_(", its back") if result.profile.back is not None else _(", no back seen"), seconds=format(result.seconds, '.1f'), target=target))
    return 0


def _write_crops(result, folder: str) -> dict[int, Path]:
    """A picture of each card learning asks about, ``card-<number>.jpg`` in ``folder`` (made if need be)."""
    import cv2

    from companion.vision.decks.result import card_crop
    from companion.vision.frames import load_image

    asked = result.asked()
    if not asked:
        return {}
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CommandError(_("--crops %(folder)s: cannot make that folder (%(error)s)", folder=folder, error=error)) from None
    frames = {}
    written = {}
    for number, card in asked:
        if card.photo not in frames:
            frames[card.photo] = load_image(result.photos[card.photo])
        path = target / f"card-{number}.jpg"
        if not cv2.imwrite(str(path), card_crop(frames[card.photo], card)):
            raise CommandError(_("--crops %(folder)s: cannot write %(path)s", folder=folder, path=path))
        written[number] = path
    return written


def list_command(args) -> int:
    """Each learned deck on a line; 1 when there are decks and none of them could be read, else 0."""
    from companion.vision.decks.store import DamagedDeck, DeckStore

    store = DeckStore(args.data)
    names = store.names()
    if not names:
        print(_('no decks learned in %(root)s (companion deck learn --name NAME PHOTO...)', root=store.root))
    damaged = 0
    for name in names:
        try:
            profile = store.load(name)
        except DamagedDeck as error:
            # One damaged deck hides none of the others (as the phones' /api/decks listing): it is listed as damaged,
            # naming the file that cannot be read and what the player can do.
            damaged += 1
            print(_("%(name)s: damaged, %(file)s cannot be read (teach it again, or `companion deck remove` it)",
                    name=name, file=error.file))
            continue
        print(_("%(name)s: %(get)s cards, learned %(get2)s from %(get3)s",
                name=name, get=profile.info.get('cards', '?'), get2=profile.info.get('created', '?'), get3=_source(profile.info)))
    return 1 if names and damaged == len(names) else 0


# Where a deck was learned from (profile.json's "source", as companion.vision.decks writes it), in words.
SOURCES = {"card images": N_("card images"), "card photos": N_("photos of single cards"), "photos": N_("photos of the whole deck"),
           "photos (parts)": N_("photos that together show the deck")}
# What `deck show` lists of a profile's info, in words (profile.json keeps the keys).
INFO_WORDS = {"created": N_("learned on"), "source": N_("learned from"), "photos": N_("photos"), "learn_seconds": N_("learning took (s)"),
              "none_floor": N_("none floor"), "self_check": N_("check on its own photos")}


def _source(info: dict) -> str:
    source = info.get("source", "?")
    return _(SOURCES[source]) if source in SOURCES else str(source)


def show_command(args) -> int:
    from companion.vision.decks.profile import DECK_CODES
    from companion.vision.decks.store import DeckStore

    profile = DeckStore(args.data).load(args.name)
    learned = profile.learned_codes
    print(_('%(name)s: %(count)s cards, %(count2)s index views, back %(value)s',
            name=profile.name, count=len(learned), count2=len(profile.codes), value=_("known") if profile.back is not None else _("not seen")))
    for key in ("created", "source", "photos", "learn_seconds", "none_floor", "self_check"):
        if key in profile.info:
            value = _source(profile.info) if key == "source" else profile.info[key]
            if isinstance(value, (dict, list)):
                value = json.dumps(value, ensure_ascii=False)
            print(_('  %(key)s: %(info)s', key=_(INFO_WORDS[key]), info=value))
    missing = [c for c in DECK_CODES if c not in learned]
    if missing:
        print(_('  not learned: %(missing)s', missing=' '.join(missing)))
    return 0


def remove_command(args) -> int:
    from companion.vision.decks.store import DeckStore

    DeckStore(args.data).remove(args.name)
    print(_('removed deck %(name)s', name=repr(args.name)))
    return 0
