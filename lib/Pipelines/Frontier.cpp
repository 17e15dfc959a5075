//===- Frontier.cpp - Budget decisions from a measured frontier -----------===//

#include "Serenity/Pipelines/Frontier.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::serenity;

bool mlir::serenity::readFrontierPoint(const llvm::json::Object &object,
                                       FrontierPoint &point) {
  auto field = [&](StringRef name) {
    return object.getInteger(name).value_or(-1);
  };
  point.ram = field("ram");
  point.flash = field("flash");
  point.instructions = field("instructions");
  point.arena = field("arena");
  point.state = field("state");
  point.stack = field("stack");
  point.predicted = object.getBoolean("predicted").value_or(false);
  return point.ram >= 0 && point.flash >= 0 && point.instructions >= 0;
}

FailureOr<SmallVector<FrontierPoint>>
mlir::serenity::rankWithinBudgets(ArrayRef<FrontierPoint> points,
                                  int64_t ramBudget, int64_t flashBudget,
                                  std::string &error) {
  auto fits = [&](const FrontierPoint &p, bool checkRam, bool checkFlash) {
    return (!checkRam || ramBudget < 0 || p.ram <= ramBudget) &&
           (!checkFlash || flashBudget < 0 || p.flash <= flashBudget);
  };
  SmallVector<FrontierPoint> ranked;
  for (const FrontierPoint &p : points)
    if (fits(p, true, true))
      ranked.push_back(p);
  llvm::stable_sort(ranked,
                    [](const FrontierPoint &a, const FrontierPoint &b) {
                      return std::tie(a.instructions, a.ram, a.flash,
                                      a.options) <
                             std::tie(b.instructions, b.ram, b.flash,
                                      b.options);
                    });
  if (!ranked.empty())
    return ranked;
  std::optional<int64_t> leastRam, leastFlash;
  for (const FrontierPoint &p : points) {
    if (fits(p, false, true))
      leastRam = std::min(leastRam.value_or(p.ram), p.ram);
    if (fits(p, true, false))
      leastFlash = std::min(leastFlash.value_or(p.flash), p.flash);
  }
  auto bound = [](int64_t b) {
    return b < 0 ? std::string("any amount") : std::to_string(b) + " bytes";
  };
  error = "no configuration (" + std::to_string(points.size()) +
          " measured or predicted) fits RAM " + bound(ramBudget) +
          " and flash " + bound(flashBudget) + ": ";
  if (ramBudget >= 0)
    error += "the least RAM reachable within " + bound(flashBudget) +
             " of flash is " +
             (leastRam ? std::to_string(*leastRam) + " bytes"
                       : std::string("none (nothing fits that flash)"));
  if (ramBudget >= 0 && flashBudget >= 0)
    error += "; ";
  if (flashBudget >= 0)
    error += "the least flash reachable within " + bound(ramBudget) +
             " of RAM is " +
             (leastFlash ? std::to_string(*leastFlash) + " bytes"
                         : std::string("none (nothing fits that RAM)"));
  return failure();
}

/// The frontier file format this reader understands (docs/Deploy.md).
static constexpr StringLiteral kFrontierFormat = "serenity-frontier";
static constexpr int64_t kFrontierVersion = 1;

FailureOr<SmallVector<FrontierPoint>>
mlir::serenity::readFrontierFile(StringRef path, const FrontierQuery &query,
                                 std::string &error) {
  const std::string remeasure =
      "python3 -m serenity frontier MODEL --target " + query.target;
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text) {
    error = "cannot read " + path.str() + " (write it with `" + remeasure +
            " --export " + path.str() + "`)";
    return failure();
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*text)->getBuffer());
  const llvm::json::Object *root = parsed ? parsed->getAsObject() : nullptr;
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  const llvm::json::Array *frontiers =
      root ? root->getArray("frontiers") : nullptr;
  if (!root || root->getString("format") != kFrontierFormat || !frontiers) {
    error = path.str() + " is not a frontier file (`" + remeasure +
            " --export FILE` writes one)";
    return failure();
  }
  if (root->getInteger("version") != kFrontierVersion) {
    error = path.str() + " is a frontier file of another version (this "
                         "serenity reads version " +
            std::to_string(kFrontierVersion) + "): measure the model again";
    return failure();
  }
  // The frontiers the query selects; what else the file holds, for the
  // error when none is selected.
  SmallVector<const llvm::json::Object *> selected;
  llvm::StringSet<> otherTargets, models;
  for (const llvm::json::Value &value : *frontiers) {
    const llvm::json::Object *frontier = value.getAsObject();
    std::optional<StringRef> target =
        frontier ? frontier->getString("target") : std::nullopt;
    std::optional<StringRef> sha256 =
        frontier ? frontier->getString("sha256") : std::nullopt;
    if (!target || !sha256 || !frontier->getArray("points")) {
      error = path.str() + ": a frontier without target, sha256 or points";
      return failure();
    }
    if (*target != query.target) {
      otherTargets.insert(*target);
      continue;
    }
    if (!query.modelSha256.empty() && *sha256 != query.modelSha256)
      continue;
    if (!query.compiler.empty() &&
        frontier->getString("compiler") != StringRef(query.compiler))
      continue;
    models.insert(*sha256);
    selected.push_back(frontier);
  }
  if (selected.empty()) {
    if (query.modelSha256.empty() && !otherTargets.empty()) {
      SmallVector<StringRef> names(otherTargets.keys());
      llvm::sort(names);
      error = path.str() + " was measured on " + llvm::join(names, ", ") +
              ", not " + query.target;
    } else {
      error = "no frontier of this model for " + query.target +
              (query.compiler.empty() ? std::string()
                                      : " measured by this serenity-compile") +
              " in " + path.str() + ": run `" + remeasure + "` first";
    }
    return failure();
  }
  if (models.size() > 1) {
    error = path.str() + " holds the frontiers of " +
            std::to_string(models.size()) + " models for " + query.target +
            ": export one model's (" + remeasure + " --export FILE)";
    return failure();
  }
  // Every point once: a configuration measured counts as measured.
  SmallVector<FrontierPoint> points;
  llvm::StringMap<size_t> byOptions;
  for (const llvm::json::Object *frontier : selected)
    for (const llvm::json::Value &value : *frontier->getArray("points")) {
      const llvm::json::Object *object = value.getAsObject();
      std::optional<StringRef> options =
          object ? object->getString("options") : std::nullopt;
      FrontierPoint point;
      if (!options || !readFrontierPoint(*object, point)) {
        error = path.str() + ": a point without options, ram, flash or "
                             "instructions";
        return failure();
      }
      point.options = options->str();
      auto [it, inserted] = byOptions.try_emplace(point.options, points.size());
      if (inserted)
        points.push_back(std::move(point));
      else if (points[it->second].predicted && !point.predicted)
        points[it->second] = std::move(point);
    }
  if (points.empty()) {
    error = path.str() + " holds no configuration";
    return failure();
  }
  return points;
}

std::string mlir::serenity::compilerIdentity(StringRef executable) {
  SmallString<256> real;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::real_path(executable, real) ||
      llvm::sys::fs::status(real, status))
    return "";
  return (real + ":" + Twine(status.getSize()) + ":" +
          Twine(static_cast<int64_t>(
              llvm::sys::toTimeT(status.getLastModificationTime()))))
      .str();
}

std::string mlir::serenity::fileSha256(StringRef path) {
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return "";
  llvm::SHA256 hash;
  hash.update(llvm::arrayRefFromStringRef((*bytes)->getBuffer()));
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}
