//===- Allocator.cpp - Heuristics, bounds and validation --------*- C++ -*-===//
//
// The heuristics (TFLM greedy, XLA best fit), the max-live lower bound, the
// validator, and the driver that turns the exact solver's capacity probes
// into a minimization.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Allocation/Allocator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_set>

using namespace serenity;

namespace {

int64_t alignUp(int64_t value, int64_t alignment) {
  int64_t rem = value % alignment;
  return rem == 0 ? value : value + alignment - rem;
}

/// Buffers that occupy no space or no time never conflict with anything.
bool isTrivial(const AllocBuffer &b) {
  return b.size == 0 || b.lower >= b.upper;
}

bool liveTogether(const AllocBuffer &a, const AllocBuffer &b) {
  return std::max(a.lower, b.lower) < std::min(a.upper, b.upper);
}

/// How a gap among placed buffers is chosen.
enum class GapChoice { FirstFit, BestFit };

/// Places buffers one by one in `order`; each goes into a gap among the
/// already placed buffers that are live at a common time with it (first or
/// smallest fitting gap), or on top of all of them.
std::vector<int64_t> placeInOrder(const std::vector<AllocBuffer> &buffers,
                                  const std::vector<int> &order,
                                  GapChoice choice) {
  std::vector<int64_t> offsets(buffers.size(), 0);
  // Placed buffers by time block (compressed times cut into blocks), so a
  // buffer meets only the placed ones in its blocks, not all of them (this
  // was quadratic: 100000 buffers took minutes).
  std::vector<int64_t> times;
  for (const AllocBuffer &b : buffers)
    if (!isTrivial(b)) {
      times.push_back(b.lower);
      times.push_back(b.upper);
    }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const int64_t numBlocks =
      std::max<int64_t>(1, std::min<int64_t>(256, times.size() / 64));
  auto blockOf = [&](int64_t time) {
    int64_t index =
        std::lower_bound(times.begin(), times.end(), time) - times.begin();
    return std::min<int64_t>(
        numBlocks - 1, index * numBlocks / std::max<int64_t>(1, times.size()));
  };
  std::vector<std::vector<int>> placedIn(numBlocks);
  std::vector<int> seen(buffers.size(), -1);
  std::vector<std::pair<int64_t, int64_t>> busy; // [offset, end) sorted.
  for (int i : order) {
    const AllocBuffer &b = buffers[i];
    if (isTrivial(b))
      continue;
    const int64_t first = blockOf(b.lower), last = blockOf(b.upper - 1);
    busy.clear();
    for (int64_t k = first; k <= last; ++k)
      for (int j : placedIn[k])
        if (seen[j] != i) {
          seen[j] = i;
          if (liveTogether(b, buffers[j]))
            busy.push_back({offsets[j], offsets[j] + buffers[j].size});
        }
    std::sort(busy.begin(), busy.end());
    int64_t candidate = 0;
    int64_t best = -1, bestGap = 0;
    for (const auto &[start, end] : busy) {
      int64_t gap = start - candidate;
      if (gap >= b.size) {
        if (choice == GapChoice::FirstFit) {
          best = candidate;
          break;
        }
        if (best < 0 || gap < bestGap) {
          best = candidate;
          bestGap = gap;
        }
      }
      candidate = std::max(candidate, alignUp(end, b.alignment));
    }
    offsets[i] = best >= 0 ? best : candidate;
    for (int64_t k = first; k <= last; ++k)
      placedIn[k].push_back(i);
  }
  return offsets;
}

std::vector<int> sortedOrder(
    const std::vector<AllocBuffer> &buffers,
    const std::function<bool(const AllocBuffer &, const AllocBuffer &)> &less) {
  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties keep input order (TFLM's reverse sort is stable).
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (less(buffers[a], buffers[b]))
      return true;
    if (less(buffers[b], buffers[a]))
      return false;
    return a < b;
  });
  return order;
}

/// TFLM's GreedyMemoryPlanner: largest first (ties in input order, as its
/// stable reverse sort), first fit.
std::vector<int64_t> greedyBySize(const std::vector<AllocBuffer> &buffers) {
  auto order =
      sortedOrder(buffers, [](const AllocBuffer &a, const AllocBuffer &b) {
        return a.size > b.size;
      });
  return placeInOrder(buffers, order, GapChoice::FirstFit);
}

