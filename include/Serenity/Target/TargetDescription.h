//===- TargetDescription.h - The targets Serenity compiles for --*- C++ -*-===//
//
// One table of the targets (host, cortex-m4, cortex-m7, cortex-m33,
// cortex-m55, cortex-m0plus, riscv32-imc, riscv32-imac): what
// LLVM's code generator needs (triple, CPU, features, float ABI), what the
// core can do (DSP, MVE/Helium, hardware divide, unaligned access, FPU),
// which pipeline family and arena alignment it uses, and the C flags and QEMU
// board its programs are built and measured with. serenity-compile
// (`--target`, `--print-targets`), serenity-pipeline (`target=`: alignment,
// kernels, the budgets' board) and, through `serenity-compile
// --print-targets`, python/serenity/deploy.py read it; a new core is one
// entry here.
//
// No MLIR: LLVM's ADT and JSON, and its host queries for the host's triple
// and CPU.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TARGET_TARGETDESCRIPTION_H
#define SERENITY_TARGET_TARGETDESCRIPTION_H

#include "Serenity/Support/EnumTable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace serenity {

/// The family serenity-pipeline's `target=` option names: the host (64-bit
/// index, vectorized loops) or a Cortex-M core (32-bit index) with the DSP
/// extension (M4, M7, M33), with Helium (M55, M85), or ARMv6-M (M0, M0+:
/// Thumb-1, no DSP, no divide, no FPU, aligned accesses only), or a 32-bit
/// RISC-V core with the M extension (rv32imc, rv32imac: ESP32-C3, GD32VF103,
/// CH32V; no FPU, no packed SIMD). Several targets share a family; the
/// pipeline, which knows only the family, reads the facts of its
/// primaryTarget.
enum class PipelineTarget {
  Host,
  CortexM,
  CortexMHelium,
  CortexMBaseline,
  RiscV32
};
SERENITY_ENUM_NAMES(PipelineTarget, {PipelineTarget::Host, "host"},
                    {PipelineTarget::CortexM, "cortex-m"},
                    {PipelineTarget::CortexMHelium, "cortex-m-helium"},
                    {PipelineTarget::CortexMBaseline, "cortex-m-baseline"},
                    {PipelineTarget::RiscV32, "riscv32"})

/// Whether `target` is a microcontroller (every family but the host: 32-bit
/// index, no vector lowering, static relocation, one program linked at fixed
/// addresses).
inline bool isMicrocontroller(PipelineTarget target) {
  return target != PipelineTarget::Host;
}

/// How floating-point arguments are passed and computed: the host's
/// default, in FPU registers (-mfloat-abi=hard), or in integer registers
/// through library calls on a core without an FPU (-mfloat-abi=soft).
enum class FloatABI { Default, Hard, Soft };
SERENITY_ENUM_NAMES(FloatABI, {FloatABI::Default, "default"},
                    {FloatABI::Hard, "hard"}, {FloatABI::Soft, "soft"})

/// One target of serenity-compile's `--target`.
struct TargetDescription {
  /// The name `--target` takes.
  llvm::StringRef name;
  /// LLVM's code generation settings (the host: the machine the compiler
  /// runs on, as LLVM detects it).
  std::string triple;
  std::string cpu;
  llvm::StringRef features;
  FloatABI floatABI = FloatABI::Default;

  /// What the core has: the DSP extension (SMLAD, SXTB16), MVE (Helium),
  /// hardware divide, unaligned word loads, a floating-point unit.
  bool dsp = false;
  bool mve = false;
  bool hardwareDivide = false;
  bool unalignedAccess = false;
  bool fpu = false;

  /// The serenity-pipeline family it compiles with.
  PipelineTarget pipelineTarget = PipelineTarget::Host;
  /// Arena buffer alignment in bytes when the pipeline's `alignment` is 0:
  /// what the loads of its kernels need.
  int64_t arenaAlignment = 0;

  /// The C compiler of code linked with its objects (arm-none-eabi-gcc,
  /// riscv64-unknown-elf-gcc; "" for the host's own compiler) and its flags:
  /// core, ISA and float ABI.
  llvm::StringRef cCompiler;
  llvm::ArrayRef<llvm::StringRef> cFlags;
  /// The QEMU machine its programs are measured on ("" for the host, which
  /// runs them itself), the QEMU system emulator that has it and the `-cpu`
  /// it runs ("" for the machine's own core). Its linker script is
  /// scripts/cortex-m/MACHINE.ld or scripts/riscv/MACHINE.ld. A board may
  /// run a larger core of the same ISA (cortex-m0plus on mps2-an385's
  /// Cortex-M3: Thumb-1 code runs there unchanged, so its instruction counts
  /// are the M0+'s).
  llvm::StringRef qemuMachine;
  llvm::StringRef qemuSystem;
  llvm::StringRef qemuCPU;

  bool hasBoard() const { return !qemuMachine.empty(); }
};

/// Every target, host first.
llvm::ArrayRef<TargetDescription> allTargets();

/// The target called `name`, or null.
const TargetDescription *lookupTarget(llvm::StringRef name);

/// The target that `family` stands for where only the family is known
/// (serenity-pipeline's `target=`): the first of the table in it (host,
/// cortex-m4, cortex-m55, cortex-m0plus, riscv32-imc). The targets of a
/// family agree on what the pipeline reads (arena alignment, DSP, MVE).
const TargetDescription &primaryTarget(PipelineTarget family);

/// The names of the targets `filter` accepts, for messages: "a, b or c".
std::string
targetNames(bool (*filter)(const TargetDescription &) = nullptr);

/// The table as `serenity-compile --print-targets` prints it:
///   {"targets": [{"name", "triple", "cpu", "features", "float_abi",
///     "capabilities": {"dsp", "mve", "hardware_divide", "unaligned_access",
///                      "fpu"},
///     "pipeline_target", "arena_alignment", "cc": string or null,
///     "cflags": [...], "qemu_machine": string or null,
///     "qemu_system": string or null, "qemu_cpu": string or null}, ...]}
llvm::json::Value targetsToJSON();

} // namespace serenity

#endif // SERENITY_TARGET_TARGETDESCRIPTION_H
