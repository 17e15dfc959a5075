//===- TargetDescription.cpp - The targets Serenity compiles for ----------===//
//
// The table of Serenity/Target/TargetDescription.h.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Target/TargetDescription.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/TargetParser/Host.h"

#include <vector>

using namespace serenity;
using llvm::StringRef;

namespace {

// arm-none-eabi-gcc's names of each core and its FPU, with the hard-float
// ABI of the objects serenity-compile writes.
const StringRef kCortexM4CFlags[] = {"-mcpu=cortex-m4", "-mthumb",
                                     "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"};
const StringRef kCortexM7CFlags[] = {"-mcpu=cortex-m7", "-mthumb",
                                     "-mfloat-abi=hard", "-mfpu=fpv5-d16"};
const StringRef kCortexM33CFlags[] = {"-mcpu=cortex-m33", "-mthumb",
                                      "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"};
const StringRef kCortexM55CFlags[] = {"-mcpu=cortex-m55", "-mthumb",
                                      "-mfloat-abi=hard"};
const StringRef kCortexM0PlusCFlags[] = {"-mcpu=cortex-m0plus", "-mthumb",
                                         "-mfloat-abi=soft"};
// riscv64-unknown-elf-gcc's names of the RISC-V ISAs, with the soft-float
// ABI (ilp32) LLVM uses for them.
const StringRef kRiscV32IMCCFlags[] = {"-march=rv32imc", "-mabi=ilp32"};
const StringRef kRiscV32IMACCFlags[] = {"-march=rv32imac", "-mabi=ilp32"};

std::vector<TargetDescription> makeTargets() {
  std::vector<TargetDescription> targets;
  // The machine the compiler runs on (x86-64 or AArch64: divide, unaligned
  // loads and an FPU, none of the M-profile extensions). Its arena keeps a
  // cache line, which the vectorized loops benefit from.
  TargetDescription host;
  host.name = "host";
  host.triple = llvm::sys::getDefaultTargetTriple();
  host.cpu = llvm::sys::getHostCPUName().str();
  host.hardwareDivide = host.unalignedAccess = host.fpu = true;
  host.pipelineTarget = PipelineTarget::Host;
  host.arenaAlignment = 64;
  targets.push_back(host);

  // The Cortex-M cores, hard-float with the FPU each has (what clang
  // -mcpu=... -mfloat-abi=hard picks: FPv4-SP, FPv5-D16, FPv5 + MVE). They
  // load at most a word at a time from the arena (LDR of four int8 for
  // SMLAD, MVE's VLDRW; LDRD and VLDR.64 need no more than word alignment
  // either): an arena alignment of 4.
  TargetDescription cortexM;
  cortexM.floatABI = FloatABI::Hard;
  cortexM.dsp = cortexM.hardwareDivide = cortexM.unalignedAccess =
      cortexM.fpu = true;
  cortexM.pipelineTarget = PipelineTarget::CortexM;
  cortexM.arenaAlignment = 4;
  cortexM.cCompiler = "arm-none-eabi-gcc";
  cortexM.qemuSystem = "qemu-system-arm";

  // One Cortex-M core of the table: the family's facts, its own code
  // generation settings and board.
  auto core = [&](StringRef name, StringRef triple, StringRef features,
                  llvm::ArrayRef<StringRef> cFlags, StringRef machine) {
    TargetDescription target = cortexM;
    target.name = name;
    target.triple = triple.str();
    target.cpu = name.str();
    target.features = features;
    target.cFlags = cFlags;
    target.qemuMachine = machine;
    return target;
  };
  targets.push_back(core("cortex-m4", "thumbv7em-unknown-none-eabihf",
                         "+dsp,+hwdiv,+vfp4d16sp,+fp16,-fp64,-d32,-neon",
                         kCortexM4CFlags, "mps2-an386"));
  targets.push_back(core("cortex-m7", "thumbv7em-unknown-none-eabihf",
                         "+dsp,+hwdiv,+fp-armv8d16,+fp64,+fp16,-d32,-neon",
                         kCortexM7CFlags, "mps2-an500"));
  // ARMv8-M Mainline with the DSP extension and a single-precision FPU
  // (nRF5340, STM32U5, RP2350), run Secure on mps2-an505's SSE-200.
  targets.push_back(core("cortex-m33", "thumbv8m.main-unknown-none-eabihf",
                         "+dsp,+hwdiv,+fp-armv8d16sp,+fp16,-fp64,-d32,-neon",
                         kCortexM33CFlags, "mps2-an505"));
  TargetDescription m55 =
      core("cortex-m55", "thumbv8.1m.main-unknown-none-eabihf",
           "+dsp,+hwdiv,+mve,+mve.fp,+fp-armv8d16,+fp64,+fullfp16,+lob,+ras,"
           "-d32,-neon",
           kCortexM55CFlags, "mps3-an547");
  m55.mve = true;
  m55.pipelineTarget = PipelineTarget::CortexMHelium;
  targets.push_back(m55);

  // ARMv6-M (RP2040, STM32G0/L0, SAMD21): Thumb-1, no DSP, no divide, no
  // FPU (float in library calls), and word accesses must be aligned. Its
  // board is the Cortex-M3 of mps2-an385, where the start-up turns on
  // UNALIGN_TRP so that an unaligned access faults as on the M0+.
  TargetDescription m0plus;
  m0plus.name = "cortex-m0plus";
  m0plus.triple = "thumbv6m-unknown-none-eabi";
  m0plus.cpu = "cortex-m0plus";
  m0plus.floatABI = FloatABI::Soft;
  m0plus.pipelineTarget = PipelineTarget::CortexMBaseline;
  m0plus.arenaAlignment = 4;
  m0plus.cCompiler = "arm-none-eabi-gcc";
  m0plus.cFlags = kCortexM0PlusCFlags;
  m0plus.qemuMachine = "mps2-an385";
  m0plus.qemuSystem = "qemu-system-arm";
  targets.push_back(m0plus);

  // 32-bit RISC-V with the M (multiply, divide) and C (compressed) extensions
  // (GD32VF103, CH32V, and with A the ESP32-C3/C6): no FPU (float in library
  // calls), no packed SIMD, and word accesses aligned (the ISA allows
  // misaligned ones, but many cores trap and emulate them). Their board is
  // QEMU's virt machine with a core limited to the target's extensions.
  TargetDescription riscv;
  riscv.triple = "riscv32-unknown-unknown-elf";
  riscv.cpu = "generic-rv32";
  riscv.floatABI = FloatABI::Soft;
  riscv.hardwareDivide = true;
  riscv.pipelineTarget = PipelineTarget::RiscV32;
  riscv.arenaAlignment = 4;
  riscv.cCompiler = "riscv64-unknown-elf-gcc";
  riscv.qemuMachine = "virt";
  riscv.qemuSystem = "qemu-system-riscv32";
  // One RISC-V core: its extensions for LLVM, GCC and QEMU's -cpu.
  auto rv32 = [&](StringRef name, StringRef features,
                  llvm::ArrayRef<StringRef> cFlags, StringRef qemuCPU) {
    TargetDescription target = riscv;
    target.name = name;
    target.features = features;
    target.cFlags = cFlags;
    target.qemuCPU = qemuCPU;
    return target;
  };
  targets.push_back(rv32("riscv32-imc", "+m,+c,+relax", kRiscV32IMCCFlags,
                         "rv32,a=off,f=off,d=off"));
  targets.push_back(rv32("riscv32-imac", "+m,+a,+c,+relax", kRiscV32IMACCFlags,
                         "rv32,f=off,d=off"));
  return targets;
}

} // namespace

