"""How often the shipped reader reads an index at the other half-turn from its usual one, jokers against every
other code: the measurement behind ``companion.vision.grouping.HALF_TURN_AMBIGUOUS_CODES``.

Each recording folder (``companion demo render --game kingdoms --seed S --out DIR``) is read every ``--every``-th
frame with the shipped networks told the mat's index size (``--index-px``, 26.5 on the Kingdoms mat at 960 px);
an index is followed where it lies (its centre to 6 px) and its readings' rotations counted; an index seen fewer
than 5 times is left out.

    PYTHONPATH=. .venv/bin/python scripts/index_facing.py /tmp/k61 /tmp/k81
"""
from __future__ import annotations

import argparse
import collections
import glob

import cv2

from companion.vision import Detector

JOKERS = ("SJ", "BJ")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="rendered recording folders (frames/*.jpg)")
    parser.add_argument("--every", type=int, default=6, help="read every N-th frame (default 6)")
    parser.add_argument("--index-px", type=float, default=26.5, help="the mat's index size in pixels (default 26.5)")
    args = parser.parse_args(argv)
    detector = Detector.load(tile="auto").expecting_index_px(args.index_px)
    rotations: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    for folder in args.recordings:
        for path in sorted(glob.glob(f"{folder}/frames/*.jpg"))[::args.every]:
            for index in detector.read(cv2.imread(path)).indices:
                if index.code is not None:
                    key = (folder, index.code, round(index.center[0] / 6), round(index.center[1] / 6))
                    rotations[key][index.rotation] += 1
    counts = collections.Counter()
    for (_, code, *_), seen in rotations.items():
        total = sum(seen.values())
        if total < 5:
            continue
        usual = seen.most_common(1)[0][0]
        kind = "joker" if code in JOKERS else "other"
        counts[kind, "readings"] += total
        counts[kind, "half-turn"] += sum(n for rotation, n in seen.items() if (rotation - usual) % 360 == 180)
    for kind in ("joker", "other"):
        readings, turned = counts[kind, "readings"], counts[kind, "half-turn"]
        print(f"{kind}: {turned} of {readings} readings at the other half-turn"
              + (f" ({100 * turned / readings:.1f} %)" if readings else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
