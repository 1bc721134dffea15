"""Scenario files: a setup, an event log and optional expectations, replayed through the engine.

A scenario is JSON: ``{"name", "description", "players", "options", "seed", "deal", "events", "expect"}``
(the setup keys may also sit under ``"setup"``). ``expect`` is a partial referee view (``ENGINE.referee_view``):
a mapping matches when each of its keys matches, a list when it has the same length and every item
matches, anything else by equality. Two keys are special: ``"log_contains"`` (substrings the log must
contain) and ``"illegal"`` (``{"event": N, "message": "..."}``: event N, counted from 1, must be
refused with that text in its message; replay stops there). See docs/dungeon.md.
"""
from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from companion.games.base import IllegalEvent, InvalidSetup
from companion.games.dungeon.engine import ENGINE
from companion.games.dungeon.state import DungeonState

SETUP_KEYS = ("players", "options", "seed", "deal")


@dataclass
class ScenarioResult:
    state: DungeonState
    applied: int                      # events applied before the end or the refused one
    error: str | None = None          # the refusal message, when an event was refused
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def load(path: str | pathlib.Path) -> dict:
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InvalidSetup(f"{path}: not valid JSON ({error})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("events", []), list):
        raise InvalidSetup(f"{path}: a scenario is an object with 'players' and a list of 'events'")
    if "setup" not in data and "players" not in data:
        raise InvalidSetup(f"{path}: a scenario needs 'players' (or a 'setup' holding them)")
    return dict(data)


def setup_of(scenario: Mapping) -> dict:
    if "setup" in scenario:
        return dict(scenario["setup"])
    return {key: scenario[key] for key in SETUP_KEYS if key in scenario}


def compare(expected: Any, actual: Any, where: str, failures: list[str]) -> None:
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            failures.append(f"{where}: expected a mapping, got {actual!r}")
            return
        for key, value in expected.items():
            if key not in actual:
                failures.append(f"{where}.{key}: missing")
            else:
                compare(value, actual[key], f"{where}.{key}", failures)
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            failures.append(f"{where}: expected {len(expected)} item(s), got {actual!r}")
            return
        for index, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{where}[{index}]", failures)
    elif expected != actual:
        failures.append(f"{where}: expected {expected!r}, got {actual!r}")


def run(scenario: Mapping) -> ScenarioResult:
    """Replays the events; an unexpected refusal is a failure when there are expectations, else raised."""
    state = ENGINE.new_game(setup_of(scenario))
    expect = dict(scenario.get("expect") or {})
    illegal = expect.pop("illegal", None)
    log_contains = expect.pop("log_contains", [])
    applied, error = 0, None
    for number, event in enumerate(scenario.get("events", []), start=1):
        try:
            state = ENGINE.apply(state, event)
        except IllegalEvent as refusal:
            kind = event.get("type", "?") if isinstance(event, Mapping) else "?"
            error = f"event {number} ({kind}): {refusal}"
            break
        applied = number
    result = ScenarioResult(state, applied, error)
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
    view = ENGINE.referee_view(state)
    compare(expect, view, "view", result.failures)
    log = "\n".join(view["log"])
    for text in log_contains:
        if text not in log:
            result.failures.append(f"the log does not contain {text!r}")
    return result
