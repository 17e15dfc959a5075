//===- serenity-alloc.cpp - Offset allocation from CSV ----------*- C++ -*-===//
//
// Reads buffers with live intervals in the MiniMalloc CSV format, places them
// in one arena and writes the rows back with an `offset` column. Every
// placement written is checked by the validator first, and `--check` runs
// the validator on a file that already has offsets.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Allocation/AllocationCSV.h"
#include "Serenity/Allocation/Allocator.h"

#include "Serenity/Support/OutputFile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

using namespace llvm;
using serenity::AllocAlgorithm;

namespace {

cl::OptionCategory category("serenity-alloc options");

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<input.csv>"), cl::cat(category));
cl::opt<std::string> outputFile("o",
                                cl::desc("Output CSV file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<int64_t> capacity("capacity",
                          cl::desc("Arena bytes the placement must fit in"),
                          cl::value_desc("N"), cl::init(-1), cl::cat(category));
cl::opt<bool> minimize("minimize",
                       cl::desc("With --capacity and the exact algorithm: find "
                                "the smallest arena, not just one that fits"),
                       cl::cat(category));
cl::opt<AllocAlgorithm> algorithm(
    "algorithm", cl::desc("Allocation algorithm"),
    cl::values(clEnumValN(AllocAlgorithm::GreedySize, "greedy-size",
                          "TFLite Micro greedy: size descending, first fit"),
               clEnumValN(AllocAlgorithm::BestFit, "best-fit",
                          "XLA best fit, by size and by lifetime"),
               clEnumValN(AllocAlgorithm::Exact, "exact",
                          "branch and bound (MiniMalloc style)")),
    cl::init(AllocAlgorithm::Exact), cl::cat(category));
cl::opt<int64_t> workLimit(
    "work-limit",
    cl::desc("Work budget of the exact search (solver steps; the result "
             "depends only on the input and the options)"),
    cl::value_desc("N"), cl::init(serenity::AllocOptions::kDefaultWorkLimit),
    cl::cat(category));
cl::opt<double> timeLimit(
    "time-limit",
    cl::desc("Wall-clock safety net of the exact search in seconds (0: off; "
             "a result it cuts short depends on the machine)"),
    cl::value_desc("S"), cl::init(0.0), cl::cat(category));
cl::opt<bool> check("check",
                    cl::desc("Validate the offsets already in the input"),
                    cl::cat(category));

int fail(const Twine &message) {
  errs() << "serenity-alloc: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "serenity-alloc: place buffers with live intervals in one arena\n\n"
      "  Input: CSV with header id,lower,upper,size[,alignment][,offset];\n"
      "  buffer id is live on [lower, upper).\n");

  if (!(timeLimit >= 0))
    return fail("--time-limit must be non-negative");
  if (workLimit < 0)
    return fail("--work-limit must be non-negative");
  if (capacity.getNumOccurrences() && capacity < 0)
    return fail("--capacity must be non-negative");
  std::optional<int64_t> cap;
  if (capacity.getNumOccurrences())
    cap = capacity;
  if (minimize && algorithm != AllocAlgorithm::Exact)
    return fail("--minimize requires --algorithm exact");

  ErrorOr<std::unique_ptr<MemoryBuffer>> input =
      MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!input)
    return fail("cannot read '" + inputFile +
                "': " + input.getError().message());
  std::string error;
  std::optional<serenity::AllocCSV> csv =
      serenity::parseAllocCSV((*input)->getBuffer().str(), error);
  if (!csv)
    return fail(inputFile + ": " + error);

  if (check) {
    if (!csv->offsets)
      return fail(inputFile + ": --check needs an 'offset' column");
    if (auto problem =
            serenity::validatePlacement(csv->buffers, *csv->offsets, cap))
      return fail(inputFile + ": invalid placement: " + *problem);
    outs() << "valid: " << csv->buffers.size() << " buffers, arena "
           << serenity::arenaSize(csv->buffers, *csv->offsets)
           << ", lower bound " << serenity::maxLiveLowerBound(csv->buffers)
           << "\n";
    return 0;
  }

  serenity::AllocOptions options;
  options.algorithm = algorithm;
  options.capacity = cap;
  options.minimize = minimize;
  options.workLimit = workLimit;
  options.timeLimitSeconds = timeLimit;
  auto start = std::chrono::steady_clock::now();
  serenity::AllocResult result = serenity::allocate(csv->buffers, options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (result.status != serenity::AllocResult::Status::Placed)
    return fail(result.message);
  if (auto problem =
          serenity::validatePlacement(csv->buffers, result.offsets, cap))
    return fail("internal error: the " +
                Twine(serenity::allocAlgorithmName(algorithm)) +
                " placement is invalid: " + *problem);

  std::error_code ec;
  ToolOutputFile out(outputFile, ec, sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + outputFile + "': " + ec.message());
  out.os() << serenity::printAllocCSV(csv->buffers, result.offsets,
                                      csv->hasAlignment);
  if (std::optional<std::string> error = serenity::closeOutputFile(out))
    return fail("cannot write '" + outputFile + "': " + *error);
  errs() << "serenity-alloc: " << serenity::allocAlgorithmName(algorithm)
         << ": buffers " << csv->buffers.size() << ", arena "
         << result.arenaSize << ", lower bound " << result.lowerBound
         << ", proven optimal " << (result.provenOptimal ? "yes" : "no")
         << (result.stop == serenity::SearchStop::None
                 ? ""
             : result.stalled
                 ? " (search stalled: it could not visit as many nodes as "
                   "there are buffers; stopped by "
                 : " (stopped by ")
         << (result.stop == serenity::SearchStop::None
                 ? ""
                 : std::string(serenity::getSearchStopName(result.stop)) + ")")
         << ", nodes " << result.nodes << ", work " << result.work << ", time "
         << format("%.3f", seconds) << " s\n";
  return 0;
}
