//===- CutBound.h - Step lower bounds from minimum cuts ---------*- C++ -*-===//
//
// Internal to lib/Scheduling. In every order, the step of node v runs after
// some set S of nodes that holds all of v's ancestors, neither v nor any of its
// descendants, and is closed under predecessors; it uses live(S) +
// newBytes(v, S) >= live(S) + defBytes[v]. The least live(S) over all such S
// is a minimum cut: S is the source side of a network in which
//  - a dependence p -> u is an infinite edge u -> p (u in S forces p in S),
//  - a buffer costs its bytes when some writer is in S and (it is returned
//    or) some reader is not: writers -> "allocated" (infinite), allocated ->
//    "consumed" (its bytes), consumed -> each reader (infinite); a graph
//    input is allocated from the start, a returned buffer is never consumed,
//  - v's ancestors are tied to the source and v and its descendants to the
//    sink.
// A cut of finite capacity is exactly live(S) for its source side S (the
// allocated / consumed vertices then sit on the cheapest side), so the
// maximum flow is min live(S). This bound sees the choices between unrelated
// nodes that nodeBound (which counts only what every order keeps) ignores.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_CUTBOUND_H
#define SERENITY_LIB_SCHEDULING_CUTBOUND_H

#include "SchedulingProblem.h"

#include "Serenity/Support/WorkClock.h"
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace serenity {
namespace detail {

/// Maximum flow (Dinic) on a directed graph with int64 capacities. The
/// edges are kept in flat arrays (grouped by vertex when the flow runs), so
/// that the many small networks of the cut bounds and shaving reuse their
/// memory instead of allocating per vertex.
class MaxFlow {
public:
  explicit MaxFlow(int vertices = 0) { reset(vertices); }
  /// Removes all edges and sets the number of vertices.
  void reset(int vertices);
  /// Adds an edge `from` -> `to` of capacity `capacity` (and its residual).
  void addEdge(int from, int to, int64_t capacity);
  /// The value of a maximum `source` -> `sink` flow; capacities saturate at
  /// `infinity` (an edge of that capacity is never cut in a finite cut).
  /// With `limit` < infinity, stops once the flow reaches `limit` and
  /// returns at least `limit` (the cut is then not known).
  int64_t run(int source, int sink, int64_t infinity, int64_t limit);
  int64_t run(int source, int sink, int64_t infinity) {
    return run(source, sink, infinity, infinity);
  }
  /// After run: whether `vertex` is on the source side of the minimum cut
  /// (reachable from the source in the residual graph).
  bool onSourceSide(int vertex) const { return level[vertex] >= 0; }

private:
  struct Edge {
    int from, to;
    int64_t capacity;
  };
  /// An edge or its residual, in the arcs of its tail: `reverse` is the
  /// other one's index.
  struct Arc {
    int to, reverse;
    int64_t capacity;
  };
  /// Groups the edges added since reset by tail (in the order added).
  void build();
  bool levelGraph(int source, int sink);
  int64_t push(int vertex, int sink, int64_t limit);

  int vertices = 0;
  std::vector<Edge> added;
  /// Arcs of vertex v: arcs[first[v] .. first[v + 1]).
  std::vector<int> first;
  std::vector<Arc> arcs;
  std::vector<int> level, next, queue;
};

/// The minimum-cut bounds of one problem's nodes.
class CutBounder {
public:
  explicit CutBounder(const SchedulingProblem &problem);
  /// defBytes[v] + min live(S) over the sets S above.
  int64_t bound(int v);
  /// The same over the sets S that also hold every node `side` marks
  /// Source and none it marks Sink (side[v] must be Sink, v's ancestors
  /// Source, its descendants Sink), closed under the dependences `extra`
  /// (a before b) too; at least `infinity` when no such set exists. Once
  /// the value is known to exceed `atMost`, returns some larger value
  /// (inLeastSet is then not meaningful).
  int64_t bound(int v, const std::vector<signed char> &side,
                const std::vector<std::pair<int, int>> &extra,
                int64_t atMost = std::numeric_limits<int64_t>::max());
  /// After a bound: whether node `u` is in the least set found.
  bool inLeastSet(int u) const {
    // Vertex 0 is the source, 1 the sink (see bound).
    return vertexOf[u] == 0 ||
           (vertexOf[u] != 1 && flow.onSourceSide(vertexOf[u]));
  }
  int64_t getInfinity() const { return infinity; }

  enum Side : signed char { kFree = 0, kSource = 1, kSink = 2 };

private:
  const SchedulingProblem &problem;
  int64_t infinity = 1;
  std::vector<int> vertexOf;
  MaxFlow flow;
};

/// Per node v: defBytes[v] + min live(S) over the sets S described above, or
/// -1 for the nodes not computed before `deadline` (the nodes are taken by
/// decreasing nodeBound). Needs the problem built with bounds.
std::vector<int64_t> cutBounds(const SchedulingProblem &problem,
                               WorkClock::Point deadline);

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_CUTBOUND_H
