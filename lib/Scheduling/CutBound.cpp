//===- CutBound.cpp - Step lower bounds from minimum cuts -------*- C++ -*-===//

#include "CutBound.h"

#include "Serenity/Support/WorkClock.h"

#include <algorithm>
#include <limits>

namespace serenity {
namespace detail {

/// Arcs a max-flow phase scans per unit of work: about as long as an
/// exact-search expansion (docs/Scheduling.md, work limits).
constexpr int64_t kArcsPerWork = 256;

void MaxFlow::reset(int count) {
  vertices = count;
  added.clear();
}

void MaxFlow::addEdge(int from, int to, int64_t capacity) {
  added.push_back({from, to, capacity});
}

void MaxFlow::build() {
  first.assign(vertices + 1, 0);
  for (const Edge &edge : added) {
    ++first[edge.from + 1];
    ++first[edge.to + 1];
  }
  for (int v = 0; v < vertices; ++v)
    first[v + 1] += first[v];
  // Each vertex's arcs in the order their edges were added (as adjacency
  // lists would hold them).
  next.assign(first.begin(), first.end() - 1);
  arcs.resize(2 * added.size());
  for (const Edge &edge : added) {
    const int forward = next[edge.from]++, backward = next[edge.to]++;
    arcs[forward] = {edge.to, backward, edge.capacity};
    arcs[backward] = {edge.from, forward, 0};
  }
}

bool MaxFlow::levelGraph(int source, int sink) {
  level.assign(vertices, -1);
  queue.assign(1, source);
  level[source] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    int u = queue[head];
    // Vertices as far as the sink or farther lie on no shortest path to it.
    if (level[sink] >= 0 && level[u] >= level[sink])
      break;
    for (int a = first[u], e = first[u + 1]; a < e; ++a)
      if (arcs[a].capacity > 0 && level[arcs[a].to] < 0) {
        level[arcs[a].to] = level[u] + 1;
        queue.push_back(arcs[a].to);
      }
  }
  return level[sink] >= 0;
}

int64_t MaxFlow::push(int vertex, int sink, int64_t limit) {
  if (vertex == sink)
    return limit;
  for (int &a = next[vertex], e = first[vertex + 1]; a < e; ++a) {
    Arc &arc = arcs[a];
    if (arc.capacity <= 0 || level[arc.to] != level[vertex] + 1)
      continue;
    int64_t pushed = push(arc.to, sink, std::min(limit, arc.capacity));
    if (pushed > 0) {
      arc.capacity -= pushed;
      arcs[arc.reverse].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

int64_t MaxFlow::run(int source, int sink, int64_t infinity, int64_t limit) {
  build();
  limit = std::min(limit, infinity);
  int64_t flow = 0;
  while (flow < limit && levelGraph(source, sink)) {
    // A phase scans the arcs about twice (level graph, blocking flow).
    WorkClock::tick(1 + static_cast<int64_t>(arcs.size()) / kArcsPerWork);
    next.assign(first.begin(), first.end() - 1);
    while (int64_t pushed = push(source, sink, infinity - flow)) {
      flow += pushed;
      if (flow >= limit)
        break;
    }
  }
  return std::min(flow, infinity);
}

CutBounder::CutBounder(const SchedulingProblem &problem)
    : problem(problem), vertexOf(problem.numNodes) {
  // Larger than every finite cut (the sum of all bytes), without overflow.
  const int64_t limit = std::numeric_limits<int64_t>::max() / 4;
  for (int64_t size : problem.bytes)
    infinity = std::min(limit, infinity + size);
}

int64_t CutBounder::bound(int v) {
  // Ancestors of v on the source side, v and its descendants on the sink
  // side, the other nodes free.
  std::vector<signed char> side(problem.numNodes, kFree);
  for (int u = 0; u < problem.numNodes; ++u) {
    int pos = problem.position[u];
    if (problem.ancestors[v].test(pos))
      side[u] = kSource;
    else if (u == v || problem.descendants[v].test(pos))
      side[u] = kSink;
  }
  return bound(v, side, {});
}

int64_t CutBounder::bound(int v, const std::vector<signed char> &side,
                          const std::vector<std::pair<int, int>> &extra,
                          int64_t atMost) {
  enum : int { Source = 0, Sink = 1 };
  const int numNodes = problem.numNodes;
  const int numBuffers = static_cast<int>(problem.bytes.size());
  int vertices = 2;
  for (int u = 0; u < numNodes; ++u)
    vertexOf[u] = side[u] == kSource ? Source
                  : side[u] == kSink ? Sink
                                     : vertices++;
  // At most two helper vertices per buffer.
  flow.reset(vertices + 2 * numBuffers);
  auto addEdge = [&](int from, int to, int64_t capacity) {
    // Edges out of the sink or into the source carry no flow.
    if (from != to && from != Sink && to != Source && capacity > 0)
      flow.addEdge(from, to, capacity);
  };
  for (int u = 0; u < numNodes; ++u)
    for (int p : problem.preds[u])
      addEdge(vertexOf[u], vertexOf[p], infinity);
  for (auto [before, after] : extra)
    addEdge(vertexOf[after], vertexOf[before], infinity);
  for (int b = 0; b < numBuffers; ++b) {
    const int64_t size = problem.bytes[b];
    const std::vector<int> &readers = problem.users[b];
    if (size == 0 || (!problem.returned[b] && readers.empty()))
      continue;
    // The vertex on the source side exactly when the buffer exists.
    int allocated = Source;
    if (problem.producer[b] >= 0) {
      const std::vector<int> &writers = problem.writers[b];
      if (writers.size() == 1) {
        allocated = vertexOf[writers[0]];
      } else {
        allocated = vertices++;
        for (int w : writers)
          addEdge(vertexOf[w], allocated, infinity);
      }
    }
    if (problem.returned[b]) {
      addEdge(allocated, Sink, size);
      continue;
    }
    if (readers.size() == 1) {
      addEdge(allocated, vertexOf[readers[0]], size);
      continue;
    }
    int consumed = vertices++;
    addEdge(allocated, consumed, size);
    for (int r : readers)
      addEdge(consumed, vertexOf[r], infinity);
  }
  // A dependence from the sink side to the source side: no such set.
  for (int u = 0; u < numNodes; ++u)
    if (vertexOf[u] == Sink)
      for (int p : problem.succs[u])
        if (vertexOf[p] == Source)
          return infinity;
  for (auto [before, after] : extra)
    if (vertexOf[before] == Sink && vertexOf[after] == Source)
      return infinity;
  // The flow stops once the cut is known to exceed atMost.
  const int64_t limit =
      atMost >= infinity
          ? infinity
          : std::max<int64_t>(0, atMost - problem.defBytes[v]) + 1;
  return problem.defBytes[v] + flow.run(Source, Sink, infinity, limit);
}

std::vector<int64_t> cutBounds(const SchedulingProblem &problem,
                               WorkClock::Point deadline) {
  std::vector<int64_t> bounds(problem.numNodes, -1);
  CutBounder bounder(problem);
  for (int v : problem.byBound) {
    if (WorkClock::now() >= deadline)
      break;
    bounds[v] = bounder.bound(v);
  }
  return bounds;
}

} // namespace detail
} // namespace serenity
