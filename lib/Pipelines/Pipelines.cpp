//===- Pipelines.cpp - Serenity pass pipelines -----------------*- C++ -*-===//
//
// serenity-pipeline and the LLVM lowering, built from typed pass constructors
// (the generated create...Pass functions and ...Options structs of Serenity's
// Passes.td and upstream's) as upstream's addTosaToLinalgPasses does: no pass
// pipeline text is printed or parsed here, and a pass option set with a wrong
// type does not compile. The enumerated options are enums with one table of
// spellings each (Pipelines.h); the memory model (concat, accumulate-in-place,
// fuse-requantization) is one MemoryModelOptions passed to every graph-level
// pass that counts memory (withMemoryModel). The textual form
// `--serenity-pipeline="..."` parses SerenityPipelineOptions only.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Pipelines/Pipelines.h"

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Analysis/Primitives.h"
#include "Serenity/InitAllPasses.h"
#include "Serenity/Pipelines/Frontier.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::serenity;

/// The values of the primitives option: none, each primitive, select.
static SmallVector<StringRef> primitivesChoices() {
  SmallVector<StringRef> choices = {"none"};
  for (ConvPrimitive primitive : allConvPrimitives())
    choices.push_back(stringifyConvPrimitive(primitive));
  choices.push_back("select");
  return choices;
}

/// The pass's enumerator with the spelling of the pipeline's `choice` (a
/// pipeline enum that adds `none` to a pass's choices; not `none`).
template <typename PassEnum, typename PipelineEnum>
static PassEnum passChoice(PipelineEnum choice) {
  std::optional<PassEnum> value = parseEnum<PassEnum>(stringifyEnum(choice));
  assert(value && "a pipeline choice the pass does not have");
  return *value;
}

/// `options` (the generated options struct of a pass that takes
/// `memoryModelOptions` in Passes.td) with the memory model `model`.
template <typename PassOptionsT>
static PassOptionsT withMemoryModel(PassOptionsT options,
                                    const MemoryModelOptions &model) {
  options.concat = model.concat;
  options.accumulateInPlace = model.accumulateInPlace;
  options.fuseRequantization = model.fuseRequantization;
  options.inPlaceConvs = model.inPlaceConvs;
  return options;
}

/// Checks the outline-min-ops option (both builders take it).
static LogicalResult
checkOutlineMinOps(int64_t outlineMinOps,
                   function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (outlineMinOps >= 0)
    return success();
  return errorHandler("serenity-pipeline: outline-min-ops must be >= 0");
}

/// Whether `convKernels` means the dot-product kernels of
/// serenity-int8-conv-kernels for `target`.
static bool dotKernels(ConvKernels convKernels, PipelineTarget target) {
  return convKernels == ConvKernels::Dot ||
         (convKernels == ConvKernels::Auto && isMicrocontroller(target));
}

