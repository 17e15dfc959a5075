//===- Symmetry.h - Symmetry breaking for the exact scheduler ---*- C++ -*-===//
//
// Internal to lib/Scheduling. Two nodes are twins when exchanging them (and
// their results) maps the graph onto itself: same dependences, same buffers
// read, results of equal sizes read by the same nodes. Exchanging two twins in
// any order gives the same step usages, so some optimal order runs every
// class of twins in index order; the dp may add those dependences.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_SYMMETRY_H
#define SERENITY_LIB_SCHEDULING_SYMMETRY_H

#include "Serenity/Analysis/MemoryGraph.h"

#include <vector>

namespace serenity {
namespace detail {

/// Breaks symmetries of `graph` by adding dependences that some optimal
/// order satisfies, so that the optimum is unchanged: classes of twin nodes
/// run in index order, then interchangeable branches are handled. The graph
/// is decomposed like a series-parallel graph: a node set is cut into
/// segments every order runs one after the other, and a segment into its
/// weakly connected components (parallel branches); branches of one segment
/// with the same structure, the same outside neighbours and the same sizes
/// are interchangeable (exchanging them node for node is an automorphism).
/// Classes of interchangeable chains run in lockstep order (dependences);
/// the other classes are returned in `permutableClasses` (each member's
/// nodes in matching order) for the search to merge permuted states.
/// Branches are handled bottom-up, each step on the graph with the previous
/// steps' dependences, so every step keeps the optimum by itself. Returns
/// the number of dependences added.
int breakSymmetries(
    MemoryGraph &graph,
    std::vector<std::vector<std::vector<int>>> *permutableClasses = nullptr);

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_SYMMETRY_H
