//===- ConstantTable.h - The constant values behind a memref ----*- C++ -*-===//
//
// A requantization reads its per-channel multipliers and shifts from
// constant tables: an arith.constant before bufferization, a view of a
// constant memref.global after it. constantTableOf finds the values either
// way, so that a lowering can choose its arithmetic for the values a table
// holds (serenity-apply-scale-32, serenity-int8-conv-kernels).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_CONSTANTTABLE_H
#define SERENITY_SUPPORT_CONSTANTTABLE_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <utility>

namespace mlir {
namespace serenity {

/// The integer values `value` holds or reads when it is a constant (scalar
/// or elements), a memref.load of, or a view (memref.subview, cast,
/// reinterpret) of, a constant memref.global: all of the global's values
/// (a superset of what a view reads). Null otherwise.
inline Attribute constantTableOf(Value value) {
  Attribute constant;
  if (matchPattern(value, m_Constant(&constant)))
    return constant;
  if (auto load = value.getDefiningOp<memref::LoadOp>())
    value = load.getMemRef();
  while (Operation *def = value.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      value = subview.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      value = cast.getSource();
    else if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(def))
      value = reinterpret.getSource();
    else
      break;
  }
  auto getGlobal = value.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  if (!global || !global.getConstant())
    return {};
  return global.getConstantInitValue();
}

/// The least and largest integer in `table` (an IntegerAttr or integer
/// elements), as signed values, or nothing.
inline std::optional<std::pair<int64_t, int64_t>>
integerRange(Attribute table, bool isUnsigned = false) {
  std::optional<std::pair<int64_t, int64_t>> range;
  auto add = [&](const APInt &value) {
    int64_t v = isUnsigned ? value.getZExtValue() : value.getSExtValue();
    range = range ? std::make_pair(std::min(range->first, v),
                                   std::max(range->second, v))
                  : std::make_pair(v, v);
  };
  if (auto integer = dyn_cast_or_null<IntegerAttr>(table))
    add(integer.getValue());
  else if (auto elements = dyn_cast_or_null<DenseIntElementsAttr>(table))
    for (const APInt &value : elements.getValues<APInt>())
      add(value);
  return range;
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_SUPPORT_CONSTANTTABLE_H
