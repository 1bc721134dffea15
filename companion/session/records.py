"""Players' records across the games of one server, from the tables' summary rows (no journal replayed).

A player is a typed name: the same name (``summary.player_key``: letter case, width and spaces aside) is
the same player at every table, and two names the host merged (``player_aliases``) are one. Only finished
games count: a game still being played has no winner yet.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from companion.session.store import TableSummary
from companion.session.summary import FINISHED, player_key

# A merge names another merged name at most this deep (a chain the host made one merge at a time); the bound
# only keeps a cycle, which set_alias refuses, from looping forever.
MAX_ALIAS_CHAIN = 32


def resolve(key: str, aliases: Mapping[str, str]) -> str:
    """The key of the player a name's key is (following the host's merges)."""
    for _step in range(MAX_ALIAS_CHAIN):
        if key not in aliases:
            return key
        key = aliases[key]
    return key


@dataclass
class GameRecord:
    games: int = 0
    wins: int = 0
    scores: list = field(default_factory=list)

    def to_json(self) -> dict:
        scored = [s for s in self.scores if s is not None]
        return {"games": self.games, "wins": self.wins,
                "average": round(sum(scored) / len(scored), 1) if scored else None,
                "best": max(scored) if scored else None}


@dataclass
class PlayerRecord:
    key: str
    name: str = ""            # the spelling of the player's newest game
    names: set = field(default_factory=set)   # every spelling typed (merged names included)
    games: int = 0
    wins: int = 0
    last_played: float = 0.0
    by_game: dict = field(default_factory=dict)
    tables: list = field(default_factory=list)   # (summary, name as typed there, score, won), newest first

    def to_json(self, with_tables: bool = False) -> dict:
        out = {"key": self.key, "name": self.name, "names": sorted(self.names), "games": self.games, "wins": self.wins,
               "last_played": self.last_played, "by_game": {game: record.to_json() for game, record in sorted(self.by_game.items())}}
        if with_tables:
            out["tables"] = [{"id": s.table_id, "game": s.game, "name": name, "score": score, "won": won,
                              "winners": s.winners, "players": s.players, "finished_at": s.updated_at}
                             for s, name, score, won in self.tables]
        return out


def player_records(summaries: Iterable[TableSummary], aliases: Mapping[str, str]) -> dict[str, PlayerRecord]:
    """Each player's record, by player key, from the finished tables among ``summaries``."""
    records: dict[str, PlayerRecord] = {}
    for summary in sorted(summaries, key=lambda s: s.updated_at, reverse=True):
        if summary.state != FINISHED:
            continue
        winners = {player_key(name) for name in summary.winners}
        seen: set[str] = set()
        for player in summary.players:
            name = player.get("name")
            if not isinstance(name, str) or not name.strip():
                continue
            key = resolve(player_key(name), aliases)
            if key in seen:   # two seats one player (merged names): the table counts once
                continue
            seen.add(key)
            record = records.setdefault(key, PlayerRecord(key))
            won = player_key(name) in winners
            score = player.get("score")
            if not record.name:
                record.name = name.strip()
            record.names.add(name.strip())
            record.games += 1
            record.wins += won
            record.last_played = max(record.last_played, summary.updated_at)
            per_game = record.by_game.setdefault(summary.game, GameRecord())
            per_game.games += 1
            per_game.wins += won
            per_game.scores.append(score)
            record.tables.append((summary, name, score, won))
    return records
