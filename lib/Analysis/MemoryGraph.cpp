//===- MemoryGraph.cpp - Plain dataflow graph for peak memory --*- C++ -*-===//

#include "Serenity/Analysis/MemoryGraph.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace serenity {

int MemoryGraph::addInput(int64_t bytes) {
  buffers.push_back({bytes, -1, false, {}});
  return static_cast<int>(buffers.size()) - 1;
}

int MemoryGraph::addNode() {
  nodes.emplace_back();
  return static_cast<int>(nodes.size()) - 1;
}

int MemoryGraph::addResult(int node, int64_t bytes) {
  assert(node >= 0 && node < size() && "node out of range");
  buffers.push_back({bytes, node, false, {}});
  int id = static_cast<int>(buffers.size()) - 1;
  nodes[node].defs.push_back(id);
  return id;
}

void MemoryGraph::addUse(int node, int buffer) {
  auto &uses = nodes[node].uses;
  if (std::find(uses.begin(), uses.end(), buffer) == uses.end())
    uses.push_back(buffer);
}

void MemoryGraph::addPartialProducer(int buffer, int node) {
  auto &partial = buffers[buffer].partialProducers;
  if (node != buffers[buffer].producer &&
      std::find(partial.begin(), partial.end(), node) == partial.end())
    partial.push_back(node);
}

void MemoryGraph::addDependence(int node, int pred) {
  if (node == pred)
    return;
  auto &preds = nodes[node].preds;
  if (std::find(preds.begin(), preds.end(), pred) == preds.end())
    preds.push_back(pred);
}

std::vector<std::vector<int>> MemoryGraph::successors() const {
  std::vector<std::vector<int>> succs(nodes.size());
  for (int v = 0; v < size(); ++v)
    for (int p : nodes[v].preds)
      succs[p].push_back(v);
  return succs;
}

bool MemoryGraph::isTopologicalOrder(const std::vector<int> &order) const {
  if (order.size() != nodes.size())
    return false;
  std::vector<int> position(nodes.size(), -1);
  for (int t = 0, e = static_cast<int>(order.size()); t < e; ++t) {
    int v = order[t];
    if (v < 0 || v >= size() || position[v] != -1)
      return false;
    position[v] = t;
  }
  for (int v = 0; v < size(); ++v)
    for (int p : nodes[v].preds)
      if (position[p] > position[v])
        return false;
  return true;
}

MemoryProfile simulate(const MemoryGraph &graph,
                       const std::vector<int> &order) {
  const int numSteps = static_cast<int>(order.size());
  const int numBuffers = static_cast<int>(graph.buffers.size());
  MemoryProfile profile;
  profile.defStep.assign(numBuffers, -1);
  profile.lastStep.assign(numBuffers, -2);

  std::vector<int> stepOf(graph.nodes.size(), -1);
  for (int t = 0; t < numSteps; ++t)
    stepOf[order[t]] = t;
  for (int b = 0; b < numBuffers; ++b) {
    const auto &buffer = graph.buffers[b];
    if (buffer.producer >= 0) {
      profile.defStep[b] = stepOf[buffer.producer];
      for (int node : buffer.partialProducers)
        profile.defStep[b] = std::min(profile.defStep[b], stepOf[node]);
      profile.lastStep[b] = profile.defStep[b];
    }
    if (buffer.returned)
      profile.lastStep[b] = numSteps;
  }
  for (int t = 0; t < numSteps; ++t)
    for (int b : graph.nodes[order[t]].uses)
      profile.lastStep[b] = std::max(profile.lastStep[b], t);

  // usage(t) = sum of buffers with def < t <= last, plus the buffers defined
  // at t. Buffers defined at t are exactly those with def == t, so usage(t)
  // sums every buffer with def <= t <= last: one difference array.
  std::vector<int64_t> delta(numSteps + 2, 0);
  profile.newBytes.assign(numSteps, 0);
  for (int b = 0; b < numBuffers; ++b) {
    int last = profile.lastStep[b];
    if (last == -2)
      continue;
    int first = std::max(profile.defStep[b], 0);
    last = std::min(last, numSteps - 1);
    if (first > last)
      continue;
    delta[first] += graph.buffers[b].bytes;
    delta[last + 1] -= graph.buffers[b].bytes;
    if (profile.defStep[b] >= 0)
      profile.newBytes[profile.defStep[b]] += graph.buffers[b].bytes;
  }
  profile.usage.assign(numSteps, 0);
  int64_t running = 0;
  for (int t = 0; t < numSteps; ++t) {
    running += delta[t];
    profile.usage[t] = running;
    if (profile.peakStep == -1 || running > profile.peak) {
      profile.peak = running;
      profile.peakStep = t;
    }
  }
  return profile;
}

