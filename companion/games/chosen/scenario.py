"""Scenario files: a setup, an event log and optional expectations, replayed through the engine.

A scenario is JSON: ``{"name", "description", "setup", "events", "expect"}``. ``expect`` is a
partial public view (``ENGINE.view``): a mapping matches when each of its keys matches, a list when
it has the same length and every item matches, anything else by equality. Two keys are special:
``"log_contains"`` (lines the log must contain, as substrings) and ``"illegal"``
(``{"event": N, "message": "..."}``: event N, counted from 1, must be refused with that text in the
message; replay stops there). See docs/chosen.md.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from companion.games.base import InvalidSetup
from companion.games.chosen.engine import ENGINE, State
from companion.games.scenario import compare_partial, load_scenario, replay_events
from companion.messages import Message, english, from_json


@dataclass
class ScenarioResult:
    state: State
    applied: int                      # events applied before the end or the refused one
    error: str | None = None          # the refusal message, when an event was refused
    error_message: Message | None = None   # the same, to show in the reader's language
    failures: list[str] = field(default_factory=list)  # expectations not met

    @property
    def ok(self) -> bool:
        return not self.failures


def load(path: str | pathlib.Path) -> dict[str, Any]:
    return checked(load_scenario(path), path)


def checked(data: Any, path: str | pathlib.Path) -> dict[str, Any]:
    """``data``, read from the file ``path``, as a scenario; InvalidSetup naming the file when it is none.
    Apart from :func:`load` so the command line can read the file its own way (its errors translated)."""
    if not isinstance(data, Mapping) or "setup" not in data or not isinstance(data.get("events", []), list):
        raise InvalidSetup(Message("%(path)s: a scenario needs 'setup' and a list of 'events'", path=path))
    return dict(data)


def run(scenario: Mapping[str, Any]) -> ScenarioResult:
    """Replays a scenario and checks its expectations. A refused event ends the replay: it is a
    failure unless ``expect.illegal`` names exactly that event."""
    expect = dict(scenario.get("expect") or {})
    illegal = expect.pop("illegal", None)
    log_contains = expect.pop("log_contains", [])
    replay = replay_events(ENGINE, ENGINE.new_game(scenario["setup"]), scenario.get("events", []))
    result = ScenarioResult(state=replay.state, applied=replay.applied, error=replay.error, error_message=replay.error_message)
    if replay.refused is not None:
        if not illegal or illegal.get("event") != replay.refused:
            result.failures.append(f"unexpected refusal of {result.error}")
        elif illegal.get("message", "") not in replay.reason:
            result.failures.append(f"event {replay.refused} refused with {replay.reason!r}, expected {illegal['message']!r}")
    elif illegal:
        result.failures.append(f"event {illegal.get('event')} should have been refused but was accepted")
    view = ENGINE.view(result.state)
    compare_partial(expect, view, "view", result.failures)
    for line in log_contains:
        if not any(line in english(from_json(entry)) for entry in view["log"]):   # the log's lines in English
            result.failures.append(f"log has no line containing {line!r}")
    return result
