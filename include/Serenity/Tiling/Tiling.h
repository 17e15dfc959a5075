//===- Tiling.h - Fused feature-map tiling of TOSA regions -----*- C++ -*-===//
//
// Fused feature-map tiling (FFMT, Stahl et al.): a region of a function body
// that reads one activation and produces one is computed tile by tile, each
// tile carried through the whole region with the halo its windows need (the
// overlap is recomputed), padding only at the real borders; the tiles are
// concatenated into the region's output. Only the region's input and output
// exist whole, every intermediate one tile at a time. docs/Tiling.md.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TILING_TILING_H
#define SERENITY_TILING_TILING_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir {
namespace serenity {

/// Ops of one block that fused feature-map tiling can split spatially: every
/// op is a conv2d, depthwise_conv2d, max_pool2d, avg_pool2d, pointwise op
/// (TOSA elementwise, rescale, clamp, cast) or a tosa.slice of rows and
/// columns (constant bounds) with one statically shaped NHWC result; the only activation read from outside is `input` (any number of
/// times, e.g. by a residual add); every result but the last is used only
/// inside; constants read by pointwise ops have no spatial extent.
struct SpatialRegion {
  /// In block order; the last one defines `output`.
  SmallVector<Operation *> ops;
  Value input;
  Value output;
};

/// Checks that `ops` (scheduled ops of one block in block order; no
/// constants) form a SpatialRegion; otherwise sets `reason`.
FailureOr<SpatialRegion> getSpatialRegion(ArrayRef<Operation *> ops,
                                          std::string &reason);

/// A grid of rows x cols tiles over the region's output (sizes differ by at
/// most one row/column).
struct TileGrid {
  int64_t rows = 1;
  int64_t cols = 1;
};

/// Replaces the region by its tiles, in row-major tile order, right before
/// the region's last op: per tile, a tosa.slice of the input (with the halo
/// the tile needs) and a clone of every op with the tile's shape and padding
/// (slices in between where one value feeds windows of different extent).
/// Each row of tiles is concatenated along W (when cols > 1), the rows along
/// H; the concats get `concatAttr` and the tile ops (clones, not the slices)
/// `tileAttr` when given (unit attributes). Returns the final concat;
/// fails (IR unchanged) when the grid is finer than the output or a tile
/// would read no input.
FailureOr<Operation *> tileSpatialRegion(RewriterBase &rewriter,
                                         const SpatialRegion &region,
                                         TileGrid grid,
                                         StringRef concatAttr = {},
                                         StringRef tileAttr = {});

/// Fused depthwise (channel) tiling (FDT, Stahl et al.): a chain of ops
/// whose first op is a tosa.conv2d with constant weights (split by output
/// channels: the implicit fan-out), followed by channel-independent ops
/// (depthwise conv with channel multiplier 1, pointwise ops whose constants
/// are per channel or broadcast, pools), and ending either in the last of
/// those (the partitions are concatenated along C) or in a tosa.conv2d with
/// constant weights (`fanIn`: split by input channels, the partial results
/// summed with tosa.add; float convs accumulating in their result type, or
/// integer convs with i32 results, which add up bit-exactly). Every value
/// but the last has one use, the next op of the chain.
/// A region may also start with a channel-independent op (`explicitSplit`,
/// the paper's SPLIT block): each partition then starts with a tosa.slice of
/// the input's channels.
struct ChannelRegion {
  SmallVector<Operation *> ops;
  Value input;
  Value output;
  bool fanIn = false;
  bool explicitSplit = false;
};

/// Checks that `ops` form a ChannelRegion; otherwise sets `reason`.
FailureOr<ChannelRegion> getChannelRegion(ArrayRef<Operation *> ops,
                                          std::string &reason);

/// Replaces the region by `parts` channel partitions (sizes differing by at
/// most one), each carried through the chain before the next starts, right
/// before the region's last op; constants are sliced per partition (new
/// tosa.const ops). Concat end: one tosa.concat along C (with `concatAttr`);
/// fan-in: the partial convs (the first keeps the bias, the others get a zero
/// bias) summed by a chain of tosa.add. The clones get `tileAttr`. Returns
/// the op defining the new output; fails (IR unchanged) when `parts` is not
/// in [2, channels].
FailureOr<Operation *> tileChannelRegion(RewriterBase &rewriter,
                                         const ChannelRegion &region,
                                         int64_t parts,
                                         StringRef concatAttr = {},
                                         StringRef tileAttr = {});

/// Multiply-accumulates of one op: conv2d, depthwise_conv2d,
/// transpose_conv2d, matmul (0 for other ops).
int64_t countMacs(Operation *op);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_TILING_TILING_H
