"""TensorFlow Lite import to TOSA v22 and its reference check against Arm NN."""

from .schema import TFLiteError, load_file, load_model
from .importer import import_model

__all__ = ["TFLiteError", "load_file", "load_model", "import_model"]
