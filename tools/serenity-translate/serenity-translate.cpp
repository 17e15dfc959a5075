//===- serenity-translate.cpp - Serenity's translations -------------------===//
//
// mlir-translate with Serenity's importers: `serenity-translate
// --import-tflite model.tflite` prints the TOSA module of a TFLite model;
// `serenity-translate --tflite-operators` lists the operators it takes.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Target/TFLite/ImportTFLite.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // `--tflite-operators`: the TFLite operators --import-tflite takes, one per
  // line (what the Python tools list and test against).
  if (argc == 2 && llvm::StringRef(argv[1]) == "--tflite-operators") {
    for (const std::string &name : mlir::serenity::tflite::supportedOperators())
      llvm::outs() << name << "\n";
    return 0;
  }
  mlir::serenity::tflite::registerTFLiteImportTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Serenity translation driver"));
}
