"""Where the incremental pipeline's time goes on the 30-card mat: the Kingdoms stretch of
``bench_live`` (960 × 720, a hand laying cards up to the full grid), read incrementally under
pyinstrument, its time split by stage.

    pip install --target /tmp/pyinstrument pyinstrument      # not a project dependency
    PYTHONPATH=.:/tmp/pyinstrument .venv/bin/python benchmarks/profile_live.py [--frames 72] [--tree]

Prints frames/s (median frame, and frames / total time) and each stage's share of the profiled time:
the detector's windows and its whole-frame pass (split into the network itself and the Python around
it), the classifier, grouping, the table steps (observations, bare-back test, tracker, binding) and
the hand test. Not part of ``run.py``: a profiler slows what it measures; the shares are the figure.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# (stage, the calls on its stack, outermost first): a sample's time is charged to the first stage
# whose calls all lie on its stack in that order
STAGES = [
    ("windows: network", "Detector.detect_windows>Detector._detect_window>OnnxRuntimeModel.run"),
    ("windows: around it (letterbox, decode, NMS)", "Detector.detect_windows"),
    ("whole-frame pass: network", "IncrementalReader.read>Detector._detect_window>OnnxRuntimeModel.run"),
    ("whole-frame pass: around it", "IncrementalReader.read>Detector._detect_window"),
    ("classifier", "Detector.classify_boxes"),
    ("grouping", "Detector.group"),
    ("reader: comparison, merge, the rest", "IncrementalReader.read"),
    ("table: observations, bare backs", "TablePipeline.observations"),
    ("table: tracker", "Tracker.update"),
    ("table: binding", "_track>"),
    ("hand test (skin)", "skin_fraction"),
    ("mat locator", "MatLocator.update"),
]


def _stage_of(path: list[str]) -> str:
    joined = ">".join(path)
    for name, needle in STAGES:
        parts = needle.split(">")
        position = 0
        for part in parts:
            found = joined.find(part, position) if part else position
            if found < 0:
                break
            position = found + len(part)
        else:
            return name
    return "other"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--tree", action="store_true", help="also print pyinstrument's call tree")
    args = parser.parse_args(argv)
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("profile_live: needs pyinstrument (see --help)", file=sys.stderr)
        return 1
    import bench_live
    from companion.vision import Detector

    detector = Detector.load(tile="auto")
    upto, stretch, cards = bench_live._kingdoms_stretch(args.frames)
    pipeline = bench_live._kingdoms(detector)
    for time_, frame in upto[:len(upto) - len(stretch)][-12:]:
        pipeline.process(time_, frame)
    profiler = Profiler(interval=0.0005)
    seconds = []
    profiler.start()
    for time_, frame in stretch:
        seconds.append(pipeline.process(time_, frame).seconds)
    session = profiler.stop()
    shares: dict[str, float] = {}

    def walk(frame, path):
        path = path + [f"{frame.class_name}.{frame.function}" if frame.class_name else frame.function]
        if not frame.children:
            stage = _stage_of(path)
            shares[stage] = shares.get(stage, 0.0) + frame.time
        own = frame.time - sum(child.time for child in frame.children)
        if frame.children and own > 0:
            stage = _stage_of(path)
            shares[stage] = shares.get(stage, 0.0) + own
        for child in frame.children:
            walk(child, path)

    root = session.root_frame()
    walk(root, [])
    total = sum(shares.values())
    print(f"{len(stretch)} frames up to the {cards}-card grid: {1 / statistics.median(seconds):.1f} frames/s median frame, "
          f"{len(seconds) / sum(seconds):.1f} frames / total time (under the profiler); CPU {session.cpu_time:.1f} s of "
          f"{session.duration:.1f} s wall")
    for name, value in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"  {value / total:6.1%}  {name}")
    if args.tree:
        print(profiler.output_text(unicode=False, color=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
