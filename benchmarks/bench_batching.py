"""Cross-table batching (issue 23): tables that still send frames, read by one shared detector whose
networks run every table's images handed in while busy as one call (``companion.vision.batching``).

Side by side in one run, the same live tables (the Kingdoms demo's 30-card stretch at 5 frames/s, as
``bench_live``'s "live tables" row; each table its own pipeline, read incrementally, in its own
thread) read by three shared detectors: each call on its own (today's server), the classifier's
crops batched across tables, and both networks batched (the detector's windows too, a frame's
windows in one call). For each: the most tables none of which falls behind (each reads at least
95 % of its frames), and the frames read per second by 6 tables together, with the images per
inference call it came to. The configurations take turns at each table count, so a load that comes
and goes on the machine weighs on all three alike.
"""
from __future__ import annotations

import statistics
import sys
import threading
import time

from bench_live import KEEPS_UP_SHARE, ListSource, _kingdoms, _kingdoms_stretch

from companion.table.live import LiveSource, WallClock

CONFIGURATIONS = (("each call on its own", None), ("classifier batched", "classifier"), ("both networks batched", "both"),
                  ("both batched, two calls at a time", "both:2"))


def _tables(detector, frames, count: int, fps: float) -> tuple[float, float, float]:
    """``count`` live tables on one detector: (the smallest share of its frames a table read, frames read
    per second, this process's CPU milliseconds per frame read: what other jobs on the machine inflate least)."""
    shares, read = [], []
    cpu = time.process_time()

    def table():
        pipeline = _kingdoms(detector)
        live = LiveSource(ListSource(frames, fps), WallClock())
        for stamp, frame in live:
            pipeline.process(stamp, frame)
        shares.append(live.delivered / len(frames))
        read.append(live.delivered)

    threads = [threading.Thread(target=table) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return min(shares), sum(read) / (len(frames) / fps), (time.process_time() - cpu) * 1000 / max(1, sum(read))


def run(quick: bool) -> list[dict]:
    from companion.vision import Detector, WeightsMissingError

    try:
        detectors = {name: Detector.load(tile="auto", batching=batching) for name, batching in CONFIGURATIONS}
    except WeightsMissingError as error:
        print(f"bench_batching: skipped ({error})", file=sys.stderr)
        return []
    _, stretch, _ = _kingdoms_stretch(24 if quick else 60)
    fps = 5.0
    held = {name: 0 for name in detectors}
    failed: set[str] = set()
    for count in (1, 2, 3, 4, 5, 6):
        for name, detector in detectors.items():
            if name in failed:
                continue
            share, _, _ = _tables(detector, stretch, count, fps)
            print(f"bench_batching: {name}, {count} tables: the slowest read {share:.0%} of its frames", file=sys.stderr)
            if share >= KEEPS_UP_SHARE:
                held[name] = count
            else:
                failed.add(name)
        if len(failed) == len(detectors):
            break
    rate = {name: [] for name in detectors}
    cpu = {name: [] for name in detectors}
    for _ in range(1 if quick else 3):
        for name, detector in detectors.items():
            _, frames_per_second, cpu_ms = _tables(detector, stretch, 6, fps)
            rate[name].append(frames_per_second)
            cpu[name].append(cpu_ms)
    rows = []
    for name, detector in detectors.items():
        per_call = [f"{model_name} {model.images_per_call:.1f}" for model_name, model in
                    (("detector", detector.detector_model), ("classifier", detector.classifier_model)) if hasattr(model, "images_per_call")]
        rows.append({"name": f"live tables at 5 frames/s, none falling behind: {name}", "median": held[name], "unit": "tables",
                     "note": f"each reads >= {KEEPS_UP_SHARE:.0%} of {len(stretch)} frames of the Kingdoms stretch; one shared detector"})
        rows.append({"name": f"frames read per second by 6 live tables: {name}", "median": statistics.median(rate[name]),
                     "unit": "frames/s", "note": "images per inference call: " + (", ".join(per_call) or "1 window; a frame's crops")})
        rows.append({"name": f"CPU per frame read, 6 live tables: {name}", "median": statistics.median(cpu[name]), "unit": "ms",
                     "note": "this process's CPU time over the frames it read (load on the machine inflates it least)"})
    return rows
