//===- HillValley.h - Series-parallel hill-valley heuristic -----*- C++ -*-===//
//
// Internal to lib/Scheduling: the order of `algorithm=hill-valley`, also an
// upper bound of the dp (see HillValley.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_HILLVALLEY_H
#define SERENITY_LIB_SCHEDULING_HILLVALLEY_H

#include "SchedulingProblem.h"

#include <vector>

namespace serenity {
namespace detail {

/// A topological order of `problem`: hill-valley merging of the parallel
/// branches of its series-parallel decomposition, greedy elsewhere.
std::vector<int> hillValleyOrder(const SchedulingProblem &problem);

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_HILLVALLEY_H