/// XLA's GlobalDecreasingSizeBestFitHeap with its spatial (size first) and
/// temporal (lifetime first) orders; keeps the smaller arena.
std::vector<int64_t> bestFit(const std::vector<AllocBuffer> &buffers) {
  auto length = [](const AllocBuffer &b) { return b.upper - b.lower; };
  auto bySize =
      sortedOrder(buffers, [&](const AllocBuffer &a, const AllocBuffer &b) {
        if (a.size != b.size)
          return a.size > b.size;
        if (length(a) != length(b))
          return length(a) > length(b);
        return a.lower < b.lower;
      });
  auto byLifetime =
      sortedOrder(buffers, [&](const AllocBuffer &a, const AllocBuffer &b) {
        if (length(a) != length(b))
          return length(a) > length(b);
        if (a.size != b.size)
          return a.size > b.size;
        return a.lower < b.lower;
      });
  std::vector<int64_t> spatial =
      placeInOrder(buffers, bySize, GapChoice::BestFit);
  std::vector<int64_t> temporal =
      placeInOrder(buffers, byLifetime, GapChoice::BestFit);
  return arenaSize(buffers, temporal) < arenaSize(buffers, spatial) ? temporal
                                                                    : spatial;
}

/// A bound at least the max-live bytes that also counts alignment: at any
/// time the live buffers form a stack whose offsets are multiples of their
/// smallest alignment m, so all but the top one span alignUp(size, m).
int64_t alignedLowerBound(const std::vector<AllocBuffer> &buffers) {
  int64_t bound = maxLiveLowerBound(buffers);
  // One sweep over start and end times (ends first: intervals are
  // half-open), with, per distinct alignment a, the live buffers' count and
  // sum of alignUp(size, a) and a multiset of their roundings; the live set
  // only grows at start times, so the bound is taken there.
  std::vector<int64_t> alignments;
  for (const AllocBuffer &b : buffers)
    if (!isTrivial(b))
      alignments.push_back(b.alignment);
  std::sort(alignments.begin(), alignments.end());
  alignments.erase(std::unique(alignments.begin(), alignments.end()),
                   alignments.end());
  const size_t numAlignments = alignments.size();
  std::vector<int64_t> count(numAlignments, 0), total(numAlignments, 0);
  std::vector<std::multiset<int64_t>> slack(numAlignments);
  struct Event {
    int64_t time;
    bool start;
    int buffer;
  };
  std::vector<Event> events;
  for (int i = 0, e = static_cast<int>(buffers.size()); i < e; ++i)
    if (!isTrivial(buffers[i])) {
      events.push_back({buffers[i].lower, true, i});
      events.push_back({buffers[i].upper, false, i});
    }
  std::sort(events.begin(), events.end(), [](const Event &x, const Event &y) {
    return x.time != y.time ? x.time < y.time : x.start < y.start;
  });
  for (size_t k = 0; k < events.size(); ++k) {
    const Event &event = events[k];
    const AllocBuffer &b = buffers[event.buffer];
    const size_t own =
        std::lower_bound(alignments.begin(), alignments.end(), b.alignment) -
        alignments.begin();
    count[own] += event.start ? 1 : -1;
    for (size_t a = 0; a < numAlignments; ++a) {
      int64_t spanned = alignUp(b.size, alignments[a]);
      if (event.start) {
        total[a] += spanned;
        slack[a].insert(spanned - b.size);
      } else {
        total[a] -= spanned;
        slack[a].erase(slack[a].find(spanned - b.size));
      }
    }
    bool lastAtTime =
        k + 1 == events.size() || events[k + 1].time != event.time;
    if (!event.start || !lastAtTime)
      continue;
    // The smallest alignment among the live buffers.
    size_t m = 0;
    while (m < numAlignments && count[m] == 0)
      ++m;
    if (m < numAlignments)
      bound = std::max(bound, total[m] - *slack[m].rbegin());
  }
  return bound;
}

} // namespace

