"""The mechanism shared by the games' scenario files: reading one, replaying its events up to the first
refused one, and matching a partial expectation against a view.

What a scenario's ``expect`` block may say beyond a partial view (``illegal``, ``log_contains``,
``refused``) and how a failure is worded stays with each game, in ``companion.games.<game>.scenario``.
"""
from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from companion.games.base import Engine, IllegalEvent, InvalidSetup
from companion.messages import Message


def load_scenario(path: str | pathlib.Path) -> Any:
    """The parsed JSON of a scenario file, unchecked; InvalidSetup when it is not JSON (FileNotFoundError
    and other OSErrors pass through)."""
    try:
        return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InvalidSetup(Message('%(path)s: not valid JSON (%(error)s)', path=path, error=error)) from None


def compare_partial(expected: Any, actual: Any, where: str, failures: list[str], *,
                    mapping_word: str = "a mapping", show_expected_list: bool = False) -> None:
    """Appends to ``failures`` one line per way ``actual`` fails to match ``expected``: a mapping matches
    when each of its keys is there and matches, a list when it has the same length and every item matches,
    anything else by equality. ``where`` names ``actual`` (``view.players[0].score``).

    The wording differs slightly between games: ``mapping_word`` names what a non-mapping should have been,
    and a list of the wrong length is reported as ``expected N item(s)`` or, with ``show_expected_list``,
    by quoting the whole expected list."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            failures.append(f"{where}: expected {mapping_word}, got {actual!r}")
            return
        for key, value in expected.items():
            if key not in actual:
                failures.append(f"{where}.{key}: missing")
            else:
                compare_partial(value, actual[key], f"{where}.{key}", failures,
                                mapping_word=mapping_word, show_expected_list=show_expected_list)
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            shown = repr(expected) if show_expected_list else f"{len(expected)} item(s)"
            failures.append(f"{where}: expected {shown}, got {actual!r}")
            return
        for index, (e, a) in enumerate(zip(expected, actual)):
            compare_partial(e, a, f"{where}[{index}]", failures,
                            mapping_word=mapping_word, show_expected_list=show_expected_list)
    elif expected != actual:
        failures.append(f"{where}: expected {expected!r}, got {actual!r}")


@dataclass(frozen=True)
class Replay:
    """Where a replay ended: the state after the last accepted event, how many were accepted and, when
    one was refused, its number (counted from 1), the event itself and the engine's refusal."""

    state: Any
    applied: int
    refused: int | None = None
    event: Any = None
    refusal: IllegalEvent | None = None

    @property
    def reason(self) -> str:
        """The engine's refusal message, or "" when every event was accepted."""
        return "" if self.refusal is None else str(self.refusal)

    @property
    def error(self) -> str | None:
        """``event N (type): reason`` for the refused event, or None when every event was accepted."""
        if self.refusal is None:
            return None
        kind = self.event.get("type", "?") if isinstance(self.event, Mapping) else "?"
        return f"event {self.refused} ({kind}): {self.refusal}"

    @property
    def error_message(self) -> Message | None:
        """:attr:`error` as a message, shown in the reader's language (the event's type stays as typed)."""
        if self.refusal is None:
            return None
        kind = self.event.get("type", "?") if isinstance(self.event, Mapping) else "?"
        return Message("event %(number)s (%(type)s): %(reason)s", number=self.refused, type=kind, reason=self.refusal.message)


def replay_events(engine: Engine, state: Any, events: Iterable[Any]) -> Replay:
    """Applies ``events`` to ``state`` in order, stopping at the first one the engine refuses (the state
    stays as it was before it). Errors other than IllegalEvent pass through."""
    applied = 0
    for number, event in enumerate(events, start=1):
        try:
            state = engine.apply(state, event)
        except IllegalEvent as refusal:
            return Replay(state, applied, number, event, refusal)
        applied = number
    return Replay(state, applied)
