"""UNIDIRECTIONAL_SEQUENCE_LSTM: TFLite Micro's integer LSTM (int8 activations and weights,
int16 gates and cell state, "8x8->16"), bit for bit, with its output (hidden) and cell state kept
between invocations as TOSA variables (Importer.state_read / state_write).

What TFLite Micro computes (tflite-micro @90b983c2b3f1, kernels/unidirectional_sequence_lstm.cc,
lstm_eval.h/.cc, lstm_eval_common.cc), read from its source and re-derived here:

* **Variants.** Only the standard LSTM: the four input weights (1-4), the four recurrent
  weights (5-8) and the four biases (12-15) present, int8 weights with one scale each (the LSTM's
  FullyConnectedParamsQuantized keeps only the per-tensor multiplier; per-channel weights would
  leave it uninitialized), int32 biases; no peephole (9-11), no projection (16-17), no layer norm
  (20-23), no CIFG (its Prepare checks these tensors are absent). The output state (18) and the
  cell state (19) are variable tensors. The cell gate's activation must be TANH: the kernel
  also has a SIGMOID case, but the flatbuffer's activation enum has no SIGMOID, and anything
  else reaches TFLITE_ASSERT_FALSE (abort).
* **Gates** (forget, input, cell, output), each ``act(sat16(FC(x_t)) +sat16 sat16(FC(h)))``:
  ``FC(x_t) = MultiplyByQuantizedMultiplier(sum_k w[u,k] (x[k] - zp_x) + bias[u], M_x)``
  saturated to int16, with ``M_x = double(float(s_x * s_w)) / 2^-12`` (the per-tensor
  GetQuantizedConvolutionMultipler: the scale product in float32; the gate's pre-activation is
  Q3.12). The recurrent FC is the same on the hidden state ``h`` (``zp_h``, ``s_h``) with no
  bias. Here: one ``tosa.conv2d`` (1x1) over the four gates' weights stacked, per-channel
  DOUBLE_ROUND ``tosa.rescale`` to i16 (= MultiplyByQuantizedMultiplier + saturation,
  docs/TFLiteImport.md), an i32 add and a clamp to int16.
* **Sigmoid** (reference_integer_ops::Logistic int16, input multiplier 0 = power-of-two case,
  so ``v = 3 x``) and **tanh** (reference_integer_ops::Tanh int16, ``v = 3 x`` for the gate,
  ``v = (3 x << l)`` or ``(3 x + 2^(r-1)) >> r`` for the cell state so that it is read as Q3.12
  from its scale ``2^p``, ``p = round(log2 s_c)``, ``l = 12 + p``) interpolate linearly in
  TFLite's 256-entry table ``sigmoid_table_uint16`` (sigmoid(i/24) in 0.16, copied below as
  data): with ``a = |v|`` sigmoid uses ``r = (T[a >> 9] << 9) + (a & 511) (T[.+1] - T[.])`` and
  returns ``(r + 512) >> 10`` for ``v >= 0``, ``(2^25 - r + 511) >> 10 = 32768 - ((r + 512)
  >> 10)`` otherwise; tanh uses ``a >> 8``, ``a & 255``, saturates to ``0xFFFF << 8`` from
  ``a >> 8 >= 255``, and returns ``q = ((r + 128) >> 8) - 32768`` for ``v >= 0`` and
  ``(2^23 + 127 - r) >> 8 = -q`` otherwise. Here: ``tosa.abs``, shifts and ``bitwise_and``, two
  ``tosa.gather`` from 256-entry i32 tables (``T[k] << 9`` resp. ``<< 8``, and the slope
  ``T[k+1] - T[k]``; entry 255 holds the saturated value with slope 0 and ``a`` is clamped to
  ``255 * 2^9`` resp. ``255 * 2^8`` where it can exceed it), a multiply-add, a shift and a
  select on the sign: the kernels' integer formulas exactly, for every int16 input (a 65,536-entry
  table would not fit a microcontroller, and TOSA's interpolating i16 ``tosa.table`` has its
  breakpoints every 128 inputs where these have them every 512/3 resp. 256/3 or 128/3).
* **Cell**: ``c = sat16(MBQM(f * c, 2^-15)) +sat16 sat16(MBQM(i * g, 2^-30 / s_c))``, then, if
  ``cell_clip > 0``, clamped to ``+-q``, ``q = int16(clip / s_c)`` (truncated, at most 32767);
  the multipliers from QuantizeMultiplier of the double products (CreateInterGateMulParams).
  Here: ``tosa.mul`` (i32, exact: both factors are int16), one DOUBLE_ROUND rescale each to i16,
  add, one clamp.
* **Hidden**: ``h = sat8(MBQM(tanh(c) * o, 2^-30 / s_h) + zp_h)``: ``tosa.mul`` and one rescale
  to i8 with the zero point; the output at step t is ``h`` (TFLM copies it).
* **Time loop.** TFLM runs all batches per step (time major) or each batch's whole sequence
  (batch major); rows never mix, so both are one loop over time with all batches at once. The
  loop is unrolled: one group of ops per step; the per-step outputs are concatenated on the time
  axis. The final ``h`` and ``c`` are written to the state variables once, after the last step
  (TFLM updates them in place; only the last values persist).

TFLM's float LSTM is not imported (the persistent state of this importer is integer only), nor
the 16x8 variant (int16 activations, int64 biases), which the sequence-model work may add.
"""

