"""A still table through the live path: real webcam photos held still, frame after frame.

    python -m vision_models.checks.still_table                         # both real webcam sets, the live path and full readings
    python -m vision_models.checks.still_table --source webcam-strips --frames 30 --json
    python -m vision_models.checks.still_table --write-clip DIR --photo NAME   # one clip as an image folder for `table run`
    python -m vision_models.checks.still_table --no-cache              # read every clip anew (the cache: var/still_table)
    python -m vision_models.checks.still_table --constant-settle       # the tracker's constant settle of before, to compare

A still table must give the same reading frame after frame: the cards settle once and no event
follows. No real video of a still table is at hand (``../shared/datasets/real/README.md``), so each
real webcam photo is held still as a camera would film it: every frame the same scene with a
webcam's frame-to-frame differences added (sensor noise, a flicker of exposure, a sub-pixel shake,
the camera's own JPEG), each frame drawn anew from a seeded generator. The photos are real; the
differences between their frames are a model (``CameraNoise``), which is what makes a per-frame
misread show.

Each clip goes through ``companion table run --game none``'s pipeline (``build_pipeline("none")``,
the tracker the server uses) as a live camera at ``--fps`` on the simulated 2-core laptop
(``LiveSource`` + ``SimulatedClock(WorkCost())``), twice: as the server reads (``incremental``:
unchanged frames are not read again) and with every frame read in full (``full``: a webcam whose
noise passes the change test, the worst case). Per clip: the settled changes (placed, turned,
moved, removed) beyond one placement per card at the end (``extra``: 0 on a table that settled once),
the questions, and the cards at the end against the photo's labels (ranks only on the strips).

Sources: ``webcam-strips`` (the val split, 30 webcam strips over green felt, faces and backs) and
``webcam-cardcounterml`` (the 21 Windows-camera webcam photos, ``WIN_*``, of the project's held-out
cardcounterml split). Missing material is an error, never skipped.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision_models.checks.real_check import REAL, Photo, photos_of, truth_of


@dataclass(frozen=True)
class CameraNoise:
    """What differs between two frames a webcam films of a still table (a model, not a measurement).

    Chosen to be ordinary for an indoor webcam, not harsh: sensor noise of 2 grey levels (8-bit,
    per pixel, per frame), exposure drifting by 1 % (auto-exposure never sits still), the picture
    shaking by up to half a pixel (a table and a stand are never rigid), and every frame JPEG-encoded
    at quality 85 as the camera sends it. Averaged over the incremental reader's 4 × 4 comparison
    cells this moves a frame by well under its 12 grey levels (``companion.vision.incremental``), as
    a still table should; read in full, each frame is read anew.
    """

    sigma: float = 2.0
    gain: float = 0.01
    shake_px: float = 0.5
    jpeg_quality: int = 85

    def frame(self, photo: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        dx, dy = rng.uniform(-self.shake_px, self.shake_px, 2)
        moved = cv2.warpAffine(photo, np.float32([[1, 0, dx], [0, 1, dy]]), (photo.shape[1], photo.shape[0]),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        noisy = moved.astype(np.float32) * (1.0 + rng.normal(0, self.gain)) + rng.normal(0, self.sigma, photo.shape)
        ok, encoded = cv2.imencode(".jpg", np.clip(noisy, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        return cv2.imdecode(encoded, cv2.IMREAD_COLOR)


class StillClip:
    """A photo held still for ``frames`` frames at ``fps``: a recorded source for ``LiveSource``."""

    def __init__(self, photo: np.ndarray, frames: int, fps: float, seed: int = 0, noise: CameraNoise | None = None) -> None:
        self.photo, self.frames, self.fps, self.seed = photo, frames, float(fps), seed
        self.noise = noise or CameraNoise()
        self.description = f"a still table, {frames} frames"

    def __iter__(self):
        rng = np.random.default_rng(self.seed)
        for index in range(self.frames):
            yield index / self.fps, self.noise.frame(self.photo, rng)

    def close(self) -> None:
        pass


def _webcam_cardcounterml(datasets: Path) -> list[Photo]:
    return [replace(p, source="webcam-cardcounterml") for p in photos_of(["cardcounterml"], datasets)
            if p.path.name.startswith("WIN_")]


SOURCES = {
    "webcam-strips": lambda d: photos_of(["webcam-strips"], d),
    "webcam-cardcounterml": _webcam_cardcounterml,
}


def labelled_codes(photo: Photo, frame: np.ndarray) -> list[str]:
    """The codes the photo's labels say lie there (ranks only where the labels name ranks only)."""
    truth = truth_of(photo, frame.shape[1], frame.shape[0])
    codes = list(photo.codes) if truth is None else [card.code for card in truth]
    return sorted(codes)


