//===- MemoryModelTest.cpp - Tests for the MLIR memory model adapter ------===//
//
// Sizes of types and the graph the adapter builds from parsed IR; expected
// numbers are computed by hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::serenity;

namespace {

class MemoryModelTest : public ::testing::Test {
protected:
  MemoryModelTest() {
    context.loadDialect<func::FuncDialect, tosa::TosaDialect,
                        quant::QuantDialect>();
  }

  std::optional<int64_t> bytesOf(StringRef typeText) {
    Type type = parseType(typeText, &context);
    EXPECT_TRUE(type) << typeText.str();
    return getTypeBytes(type);
  }

  MLIRContext context;
};

TEST_F(MemoryModelTest, TypeSizes) {
  // 2*3*4 = 24 elements of 4 B.
  EXPECT_EQ(bytesOf("tensor<2x3x4xf32>"), 96);
  // i1 and i4 round up to one byte per element.
  EXPECT_EQ(bytesOf("tensor<10xi1>"), 10);
  EXPECT_EQ(bytesOf("tensor<10xi4>"), 10);
  // 12-bit elements take 2 B each.
  EXPECT_EQ(bytesOf("tensor<3xi12>"), 6);
  EXPECT_EQ(bytesOf("tensor<5xbf16>"), 10);
  // A rank-0 tensor is one element; memrefs size like tensors.
  EXPECT_EQ(bytesOf("tensor<f64>"), 8);
  EXPECT_EQ(bytesOf("memref<4x4xi8>"), 16);
  EXPECT_EQ(bytesOf("tensor<2xcomplex<f32>>"), 16);
  // Quantized types take their storage width.
  EXPECT_EQ(bytesOf("tensor<8x!quant.uniform<i8:f32, 0.5>>"), 8);
  // Scalars live in registers and shapes are metadata: 0 B.
  EXPECT_EQ(bytesOf("f32"), 0);
  EXPECT_EQ(bytesOf("!tosa.shape<4>"), 0);
  // Outside the model.
  EXPECT_EQ(bytesOf("tensor<?x4xf32>"), std::nullopt);
  EXPECT_EQ(bytesOf("tensor<*xf32>"), std::nullopt);
  // Sizes are checked: 2^60 elements of 4 B overflow int64; anything above
  // 2^40 B is refused, exactly 2^40 B is not.
  EXPECT_EQ(bytesOf("tensor<1073741824x1073741824x4xf32>"), std::nullopt);
  EXPECT_EQ(bytesOf("tensor<1073741824x1025xi8>"), std::nullopt);
  EXPECT_EQ(bytesOf("tensor<1073741824x256xi8>"), int64_t(1) << 38);
  EXPECT_EQ(bytesOf("tensor<1073741824x1024xi8>"), int64_t(1) << 40);
  EXPECT_EQ(bytesOf("tensor<4x!tosa.shape<1>>"), std::nullopt);
}

TEST_F(MemoryModelTest, BuildsGraphWithAliasesAndConstants) {
  const char *ir = R"mlir(
    func.func @f(%a: tensor<2x4xf32>, %unused: tensor<4xf32>) -> (tensor<8xf32>, tensor<2x4xf32>) {
      %s = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
      %e = tosa.exp %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %r = tosa.reshape %e, %s : (tensor<2x4xf32>, !tosa.shape<1>) -> tensor<8xf32>
      %t = tosa.tanh %r : (tensor<8xf32>) -> tensor<8xf32>
      return %t, %a : tensor<8xf32>, tensor<2x4xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
  ASSERT_TRUE(module);
  auto function = cast<func::FuncOp>(module->getBody()->front());
  FailureOr<FunctionMemoryModel> model = FunctionMemoryModel::build(function);
  ASSERT_TRUE(succeeded(model));

  // Steps: exp, reshape, tanh (the const_shape is not a step).
  ASSERT_EQ(model->steps.size(), 3u);
  // Buffers: %a, %unused, %e, %t; the reshape aliases %e.
  ASSERT_EQ(model->graph.buffers.size(), 4u);
  Block &body = function.getBody().front();
  Value e = model->steps[0]->getResult(0);
  Value r = model->steps[1]->getResult(0);
  EXPECT_EQ(model->getBuffer(r), model->getBuffer(e));
  EXPECT_TRUE(FunctionMemoryModel::isAlias(r));
  EXPECT_EQ(model->getBuffer(body.front().getResult(0)), -1);
  // tanh depends on the reshape node and reads %e's buffer.
  const auto &tanhNode = model->graph.nodes[2];
  EXPECT_EQ(tanhNode.preds, std::vector<int>{1});
  EXPECT_EQ(tanhNode.uses, std::vector<int>{model->getBuffer(e)});
  // %a is returned directly.
  EXPECT_TRUE(model->graph.buffers[model->getBuffer(body.getArgument(0))].returned);

  // 0: %a 32 + %e 32 = 64; 1: %a + %e = 64; 2: %a + %e + %t 32 = 96.
  ::serenity::MemoryProfile profile = ::serenity::simulate(
      model->graph, ::serenity::programOrder(model->graph));
  EXPECT_EQ(profile.usage, (std::vector<int64_t>{64, 64, 96}));
}

TEST_F(MemoryModelTest, FusedRequantizationGroups) {
  // An int8 conv (i32 accumulator), its rescale to i8 and a clamp, then an
  // ADD in TFLite's form: the other operand rescaled i8 -> i32, summed, and
  // rescaled back to i8. With fuseRequantization the conv is tiled into the
  // fused rescale+clamp loop and the ADD's rescales and sum are one loop.
  const char *ir = R"mlir(
    func.func @f(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi8> {
      %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
      %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
      %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
      %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
      %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
      %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
      %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
      %r = tosa.rescale %c, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x4x4x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x2xi8>
      %k = tosa.clamp %r {min_val = -128 : i8, max_val = 127 : i8} : (tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi8>
      %a = tosa.rescale %x, %m, %s, %zp, %zp32 {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x4x4x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x2xi32>
      %k32 = tosa.rescale %k, %m, %s, %zp, %zp32 {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x4x4x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x2xi32>
      %sum = tosa.add %a, %k32 : (tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
      %o = tosa.rescale %sum, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x4x4x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x2xi8>
      return %o : tensor<1x4x4x2xi8>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
  ASSERT_TRUE(module);
  auto function = cast<func::FuncOp>(module->getBody()->front());
  Block &body = function.getBody().front();

  // DESIGN.md's model: %x 32 B, i32 tensors 128 B, i8 tensors 32 B.
  // Steps: conv, rescale, clamp, rescale %a, rescale %k32, add, rescale.
  // 0: x + c = 160; 1: x + c + r = 192; 2: x + r + k = 96;
  // 3: x + k + a = 192; 4: k + a + k32 = 288; 5: a + k32 + sum = 384;
  // 6: sum + o = 160.
  FailureOr<FunctionMemoryModel> plain = FunctionMemoryModel::build(function);
  ASSERT_TRUE(succeeded(plain));
  EXPECT_EQ(
      ::serenity::simulate(plain->graph, ::serenity::programOrder(plain->graph))
          .usage,
      (std::vector<int64_t>{160, 192, 96, 192, 288, 384, 160}));

  // Fused, as serenity-fuse-requantization lowers it: every pointwise op
  // has one pointwise user and its inputs (%x, constants, the tiled conv)
  // are not larger than its result, so all fuse into the last rescale, one
  // loop reading %x twice (the conv's window and %a) and writing %o; the
  // conv is tiled into it. 0-5: x = 32; 6: x + o = 64.
  MemoryModelOptions options;
  options.fuseRequantization = true;
  DenseMap<Operation *, FusedGroup> groups = findFusedGroups(body);
  ASSERT_EQ(groups.size(), 1u);
  const FusedGroup &group = groups.begin()->second;
  EXPECT_EQ(groups.begin()->first, &*std::prev(body.end(), 2));
  EXPECT_EQ(group.inner.size(), 5u);
  ASSERT_EQ(group.tiledConvs.size(), 1u);
  EXPECT_TRUE(isa<tosa::Conv2DOp>(group.tiledConvs.front()));
  FailureOr<FunctionMemoryModel> fused =
      FunctionMemoryModel::build(function, options);
  ASSERT_TRUE(succeeded(fused));
  EXPECT_EQ(
      ::serenity::simulate(fused->graph, ::serenity::programOrder(fused->graph))
          .usage,
      (std::vector<int64_t>{32, 32, 32, 32, 32, 32, 64}));
}

} // namespace
