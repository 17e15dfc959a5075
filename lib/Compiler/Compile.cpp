//===- Compile.cpp - A model to an object file, a C header and a report ---===//
//
// See Serenity/Compiler/Compile.h. The pipeline runs in two parts:
// serenity-pipeline with lower-to-llvm=false (arena=argument: the caller
// owns every byte), whose memref-level function gives the header its
// signature, then the LLVM lowering; LLVM's O2 pipeline and code generator
// make the object.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Compiler/Compile.h"
#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/Pipelines/Frontier.h"
#include "Serenity/Target/StaticLibrary/StaticLibrary.h"
#include "Serenity/Target/TFLite/ImportTFLite.h"
#include "Serenity/Target/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

using namespace mlir;
using namespace mlir::serenity;
using ::serenity::TargetDescription;

LogicalResult CompileLog::error(const Twine &message) const {
  err << "serenity-compile: error: " << message << "\n";
  err.flush();
  return failure();
}

void CompileLog::warning(const Twine &message) const {
  err << "serenity-compile: warning: " << message << "\n";
  err.flush();
}

void CompileLog::note(const Twine &message) const {
  err << "serenity-compile: note: " << message << "\n";
  err.flush();
}

LogicalResult mlir::serenity::verifyCompileOptions(const CompileOptions &options,
                                                   const CompileLog &log) {
  const TargetDescription *target = ::serenity::lookupTarget(options.target);
  if (!target)
    return log.error("unknown --target '" + options.target + "' (expected " +
                     ::serenity::targetNames() + ")");
  if (options.floatImport && !StringRef(options.input).ends_with(".tflite"))
    return log.error("--float applies to .tflite models (a .mlir model is "
                     "compiled with the types it has)");
  if (!isCIdentifier(options.name))
    return log.error("--name '" + options.name + "' is not a C identifier");
  for (StringRef fixed :
       {"arena", "io", "target", "lower-to-llvm", "functions"})
    if (StringRef(options.pipeline).contains((fixed + "=").str()))
      return log.error("--pipeline may not set " + fixed +
                       " (serenity-compile sets arena=argument, io from --io "
                       "and the target)");
  if (options.ramBudget < 0 && options.flashBudget < 0)
    return success();
  if (options.ramBudget == 0 || options.flashBudget == 0 ||
      options.ramBudget < -1 || options.flashBudget < -1)
    return log.error("--ram-budget and --flash-budget must be positive "
                     "numbers of bytes");
  if (!target->hasBoard())
    return log.error("--ram-budget/--flash-budget need --target " +
                     ::serenity::targetNames([](const TargetDescription &t) {
                       return t.hasBoard();
                     }) +
                     " (the configurations are measured on QEMU)");
  if (options.io != IOPlacement::Arena)
    return log.error("--ram-budget/--flash-budget count the inputs and "
                     "outputs in the arena: use --io arena");
  if (!StringRef(options.pipeline).trim().empty())
    return log.error("--ram-budget/--flash-budget choose the pipeline options "
                     "(tiling, widened filters); --pipeline cannot be "
                     "combined with them");
  return success();
}

namespace {

LogicalResult writeFile(StringRef path, StringRef contents,
                        const CompileLog &log) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return log.error("cannot write " + path + ": " + error.message());
  os << contents;
  os.close();
  if (os.has_error())
    return log.error("cannot write " + path);
  return success();
}

LogicalResult writeJSON(StringRef path, llvm::json::Value value,
                        const CompileLog &log) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << llvm::formatv("{0:2}", value) << "\n";
  return writeFile(path, text, log);
}

std::string pathIn(StringRef dir, const Twine &file) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  return std::string(path);
}

/// The module from a .mlir file, or from a .tflite file through the C++
/// importer (lib/Target/TFLite), in process; the imported module is also
/// written to `dir` as NAME.import.mlir for the user to read. Diagnostics
/// print as `FILE:LINE:COL: error: ...`.
OwningOpRef<ModuleOp> loadModel(const CompileOptions &options,
                                MLIRContext &context, StringRef dir,
                                const CompileLog &log) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, log.err);
  const std::string &path = options.input;
  if (!StringRef(path).ends_with(".tflite"))
    return parseSourceFile<ModuleOp>(path, sourceMgr, &context);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    (void)log.error("cannot read " + path + ": " + file.getError().message());
    return {};
  }
  tflite::ImportOptions importOptions;
  importOptions.floatMode = options.floatImport;
  // Locations name the file, not its path: they reach the report
  // (allocation.register_buffers), which must not depend on where the
  // model or -o is.
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
      (*file)->getBufferSize());
  OwningOpRef<ModuleOp> module = tflite::importTFLite(
      bytes, llvm::sys::path::filename(path), &context, importOptions);
  if (!module) {
    (void)log.error("importing " + path + " failed");
    return {};
  }
  std::string imported = pathIn(dir, options.name + ".import.mlir");
  std::error_code ec;
  llvm::raw_fd_ostream os(imported, ec);
  if (ec) {
    (void)log.error("cannot write " + imported + ": " + ec.message());
    return {};
  }
  module->print(os);
  return module;
}

