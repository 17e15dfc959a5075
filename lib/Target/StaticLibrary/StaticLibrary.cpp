//===- StaticLibrary.cpp - Object file, C header and report of a network ===//
//
// See Serenity/Target/StaticLibrary/StaticLibrary.h.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Target/StaticLibrary/StaticLibrary.h"
#include "Serenity/Target/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::serenity;

NetworkOperand::NetworkOperand(MemRefType type, DictionaryAttr attrs)
    : type(type) {
  auto quant = attrs ? attrs.getAs<DictionaryAttr>("serenity.quantization")
                     : DictionaryAttr();
  if (!quant)
    return;
  if (auto value = quant.getAs<FloatAttr>("scale"))
    scale = value.getValueAsDouble();
  if (auto value = quant.getAs<IntegerAttr>("zero_point"))
    zeroPoint = value.getInt();
  if (auto value = quant.getAs<BoolAttr>("unsigned"))
    isUnsigned = value.getValue() && type.getElementType().isInteger(8);
}

std::string NetworkOperand::cType() const {
  return isUnsigned ? "uint8_t" : cTypeName(type.getElementType());
}

int64_t NetworkOperand::bytes() const {
  return type.getNumElements() *
         static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
}

std::string mlir::serenity::cTypeName(Type element) {
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

bool mlir::serenity::isCIdentifier(StringRef text) {
  if (text.empty() || llvm::isDigit(text.front()))
    return false;
  return llvm::all_of(text,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

bool mlir::serenity::isMathLibrarySymbol(StringRef symbol) {
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

FailureOr<NetworkInterface>
mlir::serenity::readNetworkInterface(func::FuncOp function, unsigned numInputs,
                                     bool inArena, int64_t arenaAlignment,
                                     std::string &error) {
  const std::string name = function.getSymName().str();
  auto fail = [&](const Twine &message) {
    error = message.str();
    return failure();
  };
  auto arenaAttr = function->getAttrOfType<IntegerAttr>("serenity.arena_bytes");
  if (!arenaAttr || function.getNumArguments() < 1 + numInputs)
    return fail("the pipeline did not give @" + name + " an arena argument");
  NetworkInterface network;
  network.name = name;
  network.arenaBytes = arenaAttr.getInt();
  network.arenaAlignment = arenaAlignment;
  // State kept between runs (serenity-persistent-state): NAME_state and
  // NAME_reset in the object.
  if (auto bytes =
          function->getAttrOfType<IntegerAttr>("serenity.persistent_bytes"))
    network.stateBytes = bytes.getInt();
  auto offsets =
      function->getAttrOfType<DenseI64ArrayAttr>("serenity.io_offsets");
  for (unsigned i = 1, e = function.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<MemRefType>(function.getArgumentTypes()[i]);
    if (!type || !type.hasStaticShape() ||
        cTypeName(type.getElementType()).empty())
      return fail("argument " + Twine(i) + " of @" + name +
                  " is not a static memref of a C element type");
    NetworkOperand operand(type, function.getArgAttrDict(i));
    if (inArena) {
      if (!offsets || static_cast<int64_t>(i) >= offsets.size() ||
          offsets[i] < 0)
        return fail("argument " + Twine(i) + " of @" + name +
                    " has no offset in the arena (serenity.io_offsets)");
      operand.offset = offsets[i];
    }
    (i <= numInputs ? network.inputs : network.outputs).push_back(operand);
  }
  if (network.outputs.empty())
    return fail("@" + name + " has no outputs");
  return network;
}

FailureOr<ObjectFacts>
mlir::serenity::readObjectFacts(llvm::MemoryBufferRef buffer,
                                std::string &error) {
  auto object = llvm::object::ObjectFile::createObjectFile(buffer);
  if (!object) {
    error = "cannot read " + buffer.getBufferIdentifier().str() + ": " +
            llvm::toString(object.takeError());
    return failure();
  }
  ObjectFacts facts;
  const bool elf = isa<llvm::object::ELFObjectFileBase>(**object);
  for (const llvm::object::SectionRef &section : (*object)->sections()) {
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
  for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<StringRef> symbolName = symbol.getName();
    if (!flags || !symbolName) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(symbolName.takeError());
      error = "cannot read the symbols of " +
              buffer.getBufferIdentifier().str();
      return failure();
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) &&
        !symbolName->empty())
      symbols.push_back(symbolName->str());
  }
  llvm::sort(symbols);
  symbols.erase(llvm::unique(symbols), symbols.end());
  return facts;
}

namespace {

/// The usage example at the top of the header: the arena declared with the
/// alignment macro, the inputs filled, NAME_run called, the outputs read,
/// for the I/O placement the header was generated for.
std::string usageExample(const NetworkInterface &network) {
  const bool inArena = network.inArena();
  ArrayRef<NetworkOperand> inputs = network.inputs, outputs = network.outputs;
  const std::string &name = network.name;
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

} // namespace

std::string mlir::serenity::emitCHeader(const NetworkInterface &network,
                                        ArrayRef<std::string> externalSymbols) {
  const std::string &name = network.name;
  ArrayRef<NetworkOperand> inputs = network.inputs, outputs = network.outputs;
  const int64_t arenaBytes = network.arenaBytes,
                alignment = network.arenaAlignment,
                stateBytes = network.stateBytes;
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string upper = StringRef(name).upper();
  const bool inArena = network.inArena();
  os << "/* " << name << ".h: generated by serenity-compile from " << network.source
     << " for " << network.target << ".\n\n"
     << usageExample(network) << "*/\n"
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
  auto describe = [&](StringRef kind, ArrayRef<NetworkOperand> operands) {
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
  auto parameters = [&](const NetworkOperand &operand) {
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
  for (const NetworkOperand &operand : llvm::concat<const NetworkOperand>(inputs, outputs))
    os << ", " << parameters(operand);
  os << ");\n\n";
  if (inArena) {
    os << "/* Inputs and outputs live in the arena (io=arena): write each "
          "input at\n   its offset, call "
       << name << "_run, read the outputs at theirs. */\n";
    auto accessor = [&](StringRef kind, ArrayRef<NetworkOperand> operands) {
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

llvm::json::Object
mlir::serenity::describeOperand(const NetworkOperand &operand) {
  llvm::json::Array shape;
  for (int64_t dim : operand.type.getShape())
    shape.push_back(dim);
  llvm::json::Object object{{"shape", std::move(shape)},
                            {"type", operand.cType()},
                            {"bytes", operand.bytes()}};
  if (operand.offset >= 0)
    object["arena_offset"] = operand.offset;
  if (operand.scale)
    object["scale"] = *operand.scale;
  if (operand.zeroPoint)
    object["zero_point"] = *operand.zeroPoint;
  return object;
}

llvm::json::Value mlir::serenity::attributeToJSON(Attribute attr) {
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
      object[entry.getName().getValue()] = attributeToJSON(entry.getValue());
    return object;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

LogicalResult mlir::serenity::emitObjectFile(
    llvm::Module &module, const ::serenity::TargetDescription &spec,
    llvm::raw_pwrite_stream &os, std::string &error, TimingScope &timer) {
  auto fail = [&](const Twine &message) {
    error = message.str();
    return failure();
  };
  llvm::Triple triple(spec.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return fail("no LLVM target for " + spec.triple + ": " + error);
  llvm::TargetOptions options;
  if (spec.floatABI == ::serenity::FloatABI::Hard)
    options.FloatABIType = llvm::FloatABI::Hard;
  else if (spec.floatABI == ::serenity::FloatABI::Soft)
    options.FloatABIType = llvm::FloatABI::Soft;
  // A Cortex-M program is linked at fixed addresses (no loader).
  std::optional<llvm::Reloc::Model> relocation =
      ::serenity::isMicrocontroller(spec.pipelineTarget) ? llvm::Reloc::Static
                                                 : llvm::Reloc::PIC_;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, spec.cpu, spec.features, options, relocation, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return fail("cannot create a target machine for " + spec.triple);
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

  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return fail("the target cannot emit object files");
  {
    TimingScope stage = timer.nest("code generation");
    codegen.run(module);
  }
  return success();
}