llvm::ArrayRef<TargetDescription> serenity::allTargets() {
  static const std::vector<TargetDescription> targets = makeTargets();
  return targets;
}

const TargetDescription *serenity::lookupTarget(StringRef name) {
  for (const TargetDescription &target : allTargets())
    if (target.name == name)
      return &target;
  return nullptr;
}

const TargetDescription &serenity::primaryTarget(PipelineTarget family) {
  for (const TargetDescription &target : allTargets())
    if (target.pipelineTarget == family)
      return target;
  llvm_unreachable("every pipeline target has a target in the table");
}

std::string
serenity::targetNames(bool (*filter)(const TargetDescription &)) {
  llvm::SmallVector<StringRef> names;
  for (const TargetDescription &target : allTargets())
    if (!filter || filter(target))
      names.push_back(target.name);
  std::string text;
  for (auto [index, name] : llvm::enumerate(names)) {
    if (index != 0)
      text += index + 1 == names.size() ? " or " : ", ";
    text += name.str();
  }
  return text;
}

llvm::json::Value serenity::targetsToJSON() {
  llvm::json::Array targets;
  auto optional = [](StringRef text) {
    return text.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(text);
  };
  for (const TargetDescription &target : allTargets()) {
    llvm::json::Array cFlags;
    for (StringRef flag : target.cFlags)
      cFlags.push_back(flag);
    targets.push_back(llvm::json::Object{
        {"name", target.name},
        {"triple", target.triple},
        {"cpu", target.cpu},
        {"features", target.features},
        {"float_abi", stringifyEnum(target.floatABI)},
        {"capabilities",
         llvm::json::Object{{"dsp", target.dsp},
                            {"mve", target.mve},
                            {"hardware_divide", target.hardwareDivide},
                            {"unaligned_access", target.unalignedAccess},
                            {"fpu", target.fpu}}},
        {"pipeline_target", stringifyEnum(target.pipelineTarget)},
        {"arena_alignment", target.arenaAlignment},
        {"cc", optional(target.cCompiler)},
        {"cflags", std::move(cFlags)},
        {"qemu_machine", optional(target.qemuMachine)},
        {"qemu_system", optional(target.qemuSystem)},
        {"qemu_cpu", optional(target.qemuCPU)}});
  }
  return llvm::json::Object{{"targets", std::move(targets)}};
}