/// The model's function to compile, renamed to options.name, alone in the
/// module (other functions it does not call go away); its number of
/// inputs in `numInputs`.
LogicalResult selectFunction(ModuleOp module, const CompileOptions &options,
                             unsigned &numInputs, const CompileLog &log) {
  auto function = module.lookupSymbol<func::FuncOp>(options.function);
  if (!function || function.isExternal())
    return log.error("the model has no function @" + options.function +
                     " with a body (--function selects another)");
  for (func::FuncOp other : llvm::to_vector(module.getOps<func::FuncOp>()))
    if (other != function && SymbolTable::symbolKnownUseEmpty(other, module))
      other.erase();
  if (failed(SymbolTable::replaceAllSymbolUses(
          function, StringAttr::get(module.getContext(), options.name),
          module)))
    return log.error("cannot rename @" + options.function);
  function.setSymName(options.name);
  numInputs = function.getNumArguments();
  return success();
}

/// The JSON report of a build, before the object's facts.
llvm::json::Object report(const CompileOptions &options,
                          const NetworkInterface &network,
                          func::FuncOp function, StringRef allocReport) {
  llvm::json::Object json{{"name", network.name},
                          {"source", options.input},
                          {"target", options.target},
                          {"arena_bytes", network.arenaBytes},
                          {"arena_alignment", network.arenaAlignment},
                          {"state_bytes", network.stateBytes},
                          {"io", std::string(stringifyEnum(options.io))}};
  llvm::json::Array inputs, outputs;
  for (const NetworkOperand &operand : network.inputs)
    inputs.push_back(describeOperand(operand));
  for (const NetworkOperand &operand : network.outputs)
    outputs.push_back(describeOperand(operand));
  json["inputs"] = std::move(inputs);
  json["outputs"] = std::move(outputs);
  // The MACs fused tiling computes and the untiled network's.
  if (Attribute tiled = function->getAttr("serenity.tiled"))
    json["tiling"] = attributeToJSON(tiled);
  for (StringRef key : {"serenity.schedule", "serenity.arena_lower_bound"})
    if (Attribute attr = function->getAttr(key))
      json[key.drop_front(strlen("serenity."))] = attributeToJSON(attr);
  if (auto buffer = llvm::MemoryBuffer::getFile(allocReport)) {
    if (auto parsed = llvm::json::parse((*buffer)->getBuffer()))
      json["allocation"] = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
  }
  return json;
}

/// The object file of the LLVM-dialect `module` at `path`, and its facts.
FailureOr<ObjectFacts> writeObject(ModuleOp module, StringRef name,
                                   const TargetDescription &target,
                                   StringRef path, TimingScope &timer,
                                   const CompileLog &log) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::LLVMContext llvmContext;
  TimingScope stage = timer.nest("translation to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, name);
  stage.stop();
  if (!llvmModule)
    return log.error("translation to LLVM IR failed");
  // The object is made in memory, written once and read from there.
  SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  std::string error;
  if (failed(emitObjectFile(*llvmModule, target, os, error, timer)))
    return log.error(error);
  std::error_code fileError;
  llvm::ToolOutputFile out(path, fileError, llvm::sys::fs::OF_None);
  if (fileError)
    return log.error("cannot write " + path + ": " + fileError.message());
  out.os() << object;
  out.os().flush();
  if (out.os().has_error())
    return log.error("cannot write " + path);
  out.keep();
  // What the link must provide, read from the object: the code generator
  // turns intrinsics such as llvm.exp.f32 into library calls (expf), which
  // the LLVM module does not declare.
  stage = timer.nest("object reading");
  FailureOr<ObjectFacts> facts =
      readObjectFacts(llvm::MemoryBufferRef(object, path), error);
  if (failed(facts))
    return log.error(error);
  return facts;
}

