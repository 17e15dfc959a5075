"""SVDF as TFLite Micro computes it, with its activation state kept between
invocations as a TOSA variable (Importer.state_read / state_write).

TFLite Micro's SVDF (svdf.cc, svdf_common.cc @90b983c2b3f1) takes the input
x [B, I], feature weights Wf [F, I], time weights Wt [F, M], an optional bias
[U] (U = F / rank) and the activation state S [B, F*M], a variable tensor laid
out as [B, F, M] (filter-major, the newest value last). One invocation:

1. shift: the flat state moves left by one element (S[k] = S[k+1]); every
   row's last element is rewritten by step 2, so this is
   S[b, f, m] = S[b, f, m+1] for m < M-1;
2. feature matmul, the new column S[b, f, M-1]:
   int8/int16 state (``EvalIntegerSvdfReference<T>``, T the time weights'
   and state's type): d = sum_i Wf[f, i] * (x[b, i] - zx) in int32,
   d = clamp(MBQM(d, s1), T's range), S[b, f, M-1] = (T)(zs + d): the int32
   sum is stored into T, so it wraps; s1 = double(float(sx * sWf) / sS), the
   scales multiplied and divided in float32 as Prepare writes it, then
   QuantizeMultiplier;
   float32: S[b, f, M-1] = sum_i Wf[f, i] * x[b, i];
3. time, over the new state: t[b, f] = sum_m Wt[f, m] * (S[b, f, m] - zs)
   (int32; float32 without zero point);
4. o[b, u] = bias[u] + sum_r t[b, u*rank + r] (bias 0 when absent, the rank's
   terms added in order); integer: y = clamp(MBQM(o, s2) + zy, int8) with
   s2 = double(float(sS * sWt) / sy); the fused activation is NOT applied
   (only the float kernel applies it; the integer kernel ignores it, and so
   does this import); float32: y = activation(o).

MBQM is TFLite's MultiplyByQuantizedMultiplier, one DOUBLE_ROUND
tosa.rescale (tflite_int.py). Prepare refuses an int8 SVDF whose bias scale
differs from float(sS * sWt) by 1e-5 or more, and dereferences the bias (an
int8 SVDF without bias crashes TFLite Micro at this commit); without bias the
import adds none, as the kernel's Eval does. The state resets to its zero
point (int8) or 0 (int16, float32), TFLite Micro's ResetVariableTensors.

In TOSA: (1)+(2) are a concat of a slice of the state read with the new
column, written back to the variable (serenity-persistent-state does it in
the state itself: no copy of the state in the arena); (2) a 1x1 conv2d with
the input zero point, a rescale to T (its saturation is the clamp), and, for
a non-zero state zero point, the add in i32 and a wrapping cast; (3) int8:
one tosa.matmul per filter (the state zero point as its a_zp); int16 and
float32: an element-wise product with the time weights and a reduce_sum over
the memory; (4) the bias add, the rank's terms, one DOUBLE_ROUND rescale
(integer) or the fused activation (float32).

The rounding mode (--rounding) does not change this: an SVDF is always
TFLite Micro's arithmetic. A hybrid SVDF (float32 input and state, int8
weights; TFLite Micro has no kernel for it) is refused, and imported as the
float32 one with dequantized weights by --float; an integer SVDF is refused
by --float (its state is quantized).
"""

import numpy as np

from .mlir_text import Value
from .schema import options

FLOAT32, INT32, INT16, INT8 = 0, 2, 7, 9
T_ELEM = {INT8: "i8", INT16: "i16"}
ACT_NONE, ACT_TANH = 0, 4


