"""Cross-table batching (companion.vision.batching): many threads' calls on one network run together,
each caller gets exactly its own rows back, a failure reaches every caller of that call, and the
shipped detector reads a frame the same batched as not."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from companion.vision.batching import BatchingModel
from companion.vision.models import Model


class Doubling(Model):
    """A batchable stand-in network: each image's output is its own mean doubled, a little slowly."""

    backend = "test"
    input_shape = ("batch", 3, 4, 4)
    batchable = True

    def __init__(self, fail_on: float | None = None) -> None:
        self.batches: list[int] = []
        self.fail_on = fail_on

    def run(self, batch: np.ndarray) -> np.ndarray:
        self.batches.append(len(batch))
        time.sleep(0.02)
        if self.fail_on is not None and np.isclose(batch.mean(axis=(1, 2, 3)), self.fail_on).any():
            raise RuntimeError("the network failed")
        return 2 * batch.mean(axis=(1, 2, 3))[:, None]


def test_concurrent_calls_run_together_and_each_gets_its_own_rows():
    network = Doubling()
    shared = BatchingModel(network, max_images=64)
    results: dict[int, np.ndarray] = {}

    def caller(n: int) -> None:
        images = np.full((1 + n % 3, 3, 4, 4), float(n), np.float32)
        results[n] = shared.run(images)

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n, output in results.items():
        assert output.shape == (1 + n % 3, 1) and np.allclose(output, 2.0 * n)
    assert sum(network.batches) == sum(1 + n % 3 for n in range(24))
    assert len(network.batches) < 24 and max(network.batches) > 3    # calls were run together
    assert shared.images_per_call > 1


def test_a_lone_call_runs_at_once_and_batches_stay_within_their_limit():
    network = Doubling()
    shared = BatchingModel(network, max_images=4)
    started = time.perf_counter()
    assert np.allclose(shared.run(np.ones((2, 3, 4, 4), np.float32)), 2.0)
    assert time.perf_counter() - started < 0.5 and network.batches == [2]
    threads = [threading.Thread(target=shared.run, args=(np.ones((3, 3, 4, 4), np.float32),)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert max(network.batches) <= 4


def test_a_failed_call_fails_its_callers_and_the_next_calls_still_run():
    shared = BatchingModel(Doubling(fail_on=7.0), max_images=64)
    with pytest.raises(RuntimeError, match="the network failed"):
        shared.run(np.full((1, 3, 4, 4), 7.0, np.float32))
    assert np.allclose(shared.run(np.full((1, 3, 4, 4), 1.0, np.float32)), 2.0)


def test_a_model_that_takes_no_batches_is_refused():
    network = Doubling()
    network.batchable = False
    with pytest.raises(ValueError, match="batches"):
        BatchingModel(network, 8)


def test_the_shipped_detector_reads_a_frame_the_same_batched_as_not():
    from companion.table.demos import demo_dir
    from companion.table.sources import open_source
    from companion.vision import Detector

    frame = next(f for n, (_, f) in enumerate(open_source(str(demo_dir("kingdoms")))) if n == 200)
    alone = Detector.load(tile="auto").expecting_index_px(18.4).read(frame)
    batched_detector = Detector.load(tile="auto", batching="both").expecting_index_px(18.4)
    together = batched_detector.read(frame)
    assert sorted(together.cards.codes) == sorted(alone.cards.codes) and len(alone.cards) >= 20
    assert np.allclose(np.sort(together.cards.boxes, 0), np.sort(alone.cards.boxes, 0), atol=0.5)
    assert batched_detector.detector_model.images_per_call > 1   # the closer look's windows went in one call
