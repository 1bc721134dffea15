"""web_ui/static/reader_core.js's pixels are OpenCV's: its letterbox resize (cv2.resize INTER_LINEAR) is
identical to cv2's, its classifier crops (cv2.warpAffine) identical but for a rare value one off, on real
photos and demo frames (run in Node, the JavaScript engine without a browser; the phone's reader runs the
same file in its worker)."""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import cv2
import numpy as np
import pytest

from companion.vision.detector import classifier_crop, tile_starts
from companion.vision.letterbox import Letterbox
from conftest import REAL_DATASET

CORE = pathlib.Path(__file__).resolve().parents[1] / "web_ui" / "static" / "reader_core.js"
SCRIPT = """
const core = require(process.argv[2]);
const fs = require("fs");
const job = JSON.parse(fs.readFileSync(process.argv[3]));
const image = { width: job.width, height: job.height, data: new Uint8Array(fs.readFileSync(job.pixels)) };
const out = {};
out.resized = job.sizes.map(([w, h]) => Buffer.from(core.resizeLinear(image, w, h).data).toString("base64"));
out.crops = job.boxes.map((b) => Buffer.from(core.classifierCrop(image, b, 64, 0.1).data).toString("base64"));
out.letterbox = core.fitLetterbox(job.height, job.width, 416);
out.tiles = job.tiles.map(([length, size]) => core.tileStarts(length, size));
out.rounds = [0.5, 1.5, 2.5, -0.5, 2.675].map(core.pyRound);
process.stdout.write(JSON.stringify(out));
"""


def node() -> str:
    found = shutil.which("node")
    assert found, "Node (npm's, which scripts/setup.sh --dev installs) runs the reader's JavaScript here"
    return found


def frames() -> list[np.ndarray]:
    from companion.table.demos import demo_dir

    found = [cv2.imread(str(path)) for path in sorted((REAL_DATASET / "images").glob("*.jpg"))[:3]]
    capture = cv2.VideoCapture(str(demo_dir("dungeon") / "recording.mp4"))
    found.append(capture.read()[1])
    capture.release()
    return found


