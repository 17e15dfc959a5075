"""TFLite -> TOSA v22 importer (textual MLIR, one ``func.func @main``).

int8 graphs follow the integer semantics of TensorFlow's TFL->TOSA
legalization (see docs/TFLiteImport.md for every op); ``float_mode`` emits the
dequantized f32 graph. Every op is emitted in MLIR's generic form so the text
does not depend on custom assembly formats.
"""

from typing import Dict, List, Optional

import numpy as np

from . import quant
from .emulate import ArmNNEmulation
from .tflite_int import TFLiteIntegerOps
from .ops_shape import ShapeOps
from .ops_elementwise import ElementwiseOps
from .ops_table import TableOps
from .ops_reduce import ReduceOps
from .ops_svdf import SvdfOps
from .ops_lstm import LstmOps
from .mlir_text import Builder, Value, dense_literal, float_literal, tensor_type
from .schema import Model, Operator, SubGraph, Tensor, TFLiteError, options

ROUNDING_MODES = {"double": "DOUBLE_ROUND", "single": "SINGLE_ROUND", "armnn": None}

# fused_activation_function enum of the TFLite schema.
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3
ACT_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH",
             5: "SIGN_BIT", 6: "SIGMOID"}

F32_MAX = float(np.finfo(np.float32).max)

# TFLite TensorType -> MLIR element type of the imported tensor.
ELEMENT_TYPES = {0: "f32", 9: "i8", 7: "i16", 2: "i32", 6: "i1"}
# INT8, INT16, UINT8: the types of quantized activations (dequantized by --float).
QUANTIZED_TYPES = (9, 7, 3)
UINT8 = 3


