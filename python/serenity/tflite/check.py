"""Reference check: imported TOSA (mlir-opt + mlir-runner) against Arm NN CpuRef.

Both run on the same seeded int8 inputs. The TOSA side is lowered with the
upstream pipeline of ../shared/MLIR22.md (tosa-to-arith{include-apply-rescale=true})
and JIT-run by mlir-runner through a generated wrapper ``@main`` that holds
every input as a dense constant, calls the imported function (renamed
``@model``) and prints each result with printMemrefI32 / printMemrefF32.
"""

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np

from ..harness import MEMREF_TO_LLVM, memref_driver
from .importer import import_model
from .schema import Model, TFLiteError, load_file, with_output

LOWERING = (
    "builtin.module(tosa-to-mlprogram,func.func(tosa-to-linalg-named,tosa-to-linalg,"
    "tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},canonicalize,"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,convert-linalg-to-loops,convert-scf-to-cf,"
    "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,"
    "convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)")

_ARMNN = {}

NUMPY_OF_ELEMENT = {"f32": np.float32, "i8": np.int8, "i16": np.int16, "i32": np.int32,
                    "i64": np.int64, "i1": np.bool_}


# ------------------------------------------------- the printed module of the C++ importer
# Subprocess timeout of the lowering and JIT runs: a guard against a hang, not
# a time limit; an hour, so that a machine loaded several times over (tests
# running beside builds) never fails a correct run. Results never depend on it.
HANG_TIMEOUT = 3600

def tensor_type(shape, elem: str) -> str:
    if len(shape) == 0:
        return f"tensor<{elem}>"
    return "tensor<" + "x".join(str(int(d)) for d in shape) + f"x{elem}>"


def float_literal(v: float) -> str:
    """Exact f32 literal (hex bit pattern form is accepted for floats)."""
    bits = np.array([v], dtype=np.float32).view(np.uint32)[0]
    return f"0x{int(bits):08X}"


def dense_literal(arr: np.ndarray, elem: str) -> str:
    """A dense elements literal of the drivers' inputs; hex keeps large arrays compact and exact."""
    if arr.size == 1:
        v = arr.reshape(-1)[0]
        if elem == "f32":
            return f"dense<{float_literal(float(v))}>"
        if elem == "i1":
            return f"dense<{'true' if v else 'false'}>"
        return f"dense<{int(v)}>"
    if elem == "i1":
        nested = np.vectorize(lambda b: "true" if b else "false")(arr.astype(bool))
        return "dense<" + str(nested.tolist()).replace("'", "") + ">"
    le = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
    return 'dense<"0x' + le.tobytes().hex().upper() + '">'


_MAIN_LINE = re.compile(r"^ *func\.func @main\((.*)\) -> (.*) \{$", re.M)
_VARIABLE_DECL = re.compile(r"^ *tosa\.variable @([\w$.]+) = (dense<[^>]*>) : (tensor<[^>]*>)$", re.M)


def main_signature(text: str):
    """(argument types, result types) of the printed module's ``func.func @main``;
    TFLiteError when it has none."""
    m = _MAIN_LINE.search(text)
    if not m:
        raise TFLiteError("imported module has no recognizable @main")
    return re.findall(r"tensor<[^>]*>", m.group(1)), re.findall(r"tensor<[^>]*>", m.group(2))


def module_variables(text: str):
    """The module-level ``tosa.variable`` declarations (persistent state) of a printed
    module: [(declaration line, symbol, initial value literal, type)], in order."""
    return [(m.group(0).strip(), m.group(1), m.group(2), m.group(3))
            for m in _VARIABLE_DECL.finditer(text)]


def rename_symbol(text: str, old: str, new: str) -> str:
    """``text`` with every reference ``@old`` (declaration and uses) renamed ``@new``."""
    return re.sub("@" + re.escape(old) + r"(?![\w$.])", "@" + new, text)