@pytest.mark.parametrize("index", range(4))
def test_the_javascript_reader_sees_the_pixels_the_python_one_does(tmp_path, index):
    frame = frames()[index]
    height, width = frame.shape[:2]
    rng = np.random.default_rng(index)
    boxes = []
    for _ in range(30):
        x1, y1 = rng.uniform(-10, width - 20), rng.uniform(-10, height - 20)
        w, h = rng.uniform(4, 150), rng.uniform(4, 150)
        boxes.append([float(np.float32(v)) for v in (x1, y1, x1 + w, y1 + h)])
    letterbox = Letterbox.fit((height, width), 416)
    sizes = [(letterbox.resized_shape[1], letterbox.resized_shape[0]), (416, 312), (301, 227), (205, 160), (700, 530)]
    tiles = [(720, 416), (960, 520), (1280, 433), (400, 416)]
    (tmp_path / "frame.rgb").write_bytes(np.ascontiguousarray(frame[:, :, ::-1]).tobytes())
    (tmp_path / "job.json").write_text(json.dumps({"width": width, "height": height, "pixels": str(tmp_path / "frame.rgb"),
                                                   "sizes": sizes, "boxes": boxes, "tiles": tiles}))
    (tmp_path / "run.js").write_text(SCRIPT)
    result = subprocess.run([node(), str(tmp_path / "run.js"), str(CORE), str(tmp_path / "job.json")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    import base64

    for (w, h), data in zip(sizes, out["resized"]):
        expected = cv2.resize(frame, (w, h), interpolation=cv2.INTER_LINEAR)[:, :, ::-1]
        got = np.frombuffer(base64.b64decode(data), np.uint8).reshape(expected.shape)
        assert np.array_equal(got, expected), f"resize to {w}x{h}: {np.count_nonzero(got != expected)} values differ"
    off_values = 0
    for box, data in zip(boxes, out["crops"]):
        expected = classifier_crop(frame, np.array(box, np.float32), 64, 0.1)[:, :, ::-1].astype(int)
        got = np.frombuffer(base64.b64decode(data), np.uint8).reshape(expected.shape).astype(int)
        assert np.abs(got - expected).max() <= 1, box
        off_values += int(np.count_nonzero(got != expected))
    assert off_values <= 0.001 * len(boxes) * 64 * 64 * 3, f"{off_values} crop values one off"
    fitted = out["letterbox"]
    assert (fitted["resizedHeight"], fitted["resizedWidth"], fitted["top"], fitted["left"]) == \
        (*letterbox.resized_shape, letterbox.top, letterbox.left)
    assert out["tiles"] == [tile_starts(length, size) for length, size in tiles]
    assert out["rounds"] == [round(v) for v in (0.5, 1.5, 2.5, -0.5, 2.675)]


SKIN_SCRIPT = """
const core = require(process.argv[2]);
const fs = require("fs");
const job = JSON.parse(fs.readFileSync(process.argv[3]));
const pixels = fs.readFileSync(job.pixels), size = job.width * job.height * 3, out = [];
for (let k = 0; k < job.count; k++) {
  const image = { width: job.width, height: job.height, data: new Uint8Array(pixels.buffer, pixels.byteOffset + k * size, size) };
  out.push(core.skinFraction(image, job.skin));
}
process.stdout.write(JSON.stringify(out));
"""


def test_the_phone_judges_a_hand_over_the_table_as_the_server_does(tmp_path):
    """reader_core.js skinFraction (the phone's "occluded" in each post) against
    companion.table.pipeline.skin_fraction on the three demos' frames with a hand over the mat and as
    many without: the same share of the frame, the same judgment at the server's threshold. Without it a
    phone's readings said nothing of a hand, and a hand carrying the Chosen's cards had them removed and
    placed anew instead of moved."""
    from companion.table.demos import demo_dir
    from companion.table.pipeline import PipelineConfig, SKIN_WIDTH, SKIN_YCRCB_HIGH, SKIN_YCRCB_LOW, skin_fraction
    from helpers.video import video_frames

    threshold = PipelineConfig().occluder_fraction
    chosen: list[np.ndarray] = []
    for game in ("dungeon", "chosen", "kingdoms"):
        frames = video_frames(demo_dir(game) / "recording.mp4")
        hands = [f for f in frames if skin_fraction(f) >= threshold][:6]
        assert hands, f"the {game} recording shows no hand over the table"
        chosen += hands + [f for f in frames[::7] if skin_fraction(f) < threshold][:len(hands)]
    height, width = chosen[0].shape[:2]
    (tmp_path / "frames.rgb").write_bytes(b"".join(np.ascontiguousarray(f[:, :, ::-1]).tobytes() for f in chosen))
    skin = {"width": SKIN_WIDTH, "ycrcb_low": list(SKIN_YCRCB_LOW), "ycrcb_high": list(SKIN_YCRCB_HIGH)}
    (tmp_path / "job.json").write_text(json.dumps({"width": width, "height": height, "count": len(chosen),
                                                   "pixels": str(tmp_path / "frames.rgb"), "skin": skin}))
    (tmp_path / "skin.js").write_text(SKIN_SCRIPT)
    result = subprocess.run([node(), str(tmp_path / "skin.js"), str(CORE), str(tmp_path / "job.json")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shares = json.loads(result.stdout)
    expected = [skin_fraction(f) for f in chosen]
    assert [s >= threshold for s in shares] == [e >= threshold for e in expected]
    assert np.abs(np.array(shares) - np.array(expected)).max() <= 0.0005, list(zip(shares, expected))


GREY_SCRIPT = """
const core = require(process.argv[2]);
const fs = require("fs");
const job = JSON.parse(fs.readFileSync(process.argv[3]));
const out = job.images.map((entry) => {
  const image = { width: entry.width, height: entry.height, data: new Uint8Array(fs.readFileSync(entry.pixels)) };
  return Buffer.from(core.smallGrey(image, job.shrink).data).toString("base64");
});
const iou = job.ious.map(([box, boxes]) => Array.from(core.boxIou(box, Float32Array.from(boxes.flat()))));
process.stdout.write(JSON.stringify({ out, iou }));
"""


def test_the_page_compares_frames_as_the_server_does(tmp_path):
    """reader_core.js smallGrey (the grey copy, shrunk, that makeIncrementalReader compares frame with
    frame) is companion.vision.incremental's ``_small`` exactly (cv2's BGR2GRAY, INTER_AREA) on demo
    frames and real photos at a camera's usual sizes (a whole ratio), and within one grey level at a
    size that is none; its box_iou is decode.box_iou's, float32 for float32."""
    import base64

    from companion.vision.decode import box_iou
    from companion.vision.incremental import SHRINK, IncrementalReader

    images, expected = [], []
    for k, frame in enumerate(frames()):
        for width, height in ((960, 720), (1280, 720), (640, 480), (1278, 717)):
            resized = cv2.resize(frame, (width, height), interpolation=cv2.INTER_LINEAR)
            path = tmp_path / f"frame{k}-{width}.rgb"
            path.write_bytes(np.ascontiguousarray(resized[:, :, ::-1]).tobytes())
            images.append({"width": width, "height": height, "pixels": str(path)})
            expected.append(IncrementalReader._shrunk(cv2.cvtColor(resized, cv2.COLOR_BGR2GRAY)))
    rng = np.random.default_rng(7)
    ious = []
    for _ in range(20):
        corners = rng.uniform(0, 900, (9, 2)).astype(np.float32)
        sizes = rng.uniform(2, 60, (9, 2)).astype(np.float32)
        boxes = np.concatenate([corners, corners + sizes], 1)
        ious.append((boxes[0], boxes[1:]))
    (tmp_path / "job.json").write_text(json.dumps({"shrink": SHRINK, "images": images,
                                                   "ious": [[box.tolist(), boxes.tolist()] for box, boxes in ious]}))
    (tmp_path / "grey.js").write_text(GREY_SCRIPT)
    result = subprocess.run([node(), str(tmp_path / "grey.js"), str(CORE), str(tmp_path / "job.json")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    for entry, want, data in zip(images, expected, out["out"]):
        got = np.frombuffer(base64.b64decode(data), np.uint8).reshape(want.shape)
        difference = np.abs(got.astype(int) - want.astype(int))
        if entry["width"] % SHRINK == 0 and entry["height"] % SHRINK == 0:
            assert difference.max() == 0, f"{entry['width']}×{entry['height']}: {np.count_nonzero(difference)} cells differ"
        else:
            assert difference.max() <= 1, f"{entry['width']}×{entry['height']}"
    for (box, boxes), got in zip(ious, out["iou"]):
        assert np.array_equal(np.array(got, np.float32), box_iou(box, boxes)), (box, boxes)
