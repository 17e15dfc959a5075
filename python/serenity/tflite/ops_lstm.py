"""UNIDIRECTIONAL_SEQUENCE_LSTM (int8 x int8 -> int16 gates and cell, TFLite
Micro's integer LSTM) with its output and cell state kept between invocations
as TOSA variables (Importer.state_read / state_write)."""


class LstmOps:
    HANDLERS = {}
