"""``--rounding=armnn``: int8 graphs whose arithmetic reproduces Arm NN CpuRef.

CpuRef does not requantize integers: every reference workload decodes its int8
inputs to float32 (``float(q - zp) * scale``), computes in float32 in a fixed
loop order, and encodes with ``clamp(round(v / scale) + zp)`` (``std::round``:
ties away from zero). Integer TOSA with SINGLE_ROUND approximates this up to
float32 accumulation noise, which flips a rounding now and then (measured:
about 1 in 10^4 conv outputs), so for bit-exact equality this mode spells out
the same float32 operations in TOSA:

* conv / depthwise / fully connected: f32 products summed from 0.0 in CpuRef's
  order (input channel, then kernel row, then kernel column), bias added last.
  linalg's conv loop order is (kh, kw, c), so a conv with several input
  channels *and* a kernel larger than 1x1 is rewritten as an im2col tensor in
  (c, kh, kw) order followed by a 1x1 conv.
* division (TOSA has no float divide): ``q0 = v * fl(1/s)`` corrected with an
  exact Dekker/Veltkamp residual, ``q = q0 + (v - q0*s) * fl(1/s)``, which is
  the correctly rounded ``v / s`` except within ~1e-6 ulp of a midpoint.
* round half away from zero via floor / compare / select.

The graph is larger than the integer one (it is a reference, not a
deployment form); values between operators stay int8 as in CpuRef.
"""

from typing import Union

import numpy as np

from .mlir_text import Value, float_literal, tensor_type

SPLIT = np.float32(4097.0)  # Veltkamp splitter 2^12 + 1 for 24-bit significands


def _split_np(a: np.float32):
    c = np.float32(SPLIT * a)
    hi = np.float32(c - np.float32(c - a))
    return hi, np.float32(a - hi)


