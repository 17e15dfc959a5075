# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SERENITY"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.serenity_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(
    ("%mlir_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_runner_utils" + ".so")))
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils" + ".so")))
config.substitutions.append(("%serenity_src", config.serenity_src_root))
config.substitutions.append(("%serenity_obj", config.serenity_obj_root))
# ../shared next to the checkout (present in CI, absent in a user's clone).
shared = os.path.normpath(os.path.join(config.serenity_src_root, "..", "shared"))
if os.path.isdir(shared):
    config.available_features.add("shared")
config.substitutions.append(("%shared", shared))

# Debian's interpreter sees the python3-* packages (numpy, networkx, ...);
# python/ is importable so RUN lines can call `%python -m serenity gen ...`.
config.substitutions.append(("%python", "/usr/bin/python3"))
# MLIR's and LLVM's headers and LLVM's C++ compiler, for the tests that
# compile against Serenity's headers.
config.substitutions.append(("%llvm_include", os.path.join(config.llvm_tools_dir, "..", "include")))
config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
config.environment["PYTHONPATH"] = os.path.join(config.serenity_src_root, "python")
config.substitutions.append(("%integration", os.path.join(config.serenity_src_root, "test", "Integration")))

# /dev/full (Linux): a file whose every write fails, for the tests of
# unwritable outputs.
if os.path.exists("/dev/full"):
    config.available_features.add("dev-full")

import shutil
if shutil.which("arm-none-eabi-gcc") and shutil.which("qemu-system-arm"):
    config.available_features.add("cortex-m")
if shutil.which("riscv64-unknown-elf-gcc") and shutil.which("qemu-system-riscv32"):
    config.available_features.add("riscv")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [config.serenity_tools_dir, config.llvm_tools_dir]
tools = ["serenity-opt", "serenity-alloc", "serenity-lsp-server", "serenity-compile", "serenity-translate", "mlir-opt", "mlir-runner", "mlir-translate"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.serenity_tools_dir, append_path=True)
