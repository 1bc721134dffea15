"""Frame sources: one iterator interface over cameras, video files, image folders and phone uploads.

Every source is an iterable of ``(timestamp_seconds, frame_bgr)``. Timestamps are seconds from the
first frame: the wall clock for live sources, the frame rate (or the file order with a fixed rate) for
recordings, so the stability timers mean the same thing live and on a replayed recording.
"""
from __future__ import annotations

import collections
import pathlib
import threading
import time
from typing import Iterator

import cv2
import numpy as np
from companion.messages import Message, MessageError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".mjpg", ".mjpeg")


class SourceError(MessageError, ValueError):
    """A source that cannot be opened or read: a clear message, nothing half-open."""


class FrameSource:
    """Base class: iterate to get ``(timestamp_seconds, frame_bgr)``; ``close()`` releases the device."""

    description: Message | str = Message("frames")

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ImageFolderSource(FrameSource):
    """Every image in a folder, sorted by name, played at ``fps`` frames per second."""

    def __init__(self, folder: "str | pathlib.Path", fps: float = 10.0) -> None:
        self.folder = pathlib.Path(folder)
        if not self.folder.is_dir():
            raise SourceError(Message("no such folder of images: %(folder)s", folder=str(self.folder)))
        if fps <= 0:
            raise SourceError(Message("frame rate must be positive, got %(fps)s", fps=fps))
        self.fps = float(fps)
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(Message("%(folder)s holds no images (%(suffixes)s)", folder=str(self.folder), suffixes=", ".join(IMAGE_SUFFIXES)))
        self.description = Message("%(n)s images in %(folder)s", n=len(self.paths), folder=str(self.folder))

    def __iter__(self):
        for index, path in enumerate(self.paths):
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                raise SourceError(Message("cannot read image %(path)s", path=str(path)))
            yield index / self.fps, frame


class VideoFileSource(FrameSource):
    """A video file; timestamps from its frame rate (``fps`` overrides a missing or wrong one)."""

    def __init__(self, path: "str | pathlib.Path", fps: float | None = None) -> None:
        self.path = pathlib.Path(path)
        if not self.path.is_file():
            raise SourceError(Message("no such video file: %(path)s", path=str(self.path)))
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            raise SourceError(Message("cannot open %(path)s as a video", path=str(self.path)))
        native = capture.get(cv2.CAP_PROP_FPS)
        capture.release()
        self.fps = float(fps or (native if native and 0 < native < 1000 else 10.0))
        self.description = Message("video %(path)s at %(fps)s fps", path=str(self.path), fps=f"{self.fps:g}")

    def __iter__(self):
        capture = cv2.VideoCapture(str(self.path))
        try:
            index = 0
            while True:
                ok, frame = capture.read()
                if not ok:
                    break
                yield index / self.fps, frame
                index += 1
            if index == 0:
                raise SourceError(Message("%(path)s holds no readable frames", path=str(self.path)))
        finally:
            capture.release()


class CameraSource(FrameSource):
    """A live camera by index (``0``) or stream URL; runs until closed or the camera stops."""

    def __init__(self, device: "int | str", width: int | None = None, height: int | None = None,
                 max_failures: int = 30) -> None:
        self.device = device
        self.capture = cv2.VideoCapture(device)
        if not self.capture.isOpened():
            self.capture.release()
            raise SourceError(Message("cannot open camera %(device)s: is it connected and free?", device=repr(device)))
        if width:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.max_failures = max_failures
        self._closed = False
        self.description = Message("camera %(device)s", device=repr(device))

    def __iter__(self):
        start = time.monotonic()
        failures = 0
        while not self._closed:
            ok, frame = self.capture.read()
            if not ok:
                failures += 1
                if failures >= self.max_failures:
                    raise SourceError(Message("camera %(device)s stopped delivering frames", device=repr(self.device)))
                time.sleep(0.02)
                continue
            failures = 0
            yield time.monotonic() - start, frame

    def close(self) -> None:
        self._closed = True
        self.capture.release()


