"""What ``companion serve --demo GAME`` reads: the demo recording played into a web table exactly as
the server does it (the same camera feed, source and detector), then the table compared with the
recording's truth.

    PYTHONPATH=. .venv/bin/python scripts/demo_check.py chosen [--detector neural|truth|auto]

Prints the frames the feed read, the camera events against the truth's engine events, whether the
final state equals the truth, the wall time, and the questions left open. Exit status 0 when equal.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

# The recording is 30-50 s long; a feed still running after this long is reported as it stands.
LONGEST_SECONDS = 900


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=("kingdoms", "dungeon", "chosen"))
    parser.add_argument("--detector", choices=("auto", "neural", "truth"), default="auto")
    args = parser.parse_args(argv)
    from companion.commands.serve import demo_config, start_demo_table
    from companion.synthetic.recording import replay_truth
    from companion.table.demos import demo_truth
    from web_ui import create_app, shutdown

    app = create_app({"DATA_DIR": tempfile.mkdtemp(prefix="companion-demo-check-"), **demo_config(args.game, args.detector)})
    started = time.monotonic()
    try:
        table, _ = start_demo_table(app, args.game)
        feed = app.extensions["camera"].feeds[table.id]
        while feed.running and time.monotonic() - started < LONGEST_SECONDS:
            time.sleep(0.5)
        truth = demo_truth(args.game)
        comparable = lambda view: {k: v for k, v in view.items() if k not in ("session", "log")}  # noqa: E731
        equal = comparable(table.snapshot()) == comparable(replay_truth(truth))
        status = feed.status()
        automatic = sum(1 for entry in table.journal if entry.kind == "event" and entry.source == "engine")
        print(f"{args.game}: {status['frames']} frames read, {status['camera_events']} camera events and {automatic} "
              f"automatic (the engine's) of the truth's {len(truth['events'])} "
              f"({status['overruled_by_referee']} overruled by the referee), "
              f"final state {'equals' if equal else 'differs from'} the truth, "
              f"{time.monotonic() - started:.0f} s; open questions: {[q['text'] for q in status['questions'] if q['status'] == 'open']}")
        return 0 if equal else 1
    finally:
        shutdown(app)


if __name__ == "__main__":
    raise SystemExit(main())
