"""``--rounding=double`` (default): TFLite / TFLite Micro's int8 arithmetic in TOSA.

Bit for bit what TFLite Micro's reference kernels compute (checked against its
intermediate tensors and against ``reference.py`` on other inputs):

* **MultiplyByQuantizedMultiplier** (conv, depthwise, fully connected, ADD) is
  ``RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x << l, m), r)``.
  A ``tosa.rescale`` with ``DOUBLE_ROUND`` and shift ``31 - l + r`` computes
  exactly that for every int32 ``x``. For ``r >= 1`` (shift > 31):
  with ``x >= 0``, ``y = SRDHM = floor((x*m + 2^30) / 2^31)`` and TOSA's
  ``floor((x*m + 2^30 + 2^(30+r)) / 2^(31+r)) = floor((y + 2^(r-1)) / 2^r)``,
  TFLite's half-up RoundingDivideByPOT of ``y >= 0``; with ``x < 0``, TFLite's
  truncating division gives ``y = q + 1`` where ``q = floor((x*m - 2^30) / 2^31)``,
  and TOSA's ``floor((x*m - 2^30 + 2^(30+r)) / 2^(31+r)) = floor((y - 1 + 2^(r-1)) / 2^r)``,
  which is RoundingDivideByPOT's half-away-from-zero rounding (for ``y < 0``;
  ``y = 0`` gives 0 both ways). For ``r = 0`` or a left shift ``l`` TOSA rounds
  once, ``floor((x*m + 2^(30-l)) / 2^(31-l))``, which is SRDHM of ``x << l``.
  The multiplier and shift come from TFLite's QuantizeMultiplier (scales below
  ``2^-32`` flush to zero as there). ``python/tests/test_tflite_quant.py``
  checks the identity on random values and constructed ties.
* **ADD** (TFLite's AddFunc): each input ``(q - zp) << 20`` (an exact
  ``tosa.rescale`` by ``2^30 >> 10``), then MultiplyByQuantizedMultiplier to
  the common scale ``2 * max(sa, sb)``, an exact i32 add, and
  MultiplyByQuantizedMultiplier to the output. A single rescale of
  ``q - zp`` (what the TF legalization emits) rounds once where TFLite rounds
  twice: its i32 values differ from TFLite's in about 18 % of cases, which
  reaches the int8 output at ties.
* **AVERAGE_POOL_2D**: the sum of the raw int8 values in the window (a
  depthwise conv with a ones kernel and zero padding, i32), then
  ``(sum +- count/2) / count`` truncated (``tosa.intdiv``), count = the
  window's elements inside the image, as TFLite's kernel. (``tosa.avg_pool2d``
  subtracts the zero point first and rounds half up: it differs.)
* **SOFTMAX**: TFLite's fixed-point int8 softmax. ``exp_on_negative_values`` of
  the rescaled difference to the row maximum depends only on that difference
  (256 values), so it is a ``tosa.gather`` from a 256-entry i32 table
  computed at import time with gemmlowp's arithmetic; the sum, GetReciprocal
  (``tosa.clz``, shifts and three Newton-Raphson steps with ``tosa.mul``
  ``shift = 31``, which is SaturatingRoundingDoublingHighMul) and the final
  rounding shift (``tosa.arithmetic_right_shift`` with ``round = true``) are
  integer TOSA ops.
"""

from typing import Sequence

import numpy as np

from . import quant
from .quant import INT32_MAX
from .mlir_text import Value, tensor_type
from .reference import (ACCUMULATION_INTEGER_BITS, softmax_exp_table)



