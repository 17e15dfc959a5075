//===- Pipelines.h - Serenity pass pipelines --------------------*- C++ -*-===//
//
// The end-to-end pipeline from TOSA to the LLVM dialect, as a builder that
// other tools (IREE-like stacks) can call and as `--serenity-pipeline`.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_PIPELINES_PIPELINES_H
#define SERENITY_PIPELINES_PIPELINES_H

#include "Serenity/Graph/PassEnums.h"
#include "Serenity/Lowering/PassEnums.h"
#include "Serenity/Target/TargetDescription.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace serenity {

// The enumerated options of serenity-pipeline that its passes do not have
// (Serenity/Graph/PassEnums.h and Serenity/Lowering/PassEnums.h have those),
// each with its one table of spellings (Serenity/Support/EnumTable.h). Where
// the pipeline adds `none` (leave the pass out) to a pass's choices, the other
// spellings are the pass's: buildSerenityPipeline converts by spelling
// (passChoice).

/// `schedule`: the serenity-schedule algorithm, or none.
enum class PipelineSchedule { DP, Kahn, Greedy, ProgramOrder, None };
SERENITY_ENUM_NAMES(PipelineSchedule, {PipelineSchedule::DP, "dp"},
                    {PipelineSchedule::Kahn, "kahn"},
                    {PipelineSchedule::Greedy, "greedy"},
                    {PipelineSchedule::ProgramOrder, "program-order"},
                    {PipelineSchedule::None, "none"})

/// `alloc`: the serenity-static-alloc algorithm, or none.
enum class PipelineAlloc { Exact, BestFit, GreedySize, None };
SERENITY_ENUM_NAMES(PipelineAlloc, {PipelineAlloc::Exact, "exact"},
                    {PipelineAlloc::BestFit, "best-fit"},
                    {PipelineAlloc::GreedySize, "greedy-size"},
                    {PipelineAlloc::None, "none"})

/// `target`: the family of the target table (Serenity/Target/
/// TargetDescription.h), whose facts the pipeline reads there.
using ::serenity::isMicrocontroller;
using ::serenity::PipelineTarget;

/// serenity-tile's MAC budget (percent of the function's MACs) when
/// `tile-max-mac-overhead` is not given. On microcontrollers the halo
/// rows a tiling recomputes cost instructions at up to 1.3x their share of
/// the MACs (docs/Tiling.md: id_model 18.9 % more MACs, 24.8 % more
/// instructions on the Cortex-M4; str_ww 17.3 % -> 20.7 % on the M55), so
/// 8 % keeps the default within about 10 % more instructions; the host
/// keeps 20 %.
inline double defaultTileMacOverhead(PipelineTarget target) {
  return isMicrocontroller(target) ? 8.0 : 20.0;
}

/// `conv-kernels`: how int8 convolutions are lowered.
enum class ConvKernels { Auto, Loops, Dot };
SERENITY_ENUM_NAMES(ConvKernels, {ConvKernels::Auto, "auto"},
                    {ConvKernels::Loops, "loops"}, {ConvKernels::Dot, "dot"})

/// `rewrite`: the serenity-rewrite mode, or none.
enum class PipelineRewrite { None, Profitable, All };
SERENITY_ENUM_NAMES(PipelineRewrite, {PipelineRewrite::None, "none"},
                    {PipelineRewrite::Profitable, "profitable"},
                    {PipelineRewrite::All, "all"})

/// `tile`: the serenity-tile method, or none.
enum class PipelineTile { None, FFMT, FDT, Both };
SERENITY_ENUM_NAMES(PipelineTile, {PipelineTile::None, "none"},
                    {PipelineTile::FFMT, "ffmt"}, {PipelineTile::FDT, "fdt"},
                    {PipelineTile::Both, "both"})

} // namespace serenity
} // namespace mlir

SERENITY_ENUM_OPTION(mlir::serenity::PipelineSchedule)
SERENITY_ENUM_OPTION(mlir::serenity::PipelineAlloc)
SERENITY_ENUM_OPTION(::serenity::PipelineTarget)
SERENITY_ENUM_OPTION(mlir::serenity::ConvKernels)
SERENITY_ENUM_OPTION(mlir::serenity::PipelineRewrite)
SERENITY_ENUM_OPTION(mlir::serenity::PipelineTile)

