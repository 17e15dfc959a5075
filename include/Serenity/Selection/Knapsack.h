//===- Knapsack.h - Exact 0/1 knapsack for per-layer choices ----*- C++ -*-===//
//
// Plain C++ (no MLIR): which items to take so that their summed value is
// the largest with their summed weight within a capacity. Serenity uses it
// to choose the convolution filters whose int16 copies (faster kernels,
// more flash) fit a flash budget (serenity-int8-conv-kernels widen-budget).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SELECTION_KNAPSACK_H
#define SERENITY_SELECTION_KNAPSACK_H

#include <cstdint>
#include <vector>

namespace serenity {

struct KnapsackItem {
  /// Non-negative.
  int64_t weight = 0;
  /// Non-negative.
  int64_t value = 0;
};

struct KnapsackResult {
  /// taken[i]: item i is in the chosen set.
  std::vector<bool> taken;
  int64_t value = 0;
  int64_t weight = 0;
  /// False when the exact table would exceed the cell limit and the result
  /// is the greedy one (largest value per weight first): a feasible set, not
  /// proven best.
  bool optimal = true;
};

/// The most valuable set of items of total weight <= capacity. Exact
/// (dynamic programming over the capacity divided by the weights' greatest
/// common divisor) unless items x capacity cells exceed `maxCells`.
KnapsackResult solveKnapsack(const std::vector<KnapsackItem> &items,
                             int64_t capacity,
                             int64_t maxCells = int64_t(1) << 28);

} // namespace serenity

#endif // SERENITY_SELECTION_KNAPSACK_H
