//===- ShapeOps.cpp - Data movement operators -----------------------------===//
//
// python/serenity/tflite/ops_shape.py: TRANSPOSE, PAD, PADV2, STRIDED_SLICE,
// SLICE, CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V, SQUEEZE, EXPAND_DIMS,
// SHAPE (folded), GATHER, RESIZE_NEAREST_NEIGHBOR. (CAST is
// ElementwiseOps.cpp's.)
//
// TFLite Micro's semantics (its reference kernels at tflite-micro
// @90b983c2b3f1). These kernels copy stored values without arithmetic (int8
// tensors keep their raw values whatever their quantization; TFLM checks equal
// quantization only for CONCATENATION), so every integer type is exact by
// construction and float32 is copied bit for bit. Index arithmetic (strided
// slice bounds, nearest-neighbour source pixels, constant gather indices) is
// evaluated at import time from the constant operands, as TFLM evaluates it in
// Prepare/Eval, and the TOSA ops move data only:
//
// * shape-only ops (SQUEEZE, EXPAND_DIMS, PACK's/UNPACK's inserted or removed
//   axis, shrunk STRIDED_SLICE axes) are tosa.reshape (views);
// * contiguous windows (SLICE, SPLIT, SPLIT_V, UNPACK, STRIDED_SLICE's
//   bounding box) are tosa.slice; CONCATENATION and PACK tosa.concat;
//   TRANSPOSE tosa.transpose; PAD/PADV2 tosa.pad;
// * non-unit and negative strides (tosa.reverse first), GATHER and
//   RESIZE_NEAREST_NEIGHBOR are tosa.gather on the [N, K, C] view of the input
//   with [N, W] i32 indices (constant, or for GATHER a runtime index input
//   tiled over the outer dimensions with tosa.tile).
//
// Types accepted are those TFLM's kernel accepts (its Prepare/Eval type
// switches); the rest are refused with the reason.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Helpers.h"
#include "Importer.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir::serenity::tflite;

