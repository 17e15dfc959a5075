"""``--rounding=double`` (default): TFLite / TFLite Micro's int8 arithmetic in TOSA.

Bit for bit what TFLite Micro's reference kernels compute (checked against its
intermediate tensors and against ``reference.py`` on other inputs):

* **MultiplyByQuantizedMultiplier** (conv, depthwise, fully connected, ADD) is
  ``RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x << l, m), r)``:
  the high multiply rounds half *up*, the power-of-two division rounds half
  *away from zero*. TOSA's DOUBLE_ROUND differs at ties of negative values, so
  it is emitted as two ``tosa.rescale`` ops:

  1. ``SINGLE_ROUND``, multiplier ``m``, shift ``31 - l`` (``31 - 20 - l`` for
     ADD's inputs, folding TFLite's ``<< 20``): exactly SRDHM, since
     ``floor((x*m*2^l + 2^30) / 2^31)`` is round half up;
  2. ``DOUBLE_ROUND``, multiplier ``2^31 - 1``, shift ``31 + r``: for
     ``|y| < 2^30`` this is exactly RoundingDivideByPOT(y, r). Proof: the
     result is ``floor((y + 2^(r-1) + d) / 2^r)`` with ``d = 1/2 - y/2^31`` in
     ``[0, 1)`` for ``y >= 0`` and ``d = -1/2 - y/2^31`` in ``[-1, 0)`` for
     ``y < 0``; with an integer numerator ``N = y + 2^(r-1)``, ``floor((N+d)/2^r)``
     equals ``floor(N/2^r)`` (half up) resp. ``floor((N-1)/2^r)`` (half down
     for negatives), i.e. round half away from zero.

  The bound ``|y| < 2^30`` is proven per op at import time from the weights
  (``|acc| <= |bias| + 255 * sum|w|``); where it cannot be proven the division
  is emitted as TFLite's integer expression instead
  (``(y >> r) + ((y & mask) > (mask >> 1) + (y < 0))``).
* **AVERAGE_POOL_2D**: the sum of the raw int8 values in the window (a
  depthwise conv with a ones kernel and zero padding, i32), then
  ``(sum +- count/2) / count`` truncated (``tosa.intdiv``), count = the
  window's elements inside the image, as TFLite's kernel.
* **SOFTMAX**: TFLite's fixed-point int8 softmax. ``exp_on_negative_values`` of
  the rescaled difference to the row maximum depends only on that difference
  (256 values), so it is a ``tosa.gather`` from a 256-entry i32 table
  computed at import time with gemmlowp's arithmetic; the sum, GetReciprocal
  (``tosa.clz``, shifts and three Newton-Raphson steps with ``tosa.mul``
  ``shift = 31``, which is SaturatingRoundingDoublingHighMul) and the final
  rounding shift (``tosa.arithmetic_right_shift`` with ``round = true``) are
  integer TOSA ops.
"""

from typing import List, Optional, Sequence

import numpy as np

from . import quant
from .mlir_text import Value, tensor_type
from .reference import (ACCUMULATION_INTEGER_BITS, softmax_exp_table)

INT32_MAX = (1 << 31) - 1
RDBPOT_MULTIPLIER = (1 << 31) - 1  # see the module docstring, step 2


