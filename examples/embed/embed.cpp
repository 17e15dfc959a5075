//===- embed.cpp - Serenity inside another tool's PassManager -------------===//
//
// An out-of-tree consumer of an installed Serenity: finds it with
// find_package(Serenity), parses a TOSA module, adds the Serenity pipeline to
// its own PassManager with buildSerenityPipeline, runs it and reports what it
// got. Usage: embed NET.mlir ["serenity-pipeline options"] [-o OUT.mlir]
//
//===----------------------------------------------------------------------===//

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/Pipelines/Pipelines.h"
#include "Serenity/Target/TFLite/ImportTFLite.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  std::string input, options, output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (input.empty())
      input = arg;
    else
      options = arg;
  }
  if (input.empty()) {
    llvm::errs() << "usage: embed NET.mlir|NET.tflite [\"pipeline options\"] [-o OUT]\n";
    return 2;
  }
  // The pipeline is built from the passes' typed constructors and options
  // structs: no pass needs registering, only the dialects.
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::serenity::registerSerenityDialect(registry);
  mlir::MLIRContext context(registry);

  // A .tflite model goes through the importer library; MLIR is parsed.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (llvm::StringRef(input).ends_with(".tflite")) {
    auto file = llvm::MemoryBuffer::getFile(input, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file) {
      llvm::errs() << "embed: cannot read " << input << "\n";
      return 1;
    }
    llvm::ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
        (*file)->getBufferSize());
    module = mlir::serenity::tflite::importTFLite(bytes, input, &context);
  } else {
    module = mlir::parseSourceFile<mlir::ModuleOp>(input, &context);
  }
  if (!module)
    return 1;
  auto pipelineOptions =
      mlir::serenity::SerenityPipelineOptions::createFromString(options);
  if (!pipelineOptions) {
    llvm::errs() << "embed: bad pipeline options '" << options << "'\n";
    return 2;
  }
  mlir::PassManager pm(&context);
  auto report = [](const llvm::Twine &message) {
    llvm::errs() << message << "\n";
    return mlir::failure();
  };
  if (mlir::failed(mlir::serenity::buildSerenityPipeline(pm, *pipelineOptions,
                                                         report)) ||
      mlir::failed(pm.run(*module)))
    return 1;

  int functions = 0;
  module->walk([&](mlir::LLVM::LLVMFuncOp function) {
    if (!function.isExternal())
      ++functions;
  });
  int64_t arena = -1;
  module->walk([&](mlir::LLVM::GlobalOp global) {
    if (auto type =
            llvm::dyn_cast<mlir::LLVM::LLVMArrayType>(global.getGlobalType()))
      if (global.getSymName().contains("arena"))
        arena = type.getNumElements();
  });
  llvm::outs() << "embed: serenity-pipeline ran in this program's PassManager: "
               << functions << " LLVM function(s)";
  if (arena >= 0)
    llvm::outs() << ", arena global of " << arena << " bytes";
  llvm::outs() << "\n";
  if (!output.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream os(output, error, llvm::sys::fs::OF_None);
    if (error) {
      llvm::errs() << "embed: cannot write " << output << ": "
                   << error.message() << "\n";
      return 1;
    }
    module->print(os);
  }
  return 0;
}
