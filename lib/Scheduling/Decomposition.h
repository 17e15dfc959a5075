//===- Decomposition.h - Series-parallel style decomposition ----*- C++ -*-===//
//
// Internal to lib/Scheduling. A node set is cut into the segments every
// order of it runs one after the other (series) and a segment into its
// weakly connected components (parallel branches). On a series-parallel
// graph, applied recursively, this is its decomposition tree; elsewhere it
// stops at the parts that are neither (kernels).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_DECOMPOSITION_H
#define SERENITY_LIB_SCHEDULING_DECOMPOSITION_H

#include <vector>

namespace serenity {
namespace detail {

/// Decomposes subsets of a graph given by its dependence lists (which the
/// owner may extend between calls).
class Decomposer {
public:
  /// `deps[v]`: nodes v depends on; `dependents[v]`: nodes depending on v.
  Decomposer(const std::vector<std::vector<int>> &deps,
             const std::vector<std::vector<int>> &dependents)
      : deps(deps), dependents(dependents) {}

  /// `nodes` (sorted) in an order respecting the dependences among them
  /// (shorter than `nodes` on a cycle).
  std::vector<int> topological(const std::vector<int> &nodes);

  /// Splits `nodes` (sorted) into the segments every order of them runs one
  /// after the other (each segment's nodes are ancestors of all later
  /// ones), in execution order, each sorted. One segment on a cycle.
  std::vector<std::vector<int>> seriesSplit(const std::vector<int> &nodes);

  /// Weakly connected components of the dependences among `nodes`
  /// (sorted), each sorted, ordered by their first node.
  std::vector<std::vector<int>> components(const std::vector<int> &nodes);

private:
  const std::vector<std::vector<int>> &deps, &dependents;
  /// Scratch: position of a node in the set being processed, else -1
  /// (sized on first use: the owner may fill the lists after construction).
  std::vector<int> local;
  void prepare() { local.resize(deps.size(), -1); }
};

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_DECOMPOSITION_H
