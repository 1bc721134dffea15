"""The shipped demo recordings (``demo/<game>/``): what ``companion serve --demo GAME`` plays.

Each folder holds ``recording.mp4`` (a rendered table, small), ``truth.json`` (setup, the engine
events the table implies, the final state) and ``cards.jsonl.gz`` (what a perfect detector would see
in each frame, used only when the neural detector's weights are not installed). The stand-in
detector answers frame after frame, so play every frame of the recording, in order.

    pipeline, source = open_demo("kingdoms")
    for time, frame in source:
        result = pipeline.process(time, frame)      # result.engine_events, result.questions
"""
from __future__ import annotations

import json
import os
import pathlib

from companion.table.pipeline import TablePipeline, build_pipeline
from companion.table.sources import FrameSource, open_source

DEMO_GAMES = ("kingdoms", "dungeon", "chosen")


def demo_root() -> pathlib.Path:
    """``$COMPANION_DEMO_DIR`` if set, else the repository's ``demo/`` folder."""
    configured = os.environ.get("COMPANION_DEMO_DIR")
    return pathlib.Path(configured) if configured else pathlib.Path(__file__).resolve().parents[2] / "demo"


def demo_dir(game: str) -> pathlib.Path:
    if game not in DEMO_GAMES:
        raise ValueError(f"no demo for {game!r}: demos are {', '.join(DEMO_GAMES)}")
    folder = demo_root() / game
    if not (folder / "truth.json").is_file():
        raise ValueError(f"the {game} demo recording is missing from {folder} "
                         f"(render one: companion demo render --game {game} --seed 1 --out {folder} --video --card-truth)")
    return folder


def demo_truth(game: str) -> dict:
    return json.loads((demo_dir(game) / "truth.json").read_text())


def demo_detector(game: str, prefer: str = "auto"):
    """The neural detector when its weights are installed, else the recording's own card list.

    ``prefer="truth"`` always uses the card list (tests of the tracking only); the second value says
    which one was chosen (``"neural"`` or ``"truth"``).
    """
    from companion.synthetic.recording import TruthDetector

    if prefer != "truth":
        from companion.vision import Detector, WeightsMissingError

        try:
            return Detector.load(tile="auto"), "neural"
        except WeightsMissingError:
            if prefer == "neural":
                raise
    return TruthDetector.from_jsonl(demo_dir(game)), "truth"


def open_demo(game: str, prefer: str = "auto") -> tuple[TablePipeline, FrameSource]:
    """A pipeline set up like the recording's table, and the recording as a frame source."""
    truth = demo_truth(game)
    detector, _ = demo_detector(game, prefer)
    pipeline = build_pipeline(game, detector, truth["setup"], truth.get("setup_events", []))
    return pipeline, open_source(str(demo_dir(game)))
