"""The detector runtime: exported models in, :class:`Detections` out. No torch here."""
from companion.vision.detections import Detections

__all__ = ["Detections"]
