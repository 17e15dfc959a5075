//===- WindowGeometry.h - Input windows of spatial tiles -------*- C++ -*-===//
//
// Plain C++ (no MLIR): which input rows a range of output rows of a sliding
// window op (convolution, depthwise convolution, pooling) reads, and the
// padding a tile of that op needs so that it computes exactly those output
// rows. Fused feature-map tiling (serenity-tile) applies it dimension by
// dimension, from the last op of a tiled region back to its input.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TILING_WINDOWGEOMETRY_H
#define SERENITY_TILING_WINDOWGEOMETRY_H

#include <cstdint>
#include <vector>

namespace serenity {

/// A half-open range [begin, end) of indices along one dimension.
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;

  int64_t size() const { return end - begin; }
  bool operator==(const Interval &other) const {
    return begin == other.begin && end == other.end;
  }
  bool operator!=(const Interval &other) const { return !(*this == other); }
  /// The smallest interval holding both (an empty one holds nothing).
  Interval hull(const Interval &other) const;
};

/// One spatial dimension of a sliding window op: output index o reads input
/// indices o * stride - padBefore + k * dilation for k in [0, kernel); the
/// ones outside [0, inputSize) are padding.
struct WindowDim {
  int64_t inputSize = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t padBefore = 0;
  int64_t padAfter = 0;

  /// Output size of the whole op (TOSA's formula; exact when valid).
  int64_t outputSize() const;
};

/// What a tile computing output indices `output` of a window op reads.
struct WindowTile {
  /// The input indices read, clipped to the input.
  Interval input;
  /// Padding of the tile op: the window positions before/after `input`
  /// that fall outside the real input (only at the real borders).
  int64_t padBefore = 0;
  int64_t padAfter = 0;
};

/// The input window of output indices `output` (non-empty, inside the op's
/// output). A window op applied to `input` with the returned padding and the
/// original kernel, stride and dilation computes exactly those outputs.
WindowTile windowTile(const WindowDim &dim, Interval output);

/// `size` indices split into `parts` consecutive intervals whose sizes differ
/// by at most one (larger ones first); parts is clamped to [1, size].
std::vector<Interval> splitEvenly(int64_t size, int64_t parts);

} // namespace serenity

#endif // SERENITY_TILING_WINDOWGEOMETRY_H
