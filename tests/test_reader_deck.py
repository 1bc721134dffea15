"""web_ui/static/reader_core.js reads with a learned deck as companion.vision does (run in Node, as
test_reader_core.py): cv2's 8-bit HSV and Lab conversions value for value, a crop's ink colours
(companion.vision.ink), a face-down box's back histogram and its Bhattacharyya distance
(companion.vision.decks.profile), and DeckProfile.read / arbitrate on a deck taught from a real deck's
photos (../shared/datasets/real/decks/kentdoan) and exported as GET /api/tables/<id>/deck/profile."""
from __future__ import annotations

import base64
import json
import subprocess

import cv2
import numpy as np
import pytest

from companion.vision.decks.profile import DeckProfile, back_distance, back_histogram
from companion.vision.detector import classifier_crop
from companion.vision.ink import ink_colours
from conftest import REAL_DATASET, SHARED
from test_reader_core import CORE, node

KENTDOAN = SHARED / "datasets" / "real" / "decks" / "kentdoan"
SCRIPT = """
const core = require(process.argv[2]);
const fs = require("fs");
const job = JSON.parse(fs.readFileSync(process.argv[3]));
const image = { width: job.width, height: job.height, data: new Uint8Array(fs.readFileSync(job.pixels)) };
const out = {};
const colours = new Uint8Array(fs.readFileSync(job.colours));
const hsv = new Uint8Array(colours.length), lab = new Uint8Array(colours.length);
for (let i = 0; i < colours.length; i += 3) {
  hsv.set(core.hsv(colours[i], colours[i + 1], colours[i + 2]), i);
  lab.set(core.lab(colours[i], colours[i + 1], colours[i + 2]), i);
}
out.hsv = Buffer.from(hsv).toString("base64"); out.lab = Buffer.from(lab).toString("base64");
out.ink = job.boxes.map((b) => Array.from(core.inkColours(core.classifierCrop(image, b, 64, 0.1), job.profile.constants.ink)));
out.backs = job.boxes.map((b) => { const h = core.backHistogram(image, b, job.profile.constants.back); return h && Array.from(h); });
out.distances = job.pairs.map(([a, b]) => core.bhattacharyya(Float32Array.from(a), Float32Array.from(b)));
const deck = core.makeDeck(job.profile);
out.reads = job.reads.map(({ embeddings, ink, general, turns }) => {
  const [code, confidence, row] = deck.read(embeddings.map((e) => Float32Array.from(e)), ink && Float32Array.from(ink));
  return { read: [code, confidence, row], arbitrated: deck.arbitrate(general, [code, confidence, turns[row]]) };
});
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def kentdoan(tmp_path_factory) -> DeckProfile:
    from companion.vision import Detector
    from companion.vision.decks.teaching import teach

    result = teach(Detector.load(tile="auto"), [str(KENTDOAN / "cards")], "kentdoan")
    assert result.complete, [str(p) for p in result.problems]
    return result.profile


def exported(profile: DeckProfile) -> dict:
    from flask import Flask

    from companion.vision.models import ModelsManifest
    from web_ui.models import browser_profile

    with Flask(__name__).app_context():
        return browser_profile(profile, ModelsManifest.load())


def test_the_javascript_reads_with_a_learned_deck_as_python_does(tmp_path, kentdoan):
    frame = cv2.imread(str(sorted((KENTDOAN / "play").glob("*.jpg"))[0]))
    frame = cv2.resize(frame, (960, round(960 * frame.shape[0] / frame.shape[1])), interpolation=cv2.INTER_AREA)
    photo = cv2.imread(str(sorted((REAL_DATASET / "images").glob("*.jpg"))[0]))
    height, width = frame.shape[:2]
    rng = np.random.default_rng(23)
    # every value of each channel against the others at a stride: 1.1 million colours
    r, g, b = np.meshgrid(np.arange(256), np.arange(0, 256, 3), np.arange(0, 256, 5), indexing="ij")
    colours = np.stack([r, g, b], -1).reshape(1, -1, 3).astype(np.uint8)
    boxes = []
    for _ in range(40):
        x1, y1 = rng.uniform(0, width - 40), rng.uniform(0, height - 40)
        w, h = rng.uniform(8, 200), rng.uniform(8, 200)
        boxes.append([float(np.float32(v)) for v in (x1, y1, min(width, x1 + w), min(height, y1 + h))])
    # back histograms of this deck's photo against each other's and another real photo's (the distances a back check makes)
    mine = [back_histogram(frame, box) for box in boxes]
    others = [back_histogram(photo, box) for box in boxes] + mine[1:]
    pairs = [(a.ravel().tolist(), b.ravel().tolist()) for a, b in zip(mine + mine, others) if a is not None and b is not None]
    profile = exported(kentdoan)
    # readings: the prototypes' own rows (a deck's own indices), blended with others and noise (near ties, below the floor)
    reads = []
    protos = kentdoan.prototypes
    for k in range(60):
        turns = [0, 180] if k % 3 else [0, 90, 180, 270]
        rows = []
        for _turn in turns:
            a, b2 = rng.integers(len(protos), size=2)
            mix = rng.uniform(0, 1)
            rows.append((protos[a] * mix + protos[b2] * (1 - mix) + rng.normal(0, 0.02 * (k % 5), protos.shape[1])).astype(np.float32) * 7)
        ink = None if k % 4 == 0 else kentdoan.colours[rng.integers(len(protos))]
        general = [["AS", "KH", None][k % 3], float(rng.uniform(0.5, 1.0)), 90]
        reads.append({"embeddings": [row.tolist() for row in rows], "ink": None if ink is None else ink.tolist(),
                      "general": general, "turns": turns})
    (tmp_path / "frame.rgb").write_bytes(np.ascontiguousarray(frame[:, :, ::-1]).tobytes())
    (tmp_path / "colours.rgb").write_bytes(colours.tobytes())
    (tmp_path / "job.json").write_text(json.dumps({"width": width, "height": height, "pixels": str(tmp_path / "frame.rgb"),
                                                   "colours": str(tmp_path / "colours.rgb"), "boxes": boxes, "pairs": pairs,
                                                   "profile": profile, "reads": reads}))
    (tmp_path / "run.js").write_text(SCRIPT)
    result = subprocess.run([node(), str(tmp_path / "run.js"), str(CORE), str(tmp_path / "job.json")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)

    bgr = np.ascontiguousarray(colours[..., ::-1])
    for name, code in (("hsv", cv2.COLOR_BGR2HSV), ("lab", cv2.COLOR_BGR2LAB)):
        got = np.frombuffer(base64.b64decode(out[name]), np.uint8).reshape(-1, 3)
        want = cv2.cvtColor(bgr, code).reshape(-1, 3)
        assert np.array_equal(got, want), f"{name}: {np.count_nonzero((got != want).any(1))} colours differ"
    for box, got in zip(boxes, out["ink"]):
        want = ink_colours(classifier_crop(frame, np.array(box, np.float32), 64, 0.1))
        assert np.abs(np.array(got, np.float32) - want).max() <= 1 / 4096 + 1e-6, box   # one pixel of 64×64 at most (the crop's rare value one off)
    for box, got, want in zip(boxes, out["backs"], mine):
        assert (got is None) == (want is None), box
        if want is not None:
            assert np.array_equal(np.array(got, np.float32), want.ravel()), box
    assert len(pairs) >= 20
    for (a, b), got in zip(pairs, out["distances"]):
        assert got == pytest.approx(back_distance(np.array(a, np.float32), np.array(b, np.float32)), abs=1e-6)
    outcomes = set()
    for job, got in zip(reads, out["reads"]):
        ink = None if job["ink"] is None else np.array(job["ink"], np.float32)
        code, confidence, row = kentdoan.read(np.array(job["embeddings"], np.float32), ink)
        assert (got["read"][0], got["read"][2]) == (code, row)
        assert got["read"][1] == pytest.approx(confidence, abs=1e-5)
        general = (job["general"][0], job["general"][1], job["general"][2])
        want = kentdoan.arbitrate(general, (code, confidence, job["turns"][row]))
        assert (got["arbitrated"][0], got["arbitrated"][2]) == (want[0], want[2])
        outcomes.add("none" if code is None else "deck")
        outcomes.add("general" if want[0] == general[0] and code is None else "other")
    assert {"none", "deck", "general"} <= outcomes, "the readings reach each branch: a deck's code, below its floor, the general one kept"
