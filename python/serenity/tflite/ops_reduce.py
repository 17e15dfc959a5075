"""Importer mixin, windows, reductions and matrix products: MAX_POOL_2D, MEAN, SUM, REDUCE_MAX,
ARG_MAX, RESIZE_BILINEAR, TRANSPOSE_CONV, BATCH_MATMUL.

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
int8 bit for bit, float32 as its float kernels.
"""


class ReduceOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    HANDLERS = {}