namespace mlir {
namespace serenity {

/// Options of `serenity-pipeline`.
struct SerenityPipelineOptions
    : public PassPipelineOptions<SerenityPipelineOptions> {
  ListOption<std::string> functions{
      *this, "functions",
      llvm::cl::desc("Functions to optimize (default: every function that "
                     "fits the memory model); the others get a remark and "
                     "the ordinary upstream lowering")};
  Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("A function outside the memory model is an error "
                     "instead of being left to the upstream lowering"),
      llvm::cl::init(false)};
  Option<PipelineSchedule> schedule{
      *this, "schedule",
      llvm::cl::desc("Scheduling algorithm: dp, kahn, greedy, program-order, "
                     "or none (keep the order as written)"),
      llvm::cl::init(PipelineSchedule::DP)};
  Option<PipelineAlloc> alloc{
      *this, "alloc",
      llvm::cl::desc("Arena allocation algorithm: exact, best-fit, "
                     "greedy-size, or none (keep memref.alloc)"),
      llvm::cl::init(PipelineAlloc::Exact)};
  Option<ArenaStorage> arena{
      *this, "arena",
      llvm::cl::desc("Arena storage: global (a private memref.global) or "
                     "argument (a leading memref<Nxi8> argument)"),
      llvm::cl::init(ArenaStorage::Global)};
  Option<IOPlacement> io{
      *this, "io",
      llvm::cl::desc("Inputs and outputs: caller (held by the caller outside "
                     "the arena) or arena (planned in the arena, their bytes "
                     "reused as TFLite Micro does; the caller passes views at "
                     "the offsets in serenity.io_offsets)"),
      llvm::cl::init(IOPlacement::Caller)};
  Option<unsigned> alignment{
      *this, "alignment",
      llvm::cl::desc("Buffer alignment in the arena, in bytes (a power of "
                     "two; an allocation asking for more gets more). 0: the "
                     "target's (defaultArenaAlignment: 64 on host, 4 on "
                     "the microcontrollers)"),
      llvm::cl::init(0)};
  Option<PipelineTarget> target{
      *this, "target",
      llvm::cl::desc("host (64-bit index), cortex-m (32-bit index, DSP "
                     "kernels), cortex-m-helium (32-bit index, Helium "
                     "kernels), cortex-m-baseline (ARMv6-M: 32-bit index, "
                     "kernels in plain 32-bit arithmetic, soft float) or "
                     "riscv32 (rv32imc: the same)"),
      llvm::cl::init(PipelineTarget::Host)};
  Option<ConvKernels> convKernels{
      *this, "conv-kernels",
      llvm::cl::desc("How int8 convolutions are lowered: loops "
                     "(convert-linalg-to-loops), dot (serenity-int8-conv-"
                     "kernels: DSP dot products on cortex-m, the same loops "
                     "in plain arithmetic on the host) or auto (dot on "
                     "cortex-m, loops on the host)"),
      llvm::cl::init(ConvKernels::Auto)};
  Option<int64_t> widenBudget{
      *this, "widen-budget",
      llvm::cl::desc("conv-kernels=dot on Cortex-M4/M7: most bytes of flash "
                     "the int16 copies of filters may add; the copies go to "
                     "the filters read by the most multiply-accumulates "
                     "(exact knapsack). -2 (auto): a quarter of the "
                     "network's constant bytes, at most 32 KiB; -1: no "
                     "limit, 0: no copies (int8 weights only)"),
      llvm::cl::init(-2)};
  ListOption<std::string> widenFilters{
      *this, "widen-filters",
      llvm::cl::desc("conv-kernels=dot on Cortex-M4/M7: widen exactly these "
                     "filter globals (a per-layer decision, e.g. of "
                     "`python3 -m serenity frontier`) instead of choosing "
                     "within widen-budget")};
  Option<int64_t> ramBudget{
      *this, "ram-budget",
      llvm::cl::desc("Cortex-M: RAM budget in bytes (arena with input and "
                     "output + state + stack): the pipeline takes the "
                     "tiling and widening options of the fastest "
                     "configuration within both budgets in `frontier` "
                     "(measured or predicted by python3 -m serenity "
                     "frontier); -1: none"),
      llvm::cl::init(-1)};
  Option<int64_t> flashBudget{
      *this, "flash-budget",
      llvm::cl::desc("Cortex-M: flash budget in bytes (code + constants + "
                     ".data), with ram-budget; -1: none"),
      llvm::cl::init(-1)};
  Option<std::string> frontier{
      *this, "frontier",
      llvm::cl::desc("ram-budget/flash-budget: the model's configurations "
                     "(python3 -m serenity frontier MODEL --target T "
                     "--export FILE)"),
      llvm::cl::init("")};
  Option<std::string> primitives{
      *this, "primitives",
      llvm::cl::desc(
          "Convolution primitives (serenity.primitive): none "
          "(default: conv-kernels decides), one of direct, dot, "
          "im2col, winograd2, winograd4, vector for every convolution it "
          "applies to, or select (serenity-select-primitives: the "
          "least measured time within budget, needs profile)"),
      llvm::cl::init("none")};
  Option<int64_t> budget{
      *this, "budget",
      llvm::cl::desc("Memory budget in bytes for the primitive selection "
                     "(implies primitives=select): the fastest choice whose "
                     "scheduled peak, workspaces included, stays within it; "
                     "-1: no limit"),
      llvm::cl::init(-1)};
  Option<std::string> profile{
      *this, "profile",
      llvm::cl::desc("primitives=select: measured times per convolution "
                     "shape and primitive (python3 -m serenity profile)"),
      llvm::cl::init("")};
  Option<std::string> primitiveKernels{
      *this, "primitive-kernels",
      llvm::cl::desc("Write the convolution shapes as standalone kernels "
                     "(JSON, the profiler's input) to this file"),
      llvm::cl::init("")};
  Option<std::string> primitiveReport{
      *this, "primitive-report",
      llvm::cl::desc("primitives=select: write the selection and its "
                     "time/peak frontier (JSON) to this file"),
      llvm::cl::init("")};
  Option<PipelineRewrite> rewrite{
      *this, "rewrite",
      llvm::cl::desc("Identity graph rewriting before scheduling: none, "
                     "profitable or all (serenity-rewrite)"),
      llvm::cl::init(PipelineRewrite::None)};
  Option<PipelineTile> tile{
      *this, "tile",
      llvm::cl::desc("Fused tiling of the buffers at the peak, after "
                     "scheduling: none, ffmt (spatial), fdt (channels) or "
                     "both (default; serenity-tile). Tiles are written in "
                     "place: concat becomes auto unless given; with an "
                     "explicit concat=copy the default tiling is off and an "
                     "explicit tile is an error"),
      llvm::cl::init(PipelineTile::Both)};
  Option<double> tileMaxMacOverhead{
      *this, "tile-max-mac-overhead",
      llvm::cl::desc("serenity-tile: most extra MACs in percent of the "
                     "function's (default: 20 on the host, 8 on "
                     "microcontroller targets, defaultTileMacOverhead)"),
      llvm::cl::init(20.0)};
  Option<int64_t> tileBeamWidth{
      *this, "tile-beam-width",
      llvm::cl::desc("serenity-tile: partial tilings kept per round (1: "
                     "greedy; wider: combinations of regions)"),
      llvm::cl::init(1)};
  Option<ConcatMode> concat{
      *this, "concat",
      llvm::cl::desc("copy (DESIGN.md), inplace (concat operands are "
                     "produced directly into their slice of the output; "
                     "upstream eliminate-empty-tensors before bufferization) "
                     "or auto (in place only for the concats where "
                     "serenity-schedule finds it lowers the peak)"),
      llvm::cl::init(ConcatMode::Copy)};
  Option<bool> accumulateInPlace{
      *this, "accumulate-in-place",
      llvm::cl::desc("Convs with a zero bias accumulate into the partial sum "
                     "they are added to (serenity-accumulate-partial-sums)"),
      llvm::cl::init(false)};
  Option<bool> fuseRequantization{
      *this, "fuse-requantization",
      llvm::cl::desc("Compute each convolution's accumulator one output tile "
                     "at a time, fused with its rescale/clamp "
                     "(serenity-fuse-requantization)"),
      llvm::cl::init(true)};
  Option<int64_t> tileCols{
      *this, "tile-cols",
      llvm::cl::desc("fuse-requantization: output columns per tile (0 = "
                     "whole rows; one row per tile either way)"),
      llvm::cl::init(1)};
  Option<int64_t> tileChannels{
      *this, "tile-channels",
      llvm::cl::desc("fuse-requantization: output channels per tile (0 = all; "
                     "1 = one accumulator element, kept in a register; the "
                     "largest divisor of a conv's channel count up to this "
                     "is used). Default: 4 with conv-kernels=dot (a block "
                     "of accumulators in registers), else 1"),
      llvm::cl::init(1)};
  Option<bool> inPlaceConvs{
      *this, "in-place-convs",
      llvm::cl::desc("fuse-requantization: a depthwise or 1x1 conv whose "
                     "result has its input's type and whose input has no "
                     "other reader writes its result over its input, from "
                     "a scratch copy of one channel block or pixel "
                     "(serenity-in-place-convs; the graph passes count it; "
                     "only with tile-cols=1 and tile-channels >= 1)"),
      llvm::cl::init(true)};
  Option<bool> fusePadding{
      *this, "fuse-padding",
      llvm::cl::desc("fuse-requantization: pad each tile's input window "
                     "inside the loop instead of copying the whole padded "
                     "input"),
      llvm::cl::init(true)};
  Option<std::string> allocReport{
      *this, "alloc-report",
      llvm::cl::desc("Write the static allocation report (JSON) to this "
                     "file"),
      llvm::cl::init("")};
  Option<std::string> profileMarks{
      *this, "profile-marks",
      llvm::cl::desc("Call serenity_profile_mark(id) before each kernel and "
                     "before the return (serenity-profile-marks), and write "
                     "the kernels' list (JSON) to this file: per-layer "
                     "counts, examples/deploy/measure.py --per-layer"),
      llvm::cl::init("")};
  Option<int64_t> shareKernels{
      *this, "share-kernels",
      llvm::cl::desc("After allocation, kernels that occur at least this "
                     "many times with the same weights become calls of one "
                     "function (serenity-share-kernels): less flash, a few "
                     "more instructions. -1 (auto): 4 copies in functions "
                     "that keep state between runs (a recurrent model, "
                     "unrolled over time: the code of one step instead of "
                     "one per step) and 2 in functions serenity-tile tiled "
                     "(one kernel per tile shape); 0: off"),
      llvm::cl::init(-1)};
  Option<int64_t> outlineMinOps{
      *this, "outline-min-ops",
      llvm::cl::desc("Before the loop lowering, move the kernels of a "
                     "function with at least this many into private "
                     "functions (serenity-outline-kernels; 0: always; one "
                     "kernel per function on Cortex-M, where a group's "
                     "spilled addresses would cost stack, groups of 32 on "
                     "the host), which keeps the lowering linear in the "
                     "network's size"),
      llvm::cl::init(256)};
  Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Lower to the LLVM dialect (false: stop after static "
                     "allocation, on memref)"),
      llvm::cl::init(true)};
};

