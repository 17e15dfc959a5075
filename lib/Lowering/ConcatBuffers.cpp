//===- ConcatBuffers.cpp - In-place concats as one buffer -------*- C++ -*-===//
//
// Before eliminate-empty-tensors: tosa-to-tensor's chain of insert_slice ops
// into one tensor.empty (an in-place concat, a fused-tiling region's tiles)
// becomes a memref.alloc with one subview per operand, each operand
// materialized in its subview; the chain's result is a to_tensor of the
// buffer. One-shot bufferization then sees one small alias set per operand
// instead of one set holding the whole chain, whose in-place analysis grows
// like k^3-k^4 in the operand count k (docs in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYCONCATBUFFERSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// The tensor.empty in `block` that `value` is computed in (through the
/// destination operands of destination-style ops and the initial values of
/// scf.for loops), or null.
tensor::EmptyOp emptyWrittenBy(Value value, Block &block) {
  while (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() != &block)
      return nullptr;
    if (auto empty = dyn_cast<tensor::EmptyOp>(def))
      return empty;
    auto result = cast<OpResult>(value);
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      value = loop.getInitArgs()[result.getResultNumber()];
      continue;
    }
    auto dps = dyn_cast<DestinationStyleOpInterface>(def);
    if (!dps || !dps.hasPureTensorSemantics())
      return nullptr;
    value = dps.getTiedOpOperand(result)->get();
  }
  return nullptr;
}

/// The insert_slice chain rooted at `empty`: each link the only user of the
/// previous value (as its destination), in `empty`'s block, with static
/// offsets, sizes and strides and a source of the slice's shape.
SmallVector<tensor::InsertSliceOp> chainFrom(tensor::EmptyOp empty) {
  SmallVector<tensor::InsertSliceOp> chain;
  Value current = empty.getResult();
  while (current.hasOneUse()) {
    OpOperand &use = *current.use_begin();
    auto insert = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
    if (!insert || &use != &insert.getDestMutable() ||
        insert->getBlock() != empty->getBlock() ||
        !insert.getOffsets().empty() || !insert.getSizes().empty() ||
        !insert.getStrides().empty() ||
        insert.getSourceType().getShape() != insert.getStaticSizes())
      break;
    chain.push_back(insert);
    current = insert.getResult();
  }
  return chain;
}

struct SerenityConcatBuffersPass
    : public mlir::serenity::impl::SerenityConcatBuffersPassBase<
          SerenityConcatBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &block = function.getBody().front();
    SmallVector<tensor::EmptyOp> roots;
    for (auto empty : block.getOps<tensor::EmptyOp>())
      if (empty.getType().hasStaticShape())
        roots.push_back(empty);
    OpBuilder builder(&getContext());
    for (tensor::EmptyOp root : roots) {
      SmallVector<tensor::InsertSliceOp> chain = chainFrom(root);
      if (static_cast<int64_t>(chain.size()) < std::max<int64_t>(minOperands, 1))
        continue;
      // Where each operand's subview goes: before the tensor.empty its
      // producer writes into (where empty-tensor elimination puts the
      // slice it replaces it with), else before its materialization.
      SmallVector<tensor::EmptyOp> written;
      Operation *first = nullptr;
      for (tensor::InsertSliceOp insert : chain) {
        tensor::EmptyOp empty = emptyWrittenBy(insert.getSource(), block);
        if (empty && (!empty.getType().hasStaticShape() ||
                      llvm::is_contained(written, empty)))
          empty = nullptr;
        written.push_back(empty);
        Operation *at = empty ? empty.getOperation() : insert.getOperation();
        if (!first || at->isBeforeInBlock(first))
          first = at;
      }
      // Nothing written in place: the chain is copies only, leave it.
      if (llvm::none_of(written, [](tensor::EmptyOp e) { return bool(e); }))
        continue;
      RankedTensorType type = root.getType();
      auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
      builder.setInsertionPoint(first);
      Location loc = root.getLoc();
      auto buffer = memref::AllocOp::create(
          builder, loc, bufferType, ValueRange(),
          builder.getI64IntegerAttr(alignment));
      for (auto [insert, empty] : llvm::zip_equal(chain, written)) {
        builder.setInsertionPoint(empty ? empty.getOperation()
                                        : insert.getOperation());
        auto view = memref::SubViewOp::create(
            builder, insert.getLoc(), buffer, insert.getMixedOffsets(),
            insert.getMixedSizes(), insert.getMixedStrides());
        builder.setInsertionPoint(insert);
        auto materialize = bufferization::MaterializeInDestinationOp::create(
            builder, insert.getLoc(), insert.getSource(), view.getResult());
        materialize.setRestrict(true);
        materialize.setWritable(true);
      }
      tensor::InsertSliceOp last = chain.back();
      builder.setInsertionPoint(last);
      auto whole = bufferization::ToTensorOp::create(
          builder, last.getLoc(), type, buffer.getResult(), /*restrict=*/true,
          /*writable=*/true);
      last.getResult().replaceAllUsesWith(whole.getResult());
      for (tensor::InsertSliceOp insert : llvm::reverse(chain))
        insert.erase();
      root.erase();
    }
  }
};

} // namespace
