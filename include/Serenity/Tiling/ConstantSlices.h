//===- ConstantSlices.h - Slices of dense constants ------------*- C++ -*-===//
//
// Shared by the tiling rewrites (lib/Tiling) and serenity-rewrite
// (lib/Graph): the slices of weight, bias and per-channel
// parameter constants that partitioning rewrites (serenity-rewrite's
// channel/kernel partitions, serenity-tile's channel tiling) give each part.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TILING_CONSTANTSLICES_H
#define SERENITY_TILING_CONSTANTSLICES_H

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace serenity {

/// `type` with dimension `axis` set to `size`.
inline RankedTensorType withDim(Type type, unsigned axis, int64_t size) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape[axis] = size;
  return ranked.clone(shape);
}

/// Elements [begin, begin + size) of `attr` along `axis`, as a new attribute
/// of the same element type; null for element types it cannot copy.
inline DenseElementsAttr sliceAlong(DenseElementsAttr attr, unsigned axis,
                             int64_t begin, int64_t size) {
  auto type = cast<RankedTensorType>(attr.getType());
  RankedTensorType sliceType = withDim(type, axis, size);
  if (attr.isSplat())
    return DenseElementsAttr::get(sliceType, attr.getSplatValue<Attribute>());

  ArrayRef<int64_t> shape = type.getShape();
  int64_t outer = 1, inner = 1;
  for (unsigned d = 0; d < axis; ++d)
    outer *= shape[d];
  for (unsigned d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  int64_t extent = shape[axis];
  auto gather = [&](auto all, auto &out) {
    out.reserve(outer * size * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t a = begin; a < begin + size; ++a)
        for (int64_t i = 0; i < inner; ++i)
          out.push_back(all[(o * extent + a) * inner + i]);
  };
  Type element = type.getElementType();
  if (isa<FloatType>(element)) {
    auto values = attr.getValues<APFloat>();
    SmallVector<APFloat> all(values.begin(), values.end()), out;
    gather(all, out);
    return DenseElementsAttr::get(sliceType, out);
  }
  if (isa<IntegerType>(element)) {
    auto values = attr.getValues<APInt>();
    SmallVector<APInt> all(values.begin(), values.end()), out;
    gather(all, out);
    return DenseElementsAttr::get(sliceType, out);
  }
  return {};
}

/// A `tosa.const` holding `attr` at the builder's insertion point.
inline Value createConst(OpBuilder &builder, Location loc,
                         DenseElementsAttr attr) {
  return tosa::ConstOp::create(builder, loc, attr.getType(), attr);
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_TILING_CONSTANTSLICES_H
