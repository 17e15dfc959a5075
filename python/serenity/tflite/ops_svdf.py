"""SVDF (int8, TFLite Micro's integer kernel) with its activation state kept
between invocations as a TOSA variable (Importer.state_read / state_write).

TFLite Micro's ``EvalIntegerSvdfReference`` (svdf_common.cc @90b983c2b3f1),
for input x [B, I], feature weights Wf [F, I], time weights Wt [F, M],
bias [U] (U = F / rank) and the state S [B, F*M] (int8, zero point zs):

1. shift: the flat state moves left by one element (S[k] = S[k+1]); with
   the next step every row's last element is rewritten, so this is
   S[b, f, m] = S[b, f, m+1] for m < M-1;
2. feature matmul: d = sum_i Wf[f, i] * (x[b, i] - zx);
   d = clamp(MBQM(d, s1), -128, 127); S[b, f, M-1] = (int8)(zs + d) (the
   sum is stored into int8: it wraps); s1 = double(float(sx * sWf) / sS)
   (the scales multiplied and divided in float32, then QuantizeMultiplier);
3. time: t[b, f] = sum_m Wt[f, m] * (S[b, f, m] - zs) over the new state;
4. o[b, u] = bias[u] + sum_r t[b, u*rank + r];
   y = clamp(MBQM(o, s2) + zy, -128, 127), s2 = double(float(sS * sWt) / sy).

The fused activation is not applied by the integer kernel (only the float
one applies it), so it is ignored here too, as TFLite Micro does.

In TOSA: (1)+(2) are a concat of a slice of the state read with the new
column, written back to the variable (serenity-persistent-state does it in
the state itself: no copy of the state in the arena); (2) is a 1x1 conv2d
with the input zero point, a rescale, a clamp, an add and a wrapping cast;
(3) a tosa.matmul per filter (the state's zero point as its a_zp); (4) a
reduce_sum over the rank, the bias add and one DOUBLE_ROUND rescale.
"""

import numpy as np

from .mlir_text import Value
from .schema import options


