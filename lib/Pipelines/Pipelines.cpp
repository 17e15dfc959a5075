//===- Pipelines.cpp - Serenity pass pipelines -----------------*- C++ -*-===//

#include "Serenity/Pipelines/Pipelines.h"

#include "Serenity/Analysis/Primitives.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::serenity;

/// Checks that `value` is one of `allowed`.
static LogicalResult
checkChoice(StringRef option, StringRef value, ArrayRef<StringRef> allowed,
            function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (llvm::is_contained(allowed, value))
    return success();
  return errorHandler(llvm::formatv(
      "serenity-pipeline: invalid {0}='{1}' (expected one of: {2})", option,
      value, llvm::join(allowed, ", ")));
}

/// The values of the primitives option: none, each primitive, select.
static SmallVector<StringRef> primitivesChoices() {
  SmallVector<StringRef> choices = {"none"};
  for (ConvPrimitive primitive : allConvPrimitives())
    choices.push_back(stringifyConvPrimitive(primitive));
  choices.push_back("select");
  return choices;
}

/// Checks the outline-min-ops option (both builders take it).
static LogicalResult
checkOutlineMinOps(int64_t outlineMinOps,
                   function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (outlineMinOps >= 0)
    return success();
  return errorHandler("serenity-pipeline: outline-min-ops must be >= 0");
}

/// Parses `text` into `pm`.
static LogicalResult
addPipeline(OpPassManager &pm, StringRef text,
            function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  if (failed(parsePassPipeline(text, pm, errorStream)))
    return errorHandler("serenity-pipeline: cannot build '" + text +
                        "': " + parseErrors);
  return success();
}

/// Whether `convKernels` (auto, loops or dot) means the dot-product kernels
/// of serenity-int8-conv-kernels for `target`.
static bool dotKernels(StringRef convKernels, StringRef target) {
  return convKernels == "dot" ||
         (convKernels == "auto" && target == "cortex-m");
}

/// The passes from memrefs (after static allocation) to the LLVM dialect.
static std::string llvmLoweringText(bool cortexM, int64_t outlineMinOps) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string index = cortexM ? "{index-bitwidth=32}" : "";
  // Kernels of large functions in functions of their own: the loop lowering
  // below then works on many small functions (in parallel, linear time).
  os << "serenity-outline-kernels{min-ops=" << outlineMinOps << "},";
  os << "func.func(";
  // newlib's libm has no roundevenf (llvm.roundeven of tosa.cast
  // f32->int): expand it exactly into round/copysign arithmetic.
  if (cortexM)
    os << "math-expand-ops{ops=roundeven},";
  // mem2reg: the one-element buffers serenity-static-alloc made allocas
  // (per-output accumulators) become SSA values once loops are branches.
  // Vector ops (the vector primitive's blocks): transfers unrolled into
  // 1-D ones, contractions into outer products (fused multiply-adds along
  // the output channels). Host only: these passes have no 32-bit index.
  // Per function and before the loops are lowered: on the whole module
  // after them, convert-vector-to-llvm's rewrites walked every op of the
  // loop nests (3.5 s of a 3k-op random DAG, 11 s of a 10k-op one, with no
  // vector op in either); the machine code of a vector-primitive ResNet-8
  // is the same.
  if (!cortexM)
    os << "convert-vector-to-scf{full-unroll=true},"
          "convert-vector-to-llvm{vector-contract-lowering=outerproduct},";
  os << "convert-linalg-to-loops,convert-scf-to-cf,mem2reg,"
        "expand-strided-metadata,lower-affine),";
  os << "finalize-memref-to-llvm" << index
     << ",func.func(convert-math-to-llvm,convert-arith-to-llvm" << index
     << "),convert-cf-to-llvm" << index << ",convert-func-to-llvm" << index
     << ",llvm.func(convert-ub-to-llvm" << index
     << ",reconcile-unrealized-casts)";
  return text;
}

