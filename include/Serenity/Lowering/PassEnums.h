//===- PassEnums.h - Enumerated options of the lowering passes -*- C++ -*-===//
//
// The enumerated options of the lowering passes, as the graph passes'
// (Serenity/Graph/PassEnums.h): one table of spellings each, the type of its
// option in Passes.td through SERENITY_ENUM_OPTION. The allocation algorithm
// is the allocator library's (Serenity/Allocation/Allocator.h).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LOWERING_PASSENUMS_H
#define SERENITY_LOWERING_PASSENUMS_H

#include "Serenity/Allocation/Allocator.h"
#include "Serenity/Analysis/ConcatMode.h"
#include "Serenity/Support/EnumOption.h"

namespace mlir {
namespace serenity {

/// serenity-int8-conv-kernels `target`: the DSP extension's dual 16-bit
/// multiply-accumulates (Cortex-M4/M7/M33), Helium's 16-byte dot products
/// (Cortex-M55/M85, 32-bit addresses), the DSP loops in plain 32-bit integer
/// arithmetic for ARMv6-M (`cortex-m-baseline`: Cortex-M0/M0+, 32-bit
/// addresses; `riscv32`, the same for rv32imc/rv32imac, whose M extension has
/// no packed multiply-accumulate either), or the same kernels in plain
/// integer arithmetic (`generic`,
/// the DSP loops) and in generic vector arithmetic (`generic-vector`, the
/// Helium loops) for any target: the host tests both kernels' loops with
/// them.
enum class KernelTarget {
  CortexM,
  Helium,
  CortexMBaseline,
  RiscV32,
  Generic,
  GenericVector
};
SERENITY_ENUM_NAMES(KernelTarget, {KernelTarget::CortexM, "cortex-m"},
                    {KernelTarget::Helium, "helium"},
                    {KernelTarget::CortexMBaseline, "cortex-m-baseline"},
                    {KernelTarget::RiscV32, "riscv32"},
                    {KernelTarget::Generic, "generic"},
                    {KernelTarget::GenericVector, "generic-vector"})

/// serenity-static-alloc `arena`: where the arena lives.
enum class ArenaStorage { Global, Argument };
SERENITY_ENUM_NAMES(ArenaStorage, {ArenaStorage::Global, "global"},
                    {ArenaStorage::Argument, "argument"})

/// serenity-static-alloc `io`: where the function's inputs and outputs live.
enum class IOPlacement { Caller, Arena };
SERENITY_ENUM_NAMES(IOPlacement, {IOPlacement::Caller, "caller"},
                    {IOPlacement::Arena, "arena"})

} // namespace serenity
} // namespace mlir

SERENITY_ENUM_OPTION(::serenity::AllocAlgorithm)
SERENITY_ENUM_OPTION(mlir::serenity::KernelTarget)
SERENITY_ENUM_OPTION(mlir::serenity::ArenaStorage)
SERENITY_ENUM_OPTION(mlir::serenity::IOPlacement)

#endif // SERENITY_LOWERING_PASSENUMS_H
