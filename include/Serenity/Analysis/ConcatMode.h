//===- ConcatMode.h - How the memory model counts a concat ------*- C++ -*-===//
//
// Apart from MemoryModel.h so that option structs (Pipelines.h) name it
// without the memory model's dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ANALYSIS_CONCATMODE_H
#define SERENITY_ANALYSIS_CONCATMODE_H

#include "Serenity/Support/EnumOption.h"

namespace mlir {
namespace serenity {

/// How a concatenation is counted.
enum class ConcatMode {
  /// DESIGN.md default: the concat copies its operands into a new buffer.
  Copy,
  /// Every concat operand whose only user is the concat, produced by an op
  /// that can write into a slice of its destination (see
  /// `canProduceInPlace`), is a slice of the concat's output: it adds no
  /// bytes of its own, and the output is allocated whole by the first op
  /// writing any slice of it. The lowering realizes this with upstream
  /// `eliminate-empty-tensors` before bufferization.
  InPlace,
  /// Per concat: in place (as `InPlace`) when the concat carries the unit
  /// attribute `kConcatInPlaceAttr`, a copy otherwise. serenity-schedule
  /// with concat=auto sets the attribute where it lowers the peak.
  Auto,
};

/// The spellings of ConcatMode (pass and pipeline option `concat`).
SERENITY_ENUM_NAMES(ConcatMode, {ConcatMode::Copy, "copy"},
                    {ConcatMode::InPlace, "inplace"},
                    {ConcatMode::Auto, "auto"})

} // namespace serenity
} // namespace mlir

SERENITY_ENUM_OPTION(mlir::serenity::ConcatMode)

#endif // SERENITY_ANALYSIS_CONCATMODE_H
