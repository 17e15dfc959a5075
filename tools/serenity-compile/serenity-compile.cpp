//===- serenity-compile.cpp - Model to object file, C header and report ---===//
//
// serenity-compile MODEL.mlir|MODEL.tflite --target host|cortex-m4|cortex-m7|
//     cortex-m55 [--name NAME] [--pipeline "serenity-pipeline options"] -o DIR
// writes DIR/NAME.o (the network, no malloc, arena supplied by the caller),
// DIR/NAME.h (a plain C entry point NAME_run, the arena size and alignment,
// input and output shapes, types and quantization, the functions the link
// must provide) and DIR/NAME.json (the schedule, the arena plan, the memory
// numbers, the external symbols and link flags). A .tflite model goes
// through the C++ importer in process (lib/Target/TFLite, with --float its
// float32 graph).
//
// The pipeline runs in two parts: serenity-pipeline with lower-to-llvm=false
// (arena=argument: the caller owns every byte; io from --io, by default the
// inputs and outputs in the arena, the least RAM), whose memref-level
// function gives the header its signature, then the LLVM lowering; LLVM's
// O2 pipeline and code generator make the object.
//
// --print-targets prints the target table (Serenity/Target/
// TargetDescription.h) as JSON and exits: the --target choices, and what
// python/serenity/deploy.py builds its QEMU boards from.
//
// --timing prints the wall time of each stage (and of each pass in the two
// MLIR pass pipelines) to stderr when the tool ends, as mlir-opt's
// --mlir-timing does. The clock is only read, never consulted: the outputs
// are the same with and without it.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/Pipelines/Frontier.h"
#include "Serenity/Pipelines/Pipelines.h"
#include "Serenity/Target/TFLite/ImportTFLite.h"
#include "Serenity/Target/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>
#include <string>


using namespace mlir;
namespace cl = llvm::cl;

/// The tool's own options: --help lists these alone (the LLVM libraries
/// linked in register some 370 lines of theirs; --help-hidden lists all).
static cl::OptionCategory compileCategory("serenity-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<MODEL.mlir|MODEL.tflite>"),
                                      cl::cat(compileCategory));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Output directory"),
                                      cl::value_desc("DIR"),
                                      cl::cat(compileCategory));
/// The --target choices, from the table: "host, cortex-m4, ... or ...".
static const std::string targetChoices = ::serenity::targetNames();
static cl::opt<std::string> targetName("target", cl::init("host"),
                                       cl::desc(targetChoices),
                                       cl::cat(compileCategory));
/// Answered while the command line is parsed, as --version is: it needs no
/// model and no -o.
static cl::opt<bool> printTargets(
    "print-targets", cl::cat(compileCategory),
    cl::desc("Print the targets (triple, CPU, features, capabilities, "
             "pipeline family, arena alignment, C flags, QEMU machine) as "
             "JSON and exit"),
    cl::callback([](const bool &print) {
      if (!print)
        return;
      llvm::outs() << llvm::formatv("{0:2}", ::serenity::targetsToJSON())
                   << "\n";
      llvm::outs().flush();
      std::exit(0);
    }));
static cl::opt<std::string>
    name("name", cl::init("net"),
         cl::desc("C name of the network: NAME_run, NAME.o, NAME.h"),
         cl::cat(compileCategory));
static cl::opt<std::string>
    functionName("function", cl::init("main"),
                 cl::desc("Function of the module to compile (default main)"),
                 cl::cat(compileCategory));
static cl::opt<bool> floatImport(
    "float",
    cl::desc("A .tflite model is imported as its dequantized float32 graph "
             "(import-tflite --float): for float models with quantized "
             "weights (hybrid), or to compare with the int8 one"),
    cl::cat(compileCategory));
/// The default is the placement with the least RAM, on every target: the
/// host object mostly tests the program that runs on the microcontroller,
/// so it gets the same header interface and the same arena plan (and,
/// measured on the MLPerf Tiny models, the same speed: docs/Deploy.md).
static cl::opt<std::string> ioMode(
    "io", cl::init("arena"), cl::cat(compileCategory),
    cl::desc("arena (default, least RAM): inputs and outputs live in the "
             "arena at NAME_INPUTi_OFFSET / NAME_OUTPUTi_OFFSET (as in "
             "TFLite Micro), their bytes reused once read, NAME_run(arena); "
             "caller: NAME_run(inputs..., outputs..., arena), the caller "
             "holds inputs and outputs outside the arena, where their bytes "
             "are not shared with the intermediates. The same default for "
             "host and Cortex-M, so that one program builds for both"));
static cl::opt<std::string> pipelineOptions(
    "pipeline", cl::init(""),
    cl::desc("Extra serenity-pipeline options, e.g. \"schedule=greedy\" "
             "(arena, io, target and lower-to-llvm are set by the tool)"),
    cl::cat(compileCategory));

static cl::opt<long long> ramBudget(
    "ram-budget", cl::init(-1), cl::cat(compileCategory),
    cl::desc("RAM budget in bytes (arena with inputs and outputs + state + "
             "stack): compile the configuration with the fewest instructions "
             "that fits this and --flash-budget, among those measured on "
             "QEMU by `python3 -m serenity frontier MODEL --target T` "
             "(read from --frontier)"));
static cl::opt<long long> flashBudget(
    "flash-budget", cl::init(-1), cl::cat(compileCategory),
    cl::desc("Flash budget in bytes (.text + .rodata + .data of the network "
             "object), see --ram-budget"));
static cl::opt<unsigned> flashPerRamByte(
    "flash-per-ram-byte", cl::init(4), cl::cat(compileCategory),
    cl::desc("Microcontroller targets: fused tiling is kept when its extra "
             "flash is at most this many bytes per byte of RAM it saves, else "
             "the network is built untiled (default 4: Cortex-M parts carry "
             "4-8x more flash than RAM; 1 never trades more flash than RAM, 0 "
             "keeps tiling only when it costs no flash)"));
static cl::opt<bool> timing(
    "timing", cl::cat(compileCategory),
    cl::desc("Print the wall time of each stage (import, serenity-pipeline "
             "with each of its passes, LLVM lowering, LLVM O2, code "
             "generation, object reading, header and report) to stderr"));
