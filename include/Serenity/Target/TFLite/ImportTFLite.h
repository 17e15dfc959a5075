//===- ImportTFLite.h - TFLite flatbuffer to TOSA ----------------*- C++ -*-===//
//
// The TFLite importer: a .tflite buffer becomes a module with one
// `func.func @main` of TOSA ops, with TFLite Micro's integer semantics
// (docs/TFLiteImport.md). Registered as the `--import-tflite` translation of
// serenity-translate; serenity-opt and serenity-compile call it in process.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TARGET_TFLITE_IMPORTTFLITE_H
#define SERENITY_TARGET_TFLITE_IMPORTTFLITE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class DialectRegistry;
} // namespace mlir

namespace mlir::serenity::tflite {

struct ImportOptions {
  /// Import the dequantized float32 graph of a quantized model.
  bool floatMode = false;
  /// "double" (TFLite's integer arithmetic), "single" (TOSA SINGLE_ROUND
  /// rescales) or "armnn" (Arm NN CpuRef's float32 arithmetic).
  std::string rounding = "double";
  /// Return these tensor indices instead of the subgraph's outputs.
  std::vector<int> outputs;
  /// Import only this operator, its activation inputs as the arguments.
  std::optional<int> onlyOp;
  /// Fold explicit PADs, reshape chains and pooling layouts (see
  /// docs/TFLiteImport.md); false imports each operator as it is.
  bool canonicalize = true;
};

/// Imports `buffer` (a .tflite file's contents); `fileName` names the file in
/// the locations (file, operator index, builtin, output tensor name) and in
/// diagnostics. Errors are emitted on the context's diagnostic engine; returns
/// null on failure.
mlir::OwningOpRef<mlir::ModuleOp> importTFLite(llvm::ArrayRef<uint8_t> buffer,
                                               llvm::StringRef fileName,
                                               mlir::MLIRContext *context,
                                               const ImportOptions &options = {});

/// The dialects imported IR uses.
void registerImportDialects(mlir::DialectRegistry &registry);

/// Registers `--import-tflite` (with --tflite-float, --tflite-rounding,
/// --tflite-outputs, --tflite-only-op, --tflite-canonicalize) for
/// mlir-translate style tools.
void registerTFLiteImportTranslation();

/// The names of every operator the importer supports, sorted.
std::vector<std::string> supportedOperators();

} // namespace mlir::serenity::tflite

#endif // SERENITY_TARGET_TFLITE_IMPORTTFLITE_H
