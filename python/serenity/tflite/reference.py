"""TensorFlow Lite Micro's int8 reference kernels, in numpy.

An independent second implementation of the arithmetic that the default
(``--rounding=double``) import emits in TOSA: written from the public
descriptions of TFLite's kernels (``reference_integer_ops``, gemmlowp's
fixed-point helpers), not derived from the importer. It is checked against
TFLite Micro's own intermediate tensors (``../shared/bench/tflm``) and then used
to test the import on inputs TFLite Micro was not run on (unsaturated
softmax, other seeds). Plain integer semantics: every intermediate is an
int64 numpy array holding int32 values.
"""

from typing import Dict, List, Tuple

import numpy as np

from . import quant
from .quant import INT32_MAX, INT32_MIN, mbqm, rdbpot, srdhm, wrap32
from .schema import Model, Operator, TFLiteError, options


# ------------------------------------------------------ gemmlowp primitives
def sat_mul_pot(x, exponent: int):
    """gemmlowp SaturatingRoundingMultiplyByPOT<exponent> on int32."""
    x = np.asarray(x, dtype=np.int64)
    if exponent <= 0:
        return rdbpot(x, -exponent)
    threshold = (1 << (31 - exponent)) - 1
    return np.where(x > threshold, INT32_MAX, np.where(x < -threshold, INT32_MIN, x << exponent))


# --------------------------------------------------- gemmlowp fixed point exp
def _exp_on_interval(a: int) -> int:
    """exp on [-1/4, 0) in Q0.31 (gemmlowp)."""
    def mul(x, y):
        return int(srdhm(x, y))
    constant_term, one_third = 1895147668, 715827883
    x = int(wrap32(a + (1 << 28)))
    x2 = mul(x, x)
    x3 = mul(x2, x)
    x4 = mul(x2, x2)
    x4_over_4 = int(rdbpot(x4, 2))
    t = int(rdbpot(int(wrap32(mul(int(wrap32(x4_over_4 + x3)), one_third) + x2)), 1))
    return int(wrap32(constant_term + mul(constant_term, int(wrap32(x + t)))))


def exp_on_negative_values(a: int, integer_bits: int) -> int:
    """gemmlowp exp_on_negative_values: Q(integer_bits) input raw -> Q0.31 raw."""
    frac = 31 - integer_bits
    one_quarter = 1 << (frac - 2)
    mask = one_quarter - 1
    a_mod = int(wrap32((a & mask) - one_quarter))
    result = _exp_on_interval(int(sat_mul_pot(a_mod, integer_bits)))  # Rescale<0>
    remainder = int(wrap32(a_mod - a))
    for exponent, mult in ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
                           (2, 39332535), (3, 720401), (4, 242)):
        if integer_bits > exponent and remainder & (1 << (frac + exponent)):
            result = int(srdhm(result, mult))
    if integer_bits > 5 and a < -(1 << (36 - integer_bits)):
        result = 0
    if a == 0:
        result = INT32_MAX
    return result


def one_over_one_plus_x_for_x_in_0_1(a: int) -> int:
    """gemmlowp: 1 / (1 + a) for a in [0, 1), Q0.31 in and out."""
    total = a + INT32_MAX  # RoundingHalfSum(a, One) in int64, C++ division
    num = total + (1 if total >= 0 else -1)
    half_denominator = num // 2 if num >= 0 else -((-num) // 2)
    x = int(wrap32(1515870810 + int(srdhm(half_denominator, -1010580540))))
    for _ in range(3):
        hdx = int(srdhm(half_denominator, x))
        one_minus = int(wrap32((1 << 29) - hdx))
        x = int(wrap32(x + int(sat_mul_pot(int(srdhm(x, one_minus)), 2))))
    return int(sat_mul_pot(x, 1))


def get_reciprocal(x: int, integer_digits: int) -> Tuple[int, int]:
    """TFLite GetReciprocal: (Q0.31 reciprocal, num_bits_over_unit)."""
    headroom_plus_one = 32 - int(x).bit_length() if x > 0 else (32 if x == 0 else 0)
    num_bits_over_unit = integer_digits - headroom_plus_one
    shifted = ((x << headroom_plus_one) - (1 << 31)) & 0xFFFFFFFF
    return one_over_one_plus_x_for_x_in_0_1(int(wrap32(shifted))), num_bits_over_unit


