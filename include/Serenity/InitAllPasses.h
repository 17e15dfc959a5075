//===- InitAllPasses.h - Register every Serenity pass -----------*- C++ -*-===//
//
// Both layers' passes (Serenity/Graph/Passes.h, Serenity/Lowering/Passes.h),
// as upstream's mlir/InitAllPasses.h: what serenity-opt registers.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_INITALLPASSES_H
#define SERENITY_INITALLPASSES_H

#include "Serenity/Graph/Passes.h"
#include "Serenity/Lowering/Passes.h"

namespace mlir {
namespace serenity {

/// Registers the graph-level and lowering passes.
inline void registerSerenityPasses() {
  registerSerenityGraphPasses();
  registerSerenityLoweringPasses();
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_INITALLPASSES_H
