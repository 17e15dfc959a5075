//===- serenity-compile.cpp - Model to object file, C header and report ---===//
//
// serenity-compile MODEL.mlir|MODEL.tflite --target host|cortex-m4|cortex-m7|
//     cortex-m33|cortex-m55|cortex-m0plus [--name NAME]
//     [--pipeline "serenity-pipeline options"] -o DIR
// writes DIR/NAME.o (the network, no malloc, arena supplied by the caller),
// DIR/NAME.h (a plain C entry point NAME_run, the arena size and alignment,
// input and output shapes, types and quantization, the functions the link
// must provide) and DIR/NAME.json (the schedule, the arena plan, the memory
// numbers, the external symbols and link flags). A .tflite model goes
// through the C++ importer in process (lib/Target/TFLite, with --float its
// float32 graph).
//
// The pipeline runs in two parts: serenity-pipeline with lower-to-llvm=false
// (arena=argument: the caller owns every byte; io from --io, by default the
// inputs and outputs in the arena, the least RAM), whose memref-level
// function gives the header its signature, then the LLVM lowering; LLVM's
// O2 pipeline and code generator make the object.
//
// --print-targets prints the target table (Serenity/Target/
// TargetDescription.h) as JSON and exits: the --target choices, and what
// python/serenity/deploy.py builds its QEMU boards from.
//
// The tool parses options and calls compileModel (Serenity/Compiler/
// Compile.h); the object, header and report emission is
// Serenity/Target/StaticLibrary/StaticLibrary.h.
//
// --timing prints the wall time of each stage (and of each pass in the two
// MLIR pass pipelines) to stderr when the tool ends, as mlir-opt's
// --mlir-timing does. The clock is only read, never consulted: the outputs
// are the same with and without it.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Compiler/Compile.h"
#include "Serenity/Pipelines/Frontier.h"
#include "Serenity/Support/EnumOption.h"
#include "Serenity/Target/TargetDescription.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
namespace cl = llvm::cl;

/// The tool's own options: --help lists these alone (the LLVM libraries
/// linked in register some 370 lines of theirs; --help-hidden lists all).
static cl::OptionCategory compileCategory("serenity-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<MODEL.mlir|MODEL.tflite>"),
                                      cl::cat(compileCategory));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Output directory"),
                                      cl::value_desc("DIR"),
                                      cl::cat(compileCategory));
/// The --target choices, from the table: "host, cortex-m4, ... or ...".
static const std::string targetChoices = ::serenity::targetNames();
static cl::opt<std::string> targetName("target", cl::init("host"),
                                       cl::desc(targetChoices),
                                       cl::cat(compileCategory));
/// Answered while the command line is parsed, as --version is: it needs no
/// model and no -o.
static cl::opt<bool> printTargets(
    "print-targets", cl::cat(compileCategory),
    cl::desc("Print the targets (triple, CPU, features, capabilities, "
             "pipeline family, arena alignment, C flags, QEMU machine) as "
             "JSON and exit"),
    cl::callback([](const bool &print) {
      if (!print)
        return;
      llvm::outs() << llvm::formatv("{0:2}", ::serenity::targetsToJSON())
                   << "\n";
      llvm::outs().flush();
      std::exit(0);
    }));
static cl::opt<std::string>
    name("name", cl::init("net"),
         cl::desc("C name of the network: NAME_run, NAME.o, NAME.h"),
         cl::cat(compileCategory));
static cl::opt<std::string>
    functionName("function", cl::init("main"),
                 cl::desc("Function of the module to compile (default main)"),
                 cl::cat(compileCategory));
static cl::opt<bool> floatImport(
    "float",
    cl::desc("A .tflite model is imported as its dequantized float32 graph "
             "(import-tflite --float): for float models with quantized "
             "weights (hybrid), or to compare with the int8 one"),
    cl::cat(compileCategory));
/// The default is the placement with the least RAM, on every target: the
/// host object mostly tests the program that runs on the microcontroller,
/// so it gets the same header interface and the same arena plan (and,
/// measured on the MLPerf Tiny models, the same speed: docs/Deploy.md).
static cl::opt<std::string> ioMode(
    "io", cl::init("arena"), cl::cat(compileCategory),
    cl::desc("arena (default, least RAM): inputs and outputs live in the "
             "arena at NAME_INPUTi_OFFSET / NAME_OUTPUTi_OFFSET (as in "
             "TFLite Micro), their bytes reused once read, NAME_run(arena); "
             "caller: NAME_run(inputs..., outputs..., arena), the caller "
             "holds inputs and outputs outside the arena, where their bytes "
             "are not shared with the intermediates. The same default for "
             "host and Cortex-M, so that one program builds for both"));
