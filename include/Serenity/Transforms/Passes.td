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

def SerenitySchedulePass : Pass<"serenity-schedule", "func::FuncOp"> {
  let summary = "Reorder the ops of a function body to minimize peak memory";
  let description = [{
    Builds the memory model of DESIGN.md for the function body, schedules
    its ops with the chosen algorithm (lib/Scheduling, docs/Scheduling.md)
    and moves them into that order. Constants are placed right before their
    first user (ROM data; they are not scheduled). Ops with memory effects
    (or unknown effects) keep their relative order.

    - `dp` (default): exact search; proven optimal unless a limit stops it,
      in which case the best order found is kept (never worse than the
      heuristics) and `optimal = false`.
    - `greedy`: XLA-style list scheduling (max bytes freed - bytes defined).
    - `kahn`: FIFO topological order.
    - `program-order`: the order as written (only annotates).

    The function gets a summary:

    ```mlir
    func.func @f(...) attributes {serenity.schedule = {algorithm = "dp",
        lower_bound_bytes = 80 : i64, optimal = true, peak_bytes = 80 : i64,
        states = 12 : i64, time_ms = 0 : i64}}
    ```

    and a remark reports the peak before and after. Ties keep the current
    order, so running the pass on its own output changes nothing (only
    `time_ms` may differ). A function outside the model (several blocks,
    dynamic shapes) gets the model's error and is left unchanged.
  }];
  let options = [
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"dp\"",
           "Scheduling algorithm: dp, greedy, kahn or program-order">,
    Option<"timeLimitMs", "time-limit-ms", "int64_t", /*default=*/"3000",
           "Time limit of the dp search per function, in milliseconds">,
    Option<"maxStates", "max-states", "int64_t", /*default=*/"2000000",
           "Most search states the dp may create per search">,
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

#endif // SERENITY_TRANSFORMS_PASSES_TD
