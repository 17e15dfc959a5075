//===- TFLiteImportTest.cpp - The TFLite reader and importer ---------------===//
//
// Fixed-point derivations on ties and extremes, and the reader and importer
// on damaged files: every truncation and byte flips of committed test models
// give a diagnostic or a module, never a crash (run under ASan with
// SERENITY_SANITIZE=1 builds).
//
//===----------------------------------------------------------------------===//

#include "Quant.h"
#include "Schema.h"

#include "Serenity/Target/TFLite/ImportTFLite.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <vector>

using namespace mlir::serenity::tflite;

namespace {

std::pair<int64_t, int64_t> expectOk(llvm::Expected<std::pair<int64_t, int64_t>> v) {
  EXPECT_TRUE(static_cast<bool>(v));
  if (!v) {
    llvm::consumeError(v.takeError());
    return {-1, -1};
  }
  return *v;
}

TEST(TFLiteQuant, QuantizeMultiplier) {
  // 0.5 = 2^30 * 2^-31.
  EXPECT_EQ(expectOk(quant::quantizeMultiplier(0.5)), std::make_pair(int64_t(1) << 30, int64_t(31)));
  EXPECT_EQ(expectOk(quant::tfliteQuantizeMultiplier(0.5)), std::make_pair(int64_t(1) << 30, int64_t(0)));
  // A mantissa that rounds up to 2^31 renormalizes: 1 - 2^-33 -> 2^30 * 2^-30.
  EXPECT_EQ(expectOk(quant::tfliteQuantizeMultiplier(1.0 - std::ldexp(1.0, -33))),
            std::make_pair(int64_t(1) << 30, int64_t(1)));
  // Zero, and scales below 2^-32 flush to zero in TFLite's derivation.
  EXPECT_EQ(expectOk(quant::tfliteQuantizeMultiplier(0.0)), std::make_pair(int64_t(0), int64_t(0)));
  EXPECT_EQ(expectOk(quant::tfliteQuantizeMultiplier(std::ldexp(1.0, -40))),
            std::make_pair(int64_t(0), int64_t(0)));
  // TOSA's shift saturates at 62, dropping multiplier bits.
  auto tiny = expectOk(quant::quantizeMultiplier(std::ldexp(1.0, -40)));
  EXPECT_EQ(tiny.second, 62);
  EXPECT_EQ(tiny.first, (int64_t(1) << 30) >> 8); // shift 70 -> 62
  // Negative, infinite and too large scales are errors, not values.
  auto neg = quant::quantizeMultiplier(-1.0);
  EXPECT_FALSE(static_cast<bool>(neg));
  llvm::consumeError(neg.takeError());
  auto large = quant::quantizeMultiplier(1 << 30);
  EXPECT_FALSE(static_cast<bool>(large));
  llvm::consumeError(large.takeError());
  auto inf = quant::tfliteQuantizeMultiplier(INFINITY);
  EXPECT_FALSE(static_cast<bool>(inf));
  llvm::consumeError(inf.takeError());
}

TEST(TFLiteQuant, FixedPointTies) {
  EXPECT_EQ(quant::srdhm(quant::kInt32Min, quant::kInt32Min), quant::kInt32Max);
  // gemmlowp's nudge rounds half-way products up: 0.5 -> 1, -0.5 -> 0.
  EXPECT_EQ(quant::srdhm(1, int64_t(1) << 30), 1);
  EXPECT_EQ(quant::srdhm(-1, int64_t(1) << 30), 0);
  EXPECT_EQ(quant::rdbpot(3, 1), 2);
  EXPECT_EQ(quant::rdbpot(-3, 1), -2);
  EXPECT_EQ(quant::rdbpot(-5, 2), -1);
  EXPECT_EQ(quant::rdbpot(-6, 2), -2);
  EXPECT_EQ(quant::roundHalfAway(2.5), 3);
  EXPECT_EQ(quant::roundHalfAway(-2.5), -3);
  // A left shift wraps like TFLite's int32 arithmetic.
  EXPECT_EQ(quant::wrap32(int64_t(1) << 31), quant::kInt32Min);
  EXPECT_EQ(quant::mbqm(1, int64_t(1) << 30, 1), 1);
  // TOSA's double rounding differs from single rounding on this tie.
  // (1 * 2^30) / 2^32 = 0.25: single rounding gives 0, the double
  // rounding's extra 2^30 gives 1.
  auto single = quant::tosaApplyScale(1, int64_t(1) << 30, 32, false);
  auto dbl = quant::tosaApplyScale(1, int64_t(1) << 30, 32, true);
  ASSERT_TRUE(static_cast<bool>(single) && static_cast<bool>(dbl));
  EXPECT_EQ(*single, 0);
  EXPECT_EQ(*dbl, 1);
}

TEST(TFLiteQuant, ActivationRange) {
  // RELU6 on [0, 6] with zero point -128: the bound 6 / (6 / 255) is 255.
  auto r = expectOk(quant::activationRange(3, 6.0 / 255, -128));
  EXPECT_EQ(r, std::make_pair(int64_t(-128), int64_t(127)));
  auto relu = expectOk(quant::activationRange(1, 0.1, 5));
  EXPECT_EQ(relu, std::make_pair(int64_t(5), int64_t(127)));
  auto n1 = expectOk(quant::activationRange(2, 0.5, 0));
  EXPECT_EQ(n1, std::make_pair(int64_t(-2), int64_t(2)));
  auto tanh = quant::activationRange(4, 0.1, 0);
  EXPECT_FALSE(static_cast<bool>(tanh));
  llvm::consumeError(tanh.takeError());
}

std::vector<uint8_t> readModelFile(const std::string &name) {
  auto buf = llvm::MemoryBuffer::getFile(std::string(SERENITY_SOURCE_DIR) +
                                         "/test/tflite-ops/models/" + name);
  if (!buf)
    return {};
  return std::vector<uint8_t>((*buf)->getBufferStart(), (*buf)->getBufferEnd());
}

/// Imports `bytes`, swallowing diagnostics; true when a module results.
bool importQuietly(mlir::MLIRContext &context, llvm::ArrayRef<uint8_t> bytes,
                   int *diagnostics) {
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &) {
    ++*diagnostics;
    return mlir::success();
  });
  return static_cast<bool>(importTFLite(bytes, "fuzz.tflite", &context));
}

