//===- ElementwiseDagsTest.cpp - groupElementwiseDags on plain DAGs -*- C++ -*-===//

#include "Serenity/Analysis/ElementwiseDags.h"

#include <gtest/gtest.h>

using namespace mlir::serenity;

namespace {

/// Distinct buffer identities for the reads of the tests.
const int kBuffers[8] = {};

DagUnit::Read read(int buffer, int64_t bytes, int producer = -1) {
  DagUnit::Read r;
  r.buffer = &kBuffers[buffer];
  r.bytes = bytes;
  r.producer = producer;
  return r;
}

DagUnit unit(int64_t bytes, llvm::SmallVector<unsigned> users,
             llvm::SmallVector<DagUnit::Read> reads, bool otherUsers = false) {
  DagUnit u;
  u.eligible = true;
  u.resultBytes = bytes;
  u.users = std::move(users);
  u.reads = std::move(reads);
  u.otherUsers = otherUsers;
  return u;
}

// A float QUANTIZE in small: x (f32, 400 B) -> m (read by three units) ->
// ... -> an i8 result (100 B). One loop: it reads x once, less than m.
TEST(ElementwiseDags, MultiUserValueJoinsItsUsersLoop) {
  llvm::SmallVector<DagUnit> units = {
      unit(400, {1, 2, 3}, {read(0, 400)}),          // 0: m = x * k
      unit(400, {2}, {read(1, 400, 0)}),             // 1: f = floor(m)
      unit(100, {3}, {read(1, 400, 0), read(2, 400, 1)}), // 2: b = m > f (i1)
      unit(100, {}, {read(1, 400, 0), read(3, 100, 2)},
           /*otherUsers=*/true),                     // 3: y = select(b, m) (i8)
  };
  llvm::SmallVector<unsigned> groups = groupElementwiseDags(units);
  EXPECT_EQ(groups, (llvm::SmallVector<unsigned>{3, 3, 3, 3}));
}

// A value also read outside the DAG (returned) stays its own loop; so does a
// producer whose users are in different loops.
TEST(ElementwiseDags, OtherUsersKeepTheValue) {
  llvm::SmallVector<DagUnit> units = {
      unit(400, {1, 2}, {read(0, 400)}),
      unit(400, {}, {read(1, 400, 0)}, /*otherUsers=*/true),
      unit(400, {}, {read(1, 400, 0)}, /*otherUsers=*/true),
  };
  EXPECT_EQ(groupElementwiseDags(units), (llvm::SmallVector<unsigned>{0, 1, 2}));
  units[0].otherUsers = true;
  units[0].users = {1};
  EXPECT_EQ(groupElementwiseDags(units), (llvm::SmallVector<unsigned>{0, 1, 2}));
}

// a = x + y (both 400 B), b = relu(a), c = b * 2: one loop would read 800 B
// for temporaries of 400 B. Only b -> c (reads 400 B, writes 400 B) fuses.
TEST(ElementwiseDags, TooManyBytesReadFallsBackToChains) {
  llvm::SmallVector<DagUnit> units = {
      unit(400, {1}, {read(0, 400), read(1, 400)}),
      unit(400, {2}, {read(2, 400, 0)}),
      unit(400, {}, {read(3, 400, 1)}, /*otherUsers=*/true),
  };
  EXPECT_EQ(groupElementwiseDags(units), (llvm::SmallVector<unsigned>{0, 2, 2}));
}

// Views of one buffer are read once; an ineligible unit (it reads a conv
// accumulator) joins nothing and nothing joins it.
TEST(ElementwiseDags, ViewsCountOnceIneligibleStaysAlone) {
  llvm::SmallVector<DagUnit> units = {
      unit(24, {2}, {read(0, 12)}),
      unit(24, {2}, {read(0, 16)}),
      unit(12, {}, {read(1, 24, 0), read(2, 24, 1)}, /*otherUsers=*/true),
  };
  EXPECT_EQ(groupElementwiseDags(units), (llvm::SmallVector<unsigned>{2, 2, 2}));
  units[2].eligible = false;
  EXPECT_EQ(groupElementwiseDags(units), (llvm::SmallVector<unsigned>{0, 1, 2}));
}

} // namespace
