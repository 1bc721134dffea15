"""The immutable state value of Guilds and Dungeon and the deep freeze/thaw used to build the next one.

``apply`` thaws a state into plain dicts and lists, changes that private copy, and freezes the result:
the given state is never touched, so an illegal event can raise at any point and leave it unchanged.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Iterable, Iterator

from companion.messages import Message


class FrozenMap(Mapping[str, Any]):
    """A hashable, immutable mapping (the frozen form of a dict inside the state)."""

    __slots__ = ("_data", "_hash")
    _data: dict[str, Any]
    _hash: int | None

    def __init__(self, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        object.__setattr__(self, "_data", dict(data))
        object.__setattr__(self, "_hash", None)

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(frozenset(self._data.items())))
        assert self._hash is not None   # set just above
        return self._hash

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("FrozenMap is immutable")

    def __reduce__(self) -> tuple[type["FrozenMap"], tuple[dict[str, Any]]]:
        """Pickled as the mapping it holds (a table pipeline's saved state holds a game's state)."""
        return (FrozenMap, (self._data,))

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


def freeze(value: Any) -> Any:
    kind = type(value)
    if kind is dict or isinstance(value, Mapping) and kind is not FrozenMap:
        return FrozenMap({key: item if type(item) in _PLAIN else freeze(item) for key, item in value.items()})
    if kind is list or kind is tuple:
        return tuple(item if type(item) in _PLAIN else freeze(item) for item in value)
    if kind is set:
        return frozenset(value)
    return value


_PLAIN = (str, int, bool, type(None))


def thaw(value: Any) -> Any:
    kind = type(value)
    if kind is FrozenMap:
        return {key: item if type(item) in _PLAIN else thaw(item) for key, item in value._data.items()}
    if kind is tuple:
        return [item if type(item) in _PLAIN else thaw(item) for item in value]
    if kind is frozenset:
        return set(value)
    return value


@dataclass(frozen=True)
class Player:
    """One seat as the referee knows it: a hand is a count plus the cards known to be in it."""

    name: str
    guild: str | None           # S, D, C or H once joined
    hand_count: int
    known: tuple[str, ...]      # cards known to be in the hand (the rest of it is unseen)
    rest: tuple[str, ...]       # the rest area, oldest first
    treasures: tuple[str, ...]
    trophies: tuple[str, ...]
    out: bool

    def thawed(self) -> dict[str, Any]:
        return {"name": self.name, "guild": self.guild, "hand_count": self.hand_count, "known": list(self.known),
                "rest": list(self.rest), "treasures": list(self.treasures), "trophies": list(self.trophies), "out": self.out}

    @classmethod
    def frozen(cls, work: Mapping[str, Any]) -> Player:
        return cls(work["name"], work["guild"], work["hand_count"], tuple(work["known"]), tuple(work["rest"]),
                   tuple(work["treasures"]), tuple(work["trophies"]), work["out"])


@dataclass(frozen=True)
class Encounter:
    """The encounter on the battlefield, from its reveal to its verdict."""

    revealer: int                        # the seat that revealed it
    card: str                            # the revealed card
    kind: str                            # mercenary (an enemy), treasure, scroll, trap
    multiplier: int                      # the doubling marker's factor on the enemy (1: none)
    multiplied_by: str | None            # the marker card that multiplied it
    friends: tuple[str, ...]             # enemies a low enemy called to its side
    extra_prizes: tuple[str, ...]
    commits: tuple[FrozenMap, ...]       # player, card (None while face down), side (players / enemy), round
    contenders: tuple[int, ...]          # seats still in a contest
    round: int                           # the contest's round
    passed: tuple[int, ...]
    entered: tuple[tuple[int, int], ...]  # (seat, round) of every commit or pass
    negotiable: bool
    trap: FrozenMap | None               # a revealed trap: its calls and its card
    hand_trap: FrozenMap | None          # a trap played from hand, until it is revealed
    friend_reveals_left: int
    primary_destroyed: bool              # a scroll destroyed the enemy itself
    card_gone: bool                      # the revealed card left the battlefield

    def thawed(self) -> dict[str, Any]:
        """The working copy: plain dicts and lists, keys in field order (the order the reveal creates)."""
        return {f.name: thaw(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def frozen(cls, work: Mapping[str, Any]) -> Encounter:
        return cls(**{f.name: freeze(work[f.name]) for f in fields(cls)})


@dataclass(frozen=True)
class DungeonState:
    """Everything the referee knows. Hands are ``count`` + the cards known to be in them."""

    setup: FrozenMap            # the setup the game was created from (players, options, seed, deal)
    options: FrozenMap          # every option with its value
    phase: str                  # guilds, redeal_four, reveal, friend, prize, fight, trap, over
    turn: int                   # the player who reveals next (or revealed the current encounter)
    players: tuple[Player, ...]       # one per seat
    dungeon: tuple[str, ...] | None   # the dungeon top first when its order is known (seeded or dealt), else None
    dungeon_count: int
    unseen: frozenset[str]            # cards whose place the referee does not know (hidden dungeon, hands, face down)
    marker: str | None          # the doubling marker laid left of the dungeon pile
    encounter: Encounter | None
    exile: tuple[str, ...]
    encounters: int             # encounters finished
    guild_round: FrozenMap      # guild choice bookkeeping (who redealt the 4 cards)
    result: FrozenMap | None
    history: tuple[FrozenMap, ...]    # one FrozenMap per finished encounter: what was revealed and the verdict
    log: tuple[Message, ...]

    def thawed(self) -> dict[str, Any]:
        work = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("dungeon", "unseen", "exile", "guild_round"):
            work[name] = thaw(work[name])
        work["encounter"] = None if self.encounter is None else self.encounter.thawed()
        work["players"] = [player.thawed() for player in self.players]
        work["new_log"] = []
        work["new_history"] = []
        return work

    @classmethod
    def frozen(cls, work: dict[str, Any]) -> "DungeonState":
        values = {}
        for f in fields(cls):
            if f.name in ("log", "history"):  # append-only: never thawed
                values[f.name] = work[f.name] + freeze(work["new_" + f.name])
            elif f.name == "players":
                values[f.name] = tuple(Player.frozen(player) for player in work["players"])
            elif f.name == "encounter":
                values[f.name] = None if work["encounter"] is None else Encounter.frozen(work["encounter"])
            else:
                values[f.name] = freeze(work[f.name])
        return cls(**values)
