"""Self-play simulation: bots play many games through the real engines to measure the rules.

Each game has a module ``companion.simulate.<game>`` with ``STRATEGIES``, ``play_one`` and
``summarize``; :func:`companion.simulate.runner.simulate` runs them on all cores and aggregates
one report. The simulator sits above the engines and below the CLI.
"""
from __future__ import annotations

SIMULATED_GAMES = ("dungeon", "chosen")
