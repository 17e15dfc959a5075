"""Reader for TensorFlow Lite flatbuffers (schema version 3).

Hand-written over python3-flatbuffers' ``Table`` API from the public
table/field layout of tensorflow/lite/schema/schema.fbs: field ``i`` of a
table lives at vtable slot ``4 + 2 * i``. Only the fields the importer needs
are read. The whole model is decoded eagerly into plain Python objects so
that any structural damage (truncation, offsets pointing outside the file)
surfaces here as a :class:`TFLiteError` instead of later as a traceback.
"""

import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
from flatbuffers import number_types as N
from flatbuffers.table import Table

FILE_IDENTIFIER = b"TFL3"


class TFLiteError(ValueError):
    """A .tflite file that cannot be read or imported (message is user-facing)."""


# TensorType enum -> (name, numpy dtype or None when the importer cannot use it).
TENSOR_TYPES = {
    0: ("FLOAT32", np.float32),
    1: ("FLOAT16", np.float16),
    2: ("INT32", np.int32),
    3: ("UINT8", np.uint8),
    4: ("INT64", np.int64),
    5: ("STRING", None),
    6: ("BOOL", np.bool_),
    7: ("INT16", np.int16),
    8: ("COMPLEX64", None),
    9: ("INT8", np.int8),
    10: ("FLOAT64", np.float64),
}

# BuiltinOperator enum values (schema.fbs); names are used in diagnostics.
BUILTIN_OPS = {
    0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D",
    4: "DEPTHWISE_CONV_2D", 5: "DEPTH_TO_SPACE", 6: "DEQUANTIZE",
    7: "EMBEDDING_LOOKUP", 8: "FLOOR", 9: "FULLY_CONNECTED",
    10: "HASHTABLE_LOOKUP", 11: "L2_NORMALIZATION", 12: "L2_POOL_2D",
    13: "LOCAL_RESPONSE_NORMALIZATION", 14: "LOGISTIC", 15: "LSH_PROJECTION",
    16: "LSTM", 17: "MAX_POOL_2D", 18: "MUL", 19: "RELU", 20: "RELU_N1_TO_1",
    21: "RELU6", 22: "RESHAPE", 23: "RESIZE_BILINEAR", 24: "RNN",
    25: "SOFTMAX", 26: "SPACE_TO_DEPTH", 27: "SVDF", 28: "TANH",
    29: "CONCAT_EMBEDDINGS", 30: "SKIP_GRAM", 31: "CALL", 32: "CUSTOM",
    33: "EMBEDDING_LOOKUP_SPARSE", 34: "PAD", 35: "UNIDIRECTIONAL_SEQUENCE_RNN",
    36: "GATHER", 37: "BATCH_TO_SPACE_ND", 38: "SPACE_TO_BATCH_ND",
    39: "TRANSPOSE", 40: "MEAN", 41: "SUB", 42: "DIV", 43: "SQUEEZE",
    44: "UNIDIRECTIONAL_SEQUENCE_LSTM", 45: "STRIDED_SLICE",
    46: "BIDIRECTIONAL_SEQUENCE_RNN", 47: "EXP", 48: "TOPK_V2", 49: "SPLIT",
    50: "LOG_SOFTMAX", 51: "DELEGATE", 52: "BIDIRECTIONAL_SEQUENCE_LSTM",
    53: "CAST", 54: "PRELU", 55: "MAXIMUM", 56: "ARG_MAX", 57: "MINIMUM",
    58: "LESS", 59: "NEG", 60: "PADV2", 61: "GREATER", 62: "GREATER_EQUAL",
    63: "LESS_EQUAL", 64: "SELECT", 65: "SLICE", 66: "SIN",
    67: "TRANSPOSE_CONV", 68: "SPARSE_TO_DENSE", 69: "TILE",
    70: "EXPAND_DIMS", 71: "EQUAL", 72: "NOT_EQUAL", 73: "LOG", 74: "SUM",
    75: "SQRT", 76: "RSQRT", 77: "SHAPE", 78: "POW", 79: "ARG_MIN",
    80: "FAKE_QUANT", 81: "REDUCE_PROD", 82: "REDUCE_MAX", 83: "PACK",
    84: "LOGICAL_OR", 85: "ONE_HOT", 86: "LOGICAL_AND", 87: "LOGICAL_NOT",
    88: "UNPACK", 89: "REDUCE_MIN", 90: "FLOOR_DIV", 91: "REDUCE_ANY",
    92: "SQUARE", 93: "ZEROS_LIKE", 94: "FILL", 95: "FLOOR_MOD", 96: "RANGE",
    97: "RESIZE_NEAREST_NEIGHBOR", 98: "LEAKY_RELU", 99: "SQUARED_DIFFERENCE",
    100: "MIRROR_PAD", 101: "ABS", 102: "SPLIT_V", 103: "UNIQUE",
    104: "CEIL", 105: "REVERSE_V2", 106: "ADD_N", 107: "GATHER_ND",
    108: "COS", 109: "WHERE", 110: "RANK", 111: "ELU", 112: "REVERSE_SEQUENCE",
    113: "MATRIX_DIAG", 114: "QUANTIZE", 115: "MATRIX_SET_DIAG", 116: "ROUND",
    117: "HARD_SWISH", 118: "IF", 119: "WHILE", 120: "NON_MAX_SUPPRESSION_V4",
    121: "NON_MAX_SUPPRESSION_V5", 122: "SCATTER_ND", 123: "SELECT_V2",
    124: "DENSIFY", 125: "SEGMENT_SUM", 126: "BATCH_MATMUL",
}


