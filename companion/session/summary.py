"""A table's summary: what the evening's list and the players' records show without replaying the game.

One row per table, written in the same transaction as each change (so it is never behind the journal,
a crash or kill -9 included): the game, the players with their scores, the winners, the state and the
times. It is derived from the engine's ``result`` (the same account the result page reads) and its
public view only, so it can always be made again from the journal (a table whose row is missing, e.g.
one stored before summaries existed, gets it when loaded).

Each game's score, in its own terms: Kingdoms the players' totals over the rounds scored, Guilds and
Dungeon the treasures each holds (what the game is won by, with the high trophies), The Chosen the chips
(points) from the vault: the ``unit`` of the engine's result.
"""
from __future__ import annotations

import unicodedata
from typing import Any, Mapping

PLAYING, FINISHED, DELETED = "playing", "finished", "deleted"
STATES = (PLAYING, FINISHED, DELETED)


def summarize(game: str, view: Mapping[str, Any], result: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"state", "players": [{"name", "score"}], "winners": [names]}``: from the engine's ``result`` (its own
    account of the scores, which the result page shows too) where it has one, the players in seating order
    from its public view; from the view alone for an engine without ``result``."""
    players = [p for p in view.get("players") or [] if isinstance(p, Mapping) and isinstance(p.get("name"), str)]
    if result is not None:
        ranking = {row["player"]: row.get("score") for row in result.get("ranking") or [] if isinstance(row, Mapping)}
        names = [p["name"] for p in players] or list(ranking)
        finished = bool(result.get("finished"))
        return {"state": FINISHED if finished else PLAYING,
                "players": [{"name": name, "score": _number(ranking.get(name))} for name in names],
                "winners": [w for w in result.get("winners") or [] if isinstance(w, str)] if finished else []}
    winners: list[str] = []
    finished = False
    scores: dict[str, Any] = {}
    if game == "kingdoms":
        finished = bool(view.get("finished"))
        totals = view.get("totals") or {}
        scores = {p["name"]: totals.get(p["name"], p.get("total")) for p in players}
        winners = list(view.get("winners") or [])
    elif game == "dungeon":
        result = view.get("result")
        finished = view.get("phase") == "over"
        scores = {p["name"]: len(p.get("treasures") or []) for p in players}
        winners = list((result or {}).get("winner_names") or [])
    elif game == "chosen":
        finished = view.get("phase") == "over"
        scores = {p["name"]: p.get("score") for p in players}
        winners = list(view.get("winners") or [])
    else:   # another engine (a test's): the common keys, where it has them
        finished = bool(view.get("finished")) or view.get("phase") == "over"
        scores = {p["name"]: p.get("score", p.get("total")) for p in players}
        winners = [w for w in view.get("winners") or [] if isinstance(w, str)]
    return {"state": FINISHED if finished else PLAYING,
            "players": [{"name": p["name"], "score": _number(scores.get(p["name"]))} for p in players],
            "winners": [w for w in winners if isinstance(w, str)] if finished else []}


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def player_key(name: str) -> str:
    """Who a typed name is: the same name is the same player, whatever its letter case, its width (full-width
    letters typed on a Chinese keyboard) or the spaces around it. Nothing else is guessed (the host merges
    two names that are one person)."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())
