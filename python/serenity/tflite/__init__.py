"""TensorFlow Lite import to TOSA v22 and its reference check against Arm NN."""

from .schema import TFLiteError, load_file, load_model
from .importer import import_model

__all__ = ["TFLiteError", "load_file", "load_model", "import_model"]


def add_subparser(subparsers) -> None:
    """Hook for ``python3 -m serenity``: registers import-tflite, check-tflite, report-tflite."""
    from .cli import add_subparsers
    add_subparsers(subparsers)
