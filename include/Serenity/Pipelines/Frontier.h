//===- Frontier.h - Budget decisions from a measured frontier ---*- C++ -*-===//
//
// The configurations of a model that `python3 -m serenity frontier` measured
// on a Cortex-M board or predicted from per-layer profiles (RAM, flash and
// instructions per set of pipeline options), and the choice of the fastest
// within a RAM and a flash budget. serenity-compile (--ram-budget,
// --flash-budget) and serenity-pipeline (ram-budget, flash-budget,
// frontier) decide with it, as frontier.choose does in Python.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_PIPELINES_FRONTIER_H
#define SERENITY_PIPELINES_FRONTIER_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace serenity {

/// One configuration of a model on a board: its serenity-pipeline options
/// and its RAM (arena + state + stack), flash and instructions, measured or
/// predicted.
struct FrontierPoint {
  std::string options;
  int64_t ram = 0, flash = 0, instructions = 0, arena = 0, state = 0,
          stack = 0;
  bool predicted = false;
};

/// Reads the numbers of a point from its JSON object ("ram", "flash",
/// "instructions", "arena", "state", "stack", "predicted"); false when one
/// of the first three is missing or negative.
bool readFrontierPoint(const llvm::json::Object &object, FrontierPoint &point);

/// The points within the budgets (-1: no budget), fastest first (fewest
/// instructions, then least RAM, then least flash, then the options' text,
/// so that the order of `points` does not matter: a cache file's object
/// keys come in hash order). When none fits:
/// failure, and `error` says the least RAM reachable within the flash
/// budget and the least flash reachable within the RAM budget.
FailureOr<SmallVector<FrontierPoint>>
rankWithinBudgets(ArrayRef<FrontierPoint> points, int64_t ramBudget,
                  int64_t flashBudget, std::string &error);

/// Which frontier of a frontier file to read: the board's target name
/// (cortex-m4, cortex-m55) and, when not empty, the SHA-256 of the model's
/// bytes (hex) and the identity of the serenity-compile that measured it
/// (compilerIdentity).
struct FrontierQuery {
  std::string target, modelSha256, compiler;
};

/// The points of the frontier `query` selects in the frontier file at
/// `path` (docs/Deploy.md, "The frontier file": {"format":
/// "serenity-frontier", "version": 1, "frontiers": [{"model", "sha256",
/// "target", "compiler", "points": [{"options", "ram", "flash",
/// "instructions", "arena", "state", "stack", "predicted"}]}]}), which
/// `python3 -m serenity frontier` writes as its cache and with --export.
/// Without a model in the query the file must hold one model's frontier for
/// the target. Failure with `error` when the file is missing or malformed,
/// or holds no such frontier (saying what it holds).
FailureOr<SmallVector<FrontierPoint>>
readFrontierFile(StringRef path, const FrontierQuery &query,
                 std::string &error);

/// The identity of a serenity-compile executable in a frontier file:
/// "REALPATH:SIZE:MTIME" (MTIME in whole seconds since the epoch), so that a
/// rebuilt compiler does not read another build's measurements. Empty when
/// the file cannot be found.
std::string compilerIdentity(StringRef executable);

/// The SHA-256 of the file at `path` as 64 lower-case hex digits; empty when
/// it cannot be read.
std::string fileSha256(StringRef path);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_PIPELINES_FRONTIER_H
