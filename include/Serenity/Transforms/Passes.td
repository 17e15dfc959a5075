//===- Passes.td - Serenity pass definitions ---------------*- tablegen -*-===//

#ifndef SERENITY_TRANSFORMS_PASSES_TD
#define SERENITY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SerenityAnnotateLifetimesPass
    : Pass<"serenity-annotate-lifetimes", "func::FuncOp"> {
  let summary = "Annotate activation sizes, lifetimes and the peak memory";
  let description = [{
    Evaluates the graph-level memory model of DESIGN.md on the function body
    in its current order and records the result as attributes:

    - on the function, `serenity.peak_bytes` (the peak of the per-step usage)
      and `serenity.peak_step` (the first step that reaches it);
    - on each scheduled op, `serenity.lifetime`: an array with one
      `#serenity.lifetime<bytes = B, def = D, last = L>` per result.

    Scheduled ops are the ops of the body except constants and the
    terminator; steps count from 0. A returned value has `last` = N, the
    terminator's step, for N scheduled ops. A view-like result (tosa.reshape,
    ...) has `bytes = 0` and its interval is its own; its uses keep its source
    buffer alive.

    ```mlir
    func.func @chain(%arg0: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %0 = tosa.exp %arg0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
      %1 = tosa.exp %0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
      return %1 : tensor<1x8xf32>
    }
    // becomes
    func.func @chain(...) attributes {serenity.peak_bytes = 64 : i64,
                                      serenity.peak_step = 0 : i64} {
      %0 = tosa.exp %arg0 {serenity.lifetime =
               [#serenity.lifetime<bytes = 32, def = 0, last = 1>]} ...
      %1 = tosa.exp %0 {serenity.lifetime =
               [#serenity.lifetime<bytes = 32, def = 1, last = 2>]} ...
    ```

    A function outside the model (several blocks, dynamic or unranked shapes,
    unsizable element types) gets an error at the offending value and is left
    unchanged. An op with regions (tosa.cond_if, tosa.while_loop) is one
    opaque step; uses inside its regions are uses by the op.
  }];
  let dependentDialects = ["mlir::serenity::SerenityDialect"];
}

def SerenityMemoryReportPass
    : Pass<"serenity-memory-report", "mlir::ModuleOp"> {
  let summary = "Print the per-step activation memory of every function";
  let description = [{
    Prints, for every function of the module in order, a table with one row
    per scheduled op: step, op name, live bytes while executing the step,
    bytes allocated by it, and a `<- peak` marker on the first step reaching
    the peak. With `format=json` it prints one JSON document instead:

    ```
    {"functions": [ {"function": "main", "peak_bytes": 96, "peak_step": 1,
       "steps": [ {"step": 0, "op": "tosa.exp", "loc": "in.mlir:3:10",
                   "live_bytes": 64, "new_bytes": 32}, ... ],
       "buffers": [ {"name": "%arg0", "bytes": 32, "def": -1, "last": 0},
                    ... ] } ] }
    ```

    The report goes to stdout (or `output=FILE`); the IR itself is unchanged,
    so `serenity-opt --serenity-memory-report=format=json -o /dev/null` yields
    only the JSON.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "Output format: table or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stdout)">,
  ];
}

def SerenityCopyToLinalgPass
    : Pass<"serenity-copy-to-linalg", "func::FuncOp"> {
  let summary = "Rewrite memref.copy as linalg.copy so copies lower to loops";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` between non-contiguous
    memrefs (the subviews that bufferized `tensor.pad`/`tensor.concat`
    produce) to a call of `memrefCopy` from the MLIR C runner utils, a
    library a microcontroller image does not have. This pass rewrites every
    `memref.copy` whose operands are ranked into the equivalent
    `linalg.copy`, which `convert-linalg-to-loops` turns into plain loads and
    stores, so the lowered code needs no runtime library.

    ```mlir
    memref.copy %a, %sub : memref<4xf32> to memref<4xf32, strided<[1], offset: 2>>
    // becomes
    linalg.copy ins(%a : memref<4xf32>) outs(%sub : memref<4xf32, strided<[1], offset: 2>>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def SerenityStaticAllocPass
    : Pass<"serenity-static-alloc", "mlir::ModuleOp"> {
  let summary = "Place every static memref.alloc of a function in one arena";
  let description = [{
    For each function with a body, every `memref.alloc` with a static shape
    and identity layout (also inside loops and other regions) becomes a
    `memref.view` into one `i8` arena at an offset planned by the
    SerenityAllocation library; `memref.dealloc`s of planned buffers are
    erased. A buffer is live from its alloc to the last use of it or of any
    memref derived from it (subview, expand/collapse_shape, cast,
    reinterpret_cast, view, ...), in pre-order op numbering of the function;
    a use inside a region keeps the buffer live until the end of the
    enclosing op in the alloc's block (every iteration of a loop).

    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<100xi8>
    // becomes, with arena=global
    memref.global "private" @__serenity_arena_f : memref<192xi8> = uninitialized {alignment = 64 : i64}
    %arena = memref.get_global @__serenity_arena_f : memref<192xi8>
    %c128 = arith.constant 128 : index
    %a = memref.view %arena[%c128][] : memref<192xi8> to memref<100xi8>
    ```

    `arena=global` uses a private `memref.global` per function;
    `arena=argument` prepends a `memref<Nxi8>` argument instead, so the
    caller owns the arena (TFLM style; it must be `alignment`-aligned).
    Dynamically sized allocs, allocs with a layout or memory space, and
    buffers that escape (returned, yielded out of a region, freed by
    `bufferization.dealloc`) stay as they are, with a remark. Sets
    `serenity.arena_bytes` and `serenity.arena_lower_bound` (max live bytes)
    on the function; `report=FILE` writes
    `{"function", "arena_bytes", "lower_bound", "proven_optimal", "buffers":
    [ {"name", "offset", "size", "first", "last"} ] }` (inclusive steps in
    the rewritten function), or `{"functions": [ ... ] }` of those when
    several functions have buffers. Functions without placeable allocs are
    left unchanged (no arena), and so are functions with a multi-block
    region (with a remark), where program order is not a timeline.
  }];
  let options = [
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"exact\"",
           "Offset algorithm: exact, best-fit or greedy-size">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Minimum alignment of every buffer in bytes (a power of two)">,
    Option<"arena", "arena", "std::string", /*default=*/"\"global\"",
           "Arena storage: global (private memref.global) or argument">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "File to write the JSON allocation report to">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"10.0",
           "Time limit of the exact search per function, in seconds">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // SERENITY_TRANSFORMS_PASSES_TD
