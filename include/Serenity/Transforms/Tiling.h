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

#ifndef SERENITY_TRANSFORMS_TILING_H
#define SERENITY_TRANSFORMS_TILING_H

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

/// Multiply-accumulates of one op: conv2d, depthwise_conv2d,
/// transpose_conv2d, matmul (0 for other ops).
int64_t countMacs(Operation *op);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_TRANSFORMS_TILING_H
