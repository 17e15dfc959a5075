//===- LargeAllocatorTest.cpp - Tests for LargeAllocator ------------------===//

#include "../../lib/Scheduling/LargeAllocator.h"

#include "gtest/gtest.h"

#include <cstdint>

using namespace serenity::detail;

namespace {

TEST(LargeAllocator, LargeBlocksAreHugePageAligned) {
  LargeVector<uint64_t> large(LargeAllocator<uint64_t>::kLargeBytes / 8 + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) %
                LargeAllocator<uint64_t>::kHugePage,
            0u);
  // Every byte of the block is usable (the block is rounded up, not down).
  large.back() = 7;
  EXPECT_EQ(large.back(), 7u);
}

TEST(LargeAllocator, GrowingAcrossTheThresholdKeepsTheContents) {
  // Push past the threshold one element at a time: the vector moves from
  // operator new to the aligned blocks and frees each with its own path.
  LargeVector<int64_t> values;
  const int64_t count =
      3 * static_cast<int64_t>(LargeAllocator<int64_t>::kLargeBytes / 8);
  for (int64_t i = 0; i < count; ++i)
    values.push_back(i * 3 + 1);
  for (int64_t i = 0; i < count; ++i)
    ASSERT_EQ(values[i], i * 3 + 1) << "at " << i;
  values.clear();
  values.shrink_to_fit();
  values.assign(100, 5);
  EXPECT_EQ(values[99], 5);
}

} // namespace
