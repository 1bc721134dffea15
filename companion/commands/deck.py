"""``companion deck learn|list|show|remove``: teach the companion a player's own deck.

    companion deck learn --name home spread.jpg                 # one photo of the whole deck, face up
    companion deck learn --name home a.jpg b.jpg --parts        # the photos together show the deck once
    companion deck learn --name home --set 17=6S spread.jpg     # name a card it was not sure of
    companion deck learn --name scans cards/                    # a folder of 10c.jpg, QH.png, ..., back.png
    companion detect --deck home photo.jpg

Each photo shows every card of the deck face up once (dealt in rows or fanned so each corner index
shows; jokers and a face-down card may be in it). Because each card is there once, the photos
label themselves; cards it cannot place surely are listed by number, to name with ``--set``
or to re-photograph. Profiles live in the data folder (``--data``, else ``$COMPANION_DATA``, else
``companion serve``'s ``companion-data``) under ``decks/``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.commands import CommandError


def add_deck_options(parser, deck_help: str = "read with a deck learned by `companion deck learn`") -> None:
    """``--deck NAME`` and ``--data DIR``, shared by every command that reads cards."""
    parser.add_argument("--deck", metavar="NAME", help=deck_help)
    parser.add_argument("--data", metavar="DIR",
                        help="data folder holding learned decks (default $COMPANION_DATA, else companion-data)")


def load_named_deck(args):
    """The deck ``--deck`` names (None without one); a clear error when it does not exist."""
    from companion.vision.decks.store import load_deck

    return load_deck(getattr(args, "deck", None), getattr(args, "data", None))


def register(subparsers) -> None:
    parser = subparsers.add_parser("deck", help="learn and manage the players' own decks", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="deck_command", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    learn = commands.add_parser("learn", help="learn a deck from photos of it (or a folder of card images)",
                                description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    learn.add_argument("photos", nargs="+", metavar="PHOTO", help="photos of the whole deck face up, or one folder of card images")
    learn.add_argument("--name", required=True, help="the deck's name")
    learn.add_argument("--data", metavar="DIR", help="data folder (default $COMPANION_DATA, else companion-data)")
    learn.add_argument("--parts", action="store_true", help="the photos together, not each, show the deck once")
    learn.add_argument("--set", action="append", default=[], metavar="NUMBER=CODE",
                       help="name card NUMBER (as listed by an earlier try) yourself, e.g. 17=6S; repeatable")
    learn.add_argument("--replace", action="store_true", help="replace a deck of that name")
    learn.add_argument("--json", action="store_true", help="print the result (every card found, its code and sureness) as JSON")
    learn.add_argument("--weights", metavar="PATH", help="folder with models.json and the ONNX files")
    learn.set_defaults(handler=learn_command)
    listing = commands.add_parser("list", help="the learned decks")
    listing.add_argument("--data", metavar="DIR")
    listing.set_defaults(handler=list_command)
    show = commands.add_parser("show", help="what a learned deck knows")
    show.add_argument("name")
    show.add_argument("--data", metavar="DIR")
    show.set_defaults(handler=show_command)
    remove = commands.add_parser("remove", help="forget a learned deck")
    remove.add_argument("name")
    remove.add_argument("--data", metavar="DIR")
    remove.set_defaults(handler=remove_command)


def _corrections(items: list[str]) -> dict[int, str]:
    from companion.cards import Card, InvalidCardError

    fixed = {}
    for item in items:
        number, _, code = item.partition("=")
        try:
            fixed[int(number)] = Card.parse(code).code
        except (ValueError, InvalidCardError):
            raise CommandError(f"--set {item!r}: expected NUMBER=CODE, e.g. 17=6S") from None
    return fixed


def learn_command(args) -> int:
    from companion.vision import Detector, load_image
    from companion.vision.deck_folder import card_images
    from companion.vision.decks.folder import learn_from_folder
    from companion.vision.decks.photos import learn_from_photos
    from companion.vision.decks.store import DeckStore

    store = DeckStore(args.data)
    store.check_name(args.name)
    if store.exists(args.name) and not args.replace:
        raise CommandError(f"a deck named {args.name!r} already exists in {store.root}: pick another name, "
                           "or --replace it, or `companion deck remove` it first")
    corrections = _corrections(args.set)
    folders = [p for p in args.photos if Path(p).is_dir()]
    if folders and len(args.photos) > 1:
        raise CommandError("give either one folder of card images or photos, not both")
    frames = []
    if folders:
        card_images(folders[0])     # unknown file names, two images of a card, missing cards: before the models load
    else:
        for path in args.photos:
            try:
                frames.append((path, load_image(path)))
            except ValueError as error:
                raise CommandError(str(error)) from None
    detector = Detector.load(args.weights, tile="auto")
    if folders:
        result = learn_from_folder(detector, folders[0], args.name)
    else:
        result = learn_from_photos(detector, frames, args.name, parts=args.parts, corrections=corrections)
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        for number, card in result.asked():
            where = f"{result.photos[card.photo]} at ({card.box[0]:.0f}, {card.box[1]:.0f})"
            print(f"  #{number}: {where}: {'read ' + card.code + '?' if card.code else 'not placed'} "
                  f"(classifier: {', '.join(card.guesses)})")
    if not result.complete:
        problems = result.problems or ["nothing could be learned from these photos"]
        raise CommandError(f"deck {args.name!r} not saved:\n  " + "\n  ".join(problems))
    target = store.save(result.profile, replace=args.replace)
    for note in result.notes:
        print(f"  note: {note}")
    info = result.profile.info
    print(f"learned deck {args.name!r}: {info['cards']} cards, {len(result.profile.codes)} index views"
          f"{', its back' if result.profile.back is not None else ', no back seen'}, in {result.seconds:.1f} s → {target}")
    return 0


def list_command(args) -> int:
    from companion.vision.decks.store import DeckStore

    store = DeckStore(args.data)
    names = store.names()
    if not names:
        print(f"no decks learned in {store.root} (companion deck learn --name NAME PHOTO...)")
    for name in names:
        profile = store.load(name)
        print(f"{name}: {profile.info.get('cards', '?')} cards, learned {profile.info.get('created', '?')} "
              f"from {profile.info.get('source', '?')}")
    return 0


def show_command(args) -> int:
    from companion.vision.decks.profile import DECK_CODES
    from companion.vision.decks.store import DeckStore

    profile = DeckStore(args.data).load(args.name)
    learned = profile.learned_codes
    print(f"{profile.name}: {len(learned)} cards, {len(profile.codes)} index views, "
          f"back {'known' if profile.back is not None else 'not seen'}")
    for key in ("created", "source", "photos", "learn_seconds", "none_floor"):
        if key in profile.info:
            print(f"  {key}: {profile.info[key]}")
    missing = [c for c in DECK_CODES if c not in learned]
    if missing:
        print(f"  not learned: {' '.join(missing)}")
    return 0


def remove_command(args) -> int:
    from companion.vision.decks.store import DeckStore

    DeckStore(args.data).remove(args.name)
    print(f"removed deck {args.name!r}")
    return 0
