//===- TargetDescriptionTest.cpp - The target table ------------------------===//
//
// The table of Serenity/Target/TargetDescription.h: every target complete,
// lookups by name, the facts the pipeline reads per family, the JSON of
// serenity-compile --print-targets.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Target/TargetDescription.h"

#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace serenity;

namespace {

TEST(TargetDescription, EveryTargetIsComplete) {
  llvm::StringSet<> names;
  for (const TargetDescription &target : allTargets()) {
    SCOPED_TRACE(target.name.str());
    EXPECT_TRUE(names.insert(target.name).second) << "duplicate name";
    EXPECT_FALSE(target.triple.empty());
    EXPECT_FALSE(target.cpu.empty());
    EXPECT_GT(target.arenaAlignment, 0);
    EXPECT_EQ(target.arenaAlignment & (target.arenaAlignment - 1), 0)
        << "alignment is a power of two";
    // Cortex-M objects are hard-float where the core has an FPU, soft-float
    // where it has none, and C linked with them is built for the same core
    // and ABI.
    if (isMicrocontroller(target.pipelineTarget)) {
      EXPECT_EQ(target.floatABI, target.fpu ? FloatABI::Hard : FloatABI::Soft);
      EXPECT_TRUE(target.hasBoard());
      EXPECT_FALSE(target.cCompiler.empty());
      EXPECT_FALSE(target.qemuSystem.empty());
      if (target.pipelineTarget == PipelineTarget::RiscV32) {
        // RV32 without F: the ilp32 ABI, the ISA named as the features.
        EXPECT_TRUE(llvm::StringRef(target.triple).starts_with("riscv32"));
        EXPECT_TRUE(llvm::is_contained(target.cFlags, "-mabi=ilp32"));
        EXPECT_FALSE(target.fpu);
        EXPECT_TRUE(target.features.contains("+m"));
        EXPECT_EQ(target.qemuSystem, "qemu-system-riscv32");
        continue;
      }
      EXPECT_TRUE(llvm::is_contained(target.cFlags,
                                     ("-mcpu=" + target.cpu).c_str()));
      EXPECT_TRUE(llvm::is_contained(
          target.cFlags, target.fpu ? "-mfloat-abi=hard" : "-mfloat-abi=soft"));
      EXPECT_TRUE(llvm::StringRef(target.triple).starts_with("thumb"));
      EXPECT_EQ(llvm::StringRef(target.triple).ends_with("eabihf"), target.fpu);
    }
    // Helium is MVE, which the core's features name.
    EXPECT_EQ(target.mve, target.features.contains("+mve"));
    EXPECT_EQ(target.dsp, target.features.contains("+dsp"));
  }
  EXPECT_EQ(allTargets().front().name, "host");
}

TEST(TargetDescription, LookupByName) {
  const TargetDescription *m4 = lookupTarget("cortex-m4");
  ASSERT_NE(m4, nullptr);
  EXPECT_EQ(m4->triple, "thumbv7em-unknown-none-eabihf");
  EXPECT_EQ(m4->cpu, "cortex-m4");
  EXPECT_EQ(m4->features, "+dsp,+hwdiv,+vfp4d16sp,+fp16,-fp64,-d32,-neon");
  EXPECT_EQ(m4->pipelineTarget, PipelineTarget::CortexM);
  EXPECT_EQ(m4->qemuMachine, "mps2-an386");

  const TargetDescription *m55 = lookupTarget("cortex-m55");
  ASSERT_NE(m55, nullptr);
  EXPECT_EQ(m55->triple, "thumbv8.1m.main-unknown-none-eabihf");
  EXPECT_TRUE(m55->mve);
  EXPECT_EQ(m55->pipelineTarget, PipelineTarget::CortexMHelium);
  EXPECT_EQ(m55->qemuMachine, "mps3-an547");

  const TargetDescription *m7 = lookupTarget("cortex-m7");
  ASSERT_NE(m7, nullptr);
  EXPECT_EQ(m7->qemuMachine, "mps2-an500");
  EXPECT_EQ(m7->pipelineTarget, PipelineTarget::CortexM);

  const TargetDescription *m33 = lookupTarget("cortex-m33");
  ASSERT_NE(m33, nullptr);
  EXPECT_EQ(m33->triple, "thumbv8m.main-unknown-none-eabihf");
  EXPECT_TRUE(m33->dsp);
  EXPECT_EQ(m33->qemuMachine, "mps2-an505");

  // ARMv6-M: nothing of the M4's extensions, float in library calls.
  const TargetDescription *m0plus = lookupTarget("cortex-m0plus");
  ASSERT_NE(m0plus, nullptr);
  EXPECT_EQ(m0plus->triple, "thumbv6m-unknown-none-eabi");
  EXPECT_FALSE(m0plus->dsp || m0plus->hardwareDivide ||
               m0plus->unalignedAccess || m0plus->fpu || m0plus->mve);
  EXPECT_EQ(m0plus->floatABI, FloatABI::Soft);
  EXPECT_EQ(m0plus->pipelineTarget, PipelineTarget::CortexMBaseline);
  EXPECT_EQ(m0plus->qemuMachine, "mps2-an385");

  // RISC-V: hardware divide (M), nothing else of the table's capabilities;
  // imac adds only the atomics.
  const TargetDescription *imc = lookupTarget("riscv32-imc");
  ASSERT_NE(imc, nullptr);
  EXPECT_EQ(imc->triple, "riscv32-unknown-unknown-elf");
  EXPECT_TRUE(imc->hardwareDivide);
  EXPECT_FALSE(imc->dsp || imc->unalignedAccess || imc->fpu || imc->mve);
  EXPECT_EQ(imc->pipelineTarget, PipelineTarget::RiscV32);
  EXPECT_EQ(&primaryTarget(PipelineTarget::RiscV32), imc);
  EXPECT_EQ(imc->qemuMachine, "virt");
  EXPECT_FALSE(imc->features.contains("+a"));
  const TargetDescription *imac = lookupTarget("riscv32-imac");
  ASSERT_NE(imac, nullptr);
  EXPECT_TRUE(imac->features.contains("+a"));
  EXPECT_TRUE(llvm::is_contained(imac->cFlags, "-march=rv32imac"));

  const TargetDescription *host = lookupTarget("host");
  ASSERT_NE(host, nullptr);
  EXPECT_FALSE(host->hasBoard());
  EXPECT_EQ(host->arenaAlignment, 64);
}

TEST(TargetDescription, UnknownName) {
  EXPECT_EQ(lookupTarget("cortex-a9"), nullptr);
  EXPECT_EQ(lookupTarget(""), nullptr);
  // A pipeline family is not a target.
  EXPECT_EQ(lookupTarget("cortex-m"), nullptr);
  EXPECT_EQ(lookupTarget("Cortex-M4"), nullptr);
}

TEST(TargetDescription, Names) {
  EXPECT_EQ(targetNames(),
            "host, cortex-m4, cortex-m7, cortex-m33, cortex-m55, "
            "cortex-m0plus, riscv32-imc or riscv32-imac");
  EXPECT_EQ(targetNames([](const TargetDescription &target) {
              return target.hasBoard();
            }),
            "cortex-m4, cortex-m7, cortex-m33, cortex-m55, cortex-m0plus, "
            "riscv32-imc or riscv32-imac");
  EXPECT_EQ(targetNames([](const TargetDescription &target) {
              return target.pipelineTarget == PipelineTarget::RiscV32;
            }),
            "riscv32-imc or riscv32-imac");
}

/// The pipeline knows only the family (target=cortex-m) and reads the facts
/// of its primary target: every target of the family must agree on them.
TEST(TargetDescription, FamiliesAgreeOnWhatThePipelineReads) {
  for (const auto &entry : enumEntries(PipelineTarget{})) {
    SCOPED_TRACE(entry.name);
    const TargetDescription &primary = primaryTarget(entry.value);
    EXPECT_EQ(primary.pipelineTarget, entry.value);
    for (const TargetDescription &target : allTargets()) {
      if (target.pipelineTarget != entry.value)
        continue;
      SCOPED_TRACE(target.name.str());
      EXPECT_EQ(target.arenaAlignment, primary.arenaAlignment);
      EXPECT_EQ(target.dsp, primary.dsp);
      EXPECT_EQ(target.mve, primary.mve);
    }
  }
  EXPECT_EQ(primaryTarget(PipelineTarget::Host).name, "host");
  EXPECT_EQ(primaryTarget(PipelineTarget::CortexM).name, "cortex-m4");
  EXPECT_EQ(primaryTarget(PipelineTarget::CortexMHelium).name, "cortex-m55");
  EXPECT_EQ(primaryTarget(PipelineTarget::CortexMBaseline).name,
            "cortex-m0plus");
  EXPECT_EQ(primaryTarget(PipelineTarget::RiscV32).name, "riscv32-imc");
}

TEST(TargetDescription, JSON) {
  llvm::json::Value value = targetsToJSON();
  const llvm::json::Array *targets =
      value.getAsObject() ? value.getAsObject()->getArray("targets") : nullptr;
  ASSERT_NE(targets, nullptr);
  ASSERT_EQ(targets->size(), allTargets().size());
  for (auto [printed, target] : llvm::zip_equal(*targets, allTargets())) {
    const llvm::json::Object *object = printed.getAsObject();
    ASSERT_NE(object, nullptr);
    EXPECT_EQ(object->getString("name"), target.name);
    EXPECT_EQ(object->getString("triple"), llvm::StringRef(target.triple));
    EXPECT_EQ(object->getString("pipeline_target"),
              llvm::StringRef(stringifyEnum(target.pipelineTarget)));
    EXPECT_EQ(object->getInteger("arena_alignment"), target.arenaAlignment);
    ASSERT_NE(object->getObject("capabilities"), nullptr);
    EXPECT_EQ(object->getObject("capabilities")->getBoolean("mve"),
              target.mve);
    ASSERT_NE(object->getArray("cflags"), nullptr);
    EXPECT_EQ(object->getArray("cflags")->size(), target.cFlags.size());
    // null, not "", for a target without a board.
    if (target.hasBoard())
      EXPECT_EQ(object->getString("qemu_machine"), target.qemuMachine);
    else
      EXPECT_EQ(object->get("qemu_machine")->kind(),
                llvm::json::Value::Null);
  }
}

} // namespace
