// Sets pass and pipeline options from C++ the way buildSerenityPipeline
// does. With -DWRONG_TYPE each assignment gives a string where the option
// is an enum: typed-options.mlir checks that this does not compile.
#include "Serenity/Graph/Passes.h"
#include "Serenity/Lowering/Passes.h"
#include "Serenity/Pipelines/Pipelines.h"

void setOptions() {
  mlir::serenity::SerenitySchedulePassOptions schedule;
  mlir::serenity::SerenityStaticAllocPassOptions alloc;
  mlir::serenity::SerenityPipelineOptions pipeline;
#ifdef WRONG_TYPE
  schedule.algorithm = "dp";
  alloc.io = "arena";
  pipeline.target = std::string("cortex-m");
#else
  schedule.algorithm = ::serenity::ScheduleAlgorithm::DP;
  schedule.concat = mlir::serenity::ConcatMode::Auto;
  alloc.io = mlir::serenity::IOPlacement::Arena;
  pipeline.target = mlir::serenity::PipelineTarget::CortexM;
#endif
}
