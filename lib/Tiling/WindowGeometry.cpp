//===- WindowGeometry.cpp - Input windows of spatial tiles -----*- C++ -*-===//

#include "Serenity/Tiling/WindowGeometry.h"

#include <algorithm>
#include <cassert>

namespace serenity {

Interval Interval::hull(const Interval &other) const {
  if (size() <= 0)
    return other;
  if (other.size() <= 0)
    return *this;
  return {std::min(begin, other.begin), std::max(end, other.end)};
}

int64_t WindowDim::outputSize() const {
  int64_t span = (kernel - 1) * dilation + 1;
  return (inputSize + padBefore + padAfter - span) / stride + 1;
}

WindowTile windowTile(const WindowDim &dim, Interval output) {
  assert(output.size() > 0 && output.begin >= 0 &&
         output.end <= dim.outputSize() && "output tile outside the op");
  int64_t span = (dim.kernel - 1) * dim.dilation + 1;
  // Unclipped window: the first tap of the first output to the last tap of
  // the last output, in input coordinates (padding before index 0).
  int64_t first = output.begin * dim.stride - dim.padBefore;
  int64_t last = (output.end - 1) * dim.stride - dim.padBefore + span;
  WindowTile tile;
  tile.input = {std::max<int64_t>(first, 0),
                std::min<int64_t>(last, dim.inputSize)};
  tile.padBefore = tile.input.begin - first;
  tile.padAfter = last - tile.input.end;
  return tile;
}

std::vector<Interval> splitEvenly(int64_t size, int64_t parts) {
  parts = std::clamp<int64_t>(parts, 1, std::max<int64_t>(size, 1));
  std::vector<Interval> result;
  int64_t begin = 0;
  for (int64_t part = 0; part < parts; ++part) {
    int64_t length = size / parts + (part < size % parts ? 1 : 0);
    result.push_back({begin, begin + length});
    begin += length;
  }
  return result;
}

} // namespace serenity