static cl::opt<std::string> frontierFile(
    "frontier", cl::init(""), cl::cat(compileCategory),
    cl::desc("Measurements of `python3 -m serenity frontier` (default "
             "~/.cache/serenity/frontier.json)"));

namespace {

/// Code generation settings of a target: its entry in the target table.
using TargetSpec = ::serenity::TargetDescription;

int fail(const Twine &message) {
  llvm::errs() << "serenity-compile: error: " << message << "\n";
  return 1;
}

/// The module from a .mlir file, or from a .tflite file through the C++
/// importer (lib/Target/TFLite), in process; the imported module is also
/// written to `workDir` as NAME.import.mlir for the user to read.
OwningOpRef<ModuleOp> loadModel(MLIRContext &context, StringRef workDir) {
  std::string path = inputFile;
  if (StringRef(path).ends_with(".tflite")) {
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file) {
      fail("cannot read " + path + ": " + file.getError().message());
      return {};
    }
    mlir::serenity::tflite::ImportOptions options;
    options.floatMode = floatImport;
    // Locations name the file, not its path: they reach the report
    // (allocation.register_buffers), which must not depend on where the
    // model or -o is.
    llvm::ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
        (*file)->getBufferSize());
    // Diagnostics as `FILE:0:0: error: ...`, like the parser's.
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    OwningOpRef<ModuleOp> module = mlir::serenity::tflite::importTFLite(
        bytes, llvm::sys::path::filename(path), &context, options);
    if (!module) {
      fail("importing " + path + " failed");
      return {};
    }
    SmallString<256> imported(workDir);
    llvm::sys::path::append(imported, name + ".import.mlir");
    std::error_code ec;
    llvm::raw_fd_ostream os(imported, ec);
    if (ec) {
      fail("cannot write " + imported + ": " + ec.message());
      return {};
    }
    module->print(os);
    return module;
  }
  return parseSourceFile<ModuleOp>(path, &context);
}

/// One memref argument of the compiled function.
struct Operand {
  MemRefType type;
  /// From its `serenity.quantization` attribute (real = scale * (q - zp)).
  std::optional<double> scale;
  std::optional<int64_t> zeroPoint;
  /// Offset in the arena with --io arena, else -1.
  int64_t offset = -1;

  /// A uint8 model input or output (`unsigned = true`): its bytes, held in
  /// an i8 memref, are uint8 values for the caller.
  bool isUnsigned = false;

  Operand(MemRefType type, DictionaryAttr attrs) : type(type) {
    if (auto quant = attrs
                         ? attrs.getAs<DictionaryAttr>("serenity.quantization")
                         : DictionaryAttr()) {
      if (auto value = quant.getAs<FloatAttr>("scale"))
        scale = value.getValueAsDouble();
      if (auto value = quant.getAs<IntegerAttr>("zero_point"))
        zeroPoint = value.getInt();
      if (auto value = quant.getAs<BoolAttr>("unsigned"))
        isUnsigned = value.getValue() && type.getElementType().isInteger(8);
    }
  }

  /// The C type of its elements for the caller.
  std::string cType() const;
};

std::string cType(Type element) {
  if (element.isF32())
    return "float";
  if (element.isF64())
    return "double";
  if (auto integer = dyn_cast<IntegerType>(element))
    if (llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth()))
      return (integer.isUnsigned() ? "uint" : "int") +
             std::to_string(integer.getWidth()) + "_t";
  return "";
}

std::string Operand::cType() const {
  return isUnsigned ? "uint8_t" : ::cType(type.getElementType());
}

/// Whether `symbol` is a function of the C math library (libm): the float,
/// double and long double variants of <math.h>'s functions.
bool isMathLibrarySymbol(StringRef symbol) {
  static const llvm::StringSet<> functions = {
      "acos",    "acosh",  "asin",      "asinh",     "atan",   "atan2",
      "atanh",   "cbrt",   "ceil",      "copysign",  "cos",    "cosh",
      "erf",     "erfc",   "exp",       "exp10",     "exp2",   "expm1",
      "fabs",    "fdim",   "floor",     "fma",       "fmax",   "fmin",
      "fmod",    "frexp",  "hypot",     "ldexp",     "lgamma", "llrint",
      "llround", "log",    "log10",     "log1p",     "log2",   "logb",
      "lrint",   "lround", "modf",      "nearbyint", "pow",    "remainder",
      "rint",    "round",  "roundeven", "sin",       "sincos", "sinh",
      "sqrt",    "tan",    "tanh",      "tgamma",    "trunc"};
  if (functions.contains(symbol))
    return true;
  return (symbol.ends_with("f") || symbol.ends_with("l")) &&
         functions.contains(symbol.drop_back());
}

/// The symbols the object file at `path` leaves undefined, sorted: what the
/// link has to provide.
/// What the object file holds that the user pays for or links against: its
/// undefined symbols and the bytes of its allocated sections, by kind
/// (flash = text + rodata + data, whose initial values are stored in flash;
/// RAM outside the arena = data + bss).
struct ObjectFacts {
  SmallVector<std::string> undefined;
  uint64_t text = 0, rodata = 0, data = 0, bss = 0;
  uint64_t flash() const { return text + rodata + data; }
};

FailureOr<ObjectFacts> readObject(StringRef path) {
  auto object = llvm::object::ObjectFile::createObjectFile(path);
  if (!object)
    return fail("cannot read " + path + ": " +
                llvm::toString(object.takeError())),
           failure();
  ObjectFacts facts;
  const bool elf = isa<llvm::object::ELFObjectFileBase>(object->getBinary());
  for (const llvm::object::SectionRef &section :
       object->getBinary()->sections()) {
    uint64_t flags =
        elf ? llvm::object::ELFSectionRef(section).getFlags() : 0;
    // Only the sections loaded on the target (ELF SHF_ALLOC): not the
    // symbol tables, relocations or notes.
    if (elf && !(flags & llvm::ELF::SHF_ALLOC))
      continue;
    uint64_t size = section.getSize();
    if (section.isText())
      facts.text += size;
    else if (section.isBSS())
      facts.bss += size;
    else if (flags & llvm::ELF::SHF_WRITE)
      facts.data += size;
    else
      facts.rodata += size;
  }
  SmallVector<std::string> &symbols = facts.undefined;
  for (const llvm::object::SymbolRef &symbol : object->getBinary()->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<StringRef> symbolName = symbol.getName();
    if (!flags || !symbolName) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(symbolName.takeError());
      return fail("cannot read the symbols of " + path), failure();
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) &&
        !symbolName->empty())
      symbols.push_back(symbolName->str());
  }
  llvm::sort(symbols);
  symbols.erase(llvm::unique(symbols), symbols.end());
  return facts;
}

