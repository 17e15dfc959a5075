"""Importer mixin, windows, reductions and matrix products: MAX_POOL_2D, MEAN, SUM, REDUCE_MAX,
ARG_MAX, RESIZE_BILINEAR, TRANSPOSE_CONV, BATCH_MATMUL.

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
int8 bit for bit, float32 as its float kernels.

* MAX_POOL_2D is ``tosa.max_pool2d`` (TFLite Micro skips the padding; TOSA pads
  with the type's lowest value, which never wins), then the activation clamp.
  TFLite Micro requires the same input and output quantization.
* MEAN / SUM (int8, int16): ``reference_ops::QuantizedMeanOrSum``. The integer
  sum of the raw values minus ``zp_in * n`` (exact), then
  MultiplyByQuantizedMultiplier with TFLite's QuantizeMultiplier of
  ``double(s_in) / double(s_out)`` (one ``DOUBLE_ROUND`` rescale, exact as
  tflite_int.py proves); MEAN folds ``1/n`` into the multiplier as TFLite
  does: ``shift = min(floor(log2 n), 32, 31 + shift_out)``,
  ``m' = (m << shift) / n`` (int64, truncated), ``shift_out - shift``.
  (TFLite Micro has no special int8 path for a 4-D mean over H and W; the
  float kernel's special path sums in the same order as the general one.)
* REDUCE_MAX: ``tosa.reduce_max`` (int8 needs the same quantization in and out).
* ARG_MAX: ``tosa.argmax`` (first maximum on ties, as TFLite); TFLite Micro
  only produces INT32 indices.
* Reductions over several axes are one reduction over one axis: the reduced
  axes are made adjacent (a ``tosa.transpose`` only when they are not) and
  merged by a reshape, so each output sums its inputs in TFLite's row-major
  order.
* TRANSPOSE_CONV: TFLite scatters input row ``y`` to output rows
  ``y*s - p + ky``. Neither MLIR's TOSA-to-linalg nor serenity-pipeline lowers
  ``tosa.transpose_conv2d`` (upstream decomposes it in
  tosa-optional-decompositions), so the importer emits the same decomposition
  itself: output phase ``r`` of ``q*s + r - p`` is a stride-1 correlation of
  the input with the flipped sub-kernel ``w[r + j*s]``; one ``tosa.conv2d``
  computes every phase as channels ``(r_h, r_w, c)`` (bias and per-channel
  requantization tiled, input zero point in the conv), a reshape/transpose
  interleaves the phases and a slice takes the output window. int8 is
  CONV_2D's requantization (``double(s_in) * double(s_w[c]) / double(s_out)``,
  PopulateConvolutionQuantizationParams) and its activation range.
  int16 (16x8: int16 input, int8 filter, int64 bias) accumulates in i48 and
  rescales as TFLite's int64 MultiplyByQuantizedMultiplier.
* BATCH_MATMUL is ``tosa.matmul`` on ``[batch, rows, depth]`` x
  ``[batch, depth, cols]`` (``tosa.transpose`` for ``adj_x``/``adj_y``,
  ``tosa.tile`` for broadcast batch dimensions), int8 with both zero points in
  the matmul and TFLite's multiplier ``float(s_lhs * s_rhs) / s_out`` (a
  float32 product, GetQuantizedConvolutionMultipler without bias); int16 sums
  in i48 and rescales as TFLite's int64 MultiplyByQuantizedMultiplier.
* RESIZE_BILINEAR int8: ``reference_ops::ResizeBilinearInteger`` weighs the
  four neighbours with 10-bit fractions of ``y * scale_10`` (+ offset with
  half-pixel centers) and ignores the quantization parameters (raw values in,
  raw values out). ``tosa.resize`` BILINEAR with ``scale = [1024,
  scale_10_y, 1024, scale_10_x]`` and that offset selects the same
  neighbours with the same weights (where TFLite clamps ``y0 = y1``, TOSA's
  clamped pair has weights summing to 1024 on the same element) and returns
  the i32 sum in units of 2^20; TFLite's division by 2^20 rounding half away
  from zero follows (``x - (x < 0)`` then a half-up rescale). A negative
  offset (half-pixel upscaling) becomes a copy of row/column 0 in front and
  the offset one unit later, because MLIR's lowering weighs rows 0 and 1 at
  negative positions where TFLite reads row 0 alone. Float32 is the same
  ``tosa.resize`` with TFLite's exact ratio ``in/out`` (``(in-1)/(out-1)``
  with align_corners) as its rational scale.
"""

import math
from typing import List, Sequence

import numpy as np

from . import quant
from .mlir_text import Value, float_literal, tensor_type
from .schema import Operator, options

TYPE_NAMES = {0: "FLOAT32", 2: "INT32", 4: "INT64", 9: "INT8", 7: "INT16"}


