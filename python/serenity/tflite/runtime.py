"""Host run time of a network lowered by ``serenity-pipeline``.

The lowered function (memrefs, static arena) is JIT-compiled by ``mlir-runner
-O3`` inside a generated ``@main`` that calls it once (warm-up), then
``iterations`` times between two ``rtclock()`` readings; the time per call is
printed by the program itself, so JIT compilation is not counted. Inputs are
left as allocated (the time of these int8 kernels does not depend on values).
"""

import statistics
import subprocess
from typing import List, Optional

from ..harness import MEMREF_TO_LLVM
from .check import llvm_bindir, llvm_libdir, lower_with_pipeline
from .schema import TFLiteError


def host_time_ms(text: str, options: str = "", iterations: int = 50, repeats: int = 5,
                 serenity_opt: Optional[str] = None) -> float:
    """Median over ``repeats`` runs of the mean time per call, in ms."""
    low, in_types, out_types, arena_bytes = lower_with_pipeline(text, options, serenity_opt)
    params = ([f"memref<{arena_bytes}xi8>"] if arena_bytes is not None else []) + in_types + out_types
    args = [f"%a{i}" for i in range(len(params))]
    call = f"func.call @net({', '.join(args)}) : ({', '.join(params)}) -> ()"
    lines = ["  func.func @main() {", "    %c0 = arith.constant 0 : index",
             "    %c1 = arith.constant 1 : index", f"    %cn = arith.constant {iterations} : index"]
    lines += [f"    %a{i} = memref.alloc() {{alignment = 64 : i64}} : {t}" for i, t in enumerate(params)]
    lines += ["    " + call, "    %t0 = func.call @rtclock() : () -> f64",
              "    scf.for %i = %c0 to %cn step %c1 {", "      " + call, "    }",
              "    %t1 = func.call @rtclock() : () -> f64", "    %dt = arith.subf %t1, %t0 : f64",
              "    func.call @printF64(%dt) : (f64) -> ()", "    func.call @printNewline() : () -> ()",
              "    return", "  }", "  func.func private @rtclock() -> f64",
              "  func.func private @printF64(f64)", "  func.func private @printNewline()"]
    end = low.rstrip().rfind("}")
    module = low[:end] + "\n".join(lines) + "\n}\n"
    bindir = llvm_bindir()
    llvm = subprocess.run([f"{bindir}/mlir-opt", "-", f"--pass-pipeline={MEMREF_TO_LLVM}"],
                          input=module, capture_output=True, text=True)
    if llvm.returncode != 0:
        raise TFLiteError("lowering failed:\n" + llvm.stderr[-4000:])
    times: List[float] = []
    for _ in range(repeats):
        run = subprocess.run([f"{bindir}/mlir-runner", "-e", "main", "-entry-point-result=void", "-O3",
                              f"-shared-libs={llvm_libdir()}/libmlir_c_runner_utils.so"],
                             input=llvm.stdout, capture_output=True, text=True)
        if run.returncode != 0:
            raise TFLiteError("mlir-runner failed:\n" + run.stderr[-4000:])
        times.append(float(run.stdout.split()[-1]) / iterations * 1000.0)
    return statistics.median(times)
