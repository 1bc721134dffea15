"""Training: the runs that make the detector and the classifier, their continuations and the export to ONNX and int8."""