def as_labelled(code: str, ranks_only: bool) -> str:
    return code[:-1] if ranks_only and code != "BACK" and code[-1] in "CDHS" else code


#: Where the tracker's inputs of each clip are kept (``--cache``): the detector's part of a clip is the
#: slow one (a 2-core laptop reads a 40-frame clip in full in ~30 s) and does not depend on the tracker,
#: so a tracker change is measured by replaying the cached inputs (seconds for all clips).
CACHE = Path(__file__).resolve().parents[2] / "var" / "still_table"


def _reader_fingerprint() -> str:
    """What the tracker's inputs depend on: the reading code, the weights' index, the live clock, the
    camera model, and the pipeline's steps from a frame's detections to its observations (not the
    tracker, which is what a replay measures)."""
    import hashlib
    import inspect

    from companion.table.pipeline import TablePipeline

    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256(repr(CameraNoise()).encode())
    files = sorted((root / "companion" / "vision").rglob("*.py")) + [
        root / "companion" / "table" / "live.py", root / "vision_models" / "weights" / "models.json"]
    for path in files:
        if path.exists():
            digest.update(path.name.encode() + path.read_bytes())
    for step in (TablePipeline.observations, TablePipeline._without_bare_backs, TablePipeline._pixel_scale,
                 TablePipeline.process, TablePipeline._track):
        digest.update(inspect.getsource(step).encode())
    return digest.hexdigest()[:16]


def _cache_file(cache: Path, photo: Photo, frames: int, fps: float, incremental: bool, seed: int) -> Path:
    mode = "incremental" if incremental else "full"
    return cache / f"{photo.source}-{photo.path.stem}-{mode}-{frames}f-{fps:g}fps-s{seed}.json"


def _recording_tracker(pipeline, frames: list) -> None:
    """Keep every input the pipeline gives its tracker (the frame's observations, occlusion, held, and
    the match gate the pipeline set from the card size) in ``frames``."""
    update = pipeline.tracker.update

    def recorded(time, observations, occluded=False, held=False, repeated=False):
        observations = list(observations)
        frames.append([time, bool(occluded), bool(held), pipeline.tracker.config.match_distance,
                       [[o.code, float(o.confidence), *map(float, o.position), *map(float, o.other_position or ())]
                        for o in observations], bool(repeated)])
        return update(time, observations, occluded, held=held, repeated=repeated)

    pipeline.tracker.update = recorded


def _replay(pipeline, frames: list) -> list:
    """The cached tracker inputs through the pipeline's own tracker and binding, as ``_track`` does."""
    from companion.table.events import Observation

    tracker, events = pipeline.tracker, []
    for time, occluded, held, gate, cached, repeated in frames:
        if tracker.config.match_distance != gate:
            tracker.config = replace(tracker.config, match_distance=gate)
        observations = [Observation(o[0], o[1], (o[2], o[3]), (o[4], o[5]) if len(o) > 4 else None) for o in cached]
        table_events = tracker.update(time, observations, occluded, held=held, repeated=repeated)
        pipeline.binding.observe_tracks(tracker.tracks)
        for event in table_events:
            pipeline.binding.handle(event)
        events.extend(table_events)
    return events