class TFLiteIntegerOps:
    """Mixin for Importer: TOSA building blocks with TFLite's integer roundings."""


    # ------------------------------------------------------------- helpers
    def iconst(self, values, shape, elem: str = "i32") -> Value:
        dtype = {"i8": np.int8, "i32": np.int32}[elem]
        arr = np.asarray(values, dtype=np.int64).reshape(shape).astype(dtype)
        return Value(self.b.const(arr, elem, cache=True), list(shape), elem)

    def ireduce(self, name: str, x: Value, axis_attr: str) -> Value:
        res = Value("", x.shape[:-1] + [1], x.elem)
        res.name = self.b.op(name, [x.name], [x.type], res.type, axis_attr)
        return res

    def imul31(self, a: Value, c: Value) -> Value:
        """SaturatingRoundingDoublingHighMul: tosa.mul with shift 31 (the
        product in 64 bits, round half up, >> 31). The saturating case
        INT32_MIN * INT32_MIN never arises here: one operand is non-negative."""
        return self.tosa_mul(a, c, "i32", 31)

    def rescale_raw(self, x: Value, mults: Sequence[int], shifts: Sequence[int], in_zp: int,
                    out_zp: int, out_elem: str, rounding: str, comment: str = "") -> Value:
        b = self.b
        n = len(mults)
        mult = b.const(np.array(mults, dtype=np.int32), "i32", cache=True)
        shift = b.const(np.array(shifts, dtype=np.int8), "i8", cache=True)
        izp = b.scalar1(in_zp, x.elem)
        ozp = b.scalar1(out_zp, out_elem)
        out = Value("", x.shape, out_elem)
        per_channel = "true" if n > 1 else "false"
        out.name = b.op(
            "rescale", [x.name, mult, shift, izp, ozp],
            [x.type, f"tensor<{n}xi32>", f"tensor<{n}xi8>", f"tensor<1x{x.elem}>", f"tensor<1x{out_elem}>"],
            out.type,
            "input_unsigned = false, output_unsigned = false, "
            f"per_channel = {per_channel}, rounding_mode = #tosa.rounding_mode<{rounding}>, "
            "scale32 = true", comment)
        return out

    # ------------------------------------------- MultiplyByQuantizedMultiplier
    def tflite_requantize(self, x: Value, scales, in_zp: int, out_zp: int, out_elem: str,
                          pre_shift: int = 0, comment: str = "") -> Value:
        """TFLite's MultiplyByQuantizedMultiplier((x - in_zp) << pre_shift, scale)
        + out_zp, saturated to out_elem (per channel when several scales)."""
        scales = np.atleast_1d(np.asarray(scales, dtype=np.float64))
        try:
            ms = [quant.tflite_quantize_multiplier(float(s)) for s in scales]
        except ValueError as e:
            raise self.error(str(e)) from None
        if pre_shift:
            # (x - zp) << pre_shift, exact: floor(((x - zp) * 2^30 + 2^(29 - p)) / 2^(30 - p)).
            x = self.rescale_raw(x, [1 << 30], [30 - pre_shift], in_zp, 0, "i32", "SINGLE_ROUND",
                                 comment + f": (q - zp) << {pre_shift}" if comment else "")
            in_zp, comment = 0, ""
        shifts = [31 - s for _, s in ms]
        if min(shifts) < 2:
            raise self.error(f"requantization scale {max(scales)} is too large for tosa.rescale")
        return self.rescale_raw(x, [m for m, _ in ms], shifts, in_zp, out_zp, out_elem,
                                "DOUBLE_ROUND", comment)

    def saturate(self, v: Value, zp: int, out_elem: str) -> Value:
        """v + zp clamped to out_elem's range and cast (i32 -> i8), or v (i32)."""
        rank = len(v.shape)
        if zp:
            v = self.ew("add", [v, self.iconst([zp], [1] * rank)], "i32")
        if out_elem == "i32":
            return v
        return self.ew("cast", [self.iclamp(v, -128, 127)], "i8")

    def iclamp(self, v: Value, lo: int, hi: int) -> Value:
        """i32 clamp as maximum/minimum (tosa.clamp on i32 is outside the
        integer profile)."""
        one = [1] * len(v.shape)
        v = self.ew("maximum", [v, self.iconst([lo], one)], "i32")
        return self.ew("minimum", [v, self.iconst([hi], one)], "i32")

    # ----------------------------------------------------------------- ops
    def tflite_add(self, a: Value, c: Value, sa, za, sc, zc, so, zo, comment: str) -> Value:
        # As TFLite's AddFunc: both inputs (q - zp) << 20 scaled to the common
        # scale 2*max(sa, sc), an exact int32 add, then to the output scale.
        twice_max = 2 * float(max(np.float32(sa), np.float32(sc)))
        a32 = self.tflite_requantize(a, float(np.float32(sa)) / twice_max, za, 0, "i32", 20, comment)
        c32 = self.tflite_requantize(c, float(np.float32(sc)) / twice_max, zc, 0, "i32", 20)
        s = self.ew("add", [a32, c32], "i32")
        return self.tflite_requantize(s, twice_max / ((1 << 20) * float(np.float32(so))), 0, zo, "i8")

    def tflite_avg_pool(self, x: Value, in_shape, kernel, stride, pad, out_shape, act_lo: int,
                        act_hi: int, orig_pad, comment: str) -> Value:
        """sum of raw int8 values / count, rounded half away from zero (TFLite)."""
        b = self.b
        fh, fw = kernel
        c = x.shape[3]
        ones = b.const(np.ones((fh, fw, c, 1), dtype=np.int8), "i8", cache=True)
        bias = b.const(np.zeros(c, dtype=np.int32), "i32", cache=True)
        zp = b.scalar1(0, "i8")
        acc = Value("", out_shape[:3] + [c], "i32")
        acc.name = b.op("depthwise_conv2d", [x.name, ones, bias, zp, zp],
                        [x.type, tensor_type((fh, fw, c, 1), "i8"), f"tensor<{c}xi32>",
                         "tensor<1xi8>", "tensor<1xi8>"], acc.type,
                        "acc_type = i32, dilation = array<i64: 1, 1>, "
                        f"pad = array<i64: {', '.join(map(str, pad))}>, "
                        f"stride = array<i64: {stride[0]}, {stride[1]}>",
                        comment + ": window sum of the raw int8 values")
        # Elements of each window inside the image (TFLite skips the padding).
        oh, ow = out_shape[1:3]
        h, w = in_shape[1:3]
        counts = np.zeros((oh, ow), dtype=np.int64)
        for oy in range(oh):
            y0, y1 = max(oy * stride[0] - orig_pad[0], 0), min(oy * stride[0] - orig_pad[0] + fh, h)
            for ox in range(ow):
                x0, x1 = max(ox * stride[1] - orig_pad[2], 0), min(ox * stride[1] - orig_pad[2] + fw, w)
                counts[oy, ox] = max(y1 - y0, 0) * max(x1 - x0, 0)
        if counts.min() <= 0:
            raise self.error("a pooling window lies entirely in the padding")
        if np.all(counts == counts.flat[0]):
            cshape, counts = [1, 1, 1, 1], counts.reshape(-1)[:1]
        else:
            cshape = [1, oh, ow, 1]
        n = self.iconst(counts, cshape)
        half = self.iconst(counts // 2, cshape)
        pos = self.ew("greater", [acc, self.iconst([0], [1, 1, 1, 1])], "i1")
        num = self.ew("select", [pos, self.ew("add", [acc, half], "i32"),
                                  self.ew("sub", [acc, half], "i32")], "i32")
        q = self.ew("intdiv", [num, n], "i32")
        return self.ew("cast", [self.iclamp(q, act_lo, act_hi)], "i8")

    def tflite_softmax(self, x: Value, beta: float, input_scale: float, comment: str,
                       out_elem: str = "i8") -> Value:
        """TFLite's int8 softmax: int8 output (scale 1/256, zero point -128) or int16 output
        (scale 1/65536, zero point -32768; the same kernel with ``OutputT = int16_t``: the
        final shift is 8 bits smaller and the offset -32768)."""
        bits = {"i8": 8, "i16": 16}[out_elem]
        b = self.b
        shape, rank = x.shape, len(x.shape)
        red = shape[:-1] + [1]
        axis = f"axis = {rank - 1} : i32"
        table = softmax_exp_table(beta, input_scale)
        xi = self.ew("cast", [x], "i32", comment=comment + ": TFLite fixed-point int8 softmax")
        mx = self.ireduce("reduce_max", xi, axis)
        idx = self.ew("add", [self.ew("sub", [xi, mx], "i32"), self.iconst([255], [1] * rank)], "i32")
        total = int(np.prod(shape))
        idx2 = self.reshape(idx, [1, total])
        values = Value(b.const(table.reshape(1, 256, 1).astype(np.int32), "i32", cache=True),
                       [1, 256, 1], "i32")
        g = Value("", [1, total, 1], "i32")
        g.name = b.op("gather", [values.name, idx2.name], [values.type, idx2.type], g.type,
                      comment="exp_on_negative_values of x - max (table of gemmlowp's values)")
        e = self.reshape(g, shape)
        # Sum of Rescale<12>(exp): exp >= 0, so RoundingDivideByPOT(e, 12) is
        # a half-up rescale.
        terms = self.rescale_raw(e, [1 << 30], [30 + ACCUMULATION_INTEGER_BITS], 0, 0, "i32",
                                 "SINGLE_ROUND")
        s = self.ireduce("reduce_sum", terms, axis)
        # GetReciprocal(sum, 12): normalize, 1 / (1 + a) by Newton-Raphson.
        headroom = self.ew("clz", [s], "i32", comment="GetReciprocal")
        shifted = self.ew("bitwise_and", [self.ew("logical_left_shift", [s, headroom], "i32"),
                                           self.iconst([INT32_MAX], [1] * rank)], "i32")
        one = [1] * rank
        hd = self.ew("add", [self.ew("arithmetic_right_shift", [shifted, self.iconst([1], one)],
                                       "i32", "round = false"),
                              self.iconst([1 << 30], one)], "i32")
        xr = self.ew("add", [self.iconst([1515870810], one),
                              self.imul31(hd, self.iconst([-1010580540], one))], "i32")
        for _ in range(3):
            u = self.ew("sub", [self.iconst([1 << 29], one), self.imul31(hd, xr)], "i32")
            # Rescale<2> of a value far below its saturation bound (|u| <= 1/17).
            xr = self.ew("add", [xr, self.ew("logical_left_shift",
                                               [self.imul31(xr, u), self.iconst([2], one)], "i32")],
                          "i32")
        sat = self.ew("greater", [xr, self.iconst([(1 << 30) - 1], one)], "i1")
        recip = self.ew("select", [sat, self.iconst([INT32_MAX], one),
                                    self.ew("logical_left_shift", [xr, self.iconst([1], one)], "i32")],
                         "i32")
        # exponent = num_bits_over_unit + 31 - bits = (12 - headroom) + 31 - bits
        exponent = self.ew("sub", [self.iconst([ACCUMULATION_INTEGER_BITS + 31 - bits], one),
                                   headroom], "i32")
        p = self.imul31(e, recip)
        r = self.ew("arithmetic_right_shift", [p, exponent], "i32", "round = true")
        if out_elem == "i8":
            return self.saturate(r, -128, "i8")
        r = self.ew("add", [r, self.iconst([-(1 << 15)], one)], "i32")
        return self.ew("cast", [self.iclamp(r, -(1 << 15), (1 << 15) - 1)], "i16")