int64_t serenity::maxLiveLowerBound(const std::vector<AllocBuffer> &buffers) {
  // Ends sort before starts at the same time: intervals are half-open.
  std::vector<std::pair<int64_t, int64_t>> events;
  int64_t peak = 0;
  for (const AllocBuffer &b : buffers) {
    // A buffer that is never live still occupies its bytes of the arena.
    peak = std::max(peak, b.size);
    if (isTrivial(b))
      continue;
    events.push_back({b.lower, b.size});
    events.push_back({b.upper, -b.size});
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  for (const auto &[time, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t serenity::arenaSize(const std::vector<AllocBuffer> &buffers,
                            const std::vector<int64_t> &offsets) {
  int64_t arena = 0;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].size > 0)
      arena = std::max(arena, offsets[i] + buffers[i].size);
  return arena;
}

std::optional<std::string>
serenity::validateBuffers(const std::vector<AllocBuffer> &buffers) {
  std::unordered_set<std::string> ids;
  for (const AllocBuffer &b : buffers) {
    if (b.size < 0)
      return "buffer '" + b.id + "' has negative size " +
             std::to_string(b.size);
    if (b.alignment <= 0)
      return "buffer '" + b.id + "' has non-positive alignment " +
             std::to_string(b.alignment);
    if (b.lower > b.upper)
      return "buffer '" + b.id + "' has lower " + std::to_string(b.lower) +
             " > upper " + std::to_string(b.upper);
    if (!ids.insert(b.id).second)
      return "duplicate buffer id '" + b.id + "'";
  }
  return std::nullopt;
}

std::optional<std::string>
serenity::validatePlacement(const std::vector<AllocBuffer> &buffers,
                            const std::vector<int64_t> &offsets,
                            std::optional<int64_t> capacity) {
  if (offsets.size() != buffers.size())
    return "expected " + std::to_string(buffers.size()) + " offsets, got " +
           std::to_string(offsets.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    const AllocBuffer &b = buffers[i];
    if (offsets[i] < 0)
      return "buffer '" + b.id + "' has negative offset " +
             std::to_string(offsets[i]);
    if (offsets[i] % b.alignment != 0)
      return "buffer '" + b.id + "' at offset " + std::to_string(offsets[i]) +
             " violates alignment " + std::to_string(b.alignment);
    if (capacity && offsets[i] + b.size > *capacity)
      return "buffer '" + b.id + "' ends at " +
             std::to_string(offsets[i] + b.size) + " beyond capacity " +
             std::to_string(*capacity);
  }
  // Sweep in start order: only buffers starting before i ends can overlap it.
  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return buffers[a].lower < buffers[b].lower; });
  for (size_t x = 0; x < order.size(); ++x) {
    const AllocBuffer &a = buffers[order[x]];
    if (isTrivial(a))
      continue;
    for (size_t y = x + 1; y < order.size(); ++y) {
      const AllocBuffer &b = buffers[order[y]];
      if (b.lower >= a.upper)
        break;
      if (isTrivial(b) || !liveTogether(a, b))
        continue;
      int64_t oa = offsets[order[x]], ob = offsets[order[y]];
      if (oa < ob + b.size && ob < oa + a.size)
        return "buffers '" + a.id + "' [" + std::to_string(oa) + ", " +
               std::to_string(oa + a.size) + ") and '" + b.id + "' [" +
               std::to_string(ob) + ", " + std::to_string(ob + b.size) +
               ") overlap in memory while both live at time " +
               std::to_string(std::max(a.lower, b.lower));
    }
  }
  return std::nullopt;
}