namespace {

using Shape = llvm::SmallVector<int64_t>;

int64_t prod(llvm::ArrayRef<int64_t> dims) { return product(dims); }

Shape concatDims(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                 llvm::ArrayRef<int64_t> c = {}) {
  Shape s(a.begin(), a.end());
  s.append(b.begin(), b.end());
  s.append(c.begin(), c.end());
  return s;
}

/// op.inputs[i], or -1 when the operator has fewer inputs.
int inputAt(const Operator &op, size_t i) { return i < op.inputs.size() ? op.inputs[i] : -1; }

/// Python's `self.tensor(idx)`: a negative index counts from the end.
const Tensor &pyTensor(Importer &imp, int idx) {
  int n = imp.sg.tensors.size();
  if (idx < 0 && idx + n >= 0)
    idx += n;
  return imp.tensor(idx);
}

//===----------------------------------------------------------------------===//
// Helpers (ShapeOps' private methods)
//===----------------------------------------------------------------------===//

LogicalResult checkTypes(Importer &imp, Value v, llvm::ArrayRef<Type> allowed,
                         const std::string &what) {
  Type elem = Importer::elemOf(v);
  if (llvm::is_contained(allowed, elem))
    return mlir::success();
  std::string names;
  for (size_t i = 0; i < allowed.size(); ++i)
    names += (i ? ", " : "") + typeName(imp, allowed[i]);
  return imp.fail(what + " of type " + typeName(imp, elem) +
                  " is not supported by TFLite Micro's kernel (it takes " + names + ")");
}

/// Input 0 of `op`, refused (checkTypes) unless of one of the `allowed` types.
FailureOr<Value> typedInput(Importer &imp, const Operator &op, llvm::ArrayRef<Type> allowed,
                            const std::string &what) {
  auto xr = imp.value(op.inputs[0]);
  if (failed(xr))
    return mlir::failure();
  if (failed(checkTypes(imp, *xr, allowed, what)))
    return mlir::failure();
  return *xr;
}

/// A constant INT32/INT64 operand's values (TFLM reads these in Prepare).
FailureOr<std::vector<int64_t>> constInts(Importer &imp, int idx, const std::string &what) {
  if (idx < 0)
    return imp.fail("the " + what + " operand is missing");
  const Tensor &t = imp.tensor(idx);
  if (!t.hasData())
    return imp.fail("the " + what + " operand (tensor " + std::to_string(idx) + " '" + t.name +
                    "') must be constant");
  if (t.type != kInt32 && t.type != kInt64)
    return imp.fail("the " + what + " operand has type " + t.typeName() +
                    "; INT32 is expected");
  return t.data<int64_t>().data;
}

FailureOr<int64_t> normAxis(Importer &imp, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (!(0 <= a && a < rank))
    return imp.fail("axis " + std::to_string(axis) + " is out of range for rank " +
                    std::to_string(rank));
  return a;
}

LogicalResult checkShape(Importer &imp, llvm::ArrayRef<int64_t> shape, const Tensor &out) {
  if (llvm::ArrayRef<int64_t>(out.shape) != shape)
    return imp.fail("the output tensor has shape " + listRepr(out.shape) +
                    "; the operator's operands give " + listRepr(shape));
  return mlir::success();
}

/// TFLM's int8 CONCATENATION check: identical scale and zero point.
LogicalResult sameQuant(Importer &imp, const Tensor &a, const Tensor &out,
                        const std::string &what) {
  if (a.type != kInt8 || imp.floatMode)
    return mlir::success();
  auto pa = imp.perTensor(a);
  if (failed(pa))
    return mlir::failure();
  auto po = imp.perTensor(out);
  if (failed(po))
    return mlir::failure();
  auto [sa, za] = *pa;
  auto [so, zo] = *po;
  if (double(float(sa)) != double(float(so)) || za != zo)
    return imp.fail(what + " (scale " + pyRepr(sa) + ", zero point " + std::to_string(za) +
                    ") is quantized differently from the output (scale " + pyRepr(so) +
                    ", zero point " + std::to_string(zo) +
                    "); TFLite Micro's int8 CONCATENATION requires the same parameters (it "
                    "does not rescale)");
  return mlir::success();
}

/// x with its axis `axis` replaced by the elements `idx` (constant indices).
Value gatherAxis(Importer &imp, Value x, int64_t axis, llvm::ArrayRef<int64_t> idx) {
  Shape s = Importer::shapeOf(x);
  llvm::ArrayRef<int64_t> sr(s);
  int64_t outer = prod(sr.take_front(axis)), k = s[axis], inner = prod(sr.drop_front(axis + 1));
  int64_t w = idx.size();
  std::vector<int64_t> table;
  table.reserve(outer * w);
  for (int64_t o = 0; o < outer; ++o)
    table.insert(table.end(), idx.begin(), idx.end());
  Value ind = imp.constant(NdArray<int64_t>({outer, w}, std::move(table)), imp.i32, true);
  Value g = imp.gatherRows(imp.reshape(x, {outer, k, inner}), ind);
  return imp.reshape(g, concatDims(sr.take_front(axis), {w}, sr.drop_front(axis + 1)));
}

/// [top, bottom, left, right] when this PAD can become the padding of the ops
/// reading it, else nullopt. TOSA's conv2d / depthwise_conv2d pad with their
/// input zero point (0.0 for float), so a PAD of the spatial axes of an NHWC
/// tensor with exactly that value, read only as the input of CONV_2D /
/// DEPTHWISE_CONV_2D and not returned, adds the same terms to every sum as the
/// convolution's own padding: it is folded into it.
FailureOr<std::optional<Pads>> foldablePad(Importer &imp, const Operator &op, Value x,
                                           llvm::ArrayRef<int64_t> pads, double value) {
  int outIdx = op.outputs[0];
  if (!imp.canonicalize || Importer::rankOf(x) != 4 ||
      llvm::is_contained(imp.outputs, outIdx) || llvm::is_contained(imp.sg.outputs, outIdx))
    return std::optional<Pads>();
  if (pads[0] || pads[1] || pads[6] || pads[7])
    return std::optional<Pads>();
  auto it = imp.consumers.find(outIdx);
  if (it == imp.consumers.end() || it->second.empty())
    return std::optional<Pads>();
  for (const Operator *r : it->second) {
    std::string name = r->name();
    if ((name != "CONV_2D" && name != "DEPTHWISE_CONV_2D") || r->inputs.empty() ||
        r->inputs[0] != outIdx ||
        std::find(r->inputs.begin() + 1, r->inputs.end(), outIdx) != r->inputs.end())
      return std::optional<Pads>();
  }
  if (Importer::elemOf(x) == imp.f32) {
    if (value != 0.0)
      return std::optional<Pads>();
  } else {
    const Tensor &inT = imp.tensor(op.inputs[0]);
    const Tensor &outT = imp.tensor(outIdx);
    if (!inT.quant || !outT.quant)
      return std::optional<Pads>();
    auto qi = imp.qparams(inT);
    if (failed(qi))
      return mlir::failure();
    auto qo = imp.qparams(outT);
    if (failed(qo))
      return mlir::failure();
    auto &[si, zi] = *qi;
    auto &[so, zo] = *qo;
    if (si.size() != 1 || so.size() != 1 || si[0] != so[0] || zi[0] != zo[0])
      return std::optional<Pads>();
    if (static_cast<int64_t>(value) != zo[0])
      return std::optional<Pads>();
  }
  return std::optional<Pads>(Pads{pads[2], pads[3], pads[4], pads[5]});
}

/// The fewest dimensions the padding can be written on: each padded axis
/// merged with the unpadded axes after it (padding rows of [H, W*C] pads H of
/// [H, W, C]), the unpadded leading axes merged into one. The validator's
/// level check limits the !tosa.shape operand of tosa.pad to 6 elements, i.e.
/// rank 3.
void padGroups(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> pads, Shape &dims,
               Shape &lo, Shape &hi) {
  int64_t lead = 1;
  for (size_t a = 0; a < shape.size(); ++a) {
    int64_t n = shape[a], pl = pads[2 * a], ph = pads[2 * a + 1];
    if (pl || ph) {
      dims.push_back(n);
      lo.push_back(pl);
      hi.push_back(ph);
    } else if (!dims.empty()) {
      dims.back() *= n;
      lo.back() *= n;
      hi.back() *= n;
    } else {
      lead *= n;
    }
  }
  if (lead > 1) {
    dims.insert(dims.begin(), lead);
    lo.insert(lo.begin(), 0);
    hi.insert(hi.begin(), 0);
  }
}

/// Padding of more than 3 merged dimensions: constant fill blocks
/// concatenated.
Value padConcat(Importer &imp, Value x, llvm::ArrayRef<int64_t> pads, double value) {
  Value y = x;
  Type elem = Importer::elemOf(x);
  int64_t rank = Importer::rankOf(x);
  for (int64_t a = 0; a < rank; ++a) {
    int64_t pl = pads[2 * a], ph = pads[2 * a + 1];
    llvm::SmallVector<Value> parts;
    for (int which = 0; which < 3; ++which) {
      if (which == 1) {
        parts.push_back(y);
        continue;
      }
      int64_t n = which == 0 ? pl : ph;
      if (!n)
        continue;
      Shape s = Importer::shapeOf(y);
      s[a] = n;
      // np.full(s, value, dtype) then const: the value converted to the element type.
      parts.push_back(
          imp.constant(NdArray<double>::full(std::vector<int64_t>(s.begin(), s.end()), value),
                       elem, true));
    }
    y = imp.concatOp(parts, a);
  }
  return y;
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

/// TFLM transpose.cc: constant perm, rank <= 5, float32/int8/int16, a plain
/// copy.
FailureOr<OpResults> importTranspose(Importer &imp, const Operator &op) {
  auto xr = typedInput(imp, op, {imp.f32, imp.i8, imp.i16}, "TRANSPOSE");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  auto permr = constInts(imp, inputAt(op, 1), "perm");
  if (failed(permr))
    return mlir::failure();
  std::vector<int64_t> perm = *permr;
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool identity = true, isPerm = sorted.size() == static_cast<size_t>(rank);
  for (int64_t i = 0; isPerm && i < rank; ++i)
    isPerm = sorted[i] == i;
  if (!isPerm)
    return imp.fail("perm " + listRepr(perm) + " is not a permutation of the " +
                    std::to_string(rank) + " input dimensions");
  Shape shape;
  llvm::SmallVector<int32_t> perm32;
  for (int64_t i = 0; i < rank; ++i) {
    shape.push_back(xs[perm[i]]);
    perm32.push_back(perm[i]);
    identity &= perm[i] == i;
  }
  if (failed(checkShape(imp, shape, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  if (identity)
    return OpResults{x};
  return OpResults{imp.op("transpose", {x}, shape, Importer::elemOf(x),
                          {imp.attr("perms", imp.b.getDenseI32ArrayAttr(perm32))})};
}

/// TFLM pad.cc (PAD and PADV2): constant INT32 paddings [rank, 2], rank <= 5;
/// the pad value is PADV2's scalar constant, else the output zero point for
/// int8 (static_cast<uint8_t>(zp) stored in an int8: the same bits) and 0
/// otherwise.
FailureOr<OpResults> importPad(Importer &imp, const Operator &op) {
  std::string name = op.name();
  auto xr = typedInput(imp, op, {imp.f32, imp.i8, imp.i16, imp.i32}, name);
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  const Tensor &out = imp.tensor(op.outputs[0]);
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  if (rank > 5)
    return imp.fail(name + " of a rank-" + std::to_string(rank) +
                    " tensor: TFLite Micro pads up to rank 5");
  const Tensor &pt = pyTensor(imp, inputAt(op, 1));
  if (pt.type != kInt32)
    return imp.fail("paddings of type " + pt.typeName() +
                    ": TFLite Micro reads INT32 paddings");
  auto padsr = constInts(imp, inputAt(op, 1), "paddings");
  if (failed(padsr))
    return mlir::failure();
  std::vector<int64_t> pads = *padsr;
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return imp.fail(std::to_string(pads.size()) + " paddings for a rank-" +
                    std::to_string(rank) + " input");
  int64_t minPad = 0, maxPad = 0;
  for (int64_t p : pads) {
    minPad = std::min(minPad, p);
    maxPad = std::max(maxPad, p);
  }
  if (minPad < 0)
    return imp.fail("negative paddings " + listRepr(pads) + " are not supported");
  Shape shape;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(xs[i] + pads[2 * i] + pads[2 * i + 1]);
  if (failed(checkShape(imp, shape, out)))
    return mlir::failure();
  int cidx = op.inputs.size() > 2 ? op.inputs[2] : -1;
  double value;
  if (cidx >= 0) {
    const Tensor &ct = imp.tensor(cidx);
    if (!ct.hasData())
      return imp.fail("a runtime PADV2 constant_values input is not supported (it must be a "
                      "constant)");
    if (ct.type != imp.tensor(op.inputs[0]).type || ct.numElements() != 1)
      return imp.fail("constant_values must be a scalar of the input's type");
    if (ct.type == kInt8) {
      auto pc = imp.perTensor(ct);
      if (failed(pc))
        return mlir::failure();
      auto po = imp.perTensor(out);
      if (failed(po))
        return mlir::failure();
      if (double(float(pc->first)) != double(float(po->first)) || pc->second != po->second)
        return imp.fail("int8 constant_values must have the output's scale and zero point "
                        "(TFLite Micro's requirement)");
    }
    if (imp.floatMode && ct.type == kInt8) {
      auto d = imp.dequantized(ct);
      if (failed(d))
        return mlir::failure();
      value = (*d)[0];
    } else {
      value = ct.data<double>()[0];
    }
  } else if (Importer::elemOf(x) == imp.i8) {
    auto po = imp.perTensor(out);
    if (failed(po))
      return mlir::failure();
    value = static_cast<double>(po->second);
  } else {
    value = 0;
  }
  if (maxPad == 0)
    return OpResults{x};
  auto fold = foldablePad(imp, op, x, pads, value);
  if (failed(fold))
    return mlir::failure();
  if (*fold) {
    // No padded copy: the convolutions reading it pad their input themselves.
    imp.padFolds[op.outputs[0]] = **fold;
    return OpResults{x};
  }
  Shape dims, lo, hi;
  padGroups(xs, pads, dims, lo, hi);
  if (dims.size() > 3)
    return OpResults{padConcat(imp, x, pads, value)};
  Type elem = Importer::elemOf(x);
  Value padConst = imp.scalar1(value, elem);
  llvm::SmallVector<int64_t> flat, padded;
  for (size_t i = 0; i < dims.size(); ++i) {
    flat.push_back(lo[i]);
    flat.push_back(hi[i]);
    padded.push_back(dims[i] + lo[i] + hi[i]);
  }
  Value xr2 = imp.reshape(x, dims);
  Value flatC = imp.shapeConst(flat);
  Value y = imp.op("pad", {xr2, flatC, padConst}, padded, elem);
  return OpResults{imp.reshape(y, shape)};
}

/// Input 0 of STRIDED_SLICE or SLICE (`name`): float32/int8/int16/int32/bool.
FailureOr<Value> sliceInput(Importer &imp, const Operator &op, const std::string &name) {
  return typedInput(imp, op, {imp.f32, imp.i8, imp.i16, imp.i32, imp.i1}, name);
}

/// The constant integer operands at inputs 1, 2, ... of `op`, named `names`
/// in that order (constInts); fails at the first that is not.
FailureOr<std::vector<std::vector<int64_t>>>
constOperands(Importer &imp, const Operator &op, llvm::ArrayRef<const char *> names) {
  std::vector<std::vector<int64_t>> values;
  for (size_t i = 0; i < names.size(); ++i) {
    auto v = constInts(imp, inputAt(op, i + 1), names[i]);
    if (failed(v))
      return mlir::failure();
    values.push_back(std::move(*v));
  }
  return values;
}

/// TFLM strided_slice.cc + reference_ops::StridedSlice: constant
/// begin/end/strides, rank <= 4, begin/end/shrink_axis masks; the start and
/// stop of each axis as StridedSliceStartForAxis / StridedSliceEndForAxis
/// (negative indices wrap once, clamp to [0, n] for positive strides and
/// [-1, n-1] for negative ones, masks override, a shrunk axis takes one
/// element). TFLM's Prepare sets ellipsis_mask and new_axis_mask to 0 and
/// never sets `offset`: models using them are refused (TFLM computes something
/// else than TFLite there).
FailureOr<OpResults> importStridedSlice(Importer &imp, const Operator &op) {
  auto xr = sliceInput(imp, op, "STRIDED_SLICE");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  OptionReader o = op.options();
  int64_t beginMask = o.i32(0), endMask = o.i32(1);
  int64_t ellipsisMask = o.i32(2), newAxisMask = o.i32(3), shrinkMask = o.i32(4);
  bool offset = o.boolean(5);
  if (ellipsisMask || newAxisMask || offset)
    return imp.fail("ellipsis_mask, new_axis_mask and offset are not supported: TFLite Micro's "
                    "kernel ignores them and would slice differently from TFLite");
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  if (rank > 4)
    return imp.fail("rank " + std::to_string(rank) +
                    ": TFLite Micro's STRIDED_SLICE takes up to rank 4");
  auto operands = constOperands(imp, op, {"begin", "end", "strides"});
  if (failed(operands))
    return mlir::failure();
  const std::vector<int64_t> &begin = (*operands)[0], &end = (*operands)[1],
                             &strides = (*operands)[2];
  if (!(static_cast<int64_t>(begin.size()) == rank && end.size() == begin.size() &&
        strides.size() == begin.size()))
    return imp.fail("begin/end/strides need " + std::to_string(rank) + " elements each");
  std::vector<std::vector<int64_t>> picks;
  Shape outShape;
  for (int64_t a = 0; a < rank; ++a) {
    int64_t n = xs[a];
    int64_t stride = strides[a];
    if (stride == 0)
      return imp.fail("stride 0");
    int64_t start = begin[a];
    start += start < 0 ? n : 0;
    start = stride > 0 ? std::min(std::max(start, int64_t(0)), n)
                       : std::min(std::max(start, int64_t(-1)), n - 1);
    if (beginMask >> a & 1)
      start = stride > 0 ? 0 : n - 1;
    int64_t stop;
    bool shrink = shrinkMask >> a & 1;
    if (shrink) {
      stop = start >= n ? start : start + 1;
    } else {
      stop = end[a];
      stop += stop < 0 ? n : 0;
      stop = stride > 0 ? std::min(std::max(stop, int64_t(0)), n)
                        : std::min(std::max(stop, int64_t(-1)), n - 1);
      if (endMask >> a & 1)
        stop = stride > 0 ? n : -1;
    }
    std::vector<int64_t> idx;
    if (stride > 0)
      for (int64_t i = start; i < stop; i += stride)
        idx.push_back(i);
    else
      for (int64_t i = start; i > stop; i += stride)
        idx.push_back(i);
    if (shrink && idx.size() != 1)
      return imp.fail("shrunk axis " + std::to_string(a) + " has no element at " +
                      std::to_string(begin[a]));
    if (idx.empty())
      return imp.fail("axis " + std::to_string(a) +
                      " of the slice is empty (zero-size tensors are not supported)");
    if (!shrink)
      outShape.push_back(idx.size());
    picks.push_back(std::move(idx));
  }
  if (failed(checkShape(imp, outShape, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  Shape lo, size;
  for (const auto &p : picks) {
    int64_t mn = *std::min_element(p.begin(), p.end());
    int64_t mx = *std::max_element(p.begin(), p.end());
    lo.push_back(mn);
    size.push_back(mx - mn + 1);
  }
  Value y = imp.sliceOp(x, lo, size);
  for (int64_t a = 0; a < rank; ++a) {
    std::vector<int64_t> rel;
    for (int64_t i : picks[a])
      rel.push_back(i - lo[a]);
    if (rel.size() > 1 && rel[1] < rel[0]) {
      y = imp.op("reverse", {y}, Importer::shapeOf(y), Importer::elemOf(y),
                 {imp.i32Attr("axis", a)});
      int64_t n = Importer::shapeOf(y)[a];
      for (int64_t &i : rel)
        i = n - 1 - i;
    }
    bool iota = true;
    for (size_t i = 0; i < rel.size(); ++i)
      iota &= rel[i] == static_cast<int64_t>(i);
    if (!iota)
      y = gatherAxis(imp, y, a, rel);
  }
  return OpResults{imp.reshape(y, outShape)};
}

/// TFLM slice.cc: begin and size (INT32/INT64, size -1: to the end), rank <=
/// 5.
FailureOr<OpResults> importSlice(Importer &imp, const Operator &op) {
  auto xr = sliceInput(imp, op, "SLICE");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  auto operands = constOperands(imp, op, {"begin", "size"});
  if (failed(operands))
    return mlir::failure();
  const std::vector<int64_t> &begin = (*operands)[0], &size = (*operands)[1];
  if (!(static_cast<int64_t>(begin.size()) == rank && size.size() == begin.size()))
    return imp.fail("begin and size need " + std::to_string(rank) + " elements each");
  Shape sizes;
  for (int64_t a = 0; a < rank; ++a) {
    int64_t n = xs[a];
    int64_t s = size[a] == -1 ? n - begin[a] : size[a];
    if (begin[a] < 0 || s <= 0 || begin[a] + s > n)
      return imp.fail("slice [" + std::to_string(begin[a]) + ", +" + std::to_string(size[a]) +
                      ") of axis " + std::to_string(a) + " (size " + std::to_string(n) +
                      ") is empty or out of bounds");
    sizes.push_back(s);
  }
  if (failed(checkShape(imp, sizes, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  return OpResults{imp.sliceOp(x, begin, sizes)};
}

/// TFLM concatenation.cc: no fused activation, inputs of the output's type;
/// int8 inputs with the output's scale and zero point, int16 with zero point 0
/// (raw copy).
FailureOr<OpResults> importConcatenation(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int64_t axis = o.i32(0), act = o.i8(1);
  if (act != 0)
    return imp.fail("a fused activation on CONCATENATION: TFLite Micro requires NONE");
  const Tensor &out = imp.tensor(op.outputs[0]);
  llvm::SmallVector<Value> parts;
  for (int i : op.inputs) {
    auto v = imp.value(i);
    if (failed(v))
      return mlir::failure();
    parts.push_back(*v);
  }
  if (failed(checkTypes(imp, parts[0], {imp.f32, imp.i8, imp.i16, imp.i32, imp.i1},
                        "CONCATENATION")))
    return mlir::failure();
  for (size_t j = 0; j < parts.size(); ++j) {
    int i = op.inputs[j];
    if (Importer::elemOf(parts[j]) != Importer::elemOf(parts[0]))
      return imp.fail("inputs of different types");
    if (failed(sameQuant(imp, imp.tensor(i), out, "input tensor " + std::to_string(i))))
      return mlir::failure();
    const Tensor &t = imp.tensor(i);
    if (t.type == kInt16 && t.quant &&
        llvm::any_of(t.quant->zeroPoint, [](int64_t z) { return z != 0; }))
      return imp.fail("int16 inputs need zero point 0 (TFLite Micro's requirement)");
  }
  int64_t rank = out.shape.size();
  auto ar = normAxis(imp, axis, rank);
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  for (Value p : parts) {
    Shape ps = Importer::shapeOf(p);
    bool bad = static_cast<int64_t>(ps.size()) != rank;
    for (int64_t d = 0; !bad && d < rank; ++d)
      bad = d != a && ps[d] != out.shape[d];
    if (bad)
      return imp.fail("input shape " + listRepr(ps) + " does not fit output " +
                      listRepr(out.shape) + " along axis " + std::to_string(a));
  }
  Value y = imp.concatOp(parts, a);
  if (failed(checkShape(imp, Importer::shapeOf(y), out)))
    return mlir::failure();
  return OpResults{y};
}

/// TFLM pack.cc: values_count inputs of one shape stacked along a new axis
/// (float32/int8/int16/int32; a raw copy).
FailureOr<OpResults> importPack(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int64_t count = o.i32(0), axis = o.i32(1);
  llvm::SmallVector<Value> parts;
  for (int i : op.inputs) {
    auto v = imp.value(i);
    if (failed(v))
      return mlir::failure();
    parts.push_back(*v);
  }
  if (count != static_cast<int64_t>(parts.size()))
    return imp.fail("values_count " + std::to_string(count) + " differs from the " +
                    std::to_string(parts.size()) + " inputs");
  if (failed(checkTypes(imp, parts[0], {imp.f32, imp.i8, imp.i16, imp.i32}, "PACK")))
    return mlir::failure();
  Shape shape = Importer::shapeOf(parts[0]);
  for (Value p : parts)
    if (Importer::shapeOf(p) != shape || Importer::elemOf(p) != Importer::elemOf(parts[0]))
      return imp.fail("PACK inputs differ in shape or type");
  auto ar = normAxis(imp, axis, shape.size() + 1);
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  llvm::ArrayRef<int64_t> sr(shape);
  Shape one = concatDims(sr.take_front(a), {1}, sr.drop_front(a));
  llvm::SmallVector<Value> reshaped;
  for (Value p : parts)
    reshaped.push_back(imp.reshape(p, one));
  Value y = imp.concatOp(reshaped, a);
  if (failed(checkShape(imp, Importer::shapeOf(y), imp.tensor(op.outputs[0]))))
    return mlir::failure();
  return OpResults{y};
}

/// TFLM unpack.cc: num outputs, each one index of axis
/// (float32/int32/int16/int8).
FailureOr<OpResults> importUnpack(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int64_t num = o.i32(0), axis = o.i32(1);
  auto xr = typedInput(imp, op, {imp.f32, imp.i8, imp.i16, imp.i32}, "UNPACK");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  Shape xs = Importer::shapeOf(x);
  auto ar = normAxis(imp, axis, xs.size());
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  int64_t nOut = op.outputs.size();
  if (xs[a] != nOut || (num != 0 && num != nOut))
    return imp.fail("unpacking " + std::to_string(xs[a]) + " slices into " +
                    std::to_string(nOut) + " outputs");
  Shape size = xs;
  size[a] = 1;
  llvm::ArrayRef<int64_t> sr(xs);
  Shape rest = concatDims(sr.take_front(a), sr.drop_front(a + 1));
  OpResults outs;
  for (int64_t i = 0; i < xs[a]; ++i) {
    Shape start(xs.size(), 0);
    start[a] = i;
    outs.push_back(imp.reshape(imp.sliceOp(x, start, size), rest));
  }
  return outs;
}

FailureOr<OpResults> splitOutputs(Importer &imp, const Operator &op, Value x, int64_t axis) {
  if (failed(checkTypes(imp, x, {imp.f32, imp.i8, imp.i16, imp.i32}, op.name())))
    return mlir::failure();
  Shape xs = Importer::shapeOf(x);
  auto ar = normAxis(imp, axis, xs.size());
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  int64_t total = 0;
  OpResults outs;
  for (int i : op.outputs) {
    const Tensor &t = imp.tensor(i);
    if (t.shape.size() != xs.size())
      return imp.fail("output shape " + listRepr(t.shape) + " has another rank than " +
                      listRepr(xs));
    Shape start(xs.size(), 0);
    start[a] = total;
    Shape size = xs;
    size[a] = t.shape[a];
    total += t.shape[a];
    outs.push_back(imp.sliceOp(x, start, size));
  }
  if (total != xs[a])
    return imp.fail("the outputs cover " + std::to_string(total) + " of the " +
                    std::to_string(xs[a]) + " elements of axis " + std::to_string(a));
  return outs;
}

/// TFLM split.cc: constant axis (input 0), num_splits equal parts of the
/// input.
FailureOr<OpResults> importSplit(Importer &imp, const Operator &op) {
  auto axisr = constInts(imp, inputAt(op, 0), "axis");
  if (failed(axisr))
    return mlir::failure();
  auto xr = imp.value(op.inputs[1]);
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  int64_t num = op.options().i32(0);
  int64_t nOut = op.outputs.size();
  if (num != nOut)
    return imp.fail("num_splits " + std::to_string(num) + " differs from the " +
                    std::to_string(nOut) + " outputs");
  if (axisr->empty())
    return imp.fail("the axis operand must hold one value");
  Shape xs = Importer::shapeOf(x);
  auto ar = normAxis(imp, (*axisr)[0], xs.size());
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  if (num == 0 || xs[a] % num)
    return imp.fail("axis " + std::to_string(a) + " of size " + std::to_string(xs[a]) +
                    " does not split into " + std::to_string(num) + " parts");
  for (int i : op.outputs) {
    const Tensor &t = imp.tensor(i);
    if (static_cast<int64_t>(t.shape.size()) <= a || t.shape[a] != xs[a] / num)
      return imp.fail("SPLIT outputs of unequal sizes");
  }
  return splitOutputs(imp, op, x, a);
}

/// TFLM split_v.cc: constant axis (input 2); TFLM takes each part's size from
/// its output tensor's shape (size_splits is not read), so does this.
FailureOr<OpResults> importSplitV(Importer &imp, const Operator &op) {
  auto xr = imp.value(op.inputs[0]);
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  auto axisr = constInts(imp, inputAt(op, 2), "axis");
  if (failed(axisr))
    return mlir::failure();
  if (axisr->empty())
    return imp.fail("the axis operand must hold one value");
  auto ar = normAxis(imp, (*axisr)[0], Importer::rankOf(x));
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  const Tensor &sizesT = pyTensor(imp, inputAt(op, 1));
  if (sizesT.hasData()) {
    std::vector<int64_t> sizes = sizesT.data<int64_t>().data;
    std::vector<int64_t> want;
    for (int i : op.outputs) {
      const Tensor &t = imp.tensor(i);
      want.push_back(static_cast<int64_t>(t.shape.size()) > a ? t.shape[a] : -2);
    }
    bool bad = sizes.size() != want.size();
    for (size_t i = 0; !bad && i < sizes.size(); ++i)
      bad = sizes[i] != -1 && sizes[i] != want[i];
    if (bad)
      return imp.fail("size_splits " + listRepr(sizes) + " disagree with the output shapes " +
                      listRepr(want));
  }
  return splitOutputs(imp, op, x, a);
}

/// TFLM squeeze.cc: the listed size-1 dimensions (all size-1 ones if none are
/// listed) removed; a byte copy, here a reshape.
FailureOr<OpResults> importSqueeze(Importer &imp, const Operator &op) {
  auto xr = imp.value(op.inputs[0]);
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  std::vector<int32_t> dims32 = op.options().i32Vector(0);
  std::vector<int64_t> dims(dims32.begin(), dims32.end());
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  std::set<int64_t> drop;
  if (!dims.empty()) {
    for (int64_t d : dims) {
      auto ar = normAxis(imp, d, rank);
      if (failed(ar))
        return mlir::failure();
      drop.insert(*ar);
    }
    for (int64_t d : drop)
      if (xs[d] != 1)
        return imp.fail("squeeze_dims " + listRepr(dims) + " name a dimension of " + listRepr(xs) +
                        " that is not 1");
  } else {
    for (int64_t d = 0; d < rank; ++d)
      if (xs[d] == 1)
        drop.insert(d);
  }
  Shape shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop.count(d))
      shape.push_back(xs[d]);
  if (failed(checkShape(imp, shape, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  return OpResults{imp.reshape(x, shape)};
}

/// TFLM expand_dims.cc: INT32 axis (negative counts from rank + 1),
/// float32/int8/int16.
FailureOr<OpResults> importExpandDims(Importer &imp, const Operator &op) {
  auto xr = typedInput(imp, op, {imp.f32, imp.i8, imp.i16}, "EXPAND_DIMS");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  if (pyTensor(imp, inputAt(op, 1)).type != kInt32)
    return imp.fail("TFLite Micro reads an INT32 axis");
  auto axisr = constInts(imp, inputAt(op, 1), "axis");
  if (failed(axisr))
    return mlir::failure();
  if (axisr->size() != 1)
    return imp.fail("the axis operand must hold one value");
  Shape xs = Importer::shapeOf(x);
  auto ar = normAxis(imp, (*axisr)[0], xs.size() + 1);
  if (failed(ar))
    return mlir::failure();
  int64_t a = *ar;
  llvm::ArrayRef<int64_t> sr(xs);
  Shape shape = concatDims(sr.take_front(a), {1}, sr.drop_front(a));
  if (failed(checkShape(imp, shape, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  return OpResults{imp.reshape(x, shape)};
}

/// TFLM shape.cc: the input's dimensions as an INT32 vector (INT32 output
/// only), folded into a constant: shapes are static here.
FailureOr<OpResults> importShape(Importer &imp, const Operator &op) {
  const Tensor &out = imp.tensor(op.outputs[0]);
  if (out.type != kInt32)
    return imp.fail("output type " + out.typeName() +
                    ": TFLite Micro's SHAPE writes INT32 only");
  std::vector<int64_t> dims = pyTensor(imp, inputAt(op, 0)).shape;
  int64_t n = dims.size();
  if (failed(checkShape(imp, {n}, out)))
    return mlir::failure();
  return OpResults{imp.constant(NdArray<int64_t>({n}, dims), imp.i32)};
}

/// TFLM gather.cc: float32/int8 values, INT32 positions, axis and batch_dims
/// (negative ones count from the rank of the input and of the positions).
/// Output element (batch, outer, coord, inner) is input (batch, outer,
/// positions[batch, coord], inner): one tosa.gather on the
/// [batch*outer, axis, inner] view.
FailureOr<OpResults> importGather(Importer &imp, const Operator &op) {
  auto xr = typedInput(imp, op, {imp.f32, imp.i8}, "GATHER");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  const Tensor &pt = pyTensor(imp, inputAt(op, 1));
  if (pt.type != kInt32)
    return imp.fail("positions of type " + pt.typeName() + ": TFLite Micro takes INT32 only");
  OptionReader o = op.options();
  Shape xs = Importer::shapeOf(x);
  int64_t rank = xs.size(), prank = pt.shape.size();
  auto ar = normAxis(imp, o.i32(0), rank);
  if (failed(ar))
    return mlir::failure();
  int64_t axis = *ar;
  int64_t bd = o.i32(1);
  bd = bd < 0 ? bd + prank : bd;
  if (!(0 <= bd && bd <= axis && bd < rank && bd <= prank))
    return imp.fail("batch_dims " + std::to_string(o.i32(1)) + " is invalid for axis " +
                    std::to_string(axis) + ", input rank " + std::to_string(rank) +
                    " and positions rank " + std::to_string(prank));
  llvm::ArrayRef<int64_t> sr(xs), ps(pt.shape);
  if (sr.take_front(bd) != ps.take_front(bd))
    return imp.fail("the batch dimensions of input and positions differ");
  int64_t nb = prod(sr.take_front(bd)), no = prod(sr.slice(bd, axis - bd));
  int64_t k = xs[axis], inner = prod(sr.drop_front(axis + 1));
  int64_t w = prod(ps.drop_front(bd));
  Shape shape = concatDims(sr.take_front(axis), ps.drop_front(bd), sr.drop_front(axis + 1));
  if (failed(checkShape(imp, shape, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  Value ind;
  if (pt.hasData()) {
    std::vector<int64_t> pos = pt.data<int64_t>().data;
    if (!pos.empty()) {
      int64_t mn = *std::min_element(pos.begin(), pos.end());
      int64_t mx = *std::max_element(pos.begin(), pos.end());
      if (mn < 0 || mx >= k)
        return imp.fail("a constant position lies outside [0, " + std::to_string(k) + ")");
    }
    std::vector<int64_t> table;
    table.reserve(nb * no * w);
    for (int64_t bi = 0; bi < nb; ++bi)
      for (int64_t oi = 0; oi < no; ++oi)
        table.insert(table.end(), pos.begin() + bi * w, pos.begin() + (bi + 1) * w);
    ind = imp.constant(NdArray<int64_t>({nb * no, w}, std::move(table)), imp.i32, true);
  } else {
    auto pr = imp.value(op.inputs[1]);
    if (failed(pr))
      return mlir::failure();
    Value p3 = imp.reshape(*pr, {nb, 1, w});
    if (no > 1) {
      Value multiples = imp.shapeConst({1, no, 1});
      p3 = imp.op("tile", {p3, multiples}, {nb, no, w}, Importer::elemOf(p3));
    }
    ind = imp.reshape(p3, {nb * no, w});
  }
  Value g = imp.gatherRows(imp.reshape(x, {nb * no, k, inner}), ind);
  return OpResults{imp.reshape(g, shape)};
}

/// reference_ops::GetNearestNeighbor for every output index, float32
/// arithmetic.
std::vector<int64_t> nearest(int64_t inSize, int64_t outSize, bool align, bool half) {
  float scale;
  if (align && outSize > 1)
    scale = static_cast<float>(inSize - 1) / static_cast<float>(outSize - 1);
  else
    scale = static_cast<float>(inSize) / static_cast<float>(outSize);
  float offset = half ? 0.5f : 0.0f;
  std::vector<int64_t> res(outSize);
  for (int64_t i = 0; i < outSize; ++i) {
    float prodv = (static_cast<float>(i) + offset) * scale;
    double v = prodv; // exact in double
    // std::round: half away from zero (exact in double for these magnitudes).
    int64_t r = align ? static_cast<int64_t>(std::copysign(std::floor(std::fabs(v) + 0.5), v))
                      : static_cast<int64_t>(std::floor(v));
    r = std::min(r, inSize - 1);
    res[i] = half ? std::max(r, int64_t(0)) : r;
  }
  return res;
}

/// TFLM resize_nearest_neighbor.cc / reference_ops::GetNearestNeighbor:
/// constant INT32 size, 4-D float32/int8/int16 input. The source row/column of
/// each output one is evaluated here with TFLM's float32 arithmetic:
/// scale = (in - 1) / float(out - 1) (align_corners, out > 1) else
/// in / float(out); (i + offset) * scale in float32 (offset 0.5 with
/// half_pixel_centers), std::round (align_corners) or floor, at most in - 1, at
/// least 0 with half_pixel_centers. One tosa.gather of the [B, H*W, C] view
/// with the constant [B, OH*OW] source indices.
FailureOr<OpResults> importResizeNearestNeighbor(Importer &imp, const Operator &op) {
  auto xr = typedInput(imp, op, {imp.f32, imp.i8, imp.i16}, "RESIZE_NEAREST_NEIGHBOR");
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  Shape xs = Importer::shapeOf(x);
  if (xs.size() != 4)
    return imp.fail("TFLite Micro's RESIZE_NEAREST_NEIGHBOR takes a 4-D input");
  const Tensor &st = pyTensor(imp, inputAt(op, 1));
  if (st.type != kInt32)
    return imp.fail("the size operand must be INT32");
  auto sizer = constInts(imp, inputAt(op, 1), "size");
  if (failed(sizer))
    return mlir::failure();
  if (sizer->size() != 2)
    return imp.fail("the size operand must hold 2 values");
  OptionReader o = op.options();
  bool align = o.boolean(0), half = o.boolean(1);
  int64_t b = xs[0], h = xs[1], w = xs[2], c = xs[3];
  int64_t oh = (*sizer)[0], ow = (*sizer)[1];
  if (failed(checkShape(imp, {b, oh, ow, c}, imp.tensor(op.outputs[0]))))
    return mlir::failure();
  std::vector<int64_t> iy = nearest(h, oh, align, half);
  std::vector<int64_t> ix = nearest(w, ow, align, half);
  std::vector<int64_t> src;
  src.reserve(oh * ow);
  for (int64_t y : iy)
    for (int64_t xx : ix)
      src.push_back(y * w + xx);
  std::vector<int64_t> table;
  table.reserve(b * src.size());
  for (int64_t i = 0; i < b; ++i)
    table.insert(table.end(), src.begin(), src.end());
  Value ind = imp.constant(NdArray<int64_t>({b, oh * ow}, std::move(table)), imp.i32, true);
  Value g = imp.gatherRows(imp.reshape(x, {b, h * w, c}), ind);
  return OpResults{imp.reshape(g, {b, oh, ow, c})};
}

} // namespace

//===----------------------------------------------------------------------===//
// Cross-family helpers
//===----------------------------------------------------------------------===//

Value Importer::sliceOp(Value x, llvm::ArrayRef<int64_t> start, llvm::ArrayRef<int64_t> size) {
  Shape xs = shapeOf(x);
  if (llvm::all_of(start, [](int64_t s) { return s == 0; }) &&
      llvm::ArrayRef<int64_t>(xs) == size)
    return x;
  Value startC = shapeConst(start);
  Value sizeC = shapeConst(size);
  return op("slice", {x, startC, sizeC}, size, elemOf(x));
}

Value Importer::concatOp(llvm::ArrayRef<Value> parts, int64_t axis) {
  if (parts.size() == 1)
    return parts[0];
  Shape shape = shapeOf(parts[0]);
  int64_t total = 0;
  for (Value p : parts)
    total += shapeOf(p)[axis];
  shape[axis] = total;
  return op("concat", parts, shape, elemOf(parts[0]), {i32Attr("axis", axis)});
}

Value Importer::gatherRows(Value values, Value indices) {
  Shape vs = shapeOf(values);
  return op("gather", {values, indices}, {vs[0], shapeOf(indices)[1], vs[2]}, elemOf(values));
}

void mlir::serenity::tflite::addShapeHandlers(HandlerTable &table) {
  table["TRANSPOSE"] = importTranspose;
  table["PAD"] = importPad;
  table["PADV2"] = importPad;
  table["STRIDED_SLICE"] = importStridedSlice;
  table["SLICE"] = importSlice;
  table["CONCATENATION"] = importConcatenation;
  table["PACK"] = importPack;
  table["UNPACK"] = importUnpack;
  table["SPLIT"] = importSplit;
  table["SPLIT_V"] = importSplitV;
  table["SQUEEZE"] = importSqueeze;
  table["EXPAND_DIMS"] = importExpandDims;
  table["SHAPE"] = importShape;
  table["GATHER"] = importGather;
  table["RESIZE_NEAREST_NEIGHBOR"] = importResizeNearestNeighbor;
}
