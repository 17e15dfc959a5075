//===- PassEnums.h - Enumerated options of the graph passes ----*- C++ -*-===//
//
// Every enumerated pass option is a C++ enum with one table of spellings
// (Serenity/Support/EnumTable.h): the algorithms next to their libraries
// (ScheduleAlgorithm, SelectionObjective), the concat mode next to the memory
// model (ConcatMode), the others here. SERENITY_ENUM_OPTION makes each the
// type of its option in Passes.td: a bad value is reported when the options
// are parsed, with the choices, and C++ sets it with an enumerator.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_GRAPH_PASSENUMS_H
#define SERENITY_GRAPH_PASSENUMS_H

#include "Serenity/Analysis/ConcatMode.h"
#include "Serenity/Scheduling/Scheduler.h"
#include "Serenity/Selection/PrimitiveSelection.h"
#include "Serenity/Support/EnumOption.h"

namespace mlir {
namespace serenity {

/// serenity-memory-report `format`.
enum class ReportFormat { Table, Json };
SERENITY_ENUM_NAMES(ReportFormat, {ReportFormat::Table, "table"},
                    {ReportFormat::Json, "json"})

/// serenity-rewrite `mode`: the rewrites that lower the peak, or all.
enum class RewriteMode { Profitable, All };
SERENITY_ENUM_NAMES(RewriteMode, {RewriteMode::Profitable, "profitable"},
                    {RewriteMode::All, "all"})

/// serenity-tile `method`: fused feature-map tiling (spatial), fused
/// depthwise/channel tiling, or both.
enum class TileMethod { FFMT, FDT, Both };
SERENITY_ENUM_NAMES(TileMethod, {TileMethod::FFMT, "ffmt"},
                    {TileMethod::FDT, "fdt"}, {TileMethod::Both, "both"})

} // namespace serenity
} // namespace mlir

SERENITY_ENUM_OPTION(::serenity::ScheduleAlgorithm)
SERENITY_ENUM_OPTION(::serenity::SelectionObjective)
SERENITY_ENUM_OPTION(mlir::serenity::ReportFormat)
SERENITY_ENUM_OPTION(mlir::serenity::RewriteMode)
SERENITY_ENUM_OPTION(mlir::serenity::TileMethod)

#endif // SERENITY_GRAPH_PASSENUMS_H
