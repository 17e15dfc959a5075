//===- Rewrite.h - Identity graph rewriting around concats -----*- C++ -*-===//
//
// SERENITY's identity graph rewrites on TOSA: they change the graph around a
// channel concatenation without changing its math, so that a scheduler can
// keep one branch live at a time instead of all of them. docs/Rewriting.md
// explains the patterns, the profitability rule and the limits.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_GRAPH_REWRITE_H
#define SERENITY_GRAPH_REWRITE_H

#include "Serenity/Analysis/MemoryGraph.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace serenity {

/// Channel-wise partitioning: a `tosa.concat` on the channel axis whose users
/// are all `tosa.conv2d` ops reading it as input becomes, per conv, one
/// partial conv2d per concat input (weights sliced along IC into new
/// constants) summed with `tosa.add`; the bias is added by the first partial
/// only. Float convs must accumulate in their result type (equal up to
/// summation order); integer convs must have i32 results (bit-exact).
/// Debug name: "channel-partition".
void populateSerenityChannelPartitionPatterns(RewritePatternSet &patterns);

/// Kernel-wise partitioning: a channel concat whose users are all
/// `tosa.depthwise_conv2d` ops reading it as input becomes, per conv, one
/// depthwise conv per concat input (weight and bias slices as constants)
/// followed by a concat of their results. Exact for every element type.
/// Debug name: "kernel-partition".
void populateSerenityKernelPartitionPatterns(RewritePatternSet &patterns);

/// Pushes channel-independent ops through a concat: when every user of a
/// concat is an elementwise unary op (clamp, sigmoid, tanh, exp, abs, negate,
/// ...) or, for a channel concat, a per-channel pooling (max_pool2d,
/// avg_pool2d), each user becomes a concat of the op applied to every input.
/// Exact for every element type. Debug name: "push-through-concat".
void populateSerenityConcatPushPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateSerenityRewritePatterns(RewritePatternSet &patterns);

/// True when some pattern above could rewrite `op` as a user of a concat:
/// conv2d, depthwise_conv2d, an elementwise unary op or a pooling.
bool isPartitionableUser(Operation *op);

/// The dp's state limit in scheduledPeak (per search of the dp); calibrated
/// in docs/Rewriting.md ("Work limit").
constexpr int64_t kScheduledPeakStates = 200000;

/// The peak the rewrite pass compares before and after a candidate rewrite:
/// the DP scheduler's peak (`serenity::schedule`, stopped by
/// kScheduledPeakStates states per search, never by the clock), which is
/// exact under every memory model option and never worse than program
/// order. This is the one place the pass depends on a scheduler.
int64_t scheduledPeak(const ::serenity::MemoryGraph &graph);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_GRAPH_REWRITE_H