/// Prints what a build wrote into the output directory.
void announce(const CompileOptions &options, const CompileResult &result,
              const CompileLog &log) {
  std::string base = pathIn(options.outputDir, options.name);
  log.out << "serenity-compile: wrote " << base << ".o, " << base << ".h, "
          << base << ".json " << result.summary << "\n";
  log.out.flush();
}

/// Whether the user chose the tiling (a tile, tile-max-mac-overhead or
/// tile-beam-width pipeline option): then the build is what they asked for.
bool tilingAsked(const SerenityPipelineOptions &pipeline) {
  return pipeline.tile.hasValue() || pipeline.tileMaxMacOverhead.hasValue() ||
         pipeline.tileBeamWidth.hasValue();
}

/// The build with options.pipeline, within the trade of fused tiling's
/// flash against the RAM it saves (compileModel).
LogicalResult buildWithinTilingTrade(const CompileOptions &options,
                                     TimingScope &timer, const CompileLog &log,
                                     CompileResult &kept) {
  CompileResult tiled;
  if (failed(buildOnce(options, options.outputDir, timer, log, tiled)))
    return failure();
  const TargetDescription &target = *::serenity::lookupTarget(options.target);
  // (buildOnce parsed the same options: they are valid.)
  auto pipeline = SerenityPipelineOptions::createFromString(options.pipeline);
  if (!tiled.tiled || !pipeline || tilingAsked(*pipeline) ||
      !::serenity::isMicrocontroller(target.pipelineTarget)) {
    announce(options, tiled, log);
    kept = tiled;
    return success();
  }
  // The network again, untiled, in a directory beside.
  std::string beside = pathIn(options.outputDir, "." + options.name + ".untiled");
  CompileOptions untiledOptions = options;
  untiledOptions.pipeline =
      (Twine(options.pipeline) + (options.pipeline.empty() ? "" : " ") +
       "tile=none")
          .str();
  // The untiled build's per-kernel labels (profile-marks=FILE) go beside
  // too, so that they do not overwrite the tiled build's; they replace them
  // if the untiled build is kept.
  std::string marksPath = pipeline->profileMarks, besideMarks;
  if (!marksPath.empty()) {
    besideMarks = pathIn(beside, "profile-marks.json");
    size_t at = untiledOptions.pipeline.find("profile-marks=" + marksPath);
    if (at == std::string::npos)
      return log.error("cannot place the untiled build's profile-marks file "
                       "beside the tiled one's (" +
                       marksPath + ")");
    untiledOptions.pipeline.replace(at + StringRef("profile-marks=").size(),
                                    marksPath.size(), besideMarks);
  }
  CompileResult untiled;
  auto cleanUp = [&] { llvm::sys::fs::remove_directories(beside); };
  if (failed(buildOnce(untiledOptions, beside, timer, log, untiled))) {
    cleanUp();
    return failure();
  }
  const int64_t ramSaved =
      (untiled.arena + untiled.state) - (tiled.arena + tiled.state);
  const int64_t flashCost = tiled.flash - untiled.flash;
  // A tiling that saves no RAM is never kept (serenity-tile's memory model
  // can be optimistic: examples/residual_block.mlir's 2x1 tiles, whose last
  // elementwise op gets a buffer of its own, need 1024 bytes more).
  const bool keep =
      ramSaved > 0 &&
      flashCost <= static_cast<int64_t>(options.flashPerRamByte) * ramSaved;
  if (!keep) {
    // The untiled build's files replace the tiled one's.
    if (!besideMarks.empty())
      if (std::error_code failedMove =
              llvm::sys::fs::rename(besideMarks, marksPath)) {
        cleanUp();
        return log.error("cannot move " + besideMarks + " to " + marksPath +
                         ": " + failedMove.message());
      }
    std::error_code error;
    for (llvm::sys::fs::directory_iterator it(beside, error), end;
         !error && it != end; it.increment(error)) {
      std::string moved = pathIn(options.outputDir,
                                 llvm::sys::path::filename(it->path()));
      if (std::error_code failedMove = llvm::sys::fs::rename(it->path(), moved)) {
        cleanUp();
        return log.error("cannot move " + it->path() + " to " + moved + ": " +
                         failedMove.message());
      }
    }
  }
  cleanUp();
  // The trade, in the report of the build kept.
  std::string jsonPath = pathIn(options.outputDir, options.name + ".json");
  if (auto buffer = llvm::MemoryBuffer::getFile(jsonPath)) {
    if (auto parsed = llvm::json::parse((*buffer)->getBuffer())) {
      if (llvm::json::Object *object = parsed->getAsObject()) {
        llvm::json::Object trade{
            {"ram_saved", ramSaved},
            {"flash_cost", flashCost},
            {"flash_per_ram_byte",
             static_cast<int64_t>(options.flashPerRamByte)},
            {"kept", keep}};
        // The tiled build's MACs (the untiled build kept has none extra).
        if (keep)
          if (llvm::json::Object *macs = object->getObject("tiling"))
            for (auto &entry : *macs)
              trade[entry.first] = entry.second;
        (*object)["tiling"] = std::move(trade);
        if (failed(writeJSON(jsonPath, std::move(*parsed), log)))
          return failure();
      }
    } else {
      llvm::consumeError(parsed.takeError());
    }
  }
  log.out << "serenity-compile: fused tiling saves " << ramSaved
          << " bytes of RAM for " << flashCost << " bytes of flash: "
          << (keep ? "kept" : "built untiled (--pipeline tile=both keeps it)")
          << "\n";
  kept = keep ? tiled : untiled;
  announce(options, kept, log);
  return success();
}

