//===- MemoryModel.h - DESIGN.md memory model over MLIR IR -----*- C++ -*-===//
//
// Adapter from a function body to the plain MemoryGraph: which ops are
// scheduled steps, which values are activation buffers, their sizes, and
// which values alias which buffer.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ANALYSIS_MEMORYMODEL_H
#define SERENITY_ANALYSIS_MEMORYMODEL_H

#include "Serenity/Analysis/ConcatMode.h"
#include "Serenity/Analysis/MemoryGraph.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace serenity {

/// True for ops whose results live in ROM and are not scheduled: tosa.const,
/// tosa.const_shape, arith.constant (and any op with the ConstantLike trait).
bool isConstantLike(Operation *op);

/// True for ops whose single result aliases their first operand and adds no
/// bytes: tosa.reshape, tosa.identity, tosa.slice (lowered to a
/// memref.subview of its source, no copy), tensor.cast, tensor.expand_shape,
/// tensor.collapse_shape, and the memref equivalents.
bool isViewLike(Operation *op);

/// TOSA ops tosa-to-linalg lowers to one parallel linalg.generic (TOSA
/// elementwise ops, rescale, clamp, cast, table): fused by
/// `fuseRequantization`, and computed tile by tile / partition by partition by
/// serenity-tile.
bool isPointwise(Operation *op);

/// Bytes of one value of type `type` under the memory model: static shape
/// times ceil(element bits / 8); 0 for non-shaped values and !tosa.shape.
/// The largest buffer the model sizes (1 TiB): any realistic sum of buffer
/// sizes then fits in int64.
inline constexpr int64_t kMaxBufferBytes = int64_t(1) << 40;

/// Returns std::nullopt (and sets `reason`) for types the model cannot size
/// (also when larger than kMaxBufferBytes).
std::optional<int64_t> getTypeBytes(Type type, std::string *reason = nullptr);

/// The unit attribute marking a tosa.concat as in place under
/// ConcatMode::Auto.
inline constexpr llvm::StringLiteral kConcatInPlaceAttr =
    "serenity.concat_inplace";

/// Options of the memory model; the defaults are DESIGN.md's contract.
struct MemoryModelOptions {
  ConcatMode concat = ConcatMode::Copy;
  /// Partial sums accumulate in place: a `tosa.add(a, conv)` where the conv
  /// has an all-zero constant bias, both operands have no other user and
  /// `a` is an op result defined before the conv, is lowered as the conv
  /// accumulating into `a`'s buffer (serenity-accumulate-partial-sums). The
  /// conv then reads `a` and defines no bytes, and the add is an alias of
  /// `a`. See `findInPlaceAccumulations`.
  bool accumulateInPlace = false;
  /// Count memory as serenity-fuse-requantization lowers it: a pointwise op
  /// (elementwise TOSA op, rescale, clamp, cast) whose only user is
  /// pointwise is fused into it when the chain involves a conv and its
  /// inputs (not counting constants and tiled conv results) are not larger
  /// than its result; a conv/depthwise conv whose only user is pointwise is
  /// tiled into that loop when it is requantized (an int8 result further
  /// down its single-use chain) or reads padded input (dilation 1). The
  /// loops left form element-wise DAGs, one loop each, as
  /// `groupElementwiseDags` decides (ElementwiseDags.h). Fused
  /// and tiled results take no bytes; the group's last op reads what the
  /// fused loop reads (including the tiled convs' inputs), so those stay
  /// live until the group's result is written. See `findFusedGroups`.
  bool fuseRequantization = false;
  /// With fuseRequantization: a fused group that is a depthwise conv (stride
  /// and dilation 1, multiplier 1) or a 1x1 conv (stride 1, unpadded), with
  /// its epilogue, whose result has its input's type and whose input has no
  /// other reader, writes its result over its input
  /// (serenity-in-place-convs): the result aliases the input's buffer and
  /// the step holds only a scratch buffer (a depthwise conv: a ring of top
  /// padding + 1 output rows; a 1x1 conv: one input pixel). See
  /// `findInPlaceConv`.
  bool inPlaceConvs = false;
};

