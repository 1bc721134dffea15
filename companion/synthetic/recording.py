"""Synthetic table recordings: a seeded game played on the printed mat by a hand, seen by a camera.

A recording is a *script* of physical actions (place, turn, move, remove, a hand passing over) on a
mat drawn from its layout file, with cards from the project's own deck. The renderer plays the
script through a tilted camera with noise and blur and writes the frames (a JPEG folder or a video)
plus ``truth.json``: the setup, the engine events the table implies and the final engine view the
pipeline must reach.

    rec = build_scenario("kingdoms", seed=1)
    write_recording(rec, "out/kingdoms-1")     # frames/ or recording.mp4, and truth.json

The parts live in their own modules and are importable from here too: scenarios
(:mod:`companion.synthetic.scenarios`), rendering (:mod:`companion.synthetic.rendering`) and truth
(:mod:`companion.synthetic.truth`).
"""
from __future__ import annotations

import gzip
import json
import pathlib

import cv2

from companion.synthetic.rendering import FELT_BGR, SKIN_BGR, CameraSettings, RenderedFrame, Renderer, render_frames
from companion.synthetic.rendering import _Card as _Card  # tests build cards by hand
from companion.synthetic.scenarios import (SCENARIOS, Action, Scenario, build_scenario, chosen_scenario,
                                           dungeon_scenario, kingdoms_scenario)
from companion.synthetic.truth import TruthDetector, load_truth, replay_truth

__all__ = ["FELT_BGR", "SKIN_BGR", "SCENARIOS", "Action", "CameraSettings", "RenderedFrame", "Renderer", "Scenario",
           "TruthDetector", "build_scenario", "chosen_scenario", "dungeon_scenario", "kingdoms_scenario", "load_truth",
           "render_frames", "replay_truth", "write_recording"]


def write_recording(scenario: Scenario, out: "str | pathlib.Path", camera: CameraSettings | None = None,
                    video: bool = False, jpeg_quality: int = 85, card_truth: bool = False) -> dict:
    """Writes frames (``frames/NNNNNN.jpg`` or ``recording.mp4``) and ``truth.json``; returns the truth.

    ``card_truth`` also writes ``cards.jsonl.gz``: per frame, every card a perfect detector would see.
    """
    camera = camera or CameraSettings()
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    writer = None
    frames_dir = out / "frames"
    if video:
        path = out / "recording.mp4"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), camera.fps, (camera.width, camera.height))
        if not writer.isOpened():
            raise OSError(f"cannot write the video {path}: this OpenCV has no mp4v encoder")
    else:
        frames_dir.mkdir(exist_ok=True)
        for old in frames_dir.glob("*.jpg"):
            old.unlink()
    marks = []
    count = 0
    cards_log = gzip.open(out / "cards.jsonl.gz", "wt") if card_truth else None
    try:
        for rendered in render_frames(scenario, camera):
            if writer is not None:
                writer.write(rendered.image)
            else:
                cv2.imwrite(str(frames_dir / f"{count:06d}.jpg"), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
            marks.extend(rendered.marks)
            if cards_log is not None:
                cards_log.write(json.dumps({"time": round(rendered.time, 4), "cards": rendered.cards}) + "\n")
            count += 1
    finally:
        if writer is not None:
            writer.release()
        if cards_log is not None:
            cards_log.close()
    truth = {
        "game": scenario.game,
        "seed": scenario.seed,
        "description": scenario.description,
        "layout": scenario.layout.name,
        "fps": camera.fps,
        "frames": count,
        "size": [camera.width, camera.height],
        "source": "recording.mp4" if video else "frames",
        "setup": scenario.setup,
        "setup_events": scenario.setup_events,
        "events": scenario.events,
        "actions": marks,
        "final_state": scenario.final_view(),
    }
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth
