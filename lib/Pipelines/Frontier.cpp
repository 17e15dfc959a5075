//===- Frontier.cpp - Budget decisions from a measured frontier -----------===//

#include "Serenity/Pipelines/Frontier.h"

#include "llvm/Support/MemoryBuffer.h"

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

FailureOr<SmallVector<FrontierPoint>>
mlir::serenity::readFrontierExport(StringRef path, StringRef target,
                                   std::string &error) {
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text) {
    error = "cannot read " + path.str() +
            " (write it with `python3 -m serenity frontier MODEL --target " +
            target.str() + " --export " + path.str() + "`)";
    return failure();
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*text)->getBuffer());
  const llvm::json::Object *root = parsed ? parsed->getAsObject() : nullptr;
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  const llvm::json::Array *list = root ? root->getArray("points") : nullptr;
  std::optional<StringRef> written = root ? root->getString("target")
                                          : std::nullopt;
  if (!list || !written) {
    error = path.str() + " is not a frontier export (python3 -m serenity "
                         "frontier MODEL --export FILE)";
    return failure();
  }
  if (*written != target) {
    error = path.str() + " was measured on " + written->str() + ", not " +
            target.str();
    return failure();
  }
  SmallVector<FrontierPoint> points;
  for (const llvm::json::Value &value : *list) {
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
    points.push_back(std::move(point));
  }
  if (points.empty()) {
    error = path.str() + " holds no configuration";
    return failure();
  }
  return points;
}
