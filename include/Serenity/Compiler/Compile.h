//===- Compile.h - A model to an object file, a C header and a report -*- C++ -*-===//
//
// serenity-compile as a library (the tool parses options and calls
// compileModel): import (.mlir, or .tflite through the C++ importer),
// serenity-pipeline at the memref level with the arena passed by the
// caller, the LLVM lowering, the object file, header and JSON report
// (Serenity/Target/StaticLibrary/StaticLibrary.h); on a microcontroller the
// trade of fused tiling's flash against the RAM it saves; with a RAM or
// flash budget, the fastest configuration of a measured frontier
// (Serenity/Pipelines/Frontier.h) that fits.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_COMPILER_COMPILE_H
#define SERENITY_COMPILER_COMPILE_H

#include "Serenity/Pipelines/Pipelines.h"

#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace serenity {

/// What to compile, how, and where to write it.
struct CompileOptions {
  /// MODEL.mlir or MODEL.tflite.
  std::string input;
  /// Directory of NAME.o, NAME.h, NAME.json (and NAME.import.mlir).
  std::string outputDir;
  /// C name of the network (NAME_run) and of its files.
  std::string name = "net";
  /// The module's function to compile.
  std::string function = "main";
  /// A name of the target table (Serenity/Target/TargetDescription.h).
  std::string target = "host";
  /// Where the inputs and outputs live.
  IOPlacement io = IOPlacement::Arena;
  /// Extra serenity-pipeline options (not arena, io, target,
  /// lower-to-llvm or functions, which the compiler sets).
  std::string pipeline;
  /// A .tflite model is imported as its dequantized float32 graph.
  bool floatImport = false;
  /// Fused tiling is kept on a microcontroller when its extra flash is at
  /// most this many bytes per byte of RAM it saves.
  unsigned flashPerRamByte = 4;
  /// RAM and flash budgets in bytes (-1: none): when either is set, the
  /// configuration is chosen from the frontier file.
  int64_t ramBudget = -1, flashBudget = -1;
  /// The frontier file (python3 -m serenity frontier's cache or export).
  std::string frontierFile;
  /// The identity of the compiler that must have measured the frontier
  /// (compilerIdentity of the running executable); empty: any.
  std::string compilerIdentity;
};

/// What a build gave.
struct CompileResult {
  int64_t arena = 0, state = 0, flash = 0;
  /// Whether serenity-tile tiled the network (serenity.tiled).
  bool tiled = false;
  /// The pipeline options the kept build was made with.
  std::string pipeline;
  /// "(arena N bytes, flash N bytes: text N, rodata N)".
  std::string summary;
};

/// Where the compiler's messages go: progress lines ("serenity-compile:
/// wrote ...") to `out`, errors, warnings and notes to `err`, each prefixed
/// with "serenity-compile: KIND: ".
struct CompileLog {
  llvm::raw_ostream &out;
  llvm::raw_ostream &err;
  LogicalResult error(const Twine &message) const;
  void warning(const Twine &message) const;
  void note(const Twine &message) const;
};

/// Checks the options that need no model (target, name, io with budgets,
/// budgets' signs, --float on a .mlir model); failure logged.
LogicalResult verifyCompileOptions(const CompileOptions &options,
                                   const CompileLog &log);

/// Compiles the model into options.outputDir: with a budget, the fastest
/// configuration of the frontier within it (at most 8 builds: a predicted
/// configuration whose build breaks a budget gives way to the next);
/// otherwise options.pipeline, on a microcontroller within the tiling trade
/// (when serenity-tile tiled the network and the user did not choose the
/// tiling, the untiled build is kept if the tiled one costs more than
/// flashPerRamByte bytes of flash per byte of RAM saved; the report records
/// the trade). Stages are timed under `timer`.
LogicalResult compileModel(const CompileOptions &options, TimingScope &timer,
                           const CompileLog &log,
                           CompileResult *result = nullptr);

/// One build with options.pipeline exactly, into `dir`.
LogicalResult buildOnce(const CompileOptions &options, StringRef dir,
                        TimingScope &timer, const CompileLog &log,
                        CompileResult &result);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_COMPILER_COMPILE_H