/// Adds the passes from memrefs (after static allocation) to the LLVM
/// dialect.
static void addLLVMLowering(OpPassManager &pm, PipelineTarget target,
                            int64_t outlineMinOps) {
  const bool microcontroller = isMicrocontroller(target);
  const unsigned indexBitwidth = microcontroller ? 32 : 0;
  // Kernels of large functions in functions of their own: the loop lowering
  // below then works on many small functions (in parallel, linear time).
  SerenityOutlineKernelsPassOptions outline;
  outline.minOps = outlineMinOps;
  // On a Cortex-M the stack is RAM: a function of 32 kernels keeps the
  // address arithmetic LLVM hoists to its entry live across all of them and
  // spills it (vww at a 40 % tiling budget: 2,912 bytes of stack, more than
  // the 648 bytes tiling saved in the arena); one kernel per function needs
  // 528 (and 0.3 % fewer instructions, 2 % more flash). The host keeps
  // groups of 32 (fewer functions for the code generator).
  if (microcontroller)
    outline.groupSize = 1;
  pm.addPass(createSerenityOutlineKernelsPass(outline));
  OpPassManager &funcPM = pm.nest<func::FuncOp>();
  // newlib's libm has no roundevenf (llvm.roundeven of tosa.cast
  // f32->int): expand it exactly into round/copysign arithmetic.
  if (microcontroller) {
    math::MathExpandOpsPassOptions expand;
    expand.opMnemonics = {"roundeven"};
    funcPM.addPass(math::createMathExpandOpsPass(expand));
  }
  // Without an FPU, LLVM turns maximumf/minimumf (float max pooling, ReLU
  // clamps) into calls of fmaximumf/fminimumf, which newlib does not have:
  // compares and selects instead (NaN propagated as llvm.maximum does).
  if (!::serenity::primaryTarget(target).fpu && microcontroller)
    funcPM.addPass(arith::createArithExpandOpsPass());
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
  if (!microcontroller) {
    funcPM.addPass(createConvertVectorToSCFPass(
        VectorTransferToSCFOptions().enableFullUnroll(true)));
    ConvertVectorToLLVMPassOptions vectorToLLVM;
    vectorToLLVM.vectorContractLowering =
        vector::VectorContractLowering::OuterProduct;
    funcPM.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  }
  funcPM.addPass(createConvertLinalgToLoopsPass());
  funcPM.addPass(createSCFToControlFlowPass());
  funcPM.addPass(createMem2Reg());
  funcPM.addPass(memref::createExpandStridedMetadataPass());
  funcPM.addPass(createLowerAffinePass());

  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.indexBitwidth = indexBitwidth;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  OpPassManager &arithPM = pm.nest<func::FuncOp>();
  arithPM.addPass(createConvertMathToLLVMPass());
  ArithToLLVMConversionPassOptions arithToLLVM;
  arithToLLVM.indexBitwidth = indexBitwidth;
  arithPM.addPass(createArithToLLVMConversionPass(arithToLLVM));
  ConvertControlFlowToLLVMPassOptions cfToLLVM;
  cfToLLVM.indexBitwidth = indexBitwidth;
  pm.addPass(createConvertControlFlowToLLVMPass(cfToLLVM));
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.indexBitwidth = indexBitwidth;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  OpPassManager &llvmPM = pm.nest<LLVM::LLVMFuncOp>();
  UBToLLVMConversionPassOptions ubToLLVM;
  ubToLLVM.indexBitwidth = indexBitwidth;
  llvmPM.addPass(createUBToLLVMConversionPass(ubToLLVM));
  llvmPM.addPass(createReconcileUnrealizedCastsPass());
}

int64_t mlir::serenity::defaultArenaAlignment(PipelineTarget target) {
  return ::serenity::primaryTarget(target).arenaAlignment;
}

int64_t
mlir::serenity::getArenaAlignment(const SerenityPipelineOptions &options) {
  return options.alignment != 0 ? static_cast<int64_t>(options.alignment)
                                : defaultArenaAlignment(options.target);
}

LogicalResult mlir::serenity::buildSerenityLLVMLowering(
    OpPassManager &pm, PipelineTarget target,
    function_ref<LogicalResult(const Twine &)> errorHandler,
    int64_t outlineMinOps) {
  if (failed(checkOutlineMinOps(outlineMinOps, errorHandler)))
    return failure();
  addLLVMLowering(pm, target, outlineMinOps);
  return success();
}

