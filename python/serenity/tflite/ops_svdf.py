"""SVDF (int8, TFLite Micro's integer kernel) with its activation state kept
between invocations as a TOSA variable (Importer.state_read / state_write)."""


class SvdfOps:
    HANDLERS = {}