class PushSource(FrameSource):
    """Frames pushed by another thread (a phone posting photos): a bounded queue that drops the oldest.

    A slow pipeline must see the newest table, not a growing backlog, so a full queue drops the
    oldest frame (counted in ``dropped``). Iteration blocks until a frame arrives or ``close()``.
    """

    def __init__(self, max_frames: int = 4, clock=time.monotonic) -> None:
        if max_frames < 1:
            raise SourceError(Message("the push queue must hold at least one frame"))
        self._frames: collections.deque = collections.deque(maxlen=max_frames)
        self._condition = threading.Condition()
        self._closed = False
        self._clock = clock
        self._start: float | None = None
        self.dropped = 0
        self.description = Message("frames pushed from a phone")

    def push(self, frame: np.ndarray, timestamp: float | None = None) -> None:
        """Adds one BGR frame; ``timestamp`` defaults to the time of the push."""
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8 or frame.size == 0:
            raise SourceError(Message("a frame must be an H×W×3 uint8 BGR image, got shape %(shape)s %(dtype)s",
                                      shape=str(frame.shape), dtype=str(frame.dtype)))
        with self._condition:
            if self._closed:
                raise SourceError(Message("the push source is closed"))
            now = self._clock()
            if self._start is None:
                self._start = now
            stamp = now - self._start if timestamp is None else float(timestamp)
            if len(self._frames) == self._frames.maxlen:
                self.dropped += 1
            self._frames.append((stamp, frame))
            self._condition.notify()

    def push_encoded(self, data: bytes, timestamp: float | None = None) -> None:
        """Adds one JPEG/PNG-encoded image as posted by a browser."""
        frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if frame is None:
            raise SourceError(Message("the posted data is not a readable image (JPEG or PNG expected)"))
        self.push(frame, timestamp)

    def get(self, timeout: float | None = None) -> "tuple[float, np.ndarray] | None":
        """The oldest waiting frame, or None after ``timeout`` seconds or when closed and empty."""
        with self._condition:
            if not self._condition.wait_for(lambda: self._frames or self._closed, timeout):
                return None
            return self._frames.popleft() if self._frames else None

    def __len__(self) -> int:
        with self._condition:
            return len(self._frames)

    def __iter__(self):
        while True:
            item = self.get()
            if item is None:
                return
            yield item

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify_all()


def open_source(spec: "str | int", fps: float | None = None) -> FrameSource:
    """A source from what a person types: a camera index (``0``), a video file, or a folder of images."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CameraSource(int(spec))
    text = str(spec).strip()
    if not text:
        raise SourceError(Message("empty source: give a camera index, a video file or a folder of images"))
    if "://" in text:
        return CameraSource(text)
    path = pathlib.Path(text).expanduser()
    if path.is_dir():
        # a rendered recording keeps its frames in frames/ (or recording.mp4) next to truth.json
        if not any(p.suffix.lower() in IMAGE_SUFFIXES for p in path.iterdir()):
            if (path / "frames").is_dir():
                path = path / "frames"
            else:
                videos = sorted(p for p in path.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES)
                if videos:
                    return VideoFileSource(videos[0], fps)
        return ImageFolderSource(path, fps or _recorded_fps(path))
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            raise SourceError(Message("%(path)s is a single image: give the folder that holds the frames", path=str(path)))
        return VideoFileSource(path, fps)
    raise SourceError(Message("no such camera, video file or folder: %(source)s", source=text))


def _recorded_fps(folder: pathlib.Path) -> float:
    """A recording's frame rate from a ``truth.json`` beside the frames, else 10."""
    import json

    for candidate in (folder / "truth.json", folder.parent / "truth.json"):
        if candidate.is_file():
            try:
                return float(json.loads(candidate.read_text()).get("fps", 10.0))
            except (ValueError, TypeError, AttributeError):
                break
    return 10.0
