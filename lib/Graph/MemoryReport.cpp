//===- MemoryReport.cpp - Print per-step activation memory -----*- C++ -*-===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Graph/Passes.h"


#include "Serenity/Support/OutputFile.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYMEMORYREPORTPASS
#include "Serenity/Graph/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

std::string locationString(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                         fileLoc.getLine(), fileLoc.getColumn());
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return nameLoc.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return locationString(fused.getLocations().front());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

std::string valueName(Value value, AsmState &state) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, state);
  return text;
}

struct FunctionReport {
  std::string name;
  FunctionMemoryModel model;
  ::serenity::MemoryProfile profile;
};

void printTable(llvm::raw_ostream &os, const FunctionReport &report) {
  os << "// serenity memory report: @" << report.name << "\n";
  os << llvm::formatv("// peak {0} bytes at step {1}, {2} steps\n",
                      report.profile.peak, report.profile.peakStep,
                      report.model.steps.size());
  os << llvm::formatv("{0,5}  {1,-28} {2,12} {3,12}\n", "step", "op",
                      "live bytes", "new bytes");
  for (auto [step, op] : llvm::enumerate(report.model.steps)) {
    os << llvm::formatv(
        "{0,5}  {1,-28} {2,12} {3,12}", step, op->getName().getStringRef(),
        report.profile.usage[step], report.profile.newBytes[step]);
    if (static_cast<int>(step) == report.profile.peakStep)
      os << "  <- peak";
    os << "\n";
  }
}

llvm::json::Value toJson(const FunctionReport &report, AsmState &state) {
  llvm::json::Array steps;
  for (auto [step, op] : llvm::enumerate(report.model.steps))
    steps.push_back(
        llvm::json::Object{{"step", static_cast<int64_t>(step)},
                           {"op", op->getName().getStringRef()},
                           {"loc", locationString(op->getLoc())},
                           {"live_bytes", report.profile.usage[step]},
                           {"new_bytes", report.profile.newBytes[step]}});
  llvm::json::Array buffers;
  for (auto [id, value] : llvm::enumerate(report.model.bufferValues)) {
    bool workspace = report.model.graph.buffers[id].workspace;
    buffers.push_back(llvm::json::Object{
        {"name", valueName(value, state) + (workspace ? ".workspace" : "")},
        {"bytes", report.model.graph.buffers[id].bytes},
        {"def", report.profile.defStep[id]},
        {"last", report.profile.lastStep[id]}});
  }
  return llvm::json::Object{{"function", report.name},
                            {"peak_bytes", report.profile.peak},
                            {"peak_step", report.profile.peakStep},
                            {"steps", std::move(steps)},
                            {"buffers", std::move(buffers)}};
}

struct SerenityMemoryReportPass
    : public mlir::serenity::impl::SerenityMemoryReportPassBase<
          SerenityMemoryReportPass> {
  using SerenityMemoryReportPassBase::SerenityMemoryReportPassBase;

  void runOnOperation() override {
    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file) {
      emitError(getOperation().getLoc())
          << "serenity-memory-report: cannot open '" << output
          << "': " << errorMessage;
      return signalPassFailure();
    }

    bool failedAny = false;
    llvm::json::Array functions;
    getOperation().walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      MemoryModelOptions modelOptions =
          MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
      FailureOr<FunctionMemoryModel> model =
          FunctionMemoryModel::build(function, modelOptions);
      if (failed(model)) {
        failedAny = true;
        return;
      }
      FunctionReport report{function.getSymName().str(), std::move(*model), {}};
      report.profile = ::serenity::simulate(
          report.model.graph, ::serenity::programOrder(report.model.graph));
      if (format == ReportFormat::Json) {
        AsmState state(function);
        functions.push_back(toJson(report, state));
      } else {
        printTable(file->os(), report);
      }
    });
    if (format == ReportFormat::Json)
      file->os() << llvm::formatv("{0:2}\n",
                                  llvm::json::Value(llvm::json::Object{
                                      {"functions", std::move(functions)}}));
    if (std::optional<std::string> error = ::serenity::closeOutputFile(*file)) {
      emitError(getOperation().getLoc())
          << "serenity-memory-report: cannot write '" << output
          << "': " << *error;
      return signalPassFailure();
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
