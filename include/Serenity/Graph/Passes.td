//===- Passes.td - Serenity graph-level passes ---------------*- tablegen -*-===//
//
// The graph level of the pipeline (docs/Architecture.md): TOSA to TOSA. The
// passes that build the memory model and change the graph or its order for
// the least peak: annotate, report, prepare the input, rewrite, schedule,
// tile, select the convolution primitives.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_GRAPH_PASSES_TD
#define SERENITY_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

// The memory-model options every pass that builds the model takes: the fields
// of MemoryModelOptions (Serenity/Analysis/MemoryModel.h); serenity-pipeline
// sets them from one MemoryModelOptions (withMemoryModel in Pipelines.cpp).
defvar memoryModelOptions = [
    Option<"concat", "concat", "::mlir::serenity::ConcatMode",
           /*default=*/"::mlir::serenity::ConcatMode::Copy",
           "How concatenations are counted: copy (DESIGN.md), inplace "
           "(operands produced into their slice of the output) or auto "
           "(in place for the concats marked serenity.concat_inplace; "
           "serenity-schedule marks those where it lowers the peak)">,
    Option<"accumulateInPlace", "accumulate-in-place", "bool",
           /*default=*/"false",
           "Count partial sums (tosa.add of a zero-bias conv2d) as the conv "
           "accumulating into the other operand (docs/Rewriting.md)">,
    Option<"fuseRequantization", "fuse-requantization", "bool",
           /*default=*/"false",
           "Count an int8 conv, its narrowing tosa.rescale and a following "
           "tosa.clamp as one fused step (serenity-fuse-requantization): "
           "no accumulator bytes, the conv's inputs live until the step "
           "writes its int8 result">,
    Option<"inPlaceConvs", "in-place-convs", "bool", /*default=*/"false",
           "With fuse-requantization: count a depthwise or 1x1 conv group "
           "whose result has its input's type and whose input has no other "
           "reader as written over its input, with a scratch copy of one "
           "channel block or pixel (serenity-in-place-convs)">,
];

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

    `concat=inplace` evaluates the model with in-place concatenation
    (docs/Rewriting.md): a concat operand produced directly into its slice
    of the output has `bytes = 0`, and the output is defined by the first
    step writing any slice of it.
  }];
  let options = memoryModelOptions;
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
    only the JSON. `concat=inplace` reports under in-place concatenation (see
    serenity-annotate-lifetimes).
  }];
  let options = !listconcat([
    Option<"format", "format", "::mlir::serenity::ReportFormat",
           /*default=*/"::mlir::serenity::ReportFormat::Table",
           "Output format: table or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stdout)">,
  ], memoryModelOptions);
}

