"""Importer mixin, element-wise arithmetic: ADD (broadcasting), MUL, SUB, DIV, MINIMUM, MAXIMUM,
SQUARED_DIFFERENCE, PRELU, QUANTIZE, DEQUANTIZE, CAST.

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
integers bit for bit, float32 as its float kernels. Operands broadcast as in
TFLite (numpy rules, shapes aligned at the last dimension): the operand of
lower rank is reshaped to the higher rank with leading 1-dims, then the TOSA
element-wise ops broadcast their 1-dims. Integer arithmetic happens in i32
(the TOSA integer profile has add/sub/maximum/minimum for i32 only); every
requantization is one ``tosa.rescale`` with ``DOUBLE_ROUND``, which is
TFLite's MultiplyByQuantizedMultiplier (see tflite_int.py). These operators
use TFLite Micro's arithmetic under every ``--rounding`` mode (only ADD
without broadcasting keeps the base class's single/armnn forms).

Per operator (TFLM source of each derivation in the handler's docstring):

* MUL: int8/int16 ``(a - za) * (b - zb)``, MultiplyByQuantizedMultiplier by
  ``double(sa) * double(sb) / double(so)``; int32 wrapping product; float32.
* ADD / SUB int8 and int16: TFLite's AddFunc form, inputs ``<< 20`` (int16:
  ``<< 15``) scaled to ``2 max(sa, sb)``; ADD derives the multipliers in
  double, SUB in float32 (sub_common.cc divides floats).
* SQUARED_DIFFERENCE int8/int16: the same with ``<< 7`` (int16: ``<< 0``), the
  squared i32 difference requantized by ``(2 max)^2 / (2^14 so)``.
* MINIMUM / MAXIMUM: raw comparison of the stored values (TFLM does not
  requantize, whatever the quantization parameters).
* DIV int8: TFLM's DivElementwise in integer TOSA (reciprocal of the divisor
  from a 256-entry table, CountLeadingSignBits with ``tosa.clz``, SRDHM as
  ``tosa.mul`` with shift 31, RoundingDivideByPOT by a per-element exponent).
* PRELU int8: ``x >= zx ? MBQM(x - zx, si/so) : MBQM((x - zx)(a - za), si*sa/so)``.
* QUANTIZE: float32 -> int8/int16 as AffineQuantize (float32 division,
  std::round); integer -> integer as Requantize (MultiplyByQuantizedMultiplier
  of ``double(si) / double(so)``).
* DEQUANTIZE int8/int16 -> float32: ``float(scale * (q - zp))``.
"""

from typing import List, Tuple

import numpy as np

from . import quant
from .mlir_text import Value, float_literal
from .quant import INT32_MAX, INT32_MIN
from .reference import get_reciprocal
from .schema import Operator, options

UINT8 = 3  # TFLite TensorType

# fused_activation_function values of the TFLite schema.
_ACT_NONE, _ACT_RELU, _ACT_RELU_N1_TO_1, _ACT_RELU6 = 0, 1, 2, 3
_ACT_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT",
              6: "SIGMOID"}
_RANGES = {"i8": (-128, 127), "i16": (-32768, 32767), "i32": (INT32_MIN, INT32_MAX)}
_NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "f32": np.float32}


class ElementwiseOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    # ------------------------------------------------------------- helpers
    def _const(self, values, shape, elem: str) -> Value:
        arr = np.asarray(values).reshape(shape).astype(_NP[elem])
        return Value(self.b.const(arr, elem, cache=True), list(shape), elem)

    def _scalar(self, value, rank: int, elem: str) -> Value:
        return self._const([value], [1] * rank, elem)

    def _ranked(self, x: Value, rank: int) -> Value:
        """x with leading 1-dims up to rank (TFLite's broadcasting aligns the last dims)."""
        return self.reshape(x, [1] * (rank - len(x.shape)) + list(x.shape))

    def _binary_operands(self, op: Operator, same_type: bool = True):
        """(a, c, tensor a, tensor c, output tensor): both operands at the output's rank."""
        a, c = self.value(op.inputs[0]), self.value(op.inputs[1])
        out = self.tensor(op.outputs[0])
        rank = max(len(a.shape), len(c.shape), len(out.shape))
        a, c = self._ranked(a, rank), self._ranked(c, rank)
        for i in range(rank):
            dims = {a.shape[i], c.shape[i]} - {1}
            if len(dims) > 1:
                raise self.error(f"shapes {self.tensor(op.inputs[0]).shape} and "
                                 f"{self.tensor(op.inputs[1]).shape} do not broadcast")
        if same_type and a.elem != c.elem:
            raise self.error(f"operands of different types ({a.elem}, {c.elem})")
        return a, c, self.tensor(op.inputs[0]), self.tensor(op.inputs[1]), out

    def _result(self, y: Value, out) -> Value:
        """The result reshaped to the output tensor's shape (a rank-0 output of
        rank-0 operands was computed at rank 1)."""
        if list(y.shape) != list(out.shape):
            if int(np.prod(y.shape)) != int(np.prod(out.shape)):
                raise self.error(f"result shape {y.shape} differs from the output's {out.shape}")
            y = self.reshape(y, out.shape)
        return y

    def _i32(self, x: Value, zp: int = 0) -> Value:
        """x - zp exactly, as i32."""
        if x.elem != "i32":
            x = self.ew("cast", [x], "i32")
        if zp:
            x = self.ew("sub", [x, self._scalar(zp, len(x.shape), "i32")], "i32")
        return x

    def _narrow(self, x: Value, elem: str) -> Value:
        """Saturating i32 -> elem (TFLM's final clamp to the type's range)."""
        if elem == "i32":
            return x
        lo, hi = _RANGES[elem]
        return self.ew("cast", [self.iclamp(x, lo, hi)], elem)

    def _qparams(self, t, elem: str) -> Tuple[float, int]:
        """Per-tensor (scale, zero point); int16 must be symmetric (zero point 0),
        as TFLite's int16 kernels assume and TOSA's rescale requires."""
        s, z = self.per_tensor(t)
        if elem == "i16" and z != 0:
            raise self.error(f"int16 tensor {t.index} '{t.name}' has zero point {z}; "
                             "int16 quantization must be symmetric (zero point 0)")
        return s, z

    def _act(self, x: Value, act: int, out) -> Value:
        """The fused activation where TFLM applies it: float32 and int32 clamp
        to CalculateActivationRange's real bounds, int8/int16 to
        CalculateActivationRangeQuantized's (a clamp in the integer type)."""
        if act == _ACT_NONE:
            return x
        if act not in (_ACT_RELU, _ACT_RELU6, _ACT_RELU_N1_TO_1):
            raise self.error(f"fused activation {_ACT_NAMES.get(act, act)} is not supported")
        if x.elem == "f32":
            return self.activation(x, act, out)
        if x.elem == "i32":
            lo, hi = {_ACT_RELU: (0, INT32_MAX), _ACT_RELU6: (0, 6),
                      _ACT_RELU_N1_TO_1: (-1, 1)}[act]
            return self.iclamp(x, lo, hi)
        s, z = self.per_tensor(out)
        qmin, qmax = _RANGES[x.elem]
        lo, hi = quant.activation_range(act, s, z, qmin, qmax)
        if (lo, hi) == (qmin, qmax):
            return x
        return self.ew("clamp", [x], x.elem,
                       f"max_val = {hi} : {x.elem}, min_val = {lo} : {x.elem}",
                       f"fused {_ACT_NAMES[act]}")

    def _requant(self, x: Value, scale: float, in_zp: int, out_zp: int, out_elem: str,
                 pre_shift: int = 0, comment: str = "") -> Value:
        """MultiplyByQuantizedMultiplier((x - in_zp) << pre_shift, scale) + out_zp,
        saturated to out_elem. TOSA allows zero points on i8 only, so others
        are subtracted/added in i32."""
        if in_zp and x.elem != "i8":
            x, in_zp = self._i32(x, in_zp), 0
        if out_zp and out_elem != "i8":
            y = self.tflite_requantize(x, [scale], in_zp, 0, "i32", pre_shift, comment)
            y = self.ew("add", [y, self._scalar(out_zp, len(y.shape), "i32")], "i32")
            return self._narrow(y, out_elem)
        return self.tflite_requantize(x, [scale], in_zp, out_zp, out_elem, pre_shift, comment)

    def _scaled_pair(self, a: Value, c: Value, ma: float, mc: float, za: int, zc: int,
                     left_shift: int, comment: str) -> Tuple[Value, Value]:
        """AddFunc's inputs: MBQM((q - zp) << left_shift, m) for both operands, i32."""
        a32 = self._requant(a, ma, za, 0, "i32", left_shift, comment)
        c32 = self._requant(c, mc, zc, 0, "i32", left_shift)
        return a32, c32

    def _check_int_types(self, name: str, elems: List[str], allowed):
        for e in elems:
            if e not in allowed:
                raise self.error(f"{name} with {e} operands is not supported by TFLite Micro "
                                 f"(supported: {', '.join(allowed)})")

    # ------------------------------------------------------------ ADD / SUB
    def import_add_broadcast(self, op: Operator):
        """ADD. int8/int16 as TFLM's CalculateOpDataAdd (add_common.cc): left
        shift 20 (int16: 15), ``twice_max = 2 * double(max(sa, sb))``, input
        multipliers ``double(s) / twice_max``, output ``twice_max / (2^shift *
        double(so))``, then AddElementwise (reference/add.h). int32 wraps and
        ignores the fused activation (EvalAdd clamps to the int32 range).
        Same-shape ADD under --rounding single/armnn keeps the base import."""
        a0, c0 = self.tensor(op.inputs[0]), self.tensor(op.inputs[1])
        if list(a0.shape) == list(c0.shape) and not self.tflite_exact:
            return self.import_add(op)
        act = options(self.model, op).i8(0)
        a, c, ta, tc, out = self._binary_operands(op)
        comment = f"ADD #{op.index}"
        if a.elem == "f32":
            y = self._act(self.ew("add", [a, c], "f32", comment=comment), act, out)
            return self._result(y, out)
        if not self.tflite_exact:
            raise self.error("broadcasting integer ADD is imported with TFLite's arithmetic "
                             "only (--rounding=double)")
        self._check_int_types("ADD", [a.elem], ("i8", "i16", "i32"))
        if a.elem == "i32":
            return self._result(self.ew("add", [a, c], "i32", comment=comment), out)
        sa, za = self._qparams(ta, a.elem)
        sc, zc = self._qparams(tc, c.elem)
        so, zo = self._qparams(out, a.elem)
        if a.elem == "i8":
            y = self.tflite_add(a, c, sa, za, sc, zc, so, zo, comment)
        else:
            twice_max = 2.0 * float(max(np.float32(sa), np.float32(sc)))
            a32, c32 = self._scaled_pair(a, c, float(np.float32(sa)) / twice_max,
                                         float(np.float32(sc)) / twice_max, za, zc, 15, comment)
            s = self.ew("add", [a32, c32], "i32")
            y = self._requant(s, twice_max / ((1 << 15) * float(np.float32(so))), 0, zo, "i16")
        return self._result(self._act(y, act, out), out)

    def import_sub(self, op: Operator):
        """SUB. int8/int16 as TFLM's CalculateOpDataSub (sub_common.cc): like
        ADD, but ``twice_max`` and the three real multipliers are float32
        expressions (``input->params.scale / twice_max`` divides floats) cast
        to double; then SubElementwise (reference/sub.h). int32 and float32
        subtract and clamp to CalculateActivationRange."""
        act = options(self.model, op).i8(0)
        a, c, ta, tc, out = self._binary_operands(op)
        comment = f"SUB #{op.index}"
        if a.elem in ("f32", "i32"):
            y = self._act(self.ew("sub", [a, c], a.elem, comment=comment), act, out)
            return self._result(y, out)
        self._check_int_types("SUB", [a.elem], ("i8", "i16"))
        sa, za = self._qparams(ta, a.elem)
        sc, zc = self._qparams(tc, c.elem)
        so, zo = self._qparams(out, a.elem)
        left_shift = 20 if a.elem == "i8" else 15
        f32 = np.float32
        twice_max = f32(2) * max(f32(sa), f32(sc))
        ma, mc = float(f32(sa) / twice_max), float(f32(sc) / twice_max)
        mo = float(twice_max / (f32(1 << left_shift) * f32(so)))
        a32, c32 = self._scaled_pair(a, c, ma, mc, za, zc, left_shift, comment)
        s = self.ew("sub", [a32, c32], "i32")
        y = self._requant(s, mo, 0, zo, a.elem)
        return self._result(self._act(y, act, out), out)

    # ------------------------------------------------------------------ MUL
    def import_mul(self, op: Operator):
        """MUL. int8/int16 as TFLM's CalculateOpDataMul (mul_common.cc): real
        multiplier ``double(sa) * double(sb) / double(so)`` (a double product),
        MulElementwise: ``MBQM((a - za) * (b - zb)) + zo`` clamped to the
        activation range (int16: zero points 0, as TFLM requires). int32:
        wrapping product, CalculateActivationRange clamp; float32: product."""
        act = options(self.model, op).i8(0)
        a, c, ta, tc, out = self._binary_operands(op)
        comment = f"MUL #{op.index}"
        if a.elem in ("f32", "i32"):
            y = self._act(self.tosa_mul(a, c, a.elem), act, out)
            return self._result(y, out)
        self._check_int_types("MUL", [a.elem], ("i8", "i16"))
        sa, za = self._qparams(ta, a.elem)
        sc, zc = self._qparams(tc, c.elem)
        so, zo = self._qparams(out, a.elem)
        self.b.lines.append(f"// {comment}: (a - za) * (b - zb), MultiplyByQuantizedMultiplier")
        p = self.tosa_mul(self._i32(a, za), self._i32(c, zc), "i32")
        y = self._requant(p, float(np.float32(sa)) * float(np.float32(sc)) / float(np.float32(so)),
                          0, zo, a.elem)
        return self._result(self._act(y, act, out), out)

    # ------------------------------------------------------ MINIMUM / MAXIMUM
    def _min_max(self, op: Operator, name: str):
        """MAXIMUM / MINIMUM: TFLM (maximum_minimum.cc) compares the stored
        values, without requantization, whatever the quantization parameters."""
        a, c, _, _, out = self._binary_operands(op)
        if a.elem == "f32":
            return self._result(self.ew(name, [a, c], "f32"), out)
        self._check_int_types(op.name, [a.elem], ("i8", "i16", "i32"))
        y = self.ew(name, [self._i32(a), self._i32(c)], "i32", comment=f"{op.name} #{op.index}")
        return self._result(self.ew("cast", [y], a.elem) if a.elem != "i32" else y, out)

    def import_maximum(self, op: Operator):
        return self._min_max(op, "maximum")

    def import_minimum(self, op: Operator):
        return self._min_max(op, "minimum")

    # --------------------------------------------------- SQUARED_DIFFERENCE
    def import_squared_difference(self, op: Operator):
        """SQUARED_DIFFERENCE as TFLM's squared_difference.cc: int8 left shift
        7 (int16: 0, zero points 0), ``twice_max = 2 * double(max(sa, sb))``,
        inputs ``MBQM((q - zp) << shift, double(s) / twice_max)``, the i32
        difference squared, ``MBQM(d * d, twice_max^2 / double(float(2^(2 shift)
        * so)))`` + zo, saturated; no fused activation. int32/float32: (a - b)^2."""
        a, c, ta, tc, out = self._binary_operands(op)
        comment = f"SQUARED_DIFFERENCE #{op.index}"
        if a.elem in ("f32", "i32"):
            d = self.ew("sub", [a, c], a.elem, comment=comment)
            return self._result(self.tosa_mul(d, d, a.elem), out)
        self._check_int_types("SQUARED_DIFFERENCE", [a.elem], ("i8", "i16"))
        sa, za = self._qparams(ta, a.elem)
        sc, zc = self._qparams(tc, c.elem)
        so, zo = self._qparams(out, a.elem)
        left_shift = 7 if a.elem == "i8" else 0
        twice_max = 2.0 * float(max(np.float32(sa), np.float32(sc)))
        a32, c32 = self._scaled_pair(a, c, float(np.float32(sa)) / twice_max,
                                     float(np.float32(sc)) / twice_max, za, zc, left_shift,
                                     comment)
        d = self.ew("sub", [a32, c32], "i32")
        sq = self.tosa_mul(d, d, "i32")
        denom = float(np.float32(1 << (2 * left_shift)) * np.float32(so))
        y = self._requant(sq, twice_max * twice_max / denom, 0, zo, a.elem)
        return self._result(y, out)

    # ------------------------------------------------------------------ DIV
    def import_div(self, op: Operator):
        """DIV. float32: ``a * reciprocal(b)`` (within an ulp or two of TFLM's
        division); int32: C++ division truncating toward zero (``tosa.intdiv``);
        both clamped to CalculateActivationRange. int8: TFLM's DivElementwise
        (reference/div.h), see tflite_div_int8."""
        act = options(self.model, op).i8(0)
        a, c, ta, tc, out = self._binary_operands(op)
        comment = f"DIV #{op.index}"
        if a.elem == "f32":
            r = self.ew("reciprocal", [c], "f32", comment=comment)
            return self._result(self._act(self.tosa_mul(a, r, "f32"), act, out), out)
        self._check_int_types("DIV", [a.elem], ("i8", "i32"))
        if a.elem == "i32":
            y = self.ew("intdiv", [a, c], "i32", comment=comment)
            return self._result(self._act(y, act, out), out)
        sa, za = self.per_tensor(ta)
        sc, zc = self.per_tensor(tc)
        so, zo = self.per_tensor(out)
        y = self.tflite_div_int8(a, c, sa, za, sc, zc, so, zo, comment)
        return self._result(self._act(y, act, out), out)

    def _gather_table(self, table: np.ndarray, q: Value) -> Value:
        """table[q + 128] for int8 q (tosa.gather on a [1, 256, 1] i32 table)."""
        idx = self.ew("add", [self._i32(q), self._scalar(128, len(q.shape), "i32")], "i32")
        total = int(np.prod(q.shape))
        idx2 = self.reshape(idx, [1, total])
        values = self._const(table.astype(np.int32), [1, 256, 1], "i32")
        g = Value("", [1, total, 1], "i32")
        g.name = self.b.op("gather", [values.name, idx2.name], [values.type, idx2.type], g.type)
        return self.reshape(g, q.shape)

    def tflite_div_int8(self, a: Value, c: Value, sa, za, sc, zc, so, zo, comment) -> Value:
        """TFLM's int8 DivElementwise (reference/div.h), output multiplier from
        ``double(float(sa / (sb * so)))`` (div.cc computes it in float32):
        with ``x = a - za`` and ``y = b - zb`` (both negated when ``y < 0``),
        ``inv, rs = GetReciprocal(y, 31)``, ``h = CountLeadingSignBits(x)``,
        ``u = SRDHM(x << h, inv)``, result ``RoundingDivideByPOT(SRDHM(u, m),
        rs + h - shift) + zo``. ``inv`` and ``rs`` depend on b only: a
        256-entry table each. A divisor equal to its zero point divides by
        zero in TFLM (undefined); where the exponent exceeds 31 TFLM's
        RoundingDivideByPOT asserts (debug builds) and the import gives the
        rounded value, 0."""
        rank = len(a.shape)
        real = float(np.float32(np.float32(sa) / (np.float32(sc) * np.float32(so))))
        m, shift = quant.tflite_quantize_multiplier(real)
        if shift > 21:
            raise self.error(f"int8 DIV with real multiplier {real} is outside TFLite's "
                             "RoundingDivideByPOT range")
        q2 = np.arange(-128, 128) - zc
        inv = np.zeros(256, dtype=np.int64)
        rsh = np.zeros(256, dtype=np.int64)
        for i, y in enumerate(np.abs(q2)):
            if y:
                inv[i], rsh[i] = get_reciprocal(int(y), 31)
        self.b.lines.append(f"// {comment}: TFLite's DivElementwise (table of GetReciprocal)")
        x = self._i32(a, za)
        y = self._i32(c, zc)
        zero = self._scalar(0, rank, "i32")
        neg = self.ew("greater", [zero, y], "i1")
        x = self.ew("select", [neg, self.ew("sub", [zero, x], "i32"), x], "i32")
        inv_v = self._gather_table(inv, c)
        rsh_v = self._gather_table(rsh, c)
        # CountLeadingSignBits(x) = clz(x >= 0 ? x : ~x) - 1 (31 for x = 0).
        xneg = self.ew("greater", [zero, x], "i1")
        pos = self.ew("select", [xneg, self.ew("sub", [self._scalar(-1, rank, "i32"), x], "i32"),
                                 x], "i32")
        h = self.ew("sub", [self.ew("clz", [pos], "i32"), self._scalar(1, rank, "i32")], "i32")
        u = self.imul31(self.ew("logical_left_shift", [x, h], "i32"), inv_v)
        v = self.imul31(u, self._scalar(m, rank, "i32"))
        e = self.ew("sub", [self.ew("add", [rsh_v, h], "i32"), self._scalar(shift, rank, "i32")],
                    "i32")
        r = self.rounding_divide_by_pot(v, e)
        big = self.ew("greater", [e, self._scalar(31, rank, "i32")], "i1")
        r = self.ew("select", [big, zero, r], "i32")
        r = self.ew("add", [r, self._scalar(zo, rank, "i32")], "i32")
        return self._narrow(r, "i8")

    def rounding_divide_by_pot(self, v: Value, e: Value) -> Value:
        """gemmlowp RoundingDivideByPOT(v, e) (half away from zero) for a
        per-element exponent e in [1, 31] (larger e are clamped to 31):
        ``tosa.arithmetic_right_shift`` with ``round = true`` is
        ``floor((v + 2^(e-1)) / 2^e)`` (half up), so negative v are shifted
        as ``v - 1``: ``floor((v - 1 + 2^(e-1)) / 2^e)`` rounds their ties down."""
        rank = len(v.shape)
        zero = self._scalar(0, rank, "i32")
        vneg = self.ew("greater", [zero, v], "i1")
        adj = self.ew("select", [vneg, self.ew("sub", [v, self._scalar(1, rank, "i32")], "i32"),
                                 v], "i32")
        e = self.iclamp(e, 1, 31)
        return self.ew("arithmetic_right_shift", [adj, e], "i32", "round = true")

    # ---------------------------------------------------------------- PRELU
    def import_prelu(self, op: Operator):
        """PRELU. float32: ``x >= 0 ? x : x * alpha``. int8 (and int16 input
        with int8 alpha) as TFLM's CalculatePreluParams (prelu_common.cc):
        multipliers ``double(si) / double(so)`` and ``double(si) * double(sa) /
        double(so)``; BroadcastPrelu4DSlow: ``x - zx >= 0 ? MBQM(x - zx, m1) :
        MBQM((x - zx) * (alpha - za), m2)``, + zo, saturated."""
        x, al, tx, ta, out = self._binary_operands(op, same_type=False)
        comment = f"PRELU #{op.index}"
        if x.elem == "f32":
            ge = self.ew("greater_equal", [x, self._scalar(0.0, len(x.shape), "f32")], "i1",
                         comment=comment)
            y = self.ew("select", [ge, x, self.tosa_mul(x, al, "f32")], "f32")
            return self._result(y, out)
        if x.elem not in ("i8", "i16") or al.elem != "i8":
            raise self.error(f"PRELU with {x.elem} input and {al.elem} alpha is not supported "
                             "by TFLite Micro (int8 or int16 input, int8 alpha)")
        si, zi = self._qparams(tx, x.elem)
        sa, za = self.per_tensor(ta)
        so, zo = self._qparams(out, x.elem)
        x32 = self._i32(x, zi)
        pos = self._requant(x32, float(np.float32(si)) / float(np.float32(so)), 0, zo, x.elem,
                            comment=comment)
        prod = self.tosa_mul(x32, self._i32(al, za), "i32")
        neg = self._requant(prod, float(np.float32(si)) * float(np.float32(sa))
                            / float(np.float32(so)), 0, zo, x.elem)
        ge = self.ew("greater_equal", [x32, self._scalar(0, len(x.shape), "i32")], "i1")
        return self._result(self.ew("select", [ge, pos, neg], x.elem), out)

    # ---------------------------------------------------- QUANTIZE / DEQUANTIZE
    def import_quantize(self, op: Operator):
        """QUANTIZE as TFLM's quantize_common.cc. float32 -> int8/int16:
        AffineQuantize, ``round(v / float(scale)) + zp`` (a float32 division,
        std::round: half away from zero), clamped. Integer -> integer:
        Requantize, ``MBQM(q - zi, double(si) / double(so)) + zo``, clamped,
        for the type pairs TFLM accepts."""
        x = self.value(op.inputs[0])
        tx, out = self.tensor(op.inputs[0]), self.tensor(op.outputs[0])
        oelem = self.elem_of(out)
        comment = f"QUANTIZE #{op.index}"
        if self.float_mode:
            return x
        if x.elem == "f32":
            if oelem not in ("i8", "i16"):
                raise self.error(f"QUANTIZE float32 -> {oelem} is not supported by TFLite Micro")
            so, zo = self._qparams(out, oelem)
            self.b.lines.append(f"// {comment}: round(v / scale) + zero point")
            rank = len(x.shape)
            y = self.round_half_away(self.div_exact(x, float(np.float32(so))))
            y = self.fadd(y, self.fconst(float(zo), rank))
            lo, hi = _RANGES[oelem]
            y = self.ew("clamp", [y], "f32", f"max_val = {float_literal(float(hi))} : f32, "
                        f"min_val = {float_literal(float(lo))} : f32")
            return self.ew("cast", [y], oelem)
        pairs = {("i16", "i8"), ("i8", "i8"), ("i8", "i16"), ("i8", "i32"), ("i16", "i16"),
                 ("i16", "i32"), ("i32", "i8"), ("i32", "i16")}
        if (x.elem, oelem) not in pairs:
            raise self.error(f"QUANTIZE {x.elem} -> {oelem} is not supported by TFLite Micro")
        si, zi = self.per_tensor(tx)
        so, zo = self.per_tensor(out)
        # uint8 <-> int8 (the model's edges): a uint8 u with zero point z is
        # the int8 u - 128 (its bits with the sign bit flipped) with zero point
        # z - 128, and Requantize's clamp to [0, 255] is the int8 one shifted.
        uin, uout = tx.type == UINT8, out.type == UINT8
        if uin and uout:
            raise self.error("QUANTIZE uint8 -> uint8 is not supported by TFLite Micro")
        if uin:
            x, zi = self._flip_sign_bit(x), zi - 128
        y = self._requant(x, float(np.float32(si)) / float(np.float32(so)), zi,
                          zo - 128 if uout else zo, oelem, comment=comment)
        return self._flip_sign_bit(y) if uout else y

    def _flip_sign_bit(self, x: Value) -> Value:
        """int8 bits with the sign bit flipped: a uint8 value u read as int8,
        or back (u - 128 <-> u)."""
        return self.ew("bitwise_xor", [x, self._scalar(-128, len(x.shape), "i8")], "i8",
                       comment="uint8 <-> int8: u - 128")

    def import_dequantize(self, op: Operator):
        """DEQUANTIZE int8/int16 -> float32 as TFLM's reference Dequantize:
        ``float(double(scale) * (q - zp))``. ``q - zp`` is a small integer, so
        the double product is exact and its rounding to float equals the f32
        product ``float(q - zp) * scale`` computed here."""
        x = self.value(op.inputs[0])
        tx, out = self.tensor(op.inputs[0]), self.tensor(op.outputs[0])
        if self.float_mode:
            return x
        if x.elem not in ("i8", "i16") or self.elem_of(out) != "f32":
            raise self.error(f"DEQUANTIZE {x.elem} -> {self.elem_of(out)} is not supported by "
                             "TFLite Micro (int8/int16 -> float32)")
        s, z = self.per_tensor(tx)
        rank = len(x.shape)
        q = self.ew("cast", [x], "f32", comment=f"DEQUANTIZE #{op.index}")
        if z:
            q = self.fsub(q, self.fconst(float(z), rank))
        return self.fmul(q, self.fconst(float(np.float32(s)), rank))

    # ------------------------------------------------------------------ CAST
    def import_cast(self, op: Operator):
        """CAST as TFLM's cast.cc: ``static_cast`` element by element. Between
        integer types (and bool) ``tosa.cast`` sign-extends or wraps like
        C++; integer -> float32 rounds to nearest like C++; float32 -> integer
        truncates toward zero (``floor`` / ``ceil`` by sign, then an exact
        ``tosa.cast``; out-of-range values are undefined in C++)."""
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        oelem = self.elem_of(out)
        if x.elem == oelem:
            return x
        comment = f"CAST #{op.index}"
        if x.elem == "f32":
            if oelem not in ("i8", "i16", "i32"):
                raise self.error(f"CAST float32 -> {oelem} is not supported")
            ge = self.ew("greater_equal", [x, self._scalar(0.0, len(x.shape), "f32")], "i1",
                         comment=comment + ": truncation toward zero")
            x = self.ew("select", [ge, self.ew("floor", [x], "f32"), self.ew("ceil", [x], "f32")],
                        "f32")
        return self.ew("cast", [x], oelem, comment=comment)

    HANDLERS = {
        "ADD": import_add_broadcast,
        "CAST": import_cast,
        "SUB": import_sub,
        "MUL": import_mul,
        "DIV": import_div,
        "MINIMUM": import_minimum,
        "MAXIMUM": import_maximum,
        "SQUARED_DIFFERENCE": import_squared_difference,
        "PRELU": import_prelu,
        "QUANTIZE": import_quantize,
        "DEQUANTIZE": import_dequantize,
    }