class TFLiteIntegerOps:
    """Mixin for Importer: TOSA building blocks with TFLite's integer roundings."""

    # |SRDHM result| below which the two-rescale RoundingDivideByPOT is exact;
    # tests set 0 to force the integer-op form everywhere.
    exact_rescale_bound = 2.0 ** 30

    # ------------------------------------------------------------- helpers
    def iconst(self, values, shape, elem: str = "i32") -> Value:
        dtype = {"i8": np.int8, "i32": np.int32}[elem]
        arr = np.asarray(values, dtype=np.int64).reshape(shape).astype(dtype)
        return Value(self.b.const(arr, elem, cache=True), list(shape), elem)

    def iop(self, name: str, operands: Sequence[Value], elem: str, attrs: str = "",
            comment: str = "") -> Value:
        rank = len(operands[0].shape)
        shape = [max(v.shape[i] for v in operands) for i in range(rank)]
        res = Value("", shape, elem)
        res.name = self.b.op(name, [v.name for v in operands], [v.type for v in operands],
                             res.type, attrs, comment)
        return res

    def ireduce(self, name: str, x: Value, axis_attr: str) -> Value:
        res = Value("", x.shape[:-1] + [1], x.elem)
        res.name = self.b.op(name, [x.name], [x.type], res.type, axis_attr)
        return res

    def imul31(self, a: Value, c: Value) -> Value:
        """SaturatingRoundingDoublingHighMul: tosa.mul with shift 31 (the
        product in 64 bits, round half up, >> 31). The saturating case
        INT32_MIN * INT32_MIN never arises here: one operand is non-negative."""
        shift = self.b.scalar1(31, "i8")
        rank = len(a.shape)
        shape = [max(a.shape[i], c.shape[i]) for i in range(rank)]
        res = Value("", shape, "i32")
        res.name = self.b.op("mul", [a.name, c.name, shift], [a.type, c.type, "tensor<1xi8>"],
                             res.type)
        return res

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
                          x_bound, pre_shift: int = 0, comment: str = "") -> Value:
        """TFLite's MultiplyByQuantizedMultiplier(x << pre_shift, scale) + out_zp,
        saturated to out_elem (per channel when several scales). ``x_bound``:
        a bound on |x - in_zp| (scalar or per channel) proving the two-rescale
        form exact; None when unknown."""
        scales = np.atleast_1d(np.asarray(scales, dtype=np.float64))
        try:
            ms = [quant.tflite_quantize_multiplier(float(s)) for s in scales]
        except ValueError as e:
            raise self.error(str(e)) from None
        mults = [m for m, _ in ms]
        left = [max(s, 0) + pre_shift for _, s in ms]
        right = [max(-s, 0) for _, s in ms]
        if any(31 - l < 2 for l in left):
            raise self.error(f"requantization scale {max(scales)} is too large for tosa.rescale")
        first = [31 - l for l in left]
        if not any(right):
            return self.rescale_raw(x, mults, first, in_zp, out_zp, out_elem, "SINGLE_ROUND", comment)
        y = self.rescale_raw(x, mults, first, in_zp, 0, "i32", "SINGLE_ROUND",
                             comment + ": SaturatingRoundingDoublingHighMul" if comment else "")
        bound = None
        if x_bound is not None:
            xb = np.asarray(x_bound, dtype=np.float64).reshape(-1)
            gain = np.exp2(left) * np.asarray(mults, dtype=np.float64) / 2.0 ** 31
            if xb.size != gain.size:  # per-tensor scale, per-channel bound (or vice versa)
                xb, gain = xb.max(), gain.max()
            bound = float(np.max(xb * gain + 1))
        if bound is not None and bound < self.exact_rescale_bound:
            return self.rescale_raw(y, [RDBPOT_MULTIPLIER] * len(right), [31 + r for r in right],
                                    0, out_zp, out_elem, "DOUBLE_ROUND")
        return self.rounding_divide_by_pot(y, right, out_zp, out_elem)

    def rounding_divide_by_pot(self, y: Value, right: List[int], out_zp: int, out_elem: str) -> Value:
        """TFLite's RoundingDivideByPOT as integer ops (any int32 y), + out_zp,
        saturated and cast to out_elem."""
        rank = len(y.shape)
        shape = [1] * (rank - 1) + [len(right)]
        r = np.asarray(right, dtype=np.int64)
        mask = (np.int64(1) << r) - 1
        q = self.iop("arithmetic_right_shift", [y, self.iconst(r, shape)], "i32", "round = false",
                     "RoundingDivideByPOT (integer form)")
        rem = self.iop("bitwise_and", [y, self.iconst(mask, shape)], "i32")
        neg = self.iop("greater", [self.iconst([0], [1] * rank), y], "i1")
        thr = self.iop("add", [self.iconst(mask >> 1, shape), self.iop("cast", [neg], "i32")], "i32")
        up = self.iop("cast", [self.iop("greater", [rem, thr], "i1")], "i32")
        res = self.iop("add", [q, up], "i32")
        return self.saturate(res, out_zp, out_elem)

    def saturate(self, v: Value, zp: int, out_elem: str) -> Value:
        """v + zp clamped to out_elem's range and cast (i32 -> i8), or v (i32)."""
        rank = len(v.shape)
        if zp:
            v = self.iop("add", [v, self.iconst([zp], [1] * rank)], "i32")
        if out_elem == "i32":
            return v
        return self.iop("cast", [self.iclamp(v, -128, 127)], "i8")

    def iclamp(self, v: Value, lo: int, hi: int) -> Value:
        """i32 clamp as maximum/minimum (tosa.clamp on i32 is outside the
        integer profile)."""
        one = [1] * len(v.shape)
        v = self.iop("maximum", [v, self.iconst([lo], one)], "i32")
        return self.iop("minimum", [v, self.iconst([hi], one)], "i32")

    # ----------------------------------------------------------------- ops
    def tflite_add(self, a: Value, c: Value, sa, za, sc, zc, so, zo, comment: str) -> Value:
        # As TFLite's AddFunc: both inputs (q - zp) << 20 scaled to the common
        # scale 2*max(sa, sc), an exact int32 add, then to the output scale.
        twice_max = 2 * float(max(np.float32(sa), np.float32(sc)))
        a32 = self.tflite_requantize(a, float(np.float32(sa)) / twice_max, za, 0, "i32", 255, 20, comment)
        c32 = self.tflite_requantize(c, float(np.float32(sc)) / twice_max, zc, 0, "i32", 255, 20)
        bound_in = [255.0 * (1 << 20) * float(np.float32(s)) / twice_max + 1 for s in (sa, sc)]
        s = self.iop("add", [a32, c32], "i32")
        return self.tflite_requantize(s, twice_max / ((1 << 20) * float(np.float32(so))), 0, zo, "i8",
                                      sum(bound_in))

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
        pos = self.iop("greater", [acc, self.iconst([0], [1, 1, 1, 1])], "i1")
        num = self.iop("select", [pos, self.iop("add", [acc, half], "i32"),
                                  self.iop("sub", [acc, half], "i32")], "i32")
        q = self.iop("intdiv", [num, n], "i32")
        return self.iop("cast", [self.iclamp(q, act_lo, act_hi)], "i8")

    def tflite_softmax(self, x: Value, beta: float, input_scale: float, comment: str) -> Value:
        """TFLite's int8 softmax (output scale 1/256, zero point -128)."""
        b = self.b
        shape, rank = x.shape, len(x.shape)
        red = shape[:-1] + [1]
        axis = f"axis = {rank - 1} : i32"
        table = softmax_exp_table(beta, input_scale)
        xi = self.iop("cast", [x], "i32", comment=comment + ": TFLite fixed-point int8 softmax")
        mx = self.ireduce("reduce_max", xi, axis)
        idx = self.iop("add", [self.iop("sub", [xi, mx], "i32"), self.iconst([255], [1] * rank)], "i32")
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
        headroom = self.iop("clz", [s], "i32", comment="GetReciprocal")
        shifted = self.iop("bitwise_and", [self.iop("logical_left_shift", [s, headroom], "i32"),
                                           self.iconst([INT32_MAX], [1] * rank)], "i32")
        one = [1] * rank
        hd = self.iop("add", [self.iop("arithmetic_right_shift", [shifted, self.iconst([1], one)],
                                       "i32", "round = false"),
                              self.iconst([1 << 30], one)], "i32")
        xr = self.iop("add", [self.iconst([1515870810], one),
                              self.imul31(hd, self.iconst([-1010580540], one))], "i32")
        for _ in range(3):
            u = self.iop("sub", [self.iconst([1 << 29], one), self.imul31(hd, xr)], "i32")
            # Rescale<2> of a value far below its saturation bound (|u| <= 1/17).
            xr = self.iop("add", [xr, self.iop("logical_left_shift",
                                               [self.imul31(xr, u), self.iconst([2], one)], "i32")],
                          "i32")
        sat = self.iop("greater", [xr, self.iconst([(1 << 30) - 1], one)], "i1")
        recip = self.iop("select", [sat, self.iconst([INT32_MAX], one),
                                    self.iop("logical_left_shift", [xr, self.iconst([1], one)], "i32")],
                         "i32")
        # exponent = num_bits_over_unit + 31 - 8 = (12 - headroom) + 23
        exponent = self.iop("sub", [self.iconst([ACCUMULATION_INTEGER_BITS + 23], one), headroom], "i32")
        p = self.imul31(e, recip)
        r = self.iop("arithmetic_right_shift", [p, exponent], "i32", "round = true")
        return self.saturate(r, -128, "i8")
