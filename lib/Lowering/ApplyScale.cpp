//===- ApplyScale.cpp - tosa.apply_scale for 32-bit targets -----*- C++ -*-===//
//
// tosa.apply_scale(v, m, s) = (v * m + 2^(s-1) + d) >> s in 64 bits, where
// d = +-2^30 (the sign of v) for DOUBLE_ROUND with s > 31, else 0. The
// upstream lowering (tosa-to-arith) computes 2^(s-1) and the final shift as
// 64-bit shifts by a variable amount: on a 32-bit core each is a sequence of
// shifts, compares and conditional moves, about 40 instructions per
// requantized element on Cortex-M4. For s >= 33 (every requantization with
// a scale below 2^-2; TFLite int8 models have s in 33..45 almost
// everywhere) the same value needs 32-bit shifts only:
//
//   u = v * m + d                  (64 bits: SMULL/SMLAL and a carry)
//   floor((u + 2^(s-1)) / 2^s) = floor((floor(u / 2^(s-1)) + 1) / 2)
//                                  (u = q 2^(s-1) + r, 0 <= r < 2^(s-1))
//   floor(u / 2^(s-1)) = hi(u) >> (s - 33)   (s - 1 >= 32)
//
// and |v * m| <= 2^62 keeps hi(u) + 1 within int32. Shifts known to be at
// least 32 (a per-channel table whose least shift is 32: channels of scale
// near 1/2) take the same idea one bit lower, with t = s - 32 in [0, 31]:
//
//   floor((u + 2^(s-1)) / 2^s) = (hi(u) >> t) + bit t of q,
//   q = (hi(u) << 1) | (lo(u) >>u 31)   (= floor(u / 2^31) mod 2^32)
//
// (u / 2^s = (hi >> t) + f, 0 <= f < 1, and f >= 1/2 iff bit t - 1 of hi,
// or for t = 0 bit 31 of lo, is set: bit t of q either way; q's bits 0..31
// are exact in 32 bits). Other shifts take the 64-bit formula, in the
// other branch of an scf.if.
//
// Without a 32x32->64 multiply (ARMv6-M: `split-multiply`), hi(v * m + d)
// comes from 16-bit halves, v = vh 2^16 + vl and m = mh 2^16 + ml (vl, ml in
// [0, 2^16), vh, mh in [-2^15, 2^15)):
//
//   v m + d = vh mh 2^32 + (vh ml + vl mh + d / 2^16) 2^16 + vl ml
//   t  = vh ml + (vl ml >>u 16)          |vh ml| <= 2^15 (2^16 - 1)
//   w  = (t & 0xFFFF) + vl mh + d / 2^16 |w| <= 2^31 - 16383
//   hi = vh mh + (t >> 16) + (w >> 16)
//   lo = (w << 16) | (vl ml & 0xFFFF)
//
// (d = +-2^30 has no bits below 2^16); every term fits int32, and the
// arithmetic is four MULS and a few shifts and adds, in place of a call of
// __aeabi_lmul.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Passes.h"
#include "Serenity/Support/ConstantTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYAPPLYSCALE32PASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// The least and largest value `op`'s shift can take when it is a constant,
/// reads a constant table through a linalg.generic's block argument, or
/// (after bufferization) loads from a view of a constant global.
std::optional<std::pair<int64_t, int64_t>> shiftRange(tosa::ApplyScaleOp op) {
  Value shift = op.getShift();
  if (auto arg = dyn_cast<BlockArgument>(shift))
    if (auto generic =
            dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp()))
      if (arg.getArgNumber() < generic.getNumDpsInputs())
        shift = generic.getDpsInputs()[arg.getArgNumber()];
  return mlir::serenity::integerRange(mlir::serenity::constantTableOf(shift),
                                      /*isUnsigned=*/true);
}

