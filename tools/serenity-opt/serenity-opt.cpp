//===- serenity-opt.cpp - Serenity optimizer driver -------------*- C++ -*-===//
//
// mlir-opt with every upstream dialect and pass plus Serenity's, so whole
// pipelines (TOSA -> Serenity passes -> LLVM) run in one tool. A `.tflite`
// input is imported in process (lib/Target/TFLite, default options) and
// then processed like the module it becomes, its locations naming the
// TFLite operators.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/InitAllPasses.h"
#include "Serenity/Pipelines/Pipelines.h"
#include "Serenity/Target/TFLite/ImportTFLite.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

/// Imports `path` and returns its module's text with locations, or null
/// after the importer's diagnostics.
static std::unique_ptr<llvm::MemoryBuffer> importTFLiteFile(llvm::StringRef path,
                                                            mlir::DialectRegistry &registry) {
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                                 /*RequiresNullTerminator=*/false);
  if (!file) {
    llvm::errs() << "cannot read " << path << ": " << file.getError().message() << "\n";
    return nullptr;
  }
  mlir::MLIRContext context(registry);
  // Diagnostics as `FILE:0:0: error: ...`, like the parser's.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
                                (*file)->getBufferSize());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::serenity::tflite::importTFLite(bytes, path, &context);
  if (!module)
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                            /*prettyForm=*/false));
  return llvm::MemoryBuffer::getMemBufferCopy(text, path);
}

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::serenity::registerSerenityPasses();
  mlir::serenity::registerSerenityPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::serenity::registerSerenityDialect(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Serenity memory-minimizing optimizer driver\n", registry);
  if (!llvm::StringRef(inputFilename).ends_with(".tflite"))
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  std::unique_ptr<llvm::MemoryBuffer> buffer = importTFLiteFile(inputFilename, registry);
  if (!buffer)
    return EXIT_FAILURE;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(buffer), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
