"""Importer mixin, table and fixed-point functions: LOGISTIC, TANH, HARD_SWISH, RSQRT, LOG_SOFTMAX,
L2_NORMALIZATION.

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
int8 bit for bit, float32 as its float kernels.
"""


class TableOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    HANDLERS = {}