def op_name(code: int) -> str:
    """Returns the schema name of a BuiltinOperator value."""
    return BUILTIN_OPS.get(code, f"BUILTIN_{code}")


@dataclass
class Quantization:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per axis."""
    scale: np.ndarray
    zero_point: np.ndarray
    axis: int = 0


@dataclass
class Tensor:
    index: int
    name: str
    shape: List[int]
    type: int
    buffer: int
    quant: Optional[Quantization]
    data: Optional[np.ndarray] = None  # constant contents, shaped, when present
    # A variable tensor (TFLite's is_variable): state that persists between
    # invocations (SVDF's activation state, an LSTM's output and cell state).
    is_variable: bool = False

    @property
    def type_name(self) -> str:
        return TENSOR_TYPES.get(self.type, (f"TYPE_{self.type}", None))[0]


@dataclass
class Operator:
    index: int
    opcode: int          # BuiltinOperator value
    custom_code: str
    inputs: List[int]
    outputs: List[int]
    options: Optional[Table]  # builtin_options table, read through OptionReader

    @property
    def name(self) -> str:
        if self.opcode == 32 and self.custom_code:
            return f"CUSTOM({self.custom_code})"
        return op_name(self.opcode)


@dataclass
class SubGraph:
    tensors: List[Tensor]
    inputs: List[int]
    outputs: List[int]
    operators: List[Operator]
    name: str = ""


@dataclass
class Model:
    version: int
    subgraphs: List[SubGraph]
    description: str = ""
    op_counts: Dict[str, int] = field(default_factory=dict)
    # The flatbuffer the model was decoded from (the C++ importer reads these bytes).
    buffer: bytes = field(default=b"", repr=False)


class _Reader:
    """Bounds-checked accessors over one flatbuffer."""

    def __init__(self, buf: bytes):
        self.buf = buf

    def check(self, off: int, size: int):
        if off < 0 or off + size > len(self.buf):
            raise TFLiteError(
                f"offset {off}+{size} lies outside the file ({len(self.buf)} bytes): "
                "file is truncated or corrupt")

    def table_at(self, pos: int) -> Table:
        self.check(pos, 4)
        t = Table(self.buf, pos)
        vtable = pos - t.Get(N.SOffsetTFlags, pos)
        self.check(vtable, 4)
        vt_len = t.Get(N.VOffsetTFlags, vtable)
        self.check(vtable, vt_len)
        return t

    def field_pos(self, t: Table, i: int) -> int:
        """Absolute position of field i, or 0 when absent."""
        off = t.Offset(4 + 2 * i)
        if off == 0:
            return 0
        self.check(t.Pos + off, 1)
        return t.Pos + off

    def scalar(self, t: Table, i: int, flags, default):
        pos = self.field_pos(t, i)
        if not pos:
            return default
        self.check(pos, flags.bytewidth)
        return t.Get(flags, pos)

    def subtable(self, t: Table, i: int) -> Optional[Table]:
        pos = self.field_pos(t, i)
        if not pos:
            return None
        self.check(pos, 4)
        return self.table_at(t.Indirect(pos))

    def vector(self, t: Table, i: int):
        """(start, length) of vector field i, or None."""
        pos = self.field_pos(t, i)
        if not pos:
            return None
        self.check(pos, 4)
        vec = t.Indirect(pos)
        self.check(vec, 4)
        n = t.Get(N.UOffsetTFlags, vec)
        return vec + 4, n

    def numeric_vector(self, t: Table, i: int, dtype) -> np.ndarray:
        v = self.vector(t, i)
        if v is None:
            return np.zeros(0, dtype=dtype)
        start, n = v
        size = np.dtype(dtype).itemsize
        self.check(start, n * size)
        return np.frombuffer(self.buf, dtype=np.dtype(dtype).newbyteorder("<"),
                             count=n, offset=start).copy()

    def table_vector(self, t: Table, i: int) -> List[Table]:
        v = self.vector(t, i)
        if v is None:
            return []
        start, n = v
        self.check(start, 4 * n)
        return [self.table_at(t.Indirect(start + 4 * k)) for k in range(n)]

    def string(self, t: Table, i: int) -> str:
        v = self.vector(t, i)
        if v is None:
            return ""
        start, n = v
        self.check(start, n)
        return bytes(self.buf[start:start + n]).decode("utf-8", "replace")


class OptionReader:
    """Typed access to an operator's builtin_options table by field index."""

    def __init__(self, reader: _Reader, table: Optional[Table]):
        self.r = reader
        self.t = table

    def i8(self, i, default=0):
        return default if self.t is None else self.r.scalar(self.t, i, N.Int8Flags, default)

    def i32(self, i, default=0):
        return default if self.t is None else self.r.scalar(self.t, i, N.Int32Flags, default)

    def f32(self, i, default=0.0):
        return default if self.t is None else self.r.scalar(self.t, i, N.Float32Flags, default)

    def bool(self, i, default=False):
        return default if self.t is None else bool(self.r.scalar(self.t, i, N.BoolFlags, default))

    def i32_vector(self, i):
        if self.t is None:
            return np.zeros(0, dtype=np.int32)
        return self.r.numeric_vector(self.t, i, np.int32)