LogicalResult mlir::serenity::buildSerenityPipeline(
    OpPassManager &pm, const SerenityPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  SmallVector<StringRef> primitivesAllowed = primitivesChoices();
  if (!llvm::is_contained(primitivesAllowed, StringRef(options.primitives)))
    return errorHandler(
        "serenity-pipeline: invalid primitives='" + options.primitives +
        "' (expected one of: " + llvm::join(primitivesAllowed, ", ") + ")");
  const bool microcontroller = isMicrocontroller(options.target);
  const ::serenity::TargetDescription &core =
      ::serenity::primaryTarget(options.target);
  const bool helium = core.mve;
  // Tiles are written into their slice of the region's output: without an
  // in-place concat the output would be a copy of all tiles.
  ConcatMode concatMode = options.concat;
  PipelineTile tile = options.tile;
  if (tile != PipelineTile::None && concatMode == ConcatMode::Copy) {
    if (!options.concat.hasValue()) {
      concatMode = ConcatMode::Auto;
    } else if (!options.tile.hasValue()) {
      // The user asked for copied concats and left tiling at its default.
      tile = PipelineTile::None;
    } else {
      return errorHandler("serenity-pipeline: tile=" + Twine(stringifyEnum(tile)) +
                          " needs concat=auto or concat=inplace (the tiles "
                          "are written into their slice of the output)");
    }
  }
  if (options.tileBeamWidth < 1 || options.tileBeamWidth > 64)
    return errorHandler("serenity-pipeline: tile-beam-width must be in 1..64 "
                        "(got " +
                        Twine(options.tileBeamWidth.getValue()) + ")");
  if (!(options.tileMaxMacOverhead >= 0))
    return errorHandler("serenity-pipeline: tile-max-mac-overhead must be >= "
                        "0 (percent)");
  if (options.widenBudget < -2)
    return errorHandler("serenity-pipeline: widen-budget must be >= 0 bytes, "
                        "-1 (no limit) or -2 (auto)");
  if (options.budget < -1)
    return errorHandler("serenity-pipeline: budget must be >= 0 bytes, or -1 "
                        "(no limit)");
  if (options.ramBudget != -1 || options.flashBudget != -1)
    return errorHandler(
        "serenity-pipeline: ram-budget/flash-budget are resolved against a "
        "frontier before the pipeline is built (resolvePipelineBudgets; "
        "serenity-compile: --ram-budget/--flash-budget)");
  std::string primitives = options.primitives;
  if (options.budget >= 0 && primitives == "none")
    primitives = "select";
  if (primitives == "vector" && microcontroller)
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
  if (options.shareKernels < -1 || options.shareKernels == 1)
    return errorHandler("serenity-pipeline: share-kernels must be -1 (auto), "
                        "0 (off) or at least 2, not " +
                        Twine(options.shareKernels.getValue()));
  const int64_t alignment = getArenaAlignment(options);
  if (!llvm::isPowerOf2_64(alignment))
    return errorHandler("serenity-pipeline: alignment must be a power of two "
                        "(or 0: the target's)");

  // The graph-level passes count memory as the lowering realizes it.
  MemoryModelOptions model;
  model.concat = concatMode;
  model.accumulateInPlace = options.accumulateInPlace;
  model.fuseRequantization = options.fuseRequantization;
  // The in-place lowering matches the loop nests of one-pixel tiles over
  // channel blocks (tile-cols=1, tile-channels >= 1): with other tiles it is
  // off on both sides.
  model.inPlaceConvs = options.fuseRequantization && options.inPlaceConvs &&
                       options.tileCols == 1 && options.tileChannels != 0;

  // Our own input checks first (located diagnostics, nothing unsupported
  // reaches upstream conversions), and one buffer per result.
  SerenityPrepareInputPassOptions prepare;
  prepare.strict = options.strict;
  prepare.functions.assign(options.functions.begin(), options.functions.end());
  pm.addPass(createSerenityPrepareInputPass(prepare));
  // Graph level: rewrite around concats where the peak goes down (measured
  // under the same concat/accumulation/fusion options the lowering
  // realizes).
  if (options.rewrite != PipelineRewrite::None) {
    SerenityRewritePassOptions rewrite;
    rewrite.mode = passChoice<RewriteMode>(options.rewrite.getValue());
    pm.addNestedPass<func::FuncOp>(
        createSerenityRewritePass(withMemoryModel(rewrite, model)));
  }
  // Graph level: order the TOSA ops for the least peak memory, under the
  // concat/accumulation options the lowering realizes.
  if (options.schedule != PipelineSchedule::None) {
    SerenitySchedulePassOptions schedule;
    schedule.algorithm =
        passChoice<::serenity::ScheduleAlgorithm>(options.schedule.getValue());
    pm.addNestedPass<func::FuncOp>(
        createSerenitySchedulePass(withMemoryModel(schedule, model)));
  }
  // Fused tiling of the regions around the buffers at the peak, in the
  // scheduled order: the tiles run one after the other where the region
  // was (the order serenity-tile evaluates), so no second schedule.
  if (tile != PipelineTile::None) {
    SerenityTilePassOptions tiling;
    tiling.method = passChoice<TileMethod>(tile);
    tiling.maxMacOverhead = options.tileMaxMacOverhead.hasValue()
                                ? options.tileMaxMacOverhead.getValue()
                                : defaultTileMacOverhead(options.target);
    tiling.beamWidth = options.tileBeamWidth;
    pm.addNestedPass<func::FuncOp>(
        createSerenityTilePass(withMemoryModel(tiling, model)));
  }
  // Each convolution's primitive, for the order and tiles just made: one
  // everywhere, or the fastest within the budget (the scheduled peak with
  // the workspaces); primitive-kernels alone writes the profiler's input.
  if (primitives != "none" || !options.primitiveKernels.empty()) {
    SerenitySelectPrimitivesPassOptions select;
    select.vectorUnit = !microcontroller;
    if (primitives == "select") {
      select.budgetBytes = options.budget;
      select.profile = options.profile;
    } else if (primitives != "none") {
      select.uniform = primitives;
    }
    select.kernels = options.primitiveKernels;
    select.report = options.primitiveReport;
    pm.addPass(
        createSerenitySelectPrimitivesPass(withMemoryModel(select, model)));
  }
  // Concats lowered as the model counts them: the copies become
  // tensor.concat (linear-time bufferization analysis), and operands an
  // in-place concat does not take in place stay copies under
  // eliminate-empty-tensors.
  SerenityConcatCopiesPassOptions concatCopies;
  concatCopies.concat = concatMode;
  pm.addNestedPass<func::FuncOp>(createSerenityConcatCopiesPass(concatCopies));
  // State kept between invocations (tosa.variable) becomes ml_program
  // globals, mutable memref.globals after bufferization.
  pm.addPass(createTosaToMLProgram());
  // TOSA -> linalg on tensors -> memref; results become out-parameters so
  // the caller owns the output buffers.
  // On Cortex-M the requantizations' tosa.apply_scale with 32-bit shifts
  // where the shift allows (the same values).
  // Convolutions tagged with a primitive (serenity.primitive) are lowered
  // first, keeping the tag on the linalg convolution.
  {
    OpPassManager &funcPM = pm.nest<func::FuncOp>();
    SerenityPrimitivesToLinalgPassOptions primitivesToLinalg;
    primitivesToLinalg.vectorUnit = !microcontroller;
    funcPM.addPass(createSerenityPrimitivesToLinalgPass(primitivesToLinalg));
    funcPM.addPass(tosa::createTosaToLinalgNamed());
    funcPM.addPass(tosa::createTosaToLinalg());
    // Helium: the requantizations' tosa.apply_scale stay until the conv
    // kernels, which apply them four channels at a time (VQRDMULH, VRSHL);
    // the others are lowered after the kernels (below).
    // ARMv6-M has no 32x32->64 multiply: the requantization's high word
    // from 16-bit products, not a call of __aeabi_lmul.
    if (microcontroller && !helium) {
      SerenityApplyScale32PassOptions applyScale;
      applyScale.splitMultiply =
          options.target == PipelineTarget::CortexMBaseline;
      funcPM.addPass(createSerenityApplyScale32Pass(applyScale));
    }
    TosaToArithPassOptions tosaToArith;
    tosaToArith.includeApplyRescale = !helium;
    funcPM.addPass(createTosaToArithPass(tosaToArith));
    funcPM.addPass(createTosaToTensorPass());
  }
  pm.addPass(createCanonicalizerPass());
  if (options.accumulateInPlace)
    pm.addNestedPass<func::FuncOp>(createSerenityAccumulatePartialSumsPass());
  // Row-tile every conv with its requantization so only one row of the i32
  // accumulator is live (after accumulate-partial-sums, whose patterns need
  // the untiled convs).
  // The dot-product kernels keep up to four channels' accumulators in
  // registers: tiles of four channels by default.
  const bool dot = dotKernels(options.convKernels, options.target);
  int64_t tileChannels = options.tileChannels;
  if (!options.tileChannels.hasValue() && dot)
    tileChannels = 4;
  if (options.fuseRequantization) {
    SerenityFuseRequantizationPassOptions fuse;
    fuse.tileCols = options.tileCols;
    fuse.tileChannels = tileChannels;
    fuse.fusePadding = options.fusePadding;
    pm.addNestedPass<func::FuncOp>(createSerenityFuseRequantizationPass(fuse));
    pm.addPass(createCanonicalizerPass());
  }
  // The im2col / winograd primitives (on the row tiles just made).
  pm.addNestedPass<func::FuncOp>(createSerenityLowerPrimitivesPass());
  // In-place concatenation: the tensor.empty each concat operand's producer
  // writes into becomes a slice of the concat's destination, so bufferization
  // writes it in place (the self-copies left fold away after cse, below).
  // Their insert_slice chains (in-place concats, fused tiles) first become
  // one buffer each that every operand is materialized in: one-shot
  // analysis of a k-operand chain grows like k^3-k^4, of this form linearly.
  // The buffers ask for the arena's alignment (bufferization's default, 64,
  // would override a smaller one in serenity-static-alloc).
  if (concatMode != ConcatMode::Copy) {
    SerenityConcatBuffersPassOptions concatBuffers;
    concatBuffers.alignment = alignment;
    pm.addNestedPass<func::FuncOp>(
        createSerenityConcatBuffersPass(concatBuffers));
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
  }
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.bufferAlignment = alignment;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // cse merges the equal subviews of a tile's result and of its destination,
  // so the self-copies (and, with concat=inplace, the copies into the
  // concat) fold away in canonicalize.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // The result buffer becomes the out-parameter itself (no final copy).
  pm.addNestedPass<func::FuncOp>(createSerenityElideOutputCopiesPass());
  // The state in one region outside the arena, with F_reset().
  SerenityPersistentStatePassOptions state;
  state.alignment = alignment;
  pm.addPass(createSerenityPersistentStatePass(state));
  // Depthwise and 1x1 convs over their own input, as the graph passes
  // counted them.
  if (model.inPlaceConvs) {
    SerenityInPlaceConvsPassOptions inPlace;
    inPlace.io = options.io;
    pm.addNestedPass<func::FuncOp>(createSerenityInPlaceConvsPass(inPlace));
  }
  pm.addNestedPass<func::FuncOp>(createSerenityCopyToLinalgPass());
  // int8 convolutions as dot-product kernels (DSP instructions on Cortex-M),
  // before static allocation: a kernel fused with its accumulator tile's
  // init and requantization keeps the tile in registers, so the tile is
  // never allocated (a module pass: it adds the widened filters' globals).
  // Without dot kernels by default, only the convolutions tagged dot.
  SerenityInt8ConvKernelsPassOptions kernels;
  kernels.target = core.mve   ? KernelTarget::Helium
                   : core.dsp ? KernelTarget::CortexM
                   : options.target == PipelineTarget::RiscV32
                       ? KernelTarget::RiscV32
                   : microcontroller ? KernelTarget::CortexMBaseline
                             : KernelTarget::Generic;
  // ARMv6-M and RV32IMC have no dual multiply: an int16 copy of a filter
  // saves their kernels only the sign extension LDRSB/LB does anyway (kws on
  // the M0+: 1 % of the instructions for 9 KB of flash), so the automatic
  // budget widens nothing there.
  kernels.widenBudget =
      microcontroller && !core.dsp && !core.mve &&
              !options.widenBudget.hasValue()
          ? 0
          : options.widenBudget;
  kernels.widenFilters.assign(options.widenFilters.begin(),
                              options.widenFilters.end());
  kernels.taggedOnly = !dot;
  pm.addPass(createSerenityInt8ConvKernelsPass(kernels));
  // One arena for every intermediate buffer (a module pass: arena=global
  // adds a memref.global next to the function).
  if (options.alloc != PipelineAlloc::None) {
    SerenityStaticAllocPassOptions alloc;
    alloc.algorithm =
        passChoice<::serenity::AllocAlgorithm>(options.alloc.getValue());
    alloc.alignment = alignment;
    alloc.arena = options.arena;
    alloc.io = options.io;
    alloc.report = options.allocReport;
    pm.addPass(createSerenityStaticAllocPass(alloc));
  }
  if (!options.profileMarks.empty()) {
    SerenityProfileMarksPassOptions marks;
    marks.labels = options.profileMarks;
    pm.addPass(createSerenityProfileMarksPass(marks));
  }
  // Identical kernels (a recurrent model unrolled over time) as calls of
  // one function (after the profile marks, which stay between the calls).
  // Auto: also the tiles of a tiled function, from two copies on (one
  // kernel per tile shape instead of one per tile: the code tiling costs;
  // magic_wand's 199 KB of code -> 25 KB on the Cortex-M4 for the same
  // arena, docs/Tiling.md).
  if (options.shareKernels != 0) {
    SerenityShareKernelsPassOptions share;
    share.minCopies = options.shareKernels < 0 ? 4 : options.shareKernels;
    share.onlyStateful = options.shareKernels < 0;
    pm.addPass(createSerenityShareKernelsPass(share));
  }
  if (options.shareKernels < 0) {
    SerenityShareKernelsPassOptions share;
    share.minCopies = 2;
    share.onlyTiled = true;
    pm.addPass(createSerenityShareKernelsPass(share));
  }
  // The Helium kernels' tosa.apply_scale, after sharing: these greedy
  // rewrites also fold the kernels' address arithmetic on views of static
  // offsets into constants, which would make kernels that differ only in
  // where they read unequal (and in a shared function the offsets are
  // arguments, not constants).
  if (helium) {
    OpPassManager &funcPM = pm.nest<func::FuncOp>();
    funcPM.addPass(createSerenityApplyScale32Pass());
    TosaToArithPassOptions tosaToArith;
    tosaToArith.includeApplyRescale = true;
    funcPM.addPass(createTosaToArithPass(tosaToArith));
  }
  if (options.lowerToLLVM)
    addLLVMLowering(pm, options.target, options.outlineMinOps);
  return success();
}

