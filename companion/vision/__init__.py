"""The detector runtime: exported models in, :class:`Detections` out. No torch here.

Heavy pieces (onnxruntime, OpenVINO) load only when a :class:`Detector` is made.
"""
from companion.vision.detections import Detections
from companion.vision.detector import Detector, FrameReading
from companion.vision.frames import check_frame, decode_image, load_image
from companion.vision.grouping import IndexReading, group_cards
from companion.vision.models import WeightsMissingError, available_backends, default_weights_dir

__all__ = ["Detections", "Detector", "FrameReading", "IndexReading", "WeightsMissingError", "available_backends",
           "check_frame", "decode_image", "default_weights_dir", "group_cards", "load_image"]
