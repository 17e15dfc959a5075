"""Integer test models on a Cortex-M4 (QEMU mps2-an386) against TFLite Micro.

Every selected model of ``DIR/models`` is imported and becomes one function
``@mK`` of a single module, which ``serenity-pipeline{target=cortex-m}``
compiles (scripts/cortex-m/build-object.sh) into one object. A generated C
program holds TFLite Micro's reference inputs (``DIR/reference``) as arrays,
calls every function with each of them and prints the outputs over
semihosting; they must equal TFLite Micro's outputs bit for bit. The object's
undefined symbols are reported: integer models need no libm.
"""

import os
import re
import subprocess
import tempfile
from typing import List, Tuple

import numpy as np

from ..deploy import CORTEX_M, link_command, qemu_command
from .check import main_function, module_variables, rename_symbol
from .importer import import_model
from .opcheck import RefCase, compare_output, load_refs
from .schema import TFLiteError, load_file

C_TYPES = {"i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "f32": "float",
           "i1": "bool"}
LIBM = ("expf", "logf", "tanhf", "sqrtf", "powf", "floorf", "roundf", "ceilf", "exp", "log",
        "sqrt", "tanh", "floor", "round", "ceil", "fmodf", "sinf", "cosf")


def function_text(text: str, fname: str) -> str:
    """The imported module's @main, renamed @fname, without the module wrapper."""
    func = main_function(text, fname)
    # Persistent state: the module-level tosa.variable declarations come along, renamed per function.
    decls = [d for d, _, _, _ in module_variables(text)]
    for _, sym, _, _ in module_variables(text):
        func = rename_symbol(func, sym, f"{fname}_{sym}")
        decls = [rename_symbol(d, sym, f"{fname}_{sym}") for d in decls]
    return "".join(f"  {d}\n" for d in decls) + func


def memref_params(module: str, fname: str) -> List[str]:
    m = re.search(r"func\.func (?:public )?@" + re.escape(fname) + r"\((.*?)\)\s*(?:->|attributes|\{)",
                  module, re.S)
    if not m:
        raise TFLiteError(f"no function @{fname} in the lowered module")
    return re.findall(r"%[\w#]+: (memref<[^>]*>)", m.group(1))


def shape_elem(memref_type: str) -> Tuple[List[int], str]:
    parts = re.match(r"memref<(.*)>", memref_type).group(1).split("x")
    return [int(d) for d in parts[:-1]], parts[-1]


def expanded(name: str, memref_type: str) -> List[str]:
    """C arguments of one memref in the expanded LLVM calling convention."""
    dims, _ = shape_elem(memref_type)
    strides, acc = [], 1
    for d in reversed(dims):
        strides.insert(0, acc)
        acc *= d
    return [name, name, "0"] + [str(d) for d in dims] + [str(s) for s in strides]


def prototype(ctype: str, memref_type: str) -> List[str]:
    dims, _ = shape_elem(memref_type)
    return [f"{ctype} *", f"{ctype} *", "int32_t"] + ["int32_t"] * (2 * len(dims))


def c_array(values: np.ndarray, elem: str) -> str:
    flat = np.asarray(values).reshape(-1)
    if elem == "f32":
        return ", ".join(f"{float(v)!r}f" if np.isfinite(v) else "0.0f" for v in flat)
    return ", ".join(str(int(v)) for v in flat)


def is_integer_model(path: str) -> bool:
    """No float32 tensor anywhere (what runs without an FPU library)."""
    return all(t.type != 0 for t in load_file(path).subgraphs[0].tensors)


def check_cortex_m(directory: str, names: List[str], seeds_per_model: int = 2,
                   options: str = "", serenity_opt: str = None, keep: str = None):
    """Returns (results [(name, seed, output, elements, different, max)], undefined symbols)."""
    items = []
    for name in names:
        model = load_file(os.path.join(directory, "models", name + ".tflite"))
        refs = load_refs(os.path.join(directory, "reference"), name)
        # A full-range seed and, where there is one, a seed near the input zero point.
        near = [r for r in refs if r.seed >= 10]
        items.append((name, model, (refs[:1] + near[:1] + refs[1:])[:seeds_per_model]))
    return check_models_cortex_m(items, options, serenity_opt, keep)


