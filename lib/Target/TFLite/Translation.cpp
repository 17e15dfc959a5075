//===- Translation.cpp - The --import-tflite translation ------------------===//

#include "Serenity/Target/TFLite/ImportTFLite.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::serenity::tflite;

namespace {
struct TranslationOptions {
  llvm::cl::opt<bool> floatMode{"tflite-float",
                                llvm::cl::desc("--import-tflite: import the dequantized float32 "
                                               "graph of a quantized model"),
                                llvm::cl::init(false)};
  llvm::cl::opt<std::string> rounding{
      "tflite-rounding",
      llvm::cl::desc("--import-tflite: double (TFLite's integer arithmetic), single (TOSA "
                     "SINGLE_ROUND) or armnn (Arm NN CpuRef's float32 arithmetic)"),
      llvm::cl::init("double")};
  llvm::cl::list<int> outputs{"tflite-outputs",
                              llvm::cl::desc("--import-tflite: return these tensor indices "
                                             "instead of the model's outputs"),
                              llvm::cl::CommaSeparated};
  llvm::cl::opt<int> onlyOp{"tflite-only-op",
                            llvm::cl::desc("--import-tflite: import only this operator"),
                            llvm::cl::init(-1)};
  llvm::cl::opt<bool> canonicalize{
      "tflite-canonicalize",
      llvm::cl::desc("--import-tflite: fold PADs, reshape chains and pooling layouts"),
      llvm::cl::init(true)};
};
llvm::ManagedStatic<TranslationOptions> options;
} // namespace

void mlir::serenity::tflite::registerTFLiteImportTranslation() {
  *options; // register the options with the translation
  static TranslateToMLIRRegistration registration(
      "import-tflite", "import a TFLite flatbuffer (.tflite) as TOSA",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buf = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        ImportOptions opts;
        opts.floatMode = options->floatMode;
        opts.rounding = options->rounding;
        opts.outputs.assign(options->outputs.begin(), options->outputs.end());
        if (options->onlyOp >= 0)
          opts.onlyOp = options->onlyOp;
        opts.canonicalize = options->canonicalize;
        llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(buf->getBufferStart()),
                                      buf->getBufferSize());
        OwningOpRef<ModuleOp> module =
            importTFLite(bytes, buf->getBufferIdentifier(), context, opts);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { registerImportDialects(registry); });
}