int64_t peakMemory(const MemoryGraph &graph, const std::vector<int> &order) {
  return simulate(graph, order).peak;
}

bool reverseGraph(const MemoryGraph &graph, MemoryGraph &reversed) {
  const int numNodes = graph.size();
  const int numBuffers = static_cast<int>(graph.buffers.size());
  // Every dependence: the listed ones and those implied by uses.
  std::vector<std::vector<int>> preds(numNodes), readers(numBuffers);
  for (int v = 0; v < numNodes; ++v) {
    preds[v] = graph.nodes[v].preds;
    for (int b : graph.nodes[v].uses) {
      int producer = graph.buffers[b].producer;
      if (producer == v)
        continue;
      readers[b].push_back(v);
      if (producer >= 0 && std::find(preds[v].begin(), preds[v].end(),
                                     producer) == preds[v].end())
        preds[v].push_back(producer);
    }
  }
  // Reachability (for partial producers only): whether `from` reaches `to`.
  std::vector<char> seen;
  std::vector<int> stack;
  auto precedes = [&](int from, int to) {
    seen.assign(numNodes, 0);
    stack.assign(1, to);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (v == from)
        return true;
      for (int p : preds[v])
        if (!seen[p]) {
          seen[p] = 1;
          stack.push_back(p);
        }
    }
    return false;
  };

  reversed = MemoryGraph();
  for (int v = 0; v < numNodes; ++v)
    reversed.addNode();
  for (int v = 0; v < numNodes; ++v)
    for (int p : preds[v])
      reversed.addDependence(p, v);
  reversed.buffers.resize(numBuffers);
  for (int b = 0; b < numBuffers; ++b) {
    const MemoryGraph::Buffer &buffer = graph.buffers[b];
    MemoryGraph::Buffer &result = reversed.buffers[b];
    result.bytes = buffer.bytes;
    result.workspace = buffer.workspace;
    // simulate() ignores partial producers of graph inputs.
    std::vector<int> writers;
    if (buffer.producer >= 0) {
      writers.push_back(buffer.producer);
      writers.insert(writers.end(), buffer.partialProducers.begin(),
                     buffer.partialProducers.end());
    }
    const std::vector<int> &users = readers[b];
    if (buffer.returned) {
      // Live from its first writer to the end, so from the start to its
      // last writer of the reversed order (a returned input: throughout).
      result.producer = -1;
      result.returned = buffer.producer < 0;
    } else if (users.empty()) {
      // Live at its writer's step only (or never, as an unused input).
      if (writers.size() > 1)
        return false;
      result.producer = buffer.producer;
    } else {
      // Live to the last reader (an input: from the start), so from the
      // first reader of the reversed order (to the end). The reversed graph
      // makes every writer run after users[0], the allocating reader (users
      // of a buffer run after its producer): that must not be a new
      // dependence.
      result.producer = users[0];
      result.partialProducers.assign(users.begin() + 1, users.end());
      result.returned = buffer.producer < 0;
      for (int w : writers)
        if (w != buffer.producer && !precedes(w, users[0]))
          return false;
    }
    if (result.producer >= 0)
      reversed.nodes[result.producer].defs.push_back(b);
    for (int w : writers)
      if (w != result.producer)
        reversed.addUse(w, b);
  }
  return true;
}

std::vector<int> programOrder(const MemoryGraph &graph) {
  std::vector<int> order(graph.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

} // namespace serenity
