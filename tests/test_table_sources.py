"""Frame sources: image folders, video files, the phone push queue, and clear errors for bad input."""
import threading

import cv2
import numpy as np
import pytest

from companion.table.sources import ImageFolderSource, PushSource, SourceError, VideoFileSource, open_source


def frame(value, size=(48, 64)):
    return np.full((size[0], size[1], 3), value, np.uint8)


def test_image_folder_is_read_in_name_order_at_its_frame_rate(tmp_path):
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), frame(value))
    (tmp_path / "notes.txt").write_text("not a frame")
    items = list(ImageFolderSource(tmp_path, fps=4))
    assert [round(t, 3) for t, _ in items] == [0.0, 0.25, 0.5]
    assert [int(f.mean()) for _, f in items][:2] == [10, 20]
    assert abs(int(items[2][1].mean()) - 30) <= 2


def test_video_file_frames_carry_its_frame_rate(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48))
    for value in (0, 60, 120, 180):
        writer.write(frame(value))
    writer.release()
    items = list(VideoFileSource(path))
    assert len(items) == 4
    assert [round(t, 2) for t, _ in items] == [0.0, 0.2, 0.4, 0.6]
    assert abs(int(items[3][1].mean()) - 180) < 10
    assert isinstance(open_source(str(path)), VideoFileSource)


def test_a_recording_folder_opens_its_frames_or_its_video(tmp_path):
    (tmp_path / "frames").mkdir()
    cv2.imwrite(str(tmp_path / "frames" / "000000.jpg"), frame(5))
    (tmp_path / "truth.json").write_text('{"fps": 5}')
    source = open_source(str(tmp_path))
    assert isinstance(source, ImageFolderSource) and source.fps == 5


def test_bad_sources_say_what_is_wrong(tmp_path):
    with pytest.raises(SourceError, match="no such"):
        open_source(str(tmp_path / "missing.mp4"))
    with pytest.raises(SourceError, match="holds no images"):
        ImageFolderSource(tmp_path)
    image = tmp_path / "one.png"
    cv2.imwrite(str(image), frame(1))
    with pytest.raises(SourceError, match="single image"):
        open_source(str(image))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all")
    with pytest.raises(SourceError):
        list(open_source(str(junk)))
    with pytest.raises(SourceError, match="empty"):
        open_source("  ")


def test_push_source_drops_the_oldest_when_full_and_keeps_order():
    clock = iter(range(100)).__next__
    source = PushSource(max_frames=2, clock=lambda: float(clock()))
    for value in (1, 2, 3):
        source.push(frame(value))
    assert source.dropped == 1 and len(source) == 2
    first = source.get(timeout=0)
    assert int(first[1].mean()) == 2 and first[0] == 1.0
    assert int(source.get(timeout=0)[1].mean()) == 3
    assert source.get(timeout=0.01) is None


def test_push_source_refuses_what_is_not_a_frame():
    source = PushSource()
    with pytest.raises(SourceError):
        source.push(np.zeros((10, 10), np.uint8))
    with pytest.raises(SourceError, match="not a readable image"):
        source.push_encoded(b"\x00\x01garbage")
    ok, encoded = cv2.imencode(".jpg", frame(200))
    source.push_encoded(encoded.tobytes(), timestamp=3.5)
    stamp, image = source.get(timeout=0)
    assert stamp == 3.5 and abs(int(image.mean()) - 200) <= 2
    source.close()
    with pytest.raises(SourceError, match="closed"):
        source.push(frame(1))


def test_push_source_feeds_an_iterating_thread_until_closed():
    source = PushSource(max_frames=64)
    seen = []
    reader = threading.Thread(target=lambda: seen.extend(int(f.mean()) for _, f in source))
    reader.start()
    for value in range(10):
        source.push(frame(value * 10))
    source.close()
    reader.join(timeout=5)
    assert not reader.is_alive()
    assert seen == [value * 10 for value in range(10)]
