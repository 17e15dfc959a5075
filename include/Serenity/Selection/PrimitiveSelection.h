//===- PrimitiveSelection.h - Per-layer conv primitive ILP ------*- C++ -*-===//
//
// Plain C++ (no MLIR): which primitive (direct loops, im2col + matmul,
// Winograd, DSP dot kernels, ...) each convolution layer runs with, so that
// the network is fastest within a memory budget or smallest within a time
// budget. Serenity uses it for serenity-select-primitives.
//
// The model. Layers l = 0..L-1 run in a fixed order. Choice c of layer l
// takes t[l][c] (any time unit, >= 0) and needs a workspace of w[l][c]
// bytes, live only while layer l runs. base[l] is the bytes live during
// layer l's step without its workspace, and otherPeak the most bytes live
// during any step that is not a layer. A transition between two layers
// (l1, l2) (typically neighbours: a layout change) adds cost[c1][c2] to the
// time when l1 runs c1 and l2 runs c2. For a choice vector `choice`:
//
//   peak(choice) = max(otherPeak, max_l base[l] + w[l][choice[l]])
//   time(choice) = sum_l t[l][choice[l]] + sum of the transitions' costs
//
// Objectives: Time minimizes time with peak <= a byte budget; Memory
// minimizes peak with time <= a time budget, ties broken by less time.
//
// The ILP (solved with GLPK's branch and bound). Binary x[l][c], one per
// layer: sum_c x[l][c] = 1. Per transition, y[c1][c2] >= 0 with the
// marginal equations sum_c2 y[c1][c2] = x[l1][c1] and
// sum_c1 y[c1][c2] = x[l2][c2], so at an integral x, y is exactly the
// product x[l1][c1] * x[l2][c2] and the objective sum t x + sum cost y is
// exactly time(choice). A byte budget B enters as bounds, not rows: since x
// is one-hot, base[l] + sum_c w[l][c] x[l][c] <= B is the same as fixing
// x[l][c] = 0 wherever max(otherPeak, base[l] + w[l][c]) > B, so byte
// counts never reach GLPK's floating-point tolerances (2^40 and beyond are
// exact). The Memory objective is the smallest candidate peak (the sorted
// distinct values max(otherPeak, base[l] + w[l][c])) whose least time
// meets the time budget; the least time only grows as the budget shrinks,
// so a binary search over the candidates with the Time ILP finds it, and
// its answer is already the fastest choice at that peak.
//
// Exactness: byte counts are exact. Times are optimal up to GLPK's relative
// objective tolerance (1e-7): choices closer than that count as ties. The
// returned time and peak are recomputed from the choice in C++, and the
// budgets are checked against them exactly.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SELECTION_PRIMITIVESELECTION_H
#define SERENITY_SELECTION_PRIMITIVESELECTION_H

#include "Serenity/Support/EnumTable.h"
#include "Serenity/Support/WorkClock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace serenity {

/// The default work budget of one selectPrimitives or paretoFrontier call,
/// in the units of selectPrimitives: about the old 10 s wall-clock default
/// on the hardest problem found (300 layers of 6 choices and 600
/// transitions, unittests' largeProblem: 2.6-16 M units/s on the 2-core
/// machine; docs/Primitives.md, "Work limit").
constexpr int64_t kDefaultSelectionWorkLimit = 50000000;

/// One primitive a layer can run with.
struct PrimitiveChoice {
  /// Finite, >= 0.
  double time = 0;
  /// Workspace bytes, live only while the layer runs; >= 0.
  int64_t workspace = 0;
  /// False: the primitive cannot run this layer (unsupported shape, missing
  /// kernel). It is never selected, and its time, workspace and transition
  /// costs are ignored (they may hold anything, e.g. infinity).
  bool available = true;
};

/// A convolution layer and its choices.
struct SelectionLayer {
  /// Bytes live during this layer's step, without its workspace; >= 0.
  int64_t base = 0;
  /// At least one available.
  std::vector<PrimitiveChoice> choices;
};

/// A time cost between the choices of two different layers.
struct LayerTransition {
  size_t from = 0;
  size_t to = 0;
  /// cost[cFrom][cTo], sized choices(from) x choices(to); finite and >= 0
  /// (they are times).
  std::vector<std::vector<double>> cost;
};

struct SelectionProblem {
  /// In execution order.
  std::vector<SelectionLayer> layers;
  std::vector<LayerTransition> transitions;
  /// The most bytes live over the steps that are not layers; >= 0.
  int64_t otherPeak = 0;
};

