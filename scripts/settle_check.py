"""How soon cards settle, and whether anything settles that should not: recordings through the live path
with the shipped neural detector, the tracker's inputs kept, then replayed through the tracker and the
binding with the tracker's settings as they are and with the old constant settle (``TrackerConfig(
sure_looks=0)``), side by side.

    PYTHONPATH=. .venv/bin/python scripts/settle_check.py                         # the three demos, both paces
    PYTHONPATH=. .venv/bin/python scripts/settle_check.py --seeds 61,62,63 --games chosen,kingdoms
    PYTHONPATH=. .venv/bin/python scripts/settle_check.py --no-demos --seeds 71 --json

Paces: ``live`` is ``companion table run --live --frame-cost work`` (the recording at its own frame rate
on the simulated 2-core laptop, the frames it cannot keep up with dropped); ``every`` reads every frame
(a table computer that keeps up with its camera). Per recording and pace: whether the final state
equals the truth, the table events (type, card, zone) the evidence rule adds or loses against the
constant settle, and the time from each action (the hand letting go, ``truth.json``'s ``actions``) to
its first placed / turned / moved event: median and 95th percentile. The still real tables are
``python -m vision_models.checks.still_table`` (the same tracker settings; ``--constant-settle`` there).

The tracker's inputs are kept in ``var/settle_check`` with the reader's fingerprint (the still table
check's): replays take seconds; a change to the reading code reads the recordings anew. Recordings of
new seeds are rendered there with ``companion demo render --game G --seed S`` (its defaults).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
from collections import Counter
from dataclasses import replace

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CACHE = ROOT / "var" / "settle_check"
ACTED = ("place", "turn", "move")
SETTLED = ("placed", "turned", "moved")


def recording(source: str) -> pathlib.Path:
    """``demo:GAME`` or ``seed:GAME:S`` as a folder with a truth.json (a seed rendered on first use)."""
    from companion.table.demos import demo_dir

    kind, game, *rest = source.split(":")
    if kind == "demo":
        return demo_dir(game)
    folder = CACHE / "recordings" / f"{game}-{rest[0]}"
    if not (folder / "truth.json").exists():
        subprocess.run([sys.executable, "-m", "companion", "demo", "render", "--game", game, "--seed", rest[0],
                        "--out", str(folder)], check=True, cwd=ROOT)
    return folder


def _media(folder: pathlib.Path) -> str:
    video = folder / "recording.mp4"
    return str(video if video.exists() else folder)


def record(detector, game: str, folder: pathlib.Path, pace: str) -> dict:
    """The recording through the pipeline; every input its tracker got, as still_table keeps them."""
    from companion.synthetic.truth import load_truth
    from companion.table.live import LiveSource, SimulatedClock, WorkCost, run_live
    from companion.table.pipeline import build_pipeline
    from companion.table.sources import open_source
    from vision_models.checks.still_table import _recording_tracker

    truth = load_truth(folder)
    pipeline = build_pipeline(game, detector, truth["setup"], truth.get("setup_events", []))
    inputs: list = []
    _recording_tracker(pipeline, inputs)
    source = open_source(_media(folder))
    try:
        if pace == "live":
            summary = run_live(pipeline, LiveSource(source, SimulatedClock(WorkCost())), flush_seconds=pipeline.end_hold_seconds)
        else:
            summary = pipeline.run(iter(source), flush_seconds=pipeline.end_hold_seconds)
    finally:
        source.close()
    return {"units": pipeline.units, "frames": inputs, "frames_read": summary.get("live", {}).get("frames_read", len(inputs))}


def inputs_for(detector_factory, game: str, folder: pathlib.Path, pace: str, label: str) -> dict:
    from vision_models.checks.still_table import _reader_fingerprint

    path = CACHE / f"{label.replace(':', '-')}-{pace}.json"
    if path.exists():
        kept = json.loads(path.read_text())
        if kept.get("reader") == _reader_fingerprint():
            return kept
    kept = {"reader": _reader_fingerprint(), **record(detector_factory(), game, folder, pace)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept))
    return kept


def replay(game: str, truth: dict, kept: dict, tracker) -> dict:
    """The kept inputs through a fresh pipeline's tracker (with ``tracker``'s settings) and binding."""
    from companion.synthetic.recording import replay_truth
    from companion.synthetic.truth import TruthDetector
    from companion.table.bindings import BINDINGS
    from companion.table.pipeline import build_pipeline
    from vision_models.checks.still_table import _replay

    config = replace(tracker, copies=BINDINGS[game].card_copies(truth["setup"]))
    pipeline = build_pipeline(game, TruthDetector([]), truth["setup"], truth.get("setup_events", []), tracker=config)
    if kept["units"] == "mm":
        pipeline.binding.on_mat_found()
    events = _replay(pipeline, kept["frames"])
    state = json.loads(json.dumps(pipeline.binding.view()))
    changes = [e for e in events if e.type in SETTLED]
    waits = []
    for action in (a for a in truth["actions"] if a["kind"] in ACTED):
        after = [e.time for e in changes if e.time >= action["time"] - 1e-6]
        if after:
            waits.append(min(after) - action["time"])
    return {"equal": state == replay_truth(truth), "events": [(e.type, e.card, e.zone) for e in events],
            "waits": waits}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else float("nan")


def compare(game: str, folder: pathlib.Path, kept: dict, tracker) -> dict:
    from companion.synthetic.truth import load_truth

    truth = load_truth(folder)
    old = replay(game, truth, kept, replace(tracker, sure_looks=0))
    new = replay(game, truth, kept, tracker)
    before, after = Counter(map(tuple, old["events"])), Counter(map(tuple, new["events"]))
    return {"frames_read": kept["frames_read"], "equal_before": old["equal"], "equal": new["equal"],
            "added": sorted((after - before).elements()), "lost": sorted((before - after).elements()),
            "wait_before": [round(statistics.median(old["waits"]), 3), round(p95(old["waits"]), 3)] if old["waits"] else None,
            "wait": [round(statistics.median(new["waits"]), 3), round(p95(new["waits"]), 3)] if new["waits"] else None,
            "actions": len(new["waits"]), "waits": new["waits"], "waits_before": old["waits"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="kingdoms,dungeon,chosen")
    parser.add_argument("--seeds", default="", help="new seeds to render and read, comma-separated")
    parser.add_argument("--no-demos", action="store_true", help="only the seeds")
    parser.add_argument("--paces", default="live,every")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from companion.table.tracker import TrackerConfig
    from companion.vision import Detector

    detector = None

    def factory():
        nonlocal detector
        detector = detector or Detector.load(tile="auto")
        return detector

    games = args.games.split(",")
    sources = ([] if args.no_demos else [f"demo:{g}" for g in games]) + \
        [f"seed:{g}:{s}" for s in args.seeds.split(",") if s for g in games]
    results, all_waits, all_before, trouble = {}, [], [], 0
    for source in sources:
        game = source.split(":")[1]
        folder = recording(source)
        for pace in args.paces.split(","):
            kept = inputs_for(factory, game, folder, pace, source)
            result = compare(game, folder, kept, TrackerConfig())
            results[f"{source} {pace}"] = result
            all_waits += result["waits"]
            all_before += result["waits_before"]
            trouble += bool(result["added"]) or (result["equal_before"] and not result["equal"])
            if not args.json:
                print(f"{source:18} {pace:6} read {result['frames_read']:3}  truth {'equal' if result['equal'] else 'DIFFERS'}"
                      f" (before: {'equal' if result['equal_before'] else 'differs'})  wait median/p95 {result['wait']}"
                      f" (before {result['wait_before']}, {result['actions']} actions)  added {result['added']}  lost {result['lost']}",
                      flush=True)
    summary = {"wait": [round(statistics.median(all_waits), 3), round(p95(all_waits), 3)] if all_waits else None,
               "wait_before": [round(statistics.median(all_before), 3), round(p95(all_before), 3)] if all_before else None,
               "actions": len(all_waits), "recordings_with_new_events_or_lost_truth": trouble}
    if args.json:
        print(json.dumps({"results": results, "summary": summary}, indent=1))
    else:
        print(f"all: wait median/p95 {summary['wait']} s (constant settle: {summary['wait_before']} s) over {summary['actions']} actions; "
              f"{trouble} recording(s) with new events or a truth lost")
    return 1 if trouble else 0


if __name__ == "__main__":
    sys.exit(main())
