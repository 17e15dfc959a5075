//===- SerenityAttrs.td - Serenity attribute definitions ---*- tablegen -*-===//

#ifndef SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_TD
#define SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_TD

include "Serenity/Dialect/Serenity/IR/SerenityDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

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

def Serenity_ConvPrimitive : I32EnumAttr<"ConvPrimitive",
    "How a convolution is computed", [
      I32EnumAttrCase<"Direct", 0, "direct">,
      I32EnumAttrCase<"Dot", 1, "dot">,
      I32EnumAttrCase<"Im2col", 2, "im2col">,
      I32EnumAttrCase<"Winograd2", 3, "winograd2">,
      I32EnumAttrCase<"Winograd4", 4, "winograd4">,
      I32EnumAttrCase<"Vector", 5, "vector">
    ]> {
  let cppNamespace = "::mlir::serenity";
  let genSpecializedAttr = 0;
}

def Serenity_ConvPrimitiveAttr
    : EnumAttr<Serenity_Dialect, Serenity_ConvPrimitive, "primitive"> {
  let summary = "The primitive that computes one convolution";
  let description = [{
    Attached as `serenity.primitive` to a `tosa.conv2d` or
    `tosa.depthwise_conv2d` (by `serenity-select-primitives`, or by hand),
    it chooses how the convolution is lowered; `serenity-primitives-to-linalg`
    carries it to the `linalg` convolution and `serenity-lower-primitives`
    (im2col, Winograd) or `serenity-int8-conv-kernels` (dot) realizes it:

    - `direct`: the upstream loops (`convert-linalg-to-loops`), no workspace;
    - `dot`: int8 only, the dot-product kernels of
      `serenity-int8-conv-kernels` (SMLAD on Cortex-M), no workspace;
    - `im2col`: each output row's input windows copied into a workspace of
      `OW x KH x KW x C` elements, then one matrix product per row;
    - `winograd2` / `winograd4`: f32 3x3 stride-1 convolutions only,
      Winograd F(2x2,3x3) / F(4x4,3x3) with upstream `linalg.winograd_*`
      ops; workspaces for the transformed filter, input and output;
    - `vector`: f32 `tosa.conv2d` or `tosa.depthwise_conv2d` (one channel
      per group) with a constant filter, host only: tiled into register
      blocks of output pixels x output channels (the filter transposed at
      compile time to KH x KW x C x F) and vectorized with the upstream
      linalg vectorizer; workspace: the padded input (and a depthwise
      conv's unbiased result).

    Workspaces are ordinary buffers: the memory model counts them at the
    convolution's step and the static allocator places them in the arena.

    ```mlir
    %y = tosa.conv2d %x, %w, %b, %zx, %zw {..., serenity.primitive = #serenity.primitive<im2col>}
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_TD
