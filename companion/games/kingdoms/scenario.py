"""Kingdoms scenarios: a setup, a list of events and what the table must look like afterwards.

A scenario is JSON ``{"name", "description", "setup", "events", "expect"}``. The events are
applied in order; the first refused one stops the replay (the state stays as it was before it).
``expect`` holds keys of :meth:`KingdomsEngine.view` whose values must match (mappings match
when every expected key matches, lists element by element), plus ``"refused"``:
``{"event": n, "message": "part of the reason"}`` (n is 1-based) or ``null`` for "nothing refused".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from companion.games.base import GameError
from companion.games.kingdoms.engine import ENGINE, KingdomsState
from companion.games.scenario import compare_partial, replay_events
from companion.messages import Message


@dataclass(frozen=True)
class ScenarioResult:
    state: KingdomsState
    applied: int
    refused: dict[str, Any] | None          # {"event": n, "message": reason} for the event that stopped the replay
    failures: tuple[str, ...]


def _mismatches(expected: Any, actual: Any, where: str) -> list[str]:
    problems: list[str] = []
    compare_partial(expected, actual, where, problems, mapping_word="an object", show_expected_list=True)
    return problems


def run(scenario: Mapping[str, Any]) -> ScenarioResult:
    """Replay a scenario; GameError when the scenario itself is malformed or its setup illegal."""
    if not isinstance(scenario, Mapping) or not isinstance(scenario.get("setup"), Mapping):
        raise GameError(Message("a scenario is an object with \"setup\", \"events\" and \"expect\""))
    events = scenario.get("events", [])
    expect = scenario.get("expect", {})
    if not isinstance(events, list) or not isinstance(expect, Mapping):
        raise GameError(Message("scenario \"events\" must be a list and \"expect\" an object"))
    replay = replay_events(ENGINE, ENGINE.new_game(scenario["setup"]), events)
    state, applied = replay.state, replay.applied
    refused: dict[str, Any] | None = None if replay.refused is None else {"event": replay.refused, "message": replay.reason}
    failures = []
    view = ENGINE.view(state)
    for key, value in expect.items():
        if key == "refused":
            if value is None:
                if refused is not None:
                    failures.append(f"refused: event {refused['event']} was refused: {refused['message']}")
            elif refused is None:
                failures.append(f"refused: expected event {value.get('event')} to be refused, all were applied")
            else:
                if "event" in value and value["event"] != refused["event"]:
                    failures.append(f"refused: expected event {value['event']}, "
                                    f"but event {refused['event']} was refused: {refused['message']}")
                if value.get("message", "") not in refused["message"]:
                    failures.append(f"refused: reason {refused['message']!r} lacks {value['message']!r}")
        elif key not in view:
            failures.append(f"{key}: the view has no such key")
        else:
            failures += _mismatches(value, view[key], key)
    if refused is not None and "refused" not in expect:
        failures.append(f"event {refused['event']} was refused: {refused['message']}")
    return ScenarioResult(state, applied, refused, tuple(failures))