SCALED_DIFF_INTEGER_BITS = 5
ACCUMULATION_INTEGER_BITS = 12


def softmax_params(beta: float, input_scale: float) -> Tuple[int, int, int]:
    """TFLite PreprocessSoftmaxScaling + CalculateInputRadius for int8:
    (input_multiplier, input_left_shift, diff_min)."""
    real = min(beta * input_scale * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), float((1 << 31) - 1))
    multiplier, shift = quant.tflite_quantize_multiplier(real)
    if shift < 0:
        raise TFLiteError(f"softmax input scale {input_scale} * beta {beta} is too small")
    radius = ((1 << SCALED_DIFF_INTEGER_BITS) - 1) * float(1 << (31 - SCALED_DIFF_INTEGER_BITS)) \
        / float(1 << shift)
    return multiplier, shift, -int(np.floor(radius))


def softmax_exp_table(beta: float, input_scale: float) -> np.ndarray:
    """exp_on_negative_values of every int8 input difference d = x - max in
    [-255, 0] (index d + 255), as TFLite's int8 softmax computes it; 0 where
    d < diff_min (those elements are skipped by the kernel and output -128)."""
    multiplier, shift, diff_min = softmax_params(beta, input_scale)
    table = np.zeros(256, dtype=np.int64)
    for d in range(-255, 1):
        if d >= diff_min:
            rescaled = int(srdhm(int(wrap32(d << shift)), multiplier))
            table[d + 255] = exp_on_negative_values(rescaled, SCALED_DIFF_INTEGER_BITS)
    return table


def softmax_int8(x: np.ndarray, beta: float, input_scale: float) -> np.ndarray:
    """TFLite reference_ops::Softmax, int8 in and out (output scale 1/256, zp -128)."""
    table = softmax_exp_table(beta, input_scale)
    flat = x.astype(np.int64).reshape(-1, x.shape[-1])
    out = np.empty_like(flat)
    for i, row in enumerate(flat):
        e = table[row - row.max() + 255]
        # Rescale<12> of each Q0.31 exp to the Q12.19 accumulator, summed.
        total = int(wrap32(int(rdbpot(e, ACCUMULATION_INTEGER_BITS).sum())))
        scale, bits = get_reciprocal(total, ACCUMULATION_INTEGER_BITS)
        exponent = bits + 31 - 8
        if not 0 <= exponent <= 31:
            raise TFLiteError(f"softmax exponent {exponent} out of range")
        out[i] = np.clip(rdbpot(srdhm(scale, e), exponent) - 128, -128, 127)
    return out.reshape(x.shape).astype(np.int8)


# ------------------------------------------------------------------ kernels
def _same_pad(in_size, k, stride, dilation, out_size):
    eff = (k - 1) * dilation + 1
    return max((out_size - 1) * stride + eff - in_size, 0) // 2


