"""Score the neural table pipeline on short rendered clips: did the cards laid settle, in their zones?

    python -m vision_models.checks.evaluate_table [--seeds 21 22 23] [--actions 6] [--games chosen dungeon kingdoms]

Each clip is the first ``--actions`` actions of a rendered game (``companion.synthetic.recording``,
1280 × 960 at 4 frames/s, a hand laying the cards, camera noise), run through ``build_pipeline`` with
the shipped detector exactly as ``companion table run`` runs it. A card counts as right when the
settled table holds its code (in Kingdoms) or its code in the zone it was laid in (the other two
games); cards the table holds beyond those are extra. About 35 s a clip on two cores.
"""
from __future__ import annotations

import argparse
import dataclasses
from collections import Counter

from companion.synthetic.recording import Action, CameraSettings, build_scenario, render_frames
from companion.table.pipeline import build_pipeline
from companion.table.zones import MatZones
from companion.vision import Detector

CAMERA = CameraSettings(width=1280, height=960, fps=4.0)


def score_clip(detector, game: str, seed: int, actions: int) -> dict:
    scenario = build_scenario(game, seed)
    clip = dataclasses.replace(scenario, actions=scenario.actions[:actions] + [Action("pause", seconds=1.5)])
    frames = list(render_frames(clip, CAMERA))
    pipeline = build_pipeline(game, detector, scenario.setup, scenario.setup_events)
    pipeline.run(((f.time, f.image) for f in frames), flush_seconds=2.0)
    if game == "kingdoms":
        laid = Counter(c["code"] for c in frames[-1].cards)
        held = Counter(t.code for t in pipeline.tracker.cards)
    else:
        zones = MatZones(scenario.layout)
        laid = Counter((c["code"], zones(c["mat_mm"])) for c in frames[-1].cards)
        held = Counter((t.code, t.zone) for t in pipeline.tracker.cards)
    return {"game": game, "seed": seed, "laid": sum(laid.values()), "right": sum((held & laid).values()),
            "missing": sorted(map(str, (laid - held).elements())), "extra": sorted(map(str, (held - laid).elements()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 22, 23])
    parser.add_argument("--actions", type=int, default=6)
    parser.add_argument("--games", nargs="+", default=["chosen", "dungeon", "kingdoms"])
    parser.add_argument("--weights", default=None, help="folder with models.json and the ONNX files")
    args = parser.parse_args(argv)
    detector = Detector.load(args.weights, tile="auto")  # as `companion table run` runs it
    totals = Counter()
    print("| game | seed | right / laid | missing | extra |\n|---|---|---|---|---|")
    for game in args.games:
        for seed in args.seeds:
            result = score_clip(detector, game, seed, args.actions)
            totals.update({k: result[k] for k in ("laid", "right")})
            totals["extra"] += len(result["extra"])
            print(f"| {game} | {seed} | {result['right']} / {result['laid']} | {', '.join(result['missing']) or '—'} "
                  f"| {', '.join(result['extra']) or '—'} |", flush=True)
    print(f"\n{totals['right']} of {totals['laid']} cards settled right, {totals['extra']} extra")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
