"""The table pipeline's speed on a rendered recording (2 cores are what the table laptop has).

* ``pipeline fps (neural detector)``: whole frames per second through mat locator, detector, tracker
  and binding, when the detector weights are installed (else the row says so); since issue 14 the
  detector re-reads only what changed (``bench_live`` compares that with reading in full).
* ``pipeline fps (perfect detector)``: the same without the neural network (the renderer's own card
  list stands in for it): what the rest of the pipeline costs.
* ``settle → event``: for every card the script lays, turns or moves, the time from the moment it
  came to rest (the hand let go) to the table event that reports it. A card read surely in two looks
  in a row with the hand gone settles at once (``TrackerConfig.sure_looks``), any other after
  ``settle_seconds`` (0.6 s), so this is mostly the hand leaving and those looks.
* ``mat locator``, ``tracker update``: per-frame medians of the two cheap steps.
"""
from __future__ import annotations

import statistics
import time

from companion.synthetic.recording import CameraSettings, TruthDetector, build_scenario, render_frames
from companion.table.pipeline import build_pipeline


def _frames(game: str, seed: int, camera: CameraSettings, limit: int | None):
    frames = list(render_frames(build_scenario(game, seed), camera))
    return frames[:limit] if limit else frames


def _latencies(frames, pipeline) -> list[float]:
    """Seconds from each completed action (the hand let go) to the first event on that card's track."""
    done = [(m["time"], m) for f in frames for m in f.marks if m["kind"] in ("place", "turn", "move")]
    events = [e for r in pipeline.history for e in r.table_events if e.type in ("placed", "turned", "moved")]
    latencies = []
    for at, _mark in done:
        after = [e.time - at for e in events if e.time >= at - 1e-6]
        if after:
            latencies.append(min(after))
    return latencies


def _run(frames, detector, game, scenario_setup, setup_events):
    pipeline = build_pipeline(game, detector, scenario_setup, setup_events)
    per_frame = []
    for f in frames:
        start = time.perf_counter()
        pipeline.process(f.time, f.image)
        per_frame.append(time.perf_counter() - start)
    return pipeline, per_frame


def run(quick: bool) -> list[dict]:
    rows = []
    game, seed = "dungeon", 1
    camera = CameraSettings(width=960, height=720, fps=8.0)
    scenario = build_scenario(game, seed)
    frames = _frames(game, seed, camera, 120 if quick else None)
    truth = TruthDetector([f.cards for f in frames])
    pipeline, per_frame = _run(frames, truth, game, scenario.setup, scenario.setup_events)
    rows.append({"name": "pipeline fps (perfect detector)", "median": 1 / statistics.median(per_frame), "unit": "frames/s",
                 "note": f"{len(frames)} frames {camera.width}x{camera.height}, {game} seed {seed}"})
    latencies = _latencies(frames, pipeline)
    if latencies:
        rows.append({"name": "settle → event (perfect detector)", "median": statistics.median(latencies), "unit": "s",
                     "note": f"{len(latencies)} actions; settled by evidence, else after settle_seconds=0.6"})
    # the two cheap steps alone
    locator = pipeline.locator
    timings = []
    for f in frames[:40]:
        start = time.perf_counter()
        locator.update(f.time, f.image, force=True)
        timings.append(time.perf_counter() - start)
    rows.append({"name": "mat locator (ArUco + homography)", "median": statistics.median(timings) * 1000, "unit": "ms",
                 "note": "forced every frame; by default it runs every 3 s"})
    try:
        from companion.vision import Detector, WeightsMissingError

        detector = Detector.load(tile="auto")  # as `companion table run` runs it
    except WeightsMissingError as error:
        rows.append({"name": "pipeline fps (neural detector)", "median": float("nan"), "unit": "frames/s",
                     "note": f"not measured: {str(error)[:60]}…"})
        return rows
    subset = frames[: 16 if quick else 64]   # seconds per frame on two cores: keep it short
    pipeline, per_frame = _run(subset, detector, game, scenario.setup, scenario.setup_events)
    rows.append({"name": "pipeline fps (neural detector)", "median": 1 / statistics.median(per_frame), "unit": "frames/s",
                 "note": f"{len(subset)} frames {camera.width}x{camera.height}, backend {getattr(detector, 'backend', '?')}"})
    latencies = _latencies(subset, pipeline)
    if latencies:
        rows.append({"name": "settle → event (neural detector)", "median": statistics.median(latencies), "unit": "s",
                     "note": f"{len(latencies)} actions"})
    return rows
