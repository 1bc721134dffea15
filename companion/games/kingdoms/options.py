"""The named rule options of Kingdoms. Every ruling of the rules page is the default; the other readings are options."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from companion.cards import Card
from companion.games.base import UnknownOption
from companion.games.kingdoms.pieces import Seating, decks_for, parse_wizard
from companion.messages import Message, N_

RULE_SETS = ("poker", "knizia")
ORIENTATIONS = ("either", "wide", "tall")
TERRITORY_LIMITS = ("pile", "decks")

OPTION_HELP = {
    "rules": N_("poker (default: tiles scored, the dragon and gold mine act on tiles) or knizia (the boxed game: lines scored)"),
    "decks": N_("how many poker decks are mixed: no grid may hold more copies of a card (default 2; 3 with 3 players)"),
    "wizard": N_("knizia only: the card code that stands for the wizard, e.g. 7C (default none)"),
    "auto_score": N_("score the round as the 30th card lands (default true)"),
    "auto_turn_down": N_("turn resources in the dragon's lines face down by themselves (default true with poker rules)"),
    "orientation": N_("either (default: 6 wide × 5 tall or 5 wide × 6 tall, fixed once unambiguous), wide or tall"),
    "territory_limit": N_("pile (default: each territory card at most once per round, small joker twice) or decks"),
    "strict_turns": N_("refuse a placement by a player whose turn it is not (default false: the referee may correct)"),
    "rounds": N_("rounds in a game (default 3)"),
}


@dataclass(frozen=True)
class Options:
    rules: str = "poker"
    decks: int = 2
    wizard: str | None = None
    auto_score: bool = True
    auto_turn_down: bool = True
    orientation: str = "either"
    territory_limit: str = "pile"
    strict_turns: bool = False
    rounds: int = 3

    @classmethod
    def from_json(cls, options: Any, seating: Seating) -> "Options":
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise UnknownOption(Message('options must be a mapping, got %(name)s', name=type(options).__name__))
        unknown = set(options) - set(OPTION_HELP)
        if unknown:
            raise UnknownOption(Message("unknown Kingdoms option(s) %(unknown)s; known: %(option_help)s",
                                        unknown=str(sorted(unknown)), option_help=list(OPTION_HELP)))
        rules = options.get("rules", "poker")
        if rules not in RULE_SETS:
            raise UnknownOption(Message('rules must be one of %(rule_sets)s, got %(rules)s', rule_sets=list(RULE_SETS), rules=repr(rules)))
        decks = options.get("decks", seating.default_decks)
        if decks is None:
            decks = seating.default_decks
        if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 8:
            raise UnknownOption(Message('decks must be a whole number from 1 to 8, got %(decks)s', decks=repr(decks)))
        wizard = options.get("wizard")
        if wizard is not None and rules != "knizia":
            raise UnknownOption(Message("the wizard belongs to the knizia rule set: set rules to knizia to use it"))
        wizard_card = parse_wizard(wizard, seating)
        flags = {}
        for name, default in (("auto_score", True), ("auto_turn_down", rules == "poker"), ("strict_turns", False)):
            value = options.get(name, default)
            if not isinstance(value, bool):
                raise UnknownOption(Message('%(name)s must be true or false, got %(value)s', name=name, value=repr(value)))
            flags[name] = value
        orientation = options.get("orientation", "either")
        if orientation not in ORIENTATIONS:
            raise UnknownOption(Message("orientation must be one of %(orientations)s, got %(orientation)s",
                                        orientations=list(ORIENTATIONS), orientation=repr(orientation)))
        territory_limit = options.get("territory_limit", "pile")
        if territory_limit not in TERRITORY_LIMITS:
            raise UnknownOption(Message("territory_limit must be one of %(territory_limits)s, got %(territory_limit)s",
                                        territory_limits=list(TERRITORY_LIMITS), territory_limit=repr(territory_limit)))
        rounds = options.get("rounds", 3)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 10:
            raise UnknownOption(Message('rounds must be a whole number from 1 to 10, got %(rounds)s', rounds=repr(rounds)))
        return cls(rules=rules, decks=decks, wizard=wizard_card.code if wizard_card else None,
                   orientation=orientation, territory_limit=territory_limit, rounds=rounds, **flags)

    @classmethod
    def defaults(cls, players: int) -> "Options":
        """The options of a table of ``players`` whose setup names none."""
        return cls(decks=decks_for(players))

    @property
    def wizard_card(self) -> Card | None:
        return Card.parse(self.wizard) if self.wizard else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# The referee's rulings where the seed is silent or loose (docs/kingdoms.md): (id, what the companion does,
# the option that selects another reading, or None).
RULINGS: tuple[tuple[str, str, str | None], ...] = (
    ("scoring", N_("Tiles are scored: the dragon first, then the gold mine, then each castle's row and column segment; "
                   "a gold mine doubles a resource for every castle that scores it."), "rules"),
    ("orientation", N_("The grid lies either way, 6 wide × 5 tall or 5 wide × 6 tall, fixed once the cards make it "
                       "unambiguous."), "orientation"),
    ("mountain-blocks", N_("A mountain splits its row and column: nothing reaches across it, neither castles nor the "
                           "dragon nor the gold mine."), None),
    ("dragon-face-down", N_("Resources in the dragon's lines are turned face down and count 0; a face-down card does not "
                            "block."), "auto_turn_down"),
    ("legal-cards", N_("Only the 22 territory cards and the seated players' castles are legal in the grid; any other card "
                       "is flagged."), "territory_limit"),
    ("castle-supply", N_("Rank-1 castles go back to their owner after each round; ranks 2, 3 and 4 are used once per game."), None),
    ("turns", N_("A card placed out of turn is accepted: the referee may correct whose turn it is."), "strict_turns"),
    ("rounds", N_("The game has three rounds; equal totals share the win."), "rounds"),
)


def rulings_view(options: Options) -> list[dict[str, Any]]:
    values = options.to_json()
    return [{"id": key, "ruling": text, "option": option, "value": values.get(option) if option else None}
            for key, text, option in RULINGS]
