//===- SchedulingProblem.cpp - Normalized graph for scheduling -*- C++ -*-===//

#include "SchedulingProblem.h"

#include "CutBound.h"

#include <algorithm>
#include <deque>
#include <numeric>

namespace serenity {
namespace detail {

bool SchedulingProblem::build(const MemoryGraph &graph, std::string &error,
                              bool withBounds) {
  numNodes = graph.size();
  const int numBuffers = static_cast<int>(graph.buffers.size());
  preds.assign(numNodes, {});
  succs.assign(numNodes, {});
  uses.assign(numNodes, {});
  users.assign(numBuffers, {});
  bytes.resize(numBuffers);
  producer.resize(numBuffers);
  returned.resize(numBuffers);
  writers.assign(numBuffers, {});
  sharedWrites.assign(numNodes, {});
  hasSharedBuffers = false;
  for (int b = 0; b < numBuffers; ++b) {
    bytes[b] = graph.buffers[b].bytes;
    producer[b] = graph.buffers[b].producer;
    returned[b] = graph.buffers[b].returned;
    if (producer[b] >= numNodes) {
      error = "buffer " + std::to_string(b) + " has an invalid producer";
      return false;
    }
    // simulate() ignores partial producers of graph inputs: they exist
    // before the first step anyway.
    if (producer[b] < 0)
      continue;
    writers[b].push_back(producer[b]);
    for (int w : graph.buffers[b].partialProducers) {
      if (w < 0 || w >= numNodes) {
        error =
            "buffer " + std::to_string(b) + " has an invalid partial producer";
        return false;
      }
      if (std::find(writers[b].begin(), writers[b].end(), w) ==
          writers[b].end())
        writers[b].push_back(w);
    }
    if (writers[b].size() > 1) {
      hasSharedBuffers = true;
      for (int w : writers[b])
        sharedWrites[w].push_back(b);
    }
  }

  auto addPred = [&](int node, int pred) {
    if (node == pred)
      return;
    if (std::find(preds[node].begin(), preds[node].end(), pred) ==
        preds[node].end())
      preds[node].push_back(pred);
  };
  for (int v = 0; v < numNodes; ++v) {
    for (int p : graph.nodes[v].preds) {
      if (p < 0 || p >= numNodes) {
        error = "node " + std::to_string(v) + " has an invalid predecessor";
        return false;
      }
      addPred(v, p);
    }
    for (int b : graph.nodes[v].uses) {
      if (b < 0 || b >= numBuffers) {
        error = "node " + std::to_string(v) + " uses an invalid buffer";
        return false;
      }
      if (producer[b] == v)
        continue;
      if (std::find(uses[v].begin(), uses[v].end(), b) != uses[v].end())
        continue;
      uses[v].push_back(b);
      users[b].push_back(v);
      if (producer[b] >= 0)
        addPred(v, producer[b]);
    }
  }
  for (int v = 0; v < numNodes; ++v) {
    std::sort(preds[v].begin(), preds[v].end());
    for (int p : preds[v])
      succs[p].push_back(v);
  }
  for (int v = 0; v < numNodes; ++v)
    std::sort(succs[v].begin(), succs[v].end());

  defBytes.assign(numNodes, 0);
  persistBytes.assign(numNodes, 0);
  outlives.assign(numBuffers, 0);
  initialLive = 0;
  for (int b = 0; b < numBuffers; ++b) {
    // Users depend on the producer, so they all run after the buffer is
    // allocated: it outlives its allocating step iff it is used or returned.
    outlives[b] = returned[b] || !users[b].empty();
    if (producer[b] < 0) {
      if (outlives[b])
        initialLive += bytes[b];
    } else if (writers[b].size() == 1) {
      defBytes[producer[b]] += bytes[b];
      if (outlives[b])
        persistBytes[producer[b]] += bytes[b];
    }
  }

  topo = kahnOrder();
  if (static_cast<int>(topo.size()) != numNodes) {
    error = "the dependences (including uses of buffers) form a cycle";
    return false;
  }
  position.assign(numNodes, 0);
  for (int i = 0; i < numNodes; ++i)
    position[topo[i]] = i;
  if (!withBounds)
    return true;

  // Ancestors and descendants as position bitsets.
  ancestors.assign(numNodes, Bits(numNodes));
  descendants.assign(numNodes, Bits(numNodes));
  for (int v : topo)
    for (int p : preds[v]) {
      ancestors[v].unite(ancestors[p]);
      ancestors[v].set(position[p]);
    }
  for (int i = numNodes - 1; i >= 0; --i) {
    int v = topo[i];
    for (int s : succs[v]) {
      descendants[v].unite(descendants[s]);
      descendants[v].set(position[s]);
    }
  }

  // A buffer is live while v executes in every order when v is its only
  // writer or reads it, or when it exists before v (an input or an
  // ancestor's result) and is needed after v (returned, or read by a
  // descendant of v). A buffer with several writers exists before v when
  // any writer is an ancestor of v; at a writer's own step it is only
  // certainly live when it is needed after that step, since an earlier
  // writer may have allocated it and its readers may all have run (for
  // simulate(), the last step of a buffer is its last read, not its last
  // write). Sets of nodes are position bitsets.
  nodeBound.assign(numNodes, 0);
  for (int v = 0; v < numNodes; ++v) {
    nodeBound[v] = defBytes[v];
    for (int b : uses[v])
      nodeBound[v] += bytes[b];
  }
  int64_t producedBuffers = 0;
  for (int b = 0; b < numBuffers; ++b)
    producedBuffers += producer[b] >= 0 && bytes[b] != 0;
  const bool withSurvives =
      producedBuffers * ((numNodes + 63) / 64) * 8 <= kSurvivesBudget;
  survives.assign(numBuffers, Bits(0));
  Bits needers(numNodes), readers(numNodes);
  for (int b = 0; b < numBuffers; ++b) {
    if (bytes[b] == 0 || (producer[b] < 0 && !returned[b] && users[b].empty()))
      continue;
    // Nodes that run before some reader (or all nodes when returned).
    needers = Bits(numNodes);
    if (returned[b])
      needers.setAll(numNodes);
    readers = Bits(numNodes);
    for (int u : users[b]) {
      needers.unite(ancestors[u]);
      readers.set(position[u]);
    }
    needers.subtract(readers);
    Bits counted = needers;
    if (producer[b] >= 0) {
      // Nodes after which the buffer certainly exists.
      Bits allocated = descendants[producer[b]];
      for (int w : writers[b])
        allocated.unite(descendants[w]);
      // The only writer is counted by defBytes; with several writers, a
      // writer that must survive is counted here.
      if (writers[b].size() > 1)
        for (int w : writers[b])
          allocated.set(position[w]);
      counted.intersect(allocated);
      if (withSurvives) {
        survives[b] = needers;
        survives[b].subtract(allocated);
        survives[b].reset(position[producer[b]]);
      }
    }
    counted.forEach([&](int pos) { nodeBound[topo[pos]] += bytes[b]; });
  }
  stepBound = nodeBound;
  sortByBound();
  return true;
}

void SchedulingProblem::sortByBound() {
  byBound.resize(numNodes);
  std::iota(byBound.begin(), byBound.end(), 0);
  std::sort(byBound.begin(), byBound.end(), [&](int a, int b) {
    return stepBound[a] > stepBound[b] ||
           (stepBound[a] == stepBound[b] && a < b);
  });
  staticBound = numNodes ? stepBound[byBound[0]] : 0;
}

void SchedulingProblem::strengthenBounds(
    WorkClock::Point deadline) {
  raiseStepBounds(cutBounds(*this, deadline));
}

void SchedulingProblem::raiseStepBounds(const std::vector<int64_t> &bounds) {
  for (int v = 0; v < numNodes; ++v)
    stepBound[v] = std::max(stepBound[v], bounds[v]);
  sortByBound();
}

int64_t
SchedulingProblem::freedBytes(int node,
                              const std::vector<char> &scheduled) const {
  int64_t freed = 0;
  for (int b : uses[node]) {
    if (returned[b])
      continue;
    bool last = true;
    for (int u : users[b])
      if (u != node && !scheduled[u]) {
        last = false;
        break;
      }
    if (last)
      freed += bytes[b];
  }
  return freed;
}

bool SchedulingProblem::isFirstWriter(int node, int buffer,
                                      const std::vector<char> &scheduled) const {
  for (int w : writers[buffer])
    if (w != node && scheduled[w])
      return false;
  return true;
}

int64_t SchedulingProblem::newBytes(int node,
                                    const std::vector<char> &scheduled) const {
  int64_t total = defBytes[node];
  for (int b : sharedWrites[node])
    if (isFirstWriter(node, b, scheduled))
      total += bytes[b];
  return total;
}

int64_t SchedulingProblem::keptBytes(int node,
                                     const std::vector<char> &scheduled) const {
  int64_t total = persistBytes[node];
  for (int b : sharedWrites[node])
    if (outlives[b] && isFirstWriter(node, b, scheduled))
      total += bytes[b];
  return total;
}

std::vector<int> SchedulingProblem::kahnOrder() const {
  std::vector<int> indegree(numNodes);
  std::deque<int> ready;
  for (int v = 0; v < numNodes; ++v) {
    indegree[v] = static_cast<int>(preds[v].size());
    if (indegree[v] == 0)
      ready.push_back(v);
  }
  std::vector<int> order;
  order.reserve(numNodes);
  while (!ready.empty()) {
    int v = ready.front();
    ready.pop_front();
    order.push_back(v);
    for (int s : succs[v])
      if (--indegree[s] == 0)
        ready.push_back(s);
  }
  return order;
}

std::vector<int> SchedulingProblem::greedyOrder() const {
  // Gains (freed - allocated bytes) of ready nodes, updated only when a node
  // that shares a buffer with them runs.
  Execution execution(*this);
  std::vector<int> indegree(numNodes);
  std::vector<int64_t> gain(numNodes, 0);
  std::vector<char> isReady(numNodes, 0);
  std::vector<int> ready;
  auto makeReady = [&](int v) {
    gain[v] = execution.freedBytes(v) - execution.newBytes(v);
    isReady[v] = 1;
    ready.push_back(v);
  };
  for (int v = 0; v < numNodes; ++v) {
    indegree[v] = static_cast<int>(preds[v].size());
    if (indegree[v] == 0)
      makeReady(v);
  }
  std::vector<int> order;
  order.reserve(numNodes);
  while (!ready.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < ready.size(); ++i) {
      int v = ready[i], b = ready[best];
      if (gain[v] > gain[b] || (gain[v] == gain[b] && v < b))
        best = i;
    }
    int v = ready[best];
    ready.erase(ready.begin() + best);
    isReady[v] = 0;
    execution.run(v);
    order.push_back(v);
    execution.forEachAffected(v, [&](int w) {
      if (isReady[w])
        gain[w] = execution.freedBytes(w) - execution.newBytes(w);
    });
    for (int s : succs[v])
      if (--indegree[s] == 0)
        makeReady(s);
  }
  return order;
}

int64_t SchedulingProblem::peakOf(const std::vector<int> &order) const {
  std::vector<int64_t> usages = usagesOf(order);
  return usages.empty() ? 0 : *std::max_element(usages.begin(), usages.end());
}

std::vector<int64_t>
SchedulingProblem::usagesOf(const std::vector<int> &order) const {
  Execution execution(*this);
  std::vector<int64_t> usages;
  usages.reserve(order.size());
  int64_t live = initialLive;
  for (int v : order) {
    usages.push_back(live + execution.newBytes(v));
    live += execution.keptBytes(v) - execution.freedBytes(v);
    execution.run(v);
  }
  return usages;
}

Execution::Execution(const SchedulingProblem &problem)
    : problem(problem), writersRun(problem.bytes.size(), 0),
      pendingReaders(problem.bytes.size(), 0) {
  for (size_t b = 0; b < problem.bytes.size(); ++b)
    pendingReaders[b] = static_cast<int>(problem.users[b].size());
}

int64_t Execution::newBytes(int node) const {
  int64_t total = problem.defBytes[node];
  for (int b : problem.sharedWrites[node])
    if (writersRun[b] == 0)
      total += problem.bytes[b];
  return total;
}

int64_t Execution::keptBytes(int node) const {
  int64_t total = problem.persistBytes[node];
  for (int b : problem.sharedWrites[node])
    if (problem.outlives[b] && writersRun[b] == 0)
      total += problem.bytes[b];
  return total;
}

int64_t Execution::freedBytes(int node) const {
  int64_t freed = 0;
  for (int b : problem.uses[node])
    if (!problem.returned[b] && pendingReaders[b] == 1)
      freed += problem.bytes[b];
  return freed;
}

void Execution::run(int node) {
  for (int b : problem.sharedWrites[node])
    ++writersRun[b];
  for (int b : problem.uses[node])
    --pendingReaders[b];
}

void Execution::undo(int node) {
  for (int b : problem.sharedWrites[node])
    --writersRun[b];
  for (int b : problem.uses[node])
    ++pendingReaders[b];
}

// Chain contraction (the hill-valley idea of Liu's tree pebbling applied to
// single-entry single-exit chains). A chain U (nodes run back to back) whose
// external inputs are read by U alone has a fixed profile: executing it from
// any state adds `hill` bytes at its worst step and changes the live bytes by
// `change`. U may absorb V when V's only predecessor is U, U's only successor
// is V, V reads only U's results and V does not grow memory (change(V) <= 0).
// Then for any order P U O V Q, one of P U V O Q and P O U V Q is no worse:
//  - moving V up lowers every step of O by -change(V) >= 0, and V's own step
//    live(P+U) + hill(V) is no worse when live(P+O) >= live(P);
//  - otherwise live(P+O) < live(P): moving U down makes U's step cheaper and
//    changes O's steps by -change(U), fine when change(U) >= 0; when
//    change(U) < 0, moving V up is fine as long as change(U) + hill(V) <=
//    hill(U), since V's step then stays under U's.
// Merged hill = max(hill(U), change(U) + hill(V)), change = sum. The merged
// node must also be representable: its hill may not be below the bytes of
// the results it keeps (the last node's results and returned ones), which
// the contracted graph allocates at its step; this requirement alone
// already implies the change(U) < 0 condition above.
// A node writing a buffer with several writers (in-place concatenation) is
// never merged: the bytes it allocates depend on which other writers ran, so
// its profile is not fixed, and moving it past another writer changes that
// writer's step too. Chains of other nodes keep their fixed profiles, and
// moving them changes no writer's allocation, so the argument still holds.
void SchedulingProblem::contractChains(
    MemoryGraph &contracted, std::vector<std::vector<int>> &members) const {
  std::vector<int> chainOf(numNodes, -1);
  struct Chain {
    std::vector<int> nodes;
    int64_t hill = 0, change = 0;
    /// Bytes of results that outlive the chain (returned internal results
    /// and all results of the last node).
    int64_t keptBytes = 0, returnedInternal = 0;
    bool exclusiveInputs = true;
  };
  std::vector<Chain> chains;
  auto changeOf = [&](int v) {
    int64_t change = persistBytes[v];
    for (int b : uses[v])
      if (!returned[b])
        change -= bytes[b];
    return change;
  };
  // Per node: bytes of its returned results (one pass over the buffers).
  std::vector<int64_t> returnedDefBytes(numNodes, 0);
  for (int b = 0, e = static_cast<int>(bytes.size()); b < e; ++b)
    if (producer[b] >= 0 && returned[b])
      returnedDefBytes[producer[b]] += bytes[b];
  for (int v : topo) {
    if (preds[v].size() == 1) {
      int u = preds[v][0];
      Chain &chain = chains[chainOf[u]];
      bool readsOnlyU = true;
      for (int b : uses[v])
        readsOnlyU = readsOnlyU && producer[b] == u;
      int64_t changeV = changeOf(v);
      int64_t hill = std::max(chain.hill, chain.change + defBytes[v]);
      int64_t returnedInternal = chain.returnedInternal + returnedDefBytes[u];
      if (chain.exclusiveInputs && succs[u].size() == 1 && readsOnlyU &&
          sharedWrites[u].empty() && sharedWrites[v].empty() && changeV <= 0 &&
          (chain.change >= 0 || chain.change + defBytes[v] <= chain.hill) &&
          hill >= returnedInternal + defBytes[v]) {
        chain.nodes.push_back(v);
        chain.hill = hill;
        chain.change += changeV;
        chain.returnedInternal = returnedInternal;
        chain.keptBytes = returnedInternal + defBytes[v];
        chainOf[v] = chainOf[u];
        continue;
      }
    }
    Chain chain;
    chain.nodes.push_back(v);
    chain.hill = defBytes[v];
    chain.change = changeOf(v);
    chain.keptBytes = defBytes[v];
    for (int b : uses[v])
      chain.exclusiveInputs = chain.exclusiveInputs && users[b].size() == 1;
    chainOf[v] = static_cast<int>(chains.size());
    chains.push_back(std::move(chain));
  }

  std::vector<ContractedNode> parts;
  for (Chain &chain : chains)
    parts.push_back({std::move(chain.nodes), chain.hill, chain.keptBytes});
  buildContracted(parts, contracted, members);
}

void SchedulingProblem::buildContracted(
    const std::vector<ContractedNode> &parts, MemoryGraph &contracted,
    std::vector<std::vector<int>> &members) const {
  std::vector<int> partOf(numNodes, -1);
  for (int c = 0, e = static_cast<int>(parts.size()); c < e; ++c)
    for (int v : parts[c].nodes)
      partOf[v] = c;
  // Contracted nodes in order of their first member, which is topological.
  std::vector<int> partOrder(parts.size());
  std::iota(partOrder.begin(), partOrder.end(), 0);
  std::sort(partOrder.begin(), partOrder.end(), [&](int a, int b) {
    return parts[a].nodes.front() < parts[b].nodes.front();
  });
  std::vector<int> nodeOfPart(parts.size());
  contracted = MemoryGraph();
  members.clear();
  for (int c : partOrder) {
    nodeOfPart[c] = contracted.addNode();
    members.push_back(parts[c].nodes);
  }
  std::vector<int> newBuffer(bytes.size(), -1);
  for (int b = 0, e = static_cast<int>(bytes.size()); b < e; ++b) {
    if (producer[b] < 0) {
      newBuffer[b] = contracted.addInput(bytes[b]);
      contracted.buffers[newBuffer[b]].returned = returned[b];
      continue;
    }
    const ContractedNode &part = parts[partOf[producer[b]]];
    if (producer[b] != part.nodes.back() && !returned[b])
      continue;
    newBuffer[b] =
        contracted.addResult(nodeOfPart[partOf[producer[b]]], bytes[b]);
    contracted.buffers[newBuffer[b]].returned = returned[b];
    // Writers of a shared buffer are nodes of their own.
    for (int w : writers[b])
      contracted.addPartialProducer(newBuffer[b], nodeOfPart[partOf[w]]);
  }
  for (int c : partOrder) {
    const ContractedNode &part = parts[c];
    int node = nodeOfPart[c];
    if (part.hill > part.keptBytes)
      contracted.addResult(node, part.hill - part.keptBytes);
    for (int p : preds[part.nodes.front()])
      contracted.addDependence(node, nodeOfPart[partOf[p]]);
    for (int b : uses[part.nodes.front()])
      contracted.addUse(node, newBuffer[b]);
  }
}

// Segments of private chains (Liu's hill-valley segments). A tail
// v2 .. vk behind a node v1, where each vi's only predecessor is v(i-1),
// whose only successor is vi and whose results only vi reads (none
// returned), has a profile that no other node affects: relative to the
// live bytes after v1, the step of vj (position j) uses
// s(j) = c(j-1) + defBytes(vj) and leaves c(j) = c(j-1) + change(vj).
// A segment (a, V] of positions may be run without interruption when
// c(a) <= c(p) for every p in (a, V), h is a position of its largest step,
// and c(V) <= c(p) for every p in [h, V). Take any order in which blocks of
// other nodes run between the segment's steps (none depends on the segment
// or is depended on by it: the buffers inside are private). Move every
// block that ran before step h to just before step a+1, and every other
// one to just after step V, keeping the blocks' relative order. With R the
// other live bytes before the first block and D the net change of the
// blocks moved up:
//  - a block moved up sees the same other bytes and the chain at c(a)
//    instead of c(p) >= c(a); a block moved down sees c(V) <= c(p);
//  - every step j of the segment now costs R + D + s(j) <= R + D + s(h),
//    which is what the hill cost before (every block moved up ran before
//    it).
// No step gets more expensive. Blocks move whole, so a segment made
// contiguous stays so when another segment is treated: some optimal order
// runs every segment back to back. Segments are cut greedily from the
// front: up to the first position q with c(q) < c(a) (the segment may end
// there but not pass it), h is the last largest step; V is the last
// smallest c(j) for j >= h before any step larger than s(h). The
// contracted node must also be representable (see contractChains): its
// hill may not be below the last node's results.
void SchedulingProblem::contractSegments(
    MemoryGraph &contracted, std::vector<std::vector<int>> &members) const {
  std::vector<int> next(numNodes, -1);
  std::vector<char> hasPrevious(numNodes, 0);
  for (int v = 0; v < numNodes; ++v) {
    if (succs[v].size() != 1 || !sharedWrites[v].empty())
      continue;
    int w = succs[v][0];
    if (preds[w].size() != 1 || !sharedWrites[w].empty())
      continue;
    bool isPrivate = true;
    for (int b : uses[w])
      isPrivate = isPrivate && producer[b] == v;
    for (int b = 0, e = static_cast<int>(bytes.size()); b < e; ++b)
      if (producer[b] == v)
        isPrivate =
            isPrivate && !returned[b] &&
            (users[b].empty() || (users[b].size() == 1 && users[b][0] == w));
    if (isPrivate) {
      next[v] = w;
      hasPrevious[w] = 1;
    }
  }
  std::vector<ContractedNode> parts;
  for (int v = 0; v < numNodes; ++v) {
    if (hasPrevious[v])
      continue;
    parts.push_back({{v}, defBytes[v], defBytes[v]});
    std::vector<int> tail;
    for (int w = next[v]; w >= 0; w = next[w])
      tail.push_back(w);
    const int m = static_cast<int>(tail.size());
    // c[j], s[j] for positions 1..m (c[0] = 0 after v1).
    std::vector<int64_t> c(m + 1, 0), step(m + 1, 0);
    for (int j = 1; j <= m; ++j) {
      int w = tail[j - 1];
      int64_t change = persistBytes[w];
      for (int b : uses[w])
        change -= bytes[b];
      step[j] = c[j - 1] + defBytes[w];
      c[j] = c[j - 1] + change;
    }
    for (int a = 0; a < m;) {
      // The hill: the last largest step before the first position below
      // c(a) (or at it).
      int below = a + 1;
      while (below < m && c[below] >= c[a])
        ++below;
      int h = a + 1;
      for (int j = a + 1; j <= below; ++j)
        if (step[j] >= step[h])
          h = j;
      // The end: the last smallest c(j) from h on, before any larger step.
      int end = h;
      for (int j = h; j <= m && step[j] <= step[h]; ++j)
        if (c[j] <= c[end])
          end = j;
      int64_t hill = 0;
      for (int j = a + 1; j <= end; ++j)
        hill = std::max(hill, step[j] - c[a]);
      // The contracted node allocates the last node's results at its step,
      // while the first node's inputs are still live: representable only
      // when the hill covers them (else the step is run on its own).
      if (hill < defBytes[tail[end - 1]])
        end = a + 1;
      ContractedNode part;
      for (int j = a + 1; j <= end; ++j) {
        part.nodes.push_back(tail[j - 1]);
        part.hill = std::max(part.hill, step[j] - c[a]);
      }
      part.keptBytes = defBytes[tail[end - 1]];
      parts.push_back(std::move(part));
      a = end;
    }
  }
  buildContracted(parts, contracted, members);
}

std::vector<std::vector<int>> SchedulingProblem::forcedSegments() const {
  // The first k nodes of `topo` form a forced prefix iff every later node
  // has all of them as ancestors: for each node, the first position that is
  // not one of its ancestors (skipping itself) must be >= k.
  std::vector<int> suffixMin(numNodes + 1, numNodes);
  for (int i = numNodes - 1; i >= 0; --i) {
    int v = topo[i];
    int first = ancestors[v].firstClear(i);
    if (first == i)
      first = i + 1;
    suffixMin[i] = std::min(suffixMin[i + 1], first);
  }
  std::vector<std::vector<int>> segments;
  std::vector<int> current;
  for (int i = 0; i < numNodes; ++i) {
    if (i > 0 && suffixMin[i] >= i) {
      std::sort(current.begin(), current.end());
      segments.push_back(std::move(current));
      current.clear();
    }
    current.push_back(topo[i]);
  }
  if (!current.empty()) {
    std::sort(current.begin(), current.end());
    segments.push_back(std::move(current));
  }
  return segments;
}

MemoryGraph SchedulingProblem::subGraph(const std::vector<int> &segmentOf,
                                        int segment,
                                        const std::vector<int> &nodes) const {
  MemoryGraph sub;
  std::vector<int> local(numNodes, -1);
  for (int v : nodes)
    local[v] = sub.addNode();
  const int numBuffers = static_cast<int>(bytes.size());
  std::vector<int> localBuffer(numBuffers, -1);
  auto neededLater = [&](int b) {
    if (returned[b])
      return true;
    for (int u : users[b])
      if (segmentOf[u] > segment)
        return true;
    return false;
  };
  // The segment allocating each buffer: that of its first writer (-1 for
  // inputs), since segments run one after the other.
  std::vector<int> allocatedIn(numBuffers, -1);
  for (int b = 0; b < numBuffers; ++b)
    for (int w : writers[b])
      allocatedIn[b] = allocatedIn[b] == -1
                           ? segmentOf[w]
                           : std::min(allocatedIn[b], segmentOf[w]);
  // Buffers that exist when the segment starts and are still needed.
  for (int b = 0; b < numBuffers; ++b) {
    if (allocatedIn[b] >= segment)
      continue;
    bool needed = returned[b];
    for (int u : users[b])
      needed = needed || segmentOf[u] >= segment;
    if (!needed)
      continue;
    localBuffer[b] = sub.addInput(bytes[b]);
    sub.buffers[localBuffer[b]].returned = neededLater(b);
  }
  for (int b = 0; b < numBuffers; ++b) {
    if (producer[b] < 0 || allocatedIn[b] != segment)
      continue;
    // The segment's writers allocate it. Its readers depend on the
    // producer, so when the producer runs in a later segment, so do they.
    int owner = producer[b];
    if (segmentOf[owner] != segment)
      owner = *std::find_if(writers[b].begin(), writers[b].end(),
                            [&](int w) { return segmentOf[w] == segment; });
    localBuffer[b] = sub.addResult(local[owner], bytes[b]);
    sub.buffers[localBuffer[b]].returned = neededLater(b);
    for (int w : writers[b])
      if (segmentOf[w] == segment)
        sub.addPartialProducer(localBuffer[b], local[w]);
  }
  for (int v : nodes) {
    for (int p : preds[v])
      if (segmentOf[p] == segment)
        sub.addDependence(local[v], local[p]);
    for (int b : uses[v])
      sub.addUse(local[v], localBuffer[b]);
  }
  return sub;
}

} // namespace detail
} // namespace serenity