/// A group of ops `fuseRequantization` counts as one loop at the position
/// of its last op.
struct FusedGroup {
  /// Pointwise ops fused into the last op (their results take no bytes).
  SmallVector<Operation *> inner;
  /// Convs tiled into the loop (their results take no bytes).
  SmallVector<Operation *> tiledConvs;
  /// Values the loop reads: the leaves of the fused ops and the tiled
  /// convs' operands.
  SmallVector<Value> reads;
};

/// The fused groups of `block`, keyed by their last op.
DenseMap<Operation *, FusedGroup> findFusedGroups(Block &block);

/// A fused group computed over its conv's input (MemoryModelOptions::
/// inPlaceConvs).
struct InPlaceConv {
  /// The conv's input, whose buffer the group's result takes.
  Value input;
  /// The scratch buffer of the lowering (held rows or a pixel's copy).
  int64_t scratchBytes = 0;
};

/// The in-place computation of the fused group ending at `last`, or
/// std::nullopt (see MemoryModelOptions::inPlaceConvs).
std::optional<InPlaceConv> findInPlaceConv(Operation *last,
                                           const FusedGroup &group);

/// The conv -> accumulator pairs that `accumulateInPlace` counts as
/// accumulating in place, for the adds of `block` (keyed by the conv).
DenseMap<Operation *, Value> findInPlaceAccumulations(Block &block);

/// The (conv, accumulator op) pairs of `block` that `accumulateInPlace` does
/// not count only because the accumulator is defined after the conv. A
/// reordering that moved such an accumulator before its conv would change
/// the model, so the scheduler keeps each one after its conv.
SmallVector<std::pair<Operation *, Operation *>>
findBlockedAccumulations(Block &block);

/// True when `op` is a tosa.concat whose result (through single-use
/// reshapes) is only written to a TOSA variable that one of its operands was
/// read from: a shift-register update of persistent state, which the
/// lowering (serenity-persistent-state) does in the state itself, so it
/// takes no arena bytes.
bool isStateUpdateInPlace(Operation *op);

/// True when `concat` (a tosa.concat) is counted in place under `mode`:
/// always with InPlace, when marked with kConcatInPlaceAttr with Auto.
bool isInPlaceConcat(Operation *concat, ConcatMode mode);

/// The concat operands ConcatMode::InPlace produces into their slice: the
/// operand has one use (the concat) and its producer can write into a slice
/// (see `canProduceInPlace`).
bool isInPlaceConcatOperand(Value operand, Block &block);

/// True for ops whose lowering writes their result into a destination
/// tensor that empty-tensor elimination can replace by a slice of a concat:
/// convolutions, pooling, matmul and elementwise TOSA ops.
bool canProduceInPlace(Operation *op);

/// The memory model of one function body in its current op order.
class FunctionMemoryModel {
public:
  /// Builds the model; emits an error at the offending value or op and
  /// returns failure for IR outside the model (several blocks, dynamic or
  /// unranked shapes, unsizable element types).
  static FailureOr<FunctionMemoryModel>
  build(FunctionOpInterface function, const MemoryModelOptions &options = {});

  /// The plain graph: node i is `steps[i]`; program order is 0..n-1.
  ::serenity::MemoryGraph graph;
  /// The scheduled ops, in program order.
  SmallVector<Operation *> steps;
  /// The value that defines each buffer of `graph`.
  SmallVector<Value> bufferValues;
  /// Root buffer of every activation value (aliases map to their source's).
  DenseMap<Value, int> rootBuffer;

  /// Root buffer of `value`, or -1 for constants and non-activation values.
  int getBuffer(Value value) const;
  /// True when `value` is produced by a view-like op (an alias, 0 bytes).
  static bool isAlias(Value value);
  /// Step index of a scheduled op, or -1.
  int getStep(Operation *op) const;

private:
  DenseMap<Operation *, int> stepIndex;
};

} // namespace serenity
} // namespace mlir

#endif // SERENITY_ANALYSIS_MEMORYMODEL_H