/// The fastest configuration of the frontier within the budgets, built
/// (compileModel).
LogicalResult buildWithinBudgets(const CompileOptions &options,
                                 TimingScope &timer, const CompileLog &log,
                                 CompileResult &result) {
  TimingScope stage = timer.nest("frontier ranking");
  FrontierQuery query{options.target, fileSha256(options.input),
                      options.compilerIdentity};
  if (query.modelSha256.empty())
    return log.error("cannot read " + options.input);
  std::string error;
  auto known = readFrontierFile(options.frontierFile, query, error);
  if (failed(known))
    return log.error(error);
  auto ranked = rankWithinBudgets(*known, options.ramBudget,
                                  options.flashBudget, error);
  if (failed(ranked))
    return log.error(error);
  stage.stop();
  const size_t predicted = llvm::count_if(
      *known, [](const FrontierPoint &p) { return p.predicted; });
  constexpr size_t kMaxBuilds = 8;
  for (const auto &[index, p] : llvm::enumerate(*ranked)) {
    if (index == kMaxBuilds)
      break;
    CompileOptions chosen = options;
    chosen.pipeline = p.options;
    chosen.ramBudget = chosen.flashBudget = -1;
    // The defaults as the frontier measured them: with the tiling trade.
    if (failed(buildWithinTilingTrade(chosen, timer, log, result)))
      return failure();
    // The RAM of this build: its arena and state, the stack measured (or,
    // predicted, the larger of the measured builds').
    const int64_t builtRam = result.arena + result.state + p.stack;
    log.out << "serenity-compile: budget: chose `"
            << (p.options.empty() ? std::string("(defaults)") : p.options)
            << "`, the fastest of " << known->size() << " configurations ("
            << predicted
            << " predicted from per-layer profiles) within the budgets: "
            << (p.predicted ? "predicted" : "measured") << " RAM " << p.ram
            << " bytes (arena " << p.arena << " + state " << p.state
            << " + stack " << p.stack << "), flash " << p.flash << " bytes, "
            << p.instructions << " instructions; this build: arena "
            << result.arena << " bytes, flash " << result.flash << " bytes\n";
    log.out.flush();
    if (!p.predicted) {
      if (p.arena != result.arena || p.flash != result.flash)
        log.warning("this build differs from the measurement; measure it "
                    "again with `python3 -m serenity frontier`");
      return success();
    }
    if ((options.ramBudget < 0 || builtRam <= options.ramBudget) &&
        (options.flashBudget < 0 || result.flash <= options.flashBudget))
      return success();
    log.note("the build breaks a budget (RAM " + Twine(builtRam) +
             ", flash " + Twine(result.flash) +
             " bytes): trying the next configuration");
  }
  return log.error(
      "no configuration within the budgets built within them after " +
      Twine(std::min(kMaxBuilds, ranked->size())) +
      " builds: measure the model again with `python3 -m serenity "
      "frontier`");
}

} // namespace

