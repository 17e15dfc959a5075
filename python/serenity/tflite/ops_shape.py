"""Importer mixin, data movement: TRANSPOSE, PAD, PADV2, STRIDED_SLICE, SLICE, CONCATENATION, PACK,
UNPACK, SPLIT, SPLIT_V, SQUEEZE, EXPAND_DIMS, SHAPE (folded), GATHER, RESIZE_NEAREST_NEIGHBOR.

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
int8 bit for bit, float32 as its float kernels.
"""


class ShapeOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    HANDLERS = {}
