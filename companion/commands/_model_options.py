"""The options that choose and run the recognition models, shared by ``detect`` and ``evaluate``."""
from __future__ import annotations
from companion.i18n import _


def add_model_options(parser) -> None:
    parser.add_argument("--weights", metavar="PATH",
                        help=_("folder with models.json and the ONNX files (default: vision_models/weights or $COMPANION_WEIGHTS)"))
    parser.add_argument("--conf", type=float, metavar="X",
                        help=_("detector confidence threshold for index boxes (default: models.json's, else 0.25)"))
    parser.add_argument("--backend", choices=("auto", "onnxruntime", "openvino"), default="auto",
                        help=_("inference runtime; auto (the default, as Detector.load) takes the faster installed "
                             "one: onnxruntime, else openvino"))
    parser.add_argument("--precision", choices=("auto", "f32", "int8"), default="auto",
                        help=_("auto (default): the int8 copies of the models with onnxruntime where models.json names "
                             "them, else f32; f32 or int8 to choose"))
    parser.add_argument("--threads", type=int, default=2, help=_("CPU threads for inference (default 2)"))