/// The usage example at the top of the header: the arena declared with the
/// alignment macro, the inputs filled, NAME_run called, the outputs read,
/// for the I/O placement the header was generated for.
std::string usageExample(bool inArena, ArrayRef<Operand> inputs,
                         ArrayRef<Operand> outputs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string upper = StringRef(name).upper();
  auto macro = [&](StringRef kind, size_t index, StringRef field) {
    return upper + "_" + StringRef(kind).upper() + std::to_string(index) +
           "_" + field.str();
  };
  os << "   Usage, from C or C++ (link " << name << ".o into the program):\n\n"
     << "     #include \"" << name << ".h\"\n\n"
     << "     // Aligned as the network needs (C11: _Alignas(" << upper
     << "_ARENA_ALIGNMENT),\n     // C++11: alignas(" << upper
     << "_ARENA_ALIGNMENT)).\n"
     << "     static uint8_t arena[" << upper << "_ARENA_BYTES]\n"
     << "         __attribute__((aligned(" << upper << "_ARENA_ALIGNMENT)));\n";
  std::string call = name + "_run(";
  if (inArena) {
    os << "\n     // Inputs and outputs live in the arena: write the inputs "
          "before every run.\n";
    for (auto [index, operand] : llvm::enumerate(inputs))
      os << "     " << operand.cType() << " *input"
         << index << " = " << name << "_input" << index << "(arena);  // "
         << macro("input", index, "ELEMENTS") << " values\n";
    call += "arena";
  } else {
    for (auto [index, operand] : llvm::enumerate(inputs)) {
      os << "     static " << operand.cType() << " input"
         << index << "[" << macro("input", index, "ELEMENTS") << "];\n";
      call += "input" + std::to_string(index) + ", ";
    }
    for (auto [index, operand] : llvm::enumerate(outputs)) {
      os << "     static " << operand.cType()
         << " output" << index << "[" << macro("output", index, "ELEMENTS")
         << "];\n";
      call += "output" + std::to_string(index) + ", ";
    }
    call += "arena";
    os << "\n";
  }
  os << "     // ... fill the inputs";
  if (!inputs.empty() && inputs.front().scale)
    os << " (q = round(real / " << macro("input", 0, "SCALE") << ") + "
       << macro("input", 0, "ZERO_POINT") << ")";
  os << " ...\n"
     << "     if (" << call << ") != 0)\n"
     << "       return -1;  // the arena is not aligned\n";
  if (inArena)
    for (auto [index, operand] : llvm::enumerate(outputs))
      os << "     const " << operand.cType()
         << " *output" << index << " = " << name << "_output" << index
         << "(arena);  // " << macro("output", index, "ELEMENTS")
         << " values\n";
  os << "     // ... read the outputs";
  if (outputs.front().scale)
    os << " (real = " << macro("output", 0, "SCALE") << " * (q - "
       << macro("output", 0, "ZERO_POINT") << "))";
  os << " ...\n";
  return text;
}