AllocResult serenity::allocate(const std::vector<AllocBuffer> &buffers,
                               const AllocOptions &options) {
  AllocResult result;
  result.lowerBound = maxLiveLowerBound(buffers);
  // Arenas below this are impossible; it exceeds lowerBound only when
  // alignment forces gaps.
  const int64_t provenBelow = alignedLowerBound(buffers);

  auto accept = [&](std::vector<int64_t> offsets) {
    result.offsets = std::move(offsets);
    result.arenaSize = arenaSize(buffers, result.offsets);
    result.provenOptimal = result.arenaSize <= provenBelow;
  };
  auto fitsCapacity = [&]() {
    return !options.capacity || result.arenaSize <= *options.capacity;
  };

  if (options.algorithm != AllocAlgorithm::Exact) {
    accept(options.algorithm == AllocAlgorithm::GreedySize
               ? greedyBySize(buffers)
               : bestFit(buffers));
    if (fitsCapacity()) {
      result.status = AllocResult::Status::Placed;
    } else if (result.lowerBound > *options.capacity) {
      result.status = AllocResult::Status::Infeasible;
      result.message = "no placement fits capacity " +
                       std::to_string(*options.capacity) +
                       ": the lower bound (max live bytes) is " +
                       std::to_string(result.lowerBound);
    } else {
      result.status = AllocResult::Status::NotFound;
      result.message =
          std::string(allocAlgorithmName(options.algorithm)) + " needs " +
          std::to_string(result.arenaSize) + " bytes, more than capacity " +
          std::to_string(*options.capacity) + " (try --algorithm exact)";
    }
    return result;
  }

  // Exact: start from the better heuristic so an answer exists early.
  {
    std::vector<int64_t> greedy = greedyBySize(buffers);
    std::vector<int64_t> fit = bestFit(buffers);
    accept(arenaSize(buffers, fit) < arenaSize(buffers, greedy) ? fit : greedy);
  }
  if (options.capacity && provenBelow > *options.capacity) {
    result.status = AllocResult::Status::Infeasible;
    result.provenOptimal = false;
    result.message = "no placement fits capacity " +
                     std::to_string(*options.capacity) +
                     ": the lower bound (max live bytes) is " +
                     std::to_string(result.lowerBound);
    if (provenBelow > result.lowerBound)
      result.message +=
          ", " + std::to_string(provenBelow) + " with alignment gaps";
    return result;
  }

  // The search's clock counts its work from zero; the wall-clock safety net
  // is on only when asked for (milliseconds, at least 1).
  WorkClock::Scope clock(
      options.timeLimitSeconds > 0
          ? static_cast<int64_t>(std::ceil(
                std::min(options.timeLimitSeconds, 1e12) * 1000.0))
          : 0);
  const WorkClock::Point deadline = WorkClock::after(options.workLimit);
  // The work done, as long as the clock counts it (the safety net moves it
  // to WorkClock::kEnd).
  auto noteWork = [&]() {
    if (!WorkClock::wallExpired())
      result.work = WorkClock::now();
  };
  auto stopped = [&]() {
    noteWork();
    result.stop = WorkClock::wallExpired() ? SearchStop::Time
                  : result.stop == SearchStop::States ? SearchStop::States
                                                      : SearchStop::Work;
  };

  // The solver only sees buffers that can conflict; trivial ones stay at 0.
  std::vector<AllocBuffer> core;
  std::vector<int> coreIndex;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (!isTrivial(buffers[i])) {
      core.push_back(buffers[i]);
      coreIndex.push_back(static_cast<int>(i));
    }
  auto expand = [&](const std::vector<int64_t> &coreOffsets) {
    std::vector<int64_t> offsets(buffers.size(), 0);
    for (size_t k = 0; k < core.size(); ++k)
      offsets[coreIndex[k]] = coreOffsets[k];
    return offsets;
  };
  // Returns the probe outcome; on Found the placement is accepted.
  auto probe = [&](int64_t capacity, WorkClock::Point probeDeadline) {
    detail::ExactProbe p = detail::solveExact(core, capacity, probeDeadline);
    result.nodes += p.nodes;
    noteWork();
    if (p.outcome == detail::ExactProbe::Outcome::Found)
      accept(expand(p.offsets));
    result.stalled = result.stalled || p.stalled;
    if (p.listsTooLarge)
      result.stop = SearchStop::States;
    return p.outcome;
  };
  using Outcome = detail::ExactProbe::Outcome;

  if (!fitsCapacity()) {
    Outcome o = probe(*options.capacity, deadline);
    if (o == Outcome::Infeasible) {
      result.status = AllocResult::Status::Infeasible;
      result.provenOptimal = false;
      result.message = "no placement fits capacity " +
                       std::to_string(*options.capacity) +
                       " (proven by exhaustive search; lower bound " +
                       std::to_string(result.lowerBound) + ")";
      return result;
    }
    if (o == Outcome::Stopped) {
      stopped();
      result.status = AllocResult::Status::NotFound;
      result.provenOptimal = false;
      result.message = "no placement within capacity " +
                       std::to_string(*options.capacity) +
                       " found: the search was stopped by " +
                       getSearchStopName(result.stop) +
                       " (best heuristic arena " +
                       std::to_string(result.arenaSize) + ", lower bound " +
                       std::to_string(result.lowerBound) + ")";
      return result;
    }
  }
  result.status = AllocResult::Status::Placed;
  if (options.capacity && !options.minimize)
    return result;

  // Minimize: every arena <= `infeasibleUpTo` is proven impossible; probe
  // the lower bound first (often tight), then bisect. Each probe may use
  // half the remaining work budget so a hard probe cannot starve the rest; a
  // probe that is stopped proves nothing but moves the bisection up.
  int64_t infeasibleUpTo = provenBelow - 1;
  int64_t searchFrom = infeasibleUpTo;
  bool first = true;
  bool stoppedProbe = false;
  while (result.arenaSize - searchFrom > 1) {
    const WorkClock::Point now = WorkClock::now();
    if (now >= deadline) {
      stopped();
      break;
    }
    int64_t target =
        first ? provenBelow : searchFrom + (result.arenaSize - searchFrom) / 2;
    first = false;
    Outcome o = probe(target, now + (deadline - now) / 2);
    if (o == Outcome::Stopped && result.stalled) {
      stopped();
      break;
    }
    // Feasibility is monotone in the capacity, so one infeasible probe
    // proves every smaller arena infeasible too.
    if (o == Outcome::Infeasible)
      infeasibleUpTo = std::max(infeasibleUpTo, target);
    if (o == Outcome::Stopped)
      stoppedProbe = true;
    if (o != Outcome::Found)
      searchFrom = target;
  }
  result.provenOptimal = result.arenaSize - infeasibleUpTo <= 1;
  // A probe stopped on its share of the budget is reported when it cost the
  // proof; the bisection may still have closed the gap above it.
  if (result.stop == SearchStop::None && !result.provenOptimal && stoppedProbe)
    stopped();
  if (result.provenOptimal)
    result.stop = SearchStop::None;
  return result;
}
