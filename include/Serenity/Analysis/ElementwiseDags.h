//===- ElementwiseDags.h - Which element-wise loops fuse into one -*- C++ -*-===//
//
// An element-wise DAG over one iteration space whose internal values are read
// only inside the DAG is computed by ONE loop: each internal value once per
// element, in registers. The decision is made here, over plain data, so that
// the memory model (TOSA ops, findFusedGroups) and the lowering
// (serenity-fuse-requantization, linalg.generic ops) cannot disagree: each
// describes its loops as `DagUnit`s and gets the same groups back.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ANALYSIS_ELEMENTWISEDAGS_H
#define SERENITY_ANALYSIS_ELEMENTWISEDAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir {
namespace serenity {

/// One element-wise loop (an op, or a chain the conv-chain fusion already
/// made one loop) that computes one tensor element by element. Units are
/// listed in program order: a unit's producers come before it.
struct DagUnit {
  /// A value the loop reads (constants, which live in ROM, are left out).
  struct Read {
    /// Identifies the buffer read: views of one tensor share it.
    const void *buffer = nullptr;
    /// Bytes of the value read.
    int64_t bytes = 0;
    /// The unit that computes the value, or -1.
    int producer = -1;
  };

  /// False when the loop may not join another (dynamic shape, reads a
  /// convolution's accumulator that must keep its single user, ...).
  bool eligible = false;
  /// Bytes of the loop's result.
  int64_t resultBytes = 0;
  /// The units reading the result element for element (each element once,
  /// at the element of their own iteration that corresponds to it).
  llvm::SmallVector<unsigned> users;
  /// True when anything else reads the result (returned, a reshape, a
  /// broadcast, a non-element-wise op).
  bool otherUsers = false;
  llvm::SmallVector<Read> reads;
};

/// For each unit, the unit whose loop computes it: itself when it stays a
/// loop of its own. A unit joins its users' loop when it is eligible and all
/// its users (at least one) are in one loop and nothing else reads it. A
/// group of several units is kept when the bytes it reads (each buffer once)
/// are not more than its largest internal value, the biggest temporary it
/// removes; otherwise only its single-user edges whose producer reads no
/// more bytes than it writes are fused (the rule for chains).
llvm::SmallVector<unsigned> groupElementwiseDags(llvm::ArrayRef<DagUnit> units);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_ANALYSIS_ELEMENTWISEDAGS_H