def check_models_cortex_m(items, options: str = "", serenity_opt: str = None, keep: str = None):
    """items: [(name, Model, [RefCase])]; the same as check_cortex_m."""
    funcs, cases, names = [], [], []
    for k, (name, model, refs) in enumerate(items):
        text = import_model(model)
        funcs.append(function_text(text, f"m{k}"))
        cases.append(refs)
        names.append(name)
    module = "module {\n" + "\n".join(funcs) + "\n}\n"
    work = keep or tempfile.mkdtemp(prefix="serenity-opcheck-")
    os.makedirs(work, exist_ok=True)
    net = os.path.join(work, "ops.mlir")
    with open(net, "w") as f:
        f.write(module)
    env = dict(os.environ)
    if serenity_opt:
        env["SERENITY_OPT"] = serenity_opt
    opt = env.get("SERENITY_OPT") or os.path.join(
        os.environ.get("SERENITY_BUILD_DIR", os.path.join(CORTEX_M, "..", "..", "build")),
        "bin", "serenity-opt")
    memref_ir = subprocess.run([opt, net, f"--serenity-pipeline=lower-to-llvm=0 target=cortex-m {options}"],
                               capture_output=True, text=True)
    if memref_ir.returncode != 0:
        raise TFLiteError("serenity-pipeline failed:\n" + memref_ir.stderr[-4000:])
    obj = os.path.join(work, "ops.o")
    build = subprocess.run([os.path.join(CORTEX_M, "build-object.sh"), "-p", options, net, obj],
                           capture_output=True, text=True, env=dict(env, SERENITY_OPT=opt))
    if build.returncode != 0:
        raise TFLiteError("build-object.sh failed:\n" + build.stderr[-4000:])
    nm = subprocess.run(["arm-none-eabi-nm", "-u", obj], capture_output=True, text=True)
    undefined = [l.split()[-1] for l in nm.stdout.splitlines() if l.strip()]

    lines = ["#include <stdbool.h>", "#include <stdint.h>", "#include <stdio.h>", ""]
    resets = re.findall(r"func\.func @(\w+_reset)\(\)", memref_ir.stdout)
    lines += [f"void {r}(void);" for r in resets]
    main = ["int main(void) {"]
    for k, (name, refs) in enumerate(zip(names, cases)):
        params = memref_params(memref_ir.stdout, f"m{k}")
        n_in, n_out = len(refs[0].inputs), len(refs[0].outputs)
        arena = None
        if len(params) == n_in + n_out + 1:
            arena, params = params[0], params[1:]
        elif len(params) != n_in + n_out:
            raise TFLiteError(f"{name}: unexpected signature {params}")
        proto, fixed = [], []
        if arena is not None:
            size = shape_elem(arena)[0][0]
            lines.append(f"static int8_t arena{k}[{size}] __attribute__((aligned(64)));")
            proto += prototype("int8_t", arena)
            fixed += expanded(f"arena{k}", arena)
        for j, ty in enumerate(params):
            proto += prototype(C_TYPES[shape_elem(ty)[1]], ty)
        lines.append(f"void m{k}({', '.join(proto)});")
        for c in refs:
            args = list(fixed)
            for j, (arr, ty) in enumerate(zip(c.inputs, params[:n_in])):
                dims, elem = shape_elem(ty)
                var = f"in{k}_{c.seed}_{j}"
                lines.append(f"static {C_TYPES[elem]} {var}[{max(arr.size, 1)}] = "
                             f"{{{c_array(arr, elem)}}};")
                args += expanded(var, ty)
            outs = []
            for j, ty in enumerate(params[n_in:]):
                dims, elem = shape_elem(ty)
                var = f"out{k}_{c.seed}_{j}"
                count = int(np.prod(dims)) if dims else 1
                lines.append(f"static {C_TYPES[elem]} {var}[{count}];")
                args += expanded(var, ty)
                outs.append((var, elem, count, j))
            # Persistent state (serenity-persistent-state's FUNC_reset, one region for the whole
            # module): every seed from the reset state, as TFLM's references.
            main += [f"  {r}();" for r in resets]
            main.append(f"  m{k}({', '.join(args)});")
            for var, elem, count, j in outs:
                fmt = '"%.9g\\n", (double)' if elem == "f32" else '"%ld\\n", (long)'
                main.append(f'  printf("@ {k} {c.seed} {j}\\n");')
                main.append(f"  for (int i = 0; i < {count}; ++i) printf({fmt}{var}[i]);")
    main += ['  printf("@ end\\n");', "  return 0;", "}"]
    src = os.path.join(work, "main.c")
    with open(src, "w") as f:
        f.write("\n".join(lines + [""] + main) + "\n")
    elf = os.path.join(work, "ops.elf")
    link = subprocess.run(link_command(work, [src, obj, "-lm"], elf), capture_output=True,
                          text=True)
    if link.returncode != 0:
        raise TFLiteError("linking failed:\n" + link.stderr[-4000:])
    qemu = subprocess.run(qemu_command(elf, icount=False), capture_output=True, text=True,
                          timeout=600)
    if qemu.returncode != 0 or "@ end" not in qemu.stdout:
        raise TFLiteError(f"QEMU failed (exit {qemu.returncode}):\n{qemu.stdout[-2000:]}"
                          f"{qemu.stderr[-2000:]}")
    printed = {}
    for block in qemu.stdout.split("@ ")[1:]:
        head, *vals = block.split("\n")
        if head.strip() == "end":
            break
        k, seed, j = map(int, head.split())
        printed[(k, seed, j)] = np.array([float(v) for v in vals if v.strip()])
    results = []
    for k, (name, refs) in enumerate(zip(names, cases)):
        for c in refs:
            for j, want in enumerate(c.outputs):
                got = printed.get((k, c.seed, j))
                if got is None:
                    raise TFLiteError(f"{name} seed {c.seed} output {j}: nothing printed")
                n, mx = compare_output(want, got)
                results.append((name, c.seed, j, int(want.size), n, mx))
    return results, undefined