/// The arena alignment of `target` (host or cortex-m) when the pipeline's
/// `alignment` option is 0: what its loads need, from the target table
/// (TargetDescription::arenaAlignment of primaryTarget: 4 on Cortex-M, a
/// cache line, 64, on the host).
int64_t defaultArenaAlignment(PipelineTarget target);

/// The arena alignment `options` give: `alignment`, or when 0 the target's.
int64_t getArenaAlignment(const SerenityPipelineOptions &options);

/// Adds the Serenity pipeline to `pm` (anchored on builtin.module). Returns
/// failure, after reporting through `errorHandler`, on invalid options.
/// The passes are created through their typed constructors and options
/// structs, so nothing needs registering first. examples/embed shows a
/// complete consumer built against an installed Serenity
/// (find_package(Serenity)).
LogicalResult
buildSerenityPipeline(OpPassManager &pm, const SerenityPipelineOptions &options,
                      function_ref<LogicalResult(const Twine &)> errorHandler);

/// Adds the last part of the pipeline alone: from memrefs after static
/// allocation (`lower-to-llvm=false`) to the LLVM dialect, for `target`
/// (cortex-m: 32-bit index), kernels outlined in functions with at least
/// `outlineMinOps` of them. Tools that read the memref-level module first
/// (serenity-compile: signature, arena) run the pipeline in these two parts.
LogicalResult buildSerenityLLVMLowering(
    OpPassManager &pm, PipelineTarget target,
    function_ref<LogicalResult(const Twine &)> errorHandler,
    int64_t outlineMinOps = 256);

/// With ram-budget or flash-budget: sets `options`' tiling and widening
/// options to those of the fastest configuration within both budgets in
/// the frontier export `options.frontier` (Serenity/Pipelines/Frontier.h)
/// and clears the budgets; without them, nothing. Fails, after reporting
/// through `errorHandler`, when the export is missing or for another
/// target, when the options also set what the budgets decide, or when no
/// configuration fits (saying what is reachable). The registered
/// `serenity-pipeline` calls it before buildSerenityPipeline, which refuses
/// budgets left unresolved.
LogicalResult
resolvePipelineBudgets(SerenityPipelineOptions &options,
                       function_ref<LogicalResult(const Twine &)> errorHandler);

/// Registers `serenity-pipeline` (requires registerSerenityPasses()).
void registerSerenityPipelines();

} // namespace serenity
} // namespace mlir

#endif // SERENITY_PIPELINES_PIPELINES_H