class ArmNNEmulation:
    """Mixin for Importer: float32 building blocks with CpuRef's roundings."""

    # ---------------------------------------------------------- element-wise
    def ew(self, name: str, operands, elem: str = "f32", attrs: str = "", comment: str = ""):
        """An element-wise TOSA op over broadcast operands (same rank)."""
        rank = len(operands[0].shape)
        shape = [max(v.shape[i] for v in operands) for i in range(rank)]
        res = Value("", shape, elem)
        res.name = self.b.op(name, [v.name for v in operands], [v.type for v in operands],
                             res.type, attrs, comment)
        return res

    def tosa_mul(self, a, c, elem: str = "f32", shift: int = 0):
        """tosa.mul; its shift operand (integers only) rounds the 64-bit
        product half up and shifts it right."""
        shape = [max(x, y) for x, y in zip(a.shape, c.shape)]
        res = Value("", shape, elem)
        res.name = self.b.op("mul", [a.name, c.name, self.b.scalar1(shift, "i8")],
                             [a.type, c.type, "tensor<1xi8>"], res.type)
        return res

    def fmul(self, a, c):
        return self.tosa_mul(a, c)

    def fadd(self, a, c):
        return self.ew("add", [a, c])

    def fsub(self, a, c):
        return self.ew("sub", [a, c])

    def split(self, a):
        """Veltkamp split a = hi + lo with 12-bit halves (exact)."""
        c = self.fmul(a, self.fconst(float(SPLIT), len(a.shape)))
        hi = self.fsub(c, self.fsub(c, a))
        return hi, self.fsub(a, hi)

    def div_exact(self, v, s: Union[float, object]):
        """fl(v / s) for f32 tensor v and a positive constant or tensor s."""
        rank = len(v.shape)
        if isinstance(s, float):
            s32 = np.float32(s)
            r = np.float32(np.float32(1.0) / s32)
            shi, slo = _split_np(s32)
            S, R = self.fconst(float(s32), rank), self.fconst(float(r), rank)
            SHI, SLO = self.fconst(float(shi), rank), self.fconst(float(slo), rank)
        else:
            S = s
            R = self.ew("reciprocal", [s])
            SHI, SLO = self.split(s)
        q0 = self.fmul(v, R)
        p = self.fmul(q0, S)
        qh, ql = self.split(q0)
        # Dekker TwoProduct: p + e == q0 * s exactly.
        e = self.fsub(self.fmul(qh, SHI), p)
        e = self.fadd(e, self.fmul(qh, SLO))
        e = self.fadd(e, self.fmul(ql, SHI))
        e = self.fadd(e, self.fmul(ql, SLO))
        rem = self.fsub(self.fsub(v, p), e)  # v - p is exact (Sterbenz)
        return self.fadd(q0, self.fmul(rem, R))

    def round_half_away(self, y):
        rank = len(y.shape)
        t = self.ew("floor", [y])
        d = self.fsub(y, t)  # exact for |y| < 2^23
        half = self.fconst(0.5, rank)
        gt = self.ew("greater", [d, half], "i1")
        eq = self.ew("equal", [d, half], "i1")
        nonneg = self.ew("greater_equal", [y, self.fconst(0.0, rank)], "i1")
        up = self.ew("logical_or", [gt, self.ew("logical_and", [eq, nonneg], "i1")], "i1")
        return self.ew("select", [up, self.fadd(t, self.fconst(1.0, rank)), t])

    # ------------------------------------------------------ decode / encode
    def decode(self, x, scale: float, zp: int):
        """CpuRef's Dequantize: float(q - zp) * scale."""
        rank = len(x.shape)
        q = self.ew("cast", [x])
        q = self.fsub(q, self.fconst(float(zp), rank))
        return self.fmul(q, self.fconst(float(np.float32(scale)), rank))

    def encode(self, v, scale: float, zp: int):
        """CpuRef's Quantize: clamp(round(v / scale) + zp, -128, 127) as int8."""
        rank = len(v.shape)
        y = self.round_half_away(self.div_exact(v, float(np.float32(scale))))
        y = self.fadd(y, self.fconst(float(zp), rank))
        y = self.ew("clamp", [y], "f32",
                    f"max_val = {float_literal(127.0)} : f32, min_val = {float_literal(-128.0)} : f32")
        return self.ew("cast", [y], "i8")

    # ------------------------------------------------------------- conv-like
    def emulated_conv(self, kind: str, x, w: np.ndarray, bias_t, out_shape, pad, stride,
                      dilation, s_in, z_in, s_out, z_out, comment: str):
        """conv2d / depthwise_conv2d as CpuRef computes it (w: decoded f32 weights in
        TOSA layout); returns the int8 result."""
        b = self.b
        b.lines.append(f"// {comment} (Arm NN CpuRef float32 arithmetic)")
        oc = out_shape[-1]
        xf = self.decode(x, s_in, z_in)
        if kind == "conv2d" and w.shape[3] > 1 and w.shape[1] * w.shape[2] > 1:
            xf, w, pad, stride, dilation = self.im2col(xf, w, pad, stride, dilation, out_shape)
        zero_bias = b.const(np.zeros(oc, dtype=np.float32), "f32", cache=True)
        zp = b.scalar1(0.0, "f32")
        acc = Value("", out_shape, "f32")
        acc.name = b.op(kind, [xf.name, b.const(w, "f32"), zero_bias, zp, zp],
                        [xf.type, tensor_type(w.shape, "f32"), f"tensor<{oc}xf32>",
                         "tensor<1xf32>", "tensor<1xf32>"], acc.type,
                        f"acc_type = f32, dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
                        f"pad = array<i64: {', '.join(map(str, pad))}>, "
                        f"stride = array<i64: {stride[0]}, {stride[1]}>")
        if bias_t is not None:
            bs = bias_t.quant.scale.astype(np.float32) if bias_t.quant is not None else \
                np.ones(1, dtype=np.float32)
            bias = (bias_t.data.reshape(-1).astype(np.float32) * bs).astype(np.float32)
            bias = np.broadcast_to(bias, (oc,)).reshape([1] * (len(out_shape) - 1) + [oc])
            acc = self.fadd(acc, Value(b.const(np.ascontiguousarray(bias), "f32"),
                                        bias.shape, "f32"))
        return self.encode(acc, s_out, z_out)

    def im2col(self, xf, w: np.ndarray, pad, stride, dilation, out_shape):
        """Patches in CpuRef's (c, kh, kw) order, so a 1x1 conv sums like CpuRef."""
        b = self.b
        n, h, wd, c = xf.shape
        oc, kh, kw, _ = w.shape
        oh, ow = out_shape[1], out_shape[2]
        sh, sw = stride
        dh, dw = dilation
        # Pad so every strided window slice [k*d, k*d + o*s) is in bounds.
        hp = max(h + pad[0] + pad[1], (kh - 1) * dh + oh * sh)
        wp = max(wd + pad[2] + pad[3], (kw - 1) * dw + ow * sw)
        bottom, right = hp - h - pad[0], wp - wd - pad[2]
        # Zero padding by concatenation with zero constants: tosa.pad's
        # !tosa.shape<8> operand exceeds the validator's MAX_RANK at level 8K.
        for axis, before, after in ((1, pad[0], bottom), (2, pad[2], right)):
            if before == 0 and after == 0:
                continue
            def zeros(amount, axis=axis):
                shape = list(xf.shape)
                shape[axis] = amount
                return Value(b.const(np.zeros(shape, dtype=np.float32), "f32", cache=True),
                             shape, "f32")
            parts = ([zeros(before)] if before else []) + [xf] + ([zeros(after)] if after else [])
            shape = list(xf.shape)
            shape[axis] = sum(p.shape[axis] for p in parts)
            cat = Value("", shape, "f32")
            cat.name = b.op("concat", [p.name for p in parts], [p.type for p in parts], cat.type,
                            f"axis = {axis} : i32")
            xf = cat
        patches = []
        for ky in range(kh):
            for kx in range(kw):
                sl = Value("", [n, oh * sh, ow * sw, c], "f32")
                sl.name = b.op("slice", [xf.name, b.shape([0, ky * dh, kx * dw, 0]), b.shape(sl.shape)],
                               [xf.type, "!tosa.shape<4>", "!tosa.shape<4>"], sl.type)
                if sh > 1 or sw > 1:
                    sl = self.reshape(sl, [n, oh, sh, ow, sw, c])
                    s2 = Value("", [n, oh, 1, ow, 1, c], "f32")
                    s2.name = b.op("slice", [sl.name, b.shape([0] * 6), b.shape(s2.shape)],
                                   [sl.type, "!tosa.shape<6>", "!tosa.shape<6>"], s2.type)
                    sl = s2
                patches.append(self.reshape(sl, [n, oh, ow, 1, c]))
        cat = Value("", [n, oh, ow, kh * kw, c], "f32")
        cat.name = b.op("concat", [p.name for p in patches], [p.type for p in patches], cat.type,
                        "axis = 3 : i32")
        tr = Value("", [n, oh, ow, c, kh * kw], "f32")
        tr.name = b.op("transpose", [cat.name], [cat.type], tr.type,
                       "perms = array<i32: 0, 1, 2, 4, 3>")
        cols = self.reshape(tr, [n, oh, ow, c * kh * kw])
        w2 = np.ascontiguousarray(w.transpose(0, 3, 1, 2)).reshape(oc, 1, 1, c * kh * kw)
        return cols, w2, [0, 0, 0, 0], (1, 1), (1, 1)

    def emulated_add(self, a, c, sa, za, sc, zc, so, zo):
        return self.encode(self.fadd(self.decode(a, sa, za), self.decode(c, sc, zc)), so, zo)

    def emulated_avg_pool(self, x, kernel, stride, pad, out_shape, s, zi, zo):
        """CpuRef: float sum over the window (row-major), / count, encode."""
        b = self.b
        if any(pad):
            raise self.error("--rounding=armnn supports AVERAGE_POOL_2D only with VALID padding")
        xf = self.decode(x, s, zi)
        c = x.shape[3]
        kh, kw = kernel
        ones = b.const(np.ones((kh, kw, c, 1), dtype=np.float32), "f32")
        zero_bias = b.const(np.zeros(c, dtype=np.float32), "f32", cache=True)
        zp = b.scalar1(0.0, "f32")
        acc = Value("", out_shape, "f32")
        acc.name = b.op("depthwise_conv2d", [xf.name, ones, zero_bias, zp, zp],
                        [xf.type, f"tensor<{kh}x{kw}x{c}x1xf32>", f"tensor<{c}xf32>",
                         "tensor<1xf32>", "tensor<1xf32>"], acc.type,
                        "acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, "
                        f"stride = array<i64: {stride[0]}, {stride[1]}>",
                        "window sum as a depthwise conv with ones (row-major order)")
        return self.encode(self.div_exact(acc, float(kh * kw)), s, zo)

    def emulated_softmax_tail(self, e, total, so, zo):
        """exp / sum (correctly rounded) then encode."""
        return self.encode(self.div_exact(e, total), so, zo)