def SerenityRewritePass : Pass<"serenity-rewrite", "func::FuncOp"> {
  let summary = "Identity graph rewriting around channel concatenations";
  let description = [{
    Rewrites the graph around `tosa.concat` without changing its math
    (SERENITY's identity graph rewriting), so that a scheduler can keep one
    branch live at a time:

    - channel-wise partitioning: a channel concat feeding float `tosa.conv2d`
      ops becomes a sum of partial convs over input-channel slices of the
      weights (new constants), the bias added once;
    - kernel-wise partitioning: a channel concat feeding
      `tosa.depthwise_conv2d` ops becomes a concat of per-input depthwise
      convs with sliced weights and bias;
    - channel-independent ops (elementwise unary ops, max/avg pooling) are
      pushed through a concat so the partitions above apply.

    ```mlir
    %c = tosa.concat %a, %b {axis = 3 : i32} : ... -> tensor<1x8x8x8xf32>
    %y = tosa.conv2d %c, %w, %bias, %zp, %zp {...}
    // becomes
    %p0 = tosa.conv2d %a, %w_ic0_4, %bias, %zp, %zp {...}
    %p1 = tosa.conv2d %b, %w_ic4_8, %zero, %zp, %zp {...}
    %y = tosa.add %p0, %p1
    ```

    A rewrite is rooted at a concat and rewrites every user of it, or none.
    One candidate is a concat together with the concats its rewrite creates
    (pushing a ReLU creates the concat that is then partitioned).

    `mode=all` applies every candidate. `mode=profitable` (default) applies,
    one at a time, the candidate that lowers the scheduled peak of the
    function the most; when none does alone, the best prefix of the remaining
    candidates applied in program order, if it lowers the peak; until neither
    does. The scheduled peak is evaluated on a clone of the function under
    the memory model of DESIGN.md. The pass does
    not reorder ops: the gain is realized by the scheduler that runs after it.
    Every applied rewrite gets a remark with the peak before and after; with
    `explain=true`, rejected candidates get a remark with the reasons.
    `patterns=` restricts the pattern groups (to test one pattern alone);
    `concat=inplace` measures peaks with in-place concatenation.
    `work-limit` bounds the profitable search (each candidate is
    re-scheduled on a clone and costs the function's op count): when it
    runs out, the rewrites applied so far are kept, the remaining candidates
    are not evaluated, and a remark says `stopped by work-limit=N`. The
    budget, not the clock, decides, so the output is the same on any
    machine; `time-limit-ms` (off by default) is an opt-in wall-clock safety
    net whose remark says `stopped by time-limit-ms=N`.
  }];
  let options = !listconcat([
    Option<"mode", "mode", "::mlir::serenity::RewriteMode",
           /*default=*/"::mlir::serenity::RewriteMode::Profitable",
           "Which rewrites to apply: profitable or all">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with the reasons for every concat left unchanged">,
    Option<"workLimit", "work-limit", "int64_t", /*default=*/"300000",
           "Work budget of the profitable search, in ops of the evaluated "
           "candidates (each costs the function's op count; -1: none); when "
           "it runs out the rewrites applied so far are kept and a remark "
           "says so. Deterministic">,
    Option<"timeLimitMs", "time-limit-ms", "int64_t", /*default=*/"0",
           "Opt-in wall-clock safety net in milliseconds (0: off); a search "
           "it stops keeps the rewrites applied so far and the remark names "
           "time-limit-ms (the result then depends on the machine)">,
    ListOption<"patternGroups", "patterns", "std::string",
               "Pattern groups to use (default: all): channel-partition, "
               "kernel-partition, push-through-concat">,
  ], memoryModelOptions);
  let dependentDialects = ["mlir::tosa::TosaDialect"];
}

def SerenityTilePass : Pass<"serenity-tile", "func::FuncOp"> {
  let summary = "Fused feature-map and channel tiling of the buffers that "
                "set the peak";
  let description = [{
    Fused feature-map tiling (FFMT, Stahl et al.): finds the activation
    buffers live at the peak step of the function (in its current op order,
    i.e. after `serenity-schedule`), and for each of them candidate regions
    around it: runs of consecutive convs, depthwise convs, pools and pointwise
    ops that read one activation from outside and produce one, ending at
    smaller buffers than the ones inside. Each candidate is computed tile by
    tile on a grid (row strips up to `max-partitions`, and N x N grids up to
    5 x 5): per tile a slice of the region's input with the halo the tile's
    windows need (recomputed at tile borders), the region's ops on tile
    shapes with padding only at the real image borders, and the tiles
    concatenated into the region's output (in place under `concat=auto`,
    marked `serenity.concat_inplace`, and `concat=inplace`).

    ```mlir
    %a = tosa.conv2d %x, ... -> tensor<1x48x48x16xi8>   // whole
    %b = tosa.depthwise_conv2d %a, ... {stride = 2}     // 24x24
    // becomes, per strip i of 24 rows / N:
    %xi = tosa.slice %x ...          // rows of %x strip i needs (halo)
    %ai = tosa.conv2d %xi, ... {pad = tile padding}
    %bi = tosa.depthwise_conv2d %ai, ...
    %b = tosa.concat %b0, ..., %bN {axis = 1}
    ```

    Every candidate is evaluated on a clone under the memory model
    (program-order peak, the order the tiles are emitted in); among those
    that lower the peak (or keep it at fewer steps) the best one (lowest
    peak, then fewer extra MACs, then fewer steps at the peak) is applied,
    and the search repeats on the new peak. Candidates whose extra MACs exceed `max-mac-overhead` percent of
    the function's MACs are skipped. Each applied region gets a remark with
    its ops, grid, peak before and after and the MAC overhead. The search
    stops when its work budget runs out (`work-limit`: each candidate
    evaluated costs the function's op count) with what it applied so far,
    and a remark says `stopped by work-limit=N`; the budget, not the clock,
    decides, so the output is the same on any machine. `time-limit-ms`
    (off by default) is an opt-in wall-clock safety net whose remark says
    `stopped by time-limit-ms=N`.

    `method=fdt` (fused depthwise tiling) tiles channels instead: a chain
    that starts with a conv2d (split by output channels), continues with
    channel-independent ops (depthwise conv, per-channel or broadcast
    pointwise ops, pools; constants sliced per partition) and ends either
    in a concat along C or in a conv2d split by input channels whose
    partial results are added (the first keeps the bias); no extra MACs.
    `method=both` considers both kinds of candidates in every round
    (docs/Tiling.md).
  }];
  let options = !listconcat([
    Option<"method", "method", "::mlir::serenity::TileMethod",
           /*default=*/"::mlir::serenity::TileMethod::FFMT",
           "Tiling method: ffmt (fused feature-map tiling), fdt (fused "
           "depthwise/channel tiling) or both">,
    Option<"maxPartitions", "max-partitions", "int64_t", /*default=*/"32",
           "Most tiles of one region (row strips; grids go to 5 x 5) or "
           "channel partitions">,
    Option<"maxMacOverhead", "max-mac-overhead", "double", /*default=*/"20.0",
           "Most extra MACs (recomputed halos), in percent of the "
           "function's MACs, over all applied regions">,
    Option<"maxRegionOps", "max-region-ops", "int64_t", /*default=*/"24",
           "Most ops a region extends above and below a critical buffer">,
    Option<"workLimit", "work-limit", "int64_t", /*default=*/"6000000",
           "Work budget of the search, in ops of the evaluated candidates "
           "(each candidate costs the function's op count; -1: none); when "
           "it runs out the regions tiled so far are kept and a remark says "
           "so. Deterministic: the same input and options give the same "
           "result on any machine">,
    Option<"timeLimitMs", "time-limit-ms", "int64_t", /*default=*/"0",
           "Opt-in wall-clock safety net in milliseconds (0: off); a search "
           "it stops keeps the regions tiled so far and the remark names "
           "time-limit-ms (the result then depends on the machine)">,
    Option<"beamWidth", "beam-width", "int64_t", /*default=*/"1",
           "Partial tilings kept per round (1: greedy, the best region "
           "each round); wider, combinations of regions that no single "
           "best-first sequence reaches: the result is the lowest peak "
           "(then fewest MACs) of any kept state">,
  ], memoryModelOptions);
  let dependentDialects = ["mlir::tosa::TosaDialect"];
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
        states = 12 : i64, stopped_by = "none", work = 40 : i64}}
    ```

    and a remark reports the peak before and after. Ties keep the current
    order, so running the pass on its own output changes nothing. The dp
    stops at `work-limit` (counted work: states expanded, max-flow arcs
    scanned, reinsertion moves), never at a wall-clock deadline unless
    `time-limit-ms` asks for one, so the same function and options give
    the same order and summary on any machine; `stopped_by` says what ended
    a search that did not prove its order optimal (`work-limit`,
    `state-limit`, `time-limit`; `none` when proven). A function outside the model (several blocks,
    dynamic shapes) gets the model's error and is left unchanged.

    `concat=inplace` and `accumulate-in-place` schedule under those memory
    model options (see serenity-annotate-lifetimes): every algorithm then
    counts an in-place concat's output from the first step writing a slice
    of it, so `peak_bytes` equals the peak that
    serenity-annotate-lifetimes reports with the same options afterwards,
    and `dp` stays exact.
  }];
  let options = !listconcat([
    Option<"algorithm", "algorithm", "::serenity::ScheduleAlgorithm",
           /*default=*/"::serenity::ScheduleAlgorithm::DP",
           "Scheduling algorithm: dp, greedy, hill-valley, kahn or program-order">,
    Option<"workLimit", "work-limit", "int64_t",
           /*default=*/"9000000",
           "Work budget of the dp search per function, in units of about one "
           "search state expansion (deterministic; the default takes about "
           "3 s on the reference machine)">,
    Option<"timeLimitMs", "time-limit-ms", "int64_t", /*default=*/"0",
           "Opt-in wall-clock safety net of the dp search per function, in "
           "milliseconds (0: off); a result it cuts short depends on the "
           "machine's load">,
    Option<"maxStates", "max-states", "int64_t", /*default=*/"2000000",
           "Most search states the dp may create per search">,
    Option<"memoryLimitMb", "memory-limit-mb", "int64_t", /*default=*/"256",
           "Approximate cap on the dp's state tables in MiB; it lowers "
           "max-states where that many states would not fit">,
  ], memoryModelOptions);
}

def SerenityPrepareInputPass
    : Pass<"serenity-prepare-input", "ModuleOp"> {
  let summary = "Select the functions serenity-pipeline optimizes; distinct results";
  let description = [{
    The first step of `serenity-pipeline`. A function is optimized when its
    body fits the memory model (one block; ranked, statically shaped tensors
    of sizable element types) and it is selected (`functions`, default: all).
    A function outside the model without TOSA ops (a driver that builds
    inputs, calls the network and prints, as MLIR integration tests are
    written), or one not selected, gets `serenity.unoptimized = "why"` and a
    remark: the pipeline's own passes leave it alone and it is lowered by the
    ordinary upstream lowering. A function with TOSA ops outside the model is
    an error at the model's location, before any upstream conversion sees the
    IR (the upstream TOSA lowering asserts or crashes on some unranked or
    dynamic TOSA ops; a not-selected function with such ops is an error too);
    with `strict=true` every function outside the model is.

    Ops of an optimized function whose results nothing reads (trivially
    dead: an importer's superseded reshape) are erased: as readers they
    would keep their operands whole inside a tile region.

    A value returned more than once by an optimized function gets a
    `linalg.copy` per extra result, so that bufferization gives every result
    its own out-parameter buffer.

    ```mlir
    return %e, %e : tensor<4xf32>, tensor<4xf32>
    // becomes
    %0 = bufferization.alloc_tensor() : tensor<4xf32>
    %1 = linalg.copy ins(%e : tensor<4xf32>) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
    return %e, %1 : tensor<4xf32>, tensor<4xf32>
    ```

    (`bufferization.alloc_tensor`, not `tensor.empty`: the in-place concat
    modes run `eliminate-empty-tensors`, which would fold the copy away.)
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "Names of the functions to optimize (default: every function "
               "that fits the memory model)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "A function outside the memory model is an error instead of "
           "being left to the upstream lowering">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SerenitySelectPrimitivesPass
    : Pass<"serenity-select-primitives", "ModuleOp"> {
  let summary = "Choose each convolution's primitive for time under a "
                "memory budget (an ILP), or one primitive everywhere";
  let description = [{
    Tags each `tosa.conv2d` / `tosa.depthwise_conv2d` with
    `serenity.primitive` (see `#serenity.primitive`), in the function's
    (scheduled) order:

    - `uniform=P`: primitive `P` wherever it applies, `direct` elsewhere;
    - otherwise an ILP (GLPK) over one choice per convolution: with
      `objective=time`, the least total time (from `profile=FILE`, the
      measured time of each convolution shape and primitive, written by
      `python3 -m serenity profile`) whose peak stays within
      `budget-bytes`; with `objective=memory`, the least peak whose time
      stays within `budget-time` (ties: less time). The peak is the
      memory model's (the same options as `serenity-schedule`) for the
      order of the function: at each step the live activations plus the
      workspace of the convolution computed there (im2col rows, Winograd
      tiles; `getWorkspaceBytes`), not a per-layer sum. Convolutions
      computed at the same step (tiled into one fused loop) are one choice
      of their primitives' combinations.

    A budget below the least achievable peak (or time) is an error that
    names it. `kernels=FILE` writes, for every convolution shape, a
    standalone TOSA function computing it (the input of the profiler) with
    its applicable primitives and workspaces; `report=FILE` writes the
    layers, the choice, the predicted time and peak and the time/peak
    frontier as JSON. Existing `serenity.primitive` tags are replaced.

    The ILP stops on a work budget (`work-limit`, counted in GLPK's
    branch-and-bound callbacks and simplex iterations), never on the clock,
    so the same input and options give the same choice on any machine; a
    choice it cuts short is a warning naming `work-limit` (`optimal` false
    and `stopped_by` in the report). `time-limit` (off by default) is an
    opt-in wall-clock safety net.
  }];
  let options = !listconcat([
    Option<"objective", "objective", "::serenity::SelectionObjective",
           /*default=*/"::serenity::SelectionObjective::Time",
           "time (least time within budget-bytes) or memory (least peak "
           "within budget-time)">,
    Option<"budgetBytes", "budget-bytes", "int64_t", /*default=*/"-1",
           "Largest peak (bytes) the choice may reach; -1: no limit">,
    Option<"budgetTime", "budget-time", "double", /*default=*/"-1",
           "Largest total convolution time (the profile's unit) the choice "
           "may take; -1: no limit">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "JSON file of measured times per convolution shape and "
           "primitive (python3 -m serenity profile); needed unless "
           "uniform is set">,
    Option<"uniform", "uniform", "std::string", /*default=*/"\"\"",
           "One primitive for every convolution it applies to (direct, "
           "dot, im2col, winograd2, winograd4, vector) instead of the ILP">,
    Option<"kernels", "kernels", "std::string", /*default=*/"\"\"",
           "Write the convolution shapes as standalone TOSA kernels (JSON) "
           "to this file">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the selection (layers, choice, prediction, frontier) as "
           "JSON to this file">,
    Option<"workLimit", "work-limit", "int64_t",
           /*default=*/"50000000",
           "Work budget of the ILP per function and per search (the choice, "
           "then the report's frontier): per simplex iteration and per "
           "branch-and-bound callback, as many units as the ILP has rows; "
           "-1: none. When it runs out "
           "the best choice found is used, with a warning that it is not "
           "proven optimal and was stopped by work-limit. Deterministic">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"0",
           "Opt-in wall-clock safety net in seconds per search (0: off); a "
           "search it stops is reported as not proven, stopped by "
           "time-limit (the result then depends on the machine)">,
    Option<"vectorUnit", "vector-unit", "bool", /*default=*/"true",
           "The target has a vector unit: the vector primitive applies "
           "(serenity-pipeline sets false for target=cortex-m)">,
  ], memoryModelOptions);
  let dependentDialects = ["mlir::serenity::SerenityDialect"];
}

#endif // SERENITY_GRAPH_PASSES_TD