static cl::opt<std::string> pipelineOptions(
    "pipeline", cl::init(""),
    cl::desc("Extra serenity-pipeline options, e.g. \"schedule=greedy\" "
             "(arena, io, target and lower-to-llvm are set by the tool)"),
    cl::cat(compileCategory));

static cl::opt<long long> ramBudget(
    "ram-budget", cl::init(-1), cl::cat(compileCategory),
    cl::desc("RAM budget in bytes (arena with inputs and outputs + state + "
             "stack): compile the configuration with the fewest instructions "
             "that fits this and --flash-budget, among those measured on "
             "QEMU by `python3 -m serenity frontier MODEL --target T` "
             "(read from --frontier)"));
static cl::opt<long long> flashBudget(
    "flash-budget", cl::init(-1), cl::cat(compileCategory),
    cl::desc("Flash budget in bytes (.text + .rodata + .data of the network "
             "object), see --ram-budget"));
static cl::opt<unsigned> flashPerRamByte(
    "flash-per-ram-byte", cl::init(4), cl::cat(compileCategory),
    cl::desc("Microcontroller targets: fused tiling is kept when its extra "
             "flash is at most this many bytes per byte of RAM it saves, else "
             "the network is built untiled (default 4: Cortex-M parts carry "
             "4-8x more flash than RAM; 1 never trades more flash than RAM, 0 "
             "keeps tiling only when it costs no flash)"));
static cl::opt<bool> timing(
    "timing", cl::cat(compileCategory),
    cl::desc("Print the wall time of each stage (import, serenity-pipeline "
             "with each of its passes, LLVM lowering, LLVM O2, code "
             "generation, object reading, header and report) to stderr"));
static cl::opt<std::string> frontierFile(
    "frontier", cl::init(""), cl::cat(compileCategory),
    cl::desc("The frontier file of `python3 -m serenity frontier` (its "
             "cache, default ~/.cache/serenity/frontier.json, or an "
             "--export; docs/Deploy.md \"The frontier file\")"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Hidden rather than cl::HideUnrelatedOptions' ReallyHidden: --help-hidden
  // still lists the LLVM options (e.g. -debug-only for a bug report).
  // (LLVM's own options sit in its general category, so the generic ones,
  // --help and --version, are kept by name.)
  for (auto &[key, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(option->Categories, &compileCategory) &&
        key != "help" && key != "version")
      option->setHiddenFlag(cl::Hidden);
  cl::ParseCommandLineOptions(
      argc, argv,
      "serenity-compile: a TOSA (.mlir) or TFLite (.tflite) model to an "
      "object file, a C header and a JSON report\n");
  const mlir::serenity::CompileLog log{llvm::outs(), llvm::errs()};
  const std::optional<mlir::serenity::IOPlacement> io =
      mlir::serenity::parseEnum<mlir::serenity::IOPlacement>(ioMode);
  if (!io)
    return failed(log.error("unknown --io '" + ioMode + "' (expected one of: " +
                            mlir::serenity::enumChoices<mlir::serenity::IOPlacement>() +
                            ")"));
  mlir::serenity::CompileOptions options;
  options.input = inputFile;
  options.outputDir = outputDir;
  options.name = name;
  options.function = functionName;
  options.target = targetName;
  options.io = *io;
  options.pipeline = pipelineOptions;
  options.floatImport = floatImport;
  options.flashPerRamByte = flashPerRamByte;
  if (ramBudget.getNumOccurrences())
    options.ramBudget = ramBudget <= 0 ? 0 : ramBudget;
  if (flashBudget.getNumOccurrences())
    options.flashBudget = flashBudget <= 0 ? 0 : flashBudget;
  options.frontierFile = frontierFile;
  if (options.frontierFile.empty()) {
    SmallString<256> cache;
    llvm::sys::path::home_directory(cache);
    llvm::sys::path::append(cache, ".cache", "serenity", "frontier.json");
    options.frontierFile = std::string(cache);
  }
  // Measurements count for the executable that made them.
  options.compilerIdentity = mlir::serenity::compilerIdentity(
      llvm::sys::fs::getMainExecutable(argv[0], reinterpret_cast<void *>(&main)));

  // Declared before the root scope: the scope stops first, then the manager
  // prints its report as it is destroyed.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  TimingScope timer = timingManager.getRootScope();
  return failed(mlir::serenity::compileModel(options, timer, log)) ? 1 : 0;
}