from typing import List

import numpy as np

from .mlir_text import Value
from .schema import Operator, options

# TFLite's sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h): sigmoid(i / 24) in
# 0.16 fixed point, i = 0..255, used by the int16 LOGISTIC and TANH kernels. Its entries are not
# a rounding of the formula that could be recomputed (44 of them are one above round(),
# others below ceil()), so the numbers are kept here as data.
SIGMOID_TABLE_UINT16 = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535,
], dtype=np.int64)

ACT_TANH = 4
ACT_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1
GATE_PRE_SCALE = 2.0 ** -12   # the gates' pre-activation: Q3.12
GATE_OUT_SCALE = 2.0 ** -15   # their activation: Q0.15
# The 24 inputs (lstm_shared.h).
X, W_IN, W_REC, PEEPHOLE, BIAS, PROJECTION, H_STATE, C_STATE, LAYER_NORM = (
    0, (1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11), (12, 13, 14, 15), (16, 17), 18, 19,
    (20, 21, 22, 23))
GATE_NAMES = ("input", "forget", "cell", "output")


# ------------------------------------------------- TFLite Micro's int16 sigmoid and tanh
def _normalized(multiplier: int, left_shift: int):
    """The kernels' power-of-two case: multiplier 0 means ``3 << left_shift``, no shift."""
    return (3 << left_shift, 0) if multiplier == 0 else (multiplier, left_shift)


def _scaled(x, multiplier: int, shift: int):
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    return (np.asarray(x, dtype=np.int64) * multiplier + rnd) >> shift


def interpolation_tables(step_bits: int, saturated: int):
    """(base, slope) for a = |v| < 255 << step_bits: base[k] = T[k] << step_bits,
    slope[k] = T[k+1] - T[k]; entry 255 the saturated value with slope 0."""
    t = SIGMOID_TABLE_UINT16
    base = np.append(t[:255] << step_bits, saturated)
    slope = np.append(t[1:] - t[:255], 0)
    return base, slope


def tflm_sigmoid_int16(x, multiplier: int = 0, left_shift: int = 0) -> np.ndarray:
    """reference_integer_ops::Logistic (int16 -> int16) on numpy values."""
    m, s = _normalized(multiplier, left_shift)
    v = _scaled(x, m, s)
    a = np.minimum(np.abs(v), 255 << 9)
    base, slope = interpolation_tables(9, 0x7FFF << 10)
    p = (base[a >> 9] + (a & 511) * slope[a >> 9] + 512) >> 10
    return np.where(v >= 0, p, 32768 - p)