enum class SelectionObjective {
  /// Least time, then any peak within the budgets.
  Time,
  /// Smallest peak, then least time.
  Memory,
};

/// The spellings of SelectionObjective (serenity-select-primitives'
/// `objective`).
SERENITY_ENUM_NAMES(SelectionObjective, {SelectionObjective::Time, "time"},
                    {SelectionObjective::Memory, "memory"})

/// Both budgets apply whatever the objective; unset means unlimited.
struct SelectionBudgets {
  std::optional<int64_t> bytes;
  std::optional<double> time;
};

struct SelectionResult {
  /// Non-empty when the problem or the arguments were rejected; nothing
  /// else is meaningful then.
  std::string error;
  /// A choice within the budgets exists and is `choice`.
  bool feasible = false;
  /// Proven: `choice` is best, or, when !feasible, no choice meets the
  /// budgets. False when a GLPK solve was stopped (`stop` says by what);
  /// `choice` is then the best one found (still within the budgets).
  bool optimal = false;
  /// What stopped a solve before it finished: None, Work (the work limit)
  /// or Time (the caller's WorkClock::Scope safety net).
  SearchStop stop = SearchStop::None;
  /// choice[l] indexes layers[l].choices; empty when !feasible.
  std::vector<int> choice;
  /// time(choice) and peak(choice), recomputed exactly; 0 when !feasible.
  double time = 0;
  int64_t peak = 0;
  /// The smallest peak and the least time any choice reaches, budgets
  /// ignored: the bounds a byte or time budget has to meet ("budget X bytes
  /// is below the smallest achievable peak Y").
  int64_t leastPeak = 0;
  double leastTime = 0;
};

/// The (peak, time) trade-off: every point is the fastest choice at its
/// peak, by increasing peak and strictly decreasing time.
struct SelectionFrontier {
  /// As in SelectionResult.
  std::string error;
  /// Every point proven (no solve was stopped).
  bool optimal = false;
  /// As in SelectionResult.
  SearchStop stop = SearchStop::None;
  std::vector<SelectionResult> points;
};

/// Empty when `problem` is valid (sizes consistent, values finite and
/// non-negative, every layer with an available choice, base + workspace
/// within int64), else what is wrong.
std::string validateSelectionProblem(const SelectionProblem &problem);

/// time(choice) and peak(choice) as defined above; `choice` must be valid.
/// Layer times are summed in layer order, then transition costs in order,
/// so every function here compares the same doubles.
double selectionTime(const SelectionProblem &problem,
                     const std::vector<int> &choice);
int64_t selectionPeak(const SelectionProblem &problem,
                      const std::vector<int> &choice);

/// The best choice for `objective` within `budgets`, by ILP (GLPK: the LP
/// relaxation by simplex, then branch and bound). `workLimit` (-1: none)
/// bounds the whole call on this thread's WorkClock: every simplex iteration
/// (the relaxation runs with the budget left as its iteration limit) and
/// every callback of the branch and bound (one or a few per node) counts as
/// many units as the ILP has rows, so where a solve stops depends only on
/// the problem, never on the machine's speed. A wall-clock safety net is the
/// caller's (a WorkClock::Scope around the call). A solve cut short makes
/// the result non-optimal, never wrong about the budgets.
SelectionResult
selectPrimitives(const SelectionProblem &problem, SelectionObjective objective,
                 const SelectionBudgets &budgets = {},
                 int64_t workLimit = kDefaultSelectionWorkLimit);

/// selectPrimitives by trying every combination of available choices, for
/// tests and tiny problems: exact, ties in the objective broken by the other
/// quantity (Time: smaller peak; Memory: less time). An error when there are
/// more than `maxCombinations`.
SelectionResult enumerateSelection(const SelectionProblem &problem,
                                   SelectionObjective objective,
                                   const SelectionBudgets &budgets = {},
                                   uint64_t maxCombinations = uint64_t(1)
                                                              << 24);

/// The (peak, time) frontier by the Time ILP: solve at the largest
/// candidate peak, then at the largest candidate below the peak just found,
/// and so on; at most one solve per distinct candidate peak, usually one per
/// frontier point. `workLimit` bounds the whole call as in
/// selectPrimitives.
SelectionFrontier
paretoFrontier(const SelectionProblem &problem,
               int64_t workLimit = kDefaultSelectionWorkLimit);

} // namespace serenity

#endif // SERENITY_SELECTION_PRIMITIVESELECTION_H
