"""A small writer of TFLite flatbuffers (schema version 3), for test models.

Writes what ``schema.py`` reads, with python3-flatbuffers' ``Builder``: one
subgraph, tensors (shape, type, per-tensor or per-axis quantization, constant
data), builtin operators with their options table. Options are given as
``{field_index: (kind, value)}`` where field_index is the field's position in
the options table of schema.fbs and kind one of ``i8 i16 i32 f32 bool
i32vec``; ``options_type`` is the BuiltinOptions union value the operator
carries (``OPTIONS`` below names the ones the test models use).

Example::

    m = ModelWriter()
    x = m.tensor("x", [1, 4], "int8", scale=0.5, zero_point=-3)
    y = m.tensor("y", [1, 4], "int8", scale=0.25, zero_point=0)
    m.op("LOGISTIC", [x], [y])
    m.inputs, m.outputs = [x], [y]
    open("logistic.tflite", "wb").write(m.finish())
"""

from typing import Dict, List, Optional, Sequence, Tuple

import flatbuffers
import numpy as np

from .schema import BUILTIN_OPS, TENSOR_TYPES

OP_CODES = {name: code for code, name in BUILTIN_OPS.items()}
TYPE_CODES = {name.lower(): code for code, (name, _) in TENSOR_TYPES.items()}
NUMPY_OF = {name.lower(): dt for _, (name, dt) in TENSOR_TYPES.items() if dt is not None}

# BuiltinOptions union values (schema.fbs) of the options tables.
OPTIONS = {
    "Conv2DOptions": 1, "DepthwiseConv2DOptions": 2, "Pool2DOptions": 5, "SVDFOptions": 6,
    "FullyConnectedOptions": 8, "SoftmaxOptions": 9, "ConcatenationOptions": 10,
    "AddOptions": 11, "L2NormOptions": 12, "ResizeBilinearOptions": 15, "ReshapeOptions": 17,
    "MulOptions": 21, "PadOptions": 22, "GatherOptions": 23, "TransposeOptions": 26,
    "ReducerOptions": 27, "SubOptions": 28, "DivOptions": 29, "SqueezeOptions": 30,
    "StridedSliceOptions": 32, "SplitOptions": 35, "LogSoftmaxOptions": 36, "CastOptions": 37,
    "DequantizeOptions": 38, "MaximumMinimumOptions": 39, "ArgMaxOptions": 40,
    "PadV2Options": 43, "SliceOptions": 48, "TransposeConvOptions": 49,
    "ExpandDimsOptions": 52, "ShapeOptions": 55, "PackOptions": 59, "UnpackOptions": 64,
    "ResizeNearestNeighborOptions": 74, "LeakyReluOptions": 75,
    "SquaredDifferenceOptions": 76, "SplitVOptions": 79, "QuantizeOptions": 89,
    "HardSwishOptions": 91, "BatchMatMulOptions": 101,
    "UnidirectionalSequenceLSTMOptions": 71,
}