TEST(TFLiteReader, ReadsTestModels) {
  for (const char *name : {"relu_int8.tflite", "conv_per_channel_stride2_same_relu6.tflite"}) {
    std::vector<uint8_t> bytes = readModelFile(name);
    ASSERT_FALSE(bytes.empty()) << name;
    auto model = readModel(bytes);
    ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
    EXPECT_EQ(model->version, 3u);
    ASSERT_EQ(model->subgraphs.size(), 1u);
    EXPECT_FALSE(model->subgraphs[0].operators.empty());
  }
}

TEST(TFLiteReader, TruncatedFilesAreErrors) {
  std::vector<uint8_t> bytes = readModelFile("conv_per_channel_stride2_same_relu6.tflite");
  ASSERT_FALSE(bytes.empty());
  mlir::MLIRContext context;
  for (size_t n = 0; n < bytes.size(); ++n) {
    llvm::ArrayRef<uint8_t> prefix(bytes.data(), n);
    int diagnostics = 0;
    EXPECT_FALSE(importQuietly(context, prefix, &diagnostics)) << "length " << n;
    EXPECT_EQ(diagnostics, 1) << "length " << n;
  }
}

TEST(TFLiteReader, FlippedBytesNeverCrash) {
  // Each byte of the file set to 0x00, 0x7F, 0x80 and 0xFF in turn: the
  // reader and the importer give a module or exactly one diagnostic.
  mlir::MLIRContext context;
  for (const char *name : {"relu_int8.tflite", "conv_per_channel_stride2_same_relu6.tflite",
                           "lstm_batch_major_b1.tflite"}) {
    std::vector<uint8_t> bytes = readModelFile(name);
    ASSERT_FALSE(bytes.empty()) << name;
    // The header, the tables and the small buffers: the first 2 KiB and the
    // last 1 KiB (weights in between only change values).
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (i >= 2048 && i + 1024 < bytes.size())
        continue;
      for (uint8_t value : {0x00, 0x7F, 0x80, 0xFF}) {
        std::vector<uint8_t> damaged = bytes;
        damaged[i] = value;
        int diagnostics = 0;
        bool ok = importQuietly(context, damaged, &diagnostics);
        EXPECT_TRUE(ok ? diagnostics == 0 : diagnostics >= 1)
            << name << " byte " << i << " = " << int(value);
      }
    }
  }
}

} // namespace