LogicalResult mlir::serenity::resolvePipelineBudgets(
    SerenityPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (options.ramBudget == -1 && options.flashBudget == -1)
    return success();
  if (options.ramBudget == 0 || options.ramBudget < -1 ||
      options.flashBudget == 0 || options.flashBudget < -1)
    return errorHandler("serenity-pipeline: ram-budget and flash-budget must "
                        "be positive numbers of bytes (or -1: none)");
  // The frontier measures a family's primary target on its QEMU board (the
  // Cortex-M4 for DSP, the Cortex-M55 for Helium).
  const ::serenity::TargetDescription &measured =
      ::serenity::primaryTarget(options.target);
  StringRef board = measured.hasBoard() ? measured.name : StringRef();
  if (board.empty())
    return errorHandler("serenity-pipeline: ram-budget/flash-budget need "
                        "target=cortex-m or target=cortex-m-helium (the "
                        "configurations are measured on QEMU boards)");
  if (options.frontier.empty())
    return errorHandler("serenity-pipeline: ram-budget/flash-budget need "
                        "frontier=FILE (python3 -m serenity frontier MODEL "
                        "--target " +
                        board + " --export FILE)");
  if (options.tile.hasValue() || options.tileMaxMacOverhead.hasValue() ||
      options.widenBudget.hasValue() || !options.widenFilters.empty())
    return errorHandler("serenity-pipeline: ram-budget/flash-budget choose "
                        "tile, tile-max-mac-overhead, widen-budget and "
                        "widen-filters: do not set them as well");
  std::string error;
  auto points = readFrontierFile(options.frontier,
                                 FrontierQuery{board.str(), {}, {}}, error);
  if (failed(points))
    return errorHandler("serenity-pipeline: " + error);
  auto ranked = rankWithinBudgets(*points, options.ramBudget,
                                  options.flashBudget, error);
  if (failed(ranked))
    return errorHandler("serenity-pipeline: " + error);
  const std::string chosen = ranked->front().options;
  if (failed(options.parseFromString(chosen)))
    return errorHandler("serenity-pipeline: the frontier's options '" + chosen +
                        "' do not parse");
  options.ramBudget = -1;
  options.flashBudget = -1;
  return success();
}

void mlir::serenity::registerSerenityPipelines() {
  registerPassPipeline(
      "serenity-pipeline",
      "TOSA -> scheduled, bufferized, statically allocated -> LLVM dialect",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        // A bad value is reported by the option's parser (an enumerated
        // option lists its choices).
        SerenityPipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return errorHandler("serenity-pipeline: invalid options '" +
                              optionsText + "'");
        if (failed(resolvePipelineBudgets(options, errorHandler)))
          return failure();
        return buildSerenityPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> optHandler) {
        optHandler(SerenityPipelineOptions());
      });
}
