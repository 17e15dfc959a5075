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

} // namespace