def mean_multiplier(multiplier: int, shift: int, n: int):
    """QuantizedMeanOrSum's folding of 1/n into (multiplier, shift) (TFLite
    shift: positive = left)."""
    s = min(n.bit_length() - 1, 32, 31 + shift)
    return int((multiplier << s) // n), shift - s


class ReduceOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    # ------------------------------------------------------------- helpers
    def _rd_op(self, name: str, operands: List[Value], shape, elem: str, attrs: str = "",
               comment: str = "", extra=()) -> Value:
        """One TOSA op; ``extra`` are (name, type) operands appended after the values."""
        res = Value("", shape, elem)
        res.name = self.b.op(name, [v.name for v in operands] + [n for n, _ in extra],
                             [v.type for v in operands] + [t for _, t in extra], res.type,
                             attrs, comment)
        return res

    def _rd_transpose(self, x: Value, perm: Sequence[int], comment: str = "") -> Value:
        if list(perm) == list(range(len(perm))):
            return x
        return self._rd_op("transpose", [x], [x.shape[p] for p in perm], x.elem,
                           f"perms = array<i32: {', '.join(map(str, perm))}>", comment)

    def _rd_clamp(self, x: Value, lo, hi) -> Value:
        if x.elem == "f32":
            attrs = f"max_val = {float_literal(hi)} : f32, min_val = {float_literal(lo)} : f32"
        else:
            attrs = f"max_val = {int(hi)} : {x.elem}, min_val = {int(lo)} : {x.elem}"
        return self._rd_op("clamp", [x], x.shape, x.elem, attrs)

    def _rd_qrange(self, elem: str):
        return {"i8": (-128, 127), "i16": (-32768, 32767)}[elem]

    def _rd_fused(self, x: Value, act: int, out, name: str) -> Value:
        """Fused activation of float, int8 or int16 results (TFLite's
        CalculateActivationRange / CalculateActivationRangeQuantized)."""
        if act == 0:
            return x
        if act not in quant.ACTIVATION_REAL_RANGE:
            raise self.error(f"{name}: fused activation {act} is not supported")
        if x.elem == "f32":
            lo, hi = quant.ACTIVATION_REAL_RANGE[act]
            return self._rd_clamp(x, lo, float(np.finfo(np.float32).max) if hi is None else hi)
        s, z = self.per_tensor(out)
        lo, hi = quant.activation_range(act, s, z, *self._rd_qrange(x.elem))
        return self._rd_clamp(x, lo, hi)

    def _rd_same_quant(self, op: Operator, name: str, exact: bool = False):
        si, zi = self.per_tensor(self.tensor(op.inputs[0]))
        so, zo = self.per_tensor(self.tensor(op.outputs[0]))
        fi, fo = np.float32(si), np.float32(so)
        same = fi == fo if exact else abs(fi - fo) <= 1e-6
        if not same or zi != zo:
            raise self.error(f"{name} needs the same input and output quantization (TFLite Micro "
                             f"requires it), not scale {si} zp {zi} -> scale {so} zp {zo}")

    def _rd_axes(self, op: Operator, rank: int, name: str) -> List[int]:
        """The constant axis tensor, resolved as TFLite's ResolveAxis (negative
        axes wrap, duplicates count once), sorted."""
        at = self.tensor(op.inputs[1])
        if at.data is None:
            raise self.error(f"{name}: the axis tensor must be constant")
        if at.type != 2:
            raise self.error(f"{name}: the axis tensor must be INT32 (TFLite Micro's requirement)")
        axes = []
        for a in np.asarray(at.data).reshape(-1).tolist():
            if not -rank <= a < rank:
                raise self.error(f"{name}: axis {a} is out of range for rank {rank}")
            a = a + rank if a < 0 else a
            if a not in axes:
                axes.append(a)
        return sorted(axes)

    def _rd_rows(self, x: Value, axes: List[int], comment: str) -> Value:
        """x as [A, R, B] with the reduced axes merged into R, in row-major order."""
        shape = x.shape
        if not axes:
            return self.reshape(x, [int(np.prod(shape, dtype=np.int64)), 1, 1])
        if axes != list(range(axes[0], axes[-1] + 1)):
            kept = [i for i in range(len(shape)) if i not in axes]
            x = self._rd_transpose(x, kept + axes, comment + ": reduced axes last")
            shape = x.shape
            axes = list(range(len(kept), len(shape)))
        a = int(np.prod(shape[:axes[0]], dtype=np.int64))
        r = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        bb = int(np.prod(shape[axes[-1] + 1:], dtype=np.int64))
        return self.reshape(x, [a, r, bb])

    def _rd_reduce(self, kind: str, x: Value, axes: List[int], comment: str):
        """(x reduced over ``axes`` as [A, 1, B], number of elements reduced)."""
        x3 = self._rd_rows(x, axes, comment)
        y = self._rd_op(kind, [x3], [x3.shape[0], 1, x3.shape[2]], x3.elem, "axis = 1 : i32",
                        comment)
        return y, x3.shape[1]

    # ----------------------------------------------------------- MAX_POOL_2D
    def import_max_pool(self, op: Operator):
        o = options(self.model, op)
        padding, sw, sh, fw, fh, act = o.i8(0), o.i32(1), o.i32(2), o.i32(3), o.i32(4), o.i8(5)
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        comment = f"MAX_POOL_2D #{op.index}"
        if len(x.shape) != 4:
            raise self.error("MAX_POOL_2D expects a 4-D NHWC input")
        if x.elem not in ("f32", "i8", "i16"):
            raise self.error(f"MAX_POOL_2D on {x.elem} is not supported (TFLite Micro: float32, "
                             "int8, int16)")
        if x.elem != "f32":
            self._rd_same_quant(op, "MAX_POOL_2D")
        pad = self.pads(padding, x.shape, fh, fw, sh, sw, 1, 1, out.shape)
        if pad[0] >= fh or pad[1] >= fh or pad[2] >= fw or pad[3] >= fw:
            raise self.error("MAX_POOL_2D: a window lies entirely in the padding")
        shape = list(out.shape)
        src = self.row_view(x) if fw == 1 and sw == 1 and pad[2] == pad[3] == 0 else None
        if src is not None:
            # The signal's own layout: the window along W (Conv1D models).
            x, (fh, fw), (sh, sw) = src, (1, fh), (1, sh)
            pad = [0, 0, pad[0], pad[1]]
            shape = [shape[0], 1, shape[1], shape[3]]
        x, pad = self.fit_stride(x, pad, [fh, fw], [sh, sw])
        y = self._rd_op("max_pool2d", [x], shape, x.elem,
                        f"kernel = array<i64: {fh}, {fw}>, "
                        f"pad = array<i64: {', '.join(map(str, pad))}>, "
                        f"stride = array<i64: {sh}, {sw}>", comment)
        return self.reshape(self._rd_fused(y, act, out, "MAX_POOL_2D"), out.shape)

    # --------------------------------------------------------- MEAN and SUM
    def _rd_mean_or_sum(self, op: Operator, is_mean: bool):
        name = "MEAN" if is_mean else "SUM"
        comment = f"{name} #{op.index}"
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        axes = self._rd_axes(op, len(x.shape), name)
        if x.elem == "f32":
            s, n = self._rd_reduce("reduce_sum", x, axes, comment)
            if is_mean and n != 1:
                # TFLite divides the float sum by n: fl(sum / n) exactly (a reciprocal
                # product corrected by its exact remainder, emulate.py's div_exact).
                s = self.div_exact(s, float(n))
            return self.reshape(s, out.shape)
        if x.elem not in ("i8", "i16"):
            raise self.error(f"{name} on {x.elem} is not supported (TFLite Micro: float32, int8, "
                             "int16)")
        if self.elem_of(out) != x.elem:
            raise self.error(f"{name}: the output type must be the input type")
        si, zi = self.per_tensor(self.tensor(op.inputs[0]))
        so, zo = self.per_tensor(out)
        # PrepareMeanOrSumHelper: QuantizeMultiplier(double(s_in) / double(s_out)).
        try:
            real = float(np.float32(si)) / float(np.float32(so))
            m, shift = quant.tflite_quantize_multiplier(real)
        except ValueError as e:
            raise self.error(f"{name}: {e}") from None
        x32 = self._rd_op("cast", [x], x.shape, "i32", comment=comment + ": sum of the raw values")
        s, n = self._rd_reduce("reduce_sum", x32, axes, comment)
        if zi:
            s = self.ew("add", [s, self.iconst([-zi * n], [1, 1, 1])], "i32")
        if is_mean:
            m, shift = mean_multiplier(m, shift, n)
        if not -31 <= shift <= 29:
            raise self.error(f"{name}: the rescale shift {shift} of scale {si}/{so} is outside "
                             "what one tosa.rescale represents")
        y = self.rescale_raw(s, [m], [31 - shift], 0, zo, x.elem, "DOUBLE_ROUND",
                             comment + ": MultiplyByQuantizedMultiplier")
        return self.reshape(y, out.shape)

    def import_mean(self, op: Operator):
        return self._rd_mean_or_sum(op, True)

    def import_sum(self, op: Operator):
        return self._rd_mean_or_sum(op, False)

    # ----------------------------------------------------- REDUCE_MAX, ARG_MAX
    def import_reduce_max(self, op: Operator):
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        if x.elem not in ("f32", "i8"):
            raise self.error(f"REDUCE_MAX on {x.elem} is not supported (TFLite Micro: float32, "
                             "int8)")
        if x.elem == "i8":
            self._rd_same_quant(op, "REDUCE_MAX", exact=True)
        axes = self._rd_axes(op, len(x.shape), "REDUCE_MAX")
        y, _ = self._rd_reduce("reduce_max", x, axes, f"REDUCE_MAX #{op.index}")
        return self.reshape(y, out.shape)

    def import_arg_max(self, op: Operator):
        x = self.value(op.inputs[0])
        out = self.tensor(op.outputs[0])
        if out.type != 2:
            raise self.error(f"ARG_MAX with {TYPE_NAMES.get(out.type, out.type)} output is not "
                             "supported (TFLite Micro only produces INT32 indices)")
        if x.elem not in ("f32", "i8"):
            raise self.error(f"ARG_MAX on {x.elem} is not supported (TFLite Micro: float32, int8)")
        self._rd_axes(op, len(x.shape), "ARG_MAX")
        # TFLite reads the axis tensor's first element only.
        axis = int(np.asarray(self.tensor(op.inputs[1]).data).reshape(-1)[0]) % len(x.shape)
        shape = x.shape[:axis] + x.shape[axis + 1:]
        y = self._rd_op("argmax", [x], shape, "i32", f"axis = {axis} : i32",
                        f"ARG_MAX #{op.index} (first maximum on ties, as TFLite)")
        return self.reshape(y, out.shape)

    # -------------------------------------------------------- TRANSPOSE_CONV
    def import_transpose_conv(self, op: Operator):
        o = options(self.model, op)
        padding, sw, sh, act = o.i8(0), o.i32(1, 1), o.i32(2, 1), o.i8(3)
        comment = f"TRANSPOSE_CONV #{op.index}"
        shape_t, wt = self.tensor(op.inputs[0]), self.tensor(op.inputs[1])
        in_t, out = self.tensor(op.inputs[2]), self.tensor(op.outputs[0])
        bias_t = self.tensor(op.inputs[3]) if len(op.inputs) > 3 and op.inputs[3] >= 0 else None
        if shape_t.data is None:
            raise self.error("TRANSPOSE_CONV: the output shape tensor must be constant")
        if list(np.asarray(shape_t.data).reshape(-1)) != list(out.shape):
            raise self.error(f"TRANSPOSE_CONV: output shape tensor {shape_t.data.tolist()} differs "
                             f"from the output tensor's {out.shape}")
        x = self.value(op.inputs[2])
        w = self.weights(wt)
        if len(x.shape) != 4 or w.ndim != 4:
            raise self.error("TRANSPOSE_CONV expects a 4-D input and filter")
        if x.elem not in ("f32", "i8", "i16"):
            raise self.error(f"TRANSPOSE_CONV on {x.elem} is not supported (float32, int8 and "
                             "int16 are)")
        oc, kh, kw, ic = w.shape
        n, ih, iw, _ = x.shape
        oh, ow = out.shape[1:3]
        if out.shape[3] != oc or x.shape[3] != ic or out.shape[0] != n:
            raise self.error(f"TRANSPOSE_CONV shapes do not match: input {x.shape}, filter "
                             f"{list(w.shape)}, output {out.shape}")
        if padding not in (0, 1):
            raise self.error(f"TRANSPOSE_CONV: unknown padding {padding}")

        def tflm_pad(size, k, s):
            # ComputePaddingHeightWidth on the *output* size (transpose_conv.cc).
            o_ = (size + s - 1) // s if padding == 0 else (size + s - k) // s
            return max((o_ - 1) * s + k - size, 0) // 2

        # Output phase r of dimension d: out[q*s + r - p] = sum_j in[q - j] * w[r + j*s], a
        # stride-1 correlation with the flipped sub-kernel of length J = ceil(k / s); one
        # conv2d computes all s_h * s_w phases as channels (rh, rw, c), then the phases are
        # interleaved and the p-offset window sliced out.
        dims = []
        for size, k, s, insize in ((oh, kh, sh, ih), (ow, kw, sw, iw)):
            p = tflm_pad(size, k, s)
            jn = -(-k // s)
            q0 = p // s
            qn = -(-(p + size) // s) - q0
            top = jn - 1 - q0
            bottom = qn - insize + q0
            keep = insize if bottom >= 0 else insize + bottom
            dims.append(dict(p=p, j=jn, q0=q0, qn=qn, top=top, bottom=max(bottom, 0),
                             keep=keep, s=s, k=k, off=p - q0 * s))
        if any(d["top"] < 0 or d["keep"] <= 0 for d in dims):
            raise self.error("TRANSPOSE_CONV: padding larger than the filter is not supported")
        dh, dw = dims
        jh, jw = dh["j"], dw["j"]
        sub = np.zeros((sh, sw, oc, jh, jw, ic), dtype=w.dtype)
        for rh in range(sh):
            for a in range(jh):
                ky = rh + (jh - 1 - a) * sh
                if ky >= kh:
                    continue
                for rw in range(sw):
                    for c_ in range(jw):
                        kx = rw + (jw - 1 - c_) * sw
                        if kx < kw:
                            sub[rh, rw, :, a, c_, :] = w[:, ky, kx, :]
        nc = sh * sw * oc
        sub = sub.reshape(nc, jh, jw, ic)
        if dh["keep"] != ih or dw["keep"] != iw:
            x = self._rd_op("slice", [x], [n, dh["keep"], dw["keep"], ic], x.elem,
                            comment=comment + ": input rows/columns no kept output reads",
                            extra=[(self.b.shape([0, 0, 0, 0]), "!tosa.shape<4>"),
                                   (self.b.shape([n, dh["keep"], dw["keep"], ic]),
                                    "!tosa.shape<4>")])
        pad = [dh["top"], dh["bottom"], dw["top"], dw["bottom"]]
        conv_shape = [n, dh["qn"], dw["qn"], nc]
        attrs = (f"dilation = array<i64: 1, 1>, pad = array<i64: {', '.join(map(str, pad))}>, "
                 "stride = array<i64: 1, 1>")
        b = self.b
        if x.elem == "f32":
            if wt.type != 0 and not self.float_mode:
                raise self.hybrid_error(wt)
            bias = (self.dequantized(bias_t).reshape(-1) if bias_t is not None
                    else np.zeros(oc, dtype=np.float32))
            zp = b.scalar1(0.0, "f32")
            y = self._rd_op("conv2d", [x], conv_shape, "f32", "acc_type = f32, " + attrs,
                            comment + ": all stride phases as channels of one convolution",
                            extra=[(b.const(sub.astype(np.float32), "f32"),
                                    tensor_type(sub.shape, "f32")),
                                   (b.const(np.tile(bias.astype(np.float32), sh * sw), "f32"),
                                    f"tensor<{nc}xf32>"),
                                   (zp, "tensor<1xf32>"), (zp, "tensor<1xf32>")])
        elif x.elem == "i16":
            y = self._rd_transpose_conv_int16(x, sub, conv_shape, attrs, op, sh * sw, comment)
        else:
            si, zi = self.per_tensor(in_t)
            s_w, z_w = self.qparams(wt)
            so, zo = self.per_tensor(out)
            if np.any(z_w != 0):
                raise self.error(f"TRANSPOSE_CONV: weight tensor {wt.index} has a non-zero "
                                 "zero point")
            if s_w.size not in (1, oc):
                raise self.error(f"TRANSPOSE_CONV: {s_w.size} weight scales for {oc} channels")
            if bias_t is not None and (bias_t.type != 2 or bias_t.data is None):
                raise self.error("TRANSPOSE_CONV: the int8 bias must be a constant INT32 tensor")
            bias = (bias_t.data.astype(np.int32).reshape(-1) if bias_t is not None
                    else np.zeros(oc, dtype=np.int32))
            acc = self._rd_op("conv2d", [x], conv_shape, "i32", "acc_type = i32, " + attrs,
                              comment + ": all stride phases as channels of one convolution",
                              extra=[(b.const(sub.astype(np.int8), "i8"),
                                      tensor_type(sub.shape, "i8")),
                                     (b.const(np.tile(bias, sh * sw), "i32"), f"tensor<{nc}xi32>"),
                                     (b.scalar1(zi, "i8"), "tensor<1xi8>"),
                                     (b.scalar1(0, "i8"), "tensor<1xi8>")])
            # PopulateConvolutionQuantizationParams: double(s_in) * double(s_w[c]) / double(s_out).
            scales = np.broadcast_to(float(np.float32(si)) * s_w.astype(np.float64), (oc,))
            scales = np.tile(scales / float(np.float32(so)), sh * sw)
            y = self.tflite_requantize(acc, scales, 0, zo, "i8",
                                       comment=comment + ": MultiplyByQuantizedMultiplier")
        y = self._rd_fused(y, act, out, "TRANSPOSE_CONV")
        if sh * sw > 1:
            y = self.reshape(y, [n, dh["qn"], dw["qn"], sh, sw, oc])
            y = self._rd_transpose(y, [0, 1, 3, 2, 4, 5], comment + ": interleave the phases")
            y = self.reshape(y, [n, dh["qn"] * sh, dw["qn"] * sw, oc])
        if y.shape[1:3] != [oh, ow]:
            y = self._rd_op("slice", [y], [n, oh, ow, oc], y.elem,
                            extra=[(b.shape([0, dh["off"], dw["off"], 0]), "!tosa.shape<4>"),
                                   (b.shape([n, oh, ow, oc]), "!tosa.shape<4>")])
        return y

    def _rd_list_const(self, values, elem: str) -> str:
        """A 1-D constant written as a list (i48 has no numpy type for the hex form)."""
        name = self.b.fresh()
        ty = tensor_type([len(values)], elem)
        items = ", ".join(str(int(v)) for v in values)
        self.b.lines.append(f'{name} = "tosa.const"() <{{values = dense<[{items}]> : {ty}}}> : '
                            f'() -> {ty}')
        return name

    def _rd_transpose_conv_int16(self, x: Value, sub: np.ndarray, conv_shape, attrs: str,
                                 op: Operator, phases: int, comment: str) -> Value:
        """TFLite Micro's int16 TRANSPOSE_CONV (16x8): int64 sums of input * filter
        (no zero points), int64 (or int16) bias, the int64
        MultiplyByQuantizedMultiplier per channel (16-bit multiplier, one rounding,
        see _rd_matmul_int16), clamped to the activation range. ``tosa.conv2d`` i16 x
        i8 accumulates in i48, then one per-channel 16-bit ``SINGLE_ROUND`` rescale."""
        wt, in_t = self.tensor(op.inputs[1]), self.tensor(op.inputs[2])
        out = self.tensor(op.outputs[0])
        bias_t = self.tensor(op.inputs[3]) if len(op.inputs) > 3 and op.inputs[3] >= 0 else None
        si, zi = self.per_tensor(in_t)
        so, zo = self.per_tensor(out)
        s_w, z_w = self.qparams(wt)
        oc = out.shape[3]
        if zi or zo or np.any(z_w != 0):
            raise self.error("int16 TRANSPOSE_CONV needs zero points 0 (TFLite Micro's 16x8 "
                             "kernel ignores them)")
        if s_w.size not in (1, oc):
            raise self.error(f"TRANSPOSE_CONV: {s_w.size} weight scales for {oc} channels")
        if bias_t is not None and (bias_t.type not in (4, 7) or bias_t.data is None):
            raise self.error("TRANSPOSE_CONV: the int16 bias must be a constant INT64 or INT16 "
                             "tensor")
        bias = (bias_t.data.astype(np.int64).reshape(-1) if bias_t is not None
                else np.zeros(oc, dtype=np.int64))
        mults, shifts = [], []
        for sc in np.broadcast_to(s_w.astype(np.float64), (oc,)):
            try:
                m, shift = quant.tflite_quantize_multiplier(
                    float(np.float32(si)) * float(sc) / float(np.float32(so)))
            except ValueError as e:
                raise self.error(f"TRANSPOSE_CONV: {e}") from None
            if not -31 <= shift < 8:
                raise self.error(f"TRANSPOSE_CONV: shift {shift} outside TFLite's int64 "
                                 "requantization range")
            mults.append((m + (1 << 15)) >> 16 if m < 0x7FFF0000 else 0x7FFF)
            shifts.append(15 - shift)
        b = self.b
        nc = oc * phases
        acc = self._rd_op("conv2d", [x], conv_shape, "i48", "acc_type = i48, " + attrs,
                          comment + ": all stride phases as channels of one convolution",
                          extra=[(b.const(sub.astype(np.int8), "i8"), tensor_type(sub.shape, "i8")),
                                 (self._rd_list_const(np.tile(bias, phases).tolist(), "i48"),
                                  f"tensor<{nc}xi48>"),
                                 (b.scalar1(0, "i16"), "tensor<1xi16>"),
                                 (b.scalar1(0, "i8"), "tensor<1xi8>")])
        return self._rd_op(
            "rescale", [acc], conv_shape, "i16",
            "input_unsigned = false, output_unsigned = false, per_channel = true, "
            "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = false",
            comment + ": int64 MultiplyByQuantizedMultiplier",
            extra=[(b.const(np.array(mults * phases, dtype=np.int16), "i16"), f"tensor<{nc}xi16>"),
                   (b.const(np.array(shifts * phases, dtype=np.int8), "i8"), f"tensor<{nc}xi8>"),
                   (self._rd_list_const([0], "i48"), "tensor<1xi48>"),
                   (b.scalar1(0, "i16"), "tensor<1xi16>")])

    # ---------------------------------------------------------- BATCH_MATMUL
    def import_batch_matmul(self, op: Operator):
        o = options(self.model, op)
        adj_x, adj_y = o.bool(0), o.bool(1)
        comment = f"BATCH_MATMUL #{op.index}"
        a, c = self.value(op.inputs[0]), self.value(op.inputs[1])
        out = self.tensor(op.outputs[0])
        if a.elem != c.elem or a.elem not in ("f32", "i8", "i16"):
            raise self.error(f"BATCH_MATMUL on {a.elem} x {c.elem} is not supported (float32, "
                             "int8 and int16 are)")
        if not (2 <= len(a.shape) <= 5 and 2 <= len(c.shape) <= 5):
            raise self.error("BATCH_MATMUL takes operands of rank 2 to 5 (TFLite Micro's limit)")
        rank = max(len(a.shape), len(c.shape))
        a = self.reshape(a, [1] * (rank - len(a.shape)) + a.shape)
        c = self.reshape(c, [1] * (rank - len(c.shape)) + c.shape)
        swap = list(range(rank - 2)) + [rank - 1, rank - 2]
        if adj_x:
            a = self._rd_transpose(a, swap, comment + ": adj_x")
        if adj_y:
            c = self._rd_transpose(c, swap, comment + ": adj_y")
        ba, bc = a.shape[:-2], c.shape[:-2]
        for da, dc in zip(ba, bc):
            if da != dc and 1 not in (da, dc):
                raise self.error(f"BATCH_MATMUL batch dimensions {ba} and {bc} do not broadcast")
        batch = [max(da, dc) for da, dc in zip(ba, bc)]
        m, k = a.shape[-2:]
        k2, n = c.shape[-2:]
        if k != k2:
            raise self.error(f"BATCH_MATMUL depths differ: {k} and {k2}")
        nb = int(np.prod(batch, dtype=np.int64))
        if all(d == 1 for d in bc):
            # One right-hand matrix for every batch: the batches are more rows.
            a3 = self.reshape(a, [1, nb * m, k])
            c3 = self.reshape(c, [1, k, n])
        else:
            if ba != batch:
                mult = [bt // d for bt, d in zip(batch, ba)] + [1, 1]
                a = self._rd_op("tile", [a], batch + [m, k], a.elem,
                                comment=comment + ": broadcast",
                                extra=[(self.b.shape(mult), f"!tosa.shape<{rank}>")])
            if bc != batch:
                mult = [bt // d for bt, d in zip(batch, bc)] + [1, 1]
                c = self._rd_op("tile", [c], batch + [k, n], c.elem,
                                comment=comment + ": broadcast",
                                extra=[(self.b.shape(mult), f"!tosa.shape<{rank}>")])
            a3 = self.reshape(a, [nb, m, k])
            c3 = self.reshape(c, [nb, k, n])
        shape3 = [a3.shape[0], a3.shape[1], n]
        if a.elem == "f32":
            zp = self.b.scalar1(0.0, "f32")
            y = self._rd_op("matmul", [a3, c3], shape3, "f32", comment=comment,
                            extra=[(zp, "tensor<1xf32>"), (zp, "tensor<1xf32>")])
        elif a.elem == "i16":
            y = self._rd_matmul_int16(op, a3, c3, shape3, comment)
        else:
            sa, za = self.per_tensor(self.tensor(op.inputs[0]))
            sc, zc = self.per_tensor(self.tensor(op.inputs[1]))
            so, zo = self.per_tensor(out)
            acc = self._rd_op("matmul", [a3, c3], shape3, "i32",
                              comment=comment + ": sum of (a - a_zp) * (b - b_zp)",
                              extra=[(self.b.scalar1(za, "i8"), "tensor<1xi8>"),
                                     (self.b.scalar1(zc, "i8"), "tensor<1xi8>")])
            # GetQuantizedConvolutionMultipler without bias: the scales' product in
            # float32, divided by the output scale in double.
            scale = float(np.float32(sa) * np.float32(sc)) / float(np.float32(so))
            y = self.tflite_requantize(acc, scale, 0, zo, "i8",
                                       comment=comment + ": MultiplyByQuantizedMultiplier")
        return self.reshape(y, out.shape)

    def _rd_matmul_int16(self, op: Operator, a3: Value, c3: Value, shape3, comment: str) -> Value:
        """TFLite Micro's int16 BATCH_MATMUL: zero points 0, an int64 sum, then
        the int64 MultiplyByQuantizedMultiplier: multiplier reduced to 16 bits
        ``m16 = min((m + 2^15) >> 16, 0x7FFF)``, then
        ``(x * m16 + 2^(14 - shift)) >> (15 - shift)`` (one rounding), clamped to int16.
        ``tosa.matmul`` i16 sums in i48 and a 16-bit ``SINGLE_ROUND`` rescale from
        i48 computes exactly that."""
        qs = [self.per_tensor(self.tensor(i)) for i in (op.inputs[0], op.inputs[1], op.outputs[0])]
        zps = [z for _, z in qs]
        if any(zps):
            raise self.error("int16 BATCH_MATMUL needs zero points 0 (TFLite Micro's requirement)")
        sa, sc, so = (s for s, _ in qs)
        scale = float(np.float32(sa) * np.float32(sc)) / float(np.float32(so))
        try:
            m, shift = quant.tflite_quantize_multiplier(scale)
        except ValueError as e:
            raise self.error(f"BATCH_MATMUL: {e}") from None
        if not -31 <= shift < 8:
            raise self.error(f"BATCH_MATMUL: shift {shift} outside TFLite's int64 "
                             "requantization range")
        m16 = (m + (1 << 15)) >> 16 if m < 0x7FFF0000 else 0x7FFF
        b = self.b
        zp16 = b.scalar1(0, "i16")
        acc = self._rd_op("matmul", [a3, c3], shape3, "i48",
                          comment=comment + ": int16 products summed in i48",
                          extra=[(zp16, "tensor<1xi16>"), (zp16, "tensor<1xi16>")])
        return self._rd_op(
            "rescale", [acc], shape3, "i16",
            "input_unsigned = false, output_unsigned = false, per_channel = false, "
            "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = false",
            comment + ": int64 MultiplyByQuantizedMultiplier",
            extra=[(b.const(np.array([m16], dtype=np.int16), "i16", cache=True), "tensor<1xi16>"),
                   (b.const(np.array([15 - shift], dtype=np.int8), "i8", cache=True),
                    "tensor<1xi8>"),
                   (b.const(np.array([0], dtype=np.int64), "i48", cache=True), "tensor<1xi48>"),
                   (b.scalar1(0, "i16"), "tensor<1xi16>")])

    # ------------------------------------------------------- RESIZE_BILINEAR
    def _rd_resize(self, x: Value, out_hw, scale, offset, elem: str, comment: str) -> Value:
        """tosa.resize BILINEAR with scale [n_y, d_y, n_x, d_x] and offset
        [off_y, off_x]; the border makes TOSA's output size the requested one."""
        ny, dy, nx, dx = scale
        offset = list(offset)
        for axis, n_ in ((1, ny), (2, nx)):
            if offset[axis - 1] < 0:
                # Half-pixel centers put the first outputs before row 0, where TFLite
                # reads row 0 alone; MLIR's lowering of a negative position weighs
                # rows 0 and 1. A copy of row 0 in front and the offset one row later
                # give TFLite's values with non-negative positions.
                start = [0, 0, 0, 0]
                edge = list(x.shape)
                edge[axis] = 1
                first = self._rd_op("slice", [x], edge, x.elem, comment=comment + ": edge row",
                                    extra=[(self.b.shape(start), "!tosa.shape<4>"),
                                           (self.b.shape(edge), "!tosa.shape<4>")])
                shape = list(x.shape)
                shape[axis] += 1
                x = self._rd_op("concat", [first, x], shape, x.elem, f"axis = {axis} : i32")
                offset[axis - 1] += n_
        (ih, iw), (oh, ow) = x.shape[1:3], out_hw
        border = [(oh - 1) * dy + offset[0] - (ih - 1) * ny,
                  (ow - 1) * dx + offset[1] - (iw - 1) * nx]
        for n_, d_, off, bd in ((ny, dy, offset[0], border[0]), (nx, dx, offset[1], border[1])):
            if not (0 < n_ <= 2048 and 0 < d_ < 16 * n_ and -n_ <= off < 16 * n_
                    and -16 * n_ <= bd < n_):
                raise self.error(f"RESIZE_BILINEAR from {x.shape[1:3]} to {list(out_hw)} is "
                                 "outside tosa.resize's limits (scale numerator <= 2048, "
                                 "downscale < 16)")
        b = self.b
        return self._rd_op("resize", [x], [x.shape[0], oh, ow, x.shape[3]], elem,
                           "mode = #tosa.resize_mode<BILINEAR>", comment,
                           extra=[(b.shape(scale), "!tosa.shape<4>"),
                                  (b.shape(offset), "!tosa.shape<2>"),
                                  (b.shape(border), "!tosa.shape<2>")])

    def import_resize_bilinear(self, op: Operator):
        o = options(self.model, op)
        align, half = o.bool(2), o.bool(3)
        comment = f"RESIZE_BILINEAR #{op.index}"
        x = self.value(op.inputs[0])
        size_t, out = self.tensor(op.inputs[1]), self.tensor(op.outputs[0])
        if align and half:
            raise self.error("RESIZE_BILINEAR: half_pixel_centers needs align_corners false "
                             "(TFLite Micro refuses both)")
        if size_t.data is None or size_t.type != 2 or size_t.data.size != 2:
            raise self.error("RESIZE_BILINEAR: the size must be a constant INT32 tensor of 2 "
                             "elements (TFLite Micro's requirement)")
        if len(x.shape) != 4:
            raise self.error("RESIZE_BILINEAR expects a 4-D NHWC input")
        oh, ow = (int(v) for v in np.asarray(size_t.data).reshape(-1))
        if [x.shape[0], oh, ow, x.shape[3]] != list(out.shape):
            raise self.error(f"RESIZE_BILINEAR: size {[oh, ow]} does not match output {out.shape}")
        ih, iw = x.shape[1:3]
        if x.elem == "f32":
            # TFLite: y_in = y * in/out (align_corners: (in-1)/(out-1)); half-pixel
            # centers: (y + 0.5) * in/out - 0.5. As TOSA's rational y * d / n + off / n.
            def ratio(i, o_):
                if align and o_ > 1:
                    if i == 1:
                        return o_, 1, 0  # y = oy / o_ < 1: every output reads row 0
                    n_, d_, off = o_ - 1, i - 1, 0
                elif half:
                    n_, d_, off = 2 * o_, 2 * i, i - o_
                else:
                    n_, d_, off = o_, i, 0
                g = math.gcd(math.gcd(n_, d_), abs(off))
                return n_ // g, d_ // g, off // g
            ny, dy, offy = ratio(ih, oh)
            nx, dx, offx = ratio(iw, ow)
            return self._rd_resize(x, (oh, ow), [ny, dy, nx, dx], [offy, offx], "f32", comment)
        if x.elem != "i8":
            raise self.error(f"RESIZE_BILINEAR on {x.elem} is not supported (float32 and int8 are)")

        def scale_10(i, o_):
            # ResizeBilinearInteger's 10-bit fixed-point scale.
            if align and o_ > 1:
                return ((1 << 10) * (i - 1) + (o_ - 1) // 2) // (o_ - 1)
            return ((1 << 10) * i + o_ // 2) // o_
        sy, sx = scale_10(ih, oh), scale_10(iw, ow)
        offy = sy // 2 - (1 << 9) if half else 0
        offx = sx // 2 - (1 << 9) if half else 0
        if sy == 0 or sx == 0:
            raise self.error("RESIZE_BILINEAR: a zero fixed-point scale (one input row or "
                             "column with align_corners) is not supported")
        acc = self._rd_resize(x, (oh, ow), [1024, sy, 1024, sx], [offy, offx], "i32",
                              comment + ": sum of the neighbours weighted in units of 2^-20")
        # (acc +- 2^19) / 2^20 truncated = floor((acc - (acc < 0) + 2^19) / 2^20).
        neg = self.ew("arithmetic_right_shift", [acc, self.iconst([31], [1, 1, 1, 1])], "i32",
                      "round = false")
        acc = self.ew("add", [acc, neg], "i32")
        return self.rescale_raw(acc, [1 << 30], [50], 0, 0, "i8", "SINGLE_ROUND",
                                comment + ": divide by 2^20, half away from zero")

    HANDLERS = {
        "RESIZE_BILINEAR": import_resize_bilinear,
        "BATCH_MATMUL": import_batch_matmul,
        "TRANSPOSE_CONV": import_transpose_conv,
        "MAX_POOL_2D": import_max_pool,
        "MEAN": import_mean,
        "SUM": import_sum,
        "REDUCE_MAX": import_reduce_max,
        "ARG_MAX": import_arg_max,
    }