LogicalResult mlir::serenity::buildOnce(const CompileOptions &options,
                                        StringRef dir, TimingScope &timer,
                                        const CompileLog &log,
                                        CompileResult &result) {
  const TargetDescription *target = ::serenity::lookupTarget(options.target);
  if (!target)
    return log.error("unknown --target '" + options.target + "'");
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return log.error("cannot create " + dir + ": " + error.message());

  // The pipeline is built from typed pass constructors: only the dialects
  // are registered.
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerSerenityDialect(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);

  TimingScope stage = timer.nest("import");
  OwningOpRef<ModuleOp> module = loadModel(options, context, dir, log);
  stage.stop();
  unsigned numInputs = 0;
  if (!module || failed(selectFunction(*module, options, numInputs, log)))
    return failure();

  // Memref level: the arena passed by the caller, inputs and outputs where
  // options.io puts them.
  auto pipeline = SerenityPipelineOptions::createFromString(options.pipeline);
  if (!pipeline)
    return log.error("bad --pipeline options '" + options.pipeline + "'");
  std::string allocReport = pathIn(dir, options.name + ".alloc.json");
  pipeline->arena = ArenaStorage::Argument;
  pipeline->io = options.io;
  pipeline->target = target->pipelineTarget;
  pipeline->lowerToLLVM = false;
  pipeline->allocReport = allocReport;
  pipeline->functions = {options.name};
  auto reportError = [&](const Twine &message) { return log.error(message); };
  {
    PassManager pm(&context);
    stage = timer.nest("serenity-pipeline (graph passes, lowering to memref)");
    if (timer)
      pm.enableTiming(stage);
    if (failed(buildSerenityPipeline(pm, *pipeline, reportError)) ||
        failed(pm.run(*module)))
      return failure();
    stage.stop();
  }
  auto function = module->lookupSymbol<func::FuncOp>(options.name);
  std::string error;
  FailureOr<NetworkInterface> network = readNetworkInterface(
      function, numInputs, options.io == IOPlacement::Arena,
      getArenaAlignment(*pipeline), error);
  if (failed(network))
    return log.error(error);
  network->source = options.input;
  network->target = options.target;
  llvm::json::Object json = report(options, *network, function, allocReport);
  result.tiled = function->hasAttr("serenity.tiled");
  llvm::sys::fs::remove(allocReport);

  // The LLVM lowering, the object and what it holds.
  {
    PassManager pm(&context);
    stage = timer.nest("LLVM dialect lowering");
    if (timer)
      pm.enableTiming(stage);
    if (failed(buildSerenityLLVMLowering(pm, target->pipelineTarget,
                                         reportError,
                                         pipeline->outlineMinOps)) ||
        failed(pm.run(*module)))
      return failure();
    stage.stop();
  }
  FailureOr<ObjectFacts> facts =
      writeObject(*module, options.name, *target,
                  pathIn(dir, options.name + ".o"), timer, log);
  if (failed(facts))
    return failure();

  stage = timer.nest("header and report");
  json["flash"] = llvm::json::Object{{"bytes", facts->flash()},
                                     {"text", facts->text},
                                     {"rodata", facts->rodata},
                                     {"data", facts->data}};
  json["static_ram_bytes"] = facts->data + facts->bss;
  llvm::json::Array externals, linkFlags;
  for (const std::string &symbol : facts->undefined)
    externals.push_back(symbol);
  if (llvm::any_of(facts->undefined, isMathLibrarySymbol))
    linkFlags.push_back("-lm");
  json["external_symbols"] = std::move(externals);
  json["link_flags"] = std::move(linkFlags);
  if (failed(writeFile(pathIn(dir, options.name + ".h"),
                       emitCHeader(*network, facts->undefined), log)) ||
      failed(writeJSON(pathIn(dir, options.name + ".json"), std::move(json),
                       log)))
    return failure();
  result.summary = llvm::formatv(
      "(arena {0} bytes, {1}flash {2} bytes: text {3}, rodata {4})",
      network->arenaBytes,
      network->stateBytes
          ? "state " + std::to_string(network->stateBytes) + " bytes, "
          : std::string(),
      facts->flash(), facts->text, facts->rodata);
  result.arena = network->arenaBytes;
  result.state = network->stateBytes;
  result.flash = static_cast<int64_t>(facts->flash());
  result.pipeline = options.pipeline;
  return success();
}

LogicalResult mlir::serenity::compileModel(const CompileOptions &options,
                                           TimingScope &timer,
                                           const CompileLog &log,
                                           CompileResult *result) {
  if (failed(verifyCompileOptions(options, log)))
    return failure();
  CompileResult kept;
  LogicalResult built =
      options.ramBudget >= 0 || options.flashBudget >= 0
          ? buildWithinBudgets(options, timer, log, kept)
          : buildWithinTilingTrade(options, timer, log, kept);
  if (result)
    *result = kept;
  return built;
}