def main_function(text: str, name: str) -> str:
    """The printed module's ``func.func @main`` (up to the module's closing brace),
    renamed ``@name``."""
    start = _MAIN_LINE.search(text)
    if not start:
        raise TFLiteError("imported module has no recognizable @main")
    begin = text.rfind("\n", 0, start.start()) + 1
    return text[begin:text.rstrip().rfind("}")].replace("func.func @main(", f"func.func @{name}(", 1)


def llvm_bindir() -> str:
    for cand in (os.environ.get("LLVM_BINDIR"), "/usr/lib/llvm-22/bin"):
        if cand and os.path.exists(os.path.join(cand, "mlir-opt")):
            return cand
    found = shutil.which("mlir-opt")
    if found:
        return os.path.dirname(found)
    raise TFLiteError("mlir-opt not found (install mlir-22-tools or set LLVM_BINDIR)")


def llvm_libdir() -> str:
    return os.path.join(os.path.dirname(llvm_bindir()), "lib")


def seeded_inputs(model: Model, seed: int) -> List[np.ndarray]:
    """Uniform random int8 inputs, one array per subgraph input."""
    rng = np.random.default_rng(seed)
    sg = model.subgraphs[0]
    out = []
    for idx in sg.inputs:
        t = sg.tensors[idx]
        if t.type != 9:
            raise TFLiteError(f"input tensor '{t.name}' is {t.type_name}; the check feeds INT8 inputs")
        out.append(rng.integers(-128, 128, size=t.shape, dtype=np.int64).astype(np.int8))
    return out


def seeded_or_float_inputs(model: Model, seed: int) -> List[np.ndarray]:
    """``seeded_inputs`` for an int8 model; uniform [-1, 1) float32 inputs when
    its first input is float32."""
    sg = model.subgraphs[0]
    if sg.tensors[sg.inputs[0]].type == 0:
        rng = np.random.default_rng(seed)
        return [rng.uniform(-1, 1, size=sg.tensors[i].shape).astype(np.float32) for i in sg.inputs]
    return seeded_inputs(model, seed)


def dequantize(model: Model, tensor_index: int, q: np.ndarray) -> np.ndarray:
    t = model.subgraphs[0].tensors[tensor_index]
    s, z = float(t.quant.scale[0]), int(t.quant.zero_point[0])
    return ((q.astype(np.float32) - np.float32(z)) * np.float32(s)).astype(np.float32)


