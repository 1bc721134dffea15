"""Scenario files: a setup, an event log and optional expectations, replayed through the engine.

A scenario is JSON: ``{"name", "description", "setup", "events", "expect"}``. ``expect`` is a
partial public view (``ENGINE.view``): a mapping matches when each of its keys matches, a list when
it has the same length and every item matches, anything else by equality. Two keys are special:
``"log_contains"`` (lines the log must contain, as substrings) and ``"illegal"``
(``{"event": N, "message": "..."}``: event N, counted from 1, must be refused with that text in the
message; replay stops there). See docs/chosen.md.
"""
from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from companion.games.base import IllegalEvent, InvalidSetup
from companion.games.chosen.engine import ENGINE, State


@dataclass
class ScenarioResult:
    state: State
    applied: int                      # events applied before the end or the refused one
    error: str | None = None          # the refusal message, when an event was refused
    failures: list[str] = field(default_factory=list)  # expectations not met

    @property
    def ok(self) -> bool:
        return not self.failures


def load(path: str | pathlib.Path) -> dict:
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InvalidSetup(f"{path}: not valid JSON ({error})") from None
    if not isinstance(data, Mapping) or "setup" not in data or not isinstance(data.get("events", []), list):
        raise InvalidSetup(f"{path}: a scenario needs 'setup' and a list of 'events'")
    return dict(data)


def _compare(expected: Any, actual: Any, where: str, failures: list[str]) -> None:
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            failures.append(f"{where}: expected a mapping, got {actual!r}")
            return
        for key, value in expected.items():
            if key not in actual:
                failures.append(f"{where}.{key}: missing")
            else:
                _compare(value, actual[key], f"{where}.{key}", failures)
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            failures.append(f"{where}: expected {len(expected)} item(s), got {actual!r}")
            return
        for index, (e, a) in enumerate(zip(expected, actual)):
            _compare(e, a, f"{where}[{index}]", failures)
    elif expected != actual:
        failures.append(f"{where}: expected {expected!r}, got {actual!r}")


def run(scenario: Mapping[str, Any]) -> ScenarioResult:
    """Replays a scenario and checks its expectations. A refused event ends the replay: it is a
    failure unless ``expect.illegal`` names exactly that event."""
    expect = dict(scenario.get("expect") or {})
    illegal = expect.pop("illegal", None)
    log_contains = expect.pop("log_contains", [])
    state = ENGINE.new_game(scenario["setup"])
    result = ScenarioResult(state=state, applied=0)
    for number, event in enumerate(scenario.get("events", []), start=1):
        try:
            state = ENGINE.apply(state, event)
        except IllegalEvent as error:
            result.error = f"event {number} ({event.get('type', '?') if isinstance(event, Mapping) else '?'}): {error}"
            if not illegal or illegal.get("event") != number:
                result.failures.append(f"unexpected refusal of {result.error}")
            elif illegal.get("message", "") not in str(error):
                result.failures.append(f"event {number} refused with {str(error)!r}, expected {illegal['message']!r}")
            break
        result.applied = number
    else:
        if illegal:
            result.failures.append(f"event {illegal.get('event')} should have been refused but was accepted")
    result.state = state
    view = ENGINE.view(state)
    _compare(expect, view, "view", result.failures)
    for line in log_contains:
        if not any(line in entry for entry in view["log"]):
            result.failures.append(f"log has no line containing {line!r}")
    return result