class Reference:
    """Evaluates subgraph 0 of an int8 model op by op; tensors by index."""

    def __init__(self, model: Model):
        self.model = model
        self.sg = model.subgraphs[0]

    def qp(self, idx):
        t = self.sg.tensors[idx]
        if t.quant is None:
            raise TFLiteError(f"tensor {idx} has no quantization parameters")
        return t.quant.scale.astype(np.float32), t.quant.zero_point.astype(np.int64)

    def act_range(self, act: int, out_idx: int):
        s, z = self.qp(out_idx)
        return quant.activation_range(act, float(s[0]), int(z[0]))

    def conv_acc(self, x, w, bias, in_zp, stride, dilation, pads, out_hw, depth_multiplier=None):
        """int32 accumulators of conv (w [OC,KH,KW,IC]) or depthwise (w [1,KH,KW,C*M])."""
        n, h, wd, c = x.shape
        kh, kw = w.shape[1:3]
        oh, ow = out_hw
        (pt, pl), (sh, sw), (dh, dw) = pads, stride, dilation
        need_h = (oh - 1) * sh + (kh - 1) * dh + 1
        need_w = (ow - 1) * sw + (kw - 1) * dw + 1
        xs = np.zeros((n, max(need_h, pt + h), max(need_w, pl + wd), c), dtype=np.int64)
        xs[:, pt:pt + h, pl:pl + wd, :] = x.astype(np.int64) - in_zp  # padding contributes 0
        oc = w.shape[0] if depth_multiplier is None else w.shape[3]
        acc = np.zeros((n, oh, ow, oc), dtype=np.int64)
        for ky in range(kh):
            for kx in range(kw):
                win = xs[:, ky * dh:ky * dh + (oh - 1) * sh + 1:sh, kx * dw:kx * dw + (ow - 1) * sw + 1:sw, :]
                if depth_multiplier is None:
                    acc += win @ w[:, ky, kx, :].astype(np.int64).T
                else:
                    acc += np.repeat(win, depth_multiplier, axis=-1) * w[0, ky, kx, :].astype(np.int64)
        if bias is not None:
            acc += bias.astype(np.int64)
        return wrap32(acc)

    def requantize(self, acc, in_idx, w_idx, out_idx, act, float_product=False):
        s_in, _ = self.qp(in_idx)
        s_w, _ = self.qp(w_idx)
        s_out, z_out = self.qp(out_idx)
        if float_product and s_w.size == 1:
            # Per-tensor FULLY_CONNECTED: GetQuantizedConvolutionMultipler's float32 product.
            reals = [float(np.float64(np.float32(s_in[0]) * np.float32(s_w[0])) / np.float64(s_out[0]))]
        else:
            reals = [float(np.float64(s_in[0]) * np.float64(sw) / np.float64(s_out[0])) for sw in s_w]
        ms = [quant.tflite_quantize_multiplier(r) for r in reals]
        m = np.array([a for a, _ in ms], dtype=np.int64)
        sh = np.array([b for _, b in ms], dtype=np.int64)
        y = mbqm(acc, m, sh) + int(z_out[0])
        lo, hi = self.act_range(act, out_idx)
        return np.clip(y, lo, hi).astype(np.int8)

    def op_conv(self, op: Operator, t: Dict[int, np.ndarray]):
        o = options(self.model, op)
        padding, sw, sh, act, dw, dh = o.i8(0), o.i32(1, 1), o.i32(2, 1), o.i8(3), o.i32(4, 1), o.i32(5, 1)
        return self._conv(op, t, padding, (sh, sw), (dh, dw), act, None)

    def op_depthwise(self, op: Operator, t):
        o = options(self.model, op)
        padding, sw, sh, act, dw, dh = o.i8(0), o.i32(1, 1), o.i32(2, 1), o.i8(4), o.i32(5, 1), o.i32(6, 1)
        x = t[op.inputs[0]]
        w = self.sg.tensors[op.inputs[1]].data
        return self._conv(op, t, padding, (sh, sw), (dh, dw), act, w.shape[3] // x.shape[3])

    def _conv(self, op, t, padding, stride, dilation, act, depth_multiplier):
        x = t[op.inputs[0]]
        w = self.sg.tensors[op.inputs[1]].data
        bias = self.sg.tensors[op.inputs[2]].data if len(op.inputs) > 2 and op.inputs[2] >= 0 else None
        out = self.sg.tensors[op.outputs[0]]
        oh, ow = out.shape[1:3]
        kh, kw = w.shape[1:3]
        if padding == 1:
            pads = (0, 0)
        else:
            pads = (_same_pad(x.shape[1], kh, stride[0], dilation[0], oh),
                    _same_pad(x.shape[2], kw, stride[1], dilation[1], ow))
        _, z_in = self.qp(op.inputs[0])
        acc = self.conv_acc(x, w, bias, int(z_in[0]), stride, dilation, pads, (oh, ow), depth_multiplier)
        return self.requantize(acc, op.inputs[0], op.inputs[1], op.outputs[0], act)

    def op_fully_connected(self, op, t):
        act = options(self.model, op).i8(0)
        x = t[op.inputs[0]]
        w = self.sg.tensors[op.inputs[1]].data.astype(np.int64)
        bias = self.sg.tensors[op.inputs[2]].data if len(op.inputs) > 2 and op.inputs[2] >= 0 else None
        _, z_in = self.qp(op.inputs[0])
        xs = x.astype(np.int64).reshape(-1, w.shape[1]) - int(z_in[0])
        acc = xs @ w.T
        if bias is not None:
            acc = acc + bias.astype(np.int64)
        y = self.requantize(wrap32(acc), op.inputs[0], op.inputs[1], op.outputs[0], act,
                            float_product=True)
        return y.reshape(self.sg.tensors[op.outputs[0]].shape)

    def op_add(self, op, t):
        act = options(self.model, op).i8(0)
        a, b = t[op.inputs[0]].astype(np.int64), t[op.inputs[1]].astype(np.int64)
        (sa, za), (sb, zb), (so, zo) = (self.qp(i) for i in (op.inputs[0], op.inputs[1], op.outputs[0]))
        twice_max = 2 * float(max(sa[0], sb[0]))
        m1, s1 = quant.tflite_quantize_multiplier(float(sa[0]) / twice_max)
        m2, s2 = quant.tflite_quantize_multiplier(float(sb[0]) / twice_max)
        mo, so_ = quant.tflite_quantize_multiplier(twice_max / ((1 << 20) * float(so[0])))
        x1 = mbqm((a - za[0]) * (1 << 20), m1, s1)
        x2 = mbqm((b - zb[0]) * (1 << 20), m2, s2)
        y = mbqm(wrap32(x1 + x2), mo, so_) + int(zo[0])
        lo, hi = self.act_range(act, op.outputs[0])
        return np.clip(y, lo, hi).astype(np.int8)

    def op_average_pool(self, op, t):
        o = options(self.model, op)
        padding, sw, sh, fw, fh, act = o.i8(0), o.i32(1), o.i32(2), o.i32(3), o.i32(4), o.i8(5)
        x = t[op.inputs[0]].astype(np.int64)
        out = self.sg.tensors[op.outputs[0]]
        n, h, w, c = x.shape
        oh, ow = out.shape[1:3]
        pt = 0 if padding == 1 else _same_pad(h, fh, sh, 1, oh)
        pl = 0 if padding == 1 else _same_pad(w, fw, sw, 1, ow)
        lo, hi = self.act_range(act, op.outputs[0])
        y = np.zeros((n, oh, ow, c), dtype=np.int64)
        for oy in range(oh):
            y0, y1 = max(oy * sh - pt, 0), min(oy * sh - pt + fh, h)
            for ox in range(ow):
                x0, x1 = max(ox * sw - pl, 0), min(ox * sw - pl + fw, w)
                count = (y1 - y0) * (x1 - x0)
                if count <= 0:
                    raise TFLiteError(f"operator {op.index}: empty pooling window")
                acc = x[:, y0:y1, x0:x1, :].sum(axis=(1, 2))
                half = count // 2
                # C++ integer division truncates toward zero.
                num = np.where(acc > 0, acc + half, acc - half)
                y[:, oy, ox, :] = np.where(num >= 0, num // count, -((-num) // count))
        return np.clip(y, lo, hi).astype(np.int8)

    def op_reshape(self, op, t):
        return t[op.inputs[0]].reshape(self.sg.tensors[op.outputs[0]].shape)

    def op_softmax(self, op, t):
        beta = options(self.model, op).f32(0, 1.0)
        s_in, _ = self.qp(op.inputs[0])
        s_out, z_out = self.qp(op.outputs[0])
        if int(z_out[0]) != -128 or float(s_out[0]) != 1.0 / 256:
            raise TFLiteError(f"operator {op.index}: int8 SOFTMAX needs output scale 1/256, zero point -128")
        return softmax_int8(t[op.inputs[0]], float(beta), float(s_in[0]))

    KERNELS = {"CONV_2D": op_conv, "DEPTHWISE_CONV_2D": op_depthwise,
               "FULLY_CONNECTED": op_fully_connected, "ADD": op_add,
               "AVERAGE_POOL_2D": op_average_pool, "RESHAPE": op_reshape, "SOFTMAX": op_softmax}

    def run(self, inputs: List[np.ndarray]) -> Dict[int, np.ndarray]:
        t = {idx: np.asarray(a).astype(np.int8).reshape(self.sg.tensors[idx].shape)
             for idx, a in zip(self.sg.inputs, inputs)}
        for op in self.sg.operators:
            if op.name not in self.KERNELS:
                raise TFLiteError(f"operator {op.index}: no reference kernel for {op.name}")
            t[op.outputs[0]] = self.KERNELS[op.name](self, op, t)
        return t


def run_reference(model: Model, inputs: List[np.ndarray]) -> Dict[int, np.ndarray]:
    """Every tensor TFLite Micro's int8 reference kernels compute for ``inputs``."""
    return Reference(model).run(inputs)