def run_clip(detector, photo: Photo, frames: int, fps: float, incremental: bool, seed: int = 0,
             tracker=None, cache: Path | None = None) -> dict:
    """One still clip through ``table run --game none``'s pipeline, live on the simulated laptop.

    With ``cache``, the tracker's inputs are read from it when the reading code and weights are those
    that wrote them (only the tracker and the binding run), else recorded there."""
    from companion.table.live import LiveSource, SimulatedClock, WorkCost, run_live
    from companion.table.pipeline import build_pipeline
    from companion.vision import load_image

    image = load_image(photo.path)
    pipeline = build_pipeline("none", detector, {}, incremental=incremental, tracker=tracker)
    kept = None
    if cache is not None:
        path = _cache_file(cache, photo, frames, fps, incremental, seed)
        if path.exists():
            kept = json.loads(path.read_text())
            if kept.get("reader") != _reader_fingerprint():
                kept = None
    if kept is not None:
        events = _replay(pipeline, kept["frames"])
        frames_read = kept["frames_read"]
    else:
        live = LiveSource(StillClip(image, frames, fps, seed), SimulatedClock(WorkCost()))
        events, inputs = [], []
        _recording_tracker(pipeline, inputs)
        summary = run_live(pipeline, live, on_frame=lambda r: events.extend(r.table_events),
                           flush_seconds=pipeline.end_hold_seconds)
        frames_read = summary["live"]["frames_read"]
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"reader": _reader_fingerprint(), "frames_read": frames_read, "frames": inputs}))
    changes = [e for e in events if e.type != "question"]
    cards = pipeline.binding.view()["cards"]
    labels = labelled_codes(photo, image)
    read = Counter(as_labelled(c, photo.ranks_only) for c in cards)
    wanted = Counter(labels)
    right = sum((read & wanted).values())
    return {"source": photo.source, "name": photo.path.name, "frames_read": frames_read,
            "changes": len(changes), "extra": len(changes) - len(cards),
            "by_type": dict(Counter(e.type for e in changes)), "questions": sum(1 for e in events if e.type == "question"),
            "cards": cards, "labels": labels, "right": right, "wrong": sum(read.values()) - right,
            "missed": sum(wanted.values()) - right,
            "phantom_backs": max(0, read["BACK"] - wanted["BACK"]), "missed_backs": max(0, wanted["BACK"] - read["BACK"]),
            "flips": [[round(e.time, 2), e.type, e.card] for e in changes]}


def totals(clips: list[dict]) -> dict:
    keys = ("changes", "extra", "questions", "right", "wrong", "missed", "phantom_backs", "missed_backs", "frames_read")
    total = {key: sum(c[key] for c in clips) for key in keys}
    total["clips"] = len(clips)
    total["clips_with_extra"] = sum(1 for c in clips if c["extra"] > 0 or c["questions"] > 0)
    total["labelled"] = sum(len(c["labels"]) for c in clips)
    read = total["right"] + total["wrong"]
    precision = total["right"] / read if read else 0.0
    recall = total["right"] / total["labelled"] if total["labelled"] else 0.0
    total["f1"] = round(2 * precision * recall / (precision + recall), 3) if precision + recall else 0.0
    total["precision"], total["recall"] = round(precision, 3), round(recall, 3)
    return total


def check(photos: list[Photo], frames: int, fps: float, modes=("incremental", "full"), progress=None, tracker=None,
          cache: Path | None = None) -> dict:
    from companion.vision import Detector

    detector = Detector.load(tile="auto")
    result = {}
    for mode in modes:
        clips = []
        for n, photo in enumerate(photos, 1):
            clips.append(run_clip(detector, photo, frames, fps, incremental=mode == "incremental", seed=n, tracker=tracker,
                                  cache=cache))
            if progress:
                progress(mode, n, len(photos))
        by_source = {}
        for clip in clips:
            by_source.setdefault(clip["source"], []).append(clip)
        result[mode] = {"per_source": {s: totals(c) for s, c in by_source.items()}, "total": totals(clips), "clips": clips}
    return result


