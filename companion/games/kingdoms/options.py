"""The named rule options of Kingdoms. Every ruling of the rules page is the default; the other readings are options."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from companion.cards import Card
from companion.games.base import UnknownOption
from companion.games.kingdoms.pieces import Seating, decks_for, parse_wizard

RULE_SETS = ("poker", "knizia")
ORIENTATIONS = ("either", "wide", "tall")
TERRITORY_LIMITS = ("pile", "decks")

OPTION_HELP = {
    "rules": "poker (default: tiles scored, the dragon and gold mine act on tiles) or knizia (the boxed game: lines scored)",
    "decks": "how many poker decks are mixed: no grid may hold more copies of a card (default 2; 3 with 3 players)",
    "wizard": "knizia only: the card code that stands for the wizard, e.g. 7C (default none)",
    "auto_score": "score the round as the 30th card lands (default true)",
    "auto_turn_down": "turn resources in the dragon's lines face down by themselves (default true with poker rules)",
    "orientation": "either (default: 6 wide × 5 tall or 5 wide × 6 tall, fixed once unambiguous), wide or tall",
    "territory_limit": "pile (default: each territory card at most once per round, small joker twice) or decks",
    "strict_turns": "refuse a placement by a player whose turn it is not (default false: the referee may correct)",
    "rounds": "rounds in a game (default 3)",
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
            raise UnknownOption(f"options must be a mapping, got {type(options).__name__}")
        unknown = set(options) - set(OPTION_HELP)
        if unknown:
            raise UnknownOption(f"unknown Kingdoms option(s) {sorted(unknown)}; known: {', '.join(OPTION_HELP)}")
        rules = options.get("rules", "poker")
        if rules not in RULE_SETS:
            raise UnknownOption(f"rules must be one of {', '.join(RULE_SETS)}, got {rules!r}")
        decks = options.get("decks", seating.default_decks)
        if decks is None:
            decks = seating.default_decks
        if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 8:
            raise UnknownOption(f"decks must be a whole number from 1 to 8, got {decks!r}")
        wizard = options.get("wizard")
        if wizard is not None and rules != "knizia":
            raise UnknownOption("the wizard belongs to the knizia rule set: set rules to knizia to use it")
        wizard_card = parse_wizard(wizard, seating)
        flags = {}
        for name, default in (("auto_score", True), ("auto_turn_down", rules == "poker"), ("strict_turns", False)):
            value = options.get(name, default)
            if not isinstance(value, bool):
                raise UnknownOption(f"{name} must be true or false, got {value!r}")
            flags[name] = value
        orientation = options.get("orientation", "either")
        if orientation not in ORIENTATIONS:
            raise UnknownOption(f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r}")
        territory_limit = options.get("territory_limit", "pile")
        if territory_limit not in TERRITORY_LIMITS:
            raise UnknownOption(f"territory_limit must be one of {', '.join(TERRITORY_LIMITS)}, got {territory_limit!r}")
        rounds = options.get("rounds", 3)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 10:
            raise UnknownOption(f"rounds must be a whole number from 1 to 10, got {rounds!r}")
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