def verify_mlir(text: str, tosa_validate: bool = False) -> None:
    """Runs mlir-opt on the text (optionally the TOSA spec validator, with the
    integer and float profiles and the doubleround extension DOUBLE_ROUND needs);
    raises TFLiteError with its diagnostics on failure."""
    extra = ["--tosa-attach-target=profiles=pro_int,pro_fp extensions=doubleround",
             "--tosa-validate"] if tosa_validate else []
    r = subprocess.run([os.path.join(llvm_bindir(), "mlir-opt"), "-", *extra, "-o", os.devnull],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        raise TFLiteError("mlir-opt rejected the imported module:\n" + r.stderr)


def run_mlir(text: str, batches: Sequence[Sequence[np.ndarray]], float_inputs: bool,
             timeout: int = HANG_TIMEOUT) -> List[List[np.ndarray]]:
    """JIT-runs the imported module once per batch of inputs; returns its outputs."""
    return run_mlir_many([(text, batches, float_inputs)], timeout)[0]


def run_mlir_many(items, timeout: int = HANG_TIMEOUT):
    """Like run_mlir for several imported modules [(text, batches, float_inputs)]
    at once: one lowering and one JIT for all of them."""
    funcs, lines = [], ["func.func private @printMemrefI32(memref<*xi32>) "
                        "attributes {llvm.emit_c_interface}",
                        "func.func private @printMemrefF32(memref<*xf32>) "
                        "attributes {llvm.emit_c_interface}",
                        "func.func @main() {"]
    expected = []
    k = 0
    for fi, (text, batches, float_inputs) in enumerate(items):
        arg_types, ret_types = main_signature(text)
        func = main_function(text, f"model{fi}")
        # Persistent state (module-level tosa.variable): each call gets its own copy of the
        # function and its variables, so that every batch starts from the reset state.
        variables = module_variables(text)
        if not variables:
            funcs.append(func)
        expected.append((len(ret_types), len(batches)))
        for bi, inputs in enumerate(batches):
            callee = f"model{fi}"
            if variables:
                callee = f"model{fi}_{bi}"
                copy = func.replace(f"@model{fi}(", f"@{callee}(", 1)
                decls = [d for d, _, _, _ in variables]
                for _, sym, _, _ in variables:
                    copy = rename_symbol(copy, sym, f"{callee}_{sym}")
                    decls = [rename_symbol(d, sym, f"{callee}_{sym}") for d in decls]
                funcs.append("\n".join("  " + d for d in decls) + "\n" + copy)
            names = []
            for arr, ty in zip(inputs, arg_types):
                elem = re.fullmatch(r"tensor<(?:\d+x)*(\w+)>", ty).group(1)
                a = np.asarray(arr).astype(NUMPY_OF_ELEMENT[elem])
                if tensor_type(a.shape, elem) != ty:
                    raise TFLiteError(f"input shape {a.shape} does not match {ty}")
                lines.append(f'  %in{k} = "tosa.const"() <{{values = {dense_literal(a, elem)} : {ty}}}> '
                             f": () -> {ty}")
                names.append(f"%in{k}")
                k += 1
            res = [f"%r{k}_{i}" for i in range(len(ret_types))]
            lines.append(f"  {', '.join(res)} = func.call @{callee}({', '.join(names)}) : "
                         f"({', '.join(arg_types)}) -> ({', '.join(ret_types)})")
            for r, ty in zip(res, ret_types):
                lines += print_tensor(r, ty)
    lines += ["  return", "}"]
    module = "module {\n" + "\n".join(funcs) + "\n" + "\n".join("  " + l for l in lines) + "\n}\n"
    printed = lower_and_run(module, LOWERING, "lowering failed", timeout)
    total = sum(n * nb for n, nb in expected)
    if len(printed) != total:
        raise TFLiteError(f"expected {total} printed results, got {len(printed)}")
    out, pos = [], 0
    for n, nb in expected:
        out.append([printed[pos + i * n:pos + (i + 1) * n] for i in range(nb)])
        pos += n * nb
    return out


def print_tensor(value: str, ty: str) -> List[str]:
    """Tensor-level lines printing SSA ``value`` of type ``ty`` with printMemrefF32
    (f32) or printMemrefI32 (integers, cast to i32); new names start with ``value``."""
    dims, elem_in = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", ty).groups()
    is_f = elem_in == "f32"
    pty = ty if is_f else f"tensor<{dims}i32>"  # rank 0 too
    elem = "f32" if is_f else "i32"
    v, lines = value, []
    if not is_f and elem_in != "i32":
        lines.append(f'  {value}c = "tosa.cast"({value}) : ({ty}) -> {pty}')
        v = value + "c"
    mty = "memref" + pty[len("tensor"):]
    lines.append(f"  {value}m = bufferization.to_buffer {v} : {pty} to {mty}")
    lines.append(f"  {value}u = memref.cast {value}m : {mty} to memref<*x{elem}>")
    fn = "printMemrefF32" if is_f else "printMemrefI32"
    lines.append(f"  func.call @{fn}({value}u) : (memref<*x{elem}>) -> ()")
    return lines


def lower_and_run(module: str, pipeline: str, what: str, timeout: int) -> List[np.ndarray]:
    """mlir-opt --pass-pipeline=pipeline, then mlir-runner on @main; returns
    every memref it printed."""
    bindir, libdir = llvm_bindir(), llvm_libdir()
    opt = subprocess.run([os.path.join(bindir, "mlir-opt"), "-", f"--pass-pipeline={pipeline}"],
                         input=module, capture_output=True, text=True, timeout=timeout)
    if opt.returncode != 0:
        raise TFLiteError(what + ":\n" + opt.stderr[-4000:])
    libs = ",".join(os.path.join(libdir, f) for f in
                    ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so"))
    run = subprocess.run([os.path.join(bindir, "mlir-runner"), "-e", "main",
                          "-entry-point-result=void", f"-shared-libs={libs}"],
                         input=opt.stdout, capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0:
        raise TFLiteError("mlir-runner failed:\n" + run.stderr[-4000:])
    return _parse_memrefs(run.stdout)


def _parse_memrefs(out: str) -> List[np.ndarray]:
    arrays = []
    for block in out.split("Unranked Memref")[1:]:
        sizes = [int(s) for s in re.search(r"sizes = \[([^\]]*)\]", block).group(1).split(",") if s.strip()]
        data = block[block.index("data =") + len("data ="):]
        nums = re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", data)
        arr = np.array([float(x) for x in nums], dtype=np.float64)
        arrays.append(arr.reshape(sizes) if sizes else arr.reshape(()))
    return arrays


def armnn_available() -> Optional[str]:
    """None when Arm NN's TfLite parser and CpuRef are usable, else the reason."""
    try:
        import pyarmnn  # noqa: F401
    except ImportError as e:
        return f"pyarmnn is not installed ({e}); apt-get install python3-pyarmnn"
    try:
        _runtime()
    except Exception as e:  # pyarmnn raises plain RuntimeError
        return f"Arm NN runtime unavailable: {e}"
    return None


def _runtime():
    """The one IRuntime of this process (a second one fails with CpuRef)."""
    if "runtime" not in _ARMNN:
        import pyarmnn as ann
        _ARMNN["ann"] = ann
        _ARMNN["runtime"] = ann.IRuntime(ann.CreationOptions())
        _ARMNN["networks"] = {}
    return _ARMNN["runtime"]


def run_armnn(path: str, batches: Sequence[Sequence[np.ndarray]]) -> List[List[np.ndarray]]:
    """Runs the .tflite file on Arm NN CpuRef; every network is loaded once per process."""
    rt = _runtime()
    ann = _ARMNN["ann"]
    key = os.path.realpath(path)
    try:
        return _run_armnn(rt, ann, key, path, batches)
    except RuntimeError as e:  # pyarmnn reports every failure as RuntimeError
        raise TFLiteError(f"Arm NN failed on {path}: {e}") from None


def _run_armnn(rt, ann, key, path, batches):
    if key not in _ARMNN["networks"]:
        parser = ann.ITfLiteParser()
        net = parser.CreateNetworkFromBinaryFile(path)
        ins = [parser.GetNetworkInputBindingInfo(0, n) for n in parser.GetSubgraphInputTensorNames(0)]
        outs = [parser.GetNetworkOutputBindingInfo(0, n) for n in parser.GetSubgraphOutputTensorNames(0)]
        opt, _ = ann.Optimize(net, [ann.BackendId("CpuRef")], rt.GetDeviceSpec(), ann.OptimizerOptions())
        net_id, _ = rt.LoadNetwork(opt)
        _ARMNN["networks"][key] = (net_id, ins, outs)
    net_id, ins, outs = _ARMNN["networks"][key]
    results = []
    for inputs in batches:
        in_t = ann.make_input_tensors(ins, [np.ascontiguousarray(a) for a in inputs])
        out_t = ann.make_output_tensors(outs)
        rt.EnqueueWorkload(net_id, in_t, out_t)
        results.append([np.array(a) for a in ann.workload_tensors_to_ndarray(out_t)])
    return results


@dataclass
class Comparison:
    exact_rate: float     # fraction of output elements equal to Arm NN's
    max_lsb: int          # max |difference| in output quantization steps
    max_float_err: float  # max |difference| after dequantization


def compare_int8(model: Model, out_index: int, ref: np.ndarray, got: np.ndarray) -> Comparison:
    ref = ref.astype(np.int64).reshape(-1)
    got = np.rint(got).astype(np.int64).reshape(-1)
    diff = np.abs(ref - got)
    fr, fg = dequantize(model, out_index, ref), dequantize(model, out_index, got)
    return Comparison(float(np.mean(diff == 0)), int(diff.max(initial=0)),
                      float(np.abs(fr - fg).max(initial=0.0)))


def per_op_compare(path: str, model: Model, batches, rounding: str):
    """Every operator's output tensor, imported graph vs Arm NN, on the same inputs.

    Arm NN is given copies of the file whose subgraph output is redirected to
    each intermediate tensor; the imported side is cut after the same
    operator. Returns [(op index, op name, exact rate, max diff in LSB)].
    """
    import tempfile
    with open(path, "rb") as f:
        buf = f.read()
    sg = model.subgraphs[0]
    items, refs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for op in sg.operators:
            t = op.outputs[0]
            p = os.path.join(tmp, f"op{op.index}.tflite")
            with open(p, "wb") as f:
                f.write(with_output(buf, t))
            refs.append(run_armnn(p, batches))
            items.append((import_model(model, rounding=rounding, outputs=[t]), batches, False))
    got = run_mlir_many(items)
    rows = []
    for k, op in enumerate(sg.operators):
        cs = [compare_int8(model, op.outputs[0], refs[k][b][0], got[k][b][0])
              for b in range(len(batches))]
        rows.append((op.index, op.name, float(np.mean([c.exact_rate for c in cs])),
                     max(c.max_lsb for c in cs)))
    return rows


def main(args) -> int:
    if not os.path.exists(args.model):
        raise TFLiteError(f"{args.model}: no such file")
    model = load_file(args.model)
    reason = armnn_available()
    if reason:
        raise TFLiteError(reason)
    seeds = [0, 1, 2] if args.seeds_given is None else list(args.seeds_given)
    batches = [seeded_inputs(model, s) for s in seeds]
    ref = run_armnn(args.model, batches)
    sg = model.subgraphs[0]
    modes = ["double", "single", "armnn"] if args.rounding == "all" else [args.rounding]
    name = os.path.basename(args.model)
    print(f"{name}: {len(seeds)} seeded inputs {list(seeds)}; reference Arm NN CpuRef")
    for mode in modes:
        if args.per_op:
            for i, n, rate, lsb in per_op_compare(args.model, model, batches, mode):
                print(f"  int8 rounding={mode:6s} op {i:3d} {n:18s} exact {rate * 100:7.3f}%  "
                      f"max diff {lsb} LSB")
        text = import_model(model, rounding=mode)
        got = run_mlir(text, batches, float_inputs=False)
        for o, out_idx in enumerate(sg.outputs):
            cs = [compare_int8(model, out_idx, ref[b][o], got[b][o]) for b in range(len(batches))]
            rate = float(np.mean([c.exact_rate for c in cs]))
            print(f"  int8 rounding={mode:6s} output {o} '{sg.tensors[out_idx].name}': "
                  f"exact {rate * 100:.2f}%  max diff {max(c.max_lsb for c in cs)} LSB  "
                  f"float max err {max(c.max_float_err for c in cs):.6g}")
    if args.float:
        text = import_model(model, float_mode=True)
        fin = [[dequantize(model, i, a) for i, a in zip(sg.inputs, b)] for b in batches]
        got = run_mlir(text, fin, float_inputs=True)
        for o, out_idx in enumerate(sg.outputs):
            err = max(float(np.abs(dequantize(model, out_idx, ref[b][o]).reshape(-1) -
                                   got[b][o].reshape(-1)).max()) for b in range(len(batches)))
            print(f"  float             output {o}: float max err vs Arm NN int8 {err:.6g}")
    return 0


def per_op_float_errors(model: Model, seed: int = 0):
    """Checks the --float import op by op against the int8 import.

    Each operator is imported alone twice -- float and int8 with
    ``rounding=armnn`` (bit-exact to Arm NN) -- and fed the same seeded int8
    inputs (dequantized for the float version). Returns, per operator,
    (index, name, max |float - dequantized int8| in output LSB), the float
    result first clamped to the int8 output's representable range. A correct
    float graph stays within 0.5 LSB plus float noise.
    """
    sg = model.subgraphs[0]
    rng = np.random.default_rng(seed)
    items, meta = [], []
    for op in sg.operators:
        ins = [i for i in op.inputs if i >= 0 and sg.tensors[i].data is None]
        q = [rng.integers(-128, 128, size=sg.tensors[i].shape).astype(np.int8) for i in ins]
        f = [dequantize(model, i, a) for i, a in zip(ins, q)]
        items.append((import_model(model, rounding="armnn", only_op=op.index), [q], False))
        items.append((import_model(model, float_mode=True, only_op=op.index), [f], True))
        meta.append(op)
    results = run_mlir_many(items)
    errors = []
    for k, op in enumerate(meta):
        out = sg.tensors[op.outputs[0]]
        s, z = float(out.quant.scale[0]), int(out.quant.zero_point[0])
        qi = results[2 * k][0][0]
        fl = results[2 * k + 1][0][0]
        fl = np.clip(fl, (-128 - z) * s, (127 - z) * s)
        err = np.abs(fl - dequantize(model, op.outputs[0], qi)).max() / s
        errors.append((op.index, op.name, float(err)))
    return errors



def lower_with_pipeline(text: str, options: str = "", serenity_opt: Optional[str] = None,
                        timeout: int = HANG_TIMEOUT):
    """The imported module's @main, renamed @net, through ``serenity-pipeline``
    (``lower-to-llvm=0`` plus ``options``). Returns (lowered module, input
    memref types, output memref types, arena bytes when the arena is a leading
    argument else None)."""
    from ..driver import find_serenity_opt
    tool = find_serenity_opt(serenity_opt)
    arg_types, ret_types = main_signature(text)
    in_types = ["memref" + t[len("tensor"):] for t in arg_types]
    out_types = ["memref" + t[len("tensor"):] for t in ret_types]
    src = text.replace("func.func @main(", "func.func @net(", 1)
    opt = subprocess.run([tool, "-", f"--serenity-pipeline=lower-to-llvm=0 {options}".strip()],
                         input=src, capture_output=True, text=True, timeout=timeout)
    if opt.returncode != 0:
        raise TFLiteError("serenity-pipeline failed:\n" + opt.stderr[-4000:])
    lowered = opt.stdout
    sig = re.search(r"func\.func @net\((.*?)\)\s*(?:attributes|\{)", lowered)
    params = re.findall(r"%[\w#]+: (memref<[^>]*>)", sig.group(1)) if sig else []
    arena_bytes = None
    if len(params) == len(in_types) + len(out_types) + 1:  # arena=argument
        arena_bytes = int(re.match(r"memref<(\d+)xi8>", params[0]).group(1))
    elif len(params) != len(in_types) + len(out_types):
        raise TFLiteError(f"unexpected signature of the lowered network: {params}")
    return lowered, in_types, out_types, arena_bytes


def run_pipeline(text: str, batches: Sequence[Sequence[np.ndarray]], options: str = "",
                 serenity_opt: Optional[str] = None, timeout: int = HANG_TIMEOUT) -> List[List[np.ndarray]]:
    """Like run_mlir, but lowers the imported module with ``serenity-pipeline``
    (lower_with_pipeline) and drives it with serenity.harness: a generated
    ``@main`` puts each batch's inputs in place, calls the network once per
    batch and prints every output."""
    lowered, in_types, out_types, arena_bytes = lower_with_pipeline(text, options, serenity_opt,
                                                                    timeout)
    elems = [t[t.rfind("x") + 1:-1] for t in in_types]
    batch_literals = [[dense_literal(np.asarray(a).astype(NUMPY_OF_ELEMENT[e]), e)
                       for a, e in zip(inputs, elems)] for inputs in batches]
    module = memref_driver(lowered, "net", in_types, out_types, batch_literals, arena_bytes)
    printed = lower_and_run(module, MEMREF_TO_LLVM, "lowering the pipeline's output failed", timeout)
    n = len(out_types)
    if len(printed) != n * len(batches):
        raise TFLiteError(f"expected {n * len(batches)} printed results, got {len(printed)}")
    return [printed[b * n:(b + 1) * n] for b in range(len(batches))]
