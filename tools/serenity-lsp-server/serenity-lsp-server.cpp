//===- serenity-lsp-server.cpp - MLIR language server with Serenity -------===//
//
// mlir-lsp-server with every upstream dialect plus the serenity dialect, so
// editors (the MLIR VS Code extension, any LSP client) understand files with
// serenity attributes: point the client's server path at this binary.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::serenity::registerSerenityDialect(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