class SvdfOps:

    def _sv_op(self, name, operands, shape, elem, attrs="", comment="", extra=()):
        res = Value("", shape, elem)
        res.name = self.b.op(name, [v.name for v in operands] + [n for n, _ in extra],
                             [v.type for v in operands] + [t for _, t in extra], res.type,
                             attrs, comment)
        return res

    def _sv_i32(self, value, rank):
        return Value(self.b.const(np.full([1] * rank, value, dtype=np.int32), "i32", cache=True),
                     [1] * rank, "i32")

    def import_svdf(self, op):
        o = options(self.model, op)
        rank = o.i32(0, 0)
        if len(op.inputs) != 5:
            raise self.error(f"SVDF has {len(op.inputs)} inputs; TFLite Micro's takes 5")
        x_t = self.tensor(op.inputs[0])
        wf_t, wt_t = self.tensor(op.inputs[1]), self.tensor(op.inputs[2])
        bias_t = self.tensor(op.inputs[3]) if op.inputs[3] >= 0 else None
        state_idx = op.inputs[4]
        s_t = self.tensor(state_idx)
        out = self.tensor(op.outputs[0])
        if self.float_mode or x_t.type != 9:
            raise self.error(f"SVDF with {x_t.type_name} input is not supported (int8 only; "
                             "TFLite Micro's float SVDF is not imported)")
        if wf_t.type != 9 or wt_t.type != 9 or s_t.type != 9 or out.type != 9:
            raise self.error("int8 SVDF needs int8 feature weights, time weights, state and "
                             f"output (got {wf_t.type_name}, {wt_t.type_name}, {s_t.type_name}, "
                             f"{out.type_name}; the int16 state variant is not supported)")
        if not s_t.is_variable:
            raise self.error(f"SVDF state tensor {state_idx} is not a variable tensor "
                             "(TFLite Micro requires is_variable)")
        if wf_t.data is None or wt_t.data is None:
            raise self.error("SVDF weights must be constant")
        if len(x_t.shape) != 2 or wf_t.data.ndim != 2 or wt_t.data.ndim != 2:
            raise self.error("SVDF expects a 2-D input and 2-D weights")
        batch, n_in = x_t.shape
        n_filter, memory = wt_t.data.shape
        if rank < 1 or n_filter % rank or wf_t.data.shape != (n_filter, n_in):
            raise self.error(f"SVDF shapes do not fit: feature weights {list(wf_t.data.shape)}, "
                             f"time weights {list(wt_t.data.shape)}, input {x_t.shape}, "
                             f"rank {rank}")
        units = n_filter // rank
        if list(s_t.shape) != [batch, n_filter * memory] or list(out.shape) != [batch, units]:
            raise self.error(f"SVDF state {s_t.shape} / output {out.shape} do not match "
                             f"batch {batch}, {n_filter} filters x memory {memory}")
        if bias_t is not None and (bias_t.type != 2 or bias_t.data is None
                                   or bias_t.data.size != units):
            raise self.error("SVDF bias must be a constant INT32 tensor of num_units values")
        sx, zx = self.per_tensor(x_t)
        swf, zwf = self.per_tensor(wf_t)
        swt, zwt = self.per_tensor(wt_t)
        ss, zs = self.per_tensor(s_t)
        sy, zy = self.per_tensor(out)
        if zwf != 0 or zwt != 0:
            raise self.error("SVDF weights with a non-zero zero point are not supported")
        f32 = np.float32
        s1 = float(f32(f32(sx) * f32(swf)) / f32(ss))
        s2 = float(f32(f32(ss) * f32(swt)) / f32(sy))
        comment = f"SVDF #{op.index}"
        b = self.b
        x = self.value(op.inputs[0])

        # (2) the new column: the feature matmul, requantized to the state's type.
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
        d = self.tflite_requantize(acc, s1, 0, 0, "i32",
                                   comment=comment + ": MultiplyByQuantizedMultiplier")
        d = self._sv_op("clamp", [d], d.shape, "i32",
                        "max_val = 127 : i32, min_val = -128 : i32",
                        comment + ": clamp to int8, then + state zero point (stored into int8: wraps)")
        d = self._sv_op("add", [d, self._sv_i32(zs, 4)], d.shape, "i32")
        col = self._sv_op("cast", [d], d.shape, "i8")
        col = self.reshape(col, [batch, n_filter, 1])

        # (1) the shifted state with the new column, written back.
        state = self.reshape(self.value(state_idx), [batch, n_filter, memory])
        if memory > 1:
            start, size = b.shape([0, 0, 1]), b.shape([batch, n_filter, memory - 1])
            old = self._sv_op("slice", [state], [batch, n_filter, memory - 1], "i8",
                              comment=comment + ": the state shifted by one",
                              extra=[(start, "!tosa.shape<3>"), (size, "!tosa.shape<3>")])
            new = self._sv_op("concat", [old, col], [batch, n_filter, memory], "i8",
                              "axis = 2 : i32", comment + ": the new column appended")
        else:
            new = col
        state = self.state_write(state_idx, self.reshape(new, [batch, n_filter * memory]))

        # (3) time: per filter, sum_m Wt[f, m] * (S[b, f, m] - zs).
        if batch == 1:
            a = self.reshape(state, [n_filter, 1, memory])
        else:
            a = self._sv_op("transpose", [self.reshape(state, [batch, n_filter, memory])],
                            [n_filter, batch, memory], "i8", "perms = array<i32: 1, 0, 2>",
                            comment + ": filters first")
        wt = Value(b.const(wt_t.data.astype(np.int8).reshape(n_filter, memory, 1), "i8"),
                   [n_filter, memory, 1], "i8")
        t = self._sv_op("matmul", [a, wt], [n_filter, batch, 1], "i32",
                        comment=comment + ": time weights x (state - zero point)",
                        extra=[(b.scalar1(zs, "i8"), "tensor<1xi8>"),
                               (b.scalar1(0, "i8"), "tensor<1xi8>")])
        if batch == 1:
            t = self.reshape(t, [1, units, rank])
        else:
            t = self._sv_op("transpose", [self.reshape(t, [n_filter, batch])], [batch, n_filter],
                            "i32", "perms = array<i32: 1, 0>")
            t = self.reshape(t, [batch, units, rank])

        # (4) the rank's sum, the bias, the output requantization.
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

    HANDLERS = {"SVDF": import_svdf}