/// The header: constants, the MLIR-ABI declaration and NAME_run, inside an
/// extern "C" block so that C++ programs link against the C object.
std::string header(StringRef source, StringRef target, int64_t arenaBytes,
                   int64_t alignment, int64_t stateBytes,
                   ArrayRef<Operand> inputs, ArrayRef<Operand> outputs,
                   ArrayRef<std::string> externalSymbols) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string upper = StringRef(name).upper();
  bool inArena = !inputs.empty() && inputs.front().offset >= 0;
  os << "/* " << name << ".h: generated by serenity-compile from " << source
     << " for " << target << ".\n\n"
     << usageExample(inArena, inputs, outputs) << "*/\n"
     << "#ifndef " << upper << "_H\n#define " << upper << "_H\n\n"
     << "#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  SmallVector<StringRef> math;
  for (const std::string &symbol : externalSymbols)
    if (isMathLibrarySymbol(symbol))
      math.push_back(symbol);
  os << "/* External functions the object calls: "
     << (externalSymbols.empty() ? std::string("none")
                                 : llvm::join(externalSymbols, ", "))
     << ".\n   "
     << (math.empty() ? std::string("No math library: link without -lm.")
                      : "Link with -lm (the C math library: " +
                            llvm::join(math, ", ") + ").")
     << " */\n\n"
     << "/* The arena: every intermediate tensor lives in it (no malloc). "
        "The caller\n   supplies it, aligned to "
     << upper << "_ARENA_ALIGNMENT bytes. */\n"
     << "#define " << upper << "_ARENA_BYTES " << arenaBytes << "\n"
     << "#define " << upper << "_ARENA_ALIGNMENT " << alignment << "\n\n";
  if (stateBytes > 0)
    os << "/* State kept from one run to the next (a sequence model's "
          "variables, e.g.\n   SVDF or LSTM state), outside the arena: "
       << name << "_state, in the object.\n   It starts in its initial "
          "state; "
       << name << "_reset() restores it (TFLite Micro's\n   "
          "ResetVariableTensors), e.g. before a new, unrelated sequence. */\n"
       << "#define " << upper << "_STATE_BYTES " << stateBytes << "\n"
       << "extern uint8_t " << name << "_state[" << upper
       << "_STATE_BYTES];\n"
       << "void " << name << "_reset(void);\n\n";
  auto describe = [&](StringRef kind, ArrayRef<Operand> operands) {
    os << "#define " << upper << "_NUM_" << StringRef(kind).upper() << "S "
       << operands.size() << "\n";
    for (auto [index, operand] : llvm::enumerate(operands)) {
      std::string prefix =
          upper + "_" + StringRef(kind).upper() + std::to_string(index);
      os << "/* " << kind << " " << index << ": "
         << operand.cType();
      for (int64_t dim : operand.type.getShape())
        os << "[" << dim << "]";
      if (operand.scale || operand.zeroPoint)
        os << ", real = scale * (q - zero_point)";
      os << " */\n#define " << prefix << "_ELEMENTS "
         << operand.type.getNumElements() << "\n#define " << prefix << "_RANK "
         << operand.type.getRank() << "\n";
      if (operand.offset >= 0)
        os << "#define " << prefix << "_OFFSET " << operand.offset
           << " /* in the arena */\n";
      if (operand.scale)
        os << "#define " << prefix << "_SCALE "
           << llvm::formatv("{0:e9}", *operand.scale) << "\n";
      if (operand.zeroPoint)
        os << "#define " << prefix << "_ZERO_POINT " << *operand.zeroPoint
           << "\n";
    }
    os << "\n";
  };
  describe("input", inputs);
  describe("output", outputs);

  // The compiled function under MLIR's memref calling convention: each
  // memref is (allocated, aligned, offset, sizes..., strides...).
  auto parameters = [&](const Operand &operand) {
    std::string element = operand.cType();
    std::string params = element + " *, " + element + " *, intptr_t";
    for (int64_t i = 0, e = 2 * operand.type.getRank(); i < e; ++i)
      params += ", intptr_t";
    return params;
  };
  auto arguments = [&](StringRef pointer, MemRefType type) {
    std::string args = (pointer + ", " + pointer + ", 0").str();
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (int64_t i = type.getRank() - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * type.getShape()[i + 1];
    for (int64_t dim : type.getShape())
      args += ", " + std::to_string(dim);
    for (int64_t stride : strides)
      args += ", " + std::to_string(stride);
    return args;
  };
  // (The caller checked there is an output.)
  MemRefType arenaType = MemRefType::get(
      {arenaBytes}, IntegerType::get(outputs.front().type.getContext(), 8));
  os << "/* The network under MLIR's memref calling convention (each memref "
        "is\n   allocated pointer, aligned pointer, offset, sizes, strides); "
        "call "
     << name << "_run. */\n"
     << "void " << name << "(int8_t *, int8_t *, intptr_t, intptr_t, intptr_t";
  for (const Operand &operand : llvm::concat<const Operand>(inputs, outputs))
    os << ", " << parameters(operand);
  os << ");\n\n";
  if (inArena) {
    os << "/* Inputs and outputs live in the arena (io=arena): write each "
          "input at\n   its offset, call "
       << name << "_run, read the outputs at theirs. */\n";
    auto accessor = [&](StringRef kind, ArrayRef<Operand> operands) {
      for (auto [index, operand] : llvm::enumerate(operands)) {
        std::string element = operand.cType();
        os << "static inline " << element << " *" << name << "_" << kind
           << index << "(void *arena) {\n  return (" << element
           << " *)((uint8_t *)arena + " << upper << "_"
           << StringRef(kind).upper() << index << "_OFFSET);\n}\n";
      }
    };
    accessor("input", inputs);
    accessor("output", outputs);
    os << "\n/* Runs the network on the inputs in the arena. Returns 0, or "
          "-1 when the\n   arena is not aligned. */\nstatic inline int "
       << name << "_run(void *arena) {\n";
  } else {
    os << "/* Runs the network: inputs are read, outputs written, the arena "
          "used as\n   scratch. Returns 0, or -1 when the arena is not "
          "aligned. */\nstatic inline int "
       << name << "_run(";
    for (auto [index, operand] : llvm::enumerate(inputs))
      os << "const " << operand.cType() << " *input"
         << index << ", ";
    for (auto [index, operand] : llvm::enumerate(outputs))
      os << operand.cType() << " *output" << index << ", ";
    os << "void *arena) {\n";
  }
  os << "  if ((uintptr_t)arena % " << upper << "_ARENA_ALIGNMENT != 0)\n"
     << "    return -1;\n"
     << "  " << name << "(" << arguments("(int8_t *)arena", arenaType);
  for (auto [index, operand] : llvm::enumerate(inputs)) {
    std::string pointer =
        inArena ? name + "_input" + std::to_string(index) + "(arena)"
                : "(" + operand.cType() + " *)input" +
                      std::to_string(index);
    os << ",\n      " << arguments(pointer, operand.type);
  }
  for (auto [index, operand] : llvm::enumerate(outputs)) {
    std::string pointer =
        inArena ? name + "_output" + std::to_string(index) + "(arena)"
                : "output" + std::to_string(index);
    os << ",\n      " << arguments(pointer, operand.type);
  }
  os << ");\n  return 0;\n}\n\n"
     << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n"
     << "#endif /* " << upper << "_H */\n";
  return text;
}

llvm::json::Object describeOperand(const Operand &operand) {
  llvm::json::Array shape;
  for (int64_t dim : operand.type.getShape())
    shape.push_back(dim);
  llvm::json::Object object{
      {"shape", std::move(shape)},
      {"type", operand.cType()},
      {"bytes",
       operand.type.getNumElements() *
           static_cast<int64_t>(operand.type.getElementTypeBitWidth() / 8)}};
  if (operand.offset >= 0)
    object["arena_offset"] = operand.offset;
  if (operand.scale)
    object["scale"] = *operand.scale;
  if (operand.zeroPoint)
    object["zero_point"] = *operand.zeroPoint;
  return object;
}

/// Attribute values as JSON (integers, floats, strings, bools, dictionaries).
llvm::json::Value toJSON(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getType().isInteger(1)
               ? llvm::json::Value(integer.getInt() != 0)
               : llvm::json::Value(integer.getInt());
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto floating = dyn_cast<FloatAttr>(attr))
    return floating.getValueAsDouble();
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.getValue().str();
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict)
      object[entry.getName().getValue()] = toJSON(entry.getValue());
    return object;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

LogicalResult writeFile(StringRef path, StringRef contents) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return fail("cannot write " + path + ": " + error.message()), failure();
  os << contents;
  os.close();
  if (os.has_error())
    return fail("cannot write " + path), failure();
  return success();
}

