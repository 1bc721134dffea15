"""The phone's own reader on WebGPU: headless Chromium gives WebGPU an adapter only with
``--enable-unsafe-webgpu`` (SwiftShader, the GPU emulated on the CPU: most of a minute a photo, so two),
and then the worker, asked for a software adapter too (``webgpu-software``: by default it reads on
WebAssembly beside one, as a phone should), reads on it, at the server's precision where its check run at start passes (else the
f32 networks), as companion.vision reads at that precision: the same boxes (within 2 px), codes and turns.
Without the flag (the suite's ARGS: no GPU) there is no adapter and it reads on WebAssembly
(test_browser_reader.py, test_browser_phone_reader.py)."""
from __future__ import annotations

import pytest

from helpers.browser import ARGS
from helpers.reader import browser_reader, disagreements, python_reading
from helpers.web import running_server
from test_browser_reader import photos

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WEBGPU_ARGS = [arg for arg in ARGS if arg != "--disable-gpu"] + ["--enable-unsafe-webgpu"]
# The photos with cards among test_browser_reader's (SwiftShader takes 30-70 s each on 2 cores).
PHOTOS = (0, 2)


def test_the_webgpu_reader_reads_what_the_server_reads(tmp_path):
    from companion.vision import Detector

    frames = [photos()[k] for k in PHOTOS]
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        with browser_reader(base, args=WEBGPU_ARGS, timeout_ms=600_000, backends=["webgpu-software", "wasm"]) as reader:
            assert reader.ready["backend"] == "webgpu" and reader.ready["webgpu"] == "used", reader.ready
            detector = Detector.load(tile="auto", precision=reader.ready["precision"])
            problems, read = {}, 0
            for name, frame, index_px in frames:
                python = python_reading(detector, frame, index_px)
                read += len(python["indices"]) + len(python["backs"])
                if differ := disagreements(python, reader.read(frame, index_px)):
                    problems[name] = differ
            assert reader.errors == []
    print(f"WebGPU at {reader.ready['precision']}: {read} boxes read alike")
    assert read >= 6, "the photos hold cards enough to compare"
    assert problems == {}


def test_without_an_adapter_the_reader_says_so_and_reads_on_webassembly(tmp_path):
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        with browser_reader(base) as reader:
            assert reader.ready["backend"] == "wasm" and reader.ready["webgpu"] == "no WebGPU adapter", reader.ready
            frame = photos()[0][1]
            assert len(reader.read(frame)["indices"]) >= 2


def test_a_software_adapter_is_not_taken_for_a_gpu(tmp_path):
    """SwiftShader's adapter (the GPU emulated on the CPU, most of a minute a frame here) is no phone's GPU:
    by default the worker reads on WebAssembly beside it and says why."""
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        with browser_reader(base, args=WEBGPU_ARGS) as reader:
            assert reader.ready["backend"] == "wasm" and reader.ready["webgpu"] == "software WebGPU adapter", reader.ready
