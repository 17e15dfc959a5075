//===- serenity-opt.cpp - Serenity optimizer driver -------------*- C++ -*-===//
//
// mlir-opt with every upstream dialect and pass plus Serenity's, so whole
// pipelines (TOSA -> Serenity passes -> LLVM) run in one tool.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/InitAllPasses.h"
#include "Serenity/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::serenity::registerSerenityPasses();
  mlir::serenity::registerSerenityPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::serenity::registerSerenityDialect(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Serenity memory-minimizing optimizer driver\n", registry));
}
