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

std::vector<int> programOrder(const MemoryGraph &graph) {
  std::vector<int> order(graph.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

} // namespace serenity