void lowerApplyScale(tosa::ApplyScaleOp op, bool splitMultiply) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  const bool doubleRound =
      op.getRoundingMode() == tosa::RoundingMode::DOUBLE_ROUND;
  Value value = op.getValue(), multiplier = op.getMultiplier();
  Value shift = arith::ExtUIOp::create(b, loc, i32, op.getShift());
  Value product =
      arith::MulIOp::create(b, loc, arith::ExtSIOp::create(b, loc, i64, value),
                            arith::ExtSIOp::create(b, loc, i64, multiplier));
  // d, for DOUBLE_ROUND when s > 31: 2^30 + (v >> 31) 2^31, no select (the
  // sign word shifted: an ASR and an add with a shifted operand, where a
  // compare and two conditional moves per word would pick +-2^30).
  Value adjust;
  if (doubleRound) {
    Value sign = arith::ExtSIOp::create(
        b, loc, i64, arith::ShRSIOp::create(b, loc, value, c32(31)));
    adjust = arith::AddIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, sign, c64(31)), c64(1 << 30));
  }
  // hi(v * m + d) and lo(v * m + d) from 16-bit halves (the derivation
  // above).
  auto split = [&]() -> std::pair<Value, Value> {
    auto low16 = [&](Value x) -> Value {
      return arith::AndIOp::create(b, loc, x, c32(0xFFFF));
    };
    auto high16 = [&](Value x) -> Value {
      return arith::ShRSIOp::create(b, loc, x, c32(16));
    };
    auto mul = [&](Value x, Value y) -> Value {
      return arith::MulIOp::create(b, loc, x, y);
    };
    auto add = [&](Value x, Value y) -> Value {
      return arith::AddIOp::create(b, loc, x, y);
    };
    Value vl = low16(value), vh = high16(value);
    Value ml = low16(multiplier), mh = high16(multiplier);
    Value ll = mul(vl, ml);
    Value t = add(mul(vh, ml), arith::ShRUIOp::create(b, loc, ll, c32(16)));
    Value w = add(low16(t), mul(vl, mh));
    if (doubleRound) // d / 2^16 = 2^14 + (v >> 31) 2^15.
      w = add(w, add(arith::ShLIOp::create(
                         b, loc, arith::ShRSIOp::create(b, loc, value, c32(31)),
                         c32(15)),
                     c32(1 << 14)));
    Value hi = add(add(mul(vh, mh), high16(t)), high16(w));
    Value lo = arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, w, c32(16)), low16(ll));
    return {hi, lo};
  };
  // The high and low words of v * m + d.
  auto words = [&]() -> std::pair<Value, Value> {
    if (splitMultiply)
      return split();
    Value u =
        doubleRound ? arith::AddIOp::create(b, loc, product, adjust) : product;
    return {arith::TruncIOp::create(b, loc, i32,
                                    arith::ShRSIOp::create(b, loc, u, c64(32))),
            arith::TruncIOp::create(b, loc, i32, u)};
  };
  // Shifts of at least 32: (hi >> t) + bit t of q (above).
  auto fastPath32 = [&]() -> Value {
    auto [high, low] = words();
    Value q = arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, high, c32(1)),
        arith::ShRUIOp::create(b, loc, low, c32(31)));
    Value t = arith::SubIOp::create(b, loc, shift, c32(32));
    Value bit = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, q, t), c32(1));
    return arith::AddIOp::create(
        b, loc, arith::ShRSIOp::create(b, loc, high, t), bit);
  };
  auto fastPath = [&]() -> Value {
    Value high = words().first;
    Value q = arith::ShRSIOp::create(
        b, loc, high, arith::SubIOp::create(b, loc, shift, c32(33)));
    return arith::ShRSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, q, c32(1)), c32(1));
  };
  auto slowPath = [&]() -> Value {
    Value shift64 = arith::ExtUIOp::create(b, loc, i64, op.getShift());
    Value round = arith::ShRUIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, c64(1), shift64), c64(1));
    Value sum = arith::AddIOp::create(b, loc, product, round);
    if (doubleRound) {
      Value wide = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         shift, c32(31));
      sum = arith::SelectOp::create(
          b, loc, wide, arith::AddIOp::create(b, loc, sum, adjust), sum);
    }
    return arith::TruncIOp::create(
        b, loc, i32, arith::ShRSIOp::create(b, loc, sum, shift64));
  };
  // Shifts known at compile time (a constant, or a generic's constant
  // per-channel table) take one path, without a branch.
  std::optional<std::pair<int64_t, int64_t>> range = shiftRange(op);
  Value result;
  if (range && range->first >= 33) {
    result = fastPath();
  } else if (range && range->first >= 32) {
    result = fastPath32();
  } else if (range && range->second <= 31) {
    result = slowPath();
  } else {
    Value fast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, shift,
                                       c32(33));
    auto branch = [&](function_ref<Value()> path) {
      return [&, path](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        scf::YieldOp::create(b, loc, path());
      };
    };
    result = scf::IfOp::create(b, loc, fast, branch(fastPath), branch(slowPath))
                 .getResult(0);
  }
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}

struct SerenityApplyScale32Pass
    : public mlir::serenity::impl::SerenityApplyScale32PassBase<
          SerenityApplyScale32Pass> {
  using SerenityApplyScale32PassBase::SerenityApplyScale32PassBase;
  void runOnOperation() override {
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    SmallVector<tosa::ApplyScaleOp> ops;
    getOperation().walk([&](tosa::ApplyScaleOp op) {
      // INEXACT_ROUND stays with tosa-to-arith (which rejects it), as in
      // the reference lowering.
      if (op.getRoundingMode() != tosa::RoundingMode::SINGLE_ROUND &&
          op.getRoundingMode() != tosa::RoundingMode::DOUBLE_ROUND)
        return;
      if (op.getValue().getType().isInteger(32) &&
          op.getMultiplier().getType().isInteger(32) &&
          op.getShift().getType().isInteger(8) && op.getType().isInteger(32))
        ops.push_back(op);
    });
    for (tosa::ApplyScaleOp op : ops)
      lowerApplyScale(op, splitMultiply);
  }
};

} // namespace
