"""Playing a recording the way a camera delivers it: at its own frame rate, the newest frame only.

A camera does not wait for the pipeline. While the pipeline reads one frame the camera goes on
filming; when the pipeline asks for the next frame it gets the newest one, and every frame filmed in
between is gone. :class:`LiveSource` plays a recorded source (a video file or a rendered folder) that
way, driven by a clock:

* :class:`WallClock` is the real thing (``companion table run --live``, ``companion serve --demo``);
* :class:`SimulatedClock` charges each frame a fixed or recorded cost instead of measuring it, so a
  test sees exactly the frames a pipeline of that speed would see, however loaded the machine is.

    clock = SimulatedClock(cost=0.3)            # a pipeline that needs 0.3 s a frame
    live = LiveSource(open_source("demo/dungeon"), clock)
    summary = run_live(pipeline, live)          # live.dropped: the frames it never saw

The source charges its clock once the consumer asks for the next frame, so any consumer (a camera
feed's loop as well as ``run_live``) is timed alike.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from companion.messages import Message
from companion.table.sources import FrameSource, SourceError

# What a recording with no description of its own is called (in an error, and once it plays live).
UNNAMED_SOURCE = Message("this source")
UNNAMED_RECORDING = Message("a recording")


class WallClock:
    """Real time: ``spend`` charges nothing, the pipeline's work took real time already."""

    def now(self) -> float:
        return _time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            _time.sleep(seconds)

    def spend(self, result=None) -> None:
        pass


class SimulatedClock:
    """Time that passes only when told: ``sleep`` waits for the camera, ``spend`` charges a frame's cost.

    ``cost`` is seconds per frame: a number (every frame alike), a sequence (the recorded cost of
    the first, second, ... frame read; the last one repeats), or a callable given the pipeline's
    :class:`~companion.table.pipeline.FrameResult` (a cost model of the work the frame took).
    """

    def __init__(self, cost: "float | Sequence[float] | Callable[[object], float]" = 0.0, start: float = 0.0) -> None:
        if isinstance(cost, (int, float)):
            if cost < 0:
                raise ValueError(f"a frame's cost cannot be negative, got {cost}")
        elif not callable(cost):
            cost = [float(c) for c in cost]
            if not cost or min(cost) < 0:
                raise ValueError("recorded frame costs must be a non-empty list of non-negative seconds")
        self.cost = cost
        self.time = float(start)
        self.charged = 0

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.time += seconds

    def spend(self, result=None) -> None:
        if callable(self.cost):
            seconds = float(self.cost(result))
        elif isinstance(self.cost, list):
            seconds = self.cost[min(self.charged, len(self.cost) - 1)]
        else:
            seconds = float(self.cost)
        self.charged += 1
        self.time += max(0.0, seconds)


@dataclass(frozen=True)
class WorkCost:
    """A frame's cost from the work its reading took (``FrameResult.work``: detector passes and
    indices classified), for a :class:`SimulatedClock`: deterministic, and it still rewards a
    pipeline for reading less.

    The defaults model the project's 2-core table laptop: a full reading of a 960 × 720 mat view
    (whole frame + 6 windows, ~30 indices) comes to 0.32 s, the 3.3-3.5 frames/s that
    ``python benchmarks/run.py table`` measured on idle cores before issue 14 (docs/table.md).
    A frame without a work record (a stand-in detector) costs ``base``.
    """

    base: float = 0.010
    per_pass: float = 0.040
    per_index: float = 0.001

    def __call__(self, result) -> float:
        work = getattr(result, "work", None)
        if work is None:
            return self.base
        return self.base + self.per_pass * work.passes + self.per_index * work.classified


class LiveSource(FrameSource):
    """A recorded source played as a live camera: frame ``i`` exists from ``i / fps`` until the next one.

    Each time the consumer asks, it gets the newest frame that exists by then (waiting for the
    next one when it is early); the frames superseded meanwhile are dropped and counted. Timestamps
    stay the recording's own, as a camera's stay the moment each frame was taken. The last frame
    is never superseded: a camera keeps filming the table as it was left.
    """

    def __init__(self, recording: FrameSource, clock=None, fps: float | None = None) -> None:
        rate = fps or getattr(recording, "fps", None)
        if not rate or rate <= 0:
            raise SourceError(Message("%(source)s has no frame rate to play it live at", source=getattr(recording, "description", UNNAMED_SOURCE)))
        self.recording = recording
        self.clock = clock or WallClock()
        self.fps = float(rate)
        self.delivered = 0
        self.dropped = 0
        self.index = -1   # the recording's index of the frame delivered last
        self.lag = 0.0    # seconds between filming the frame delivered last and its delivery
        self.result = None  # what the consumer made of it, for a clock's cost model (run_live sets it)
        self.description = Message("%(source)s, live", source=getattr(recording, "description", UNNAMED_RECORDING))

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        frames = iter(self.recording)
        upcoming = next(frames, None)
        if upcoming is None:
            return
        start = self.clock.now()
        index = -1
        while upcoming is not None:
            stamp, frame = upcoming
            upcoming = next(frames, None)
            index += 1
            elapsed = self.clock.now() - start
            if upcoming is not None and upcoming[0] <= elapsed:
                self.dropped += 1   # the camera has filmed the next frame already: this one is gone
                continue
            if stamp > elapsed:
                self.clock.sleep(stamp - elapsed)
            self.lag = max(0.0, elapsed - stamp)   # how long the frame waited for the reader
            self.delivered += 1
            self.index = index
            self.result = None
            yield stamp, frame
            self.clock.spend(self.result)   # the consumer's work on it: free on a wall clock

    def close(self) -> None:
        self.recording.close()


def open_live(spec, clock=None) -> FrameSource:
    """What a person names as a camera, live: a recording (video file, rendered folder) plays at its
    own frame rate as :class:`LiveSource`; a real camera is live already and comes back as it is."""
    from companion.table.sources import CameraSource, open_source

    source = open_source(spec)
    if isinstance(source, CameraSource):
        return source
    return LiveSource(source, clock)


def run_live(pipeline, live: LiveSource, on_frame=None, flush_seconds: float | None = None,
             max_frames: int | None = None) -> dict:
    """``pipeline.run`` over a live source (at most ``max_frames`` read); each frame's result goes
    to the clock's cost model."""
    import itertools


    def noted(result):
        live.result = result
        if on_frame:
            on_frame(result)

    frames = live if max_frames is None else itertools.islice(live, max_frames)
    summary = pipeline.run(frames, on_frame=noted, flush_seconds=flush_seconds)
    summary["live"] = {"fps": live.fps, "frames_read": live.delivered, "frames_dropped": live.dropped}
    return summary