class SvdfOps:

    def _sv_op(self, name, operands, shape, elem, attrs="", comment="", extra=()):
        res = Value("", shape, elem)
        res.name = self.b.op(name, [v.name for v in operands] + [n for n, _ in extra],
                             [v.type for v in operands] + [t for _, t in extra], res.type,
                             attrs, comment)
        return res

    def import_svdf(self, op):
        o = options(self.model, op)
        rank, act = o.i32(0, 0), o.i8(1, 0)
        if len(op.inputs) != 5 or len(op.outputs) != 1:
            raise self.error(f"SVDF has {len(op.inputs)} inputs and {len(op.outputs)} outputs; "
                             "TFLite Micro's takes 5 (input, feature weights, time weights, "
                             "bias or -1, state) and 1")
        x_t = self.tensor(op.inputs[0])
        wf_t, wt_t = self.tensor(op.inputs[1]), self.tensor(op.inputs[2])
        bias_t = self.tensor(op.inputs[3]) if op.inputs[3] >= 0 else None
        state_idx = op.inputs[4]
        s_t = self.tensor(state_idx)
        out = self.tensor(op.outputs[0])

        # Shapes, as TFLite Micro's Prepare checks them.
        if wf_t.data is None or wt_t.data is None:
            raise self.error("SVDF feature and time weights must be constant")
        if len(x_t.shape) != 2 or wf_t.data.ndim != 2 or wt_t.data.ndim != 2:
            raise self.error(f"SVDF needs a 2-D input and 2-D weights, not input {x_t.shape}, "
                             f"feature weights {list(wf_t.data.shape)}, time weights "
                             f"{list(wt_t.data.shape)}")
        batch, n_in = x_t.shape
        n_filter, memory = wt_t.data.shape
        if rank < 1 or n_filter % rank or wf_t.data.shape != (n_filter, n_in):
            raise self.error(f"SVDF shapes do not fit: feature weights {list(wf_t.data.shape)}, "
                             f"time weights {list(wt_t.data.shape)}, input {x_t.shape}, "
                             f"rank {rank} (need [F, {n_in}], [F, M] and F a multiple of the rank)")
        units = n_filter // rank
        if list(s_t.shape) != [batch, n_filter * memory] or list(out.shape) != [batch, units]:
            raise self.error(f"SVDF state {s_t.shape} / output {out.shape} do not match "
                             f"[batch, filters * memory] = [{batch}, {n_filter} * {memory}] / "
                             f"[batch, units] = [{batch}, {units}]")
        if not s_t.is_variable:
            raise self.error(f"SVDF state tensor {state_idx} '{s_t.name}' is not a variable "
                             "tensor (TFLite Micro requires is_variable)")
        if bias_t is not None and (bias_t.data is None or bias_t.data.size != units):
            raise self.error(f"SVDF bias must be a constant tensor of {units} values (num_units)")

        # Types.
        if x_t.type == FLOAT32:
            if not self.float_mode:
                for t in (wf_t, wt_t):
                    if t.type != FLOAT32:
                        raise self.hybrid_error(t)
            others = [s_t, out] + ([bias_t] if bias_t is not None and not self.float_mode else [])
            bad = [t for t in others if t.type != FLOAT32]
            if bad:
                raise self.error("float32 SVDF needs a float32 state, output and bias "
                                 f"(tensor {bad[0].index} '{bad[0].name}' is "
                                 f"{bad[0].type_name})")
            return self._svdf_float(op, x_t, wf_t, wt_t, bias_t, state_idx, batch, n_in,
                                    n_filter, memory, rank, act)
        if self.float_mode:
            raise self.error("an integer SVDF is not imported with --float (its state is a "
                             "quantized variable tensor); import it without --float")
        if x_t.type != INT8:
            raise self.error(f"SVDF with {x_t.type_name} input is not supported (TFLite Micro "
                             "runs int8 and float32 SVDF)")
        if wf_t.type != INT8:
            raise self.error(f"int8 SVDF needs int8 feature weights, not {wf_t.type_name}")
        if wt_t.type not in T_ELEM or s_t.type != wt_t.type:
            raise self.error(f"int8 SVDF needs int8 or int16 time weights and a state of the same "
                             f"type (TFLite Micro reads the state as the time weights' type), not "
                             f"time weights {wt_t.type_name} and state {s_t.type_name}")
        if out.type != INT8:
            raise self.error(f"int8 SVDF needs an int8 output, not {out.type_name}")
        if bias_t is not None and bias_t.type != INT32:
            raise self.error(f"int8 SVDF needs an INT32 bias, not {bias_t.type_name}")
        return self._svdf_int(op, x_t, wf_t, wt_t, bias_t, state_idx, s_t, out, batch, n_in,
                              n_filter, memory, rank)

    def _sv_scale(self, t, what: str):
        """The one (scale, zero point) TFLite Micro's kernel uses for tensor t."""
        if t.quant is None or t.quant.scale.size == 0:
            raise self.error(f"SVDF {what} tensor {t.index} '{t.name}' has no quantization "
                             "parameters")
        if t.quant.scale.size != 1:
            raise self.error(f"SVDF {what} tensor {t.index} '{t.name}' is quantized per axis; "
                             "TFLite Micro's SVDF uses one scale per tensor")
        return float(t.quant.scale[0]), int(t.quant.zero_point[0])

    def _svdf_shift_append(self, state_idx, col: Value, batch, n_filter, memory, comment):
        """Steps (1)+(2): the state shifted by one with the new column [B, F, 1]
        appended, written back to the variable; returns the new state [B, F, M]."""
        b = self.b
        state = self.reshape(self.value(state_idx), [batch, n_filter, memory])
        if memory > 1:
            start, size = b.shape([0, 0, 1]), b.shape([batch, n_filter, memory - 1])
            old = self._sv_op("slice", [state], [batch, n_filter, memory - 1], col.elem,
                              comment=comment + ": the state shifted by one",
                              extra=[(start, "!tosa.shape<3>"), (size, "!tosa.shape<3>")])
            new = self._sv_op("concat", [old, col], [batch, n_filter, memory], col.elem,
                              "axis = 2 : i32", comment + ": the new column appended")
        else:
            new = col
        state = self.state_write(state_idx, self.reshape(new, [batch, n_filter * memory]))
        return self.reshape(state, [batch, n_filter, memory])

    def _svdf_int(self, op, x_t, wf_t, wt_t, bias_t, state_idx, s_t, out, batch, n_in,
                  n_filter, memory, rank):
        b = self.b
        elem = T_ELEM[s_t.type]
        units = n_filter // rank
        sx, zx = self._sv_scale(x_t, "input")
        swf, zwf = self._sv_scale(wf_t, "feature weights")
        swt, zwt = self._sv_scale(wt_t, "time weights")
        ss, zs = self._sv_scale(s_t, "state")
        sy, zy = self._sv_scale(out, "output")
        for what, z, e in (("input", zx, "i8"), ("state", zs, elem), ("output", zy, "i8")):
            lo, hi = {"i8": (-128, 127), "i16": (-32768, 32767)}[e]
            if not lo <= z <= hi:
                raise self.error(f"SVDF {what} zero point {z} lies outside the {e} range")
        if zwf != 0 or zwt != 0:
            raise self.error("SVDF weights with a non-zero zero point are not supported "
                             "(TFLite Micro's kernel ignores it)")
        f32 = np.float32
        sbias_want = f32(ss) * f32(swt)
        if bias_t is not None:
            sb = float(bias_t.quant.scale[0]) if (bias_t.quant is not None
                                                 and bias_t.quant.scale.size) else 0.0
            if not abs(sb - float(sbias_want)) < 1e-5:
                raise self.error(f"SVDF bias scale {np.float32(sb)!s} is not state scale x time "
                                 f"weights scale {sbias_want!s} (TFLite Micro's Prepare requires "
                                 "them within 1e-5)")
        s1 = float(f32(f32(sx) * f32(swf)) / f32(ss))
        s2 = float(f32(sbias_want) / f32(sy))
        comment = f"SVDF #{op.index}"
        x = self.value(op.inputs[0])

        # (2) the new column: the feature matmul, requantized to the state's type
        # (the rescale's saturation to T is the kernel's clamp).
        x4 = self.reshape(x, [batch, 1, 1, n_in])
        w = Value(b.const(wf_t.data.astype(np.int8).reshape(n_filter, 1, 1, n_in), "i8"),
                  [n_filter, 1, 1, n_in], "i8")
        zero_bias = Value(b.const(np.zeros(n_filter, dtype=np.int32), "i32", cache=True),
                          [n_filter], "i32")
        acc = self._sv_op("conv2d", [x4, w, zero_bias], [batch, 1, 1, n_filter], "i32",
                          "acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, "
                          "stride = array<i64: 1, 1>", comment + ": feature matmul",
                          extra=[(b.scalar1(zx, "i8"), "tensor<1xi8>"),
                                 (b.scalar1(0, "i8"), "tensor<1xi8>")])
        col = self.tflite_requantize(acc, s1, 0, 0, elem,
                                     comment=comment + f": MultiplyByQuantizedMultiplier, "
                                     f"clamped to {elem}")
        if zs:
            # zs + d stored into T: the int32 sum wraps.
            d = self.ew("cast", [col], "i32")
            d = self.ew("add", [d, self.iconst([zs], [1, 1, 1, 1])], "i32",
                        comment=comment + ": + state zero point, stored into "
                        f"{elem} (wraps)")
            col = self.ew("cast", [d], elem)
        col = self.reshape(col, [batch, n_filter, 1])

        # (1) the shifted state with the new column, written back.
        state = self._svdf_shift_append(state_idx, col, batch, n_filter, memory, comment)

        # (3) time: per filter, sum_m Wt[f, m] * (S[b, f, m] - zs).
        # int16 state: tosa.matmul accumulates i16 x i16 in i48, and its low 32 bits
        # (tosa.cast) are TFLite Micro's int32 sum, wrapped or not; the zero point's
        # part, zs * sum_m Wt[f, m], is a constant subtracted mod 2^32 (the same
        # int32 result). The products are never materialized.
        if elem == "i8" or (elem == "i16" and wt_t.data.dtype == np.int16):
            if batch == 1:
                a = self.reshape(state, [n_filter, 1, memory])
            else:
                a = self._sv_op("transpose", [state], [n_filter, batch, memory], elem,
                                "perms = array<i32: 1, 0, 2>", comment + ": filters first")
            dtype = np.int8 if elem == "i8" else np.int16
            wt = Value(b.const(wt_t.data.astype(dtype).reshape(n_filter, memory, 1), elem),
                       [n_filter, memory, 1], elem)
            acc = "i32" if elem == "i8" else "i48"
            azp = zs if elem == "i8" else 0
            t = self._sv_op("matmul", [a, wt], [n_filter, batch, 1], acc,
                            comment=comment + ": time weights x (state - zero point)",
                            extra=[(b.scalar1(azp, elem), f"tensor<1x{elem}>"),
                                   (b.scalar1(0, elem), f"tensor<1x{elem}>")])
            if acc != "i32":
                t = self.ew("cast", [t], "i32", comment=comment + ": the int32 sum")
                if zs:
                    zterm = (zs * wt_t.data.astype(np.int64).sum(axis=1)) & 0xFFFFFFFF
                    zterm = np.where(zterm >= 1 << 31, zterm - (1 << 32), zterm)
                    t = self.ew("sub", [t, self.iconst(zterm.tolist(), [n_filter, 1, 1])], "i32",
                                comment=comment + ": minus zero point x sum of the time weights")
            if batch == 1:
                t = self.reshape(t, [1, n_filter])
            else:
                t = self._sv_op("transpose", [self.reshape(t, [n_filter, batch])],
                                [batch, n_filter], "i32", "perms = array<i32: 1, 0>")
        else:
            # int16 (tosa.matmul would accumulate i16 in i48): products in i32.
            s32 = self.ew("cast", [state], "i32", comment=comment + ": time weights x "
                          "(state - zero point), in i32")
            if zs:
                s32 = self.ew("sub", [s32, self.iconst([zs], [1, 1, 1])], "i32")
            wt = Value(b.const(wt_t.data.astype(np.int32).reshape(1, n_filter, memory), "i32"),
                       [1, n_filter, memory], "i32")
            t = self.ireduce("reduce_sum", self.tosa_mul(s32, wt, "i32"), "axis = 2 : i32")
            t = self.reshape(t, [batch, n_filter])

        # (4) the rank's sum, the bias, the output requantization.
        t = self.reshape(t, [batch, units, rank])
        if rank > 1:
            t = self._sv_op("reduce_sum", [t], [batch, units, 1], "i32", "axis = 2 : i32",
                            comment + ": sum over the rank")
        t = self.reshape(t, [batch, units])
        if bias_t is not None:
            bias = Value(b.const(bias_t.data.astype(np.int32).reshape(1, units), "i32"),
                         [1, units], "i32")
            t = self._sv_op("add", [t, bias], [batch, units], "i32", comment=comment + ": bias")
        return self.tflite_requantize(t, s2, 0, zy, "i8",
                                      comment=comment + ": MultiplyByQuantizedMultiplier + zero point")

    def _svdf_float(self, op, x_t, wf_t, wt_t, bias_t, state_idx, batch, n_in, n_filter,
                    memory, rank, act):
        b = self.b
        units = n_filter // rank
        out = self.tensor(op.outputs[0])
        comment = f"SVDF #{op.index}"
        if act not in (0, 1, 2, 3, ACT_TANH):
            raise self.error(f"float32 SVDF with fused activation {act} (SIGN_BIT) is not "
                             "supported")
        x = self.value(op.inputs[0])

        # (2) the new column: the feature matmul (a 1x1 conv2d).
        x4 = self.reshape(x, [batch, 1, 1, n_in])
        w = b.const(self.dequantized(wf_t).reshape(n_filter, 1, 1, n_in), "f32")
        zero_bias = b.const(np.zeros(n_filter, dtype=np.float32), "f32", cache=True)
        zp = b.scalar1(0.0, "f32")
        col = self._sv_op("conv2d", [x4], [batch, 1, 1, n_filter], "f32",
                          "acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, "
                          "stride = array<i64: 1, 1>", comment + ": feature matmul",
                          extra=[(w, f"tensor<{n_filter}x1x1x{n_in}xf32>"),
                                 (zero_bias, f"tensor<{n_filter}xf32>"),
                                 (zp, "tensor<1xf32>"), (zp, "tensor<1xf32>")])
        col = self.reshape(col, [batch, n_filter, 1])

        # (1) the shifted state with the new column, written back.
        state = self._svdf_shift_append(state_idx, col, batch, n_filter, memory, comment)

        # (3) time: sum_m Wt[f, m] * S[b, f, m], summed in m's order. One batch: a
        # tosa.matmul per filter (no product tensor); several: products, reduce_sum.
        if batch == 1:
            wt = Value(b.const(self.dequantized(wt_t).reshape(n_filter, memory, 1), "f32"),
                       [n_filter, memory, 1], "f32")
            t = self._sv_op("matmul", [self.reshape(state, [n_filter, 1, memory]), wt],
                            [n_filter, 1, 1], "f32", comment=comment + ": time weights x state",
                            extra=[(b.scalar1(0.0, "f32"), "tensor<1xf32>"),
                                   (b.scalar1(0.0, "f32"), "tensor<1xf32>")])
        else:
            wt = Value(b.const(self.dequantized(wt_t).reshape(1, n_filter, memory), "f32"),
                       [1, n_filter, memory], "f32")
            prod = self.tosa_mul(state, wt, "f32")
            t = self._sv_op("reduce_sum", [prod], [batch, n_filter, 1], "f32", "axis = 2 : i32",
                            comment + ": time weights x state")
        t = self.reshape(t, [batch, units, rank])

        # (4) bias + the rank's terms in order, then the fused activation.
        terms = [t] if rank == 1 else [
            self._sv_op("slice", [t], [batch, units, 1], "f32",
                        extra=[(b.shape([0, 0, r]), "!tosa.shape<3>"),
                               (b.shape([batch, units, 1]), "!tosa.shape<3>")])
            for r in range(rank)]
        y = None
        if bias_t is not None:
            y = Value(b.const(self.dequantized(bias_t).reshape(1, units, 1), "f32"),
                      [1, units, 1], "f32")
        for term in terms:
            y = term if y is None else self.ew("add", [y, term], "f32")
        y = self.reshape(y, [batch, units])
        if act == ACT_TANH:
            return self.ew("tanh", [y], "f32", comment=comment + ": fused TANH")
        return self.activation(y, act, out)

    HANDLERS = {"SVDF": import_svdf}