def _read_model(buf: bytes) -> Model:
    r = _Reader(buf)
    if len(buf) < 8:
        raise TFLiteError(f"file is too small to be a TFLite model ({len(buf)} bytes)")
    ident = bytes(buf[4:8])
    if ident != FILE_IDENTIFIER:
        raise TFLiteError(
            f"not a TFLite model: file identifier is {ident!r}, expected {FILE_IDENTIFIER!r}")
    root = r.table_at(struct.unpack_from("<I", buf, 0)[0])
    # Model: 0 version, 1 operator_codes, 2 subgraphs, 3 description, 4 buffers.
    version = r.scalar(root, 0, N.Uint32Flags, 0)
    if version != 3:
        raise TFLiteError(f"unsupported TFLite schema version {version} (expected 3)")
    opcodes = []
    for oc in r.table_vector(root, 1):
        # OperatorCode: 0 deprecated_builtin_code (byte), 1 custom_code,
        # 2 version, 3 builtin_code (int32, authoritative when larger).
        dep = r.scalar(oc, 0, N.Int8Flags, 0)
        full = r.scalar(oc, 3, N.Int32Flags, 0)
        opcodes.append((max(dep, full), r.string(oc, 1)))
    buffers = []
    for b in r.table_vector(root, 4):
        # Buffer: 0 data [ubyte]; 1 offset / 2 size for models > 2 GB (unsupported).
        if r.scalar(b, 1, N.Uint64Flags, 0):
            raise TFLiteError("buffers stored outside the flatbuffer (offset/size) are not supported")
        buffers.append(r.numeric_vector(b, 0, np.uint8))
    subgraphs = []
    for sg in r.table_vector(root, 2):
        tensors = []
        for ti, tt in enumerate(r.table_vector(sg, 0)):
            # Tensor: 0 shape, 1 type, 2 buffer, 3 name, 4 quantization, 5 is_variable.
            shape = [int(d) for d in r.numeric_vector(tt, 0, np.int32)]
            ttype = r.scalar(tt, 1, N.Int8Flags, 0)
            bidx = r.scalar(tt, 2, N.Uint32Flags, 0)
            quant = None
            qt = r.subtable(tt, 4)
            if qt is not None:
                # QuantizationParameters: 0 min, 1 max, 2 scale, 3 zero_point,
                # 4/5 details union, 6 quantized_dimension.
                scale = r.numeric_vector(qt, 2, np.float32)
                zp = r.numeric_vector(qt, 3, np.int64)
                if scale.size:
                    if zp.size == 0:
                        zp = np.zeros(scale.size, dtype=np.int64)
                    quant = Quantization(scale, zp, r.scalar(qt, 6, N.Int32Flags, 0))
            t = Tensor(ti, r.string(tt, 3), shape, ttype, bidx, quant,
                       is_variable=bool(r.scalar(tt, 5, N.BoolFlags, False)))
            if bidx >= len(buffers):
                raise TFLiteError(f"tensor {ti} '{t.name}' refers to buffer {bidx} "
                                  f"but the model has {len(buffers)}")
            raw = buffers[bidx]
            if raw.size:
                dtype = TENSOR_TYPES.get(ttype, (None, None))[1]
                if dtype is None:
                    raise TFLiteError(f"tensor {ti} '{t.name}' has unsupported type {t.type_name}")
                count = int(np.prod(shape)) if shape else 1
                if raw.size != count * np.dtype(dtype).itemsize:
                    raise TFLiteError(f"tensor {ti} '{t.name}': buffer has {raw.size} bytes, "
                                      f"shape {shape} of {t.type_name} needs "
                                      f"{count * np.dtype(dtype).itemsize}")
                t.data = raw.view(np.dtype(dtype).newbyteorder("<")).astype(dtype).reshape(shape)
            tensors.append(t)
        ops = []
        for oi, ot in enumerate(r.table_vector(sg, 3)):
            # Operator: 0 opcode_index, 1 inputs, 2 outputs, 3 options type, 4 options.
            idx = r.scalar(ot, 0, N.Uint32Flags, 0)
            if idx >= len(opcodes):
                raise TFLiteError(f"operator {oi} uses opcode index {idx} "
                                  f"but the model has {len(opcodes)} operator codes")
            code, custom = opcodes[idx]
            ins = [int(x) for x in r.numeric_vector(ot, 1, np.int32)]
            outs = [int(x) for x in r.numeric_vector(ot, 2, np.int32)]
            for x in ins + outs:
                if x >= len(tensors) or x < -1 or (x == -1 and x in outs):
                    raise TFLiteError(f"operator {oi} ({op_name(code)}) refers to tensor {x} "
                                      f"but the subgraph has {len(tensors)}")
            ops.append(Operator(oi, code, custom, ins, outs, r.subtable(ot, 4)))
        sg_inputs = [int(x) for x in r.numeric_vector(sg, 1, np.int32)]
        sg_outputs = [int(x) for x in r.numeric_vector(sg, 2, np.int32)]
        for x in sg_inputs + sg_outputs:
            if not 0 <= x < len(tensors):
                raise TFLiteError(f"subgraph {len(subgraphs)} lists tensor {x} as an input or "
                                  f"output but has {len(tensors)} tensors")
        subgraphs.append(SubGraph(tensors, sg_inputs, sg_outputs, ops, r.string(sg, 4)))
    if not subgraphs:
        raise TFLiteError("model has no subgraphs")
    model = Model(version, subgraphs, r.string(root, 3), buffer=bytes(buf))
    for op in subgraphs[0].operators:
        model.op_counts[op.name] = model.op_counts.get(op.name, 0) + 1
    model._reader = r
    return model