class ModelWriter:
    """Collects one subgraph, then ``finish()`` returns the .tflite bytes."""

    def __init__(self, description: str = "serenity test model"):
        self.description = description
        self.tensors: List[dict] = []
        self.buffers: List[Optional[bytes]] = [None]  # buffer 0: the empty sentinel
        self.operators: List[dict] = []
        self.opcodes: List[int] = []
        self.inputs: List[int] = []
        self.outputs: List[int] = []

    def tensor(self, name: str, shape: Sequence[int], dtype: str, scale=None, zero_point=None,
               axis: int = 0, data: Optional[np.ndarray] = None, variable: bool = False) -> int:
        """Adds a tensor; returns its index. ``scale``/``zero_point`` are a number
        (per tensor) or a sequence (per axis ``axis``); ``data`` makes it constant;
        ``variable`` marks it is_variable (state kept between invocations)."""
        if dtype not in TYPE_CODES:
            raise ValueError(f"unknown tensor type {dtype}")
        buf = 0
        if data is not None:
            arr = np.asarray(data).astype(NUMPY_OF[dtype])
            if list(arr.shape) != list(shape):
                arr = arr.reshape(shape)
            self.buffers.append(arr.astype(arr.dtype.newbyteorder("<")).tobytes())
            buf = len(self.buffers) - 1
        quant = None
        if scale is not None:
            s = np.atleast_1d(np.asarray(scale, dtype=np.float32))
            z = np.atleast_1d(np.asarray(0 if zero_point is None else zero_point, dtype=np.int64))
            if z.size == 1 and s.size > 1:
                z = np.full(s.size, int(z[0]), dtype=np.int64)
            quant = (s, z, axis)
        self.tensors.append(dict(name=name, shape=[int(d) for d in shape], type=TYPE_CODES[dtype],
                                 buffer=buf, quant=quant, variable=bool(variable)))
        return len(self.tensors) - 1

    def const(self, name: str, data, dtype: str, **quant) -> int:
        arr = np.asarray(data)
        return self.tensor(name, list(arr.shape), dtype, data=arr, **quant)

    def op(self, name: str, inputs: Sequence[int], outputs: Sequence[int],
           options_type: Optional[str] = None,
           options: Optional[Dict[int, Tuple[str, object]]] = None) -> int:
        """Adds a builtin operator (name as in schema.fbs); returns its index."""
        code = OP_CODES[name]
        if code not in self.opcodes:
            self.opcodes.append(code)
        self.operators.append(dict(opcode=self.opcodes.index(code), inputs=list(inputs),
                                   outputs=list(outputs),
                                   options_type=OPTIONS[options_type] if options_type else 0,
                                   options=dict(options or {})))
        return len(self.operators) - 1

    # ------------------------------------------------------------ serialization
    @staticmethod
    def _int_vector(b: flatbuffers.Builder, values: Sequence[int], width: int = 4) -> int:
        flags = {4: flatbuffers.number_types.Int32Flags, 8: flatbuffers.number_types.Int64Flags}
        b.StartVector(width, len(values), width)
        for v in reversed(list(values)):
            b.Prepend(flags[width], int(v))
        return b.EndVector()

    @staticmethod
    def _float_vector(b: flatbuffers.Builder, values: Sequence[float]) -> int:
        b.StartVector(4, len(values), 4)
        for v in reversed(list(values)):
            b.PrependFloat32(float(v))
        return b.EndVector()

    @staticmethod
    def _bytes_vector(b: flatbuffers.Builder, data: bytes) -> int:
        # Buffers are 16-byte aligned in files TFLite writes; keep that.
        b.StartVector(1, len(data), 16)
        b.head = b.head - len(data)
        b.Bytes[b.head:b.head + len(data)] = data
        return b.EndVector()

    def _options(self, b: flatbuffers.Builder, fields: Dict[int, Tuple[str, object]]) -> int:
        vectors = {i: self._int_vector(b, v) for i, (k, v) in fields.items() if k == "i32vec"}
        b.StartObject(max(fields) + 1 if fields else 0)
        for i, (kind, v) in sorted(fields.items()):
            if kind == "i8":
                b.PrependInt8Slot(i, int(v), 0 if v != 0 else 1)
            elif kind == "i16":
                b.PrependInt16Slot(i, int(v), 0 if v != 0 else 1)
            elif kind == "i32":
                b.PrependInt32Slot(i, int(v), 0 if v != 0 else 1)
            elif kind == "f32":
                b.PrependFloat32Slot(i, float(v), 0.0 if v != 0.0 else 1.0)
            elif kind == "bool":
                b.PrependBoolSlot(i, bool(v), not bool(v))
            elif kind == "i32vec":
                b.PrependUOffsetTRelativeSlot(i, vectors[i], 0)
            else:
                raise ValueError(f"unknown option kind {kind}")
        return b.EndObject()

    def finish(self) -> bytes:
        b = flatbuffers.Builder(1024)
        # Buffers.
        buf_offsets = []
        for data in self.buffers:
            vec = self._bytes_vector(b, data) if data else None
            b.StartObject(1)
            if vec is not None:
                b.PrependUOffsetTRelativeSlot(0, vec, 0)
            buf_offsets.append(b.EndObject())
        # Tensors.
        t_offsets = []
        for t in self.tensors:
            name = b.CreateString(t["name"])
            shape = self._int_vector(b, t["shape"])
            q = None
            if t["quant"] is not None:
                s, z, axis = t["quant"]
                sv, zv = self._float_vector(b, s), self._int_vector(b, z, 8)
                b.StartObject(7)
                b.PrependUOffsetTRelativeSlot(2, sv, 0)
                b.PrependUOffsetTRelativeSlot(3, zv, 0)
                b.PrependInt32Slot(6, axis, 0)
                q = b.EndObject()
            b.StartObject(6 if t["variable"] else 5)
            b.PrependUOffsetTRelativeSlot(0, shape, 0)
            b.PrependInt8Slot(1, t["type"], 0)
            if t["variable"]:
                b.PrependBoolSlot(5, True, False)
            b.PrependUint32Slot(2, t["buffer"], 0)
            b.PrependUOffsetTRelativeSlot(3, name, 0)
            if q is not None:
                b.PrependUOffsetTRelativeSlot(4, q, 0)
            t_offsets.append(b.EndObject())
        # Operators.
        o_offsets = []
        for o in self.operators:
            ins, outs = self._int_vector(b, o["inputs"]), self._int_vector(b, o["outputs"])
            opts = self._options(b, o["options"]) if o["options_type"] else None
            b.StartObject(5)
            b.PrependUint32Slot(0, o["opcode"], 0)
            b.PrependUOffsetTRelativeSlot(1, ins, 0)
            b.PrependUOffsetTRelativeSlot(2, outs, 0)
            if opts is not None:
                b.PrependUint8Slot(3, o["options_type"], 0)
                b.PrependUOffsetTRelativeSlot(4, opts, 0)
            o_offsets.append(b.EndObject())

        def table_vector(offsets):
            b.StartVector(4, len(offsets), 4)
            for off in reversed(offsets):
                b.PrependUOffsetTRelative(off)
            return b.EndVector()

        tensors, operators = table_vector(t_offsets), table_vector(o_offsets)
        inputs, outputs = self._int_vector(b, self.inputs), self._int_vector(b, self.outputs)
        sg_name = b.CreateString("main")
        b.StartObject(5)
        b.PrependUOffsetTRelativeSlot(0, tensors, 0)
        b.PrependUOffsetTRelativeSlot(1, inputs, 0)
        b.PrependUOffsetTRelativeSlot(2, outputs, 0)
        b.PrependUOffsetTRelativeSlot(3, operators, 0)
        b.PrependUOffsetTRelativeSlot(4, sg_name, 0)
        subgraph = b.EndObject()
        # Operator codes: deprecated_builtin_code (byte, capped at 127) and builtin_code.
        c_offsets = []
        for code in self.opcodes:
            b.StartObject(4)
            b.PrependInt8Slot(0, min(code, 127), 0)
            b.PrependInt32Slot(2, 1, 0)
            b.PrependInt32Slot(3, code, 0)
            c_offsets.append(b.EndObject())
        opcodes = table_vector(c_offsets)
        subgraphs = table_vector([subgraph])
        buffers = table_vector(buf_offsets)
        desc = b.CreateString(self.description)
        b.StartObject(5)
        b.PrependUint32Slot(0, 3, 0)
        b.PrependUOffsetTRelativeSlot(1, opcodes, 0)
        b.PrependUOffsetTRelativeSlot(2, subgraphs, 0)
        b.PrependUOffsetTRelativeSlot(3, desc, 0)
        b.PrependUOffsetTRelativeSlot(4, buffers, 0)
        root = b.EndObject()
        b.Finish(root, file_identifier=b"TFL3")
        return bytes(b.Output())
