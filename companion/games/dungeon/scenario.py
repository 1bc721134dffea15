"""Scenario files: a setup, an event log and optional expectations, replayed through the engine.

A scenario is JSON: ``{"name", "description", "players", "options", "seed", "deal", "events", "expect"}``
(the setup keys may also sit under ``"setup"``). ``expect`` is a partial referee view (``ENGINE.referee_view``):
a mapping matches when each of its keys matches, a list when it has the same length and every item
matches, anything else by equality. Two keys are special: ``"log_contains"`` (substrings the log must
contain) and ``"illegal"`` (``{"event": N, "message": "..."}``: event N, counted from 1, must be
refused with that text in its message; replay stops there). See docs/dungeon.md.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from companion.games.base import IllegalEvent, InvalidSetup
from companion.games.dungeon.engine import ENGINE
from companion.games.dungeon.state import DungeonState
from companion.games.scenario import compare_partial, load_scenario, replay_events
from companion.messages import Message, english, from_json

SETUP_KEYS = ("players", "options", "seed", "deal")


@dataclass
class ScenarioResult:
    state: DungeonState
    applied: int                      # events applied before the end or the refused one
    error: str | None = None          # the refusal message, when an event was refused
    error_message: Message | None = None   # the same, to show in the reader's language
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def load(path: str | pathlib.Path) -> dict[str, Any]:
    return checked(load_scenario(path), path)


def checked(data: Any, path: str | pathlib.Path) -> dict[str, Any]:
    """``data``, read from the file ``path``, as a scenario; InvalidSetup naming the file when it is none.
    Apart from :func:`load` so the command line can read the file its own way (its errors translated)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("events", []), list):
        raise InvalidSetup(Message("%(path)s: a scenario is an object with 'players' and a list of 'events'", path=path))
    if "setup" not in data and "players" not in data:
        raise InvalidSetup(Message("%(path)s: a scenario needs 'players' (or a 'setup' holding them)", path=path))
    return dict(data)


def setup_of(scenario: Mapping[str, Any]) -> dict[str, Any]:
    if "setup" in scenario:
        return dict(scenario["setup"])
    return {key: scenario[key] for key in SETUP_KEYS if key in scenario}


compare = compare_partial  # the name this module has always exported


def run(scenario: Mapping[str, Any]) -> ScenarioResult:
    """Replays the events; an unexpected refusal is a failure when there are expectations, else raised."""
    state = ENGINE.new_game(setup_of(scenario))
    expect = dict(scenario.get("expect") or {})
    illegal = expect.pop("illegal", None)
    log_contains = expect.pop("log_contains", [])
    replay = replay_events(ENGINE, state, scenario.get("events", []))
    applied, error = replay.applied, replay.error
    result = ScenarioResult(replay.state, applied, error, error_message=replay.error_message)
    if illegal:
        if error is None or applied != illegal["event"] - 1:
            result.failures.append(f"event {illegal['event']} should have been refused; refused: {error}")
        elif illegal.get("message", "") not in error:
            result.failures.append(f"event {illegal['event']} refused with {error!r}, expected {illegal['message']!r}")
    elif error is not None:
        if expect or log_contains:
            result.failures.append(f"refused {error}")
        else:
            raise IllegalEvent(error)
    view = ENGINE.referee_view(result.state)
    compare_partial(expect, view, "view", result.failures)
    log = "\n".join(english(from_json(entry)) for entry in view["log"])   # the log's lines in English
    for text in log_contains:
        if text not in log:
            result.failures.append(f"the log does not contain {text!r}")
    return result
