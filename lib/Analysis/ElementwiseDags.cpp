//===- ElementwiseDags.cpp - Which element-wise loops fuse into one -*- C++ -*-===//

#include "Serenity/Analysis/ElementwiseDags.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>

using namespace mlir::serenity;

/// Bytes of `reads`, each buffer counted once (at its largest read: views of
/// one tensor hold its buffer once).
static int64_t bytesOf(llvm::ArrayRef<DagUnit::Read> reads) {
  llvm::DenseMap<const void *, int64_t> buffers;
  for (const DagUnit::Read &read : reads) {
    int64_t &bytes = buffers[read.buffer];
    bytes = std::max(bytes, read.bytes);
  }
  int64_t total = 0;
  for (auto &entry : buffers)
    total += entry.second;
  return total;
}

llvm::SmallVector<unsigned>
mlir::serenity::groupElementwiseDags(llvm::ArrayRef<DagUnit> units) {
  unsigned count = units.size();
  llvm::SmallVector<unsigned> group(count);
  for (unsigned i = 0; i < count; ++i)
    group[i] = i;
  // Users come after their producer: deciding from the last unit backwards,
  // a unit's users already know their loop.
  for (unsigned i = count; i-- > 0;) {
    const DagUnit &unit = units[i];
    if (!unit.eligible || unit.otherUsers || unit.users.empty())
      continue;
    unsigned target = group[unit.users.front()];
    if (llvm::all_of(unit.users, [&](unsigned user) {
          return units[user].eligible && group[user] == target;
        }))
      group[i] = target;
  }

  llvm::DenseMap<unsigned, llvm::SmallVector<unsigned>> members;
  for (unsigned i = 0; i < count; ++i)
    members[group[i]].push_back(i);
  for (auto &entry : members) {
    unsigned root = entry.first;
    llvm::SmallVector<unsigned> &inside = entry.second;
    if (inside.size() < 2)
      continue;
    llvm::SmallVector<DagUnit::Read> leaves;
    int64_t largestInternal = 0;
    for (unsigned m : inside) {
      if (m != root)
        largestInternal = std::max(largestInternal, units[m].resultBytes);
      for (const DagUnit::Read &read : units[m].reads)
        if (read.producer < 0 || group[read.producer] != root)
          leaves.push_back(read);
    }
    if (bytesOf(leaves) <= largestInternal)
      continue;

    // Too many bytes read for one loop: fuse only the single-user edges of
    // the group whose producer (with what is fused into it) reads no more
    // than it writes, deciding producers first.
    llvm::DenseMap<unsigned, unsigned> joinedInto;
    std::function<void(unsigned, llvm::SmallVectorImpl<DagUnit::Read> &)>
        readsOf = [&](unsigned m, llvm::SmallVectorImpl<DagUnit::Read> &out) {
          for (const DagUnit::Read &read : units[m].reads) {
            auto it = read.producer < 0 ? joinedInto.end()
                                        : joinedInto.find(read.producer);
            if (it != joinedInto.end() && it->second == m)
              readsOf(read.producer, out);
            else
              out.push_back(read);
          }
        };
    for (unsigned m : inside) {
      if (m == root)
        continue;
      const DagUnit &unit = units[m];
      unsigned user = unit.users.front();
      if (llvm::any_of(unit.users, [&](unsigned u) { return u != user; }))
        continue;
      llvm::SmallVector<DagUnit::Read> reads;
      readsOf(m, reads);
      if (bytesOf(reads) <= unit.resultBytes)
        joinedInto[m] = user;
    }
    for (unsigned m : inside) {
      unsigned last = m;
      for (auto it = joinedInto.find(last); it != joinedInto.end();
           it = joinedInto.find(last))
        last = it->second;
      group[m] = last;
    }
  }
  return group;
}