def table(result: dict) -> str:
    lines = ["| reading | source | clips | frames read | changes | extra changes | clips not still | questions | "
             "cards right / labelled | wrong | F1 (P, R) | phantom backs | missed backs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for mode, part in result.items():
        rows = list(part["per_source"].items()) + [("**total**", part["total"])]
        for source, t in rows:
            lines.append(f"| {mode} | {source} | {t['clips']} | {t['frames_read']} | {t['changes']} | **{t['extra']}** | "
                         f"{t['clips_with_extra']} | {t['questions']} | {t['right']} / {t['labelled']} | {t['wrong']} | "
                         f"{t['f1']:.3f} ({t['precision']:.3f}, {t['recall']:.3f}) | "
                         f"{t['phantom_backs']} | {t['missed_backs']} |")
    return "\n".join(lines)


def write_clip(photo: Photo, folder: Path, frames: int, fps: float, seed: int = 0) -> Path:
    """The clip as an image folder (``frame_0000.jpg`` ...) with its frame rate, for ``table run --source``."""
    from companion.vision import load_image

    folder.mkdir(parents=True, exist_ok=True)
    for index, (_, frame) in enumerate(StillClip(load_image(photo.path), frames, fps, seed)):
        cv2.imwrite(str(folder / f"frame_{index:04d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return folder


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--source", action="append", choices=list(SOURCES), metavar="NAME",
                        help=f"only this source (repeatable; default all: {', '.join(SOURCES)})")
    parser.add_argument("--frames", type=int, default=40, help="frames per clip (default 40: 4 s at 10 fps)")
    parser.add_argument("--fps", type=float, default=10.0, help="the camera's frame rate (default 10)")
    parser.add_argument("--mode", action="append", choices=("incremental", "full"),
                        help="incremental: as the server reads; full: every frame read in full (default both)")
    parser.add_argument("--limit", type=int, default=None, help="the first N photos of each source (a subset while iterating)")
    parser.add_argument("--datasets", type=Path, default=REAL, help="the shared datasets folder (default ../shared/datasets)")
    parser.add_argument("--write-clip", type=Path, metavar="DIR", help="write one clip (--photo) as an image folder and stop")
    parser.add_argument("--photo", help="with --write-clip: the photo's file name")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help="keep each clip's tracker inputs here and replay them while the reading code and weights "
                             "are unchanged (default var/still_table)")
    parser.add_argument("--no-cache", action="store_true", help="read every clip anew, keep nothing")
    parser.add_argument("--constant-settle", action="store_true",
                        help="the tracker's constant settle of before (TrackerConfig(sure_looks=0)), to compare with")
    args = parser.parse_args(argv)
    if args.frames < 2 or args.fps <= 0:
        parser.error("--frames must be at least 2 and --fps positive")
    try:
        photos = []
        for source in args.source or list(SOURCES):
            photos += SOURCES[source](args.datasets)[:args.limit]
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.write_clip:
        chosen = [p for p in photos if p.path.name == args.photo]
        if not chosen:
            print(f"error: no photo {args.photo!r} in {', '.join(args.source or SOURCES)}", file=sys.stderr)
            return 1
        print(write_clip(chosen[0], args.write_clip, args.frames, args.fps))
        return 0

    def progress(mode, n, total):
        if not args.json:
            print(f"\r{mode}: {n}/{total}", end="", file=sys.stderr, flush=True)

    from companion.table.tracker import TrackerConfig

    tracker = TrackerConfig(sure_looks=0) if args.constant_settle else None
    result = check(photos, args.frames, args.fps, tuple(args.mode or ("incremental", "full")), progress, tracker=tracker,
                   cache=None if args.no_cache else args.cache)
    if not args.json:
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(table(result))
        for mode, part in result.items():
            noisy = [c for c in part["clips"] if c["extra"] > 0 or c["questions"] > 0]
            for clip in noisy[:8]:
                print(f"{mode} {clip['name']}: {clip['flips']} (questions {clip['questions']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