/// LLVM's O2 pipeline and code generation of `module` into an object file.
LogicalResult emitObject(llvm::Module &module, const TargetSpec &spec,
                         StringRef path, TimingScope &timer) {
  std::string error;
  llvm::Triple triple(spec.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return fail("no LLVM target for " + spec.triple + ": " + error), failure();
  llvm::TargetOptions options;
  if (spec.floatABI == ::serenity::FloatABI::Hard)
    options.FloatABIType = llvm::FloatABI::Hard;
  // A Cortex-M program is linked at fixed addresses (no loader).
  std::optional<llvm::Reloc::Model> relocation =
      ::serenity::isCortexM(spec.pipelineTarget) ? llvm::Reloc::Static
                                                 : llvm::Reloc::PIC_;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, spec.cpu, spec.features, options, relocation, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return fail("cannot create a target machine for " + spec.triple), failure();
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  for (llvm::Function &function : module)
    if (!function.isDeclaration()) {
      function.addFnAttr("target-cpu", spec.cpu);
      if (!spec.features.empty())
        function.addFnAttr("target-features", spec.features);
    }

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager optimize =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  {
    TimingScope stage = timer.nest("LLVM O2");
    optimize.run(module, modules);
  }

  std::error_code fileError;
  llvm::ToolOutputFile out(path, fileError, llvm::sys::fs::OF_None);
  if (fileError)
    return fail("cannot write " + path + ": " + fileError.message()), failure();
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return fail("the target cannot emit object files"), failure();
  {
    TimingScope stage = timer.nest("code generation");
    codegen.run(module);
  }
  out.keep();
  return success();
}

bool isCIdentifier(StringRef text) {
  if (text.empty() || llvm::isDigit(text.front()))
    return false;
  return llvm::all_of(text,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

} // namespace

namespace {

using mlir::serenity::FrontierPoint;

/// What a build of the model gave (for the budget check).
struct BuildFacts {
  int64_t arena = 0, state = 0, flash = 0;
  /// Whether serenity-tile tiled the network (serenity.tiled).
  bool tiled = false;
  /// What the build wrote: "(arena N bytes, flash N bytes: ...)".
  std::string wrote;
};

/// The configurations of `model` on `target` known to the frontier cache for
/// this executable: the measured points, and the candidate points of its
/// last exploration (predicted ones; a measured configuration counts once,
/// measured). A failure message when there are none.
FailureOr<SmallVector<FrontierPoint>>
readFrontier(StringRef model, StringRef target, StringRef executable,
             StringRef cacheFile, std::string &error) {
  auto bytes = llvm::MemoryBuffer::getFile(model);
  if (!bytes) {
    error = "cannot read " + model.str();
    return failure();
  }
  llvm::SHA256 hash;
  hash.update(llvm::arrayRefFromStringRef((*bytes)->getBuffer()));
  std::array<uint8_t, 32> digest = hash.final();
  std::string modelKey = llvm::toHex(digest, /*LowerCase=*/true);
  SmallString<256> real;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::real_path(executable, real) ||
      llvm::sys::fs::status(real, status)) {
    error = "cannot find this executable (" + executable.str() + ")";
    return failure();
  }
  std::string compilerKey = (real + ":" + Twine(status.getSize()) + ":" +
                             Twine(static_cast<int64_t>(llvm::sys::toTimeT(
                                 status.getLastModificationTime()))))
                                .str();
  std::string rerun = "run `python3 -m serenity frontier " + model.str() +
                      " --target " + target.str() + "` first";
  auto text = llvm::MemoryBuffer::getFile(cacheFile);
  if (!text) {
    error = "no measurements in " + cacheFile.str() + ": " + rerun;
    return failure();
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*text)->getBuffer());
  const llvm::json::Object *points = nullptr, *candidates = nullptr;
  if (parsed)
    if (const llvm::json::Object *root = parsed->getAsObject()) {
      points = root->getObject("points");
      candidates = root->getObject("candidates");
    }
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  if (!points) {
    error = cacheFile.str() + " is not a frontier cache: " + rerun;
    return failure();
  }
  std::string prefix = modelKey + "|" + target.str() + "|";
  std::string suffix = "|" + compilerKey;
  SmallVector<FrontierPoint> known;
  llvm::StringSet<> measuredOptions;
  for (const auto &[key, value] : *points) {
    StringRef k = key;
    const llvm::json::Object *p = value.getAsObject();
    if (!p || !k.starts_with(prefix) || !k.ends_with(suffix))
      continue;
    FrontierPoint point;
    point.options = k.drop_front(prefix.size()).drop_back(suffix.size()).str();
    if (mlir::serenity::readFrontierPoint(*p, point)) {
      point.predicted = false;
      measuredOptions.insert(point.options);
      known.push_back(point);
    }
  }
  if (candidates)
    if (const llvm::json::Array *list =
            candidates->getArray(prefix + compilerKey))
      for (const llvm::json::Value &value : *list) {
        const llvm::json::Object *p = value.getAsObject();
        FrontierPoint point;
        std::optional<StringRef> options = p ? p->getString("options") : std::nullopt;
        if (!options || !mlir::serenity::readFrontierPoint(*p, point))
          continue;
        point.options = options->str();
        if (!measuredOptions.contains(point.options))
          known.push_back(point);
      }
  if (known.empty()) {
    error = "no configuration of " + model.str() + " for " + target.str() +
            " measured by this serenity-compile in " + cacheFile.str() +
            ": " + rerun;
    return failure();
  }
  return known;
}

/// Builds the model with the global options (pipelineOptions as set) into
/// outputDir: the object, the header and the report. 0 on success (facts
/// filled), the exit status otherwise.
int build(const TargetSpec &targetSpec, mlir::serenity::IOPlacement ioPlacement,
          BuildFacts &built, TimingScope &timer, StringRef dir) {
  const TargetSpec *spec = &targetSpec;
  const std::optional<mlir::serenity::IOPlacement> io = ioPlacement;
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return fail("cannot create " + dir + ": " + error.message());

  // The pipeline is built from typed pass constructors: only the dialects
  // are registered.
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::serenity::registerSerenityDialect(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);

  TimingScope stage = timer.nest("import");
  OwningOpRef<ModuleOp> module = loadModel(context, dir);
  stage.stop();
  if (!module)
    return 1;
  auto function = module->lookupSymbol<func::FuncOp>(functionName);
  if (!function || function.isExternal())
    return fail("the model has no function @" + functionName +
                " with a body (--function selects another)");
  // Other functions go away: the object holds the network alone.
  for (func::FuncOp other : llvm::to_vector(module->getOps<func::FuncOp>()))
    if (other != function && SymbolTable::symbolKnownUseEmpty(other, *module))
      other.erase();
  if (failed(SymbolTable::replaceAllSymbolUses(
          function, StringAttr::get(&context, name), *module)))
    return fail("cannot rename @" + functionName);
  function.setSymName(name);
  const unsigned numInputs = function.getNumArguments();

  // Memref level: static arena passed by the caller, inputs and outputs
  // held by the caller.
  auto options =
      mlir::serenity::SerenityPipelineOptions::createFromString(pipelineOptions);
  if (!options)
    return fail("bad --pipeline options '" + pipelineOptions + "'");
  for (StringRef fixed :
       {"arena", "io", "target", "lower-to-llvm", "functions"})
    if (StringRef(pipelineOptions).contains((fixed + "=").str()))
      return fail("--pipeline may not set " + fixed +
                  " (serenity-compile sets arena=argument, io from --io and "
                  "the target)");
  SmallString<256> allocReport(dir);
  llvm::sys::path::append(allocReport, name + ".alloc.json");
  const mlir::serenity::PipelineTarget target = spec->pipelineTarget;
  options->arena = mlir::serenity::ArenaStorage::Argument;
  options->io = *io;
  options->target = target;
  options->lowerToLLVM = false;
  options->allocReport = std::string(allocReport);
  options->functions = {std::string(name)};
  auto report = [](const Twine &message) { return fail(message), failure(); };
  {
    PassManager pm(&context);
    stage = timer.nest("serenity-pipeline (graph passes, lowering to memref)");
    if (timing)
      pm.enableTiming(stage);
    if (failed(mlir::serenity::buildSerenityPipeline(pm, *options, report)) ||
        failed(pm.run(*module)))
      return 1;
    stage.stop();
  }
  function = module->lookupSymbol<func::FuncOp>(name);
  built.tiled = function->hasAttr("serenity.tiled");
  auto tiledAttr = function->getAttrOfType<DictionaryAttr>("serenity.tiled");
  auto arenaAttr = function->getAttrOfType<IntegerAttr>("serenity.arena_bytes");
  // State kept between runs (serenity-persistent-state): NAME_state and
  // NAME_reset in the object.
  int64_t stateBytes = 0;
  if (auto bytes =
          function->getAttrOfType<IntegerAttr>("serenity.persistent_bytes"))
    stateBytes = bytes.getInt();
  if (!arenaAttr || function.getNumArguments() < 1 + numInputs)
    return fail("the pipeline did not give @" + name + " an arena argument");
  SmallVector<Operand> inputs, outputs;
  auto offsets =
      function->getAttrOfType<DenseI64ArrayAttr>("serenity.io_offsets");
  for (unsigned i = 1, e = function.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<MemRefType>(function.getArgumentTypes()[i]);
    if (!type || !type.hasStaticShape() || cType(type.getElementType()).empty())
      return fail("argument " + Twine(i) + " of @" + name +
                  " is not a static memref of a C element type");
    Operand operand(type, function.getArgAttrDict(i));
    if (*io == mlir::serenity::IOPlacement::Arena) {
      if (!offsets || static_cast<int64_t>(i) >= offsets.size() ||
          offsets[i] < 0)
        return fail("argument " + Twine(i) + " of @" + name +
                    " has no offset in the arena (serenity.io_offsets)");
      operand.offset = offsets[i];
    }
    (i <= numInputs ? inputs : outputs).push_back(operand);
  }
  if (outputs.empty())
    return fail("@" + name + " has no outputs");

  // The reports, then the LLVM lowering and the object.
  llvm::json::Object json{
      {"name", name},
      {"source", inputFile},
      {"target", targetName},
      {"arena_bytes", arenaAttr.getInt()},
      {"arena_alignment", mlir::serenity::getArenaAlignment(*options)},
      {"state_bytes", stateBytes},
      {"io", ioMode}};
  llvm::json::Array inputArray, outputArray;
  for (const Operand &operand : inputs)
    inputArray.push_back(describeOperand(operand));
  for (const Operand &operand : outputs)
    outputArray.push_back(describeOperand(operand));
  json["inputs"] = std::move(inputArray);
  json["outputs"] = std::move(outputArray);
  // The MACs fused tiling computes and the untiled network's.
  if (tiledAttr)
    json["tiling"] = toJSON(tiledAttr);
  for (StringRef key : {"serenity.schedule", "serenity.arena_lower_bound"})
    if (Attribute attr = function->getAttr(key))
      json[key.drop_front(strlen("serenity."))] = toJSON(attr);
  if (auto buffer = llvm::MemoryBuffer::getFile(allocReport)) {
    if (auto parsed = llvm::json::parse((*buffer)->getBuffer()))
      json["allocation"] = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
  }
  llvm::sys::fs::remove(allocReport);

  SmallString<256> headerPath(dir), jsonPath(dir), objectPath(dir);
  llvm::sys::path::append(headerPath, name + ".h");
  llvm::sys::path::append(jsonPath, name + ".json");
  llvm::sys::path::append(objectPath, name + ".o");
  {
    PassManager pm(&context);
    stage = timer.nest("LLVM dialect lowering");
    if (timing)
      pm.enableTiming(stage);
    if (failed(mlir::serenity::buildSerenityLLVMLowering(
            pm, target, report, options->outlineMinOps)) ||
        failed(pm.run(*module)))
      return 1;
    stage.stop();
  }
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::LLVMContext llvmContext;
  stage = timer.nest("translation to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, name);
  stage.stop();
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  if (failed(emitObject(*llvmModule, *spec, objectPath, timer)))
    return 1;

  // What the link must provide, read from the object: the code generator
  // turns intrinsics such as llvm.exp.f32 into library calls (expf), which
  // the LLVM module does not declare.
  stage = timer.nest("object reading");
  FailureOr<ObjectFacts> facts = readObject(objectPath);
  stage.stop();
  if (failed(facts))
    return 1;
  stage = timer.nest("header and report");
  const SmallVector<std::string> *externals = &facts->undefined;
  json["flash"] = llvm::json::Object{{"bytes", facts->flash()},
                                     {"text", facts->text},
                                     {"rodata", facts->rodata},
                                     {"data", facts->data}};
  json["static_ram_bytes"] = facts->data + facts->bss;
  llvm::json::Array externalArray, linkFlags;
  for (const std::string &symbol : *externals)
    externalArray.push_back(symbol);
  if (llvm::any_of(*externals, isMathLibrarySymbol))
    linkFlags.push_back("-lm");
  json["external_symbols"] = std::move(externalArray);
  json["link_flags"] = std::move(linkFlags);

  if (failed(writeFile(headerPath,
                       header(inputFile, targetName, arenaAttr.getInt(),
                              mlir::serenity::getArenaAlignment(*options),
                              stateBytes, inputs, outputs, *externals))))
    return 1;
  std::string jsonText;
  llvm::raw_string_ostream jsonStream(jsonText);
  jsonStream << llvm::formatv("{0:2}", llvm::json::Value(std::move(json)))
             << "\n";
  if (failed(writeFile(jsonPath, jsonText)))
    return 1;
  built.wrote = llvm::formatv(
      "(arena {0} bytes, {1}flash {2} bytes: text {3}, rodata {4})",
      arenaAttr.getInt(),
      stateBytes ? "state " + std::to_string(stateBytes) + " bytes, "
                 : std::string(),
      facts->flash(), facts->text, facts->rodata);
  built.arena = arenaAttr.getInt();
  built.state = stateBytes;
  built.flash = static_cast<int64_t>(facts->flash());
  return 0;
}

} // namespace

/// Prints what a build wrote into the output directory.
void announce(const BuildFacts &facts) {
  SmallString<256> base(outputDir);
  llvm::sys::path::append(base, name);
  llvm::outs() << "serenity-compile: wrote " << base << ".o, " << base
               << ".h, " << base << ".json " << facts.wrote << "\n";
  llvm::outs().flush();
}

/// Whether the user chose the tiling (any tile option in --pipeline):
/// then the build is what they asked for.
bool tilingAsked() {
  return StringRef(pipelineOptions).contains("tile");
}

/// The default build, with the code that fused tiling costs weighed against
/// the RAM it saves: on a microcontroller, when serenity-tile tiled the
/// network, the network is
/// also built untiled (tile=none, in a directory beside), and the untiled
/// build is kept when the tiled one needs more than --flash-per-ram-byte
/// (4) bytes of flash per byte of RAM (arena and state) it saves.
/// `--pipeline tile=...` keeps what it asks for. The report records the
/// trade ("tiling": ram_saved, flash_cost, flash_per_ram_byte, kept).
int buildWithinTilingTrade(const TargetSpec &spec,
                           mlir::serenity::IOPlacement io, TimingScope &timer,
                           BuildFacts &kept) {
  BuildFacts tiled;
  if (int status = build(spec, io, tiled, timer, outputDir))
    return status;
  if (!tiled.tiled || tilingAsked() ||
      !::serenity::isCortexM(spec.pipelineTarget)) {
    announce(tiled);
    kept = tiled;
    return 0;
  }
  SmallString<256> beside(outputDir);
  llvm::sys::path::append(beside, "." + name + ".untiled");
  const std::string asked = pipelineOptions;
  pipelineOptions = (Twine(asked) + (asked.empty() ? "" : " ") + "tile=none").str();
  BuildFacts untiled;
  const int status = build(spec, io, untiled, timer, beside);
  pipelineOptions = asked;
  auto cleanUp = [&] { llvm::sys::fs::remove_directories(beside); };
  if (status) {
    cleanUp();
    return status;
  }
  const int64_t ramSaved =
      (untiled.arena + untiled.state) - (tiled.arena + tiled.state);
  const int64_t flashCost = tiled.flash - untiled.flash;
  const bool keep = flashCost <= static_cast<int64_t>(flashPerRamByte) * ramSaved;
  if (!keep) {
    // The untiled build's files replace the tiled one's.
    std::error_code error;
    for (llvm::sys::fs::directory_iterator it(beside, error), end;
         !error && it != end; it.increment(error)) {
      SmallString<256> target(outputDir);
      llvm::sys::path::append(target, llvm::sys::path::filename(it->path()));
      if (std::error_code moved = llvm::sys::fs::rename(it->path(), target)) {
        cleanUp();
        return fail("cannot move " + it->path() + " to " + target + ": " +
                    moved.message());
      }
    }
  }
  cleanUp();
  // The trade, in the report of the build kept.
  SmallString<256> jsonPath(outputDir);
  llvm::sys::path::append(jsonPath, name + ".json");
  if (auto buffer = llvm::MemoryBuffer::getFile(jsonPath)) {
    if (auto parsed = llvm::json::parse((*buffer)->getBuffer())) {
      if (llvm::json::Object *object = parsed->getAsObject()) {
        llvm::json::Object trade{
            {"ram_saved", ramSaved},
            {"flash_cost", flashCost},
            {"flash_per_ram_byte", static_cast<int64_t>(flashPerRamByte)},
            {"kept", keep}};
        // The tiled build's MACs (the untiled build kept has none extra).
        if (keep)
          if (llvm::json::Object *macs = object->getObject("tiling"))
            for (auto &entry : *macs)
              trade[entry.first] = entry.second;
        (*object)["tiling"] = std::move(trade);
        std::string text;
        llvm::raw_string_ostream stream(text);
        stream << llvm::formatv("{0:2}", *parsed) << "\n";
        if (failed(writeFile(jsonPath, text)))
          return 1;
      }
    } else {
      llvm::consumeError(parsed.takeError());
    }
  }
  llvm::outs() << "serenity-compile: fused tiling saves " << ramSaved
               << " bytes of RAM for " << flashCost << " bytes of flash: "
               << (keep ? "kept"
                        : "built untiled (--pipeline tile=both keeps it)")
               << "\n";
  kept = keep ? tiled : untiled;
  announce(kept);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Hidden rather than cl::HideUnrelatedOptions' ReallyHidden: --help-hidden
  // still lists the LLVM options (e.g. -debug-only for a bug report).
  // (LLVM's own options sit in its general category, so the generic ones,
  // --help and --version, are kept by name.)
  for (auto &[key, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(option->Categories, &compileCategory) &&
        key != "help" && key != "version")
      option->setHiddenFlag(cl::Hidden);
  cl::ParseCommandLineOptions(
      argc, argv,
      "serenity-compile: a TOSA (.mlir) or TFLite (.tflite) model to an "
      "object file, a C header and a JSON report\n");
  const TargetSpec *spec = ::serenity::lookupTarget(targetName);
  if (!spec)
    return fail("unknown --target '" + targetName + "' (expected " +
                targetChoices + ")");
  const std::optional<mlir::serenity::IOPlacement> io =
      mlir::serenity::parseEnum<mlir::serenity::IOPlacement>(ioMode);
  if (!io)
    return fail("unknown --io '" + ioMode + "' (expected one of: " +
                mlir::serenity::enumChoices<mlir::serenity::IOPlacement>() +
                ")");
  if (floatImport && !StringRef(inputFile).ends_with(".tflite"))
    return fail("--float applies to .tflite models (a .mlir model is "
                "compiled with the types it has)");
  if (!isCIdentifier(name))
    return fail("--name '" + name + "' is not a C identifier");

  // Declared before the root scope: the scope stops first, then the manager
  // prints its report as it is destroyed, on every return below.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  TimingScope timer = timingManager.getRootScope();

  // --ram-budget / --flash-budget: the configuration (pipeline options) from
  // the frontier (python3 -m serenity frontier): the fastest measured or
  // predicted point within the budgets; a predicted one whose build breaks a
  // budget gives way to the next.
  const bool budgeted = ramBudget.getNumOccurrences() != 0 ||
                        flashBudget.getNumOccurrences() != 0;
  if (!budgeted) {
    BuildFacts facts;
    return buildWithinTilingTrade(*spec, *io, timer, facts);
  }
  if ((ramBudget.getNumOccurrences() && ramBudget <= 0) ||
      (flashBudget.getNumOccurrences() && flashBudget <= 0))
    return fail("--ram-budget and --flash-budget must be positive numbers "
                "of bytes");
  if (!spec->hasBoard())
    return fail("--ram-budget/--flash-budget need --target " +
                ::serenity::targetNames([](const TargetSpec &target) {
                  return target.hasBoard();
                }) +
                " (the configurations are measured on QEMU)");
  if (*io != mlir::serenity::IOPlacement::Arena)
    return fail("--ram-budget/--flash-budget count the inputs and outputs "
                "in the arena: use --io arena");
  if (!StringRef(pipelineOptions).trim().empty())
    return fail("--ram-budget/--flash-budget choose the pipeline options "
                "(tiling, widened filters); --pipeline cannot be combined "
                "with them");
  SmallString<256> cache(frontierFile);
  if (cache.empty()) {
    llvm::sys::path::home_directory(cache);
    llvm::sys::path::append(cache, ".cache", "serenity", "frontier.json");
  }
  std::string executable = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&fail));
  const int64_t ram = ramBudget.getNumOccurrences() ? ramBudget : -1;
  const int64_t flash = flashBudget.getNumOccurrences() ? flashBudget : -1;
  std::string error;
  TimingScope stage = timer.nest("frontier ranking");
  auto known = readFrontier(inputFile, targetName, executable, cache, error);
  if (failed(known))
    return fail(error);
  auto ranked = mlir::serenity::rankWithinBudgets(*known, ram, flash, error);
  if (failed(ranked))
    return fail(error);
  stage.stop();
  const size_t predicted = llvm::count_if(
      *known, [](const FrontierPoint &p) { return p.predicted; });
  constexpr size_t kMaxBuilds = 8;
  for (const auto &[index, p] : llvm::enumerate(*ranked)) {
    if (index == kMaxBuilds)
      break;
    pipelineOptions = p.options;
    // The defaults as the frontier measured them: with the tiling trade.
    BuildFacts facts;
    if (int status = buildWithinTilingTrade(*spec, *io, timer, facts))
      return status;
    // The RAM of this build: its arena and state, the stack measured (or,
    // predicted, the larger of the measured builds').
    const int64_t builtRam = facts.arena + facts.state + p.stack;
    llvm::outs() << "serenity-compile: budget: chose `"
                 << (p.options.empty() ? std::string("(defaults)") : p.options)
                 << "`, the fastest of " << known->size()
                 << " configurations (" << predicted
                 << " predicted from per-layer profiles) within the budgets: "
                 << (p.predicted ? "predicted" : "measured") << " RAM "
                 << p.ram << " bytes (arena " << p.arena << " + state "
                 << p.state << " + stack " << p.stack << "), flash " << p.flash
                 << " bytes, " << p.instructions
                 << " instructions; this build: arena " << facts.arena
                 << " bytes, flash " << facts.flash << " bytes\n";
    llvm::outs().flush();
    if (!p.predicted) {
      if (p.arena != facts.arena || p.flash != facts.flash)
        llvm::errs() << "serenity-compile: warning: this build differs from "
                        "the measurement; measure it again with `python3 -m "
                        "serenity frontier`\n";
      return 0;
    }
    if ((ram < 0 || builtRam <= ram) && (flash < 0 || facts.flash <= flash))
      return 0;
    llvm::errs() << "serenity-compile: note: the build breaks a budget (RAM "
                 << builtRam << ", flash " << facts.flash
                 << " bytes): trying the next configuration\n";
  }
  return fail("no configuration within the budgets built within them after " +
              Twine(std::min(kMaxBuilds, ranked->size())) +
              " builds: measure the model again with `python3 -m serenity "
              "frontier`");
}
