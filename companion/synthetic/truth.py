"""A recording's truth: what the pipeline must reach, and a detector that reports exactly what was drawn.

``truth.json`` holds the setup, the engine events the table implies and the final view;
``cards.jsonl.gz`` (optional) holds, per frame, every card a perfect detector would see.
"""
from __future__ import annotations

import gzip
import json
import pathlib

import numpy as np

from companion.games import get_engine
from companion.vision.detections import Detections

class TruthDetector:
    """A stand-in detector that reports exactly the cards the renderer drew, frame after frame.

    It exists to test the tracking, zones and bindings on realistic sequences (hands, moves, turns)
    independently of the neural detector; it is never used by ``companion table run`` on real input.
    """

    def __init__(self, frames_cards: list[list[dict]], confidence: float = 0.95) -> None:
        self.frames_cards = frames_cards
        self.confidence = confidence
        self.calls = 0
        # Which recorded frame is being read, when frames are skipped (a live source drops the ones
        # it cannot keep up with): a callable giving the frame's index in the recording.
        self.frame_index = None

    def following(self, source) -> "TruthDetector":
        """Reads the cards of the frame ``source`` (a live source, with ``index``) delivered last."""
        self.frame_index = lambda: source.index
        return self

    @classmethod
    def from_jsonl(cls, path: "str | pathlib.Path") -> "TruthDetector":
        """From ``cards.jsonl`` or ``cards.jsonl.gz`` (a file, or the recording folder holding it)."""
        path = pathlib.Path(path)
        if path.is_dir():
            path = next((path / n for n in ("cards.jsonl.gz", "cards.jsonl") if (path / n).is_file()), path / "cards.jsonl.gz")
        if not path.is_file():
            raise ValueError(f"no {path.name} in {path.parent}: render the recording with --card-truth")
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as handle:
            lines = handle.read().splitlines()
        return cls([json.loads(line)["cards"] for line in lines if line.strip()])

    def __call__(self, frame: np.ndarray) -> Detections:
        index = self.calls if self.frame_index is None else self.frame_index()
        cards = self.frames_cards[index] if 0 <= index < len(self.frames_cards) else []
        self.calls += 1
        if not cards:
            return Detections.empty()
        return Detections(np.array([c["box"] for c in cards], np.float32), np.full(len(cards), self.confidence, np.float32),
                          tuple(c["code"] for c in cards), np.array([c["center"] for c in cards], np.float32))


def replay_truth(truth: dict) -> dict:
    """The final state a recording's truth implies, replayed through today's engine.

    ``truth.json`` stores ``final_state`` for people to read, but comparisons use this: the events
    are the contract, and an engine whose view gained a field must not make old recordings wrong.
    """
    engine = get_engine(truth["game"])
    state = engine.new_game(truth["setup"])
    for event in list(truth.get("setup_events", [])) + list(truth["events"]):
        state = engine.apply(state, event)
    return json.loads(json.dumps(engine.view(state)))


def load_truth(folder: "str | pathlib.Path") -> dict:
    path = pathlib.Path(folder)
    path = path / "truth.json" if path.is_dir() else path
    if not path.is_file():
        raise ValueError(f"no truth.json in {folder}: render a recording with 'companion demo render'")
    return json.loads(path.read_text())