class Importer(ArmNNEmulation, TFLiteIntegerOps, ShapeOps, ElementwiseOps, TableOps,
               ReduceOps, SvdfOps, LstmOps):
    """Imports subgraph 0 of a decoded model; run() returns the module text."""

    def __init__(self, model: Model, float_mode: bool = False, rounding: str = "double",
                 outputs: Optional[List[int]] = None, only_op: Optional[int] = None,
                 canonicalize: bool = True):
        if rounding not in ROUNDING_MODES:
            raise TFLiteError(f"unknown rounding mode '{rounding}' (use double, single or armnn)")
        self.model = model
        self.sg: SubGraph = model.subgraphs[0]
        # A model without INT8 tensors is a float model: import it as such.
        # A model without INT8/INT16/UINT8 tensors is a float model.
        self.float_mode = float_mode or not any(t.type in QUANTIZED_TYPES for t in self.sg.tensors)
        self.rounding = ROUNDING_MODES[rounding]
        self.emulate = rounding == "armnn"
        # --rounding=double: TFLite's integer arithmetic (tflite_int.py).
        self.tflite_exact = rounding == "double"
        self.rounding_name = rounding
        self.b = Builder()
        self.values: Dict[int, Value] = {}
        self.variables: Dict[int, str] = {}  # variable tensor index -> tosa.variable symbol
        self.op: Optional[Operator] = None
        self.outputs = list(self.sg.outputs) if outputs is None else list(outputs)
        self.only_op = only_op
        # PAD outputs folded into the padding of the convolutions that read them
        # (tensor index -> [top, bottom, left, right]); see ShapeOps.foldable_pad.
        self.pad_folds: Dict[int, List[int]] = {}
        # Result name of each emitted tosa.reshape -> the value it reshapes.
        self.reshape_sources: Dict[str, Value] = {}
        self.canonicalize = canonicalize
        self.consumers: Dict[int, List[Operator]] = {}
        for o in self.sg.operators:
            for i in o.inputs:
                if i >= 0:
                    self.consumers.setdefault(i, []).append(o)
        # uint8 tensors at the model's edges: inputs only QUANTIZE reads,
        # outputs QUANTIZE writes (TFLite Micro's uint8 <-> int8 QUANTIZE).
        producers = {t: o for o in self.sg.operators for t in o.outputs}
        self.uint8_edges = set()
        for i in self.sg.inputs:
            if self.sg.tensors[i].type == UINT8 and self.consumers.get(i) and all(
                    o.name == "QUANTIZE" for o in self.consumers[i]):
                self.uint8_edges.add(i)
        for i in self.sg.outputs:
            if self.sg.tensors[i].type == UINT8 and i in producers and \
                    producers[i].name == "QUANTIZE" and i not in self.consumers:
                self.uint8_edges.add(i)

    # ----------------------------------------------------------------- helpers
    def error(self, msg: str) -> TFLiteError:
        op = self.op
        where = f"operator {op.index} ({op.name}): " if op is not None else ""
        return TFLiteError(where + msg)

    def tensor(self, idx: int) -> Tensor:
        return self.sg.tensors[idx]

    def qparams(self, t: Tensor):
        if t.quant is None:
            raise self.error(f"tensor {t.index} '{t.name}' has no quantization parameters")
        return t.quant.scale.astype(np.float64), t.quant.zero_point.astype(np.int64)

    def quantization_attr(self, t: Tensor) -> str:
        """`` {serenity.quantization = {scale, zero_point}}`` for an int8 model's
        per-tensor quantized input or output (real = scale * (q - zero_point)),
        so that tools (serenity-compile's header) can tell the caller; empty
        in float mode or without parameters."""
        if self.float_mode or t.quant is None or t.quant.scale.size != 1:
            return ""
        scale, zero_point = float(t.quant.scale[0]), int(t.quant.zero_point[0])
        unsigned = ", unsigned = true" if t.type == UINT8 else ""
        return (f" {{serenity.quantization = {{scale = {scale!r} : f64, "
                f"zero_point = {zero_point} : i64{unsigned}}}}}")

    def per_tensor(self, t: Tensor):
        s, z = self.qparams(t)
        if s.size != 1:
            raise self.error(f"tensor {t.index} '{t.name}': per-axis quantization is only "
                             "supported for weights")
        return float(s[0]), int(z[0])

    def value(self, idx: int) -> Value:
        if idx in self.values:
            return self.values[idx]
        t = self.tensor(idx)
        if t.is_variable:
            return self.state_read(idx)
        if t.data is None:
            raise self.error(f"input tensor {idx} '{t.name}' is neither computed nor constant")
        # A constant operand (an ADD/MUL/CONCATENATION/... with weights): a tosa.const.
        elem = self.elem_of(t)
        data = self.dequantized(t) if elem == "f32" and t.type != 0 else t.data
        v = Value(self.b.const(np.asarray(data).reshape(t.shape), elem, cache=True), t.shape, elem)
        self.values[idx] = v
        return v

    # ------------------------------------------------------- persistent state
    def state_symbol(self, idx: int) -> str:
        """The tosa.variable holding variable tensor ``idx`` (declared on first use).

        TFLite's variable tensors (SVDF's activation state, an LSTM's output and
        cell state) keep their value from one invocation to the next. They become
        TOSA variables: ``tosa.variable`` at module level, initialized to what
        TFLite Micro's ResetVariableTensors writes (the zero point for int8, 0
        otherwise), read with ``tosa.variable_read`` and updated with
        ``tosa.variable_write``; see docs/TFLiteImport.md (persistent state)."""
        t = self.tensor(idx)
        name = f"state{idx}"
        if idx not in self.variables:
            if self.float_mode and t.type != 0:  # float32 state (float SVDF) stays as it is
                raise self.error(f"variable tensor {idx} '{t.name}': --float does not import "
                                 "stateful models")
            elem = self.elem_of(t)
            if elem not in ("i8", "i16", "i32", "f32"):
                raise self.error(f"variable tensor {idx} '{t.name}' has type {t.type_name}; "
                                 "only integer or float32 state is supported")
            init = t.quant.zero_point[0] if (elem == "i8" and t.quant is not None) else 0
            dtype = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "f32": np.float32}[elem]
            shape = [int(d) for d in t.shape]
            arr = np.full(shape, init, dtype=dtype)
            self.variables[idx] = name
            self.b.module_lines.append(
                f"// variable tensor {idx} '{t.name}': persistent state, reset to {int(init)}")
            self.b.module_lines.append(
                f'"tosa.variable"() <{{initial_value = {dense_literal(arr, elem)} : '
                f'{tensor_type(shape, elem)}, sym_name = "{name}", type = {elem}, var_shape = '
                f'dense<[{", ".join(map(str, shape))}]> : tensor<{len(shape)}xindex>}}> : () -> ()')
        return name

    def state_read(self, idx: int) -> Value:
        """The current value of variable tensor ``idx`` (tosa.variable_read)."""
        t = self.tensor(idx)
        name = self.state_symbol(idx)
        v = Value(self.b.fresh(), t.shape, self.elem_of(t))
        self.b.lines.append(f'{v.name} = "tosa.variable_read"() <{{name = "{name}"}}> : () -> {v.type}')
        self.values[idx] = v
        return v

    def state_write(self, idx: int, v: Value) -> Value:
        """Stores ``v`` as the new value of variable tensor ``idx`` and returns a
        fresh read of it, which later uses take instead of ``v`` (the upstream
        ml_program bufferization miscompiles a stored value that has other uses;
        reading back also lets them read the persistent buffer in place)."""
        name = self.state_symbol(idx)
        if list(v.shape) != list(self.tensor(idx).shape):
            raise self.error(f"state {v.shape} does not match variable tensor {idx} "
                             f"{self.tensor(idx).shape}")
        self.b.lines.append(f'"tosa.variable_write"({v.name}) <{{name = "{name}"}}> : ({v.type}) -> ()')
        return self.state_read(idx)

    def elem_of(self, t: Tensor) -> str:
        if self.float_mode and (t.type == 0 or (t.type in QUANTIZED_TYPES and t.quant is not None)):
            return "f32"  # quantized tensors dequantized
        if self.float_mode and t.type in QUANTIZED_TYPES:
            raise self.error(f"tensor {t.index} '{t.name}' has type {t.type_name} without "
                             "quantization parameters; --float cannot dequantize it")
        if t.type in ELEMENT_TYPES:
            return ELEMENT_TYPES[t.type]
        if t.type == UINT8:
            if t.index in self.uint8_edges:
                return "i8"  # its bits; QUANTIZE flips the sign bit (import_quantize)
            raise self.error(f"tensor {t.index} '{t.name}' has type UINT8: only a model input "
                             "read by QUANTIZE (uint8 -> int8) and a model output written by "
                             "QUANTIZE (int8 -> uint8) may be uint8, as TFLite Micro runs them")
        raise self.error(f"tensor {t.index} '{t.name}' has unsupported type {t.type_name}")

    def dequantized(self, t: Tensor) -> np.ndarray:
        """Constant tensor as float32 (per-axis aware)."""
        if t.data is None:
            raise self.error(f"tensor {t.index} '{t.name}' must be constant")
        if t.type == 0:
            return t.data.astype(np.float32)
        if t.quant is None:
            raise self.error(f"tensor {t.index} '{t.name}' is quantized without parameters")
        s = t.quant.scale.astype(np.float32)
        z = t.quant.zero_point.astype(np.float32)
        if s.size > 1:
            shp = [1] * t.data.ndim
            shp[t.quant.axis] = s.size
            s, z = s.reshape(shp), z.reshape(shp)
        return ((t.data.astype(np.float32) - z) * s).astype(np.float32)

    def rescale(self, x: Value, scales, in_zp: int, out_zp: int, out_elem: str,
                comment: str = "") -> Value:
        """tosa.rescale with one multiplier/shift per scale (per-channel when >1)."""
        scales = np.atleast_1d(np.asarray(scales, dtype=np.float64))
        try:
            ms = [quant.quantize_multiplier(float(s)) for s in scales]
        except ValueError as e:
            raise self.error(str(e)) from None
        return self.rescale_raw(x, [m for m, _ in ms], [s for _, s in ms], in_zp, out_zp, out_elem,
                                self.rounding, comment)

    def activation(self, x: Value, act: int, out: Tensor) -> Value:
        if act == ACT_NONE:
            return x
        if act not in (ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1):
            raise self.error(f"fused activation {ACT_NAMES.get(act, act)} is not supported")
        lo_real, hi_real = {ACT_RELU: (0.0, None), ACT_RELU6: (0.0, 6.0),
                            ACT_RELU_N1_TO_1: (-1.0, 1.0)}[act]
        if x.elem == "f32":
            lo, hi = lo_real, F32_MAX if hi_real is None else hi_real
            attrs = f"max_val = {float_literal(hi)} : f32, min_val = {float_literal(lo)} : f32"
        else:
            # Quantized-domain clamp, as TFLite's CalculateActivationRangeQuantized.
            # The bound is quantized with a float32 division like TFLite and Arm NN.
            s, z = self.per_tensor(out)
            lo, hi = quant.activation_range(act, s, z)
            attrs = f"max_val = {hi} : i8, min_val = {lo} : i8"
        res = Value("", x.shape, x.elem)
        res.name = self.b.op("clamp", [x.name], [x.type], x.type, attrs,
                             f"fused {ACT_NAMES[act]}")
        return res

    def reshape(self, x: Value, shape) -> Value:
        """``x`` as ``shape``. A reshape of a reshape reshapes the first one's source
        (SQUEEZE then EXPAND_DIMS back gives the source itself): no layout op is left
        between the ops it connects, so fused tiling sees them as one chain."""
        if self.canonicalize:
            x = self.reshape_sources.get(x.name, x)
        if list(shape) == x.shape:
            return x
        res = Value("", shape, x.elem)
        sh = self.b.shape(shape)
        res.name = self.b.op("reshape", [x.name, sh], [x.type, f"!tosa.shape<{len(shape)}>"], res.type)
        self.reshape_sources[res.name] = x
        return res

    def row_view(self, x: Value):
        """For a 1-D signal held as [N, H, 1, C] that is a reshape of [N, 1, H, C] (a
        Conv1D's EXPAND_DIMS on the other axis): that source, else None. A window op
        along H with width 1 computes the same on the source along W, where the
        convolutions before it run."""
        src = self.reshape_sources.get(x.name) if self.canonicalize else None
        if (src is not None and len(x.shape) == 4 and x.shape[2] == 1 and x.shape[1] > 1
                and list(src.shape) == [x.shape[0], 1, x.shape[1], x.shape[3]]):
            return src
        return None

    def same_padding(self, in_size, k, stride, dilation, out_size):
        eff = (k - 1) * dilation + 1
        total = max((out_size - 1) * stride + eff - in_size, 0)
        return total // 2, total - total // 2

    def pads(self, padding: int, in_shape, kh, kw, sh, sw, dh, dw, out_shape):
        if padding == 1:  # VALID
            return [0, 0, 0, 0]
        top, bottom = self.same_padding(in_shape[1], kh, sh, dh, out_shape[1])
        left, right = self.same_padding(in_shape[2], kw, sw, dw, out_shape[2])
        return [top, bottom, left, right]

    def window_input(self, op: Operator, kh, kw, sh, sw, dh, dw, padding):
        """(input value, [top, bottom, left, right]) of a CONV_2D / DEPTHWISE_CONV_2D:
        the padding its options ask for on the input tensor's shape, plus the rows and
        columns of an explicit PAD folded into it (the PAD's input is read instead)."""
        idx = op.inputs[0]
        shape = self.tensor(idx).shape
        pad = self.pads(padding, shape, kh, kw, sh, sw, dh, dw, self.tensor(op.outputs[0]).shape)
        fold = self.pad_folds.get(idx)
        if fold:
            pad = [p + f for p, f in zip(pad, fold)]
        return self.value(idx), pad

    def fit_stride(self, x: Value, pad, keff, stride):
        """TOSA requires (in - 1 + pads - (k_eff - 1)) to divide by the stride.

        TFLite simply never reads the trailing rows/columns that do not fit, so
        drop them: first from the bottom/right padding, then (tosa.slice) from
        the input itself.
        """
        pad = list(pad)
        size = list(x.shape)
        for dim, (lo, hi) in ((1, (0, 1)), (2, (2, 3))):
            extra = (size[dim] - 1 + pad[lo] + pad[hi] - (keff[dim - 1] - 1)) % stride[dim - 1]
            cut = min(extra, pad[hi])
            pad[hi] -= cut
            size[dim] -= extra - cut
        if size != x.shape:
            res = Value("", size, x.elem)
            start, sizes = self.b.shape([0] * len(size)), self.b.shape(size)
            n = len(size)
            res.name = self.b.op("slice", [x.name, start, sizes],
                                 [x.type, f"!tosa.shape<{n}>", f"!tosa.shape<{n}>"], res.type,
                                 comment="rows/columns the strided window never reads")
            x = res
        return x, pad

    # ---------------------------------------------------------------- conv ops
    def conv_quantization(self, in_t: Tensor, wt: Tensor, out: Tensor, oc: int):
        """(s_in, z_in, s_w, s_out, z_out) of a quantized conv / fully connected
        layer: per-tensor activations, weights per tensor or per output
        channel with zero point 0 (int8 and 16x8 alike)."""
        s_in, z_in = self.per_tensor(in_t)
        s_w, z_w = self.qparams(wt)
        if np.any(z_w != 0):
            raise self.error(f"weight tensor {wt.index} '{wt.name}' has a non-zero zero point")
        s_out, z_out = self.per_tensor(out)
        if s_w.size != 1 and s_w.size != oc:
            raise self.error(f"weight tensor {wt.index} has {s_w.size} scales for {oc} channels")
        return s_in, z_in, s_w, s_out, z_out

    def conv_like(self, kind: str, x: Value, in_t: Tensor, weight: np.ndarray, wt: Tensor,
                  bias_idx: int, out: Tensor, pad, stride, dilation, act: int,
                  comment: str, float_product: bool = False) -> Value:
        """conv2d / depthwise_conv2d (weights already in TOSA layout) + rescale + clamp."""
        b = self.b
        kh, kw = weight.shape[1:3] if kind == "conv2d" else weight.shape[0:2]
        keff = [(kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1]
        x, pad = self.fit_stride(x, pad, keff, stride)
        oc = out.shape[-1]
        bias_t = self.tensor(bias_idx) if bias_idx >= 0 else None
        acc_shape = list(out.shape)
        if x.elem == "f32":
            if wt.type != 0 and not self.float_mode:
                raise self.hybrid_error(wt)
            wname = b.const(weight.astype(np.float32), "f32")
            if bias_t is not None:
                if bias_t.type != 0 and bias_t.quant is None:
                    raise self.error(f"bias tensor {bias_t.index} is quantized without parameters")
                bias = self.dequantized(bias_t).reshape(-1)
            else:
                bias = np.zeros(oc, dtype=np.float32)
            bname = b.const(bias.astype(np.float32), "f32")
            zp = b.scalar1(0.0, "f32")
            res = Value("", acc_shape, "f32")
            res.name = b.op(kind, [x.name, wname, bname, zp, zp],
                            [x.type, tensor_type(weight.shape, "f32"), f"tensor<{oc}xf32>",
                             "tensor<1xf32>", "tensor<1xf32>"], res.type,
                            f"acc_type = f32, dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
                            f"pad = array<i64: {', '.join(map(str, pad))}>, "
                            f"stride = array<i64: {stride[0]}, {stride[1]}>", comment)
            return self.activation(res, act, out)
        if x.elem == "i16":
            return self.conv_like_16x8(kind, x, in_t, weight, wt, bias_t, out, pad, stride,
                                       dilation, act, comment, float_product)
        s_in, z_in, s_w, s_out, z_out = self.conv_quantization(in_t, wt, out, oc)
        if bias_t is not None:
            if bias_t.type != 2 or bias_t.data is None:
                raise self.error(f"bias tensor {bias_t.index} must be a constant INT32 tensor")
            bias = bias_t.data.astype(np.int32).reshape(-1)
        else:
            bias = np.zeros(oc, dtype=np.int32)
        if self.emulate:
            ws = s_w.astype(np.float32)
            if ws.size > 1:
                ws = ws.reshape((-1, 1, 1, 1) if kind == "conv2d" else (1, 1) + weight.shape[2:])
            wf = (weight.astype(np.float32) * ws).astype(np.float32)
            y = self.emulated_conv(kind, x, wf, bias_t, acc_shape, pad, stride, dilation,
                                   s_in, z_in, s_out, z_out, comment)
            return self.activation(y, act, out)
        wname = b.const(weight.astype(np.int8), "i8")
        bname = b.const(bias, "i32")
        izp = b.scalar1(z_in, "i8")
        wzp = b.scalar1(0, "i8")
        acc = Value("", acc_shape, "i32")
        acc.name = b.op(kind, [x.name, wname, bname, izp, wzp],
                        [x.type, tensor_type(weight.shape, "i8"), f"tensor<{oc}xi32>",
                         "tensor<1xi8>", "tensor<1xi8>"], acc.type,
                        f"acc_type = i32, dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
                        f"pad = array<i64: {', '.join(map(str, pad))}>, "
                        f"stride = array<i64: {stride[0]}, {stride[1]}>", comment)
        # Scales are float32 in the file; the real multiplier is computed in
        # double from them, as TFLite and the legalization do.
        if self.tflite_exact:
            scale = s_in * s_w / s_out
            if float_product and s_w.size == 1:
                # TFLite Micro's per-tensor FULLY_CONNECTED: GetQuantizedConvolutionMultipler
                # multiplies the two scales in float32, then divides in double.
                scale = np.array([float(np.float32(s_in) * np.float32(s_w[0]))]) / s_out
            y = self.tflite_requantize(acc, scale, 0, z_out, "i8")
        else:
            y = self.rescale(acc, s_in * s_w / s_out, 0, z_out, "i8")
        return self.activation(y, act, out)

    def conv_like_16x8(self, kind: str, x: Value, in_t: Tensor, weight: np.ndarray, wt: Tensor,
                       bias_t: Optional[Tensor], out: Tensor, pad, stride, dilation, act: int,
                       comment: str, float_product: bool) -> Value:
        """CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int16 activations and int8
        weights ("16x8"), as TFLite Micro's reference kernels (reference_integer_ops::
        ConvPerChannel / DepthwiseConvPerChannel / FullyConnected[PerChannel] for int16):

        * the sum of ``w * x`` plus the bias in an int64 accumulator when the bias is int64
          (or absent and the options' quantized_bias_type is not INT32), then the int64
          MultiplyByQuantizedMultiplier: the multiplier reduced to 16 bits,
          ``m16 = min((m + 2^15) >> 16, 32767)``, and ONE rounding,
          ``(acc * m16 + 2^(t-1)) >> t`` with ``t = 15 - shift``. In TOSA: ``tosa.conv2d`` /
          ``depthwise_conv2d`` with an i16 input, i8 weights, an i48 bias and ``acc_type =
          i48`` (exact: TFLM requires |acc| < 2^47), then a ``tosa.rescale`` i48 -> i16 with
          ``scale32 = false`` (16-bit multipliers), SINGLE_ROUND and shift ``t``: TOSA's
          ``apply_scale_16`` is that formula (it requires the result in int32 where TFLM's
          DCHECK aborts otherwise);
        * with an int32 bias, an int32 accumulator and the int32 (double rounding)
          MultiplyByQuantizedMultiplier: the i48 accumulator taken to i32 by an exact rescale
          (``(acc * 2^14 + 2^13) >> 14``; refused where TFLM's int32 sum could overflow:
          ``sum |w| * 32768 + |bias| >= 2^31`` for some channel), then the usual DOUBLE_ROUND
          rescale (tflite_requantize).

        Multipliers as for int8: per-channel and CONV_2D/DEPTHWISE in double, per-tensor
        FULLY_CONNECTED with the scale product in float32. The fused activation is a clamp in
        int16 (CalculateActivationRangeQuantized). Zero points: the conv and depthwise kernels
        read neither the input nor the output zero point (TFLite quantizes int16 activations
        symmetrically), so non-zero ones are refused; FULLY_CONNECTED adds both (the input's
        is folded into the bias, ``- zp * sum w``, exact; the output's added in i32). TFLM's
        16x8 depthwise reads its bias as int64 only: an int32 bias there is refused."""
        b = self.b
        op = self.op
        oc = out.shape[-1]
        if not self.tflite_exact:
            raise self.error(f"int16 {op.name} is imported with --rounding=double only")
        s_in, z_in, s_w, s_out, z_out = self.conv_quantization(in_t, wt, out, oc)
        if self.elem_of(out) != "i16":
            raise self.error(f"int16 {op.name} needs an int16 output, not {out.type_name}")
        is_fc = op.name == "FULLY_CONNECTED"
        if not is_fc and (z_in or z_out):
            raise self.error(f"int16 {op.name} with zero points {z_in} (input) and {z_out} "
                             "(output): TFLite Micro's 16x8 kernel ignores them (int16 "
                             "activations are quantized with zero point 0); not supported")
        if bias_t is not None:
            if bias_t.data is None or bias_t.type not in (2, 4):
                raise self.error(f"bias tensor {bias_t.index} of an int16 {op.name} must be a "
                                 "constant INT64 or INT32 tensor")
            acc64 = bias_t.type == 4
            bias = bias_t.data.astype(np.int64).reshape(-1)
        else:
            slot = {"CONV_2D": 6, "FULLY_CONNECTED": 4}.get(op.name)
            acc64 = slot is None or options(self.model, op).i8(slot) != 2  # INT32
            bias = np.zeros(oc, dtype=np.int64)
        if op.name == "DEPTHWISE_CONV_2D" and bias_t is None:
            raise self.error("int16 DEPTHWISE_CONV_2D without a bias: TFLite Micro's 16x8 "
                             "depthwise kernel aborts (it checks the bias shape "
                             "unconditionally); not supported")
        if op.name == "DEPTHWISE_CONV_2D" and not acc64:
            raise self.error("int16 DEPTHWISE_CONV_2D with an INT32 bias: TFLite Micro's 16x8 "
                             "depthwise kernel reads the bias as int64; not supported")
        # Weights per output channel, [OC, K], in the layout of each kind.
        w_oc = (weight.reshape(oc, -1) if kind == "conv2d"
                else weight.reshape(-1, oc).T).astype(np.int64)
        if z_in:
            bias = bias - z_in * w_oc.sum(axis=1)
        if np.abs(bias).max(initial=0) >= (1 << 47):
            raise self.error("bias outside the 48-bit accumulator of TOSA (TFLM requires "
                             "|acc| < 2^47)")
        scale = s_in * s_w / s_out
        if float_product and s_w.size == 1:
            scale = np.array([float(np.float32(s_in) * np.float32(s_w[0]))]) / s_out
        try:
            ms = [quant.tflite_quantize_multiplier(float(v)) for v in np.atleast_1d(scale)]
        except ValueError as e:
            raise self.error(str(e)) from None
        wname = b.const(weight.astype(np.int8), "i8")
        bname = self.const_i48(bias)
        acc = Value("", list(out.shape), "i48")
        acc.name = b.op(kind, [x.name, wname, bname, b.scalar1(0, "i16"), b.scalar1(0, "i8")],
                        [x.type, tensor_type(weight.shape, "i8"), f"tensor<{oc}xi48>",
                         "tensor<1xi16>", "tensor<1xi8>"], acc.type,
                        f"acc_type = i48, dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
                        f"pad = array<i64: {', '.join(map(str, pad))}>, "
                        f"stride = array<i64: {stride[0]}, {stride[1]}>",
                        comment + (": 16x8, int64 accumulator" if acc64 else
                                   ": 16x8, int32 bias and accumulator"))
        out_elem = "i16" if z_out == 0 else "i32"
        if acc64:
            if max(sh for _, sh in ms) >= 8:
                raise self.error(f"requantization scale {float(np.max(scale))} needs a left "
                                 "shift of 8 or more (TFLite Micro's int64 "
                                 "MultiplyByQuantizedMultiplier allows up to 7)")
            m16 = [0x7FFF if m >= 0x7FFF0000 else (m + (1 << 15)) >> 16 for m, _ in ms]
            y = self.rescale16(acc, m16, [15 - sh for _, sh in ms], out_elem,
                               "int64 MultiplyByQuantizedMultiplier: 16-bit multiplier, one "
                               "rounding")
        else:
            bound = int((np.abs(w_oc).sum(axis=1) * (1 << 15) + np.abs(bias)).max())
            if bound >= (1 << 31):
                raise self.error(f"int16 {op.name} with an INT32 bias: TFLite Micro's int32 "
                                 f"accumulator can overflow (bound {bound}); not supported")
            a32 = self.rescale16(acc, [1 << 14], [14], "i32", "the int32 accumulator (exact)")
            y = self.tflite_requantize(a32, scale, 0, 0, out_elem)
        if z_out:
            y = self.ew("add", [y, self.iconst([z_out], [1] * len(y.shape))], "i32")
            y = self.ew("cast", [self.iclamp(y, -(1 << 15), (1 << 15) - 1)], "i16")
        if act == ACT_NONE:
            return y
        if act not in (ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1):
            raise self.error(f"fused activation {ACT_NAMES.get(act, act)} is not supported")
        lo, hi = quant.activation_range(act, s_out, z_out, -(1 << 15), (1 << 15) - 1)
        res = Value("", y.shape, "i16")
        res.name = b.op("clamp", [y.name], [y.type], res.type,
                        f"max_val = {hi} : i16, min_val = {lo} : i16", f"fused {ACT_NAMES[act]}")
        return res

    def const_i48(self, values) -> str:
        """A tensor<Nxi48> constant (decimal literal: MLIR's hex form of i48 is not bytes)."""
        v = [int(t) for t in np.asarray(values, dtype=np.int64).reshape(-1)]
        ty = f"tensor<{len(v)}xi48>"
        name = self.b.fresh()
        lit = f"dense<{v[0]}>" if len(set(v)) == 1 else f"dense<[{', '.join(map(str, v))}]>"
        self.b.lines.append(f'{name} = "tosa.const"() <{{values = {lit} : {ty}}}> : () -> {ty}')
        return name

    def rescale16(self, x: Value, mults, shifts, out_elem: str, comment: str = "") -> Value:
        """tosa.rescale of an i48 tensor with 16-bit multipliers (scale32 = false),
        SINGLE_ROUND: ``(x * m + 2^(s-1)) >> s`` per channel, saturated to out_elem."""
        b = self.b
        n = len(mults)
        if min(shifts) < 2 or max(shifts) > 62:
            raise self.error(f"rescale shift outside [2, 62]: {shifts}")
        mult = b.const(np.array(mults, dtype=np.int16), "i16", cache=True)
        shift = b.const(np.array(shifts, dtype=np.int8), "i8", cache=True)
        zi = self.const_i48([0])
        zo = b.scalar1(0, out_elem)
        res = Value("", x.shape, out_elem)
        res.name = b.op("rescale", [x.name, mult, shift, zi, zo],
                        [x.type, f"tensor<{n}xi16>", f"tensor<{n}xi8>", "tensor<1xi48>",
                         f"tensor<1x{out_elem}>"], res.type,
                        "input_unsigned = false, output_unsigned = false, "
                        f"per_channel = {'true' if n > 1 else 'false'}, "
                        "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = false",
                        comment)
        return res

    # --------------------------------------------------------------- op import
    def import_conv2d(self, op: Operator):
        o = options(self.model, op)
        padding, sw, sh, act = o.i8(0), o.i32(1, 1), o.i32(2, 1), o.i8(3)
        dw, dh = o.i32(4, 1), o.i32(5, 1)
        wt = self.tensor(op.inputs[1])
        out = self.tensor(op.outputs[0])
        w = self.weights(wt)
        if len(self.tensor(op.inputs[0]).shape) != 4 or w.ndim != 4:
            raise self.error("CONV_2D expects 4-D input and filter")
        oc, kh, kw, _ = w.shape
        x, pad = self.window_input(op, kh, kw, sh, sw, dh, dw, padding)
        bias = op.inputs[2] if len(op.inputs) > 2 else -1
        return self.conv_like("conv2d", x, self.tensor(op.inputs[0]), w, wt, bias, out, pad,
                              (sh, sw), (dh, dw), act,
                              f"CONV_2D #{op.index}")

    def import_depthwise(self, op: Operator):
        o = options(self.model, op)
        padding, sw, sh = o.i8(0), o.i32(1, 1), o.i32(2, 1)
        act, dw, dh = o.i8(4), o.i32(5, 1), o.i32(6, 1)
        wt = self.tensor(op.inputs[1])
        out = self.tensor(op.outputs[0])
        w = self.weights(wt)
        if len(self.tensor(op.inputs[0]).shape) != 4 or w.ndim != 4 or w.shape[0] != 1:
            raise self.error("DEPTHWISE_CONV_2D expects 4-D input and a [1, KH, KW, C*M] filter")
        _, kh, kw, cm = w.shape
        x, pad = self.window_input(op, kh, kw, sh, sw, dh, dw, padding)
        c = x.shape[3]
        if cm % c:
            raise self.error(f"filter has {cm} channels, not a multiple of the input's {c}")
        bias = op.inputs[2] if len(op.inputs) > 2 else -1
        if c == 1:
            # One input channel with a depth multiplier (micro_speech's first layer):
            # the same sums as a convolution with M output channels, [M, KH, KW, 1];
            # its lowering keeps no accumulator rows in the arena.
            return self.conv_like("conv2d", x, self.tensor(op.inputs[0]),
                                  np.ascontiguousarray(w.reshape(kh, kw, cm).transpose(2, 0, 1)[..., None]),
                                  wt, bias, out, pad, (sh, sw), (dh, dw), act,
                                  f"DEPTHWISE_CONV_2D #{op.index} (one input channel: a convolution)")
        # TFLite [1, KH, KW, C*M] -> TOSA [KH, KW, C, M]; output channel c*M+m in both.
        w = w.reshape(kh, kw, c, cm // c)
        return self.conv_like("depthwise_conv2d", x, self.tensor(op.inputs[0]), w, wt, bias, out,
                              pad, (sh, sw), (dh, dw),
                              act, f"DEPTHWISE_CONV_2D #{op.index}")

    def import_fully_connected(self, op: Operator):
        o = options(self.model, op)
        act, wformat = o.i8(0), o.i8(1)
        if wformat != 0:
            raise self.error("only the DEFAULT weights format is supported")
        x = self.value(op.inputs[0])
        wt = self.tensor(op.inputs[1])
        out = self.tensor(op.outputs[0])
        w = self.weights(wt)
        if w.ndim != 2:
            raise self.error("FULLY_CONNECTED expects a 2-D weight matrix")
        oc, ic = w.shape
        total = int(np.prod(x.shape))
        if total % ic:
            raise self.error(f"input of {total} elements is not a multiple of {ic}")
        n = total // ic
        # As the legalization: reshape to NHWC [N,1,1,IC] and use a 1x1 conv2d.
        x4 = self.reshape(x, [n, 1, 1, ic])
        bias = op.inputs[2] if len(op.inputs) > 2 else -1
        out4 = Tensor(out.index, out.name, [n, 1, 1, oc], out.type, out.buffer, out.quant)
        y = self.conv_like("conv2d", x4, self.tensor(op.inputs[0]), w.reshape(oc, 1, 1, ic), wt,
                           bias, out4,
                           [0, 0, 0, 0], (1, 1), (1, 1), act, f"FULLY_CONNECTED #{op.index}",
                           float_product=True)
        return self.reshape(y, out.shape)

    def weights(self, wt: Tensor) -> np.ndarray:
        if wt.data is None:
            raise self.error(f"weight tensor {wt.index} '{wt.name}' must be constant")
        if self.float_mode:
            return self.dequantized(wt)
        if wt.type == 0 and self.tensor(self.op.inputs[0]).type == 0:
            return wt.data  # a float32 operator inside a quantized model
        if wt.type != 9:
            raise self.error(f"weight tensor {wt.index} '{wt.name}' has type {wt.type_name}; "
                             "int8 import needs INT8 weights")
        return wt.data

    def hybrid_error(self, wt: Tensor) -> TFLiteError:
        return self.error(
            f"hybrid operator: float32 activations with {wt.type_name} weights (tensor {wt.index} "
            f"'{wt.name}'). TFLite Micro does not run hybrid models either; import it as a float "
            "model with dequantized weights (import-tflite --float, serenity-compile --float), or "
            "convert it with full-integer quantization")

    def import_add(self, op: Operator):
        act = options(self.model, op).i8(0)
        a, c = self.value(op.inputs[0]), self.value(op.inputs[1])
        out = self.tensor(op.outputs[0])
        if a.shape != c.shape:
            raise self.error(f"broadcasting ADD ({a.shape} + {c.shape}) is not supported")
        b = self.b
        if a.elem == "f32":
            res = Value("", a.shape, "f32")
            res.name = b.op("add", [a.name, c.name], [a.type, c.type], res.type,
                            comment=f"ADD #{op.index}")
            return self.activation(res, act, out)
        sa, za = self.per_tensor(self.tensor(op.inputs[0]))
        sc, zc = self.per_tensor(self.tensor(op.inputs[1]))
        so, zo = self.per_tensor(out)
        if self.emulate:
            b.lines.append(f"// ADD #{op.index} (Arm NN CpuRef float32 arithmetic)")
            return self.activation(self.emulated_add(a, c, sa, za, sc, zc, so, zo), act, out)
        if self.tflite_exact:
            y = self.tflite_add(a, c, sa, za, sc, zc, so, zo, f"ADD #{op.index}")
            return self.activation(y, act, out)
        # The legalization's (and TFLite's) int8 add: both inputs to int32 at
        # a common scale 2*max(sa, sc) / 2**20, exact int32 add, rescale out.
        shift = 20
        max2 = 2.0 * max(sa, sc)
        a32 = self.rescale(a, (1 << shift) * sa / max2, za, 0, "i32", f"ADD #{op.index}")
        c32 = self.rescale(c, (1 << shift) * sc / max2, zc, 0, "i32")
        s = Value("", a.shape, "i32")
        s.name = b.op("add", [a32.name, c32.name], [a32.type, c32.type], s.type)
        y = self.rescale(s, max2 / (so * (1 << shift)), 0, zo, "i8")
        return self.activation(y, act, out)

    def import_average_pool(self, op: Operator):
        o = options(self.model, op)
        padding, sw, sh, fw, fh, act = o.i8(0), o.i32(1), o.i32(2), o.i32(3), o.i32(4), o.i8(5)
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        pad = self.pads(padding, x.shape, fh, fw, sh, sw, 1, 1, out.shape)
        in_shape, orig_pad = list(x.shape), list(pad)
        x, pad = self.fit_stride(x, pad, [fh, fw], [sh, sw])
        b = self.b
        res = Value("", out.shape, x.elem)
        attrs = (f"kernel = array<i64: {fh}, {fw}>, pad = array<i64: {', '.join(map(str, pad))}>, "
                 f"stride = array<i64: {sh}, {sw}>")
        if x.elem == "f32":
            zp = b.scalar1(0.0, "f32")
            res.name = b.op("avg_pool2d", [x.name, zp, zp], [x.type, "tensor<1xf32>", "tensor<1xf32>"],
                            res.type, "acc_type = f32, " + attrs, f"AVERAGE_POOL_2D #{op.index}")
            return self.activation(res, act, out)
        si, zi = self.per_tensor(self.tensor(op.inputs[0]))
        so, zo = self.per_tensor(out)
        if si != so:
            raise self.error("int8 AVERAGE_POOL_2D with different input and output scales "
                             "is not supported")
        if self.tflite_exact:
            lo, hi = quant.activation_range(act, so, zo) if act in quant.ACTIVATION_REAL_RANGE \
                else (None, None)
            if lo is None:
                raise self.error(f"fused activation {ACT_NAMES.get(act, act)} is not supported")
            return self.tflite_avg_pool(x, in_shape, (fh, fw), (sh, sw), pad, list(out.shape), lo, hi,
                                        orig_pad, f"AVERAGE_POOL_2D #{op.index}")
        if self.emulate:
            y = self.emulated_avg_pool(x, (fh, fw), (sh, sw), pad, out.shape, si, zi, zo)
            return self.activation(y, act, out)
        izp, ozp = b.scalar1(zi, "i8"), b.scalar1(zo, "i8")
        res.name = b.op("avg_pool2d", [x.name, izp, ozp], [x.type, "tensor<1xi8>", "tensor<1xi8>"],
                        res.type, "acc_type = i32, " + attrs, f"AVERAGE_POOL_2D #{op.index}")
        return self.activation(res, act, out)

    def import_reshape(self, op: Operator):
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        if int(np.prod(out.shape)) != int(np.prod(x.shape)):
            raise self.error(f"cannot reshape {x.shape} to {out.shape}")
        if x.elem == "i8":
            si, zi = self.per_tensor(self.tensor(op.inputs[0]))
            so, zo = self.per_tensor(out)
            if (si, zi) != (so, zo):
                raise self.error("RESHAPE that changes quantization is not supported")
        return self.reshape(x, out.shape)

    def f32_op(self, name, operands: List[Value], shape, attrs="", comment="") -> Value:
        res = Value("", shape, "f32")
        res.name = self.b.op(name, [v.name for v in operands], [v.type for v in operands],
                             res.type, attrs, comment)
        return res

    def fconst(self, value: float, rank: int) -> Value:
        return Value(self.b.const(np.full([1] * rank, value, dtype=np.float32), "f32", cache=True),
                      [1] * rank, "f32")

    def import_softmax(self, op: Operator):
        beta = options(self.model, op).f32(0, 1.0)
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        shape, rank = x.shape, len(x.shape)
        axis = rank - 1
        red = shape[:-1] + [1]
        comment = f"SOFTMAX #{op.index}"
        oelem = self.elem_of(out)
        if x.elem == "i16" or (x.elem == "i8" and oelem == "i16"):
            if not self.tflite_exact:
                raise self.error("int16 SOFTMAX is imported with --rounding=double only")
            return self.softmax_int16_output(x, op, beta, comment)
        if x.elem == "i8" and self.tflite_exact:
            so, zo = self.per_tensor(out)
            if zo != -128 or so != 1.0 / 256:
                raise self.error(f"int8 SOFTMAX needs output scale 1/256 and zero point -128 "
                                 f"(TFLite's requirement), not {so} and {zo}")
            si, _ = self.per_tensor(self.tensor(op.inputs[0]))
            return self.tflite_softmax(x, float(beta), si, comment)
        if x.elem == "i8":
            # Dequantize exactly as a float reference would: float(q - zp) * scale.
            si, zi = self.per_tensor(self.tensor(op.inputs[0]))
            q = self.f32_op("cast", [x], shape, comment=comment + ": dequantize")
            q = self.f32_op("sub", [q, self.fconst(float(zi), rank)], shape)
            xf = self.fmul(q, self.fconst(si, rank))
        else:
            xf = x
        m = self.f32_op("reduce_max", [xf], red, "axis = %d : i32" % axis, comment)
        d = self.f32_op("sub", [xf, m], shape)
        if beta != 1.0:
            d = self.fmul(d, self.fconst(beta, rank))
        e = self.f32_op("exp", [d], shape)
        s = self.f32_op("reduce_sum", [e], red, "axis = %d : i32" % axis)
        if x.elem == "i8" and self.emulate:
            so, zo = self.per_tensor(out)
            return self.emulated_softmax_tail(e, s, so, zo)
        r = self.f32_op("reciprocal", [s], red)
        p = self.fmul(e, r)
        if x.elem != "i8":
            return p
        so, zo = self.per_tensor(out)
        # Quantize: round half away from zero (p >= 0, so floor(p/so + 0.5)),
        # add the zero point, saturate, then an exact cast to i8.
        y = self.fmul(p, self.fconst(1.0 / so, rank))
        y = self.f32_op("add", [y, self.fconst(0.5, rank)], shape)
        y = self.f32_op("floor", [y], shape)
        y = self.f32_op("add", [y, self.fconst(float(zo), rank)], shape)
        y = self.f32_op("clamp", [y], shape,
                        f"max_val = {float_literal(127.0)} : f32, min_val = {float_literal(-128.0)} : f32")
        res = Value("", shape, "i8")
        res.name = self.b.op("cast", [y.name], [y.type], res.type, comment=comment + ": quantize")
        return res

    def softmax_int16_output(self, x: Value, op: Operator, beta: float, comment: str) -> Value:
        """TFLite Micro's SOFTMAX with an int16 output (CalculateSoftmaxParams' checks):
        int8 -> int16 is the int8 kernel with ``OutputT = int16_t`` (output zero point
        -32768, scale 1/65536 within 0.1 %); int16 -> int16 is SoftmaxInt16 (zero points 0,
        output scale 1/32768 within 0.1 %), ops_table.TableOps.tflm_softmax_int16."""
        it, out = self.tensor(op.inputs[0]), self.tensor(op.outputs[0])
        if self.elem_of(out) != "i16":
            raise self.error(f"int16 SOFTMAX needs an int16 output, not {out.type_name}")
        si, zi = self.per_tensor(it)
        so, zo = self.per_tensor(out)
        f32 = np.float32
        if x.elem == "i8":
            # TF_LITE_ENSURE_NEAR in float: |s_out - 1/65536| <= 0.001 / 65536.
            if zo != -(1 << 15) or abs(f32(so) - f32(1.0) / f32(65536)) > f32(0.001) / f32(65536):
                raise self.error(f"int8 -> int16 SOFTMAX needs output scale 1/65536 and zero "
                                 f"point -32768 (TFLite Micro's requirement), not {so} and {zo}")
            return self.tflite_softmax(x, float(beta), si, comment, "i16")
        if zi != 0 or zo != 0 or \
                abs(f32(so) - f32(1.0) / f32(32768)) > f32(0.001) / f32(32768):
            raise self.error(f"int16 SOFTMAX needs zero points 0 and output scale 1/32768 "
                             f"(TFLite Micro's requirement), not {zi}, {zo} and {so}")
        return self.tflm_softmax_int16(x, si, float(beta), comment)

    HANDLERS = {
        "CONV_2D": import_conv2d,
        "DEPTHWISE_CONV_2D": import_depthwise,
        "FULLY_CONNECTED": import_fully_connected,
        "ADD": import_add,
        "AVERAGE_POOL_2D": import_average_pool,
        "RESHAPE": import_reshape,
        "SOFTMAX": import_softmax,
    }

    # ------------------------------------------------------------------- entry
    def run(self) -> str:
        sg = self.sg
        if len(self.model.subgraphs) != 1:
            raise TFLiteError(f"model has {len(self.model.subgraphs)} subgraphs; only one is supported")
        # Check the op set first so that every unsupported op is reported at once.
        check_operators(sg)
        args = []
        operators = sg.operators
        inputs = sg.inputs
        if self.only_op is not None:
            if not 0 <= self.only_op < len(operators):
                raise TFLiteError(f"operator index {self.only_op} out of range")
            operators = [operators[self.only_op]]
            inputs = [i for i in operators[0].inputs if i >= 0 and self.tensor(i).data is None]
            self.outputs = list(operators[0].outputs)
        for i, idx in enumerate(inputs):
            t = self.tensor(idx)
            elem = self.elem_of(t)
            v = Value(f"%arg{i}", t.shape, elem)
            self.values[idx] = v
            args.append(f"{v.name}: {v.type}{self.quantization_attr(t)}")
        for op in operators:
            if all(i in self.values for i in self.outputs):
                break  # the requested outputs exist: later ops are not needed
            self.op = op
            try:
                out = HANDLERS[op.name](self, op)
            except TFLiteError:
                raise
            except (ValueError, IndexError, KeyError, TypeError, ArithmeticError,
                    AttributeError, AssertionError) as e:
                # A variant the handler did not foresee (odd options, shapes or
                # types in a model nobody here has seen): a diagnostic, never a traceback.
                raise self.error(f"cannot import this {op.name} (inputs "
                                 f"{[self.tensor(i).shape if i >= 0 else None for i in op.inputs]}"
                                 f"): {type(e).__name__}: {e}") from None
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(outs) != len(op.outputs):
                raise self.error(f"computed {len(outs)} outputs, the file lists {len(op.outputs)}")
            for idx, v in zip(op.outputs, outs):
                t = self.tensor(idx)
                if list(v.shape) != list(t.shape) and idx not in self.pad_folds:
                    raise self.error(f"computed shape {v.shape} differs from the file's {t.shape} "
                                     f"(tensor {idx} '{t.name}')")
                self.values[idx] = v
        self.op = None
        rets = [self.values[i] for i in self.outputs if i in self.values]
        if len(rets) != len(self.outputs):
            raise TFLiteError("a requested output is not computed by any operator")
        mode = "float" if self.float_mode else f"int8, rounding={self.rounding_name}"
        head = [f"// Imported from TFLite by serenity import-tflite ({mode}).",
                f"// ops: {', '.join(f'{k} x{v}' for k, v in self.model.op_counts.items())}",
                "module {"] + ["  " + line for line in self.b.module_lines] + [
                f"  func.func @main({', '.join(args)}) -> "
                f"({', '.join(r.type + self.quantization_attr(self.tensor(i)) for r, i in zip(rets, self.outputs))}) {{"]
        body = ["    " + line for line in self.b.lines]
        tail = [f"    return {', '.join(r.name for r in rets)} : {', '.join(r.type for r in rets)}",
                "  }", "}", ""]
        return "\n".join(head + body + tail)


# Every operator the importer knows: the base class's, then each mixin's (a
# mixin's entry replaces the base class's for the same operator).
HANDLERS = dict(Importer.HANDLERS)
for _cls in Importer.__mro__[1:]:
    HANDLERS.update(vars(_cls).get("HANDLERS", {}))


def check_operators(sg: SubGraph) -> None:
    """Raises one TFLiteError listing every unsupported operator of the
    subgraph with its count and first operator index."""
    missing: Dict[str, List[int]] = {}
    for op in sg.operators:
        if op.name not in HANDLERS:
            missing.setdefault(op.name, []).append(op.index)
    if not missing:
        return
    total = sum(len(v) for v in missing.values())
    rows = "; ".join(f"{name} x{len(idx)} (first: operator {idx[0]})"
                     for name, idx in sorted(missing.items(), key=lambda kv: kv[1][0]))
    raise TFLiteError(f"{total} of {len(sg.operators)} operators are not supported: {rows}. "
                      f"Supported: {', '.join(sorted(HANDLERS))}")


def import_model(model: Model, float_mode: bool = False, rounding: str = "double",
                 outputs: Optional[List[int]] = None, only_op: Optional[int] = None,
                 canonicalize: bool = True) -> str:
    """Returns the MLIR text of the imported model; raises TFLiteError on unsupported input.

    For op-by-op debugging and checks: ``outputs`` returns these tensor indices
    instead of the subgraph's outputs (the graph is cut after the last operator
    needed); ``only_op`` imports operator ``only_op`` alone, its activation
    inputs becoming the function arguments. ``canonicalize=False`` imports each
    operator as it is (every PAD a ``tosa.pad``, every RESHAPE of a RESHAPE, pools
    in the file's layout), to compare with the canonical import.
    """
    return Importer(model, float_mode, rounding, outputs, only_op, canonicalize).run()
