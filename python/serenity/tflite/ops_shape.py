"""Importer mixin, data movement: TRANSPOSE, PAD, PADV2, STRIDED_SLICE, SLICE, CONCATENATION, PACK,
UNPACK, SPLIT, SPLIT_V, SQUEEZE, EXPAND_DIMS, SHAPE (folded), GATHER, RESIZE_NEAREST_NEIGHBOR.
(CAST is ops_elementwise.py's.)

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1). These kernels copy stored values without arithmetic (int8 tensors keep their raw values whatever
their quantization; TFLM checks equal quantization only for CONCATENATION), so every integer type
is exact by construction and float32 is copied bit for bit. Index arithmetic (strided slice
bounds, nearest-neighbour source pixels, constant gather indices) is evaluated at import time from
the constant operands, as TFLM evaluates it in Prepare/Eval, and the TOSA ops move data only:

* shape-only ops (SQUEEZE, EXPAND_DIMS, PACK's/UNPACK's inserted or removed axis, shrunk
  STRIDED_SLICE axes) are ``tosa.reshape`` (views);
* contiguous windows (SLICE, SPLIT, SPLIT_V, UNPACK, STRIDED_SLICE's bounding box) are
  ``tosa.slice``; CONCATENATION and PACK ``tosa.concat``; TRANSPOSE ``tosa.transpose``;
  PAD/PADV2 ``tosa.pad``;
* non-unit and negative strides (``tosa.reverse`` first), GATHER and RESIZE_NEAREST_NEIGHBOR are
  ``tosa.gather`` on the ``[N, K, C]`` view of the input with ``[N, W]`` i32 indices (constant,
  or for GATHER a runtime index input tiled over the outer dimensions with ``tosa.tile``).

Types accepted are those TFLM's kernel accepts (its Prepare/Eval type switches); the rest are
refused with the reason.
"""

from typing import List, Sequence

import numpy as np

from .mlir_text import Value
from .schema import Operator, Tensor, options

_NAMES = {"f32": "float32", "i8": "int8", "i16": "int16", "i32": "int32", "i1": "bool"}
_NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "f32": np.float32}
# TFLite TensorType codes.
_INT32, _INT64, _INT16, _INT8 = 2, 4, 7, 9


def _prod(dims) -> int:
    return int(np.prod(dims, dtype=np.int64)) if len(dims) else 1


class ShapeOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    # ------------------------------------------------------------- helpers
    def _types(self, v: Value, allowed: Sequence[str], what: str):
        if v.elem not in allowed:
            raise self.error(f"{what} of type {_NAMES.get(v.elem, v.elem)} is not supported by "
                             f"TFLite Micro's kernel (it takes "
                             f"{', '.join(_NAMES[e] for e in allowed)})")

    def _const_ints(self, idx: int, what: str) -> np.ndarray:
        """A constant INT32/INT64 operand's values (TFLM reads these in Prepare)."""
        if idx < 0:
            raise self.error(f"the {what} operand is missing")
        t = self.tensor(idx)
        if t.data is None:
            raise self.error(f"the {what} operand (tensor {idx} '{t.name}') must be constant")
        if t.type not in (_INT32, _INT64):
            raise self.error(f"the {what} operand has type {t.type_name}; INT32 is expected")
        return np.asarray(t.data).astype(np.int64).reshape(-1)

    def _axis(self, axis: int, rank: int) -> int:
        a = axis + rank if axis < 0 else axis
        if not 0 <= a < rank:
            raise self.error(f"axis {axis} is out of range for rank {rank}")
        return a

    def _op1(self, name: str, x: Value, shape, extra=(), attrs: str = "", comment: str = "",
             elem: str = "") -> Value:
        """A TOSA op on x (plus !tosa.shape / tensor operands given as (name, type))."""
        res = Value("", shape, elem or x.elem)
        res.name = self.b.op(name, [x.name] + [n for n, _ in extra],
                             [x.type] + [t for _, t in extra], res.type, attrs, comment)
        return res

    def _slice(self, x: Value, start, size, comment: str = "") -> Value:
        start, size = [int(s) for s in start], [int(s) for s in size]
        if start == [0] * len(start) and size == x.shape:
            return x
        n = len(size)
        return self._op1("slice", x, size, [(self.b.shape(start), f"!tosa.shape<{n}>"),
                                            (self.b.shape(size), f"!tosa.shape<{n}>")],
                         comment=comment)

    def _concat(self, parts: List[Value], axis: int, comment: str = "") -> Value:
        if len(parts) == 1:
            return parts[0]
        shape = list(parts[0].shape)
        shape[axis] = sum(p.shape[axis] for p in parts)
        res = Value("", shape, parts[0].elem)
        res.name = self.b.op("concat", [p.name for p in parts], [p.type for p in parts], res.type,
                             f"axis = {axis} : i32", comment)
        return res

    def _gather_rows(self, values: Value, indices: Value, comment: str = "") -> Value:
        """tosa.gather: values [N, K, C], i32 indices [N, W] -> [N, W, C]."""
        n, _, c = values.shape
        res = Value("", [n, indices.shape[1], c], values.elem)
        res.name = self.b.op("gather", [values.name, indices.name], [values.type, indices.type],
                             res.type, comment=comment)
        return res

    def _gather_axis(self, x: Value, axis: int, idx: Sequence[int], comment: str = "") -> Value:
        """x with its axis ``axis`` replaced by the elements ``idx`` (constant indices)."""
        s = x.shape
        outer, k, inner = _prod(s[:axis]), s[axis], _prod(s[axis + 1:])
        idx = np.asarray(idx, dtype=np.int64)
        table = np.tile(idx.reshape(1, -1), (outer, 1)).astype(np.int32)
        ind = Value(self.b.const(table, "i32", cache=True), list(table.shape), "i32")
        g = self._gather_rows(self.reshape(x, [outer, k, inner]), ind, comment)
        return self.reshape(g, s[:axis] + [len(idx)] + s[axis + 1:])

    def _check_shape(self, shape, out: Tensor):
        if list(shape) != list(out.shape):
            raise self.error(f"the output tensor has shape {out.shape}; the operator's "
                             f"operands give {list(shape)}")

    def _same_quant(self, a: Tensor, out: Tensor, what: str):
        """TFLM's int8 CONCATENATION check: identical scale and zero point."""
        if a.type != _INT8 or self.float_mode:
            return
        sa, za = self.per_tensor(a)
        so, zo = self.per_tensor(out)
        if (float(np.float32(sa)), za) != (float(np.float32(so)), zo):
            raise self.error(f"{what} (scale {sa}, zero point {za}) is quantized differently from "
                             f"the output (scale {so}, zero point {zo}); TFLite Micro's int8 "
                             "CONCATENATION requires the same parameters (it does not rescale)")

    # ------------------------------------------------------------------ ops
    def import_transpose(self, op: Operator):
        """TFLM transpose.cc: constant perm, rank <= 5, float32/int8/int16, a plain copy."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16"), "TRANSPOSE")
        rank = len(x.shape)
        perm = [int(p) for p in self._const_ints(op.inputs[1], "perm")]
        if sorted(perm) != list(range(rank)):
            raise self.error(f"perm {perm} is not a permutation of the {rank} input dimensions")
        shape = [x.shape[p] for p in perm]
        self._check_shape(shape, self.tensor(op.outputs[0]))
        if perm == list(range(rank)):
            return x
        return self._op1("transpose", x, shape,
                         attrs=f"perms = array<i32: {', '.join(map(str, perm))}>",
                         comment=f"TRANSPOSE #{op.index}")

    def import_pad(self, op: Operator):
        """TFLM pad.cc (PAD and PADV2): constant INT32 paddings ``[rank, 2]``, rank <= 5;
        the pad value is PADV2's scalar constant, else the output zero point for int8
        (``static_cast<uint8_t>(zp)`` stored in an int8: the same bits) and 0 otherwise."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16", "i32"), op.name)
        out = self.tensor(op.outputs[0])
        rank = len(x.shape)
        if rank > 5:
            raise self.error(f"{op.name} of a rank-{rank} tensor: TFLite Micro pads up to rank 5")
        pt = self.tensor(op.inputs[1])
        if pt.type != _INT32:
            raise self.error(f"paddings of type {pt.type_name}: TFLite Micro reads INT32 paddings")
        pads = self._const_ints(op.inputs[1], "paddings")
        if pads.size != 2 * rank:
            raise self.error(f"{pads.size} paddings for a rank-{rank} input")
        if pads.min(initial=0) < 0:
            raise self.error(f"negative paddings {pads.tolist()} are not supported")
        shape = [d + int(pads[2 * i]) + int(pads[2 * i + 1]) for i, d in enumerate(x.shape)]
        self._check_shape(shape, out)
        cidx = op.inputs[2] if len(op.inputs) > 2 else -1
        if cidx >= 0:
            ct = self.tensor(cidx)
            if ct.data is None:
                raise self.error("a runtime PADV2 constant_values input is not supported "
                                 "(it must be a constant)")
            if ct.type != self.tensor(op.inputs[0]).type or np.asarray(ct.data).size != 1:
                raise self.error("constant_values must be a scalar of the input's type")
            if ct.type == _INT8:
                sc, zc = self.per_tensor(ct)
                so, zo = self.per_tensor(out)
                if (float(np.float32(sc)), zc) != (float(np.float32(so)), zo):
                    raise self.error("int8 constant_values must have the output's scale and zero "
                                     "point (TFLite Micro's requirement)")
            if self.float_mode and ct.type == _INT8:
                value = float(self.dequantized(ct).reshape(-1)[0])
            else:
                value = np.asarray(ct.data).reshape(-1)[0]
        elif x.elem == "i8":
            value = self.per_tensor(out)[1]
        else:
            value = 0
        if pads.max(initial=0) == 0:
            return x
        fold = self.foldable_pad(op, x, pads, value)
        if fold:
            # No padded copy: the convolutions reading it pad their input themselves.
            self.pad_folds[op.outputs[0]] = fold
            return x
        comment = f"{op.name} #{op.index}"
        dims, lo, hi = self._pad_groups(x.shape, pads)
        if len(dims) > 3:
            return self._pad_concat(x, pads, value, comment)
        pad_const = self.b.scalar1(value, x.elem)
        flat = [int(p) for pair in zip(lo, hi) for p in pair]
        y = self._op1("pad", self.reshape(x, dims),
                      [d + a + c for d, a, c in zip(dims, lo, hi)],
                      [(self.b.shape(flat), f"!tosa.shape<{len(flat)}>"),
                       (pad_const, f"tensor<1x{x.elem}>")], comment=comment)
        return self.reshape(y, shape)

    def foldable_pad(self, op: Operator, x, pads, value):
        """[top, bottom, left, right] when this PAD can become the padding of the ops reading
        it, else None. TOSA's conv2d / depthwise_conv2d pad with their input zero point (0.0
        for float), so a PAD of the spatial axes of an NHWC tensor with exactly that value,
        read only as the input of CONV_2D / DEPTHWISE_CONV_2D and not returned, adds the same
        terms to every sum as the convolution's own padding: it is folded into it."""
        out_idx = op.outputs[0]
        if (not self.canonicalize or len(x.shape) != 4 or out_idx in self.outputs
                or out_idx in self.sg.outputs):
            return None
        if pads[0] or pads[1] or pads[6] or pads[7]:
            return None
        readers = self.consumers.get(out_idx, [])
        if not readers or any(r.name not in ("CONV_2D", "DEPTHWISE_CONV_2D") or r.inputs[0] != out_idx
                              or out_idx in r.inputs[1:] for r in readers):
            return None
        if x.elem == "f32":
            if float(value) != 0.0:
                return None
        else:
            in_t, out_t = self.tensor(op.inputs[0]), self.tensor(out_idx)
            if in_t.quant is None or out_t.quant is None:
                return None
            si, zi = self.qparams(in_t)
            so, zo = self.qparams(out_t)
            if si.size != 1 or so.size != 1 or float(si[0]) != float(so[0]) or int(zi[0]) != int(zo[0]):
                return None
            if int(value) != int(zo[0]):
                return None
        return [int(p) for p in pads[2:6]]

    @staticmethod
    def _pad_groups(shape, pads):
        """The fewest dimensions the padding can be written on: each padded axis merged with
        the unpadded axes after it (padding rows of ``[H, W*C]`` pads H of ``[H, W, C]``),
        the unpadded leading axes merged into one. The validator's level check limits the
        ``!tosa.shape`` operand of tosa.pad to 6 elements, i.e. rank 3."""
        dims, lo, hi = [], [], []
        lead = 1
        for a, n in enumerate(shape):
            pl, ph = int(pads[2 * a]), int(pads[2 * a + 1])
            if pl or ph:
                dims.append(n)
                lo.append(pl)
                hi.append(ph)
            elif dims:
                dims[-1] *= n
                lo[-1] *= n
                hi[-1] *= n
            else:
                lead *= n
        if lead > 1:
            dims, lo, hi = [lead] + dims, [0] + lo, [0] + hi
        return dims, lo, hi

    def _pad_concat(self, x: Value, pads, value, comment: str) -> Value:
        """Padding of more than 3 merged dimensions: constant fill blocks concatenated."""
        y = x
        for a in range(len(x.shape)):
            pl, ph = int(pads[2 * a]), int(pads[2 * a + 1])
            parts = []
            for n in (pl, None, ph):
                if n is None:
                    parts.append(y)
                elif n:
                    s = list(y.shape)
                    s[a] = n
                    fill = np.full(s, value, dtype=_NP[x.elem])
                    parts.append(Value(self.b.const(fill, x.elem, cache=True), s, x.elem))
            y = self._concat(parts, a, comment if y is x else "")
        return y

    def import_strided_slice(self, op: Operator):
        """TFLM strided_slice.cc + reference_ops::StridedSlice: constant begin/end/strides,
        rank <= 4, begin/end/shrink_axis masks; the start and stop of each axis as
        StridedSliceStartForAxis / StridedSliceEndForAxis (negative indices wrap once, clamp to
        [0, n] for positive strides and [-1, n-1] for negative ones, masks override, a shrunk
        axis takes one element). TFLM's Prepare sets ellipsis_mask and new_axis_mask to 0 and
        never sets ``offset``: models using them are refused (TFLM computes something else
        than TFLite there)."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16", "i32", "i1"), "STRIDED_SLICE")
        o = options(self.model, op)
        begin_mask, end_mask = o.i32(0), o.i32(1)
        ellipsis_mask, new_axis_mask, shrink_mask, offset = o.i32(2), o.i32(3), o.i32(4), o.bool(5)
        if ellipsis_mask or new_axis_mask or offset:
            raise self.error("ellipsis_mask, new_axis_mask and offset are not supported: TFLite "
                             "Micro's kernel ignores them and would slice differently from "
                             "TFLite")
        rank = len(x.shape)
        if rank > 4:
            raise self.error(f"rank {rank}: TFLite Micro's STRIDED_SLICE takes up to rank 4")
        begin = self._const_ints(op.inputs[1], "begin")
        end = self._const_ints(op.inputs[2], "end")
        strides = self._const_ints(op.inputs[3], "strides")
        if not begin.size == end.size == strides.size == rank:
            raise self.error(f"begin/end/strides need {rank} elements each")
        picks, out_shape = [], []
        for a, n in enumerate(x.shape):
            stride = int(strides[a])
            if stride == 0:
                raise self.error("stride 0")
            start = int(begin[a])
            start += n if start < 0 else 0
            start = min(max(start, 0), n) if stride > 0 else min(max(start, -1), n - 1)
            if begin_mask >> a & 1:
                start = 0 if stride > 0 else n - 1
            if shrink_mask >> a & 1:
                stop = start if start >= n else start + 1
            else:
                stop = int(end[a])
                stop += n if stop < 0 else 0
                stop = min(max(stop, 0), n) if stride > 0 else min(max(stop, -1), n - 1)
                if end_mask >> a & 1:
                    stop = n if stride > 0 else -1
            idx = list(range(start, stop, stride))
            if shrink_mask >> a & 1 and len(idx) != 1:
                raise self.error(f"shrunk axis {a} has no element at {int(begin[a])}")
            if not idx:
                raise self.error(f"axis {a} of the slice is empty (zero-size tensors are not "
                                 "supported)")
            picks.append(idx)
            if not shrink_mask >> a & 1:
                out_shape.append(len(idx))
        self._check_shape(out_shape, self.tensor(op.outputs[0]))
        comment = f"STRIDED_SLICE #{op.index}"
        lo = [min(p) for p in picks]
        y = self._slice(x, lo, [max(p) - min(p) + 1 for p in picks], comment)
        for a, p in enumerate(picks):
            rel = [i - lo[a] for i in p]
            if len(rel) > 1 and rel[1] < rel[0]:
                y = self._op1("reverse", y, y.shape, attrs=f"axis = {a} : i32")
                rel = [y.shape[a] - 1 - i for i in rel]
            if rel != list(range(len(rel))):
                y = self._gather_axis(y, a, rel, f"stride {abs(int(strides[a]))} "
                                                 f"along axis {a}")
        return self.reshape(y, out_shape)

    def import_slice(self, op: Operator):
        """TFLM slice.cc: begin and size (INT32/INT64, size -1: to the end), rank <= 5."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16", "i32", "i1"), "SLICE")
        rank = len(x.shape)
        begin = self._const_ints(op.inputs[1], "begin")
        size = self._const_ints(op.inputs[2], "size")
        if not begin.size == size.size == rank:
            raise self.error(f"begin and size need {rank} elements each")
        sizes = []
        for a, n in enumerate(x.shape):
            s = n - int(begin[a]) if size[a] == -1 else int(size[a])
            if begin[a] < 0 or s <= 0 or begin[a] + s > n:
                raise self.error(f"slice [{int(begin[a])}, +{int(size[a])}) of axis {a} "
                                 f"(size {n}) is empty or out of bounds")
            sizes.append(s)
        self._check_shape(sizes, self.tensor(op.outputs[0]))
        return self._slice(x, begin.tolist(), sizes, f"SLICE #{op.index}")

    def import_concatenation(self, op: Operator):
        """TFLM concatenation.cc: no fused activation, inputs of the output's type; int8
        inputs with the output's scale and zero point, int16 with zero point 0 (raw copy)."""
        o = options(self.model, op)
        axis, act = o.i32(0), o.i8(1)
        if act != 0:
            raise self.error("a fused activation on CONCATENATION: TFLite Micro requires NONE")
        out = self.tensor(op.outputs[0])
        parts = [self.value(i) for i in op.inputs]
        self._types(parts[0], ("f32", "i8", "i16", "i32", "i1"), "CONCATENATION")
        for i, p in zip(op.inputs, parts):
            if p.elem != parts[0].elem:
                raise self.error("inputs of different types")
            self._same_quant(self.tensor(i), out, f"input tensor {i}")
            t = self.tensor(i)
            if t.type == _INT16 and t.quant is not None and np.any(t.quant.zero_point != 0):
                raise self.error("int16 inputs need zero point 0 (TFLite Micro's requirement)")
        rank = len(out.shape)
        a = self._axis(axis, rank)
        for p in parts:
            if len(p.shape) != rank or any(p.shape[d] != out.shape[d] for d in range(rank)
                                           if d != a):
                raise self.error(f"input shape {p.shape} does not fit output {out.shape} "
                                 f"along axis {a}")
        y = self._concat(parts, a, f"CONCATENATION #{op.index}")
        self._check_shape(y.shape, out)
        return y

    def import_pack(self, op: Operator):
        """TFLM pack.cc: values_count inputs of one shape stacked along a new axis
        (float32/int8/int16/int32; a raw copy)."""
        o = options(self.model, op)
        count, axis = o.i32(0), o.i32(1)
        parts = [self.value(i) for i in op.inputs]
        if count != len(parts):
            raise self.error(f"values_count {count} differs from the {len(parts)} inputs")
        self._types(parts[0], ("f32", "i8", "i16", "i32"), "PACK")
        shape = parts[0].shape
        if any(p.shape != shape or p.elem != parts[0].elem for p in parts):
            raise self.error("PACK inputs differ in shape or type")
        a = self._axis(axis, len(shape) + 1)
        one = shape[:a] + [1] + shape[a:]
        y = self._concat([self.reshape(p, one) for p in parts], a, f"PACK #{op.index}")
        self._check_shape(y.shape, self.tensor(op.outputs[0]))
        return y

    def import_unpack(self, op: Operator):
        """TFLM unpack.cc: num outputs, each one index of axis (float32/int32/int16/int8)."""
        o = options(self.model, op)
        num, axis = o.i32(0), o.i32(1)
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16", "i32"), "UNPACK")
        a = self._axis(axis, len(x.shape))
        if x.shape[a] != len(op.outputs) or num not in (0, len(op.outputs)):
            raise self.error(f"unpacking {x.shape[a]} slices into {len(op.outputs)} outputs")
        size = list(x.shape)
        size[a] = 1
        rest = x.shape[:a] + x.shape[a + 1:]
        outs = []
        for i in range(x.shape[a]):
            start = [0] * len(x.shape)
            start[a] = i
            outs.append(self.reshape(self._slice(x, start, size, f"UNPACK #{op.index}: {i}"),
                                     rest))
        return outs

    def _split(self, op: Operator, x: Value, axis: int, comment: str):
        self._types(x, ("f32", "i8", "i16", "i32"), op.name)
        a = self._axis(axis, len(x.shape))
        outs_t = [self.tensor(i) for i in op.outputs]
        total = 0
        outs = []
        for t in outs_t:
            if len(t.shape) != len(x.shape):
                raise self.error(f"output shape {t.shape} has another rank than {x.shape}")
            start = [0] * len(x.shape)
            start[a] = total
            size = list(x.shape)
            size[a] = t.shape[a]
            total += t.shape[a]
            outs.append(self._slice(x, start, size, comment))
        if total != x.shape[a]:
            raise self.error(f"the outputs cover {total} of the {x.shape[a]} elements of axis {a}")
        return outs

    def import_split(self, op: Operator):
        """TFLM split.cc: constant axis (input 0), num_splits equal parts of the input."""
        axis = self._const_ints(op.inputs[0], "axis")
        x = self.value(op.inputs[1])
        num = options(self.model, op).i32(0)
        if num != len(op.outputs):
            raise self.error(f"num_splits {num} differs from the {len(op.outputs)} outputs")
        a = self._axis(int(axis[0]), len(x.shape))
        if x.shape[a] % num:
            raise self.error(f"axis {a} of size {x.shape[a]} does not split into {num} parts")
        for i in op.outputs:
            if self.tensor(i).shape[a] != x.shape[a] // num:
                raise self.error("SPLIT outputs of unequal sizes")
        return self._split(op, x, a, f"SPLIT #{op.index}")

    def import_split_v(self, op: Operator):
        """TFLM split_v.cc: constant axis (input 2); TFLM takes each part's size from its output
        tensor's shape (size_splits is not read), so does this."""
        x = self.value(op.inputs[0])
        axis = self._const_ints(op.inputs[2], "axis")
        a = self._axis(int(axis[0]), len(x.shape))
        sizes_t = self.tensor(op.inputs[1])
        if sizes_t.data is not None:
            sizes = np.asarray(sizes_t.data).reshape(-1)
            want = [self.tensor(i).shape[a] for i in op.outputs]
            if len(sizes) != len(want) or any(s not in (-1, w) for s, w in zip(sizes, want)):
                raise self.error(f"size_splits {sizes.tolist()} disagree with the output "
                                 f"shapes {want}")
        return self._split(op, x, a, f"SPLIT_V #{op.index}")

    def import_squeeze(self, op: Operator):
        """TFLM squeeze.cc: the listed size-1 dimensions (all size-1 ones if none are listed)
        removed; a byte copy, here a reshape."""
        x = self.value(op.inputs[0])
        dims = [int(d) for d in options(self.model, op).i32_vector(0)]
        rank = len(x.shape)
        if dims:
            drop = {self._axis(d, rank) for d in dims}
            if any(x.shape[d] != 1 for d in drop):
                raise self.error(f"squeeze_dims {dims} name a dimension of {x.shape} that is not 1")
        else:
            drop = {d for d in range(rank) if x.shape[d] == 1}
        shape = [n for d, n in enumerate(x.shape) if d not in drop]
        self._check_shape(shape, self.tensor(op.outputs[0]))
        return self.reshape(x, shape)

    def import_expand_dims(self, op: Operator):
        """TFLM expand_dims.cc: INT32 axis (negative counts from rank + 1), float32/int8/int16."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16"), "EXPAND_DIMS")
        if self.tensor(op.inputs[1]).type != _INT32:
            raise self.error("TFLite Micro reads an INT32 axis")
        axis = self._const_ints(op.inputs[1], "axis")
        if axis.size != 1:
            raise self.error("the axis operand must hold one value")
        a = self._axis(int(axis[0]), len(x.shape) + 1)
        shape = x.shape[:a] + [1] + x.shape[a:]
        self._check_shape(shape, self.tensor(op.outputs[0]))
        return self.reshape(x, shape)

    def import_shape(self, op: Operator):
        """TFLM shape.cc: the input's dimensions as an INT32 vector (INT32 output only),
        folded into a constant: shapes are static here."""
        out = self.tensor(op.outputs[0])
        if out.type != _INT32:
            raise self.error(f"output type {out.type_name}: TFLite Micro's SHAPE writes INT32 only")
        dims = list(self.tensor(op.inputs[0]).shape)
        self._check_shape([len(dims)], out)
        return Value(self.b.const(np.array(dims, dtype=np.int32), "i32"), [len(dims)], "i32")

    def import_gather(self, op: Operator):
        """TFLM gather.cc: float32/int8 values, INT32 positions, axis and batch_dims (negative
        ones count from the rank of the input and of the positions). Output element
        ``(batch, outer, coord, inner)`` is input ``(batch, outer, positions[batch, coord],
        inner)``: one tosa.gather on the ``[batch*outer, axis, inner]`` view."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8"), "GATHER")
        pt = self.tensor(op.inputs[1])
        if pt.type != _INT32:
            raise self.error(f"positions of type {pt.type_name}: TFLite Micro takes INT32 only")
        o = options(self.model, op)
        rank, prank = len(x.shape), len(pt.shape)
        axis = self._axis(o.i32(0), rank)
        bd = o.i32(1)
        bd = bd + prank if bd < 0 else bd
        if not (0 <= bd <= axis and bd < rank and bd <= prank):
            raise self.error(f"batch_dims {o.i32(1)} is invalid for axis {axis}, input rank "
                             f"{rank} and positions rank {prank}")
        if x.shape[:bd] != list(pt.shape[:bd]):
            raise self.error("the batch dimensions of input and positions differ")
        nb, no = _prod(x.shape[:bd]), _prod(x.shape[bd:axis])
        k, inner = x.shape[axis], _prod(x.shape[axis + 1:])
        w = _prod(pt.shape[bd:])
        shape = x.shape[:axis] + list(pt.shape[bd:]) + x.shape[axis + 1:]
        self._check_shape(shape, self.tensor(op.outputs[0]))
        comment = f"GATHER #{op.index}"
        if pt.data is not None:
            pos = np.asarray(pt.data).astype(np.int64).reshape(nb, w)
            if pos.size and (pos.min() < 0 or pos.max() >= k):
                raise self.error(f"a constant position lies outside [0, {k})")
            table = np.repeat(pos[:, None, :], no, axis=1).reshape(nb * no, w).astype(np.int32)
            ind = Value(self.b.const(table, "i32", cache=True), [nb * no, w], "i32")
        else:
            p = self.value(op.inputs[1])
            p3 = self.reshape(p, [nb, 1, w])
            if no > 1:
                p3 = self._op1("tile", p3, [nb, no, w],
                               [(self.b.shape([1, no, 1]), "!tosa.shape<3>")],
                               comment=comment + ": positions for every outer index")
            ind = self.reshape(p3, [nb * no, w])
        g = self._gather_rows(self.reshape(x, [nb * no, k, inner]), ind, comment)
        return self.reshape(g, shape)

    def import_resize_nearest_neighbor(self, op: Operator):
        """TFLM resize_nearest_neighbor.cc / reference_ops::GetNearestNeighbor: constant INT32
        size, 4-D float32/int8/int16 input. The source row/column of each output one is
        evaluated here with TFLM's float32 arithmetic: ``scale = (in - 1) / float(out - 1)``
        (align_corners, out > 1) else ``in / float(out)``; ``(i + offset) * scale`` in float32
        (offset 0.5 with half_pixel_centers), std::round (align_corners) or floor, at most
        ``in - 1``, at least 0 with half_pixel_centers. One tosa.gather of the
        ``[B, H*W, C]`` view with the constant ``[B, OH*OW]`` source indices."""
        x = self.value(op.inputs[0])
        self._types(x, ("f32", "i8", "i16"), "RESIZE_NEAREST_NEIGHBOR")
        if len(x.shape) != 4:
            raise self.error("TFLite Micro's RESIZE_NEAREST_NEIGHBOR takes a 4-D input")
        st = self.tensor(op.inputs[1])
        if st.type != _INT32:
            raise self.error("the size operand must be INT32")
        size = self._const_ints(op.inputs[1], "size")
        if size.size != 2:
            raise self.error("the size operand must hold 2 values")
        o = options(self.model, op)
        align, half = o.bool(0), o.bool(1)
        b, h, w, c = x.shape
        oh, ow = int(size[0]), int(size[1])
        self._check_shape([b, oh, ow, c], self.tensor(op.outputs[0]))
        iy = self._nearest(h, oh, align, half)
        ix = self._nearest(w, ow, align, half)
        src = (iy[:, None] * w + ix[None, :]).reshape(1, -1)
        table = np.tile(src, (b, 1)).astype(np.int32)
        ind = Value(self.b.const(table, "i32", cache=True), list(table.shape), "i32")
        g = self._gather_rows(self.reshape(x, [b, h * w, c]), ind,
                              f"RESIZE_NEAREST_NEIGHBOR #{op.index}")
        return self.reshape(g, [b, oh, ow, c])

    @staticmethod
    def _nearest(in_size: int, out_size: int, align: bool, half: bool) -> np.ndarray:
        """reference_ops::GetNearestNeighbor for every output index, float32 arithmetic."""
        f = np.float32
        if align and out_size > 1:
            scale = f(in_size - 1) / f(out_size - 1)
        else:
            scale = f(in_size) / f(out_size)
        offset = f(0.5) if half else f(0.0)
        res = np.empty(out_size, dtype=np.int64)
        for i in range(out_size):
            v = float((f(i) + offset) * f(scale))  # exact in double
            # std::round: half away from zero (exact in double for these magnitudes).
            r = int(np.copysign(np.floor(abs(v) + 0.5), v)) if align else int(np.floor(v))
            r = min(r, in_size - 1)
            res[i] = max(r, 0) if half else r
        return res

    HANDLERS = {
        "TRANSPOSE": import_transpose,
        "PAD": import_pad,
        "PADV2": import_pad,
        "STRIDED_SLICE": import_strided_slice,
        "SLICE": import_slice,
        "CONCATENATION": import_concatenation,
        "PACK": import_pack,
        "UNPACK": import_unpack,
        "SPLIT": import_split,
        "SPLIT_V": import_split_v,
        "SQUEEZE": import_squeeze,
        "EXPAND_DIMS": import_expand_dims,
        "SHAPE": import_shape,
        "GATHER": import_gather,
        "RESIZE_NEAREST_NEIGHBOR": import_resize_nearest_neighbor,
    }
