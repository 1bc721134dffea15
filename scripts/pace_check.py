"""Which paces of a slow reader still bring a demo recording's table to its truth: the readings of the
page's own reader (Chromium, ``--reader page``) or the server's (``--reader server``) posted to a fresh
server's table as a phone posts them, at set paces, each frame read once.

    PYTHONPATH=. .venv/bin/python scripts/pace_check.py chosen,kingdoms --paces 1.9/3,0.7/1,0.5/1 --runs 3
    PYTHONPATH=. .venv/bin/python scripts/pace_check.py chosen --own-pace 0.35,0.5,0.7,1.0 --reader server

``--paces READ/HOLD,...``: every third frame held HOLD seconds (the in-browser test's pacing), read every
READ seconds; ``--own-pace READ,...``: the recording at its own pace, read about every READ seconds. Run 0
reads at exactly READ, the others at times spread as a busy phone's (helpers.pacing). Prints one line per
run: reached or not, and the camera events. Exit status 0 when every run reached its truth.
"""
from __future__ import annotations

import argparse
import contextlib
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

RECORDING_FPS = 6
FINAL_SECONDS = 4.0
HELD_JITTER, OWN_PACE_JITTER = 0.3, 0.4


@contextlib.contextmanager
def reader_for(kind: str, data: pathlib.Path):
    if kind == "server":
        from companion.vision import Detector

        yield Detector.load(tile="auto")
        return
    from helpers.reader import PageDetector, browser_reader
    from helpers.web import running_server

    with running_server(data) as (base, _app), browser_reader(base) as reader:
        yield PageDetector(reader)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", help="comma-separated: kingdoms, dungeon, chosen")
    parser.add_argument("--paces", default="", help="READ/HOLD seconds, comma-separated")
    parser.add_argument("--own-pace", default="", help="READ seconds at the recording's own pace, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reader", choices=("page", "server"), default="page")
    args = parser.parse_args(argv)
    from companion.synthetic.recording import replay_truth
    from companion.table.demos import demo_dir, demo_truth
    from helpers.pacing import held_plan, own_pace_plan, read_on_the_server
    from helpers.video import video_frames
    from helpers.web import comparable

    paces = [("held", *map(float, p.split("/"))) for p in args.paces.split(",") if p] + \
        [("own", float(p), None) for p in args.own_pace.split(",") if p]
    missed = 0
    with tempfile.TemporaryDirectory() as tmp, reader_for(args.reader, pathlib.Path(tmp) / "page") as reader:
        for game in args.games.split(","):
            frames = video_frames(demo_dir(game) / "recording.mp4")
            expected = comparable(replay_truth(demo_truth(game)))
            for kind, read_s, hold_s in paces:
                for run in range(args.runs):
                    if kind == "held":
                        plan = held_plan(len(frames), read_s, hold_s, FINAL_SECONDS, jitter=HELD_JITTER if run else 0.0, seed=run)
                        label = f"read {read_s} s, held {hold_s} s"
                    else:
                        plan = own_pace_plan(len(frames), RECORDING_FPS, read_s, FINAL_SECONDS,
                                             jitter=OWN_PACE_JITTER if run else 0.0, seed=run)
                        label = f"own pace, read {read_s} s"
                    answer = read_on_the_server(game, frames, plan, reader, pathlib.Path(tmp) / f"{game}-{kind}-{read_s}-{run}")
                    reached = comparable(answer["state"]) == expected
                    missed += not reached
                    print(f"{game}, {args.reader} readings, {label}, run {run}: {'reached' if reached else 'NOT reached'} "
                          f"({answer['camera_events']} camera events, truth {len(demo_truth(game)['events'])})", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
