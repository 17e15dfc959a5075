//===- WindowGeometryTest.cpp - windowTile against brute force -*- C++ -*-===//

#include "Serenity/Tiling/WindowGeometry.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace serenity;

namespace {

/// The input indices output `o` reads (padding included, unclipped).
std::vector<int64_t> taps(const WindowDim &dim, int64_t o) {
  std::vector<int64_t> result;
  for (int64_t k = 0; k < dim.kernel; ++k)
    result.push_back(o * dim.stride - dim.padBefore + k * dim.dilation);
  return result;
}

/// Brute force: the tile's window re-indexed on the clipped input must give
/// every output of the tile the same real taps, and the padding must be the
/// taps that fall outside the real input at the tile's ends.
void checkAgainstBruteForce(const WindowDim &dim, Interval output) {
  WindowTile tile = windowTile(dim, output);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t o = output.begin; o < output.end; ++o)
    for (int64_t tap : taps(dim, o)) {
      if (tap < 0 || tap >= dim.inputSize)
        continue;
      lo = std::min(lo, tap);
      hi = std::max(hi, tap + 1);
    }
  // Every real tap is inside the window (with dilation the window may also
  // hold rows between taps), and the window is inside the input.
  ASSERT_LE(tile.input.begin, lo);
  ASSERT_GE(tile.input.end, hi);
  ASSERT_GE(tile.input.begin, 0);
  ASSERT_LE(tile.input.end, dim.inputSize);
  if (dim.dilation == 1) {
    ASSERT_EQ(tile.input.begin, lo);
    ASSERT_EQ(tile.input.end, hi);
  }
  // The tile op: input [0, size) with the tile's padding.
  WindowDim local = dim;
  local.inputSize = tile.input.size();
  local.padBefore = tile.padBefore;
  local.padAfter = tile.padAfter;
  ASSERT_EQ(local.outputSize(), output.size());
  // Exact TOSA shape rule: the division has no remainder.
  ASSERT_EQ((local.inputSize + local.padBefore + local.padAfter -
             ((dim.kernel - 1) * dim.dilation + 1)) %
                dim.stride,
            0);
  for (int64_t o = output.begin; o < output.end; ++o) {
    std::vector<int64_t> global = taps(dim, o);
    std::vector<int64_t> shifted = taps(local, o - output.begin);
    for (size_t k = 0; k < global.size(); ++k) {
      bool realGlobal = global[k] >= 0 && global[k] < dim.inputSize;
      bool realLocal = shifted[k] >= 0 && shifted[k] < local.inputSize;
      ASSERT_EQ(realGlobal, realLocal) << "o=" << o << " k=" << k;
      if (realGlobal)
        ASSERT_EQ(global[k], shifted[k] + tile.input.begin);
    }
  }
}

TEST(WindowGeometry, MatchesBruteForceOnEveryTileOfValidOps) {
  int checked = 0;
  for (int64_t kernel = 1; kernel <= 5; ++kernel)
    for (int64_t stride = 1; stride <= 3; ++stride)
      for (int64_t dilation = 1; dilation <= 2; ++dilation)
        for (int64_t padBefore = 0; padBefore < kernel; ++padBefore)
          for (int64_t padAfter = 0; padAfter < kernel; ++padAfter)
            for (int64_t input = 1; input <= 11; ++input) {
              WindowDim dim{input,    kernel,    stride,
                            dilation, padBefore, padAfter};
              int64_t span = (kernel - 1) * dilation + 1;
              int64_t extent = input + padBefore + padAfter - span;
              if (extent < 0 || extent % stride != 0)
                continue; // Not a valid TOSA op.
              int64_t outputs = dim.outputSize();
              for (int64_t begin = 0; begin < outputs; ++begin)
                for (int64_t end = begin + 1; end <= outputs; ++end) {
                  checkAgainstBruteForce(dim, {begin, end});
                  ++checked;
                }
            }
  EXPECT_GT(checked, 1000);
}

TEST(WindowGeometry, WholeOutputReadsWholeInputWithOriginalPadding) {
  WindowDim dim{48, 3, 2, 1, 0, 1};
  WindowTile tile = windowTile(dim, {0, dim.outputSize()});
  EXPECT_EQ(tile.input, (Interval{0, 48}));
  EXPECT_EQ(tile.padBefore, 0);
  EXPECT_EQ(tile.padAfter, 1);
}

TEST(WindowGeometry, InnerTileHasNoPaddingAndAHalo) {
  // 3x3, stride 1, pad 1: rows 4..7 of the output read rows 3..8.
  WindowTile tile = windowTile({16, 3, 1, 1, 1, 1}, {4, 8});
  EXPECT_EQ(tile.input, (Interval{3, 9}));
  EXPECT_EQ(tile.padBefore, 0);
  EXPECT_EQ(tile.padAfter, 0);
}

TEST(WindowGeometry, SplitEvenly) {
  std::vector<Interval> parts = splitEvenly(10, 4);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], (Interval{0, 3}));
  EXPECT_EQ(parts[1], (Interval{3, 6}));
  EXPECT_EQ(parts[2], (Interval{6, 8}));
  EXPECT_EQ(parts[3], (Interval{8, 10}));
  EXPECT_EQ(splitEvenly(3, 7).size(), 3u);
  EXPECT_EQ(splitEvenly(5, 0).size(), 1u);
}

TEST(WindowGeometry, Hull) {
  EXPECT_EQ((Interval{2, 5}).hull({4, 9}), (Interval{2, 9}));
  EXPECT_EQ((Interval{0, 0}).hull({4, 9}), (Interval{4, 9}));
}

} // namespace
