//===- SerenityDialect.td - Serenity dialect definition ----*- tablegen -*-===//
//
// The serenity dialect carries the memory-planning facts that Serenity's
// passes compute: activation lifetimes and sizes.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_DIALECT_SERENITY_IR_SERENITYDIALECT_TD
#define SERENITY_DIALECT_SERENITY_IR_SERENITYDIALECT_TD

include "mlir/IR/OpBase.td"

def Serenity_Dialect : Dialect {
  let name = "serenity";
  let summary = "Memory-minimizing compilation of neural networks for microcontrollers";
  let description = [{
    The `serenity` dialect annotates the activation buffers of a network with
    their size and lifetime, as computed by the graph-level memory model
    (see docs/MemoryModel.md). It defines no operations of its own yet: its
    attributes are attached to TOSA (or any other) operations and functions.
  }];
  let cppNamespace = "::mlir::serenity";
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

#endif // SERENITY_DIALECT_SERENITY_IR_SERENITYDIALECT_TD
