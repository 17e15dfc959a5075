"""Importer mixin, element-wise arithmetic: MUL, SUB, DIV, MINIMUM, MAXIMUM, SQUARED_DIFFERENCE,
RELU, RELU6, LEAKY_RELU, PRELU, QUANTIZE, DEQUANTIZE, CAST.

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
int8 bit for bit, float32 as its float kernels.
"""


class ElementwiseOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    HANDLERS = {}
