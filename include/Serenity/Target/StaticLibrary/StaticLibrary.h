//===- StaticLibrary.h - Object file, C header and report of a network -*- C++ -*-===//
//
// What serenity-compile writes for a compiled network, as a library (the
// role of IREE's StaticLibraryGenerator): the object file (LLVM's O2
// pipeline and code generator for a target of the target table), the facts
// read back from it (undefined symbols, flash and RAM by section kind), the
// C header (the arena size and alignment, the inputs' and outputs' shapes,
// types, quantization and arena offsets, NAME_run over MLIR's memref calling
// convention) and the pieces of the JSON report. The driver that runs the
// pipeline and writes the files is Serenity/Compiler/Compile.h.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TARGET_STATICLIBRARY_STATICLIBRARY_H
#define SERENITY_TARGET_STATICLIBRARY_STATICLIBRARY_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class Module;
class raw_pwrite_stream;
} // namespace llvm

namespace serenity {
struct TargetDescription;
} // namespace serenity

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace serenity {

/// One input or output of a compiled network, as its caller sees it.
struct NetworkOperand {
  MemRefType type;
  /// From the argument's `serenity.quantization` attribute
  /// (real = scale * (q - zero_point)).
  std::optional<double> scale;
  std::optional<int64_t> zeroPoint;
  /// Offset in the arena when inputs and outputs live there (io=arena),
  /// else -1.
  int64_t offset = -1;
  /// A uint8 model input or output (`unsigned = true` in its quantization):
  /// its bytes, held in an i8 memref, are uint8 values for the caller.
  bool isUnsigned = false;

  NetworkOperand(MemRefType type, DictionaryAttr attrs);
  /// The C type of its elements for the caller ("int8_t", "float", ...).
  std::string cType() const;
  /// Its size in bytes.
  int64_t bytes() const;
};

/// The interface of a compiled network: what its header and report say.
struct NetworkInterface {
  /// C name (NAME_run, NAME.h), the model it came from, the target's name.
  std::string name, source, target;
  int64_t arenaBytes = 0, arenaAlignment = 1;
  /// Bytes of state kept between runs (NAME_state), 0 when none.
  int64_t stateBytes = 0;
  SmallVector<NetworkOperand> inputs, outputs;

  /// Whether the inputs and outputs live in the arena (io=arena).
  bool inArena() const { return !inputs.empty() && inputs.front().offset >= 0; }
};

/// The interface of `function` as the memref-level serenity-pipeline left it
/// (arena=argument): argument 0 the arena, then `numInputs` inputs, then the
/// outputs; the arena size from `serenity.arena_bytes`, the state from
/// `serenity.persistent_bytes`, offsets from `serenity.io_offsets` when
/// `inArena`. `error` says what is missing on failure.
FailureOr<NetworkInterface> readNetworkInterface(func::FuncOp function,
                                                 unsigned numInputs,
                                                 bool inArena,
                                                 int64_t arenaAlignment,
                                                 std::string &error);

/// The C element type of `element` ("float", "int8_t", ...), "" when C has
/// none.
std::string cTypeName(Type element);

/// Whether `text` is a C identifier.
bool isCIdentifier(StringRef text);

/// Whether `symbol` is a function of the C math library (libm): the float,
/// double and long double variants of <math.h>'s functions.
bool isMathLibrarySymbol(StringRef symbol);

/// What an object file holds that the user pays for or links against: its
/// undefined symbols (sorted, unique) and the bytes of its allocated
/// sections by kind (flash = text + rodata + data, whose initial values are
/// stored in flash; RAM outside the arena = data + bss).
struct ObjectFacts {
  SmallVector<std::string> undefined;
  uint64_t text = 0, rodata = 0, data = 0, bss = 0;
  uint64_t flash() const { return text + rodata + data; }
};

/// The facts of an object file (ELF: only the sections the target loads,
/// SHF_ALLOC); `error` on failure.
FailureOr<ObjectFacts> readObjectFacts(llvm::MemoryBufferRef object,
                                       std::string &error);

/// The C header of a network: a usage example, the arena size and
/// alignment, the state, each input's and output's shape, type,
/// quantization and arena offset, the external functions the object calls
/// (and whether to link -lm), the function under MLIR's memref calling
/// convention and NAME_run, inside an extern "C" block.
std::string emitCHeader(const NetworkInterface &network,
                        ArrayRef<std::string> externalSymbols);

/// The JSON report's entry of an input or output: shape, C type, bytes,
/// arena offset and quantization.
llvm::json::Object describeOperand(const NetworkOperand &operand);

/// An attribute as JSON: integers, floats, strings, bools and dictionaries
/// as themselves, anything else as its printed text.
llvm::json::Value attributeToJSON(Attribute attr);

/// LLVM's O2 pipeline and code generation of `module` for `target` into
/// `os` as an object file (static relocation on a microcontroller, PIC on
/// the host). The stages are timed under `timer`.
LogicalResult emitObjectFile(llvm::Module &module,
                             const ::serenity::TargetDescription &target,
                             llvm::raw_pwrite_stream &os, std::string &error,
                             TimingScope &timer);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_TARGET_STATICLIBRARY_STATICLIBRARY_H