int64_t mlir::serenity::defaultArenaAlignment(StringRef target) {
  return target == "cortex-m" ? 4 : 64;
}

int64_t
mlir::serenity::getArenaAlignment(const SerenityPipelineOptions &options) {
  return options.alignment != 0 ? static_cast<int64_t>(options.alignment)
                                : defaultArenaAlignment(options.target);
}

LogicalResult mlir::serenity::buildSerenityLLVMLowering(
    OpPassManager &pm, StringRef target,
    function_ref<LogicalResult(const Twine &)> errorHandler,
    int64_t outlineMinOps) {
  if (failed(
          checkChoice("target", target, {"host", "cortex-m"}, errorHandler)) ||
      failed(checkOutlineMinOps(outlineMinOps, errorHandler)))
    return failure();
  std::string text = llvmLoweringText(target == "cortex-m", outlineMinOps);
  return addPipeline(pm, text, errorHandler);
}

LogicalResult mlir::serenity::buildSerenityPipeline(
    OpPassManager &pm, const SerenityPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (failed(checkChoice("schedule", options.schedule,
                         {"dp", "kahn", "greedy", "program-order", "none"},
                         errorHandler)) ||
      failed(checkChoice("alloc", options.alloc,
                         {"exact", "best-fit", "greedy-size", "none"},
                         errorHandler)) ||
      failed(
          checkChoice("io", options.io, {"caller", "arena"}, errorHandler)) ||
      failed(checkChoice("arena", options.arena, {"global", "argument"},
                         errorHandler)) ||
      failed(checkChoice("target", options.target, {"host", "cortex-m"},
                         errorHandler)) ||
      failed(checkChoice("conv-kernels", options.convKernels,
                         {"auto", "loops", "dot"}, errorHandler)) ||
      failed(checkChoice("primitives", options.primitives, primitivesChoices(),
                         errorHandler)) ||
      failed(checkChoice("concat", options.concat, {"copy", "inplace", "auto"},
                         errorHandler)) ||
      failed(checkChoice("rewrite", options.rewrite,
                         {"none", "profitable", "all"}, errorHandler)) ||
      failed(checkChoice("tile", options.tile, {"none", "ffmt", "fdt", "both"},
                         errorHandler)))
    return failure();
  // Tiles are written into their slice of the region's output: without an
  // in-place concat the output would be a copy of all tiles.
  std::string concatMode = options.concat;
  std::string tile = options.tile;
  if (tile != "none" && concatMode == "copy") {
    if (!options.concat.hasValue()) {
      concatMode = "auto";
    } else if (!options.tile.hasValue()) {
      // The user asked for copied concats and left tiling at its default.
      tile = "none";
    } else {
      return errorHandler("serenity-pipeline: tile=" + tile +
                          " needs concat=auto or concat=inplace (the tiles "
                          "are written into their slice of the output)");
    }
  }
  if (!(options.tileMaxMacOverhead >= 0))
    return errorHandler("serenity-pipeline: tile-max-mac-overhead must be >= "
                        "0 (percent)");
  if (options.widenBudget < -1)
    return errorHandler("serenity-pipeline: widen-budget must be >= 0 bytes, "
                        "or -1 (no limit)");
  if (options.budget < -1)
    return errorHandler("serenity-pipeline: budget must be >= 0 bytes, or -1 "
                        "(no limit)");
  std::string primitives = options.primitives;
  if (options.budget >= 0 && primitives == "none")
    primitives = "select";
  if (primitives == "vector" && options.target == "cortex-m")
    return errorHandler("serenity-pipeline: primitives=vector needs a vector "
                        "unit: target=host only");
  if (options.budget >= 0 && primitives != "select")
    return errorHandler("serenity-pipeline: budget needs primitives=select "
                        "(got primitives=" +
                        primitives + ")");
  if (primitives == "select" && options.profile.empty())
    return errorHandler("serenity-pipeline: primitives=select needs "
                        "profile=FILE (measured times: python3 -m serenity "
                        "profile NET -o FILE)");
  if (options.tileCols < 0)
    return errorHandler("serenity-pipeline: tile-cols must be >= 0 (0 = whole "
                        "rows)");
  if (options.tileChannels < 0)
    return errorHandler("serenity-pipeline: tile-channels must be >= 0 (0 = "
                        "all channels)");
  if (failed(checkOutlineMinOps(options.outlineMinOps, errorHandler)))
    return failure();
  const int64_t alignment = getArenaAlignment(options);
  if (!llvm::isPowerOf2_64(alignment))
    return errorHandler("serenity-pipeline: alignment must be a power of two "
                        "(or 0: the target's)");

  std::string text;
  llvm::raw_string_ostream os(text);
  // The graph-level passes count memory as the lowering realizes it.
  std::string modelOptions =
      llvm::formatv(" accumulate-in-place={0} fuse-requantization={1}",
                    options.accumulateInPlace ? "true" : "false",
                    options.fuseRequantization ? "true" : "false")
          .str();
  // Our own input checks first (located diagnostics, nothing unsupported
  // reaches upstream conversions), and one buffer per result.
  os << "serenity-prepare-input{strict=" << (options.strict ? "true" : "false");
  if (!options.functions.empty())
    os << " functions=" << llvm::join(options.functions, ",");
  os << "},";
  // Graph level: rewrite around concats where the peak goes down (measured
  // under the same concat/accumulation/fusion options the lowering
  // realizes).
  if (options.rewrite != "none")
    os << "func.func(serenity-rewrite{mode=" << options.rewrite
       << " concat=" << concatMode << modelOptions << "}),";
  // Graph level: order the TOSA ops for the least peak memory, under the
  // concat/accumulation options the lowering realizes.
  if (options.schedule != "none")
    os << "func.func(serenity-schedule{algorithm=" << options.schedule
       << " concat=" << concatMode << modelOptions << "}),";
  // Fused tiling of the regions around the buffers at the peak, in the
  // scheduled order: the tiles run one after the other where the region
  // was (the order serenity-tile evaluates), so no second schedule.
  if (tile != "none")
    os << "func.func(serenity-tile{method=" << tile
       << " max-mac-overhead="
       << llvm::formatv("{0}", static_cast<double>(options.tileMaxMacOverhead))
       << " concat=" << concatMode << modelOptions << "}),";
  // Each convolution's primitive, for the order and tiles just made: one
  // everywhere, or the fastest within the budget (the scheduled peak with
  // the workspaces); primitive-kernels alone writes the profiler's input.
  if (primitives != "none" || !options.primitiveKernels.empty()) {
    os << "serenity-select-primitives{concat=" << concatMode << modelOptions
       << " vector-unit=" << (options.target == "cortex-m" ? "false" : "true");
    if (primitives == "select")
      os << " budget-bytes=" << static_cast<int64_t>(options.budget)
         << " profile=\"" << options.profile << "\"";
    else if (primitives != "none")
      os << " uniform=" << primitives;
    if (!options.primitiveKernels.empty())
      os << " kernels=\"" << options.primitiveKernels << "\"";
    if (!options.primitiveReport.empty())
      os << " report=\"" << options.primitiveReport << "\"";
    os << "},";
  }
  // Concats lowered as the model counts them: the copies become
  // tensor.concat (linear-time bufferization analysis), and operands an
  // in-place concat does not take in place stay copies under
  // eliminate-empty-tensors.
  os << "func.func(serenity-concat-copies{concat=" << concatMode << "}),";
  // TOSA -> linalg on tensors -> memref; results become out-parameters so
  // the caller owns the output buffers.
  // On Cortex-M the requantizations' tosa.apply_scale with 32-bit shifts
  // where the shift allows (the same values).
  // Convolutions tagged with a primitive (serenity.primitive) are lowered
  // first, keeping the tag on the linalg convolution.
  os << "func.func(serenity-primitives-to-linalg{vector-unit="
     << (options.target == "cortex-m" ? "false" : "true")
     << "},tosa-to-linalg-named,"
        "tosa-to-linalg,"
     << (options.target == "cortex-m" ? "serenity-apply-scale-32," : "")
     << "tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),"
        "canonicalize,";
  if (options.accumulateInPlace)
    os << "func.func(serenity-accumulate-partial-sums),";
  // Row-tile every conv with its requantization so only one row of the i32
  // accumulator is live (after accumulate-partial-sums, whose patterns need
  // the untiled convs).
  // The dot-product kernels keep up to four channels' accumulators in
  // registers: tiles of four channels by default.
  const bool dot = dotKernels(options.convKernels, options.target);
  int64_t tileChannels = options.tileChannels;
  if (!options.tileChannels.hasValue() && dot)
    tileChannels = 4;
  if (options.fuseRequantization)
    os << "func.func(serenity-fuse-requantization{tile-cols="
       << static_cast<int64_t>(options.tileCols)
       << " tile-channels=" << tileChannels
       << " fuse-padding=" << (options.fusePadding ? "true" : "false")
       << "}),canonicalize,";
  // The im2col / winograd primitives (on the row tiles just made).
  os << "func.func(serenity-lower-primitives),";
  // In-place concatenation: the tensor.empty each concat operand's producer
  // writes into becomes a slice of the concat's destination, so bufferization
  // writes it in place (the self-copies left fold away after cse, below).
  bool inPlaceConcat = concatMode != "copy";
  if (inPlaceConcat)
    os << "eliminate-empty-tensors,";
  // The buffers ask for the arena's alignment (bufferization's default, 64,
  // would override a smaller one in serenity-static-alloc).
  os << "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map "
        "buffer-alignment="
     << alignment
     << "},"
     // cse merges the equal subviews of a tile's result and of its
     // destination, so the self-copies (and, with concat=inplace, the copies
     // into the concat) fold away in canonicalize.
     << "cse,canonicalize,"
        "buffer-results-to-out-params{hoist-static-allocs "
        "modify-public-functions},"
        // The result buffer becomes the out-parameter itself (no final copy).
        "func.func(serenity-elide-output-copies),"
        "func.func(serenity-copy-to-linalg)";
  // int8 convolutions as dot-product kernels (DSP instructions on Cortex-M),
  // before static allocation: a kernel fused with its accumulator tile's
  // init and requantization keeps the tile in registers, so the tile is
  // never allocated (a module pass: it adds the widened filters' globals).
  // Without dot kernels by default, only the convolutions tagged dot.
  os << ",serenity-int8-conv-kernels{target="
     << (options.target == "cortex-m" ? "cortex-m" : "generic")
     << " widen-budget=" << static_cast<int64_t>(options.widenBudget)
     << " tagged-only=" << (dot ? "false" : "true") << "}";
  // One arena for every intermediate buffer (a module pass: arena=global
  // adds a memref.global next to the function).
  if (options.alloc != "none")
    os << ",serenity-static-alloc{algorithm=" << options.alloc
       << " alignment=" << alignment << " arena=" << options.arena
       << " io=" << options.io
       << (options.allocReport.empty()
               ? std::string()
               : " report=\"" + options.allocReport + "\"")
       << "}";
  if (options.lowerToLLVM)
    os << ","
       << llvmLoweringText(options.target == "cortex-m", options.outlineMinOps);
  return addPipeline(pm, text, errorHandler);
}

void mlir::serenity::registerSerenityPipelines() {
  registerPassPipeline(
      "serenity-pipeline",
      "TOSA -> scheduled, bufferized, statically allocated -> LLVM dialect",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        SerenityPipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        return buildSerenityPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> optHandler) {
        optHandler(SerenityPipelineOptions());
      });
}
