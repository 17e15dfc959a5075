//===- SerenityAttrs.td - Serenity attribute definitions ---*- tablegen -*-===//

#ifndef SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_TD
#define SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_TD

include "Serenity/Dialect/Serenity/IR/SerenityDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Serenity_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Serenity_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Serenity_LifetimeAttr : Serenity_Attr<"Lifetime", "lifetime"> {
  let summary = "Size and live interval of one activation buffer";
  let description = [{
    Records one activation value: the bytes it adds to the arena and the
    inclusive interval of scheduled steps during which it must be kept.
    `def` is the step that defines the value (-1 for a function argument,
    which is live before the first step) and `last` is the step of its last
    use; a value returned by the function is used by the terminator, which is
    step N for a body of N scheduled ops.

    A value produced by a view-like op (tosa.reshape, tensor.expand_shape,
    ...) aliases its source: it has `bytes = 0`, and its uses extend the
    lifetime of the source buffer.

    ```mlir
    %0 = tosa.clamp %arg0 {min_val = 0.0 : f32, max_val = 6.0 : f32,
        serenity.lifetime = [#serenity.lifetime<bytes = 4096, def = 0, last = 2>]}
        : (tensor<1x16x16x4xf32>) -> tensor<1x16x16x4xf32>
    ```
  }];
  let parameters = (ins "int64_t":$bytes, "int64_t":$def, "int64_t":$last);
  let assemblyFormat = "`<` `bytes` `=` $bytes `,` `def` `=` $def `,` `last` `=` $last `>`";
  let genVerifyDecl = 1;
}

#endif // SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_TD
