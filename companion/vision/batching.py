"""Cross-table batching: one network shared by several tables' feeds, their images run together.

A server whose tables send frames reads them all with one shared detector (``companion.session.
camera.load_detector``), each table's feed in its own thread. :class:`BatchingModel` stands in for
one of its networks: a call from any thread hands its images to the network's worker thread, and
the worker runs everything that was handed to it while it was busy as ONE inference call (up to
``max_images``), then gives each caller its own rows back. Nobody waits for a batch to fill: a lone
table's call runs at once; batches form by themselves when tables queue up behind a running call.

Whether it pays is measured, not assumed (``python benchmarks/run.py batching``; docs/table.md,
*Venue*): ONNX Runtime on CPU runs a batch of detector windows at about the per-image cost of running
them one by one, while the classifier's small crops gain from larger batches.
"""
from __future__ import annotations

import collections
import threading
from dataclasses import dataclass, field

import numpy as np

from companion.vision.models import Model

# The most images one call runs: detector windows are 416 × 416 (2 MB each as float32), so 16 of them
# stay within a few tens of MB; the classifier's 64 × 64 crops are 48 KB each.
MAX_DETECTOR_IMAGES = 16
MAX_CLASSIFIER_IMAGES = 256


@dataclass
class _Request:
    kind: str                      # "run" or "embed"
    batch: np.ndarray
    done: threading.Event = field(default_factory=threading.Event)
    result: object = None
    error: BaseException | None = None


class BatchingModel(Model):
    """A batchable :class:`Model` shared by many threads, their calls run together (see the module)."""

    def __init__(self, model: Model, max_images: int, workers: int = 1) -> None:
        if not model.batchable:
            raise ValueError("cross-table batching needs a model that takes batches (load it with allow_batching)")
        self.model = model
        self.backend = model.backend
        self.input_shape = model.input_shape
        self.batchable = True
        self.has_embedding = getattr(model, "has_embedding", False)
        self.max_images = max(1, int(max_images))
        self.calls = 0           # inference calls run
        self.images = 0          # images they held
        self.requests = 0        # calls handed in
        self._queue: collections.deque[_Request] = collections.deque()
        self._condition = threading.Condition()
        # More than one worker runs calls side by side (each takes what waits when it is free): on two
        # cores two calls at a time keep both busy while one alone leaves its thread's share idle.
        self.workers = max(1, int(workers))
        self._threads: list[threading.Thread] = []

    # what a Model offers ------------------------------------------------------------------------
    def run(self, batch: np.ndarray) -> np.ndarray:
        return self._hand_in("run", batch)

    def run_many(self, batch: np.ndarray) -> np.ndarray:
        if len(batch) == 0:
            return np.zeros((0,), np.float32)
        return self._hand_in("run", batch)

    def run_with_embedding(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not self.has_embedding:
            raise ValueError("this model gives no embedding")
        return self._hand_in("embed", batch)

    @property
    def images_per_call(self) -> float:
        return self.images / self.calls if self.calls else 0.0

    # the worker ---------------------------------------------------------------------------------
    def _hand_in(self, kind: str, batch: np.ndarray):
        request = _Request(kind, np.ascontiguousarray(batch, dtype=np.float32))
        with self._condition:
            self._threads = [t for t in self._threads if t.is_alive()]
            while len(self._threads) < self.workers:
                self._threads.append(threading.Thread(target=self._work, name="batching-model", daemon=True))
                self._threads[-1].start()
            self._queue.append(request)
            self.requests += 1
            self._condition.notify()
        request.done.wait()
        if request.error is not None:
            raise request.error
        return request.result

    def _take(self) -> list[_Request]:
        """The requests waiting now, of the first one's kind, up to ``max_images`` (at least one)."""
        with self._condition:
            self._condition.wait_for(lambda: bool(self._queue))
            first = self._queue.popleft()
            taken, images = [first], len(first.batch)
            kept = collections.deque()
            while self._queue:
                request = self._queue.popleft()
                if request.kind == first.kind and images + len(request.batch) <= self.max_images:
                    taken.append(request)
                    images += len(request.batch)
                else:
                    kept.append(request)
            self._queue.extendleft(reversed(kept))
            return taken

    def _work(self) -> None:
        while True:
            taken = self._take()
            try:
                batch = taken[0].batch if len(taken) == 1 else np.concatenate([r.batch for r in taken])
                if taken[0].kind == "embed":
                    probabilities, embeddings = self.model.run_with_embedding(batch)
                    outputs = None
                else:
                    outputs = self.model.run(batch)
                with self._condition:
                    self.calls += 1
                    self.images += len(batch)
                row = 0
                for request in taken:
                    rows = slice(row, row + len(request.batch))
                    request.result = (probabilities[rows], embeddings[rows]) if outputs is None else outputs[rows]
                    row += len(request.batch)
            except BaseException as error:  # noqa: BLE001 - every caller hears of its call's failure
                for request in taken:
                    request.error = error
            for request in taken:
                request.done.set()