def load_model(buf: bytes) -> Model:
    """Decodes a TFLite flatbuffer; raises TFLiteError on any malformed input."""
    try:
        return _read_model(buf)
    except TFLiteError:
        raise
    except (struct.error, IndexError, ValueError, OverflowError, TypeError) as e:
        raise TFLiteError(f"malformed TFLite flatbuffer: {e}") from None


def load_file(path: str) -> Model:
    """Reads and decodes a .tflite file; raises TFLiteError with the path in the message."""
    try:
        with open(path, "rb") as f:
            buf = f.read()
    except OSError as e:
        raise TFLiteError(f"{path}: cannot read: {e.strerror}") from None
    try:
        return load_model(buf)
    except TFLiteError as e:
        raise TFLiteError(f"{path}: {e}") from None


def with_output(buf: bytes, tensor_index: int) -> bytes:
    """A copy of the model whose (single) subgraph output is tensor_index instead.

    Patches the int32 in the subgraph's outputs vector in place, so the rest
    of the flatbuffer is untouched: reference runtimes can then be asked for
    an intermediate tensor (op-by-op debugging).
    """
    model = load_model(buf)
    r = model._reader
    root = r.table_at(struct.unpack_from("<I", buf, 0)[0])
    sg = r.table_vector(root, 2)[0]
    start, n = r.vector(sg, 2)
    if n != 1:
        raise TFLiteError("only models with one output can be redirected")
    out = bytearray(buf)
    struct.pack_into("<i", out, start, tensor_index)
    return bytes(out)


def options(model: Model, op: Operator) -> OptionReader:
    """Typed reader of op's builtin options."""
    return OptionReader(model._reader, op.options)