def tflm_tanh_int16(x, multiplier: int = 0, left_shift: int = 0) -> np.ndarray:
    """reference_integer_ops::Tanh (int16 -> int16) on numpy values."""
    m, s = _normalized(multiplier, left_shift)
    v = _scaled(x, m, s)
    a = np.minimum(np.abs(v), 255 << 8)
    base, slope = interpolation_tables(8, 0xFFFF << 8)
    q = ((base[a >> 8] + (a & 255) * slope[a >> 8] + 128) >> 8) - 32768
    return np.where(v >= 0, q, -q)


def checked_log2(x: float) -> int:
    """TFLite's CheckedLog2 result: round(logf(x) * (1 / logf(2))) in float32 (TFLM's LSTM
    does not look at whether x was a power of two)."""
    f = np.float32
    v = f(np.log(f(x))) * (f(1.0) / f(np.log(f(2.0))))
    return int(np.floor(abs(float(v)) + 0.5)) * (1 if v >= 0 else -1)


def cell_tanh_params(cell_scale_power: int):
    """(multiplier, left_shift) lstm_internal::Tanh passes for the cell state."""
    shift = 15 + cell_scale_power - 3
    return (3, -shift) if shift < 0 else (0, shift)


class LstmOps:
    """Mixin for Importer: UNIDIRECTIONAL_SEQUENCE_LSTM."""

    # ------------------------------------------------------------ building blocks
    def _lstm_interpolate(self, x: Value, multiplier: int, left_shift: int, step_bits: int,
                          saturated: int, comment: str):
        """(v, r): the scaled input v of the int16 Logistic/Tanh kernels and their
        interpolated table value r (i32 tensors of shape [1, n, 1], n = the elements of x;
        x holds int16 values, as i16 or in i32).

        Laid out so that lowering can fuse it into one loop: the table index is computed
        on [1, n] (the tosa.gather indices) and everything else on [1, n, 1] (the gathers'
        result shape), both from views of x, so no reshape stands between two element-wise
        ops (serenity-fuse-requantization then fuses the whole chain, recomputing the few
        shared scalar steps instead of storing them: an LSTM gate's i32 temporaries)."""
        total = int(np.prod(x.shape))
        m, s = _normalized(multiplier, left_shift)
        if m * (1 << 15) + (1 << 14) >= 1 << 31:
            raise self.error(f"int16 sigmoid/tanh input multiplier {m} overflows int32")
        top = 255 << step_bits
        clamp_top = ((m << 15) + ((1 << (s - 1)) if s else 0)) >> s >= top

        def scaled_abs(xv: Value):
            rank = len(xv.shape)
            if xv.elem != "i32":
                xv = self.ew("cast", [xv], "i32")
            v = self.tosa_mul(xv, self.ic(m, rank), "i32", 0)
            if s > 0:
                v = self.ew("arithmetic_right_shift",
                            [self.ew("add", [v, self.ic(1 << (s - 1), rank)], "i32"),
                             self.ic(s, rank)], "i32", "round = false")
            a = self.ew("abs", [v], "i32")
            if clamp_top:
                a = self.ew("minimum", [a, self.ic(top, rank)], "i32")
            return v, a

        self.b.lines.append(f"// {comment}")
        _, a2 = scaled_abs(self.reshape(x, [1, total]))
        hi = self.ew("arithmetic_right_shift", [a2, self.ic(step_bits, 2)], "i32",
                     "round = false")
        v, a = scaled_abs(self.reshape(x, [1, total, 1]))
        lo = self.ew("bitwise_and", [a, self.ic((1 << step_bits) - 1, 3)], "i32")
        base, slope = interpolation_tables(step_bits, saturated)
        gathered = [self._gather_rows(self.iconst(t, [1, 256, 1]), hi) for t in (base, slope)]
        r = self.ew("add", [gathered[0], self.tosa_mul(lo, gathered[1], "i32", 0)], "i32")
        return v, r

    def tflm_sigmoid16(self, x: Value, multiplier: int = 0, left_shift: int = 0,
                       elem: str = "i32") -> Value:
        """TFLite Micro's int16 Logistic (tflm_sigmoid_int16) in integer TOSA: x holds int16
        values (i16 or i32), the result is ``elem`` (i32 or i16, cast before the final
        reshape so that the cast joins the element-wise loop)."""
        rank = 3
        v, r = self._lstm_interpolate(x, multiplier, left_shift, 9, 0x7FFF << 10,
                                      "int16 sigmoid (TFLM's interpolated sigmoid_table_uint16)")
        p = self.ew("arithmetic_right_shift", [self.ew("add", [r, self.ic(512, rank)], "i32"),
                                                self.ic(10, rank)], "i32", "round = false")
        # v < 0: 32768 - p = (p ^ -1) + 32769; with the sign mask s = v >> 31 (0 or -1)
        # that is (p ^ s) + (s & 32769), which reads p once (a select would read it twice,
        # and a value read twice is stored or recomputed).
        sign = self._lstm_sign(v)
        y = self.ew("add", [self.ew("bitwise_xor", [p, sign], "i32"),
                            self.ew("bitwise_and", [sign, self.ic(32769, rank)], "i32")], "i32")
        return self.reshape(y if elem == "i32" else self.ew("cast", [y], elem), x.shape)

    def _lstm_sign(self, v: Value) -> Value:
        """v >> 31: -1 where v < 0, else 0 (i32)."""
        return self.ew("arithmetic_right_shift", [v, self.ic(31, len(v.shape))], "i32",
                       "round = false")

    def tflm_tanh16(self, x: Value, multiplier: int = 0, left_shift: int = 0,
                    elem: str = "i32") -> Value:
        """TFLite Micro's int16 Tanh (tflm_tanh_int16) in integer TOSA (x and the result as in
        tflm_sigmoid16)."""
        rank = 3
        v, r = self._lstm_interpolate(x, multiplier, left_shift, 8, 0xFFFF << 8,
                                      "int16 tanh (TFLM's interpolated sigmoid_table_uint16)")
        q = self.ew("sub", [self.ew("arithmetic_right_shift",
                                    [self.ew("add", [r, self.ic(128, rank)], "i32"),
                                     self.ic(8, rank)], "i32", "round = false"),
                            self.ic(32768, rank)], "i32")
        # v < 0: -q = (q ^ s) + (s & 1) with s = v >> 31 (see tflm_sigmoid16).
        sign = self._lstm_sign(v)
        y = self.ew("add", [self.ew("bitwise_xor", [q, sign], "i32"),
                            self.ew("bitwise_and", [sign, self.ic(1, rank)], "i32")], "i32")
        return self.reshape(y if elem == "i32" else self.ew("cast", [y], elem), x.shape)

    def _lstm_fc(self, x: Value, w: np.ndarray, bias: np.ndarray, zp: int, scales,
                 comment: str) -> Value:
        """[N, K] int8 x [OC, K] int8 (+ bias) -> [N, 1, 1, OC] int16: TFLM's integer
        FullyConnected to an int16 output of zero point 0 (a 1x1 conv2d, one per-channel
        DOUBLE_ROUND rescale = MultiplyByQuantizedMultiplier saturated to int16). Left in the
        conv's shape so that the gate sum that reads it is one loop with both convs."""
        b = self.b
        n, k = x.shape
        oc = w.shape[0]
        x4 = self.reshape(x, [n, 1, 1, k])
        acc = Value("", [n, 1, 1, oc], "i32")
        acc.name = b.op("conv2d", [x4.name, b.const(w.reshape(oc, 1, 1, k).astype(np.int8), "i8"),
                                   b.const(bias.astype(np.int32), "i32", cache=True),
                                   b.scalar1(zp, "i8"), b.scalar1(0, "i8")],
                        [x4.type, f"tensor<{oc}x1x1x{k}xi8>", f"tensor<{oc}xi32>",
                         "tensor<1xi8>", "tensor<1xi8>"], acc.type,
                        "acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, "
                        "stride = array<i64: 1, 1>", comment)
        return self.tflite_requantize(acc, scales, 0, 0, "i16")

    # ------------------------------------------------------------------ operator
    def _lstm_check(self, op: Operator):
        """The variant checks of TFLM's Prepare (LstmTensors::ValidateTensorStatus and
        ValidateTensorSize) and what this import supports; returns the options."""
        if len(op.inputs) != 24 or len(op.outputs) != 1:
            raise self.error(f"UNIDIRECTIONAL_SEQUENCE_LSTM needs 24 inputs and 1 output "
                             f"(TFLite Micro's requirement), not {len(op.inputs)} and "
                             f"{len(op.outputs)}")
        ins = op.inputs
        if any(ins[i] >= 0 for i in PEEPHOLE):
            raise self.error("LSTM with peephole connections is not supported (TFLite Micro "
                             "supports only the standard LSTM)")
        if any(ins[i] >= 0 for i in PROJECTION):
            raise self.error("LSTM with a projection layer is not supported (TFLite Micro "
                             "supports only the standard LSTM)")
        if any(ins[i] >= 0 for i in LAYER_NORM):
            raise self.error("LSTM with layer normalization is not supported (TFLite Micro "
                             "supports only the standard LSTM)")
        if ins[W_IN[0]] < 0 or ins[W_REC[0]] < 0 or ins[BIAS[0]] < 0:
            raise self.error("LSTM without input gate (CIFG, coupled input and forget gates) "
                             "is not supported (TFLite Micro supports only the standard LSTM)")
        for i in (X, H_STATE, C_STATE) + W_IN + W_REC + BIAS:
            if ins[i] < 0:
                raise self.error(f"LSTM input {i} is missing")
        o = options(self.model, op)
        act, clip, time_major = o.i8(0), o.f32(1), o.bool(3)
        if act != ACT_TANH:
            raise self.error(f"LSTM cell gate activation {ACT_NAMES.get(act, act)} is not "
                             "supported: TFLite Micro's kernel aborts for anything but TANH")
        xt = self.tensor(ins[X])
        if self.float_mode or xt.type == 0:
            wt = self.tensor(ins[W_IN[1]])
            if wt.type != 0 and not self.float_mode:
                raise self.hybrid_error(wt)
            raise self.error("float32 LSTM is not supported (the importer keeps integer "
                             "persistent state only); int8 LSTM (8x8->16) is")
        if xt.type == 7:
            raise self.error("LSTM with int16 activations (16x8, int64 biases) is not "
                             "supported; int8 activations (8x8->16) are")
        if xt.type != 9:
            raise self.error(f"LSTM input type {xt.type_name} is not supported (int8 is)")
        for i in W_IN + W_REC:
            t = self.tensor(ins[i])
            if t.type != 9:
                raise self.error(f"LSTM weight tensor {t.index} '{t.name}' has type "
                                 f"{t.type_name}; int8 activations need INT8 weights "
                                 "(TFLite Micro's 8x8->16 kernel)")
            if t.data is None:
                raise self.error(f"LSTM weight tensor {t.index} '{t.name}' must be constant")
            s, z = self.qparams(t)
            if s.size != 1:
                raise self.error(f"LSTM weight tensor {t.index} '{t.name}' is quantized per "
                                 "channel; TFLite Micro's LSTM uses one multiplier per gate "
                                 "(per-tensor weight scales)")
            if int(z[0]) != 0:
                raise self.error(f"LSTM weight tensor {t.index} '{t.name}' has a non-zero "
                                 "zero point")
        for i in BIAS:
            t = self.tensor(ins[i])
            if t.type != 2 or t.data is None:
                raise self.error(f"LSTM bias tensor {t.index} '{t.name}' must be a constant "
                                 "INT32 tensor")
        ht, ct = self.tensor(ins[H_STATE]), self.tensor(ins[C_STATE])
        for t, what, typ in ((ht, "output state", 9), (ct, "cell state", 7)):
            if not t.is_variable:
                raise self.error(f"LSTM {what} tensor {t.index} '{t.name}' is not a variable "
                                 "tensor (TFLite Micro requires it)")
            if t.type != typ:
                raise self.error(f"LSTM {what} tensor {t.index} '{t.name}' has type "
                                 f"{t.type_name}; TFLite Micro's integer LSTM needs "
                                 f"{'INT8' if typ == 9 else 'INT16'}")
        out = self.tensor(op.outputs[0])
        if out.type != 9:
            raise self.error(f"LSTM output type {out.type_name} differs from the input's INT8")
        return clip, time_major

    def import_unidirectional_sequence_lstm(self, op: Operator):
        clip, time_major = self._lstm_check(op)
        ins = op.inputs
        xt, ht, ct = (self.tensor(ins[i]) for i in (X, H_STATE, C_STATE))
        out = self.tensor(op.outputs[0])
        if len(xt.shape) != 3 or len(ht.shape) != 2 or len(out.shape) != 3:
            raise self.error(f"LSTM needs a 3-D input and output and a 2-D output state, not "
                             f"{xt.shape}, {out.shape} and {ht.shape}")
        steps, batch = (xt.shape[0], xt.shape[1]) if time_major else (xt.shape[1], xt.shape[0])
        n_in, units = xt.shape[2], ht.shape[1]
        w_in = [self.tensor(ins[i]) for i in W_IN]
        w_rec = [self.tensor(ins[i]) for i in W_REC]
        biases = [self.tensor(ins[i]) for i in BIAS]
        for t, shape in [(t, [units, n_in]) for t in w_in] + [(t, [units, units]) for t in w_rec] \
                + [(t, [units]) for t in biases]:
            if list(t.shape) != shape:
                raise self.error(f"LSTM tensor {t.index} '{t.name}' has shape {t.shape}, "
                                 f"expected {shape}")
        if int(np.prod(ht.shape)) != batch * units or int(np.prod(ct.shape)) != batch * units:
            raise self.error(f"LSTM state tensors {ht.shape} and {ct.shape} do not hold "
                             f"{batch} x {units} values")
        if list(out.shape[:2]) != list(xt.shape[:2]) or out.shape[2] != units:
            raise self.error(f"LSTM output shape {out.shape} does not match the input "
                             f"{xt.shape} and {units} units")
        s_x, z_x = self.per_tensor(xt)
        s_h, z_h = self.per_tensor(ht)
        s_c, _ = self.per_tensor(ct)  # TFLM reads the cell state as symmetric
        f32 = np.float32

        def fc_scale(s_a, wt):
            # GetQuantizedConvolutionMultipler: the scale product in float32, then double.
            return float(f32(f32(s_a) * f32(wt.quant.scale[0]))) / float(f32(GATE_PRE_SCALE))

        # Per gate (input, forget, cell, output): its input and recurrent weights, bias and
        # the two FCs' per-tensor multipliers.
        gates = [(w_in[g].data.astype(np.int8), w_rec[g].data.astype(np.int8),
                  biases[g].data.astype(np.int32).reshape(-1),
                  fc_scale(s_x, w_in[g]), fc_scale(s_h, w_rec[g])) for g in range(4)]
        # Inter-gate multipliers (CreateInterGateMulParams, double products).
        m_forget = GATE_OUT_SCALE * float(f32(s_c)) / float(f32(s_c))
        m_input = GATE_OUT_SCALE * GATE_OUT_SCALE / float(f32(s_c))
        m_hidden = GATE_OUT_SCALE * GATE_OUT_SCALE / float(f32(s_h))
        power = checked_log2(float(s_c))
        tanh_m, tanh_s = cell_tanh_params(power)
        lo, hi = INT16_MIN, INT16_MAX
        if clip > 0:
            q = int(min(max(float(clip) / float(f32(s_c)), -32768.0), 32767.0))  # truncation
            lo, hi = max(lo, -q), min(hi, q)

        b = self.b
        name = f"UNIDIRECTIONAL_SEQUENCE_LSTM #{op.index}"
        b.lines.append(f"// {name}: {steps} steps, batch {batch}, {n_in} inputs, {units} units, "
                       f"{'time' if time_major else 'batch'} major, cell state scale 2^{power}, "
                       f"cell clip [{lo}, {hi}] (TFLite Micro's integer LSTM, unrolled)")
        x = self.value(ins[X])
        h = self.reshape(self.value(ins[H_STATE]), [batch, units])
        # Gate values and the cell state are int16: computed in i32, stored as i16 (the
        # buffers between the fused loops: the gates' pre-activations, their activations
        # and the cell state, as TFLite Micro's int16 scratch buffers).
        c16 = self.reshape(self.value(ins[C_STATE]), [batch, units])

        def wide(v: Value) -> Value:
            return self.ew("cast", [v], "i32")

        def narrow(v: Value) -> Value:
            return self.ew("cast", [v], "i16")

        outs: List[Value] = []
        for t in range(steps):
            if time_major:
                xs = self._slice(x, [t, 0, 0], [1, batch, n_in])
            else:
                xs = self._slice(x, [0, t, 0], [batch, 1, n_in])
            xs = self.reshape(xs, [batch, n_in])
            # One gate at a time, as TFLite Micro computes them: its two FCs, their
            # saturating sum and its activation, each gate's int16 values in a buffer of
            # their own (a gate's pre-activation is dead once activated).
            act = []
            for g, (w_x, w_h, bias, sc_x, sc_h) in enumerate(gates):
                what = f"{name} step {t}: {GATE_NAMES[g]} gate"
                gx = self._lstm_fc(xs, w_x, bias, z_x, sc_x, f"{what}, input FC")
                gh = self._lstm_fc(h, w_h, np.zeros(units, np.int32), z_h, sc_h,
                                   f"{what}, recurrent FC")
                pre = self.reshape(narrow(self.iclamp(
                    self.ew("add", [wide(gx), wide(gh)], "i32"), INT16_MIN, INT16_MAX)),
                    [batch, units])
                act.append(self.tflm_tanh16(pre, elem="i16") if g == 2
                           else self.tflm_sigmoid16(pre, elem="i16"))
            ig, fg, cg, og = act
            ig, fg, og = wide(ig), wide(fg), wide(og)
            b.lines.append(f"// {name} step {t}: cell state")
            fc_ = self.tflite_requantize(self.tosa_mul(fg, wide(c16), "i32", 0), m_forget, 0, 0,
                                         "i16")
            ic_ = self.tflite_requantize(self.tosa_mul(ig, wide(cg), "i32", 0), m_input, 0, 0,
                                         "i16")
            c = self.ew("add", [wide(fc_), wide(ic_)], "i32")
            c16 = narrow(self.iclamp(c, lo, hi))
            b.lines.append(f"// {name} step {t}: hidden state")
            th = self.tflm_tanh16(c16, tanh_m, tanh_s, elem="i16")
            h = self.tflite_requantize(self.tosa_mul(wide(th), og, "i32", 0), m_hidden, 0, z_h, "i8")
            outs.append(self.reshape(h, [1, batch, units] if time_major else [batch, 1, units]))
        y = self._concat(outs, 0 if time_major else 1, f"{name}: the outputs of all steps")
        b.lines.append(f"// {name}: final output and cell state to the state variables")
        self.state_write(ins[H_STATE], self.reshape(h, ht.shape))
        self.state_write(ins[C_STATE], self.reshape(c16, ct.shape))
        return y

    HANDLERS = {"UNIDIRECTIONAL_SEQUENCE_LSTM": import_unidirectional_sequence_lstm}
