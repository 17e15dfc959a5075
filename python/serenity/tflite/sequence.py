"""Stateful models over a sequence of invocations (``check-tflite-sequence``).

A stateful TFLite model (SVDF, LSTM) keeps its variable tensors from one
Invoke to the next; the importer makes them module-level ``tosa.variable``s.
:func:`run_sequence` lowers an imported module ONCE and runs every invocation
in ONE ``mlir-runner`` process: a generated ``@main`` calls the model once per
step, prints its outputs (and, on request, every state variable) after each
call, and resets the state where asked.

* ``lowering="reference"``: check.py's upstream LOWERING (``tosa-to-mlprogram``
  first, so the variables become mutable globals that keep their values from
  one call to the next). The driver is written at the TOSA level next to the
  model (renamed ``@model``); the reset is a generated ``@__reset_state`` that
  calls one ``@__reset_<var>`` per variable, each writing the variable's
  ``initial_value`` with ``tosa.variable_write``. The value written is computed
  (``linalg.fill`` of a ``tensor.empty``; a non-splat value adds the constant to
  such a fill), never a constant: upstream one-shot-bufferize stores a fresh,
  never-written buffer for an ``ml_program.global_store`` of a constant, as it
  does for a stored tensor that has other uses.
* ``lowering="pipeline"``: ``serenity-pipeline{lower-to-llvm=0}`` (as
  ``check-tflite --against``), driven by :func:`serenity.harness.memref_driver`
  in sequence mode: the state region of serenity-persistent-state carries over
  between calls and ``@net_reset`` runs only where asked; the state variables
  are read through ``serenity.persistent``'s offsets.

References: ``test/tflite-seq`` (TFLite Micro, one interpreter per sequence;
see its README), described by ``index.json``.
"""

import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..harness import MEMREF_TO_LLVM, memref_driver
from .check import (LOWERING, NUMPY_OF_ELEMENT, dense_literal, lower_and_run,
                    lower_with_pipeline, main_signature, module_variables, print_tensor,
                    tensor_type)
from .schema import TFLiteError

LOWERINGS = ("reference", "pipeline")


@dataclass
class Variable:
    name: str      # the tosa.variable's sym_name (the importer's stateN, N = tensor index)
    initial: str   # its initial_value literal, e.g. dense<-50>
    type: str      # tensor<...>


def state_variables(text: str) -> List[Variable]:
    """The module-level tosa.variable declarations of an imported module, in order."""
    return [Variable(sym, initial, ty) for _, sym, initial, ty in module_variables(text)]


def _elem(ty: str) -> str:
    return re.fullmatch(r"\w+<(?:\d+x)*(\w+)>", ty).group(1)


def _as(arr: np.ndarray, ty: str) -> np.ndarray:
    """A printed (float64) array as the numpy type of ``ty``'s element."""
    dt = NUMPY_OF_ELEMENT[_elem(ty)]
    return arr.astype(dt) if dt == np.float32 else np.rint(arr).astype(dt)


@dataclass
class SequenceResult:
    outputs: List[List[np.ndarray]]                    # per step, per model output
    states: List[Dict[str, np.ndarray]] = field(default_factory=list)  # per step: var -> value


def run_sequence(mlir_text: str, inputs_per_step: Sequence[Sequence[np.ndarray]],
                 reset_after: Sequence[int] = (), lowering: str = "reference",
                 **kwargs) -> List[List[np.ndarray]]:
    """Runs the imported module once per step, the state carried over from one
    step to the next and reset to its initial value after each step listed in
    ``reset_after``. Returns the outputs of every step (one list per step)."""
    return run_sequence_states(mlir_text, inputs_per_step, reset_after, lowering,
                               states=False, **kwargs).outputs


def run_sequence_states(mlir_text: str, inputs_per_step: Sequence[Sequence[np.ndarray]],
                        reset_after: Sequence[int] = (), lowering: str = "reference",
                        states: bool = True, pipeline_options: str = "",
                        serenity_opt: Optional[str] = None,
                        timeout: int = 600) -> SequenceResult:
    """Like :func:`run_sequence`; with ``states`` also every state variable's
    value after each step (keyed by its symbol, e.g. ``state4``)."""
    if lowering not in LOWERINGS:
        raise TFLiteError(f"unknown lowering {lowering!r} (one of {', '.join(LOWERINGS)})")
    steps = len(inputs_per_step)
    bad = [k for k in reset_after if not 0 <= k < steps]
    if bad:
        raise TFLiteError(f"reset_after {bad}: steps are 0..{steps - 1}")
    arg_types, ret_types = main_signature(mlir_text)
    for k, inputs in enumerate(inputs_per_step):
        if len(inputs) != len(arg_types):
            raise TFLiteError(f"step {k}: {len(inputs)} inputs given, @main takes {len(arg_types)}")
    variables = state_variables(mlir_text)
    shown = variables if states else []
    if lowering == "reference":
        module = _reference_driver(mlir_text, inputs_per_step, reset_after, arg_types, ret_types,
                                   variables, shown)
        printed = lower_and_run(module, LOWERING, "lowering failed", timeout)
    else:
        printed = _run_pipeline(mlir_text, inputs_per_step, reset_after, arg_types, shown,
                                pipeline_options, serenity_opt, timeout)
    per = len(ret_types) + len(shown)
    if len(printed) != per * steps:
        raise TFLiteError(f"expected {per * steps} printed results, got {len(printed)}")
    result = SequenceResult([], [])
    for k in range(steps):
        got = printed[k * per:(k + 1) * per]
        result.outputs.append([_as(a, t) for a, t in zip(got, ret_types)])
        if states:
            result.states.append({v.name: _as(a, v.type)
                                  for v, a in zip(shown, got[len(ret_types):])})
    return result


def _reference_driver(text, inputs_per_step, reset_after, arg_types, ret_types, variables, shown):
    """The imported module (@main renamed @model) with @__reset_state and a @main
    that runs the sequence, all at the TOSA level."""
    body = text.replace("func.func @main(", "func.func @model(", 1)
    funcs = ["func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
             "func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}"]
    for v in variables:
        funcs += [f"func.func private @__reset_{v.name}() {{"] + _initial_value_lines(v) + [
                  f'  "tosa.variable_write"(%init) <{{name = "{v.name}"}}> : ({v.type}) -> ()',
                  "  return", "}"]
    funcs += ["func.func @__reset_state() {"] + \
             [f"  func.call @__reset_{v.name}() : () -> ()" for v in variables] + ["  return", "}"]
    lines = ["func.func @main() {"]
    for k, inputs in enumerate(inputs_per_step):
        names = []
        for i, (arr, ty) in enumerate(zip(inputs, arg_types)):
            elem = _elem(ty)
            a = np.asarray(arr).astype(NUMPY_OF_ELEMENT[elem])
            if a.size != int(np.prod([int(d) for d in re.findall(r"(\d+)x", ty)] or [1])):
                raise TFLiteError(f"step {k} input {i}: {a.size} elements do not fit {ty}")
            a = a.reshape([int(d) for d in re.findall(r"(\d+)x", ty)])
            if tensor_type(a.shape, elem) != ty:
                raise TFLiteError(f"step {k} input {i}: shape {a.shape} does not match {ty}")
            lines.append(f'  %in{k}_{i} = "tosa.const"() <{{values = {dense_literal(a, elem)} : '
                         f"{ty}}}> : () -> {ty}")
            names.append(f"%in{k}_{i}")
        res = [f"%r{k}_{i}" for i in range(len(ret_types))]
        lines.append(f"  {', '.join(res)} = func.call @model({', '.join(names)}) : "
                     f"({', '.join(arg_types)}) -> ({', '.join(ret_types)})")
        for r, ty in zip(res, ret_types):
            lines += print_tensor(r, ty)
        for j, v in enumerate(shown):
            s = f"%s{k}_{j}"
            lines.append(f'  {s} = "tosa.variable_read"() <{{name = "{v.name}"}}> : () -> {v.type}')
            lines += print_tensor(s, v.type)
        if k in reset_after:
            lines.append("  func.call @__reset_state() : () -> ()")
    lines += ["  return", "}"]
    end = body.rstrip().rfind("}")
    return body[:end] + "\n".join("  " + l for l in funcs + lines) + "\n}\n"


def _splat(v: Variable) -> Optional[str]:
    """The initial value's one element as MLIR text when all elements are equal."""
    body = v.initial[len("dense<"):-1]
    if body.startswith('"0x'):
        dt = np.dtype(NUMPY_OF_ELEMENT[_elem(v.type)]).newbyteorder("<")
        vals = np.frombuffer(bytes.fromhex(body[3:-1]), dtype=dt)
    else:
        # The printer's decimal elements (1, -5, 0.000000e+00, true); anything else (a hex
        # float) is not taken as a splat: the caller then uses the literal as it is.
        words = re.findall(r"[^\s\[\],]+", body)
        try:
            vals = np.array([{"true": 1.0, "false": 0.0}[w] if w in ("true", "false") else float(w)
                             for w in words])
        except ValueError:
            return None
    if vals.size == 0 or not np.all(vals == vals.flat[0]):
        return None
    x = vals.flat[0]
    return repr(float(x)) if _elem(v.type).startswith("f") else str(int(x))


def _initial_value_lines(v: Variable) -> List[str]:
    """Lines computing %init, the variable's initial value, as a tensor the
    bufferization writes in place. A stored constant is miscompiled upstream:
    one-shot-bufferize copies a read-only value out of place for
    ml_program.global_store and stores the fresh, never-written buffer (as with a
    stored tensor that has other uses). A linalg.fill of a tensor.empty is not."""
    elem, ty = _elem(v.type), v.type
    splat = _splat(v)
    if splat is not None:
        return [f"  %empty = tensor.empty() : {ty}",
                f"  %c = arith.constant {splat} : {elem}",
                f"  %init = linalg.fill ins(%c : {elem}) outs(%empty : {ty}) -> {ty}"]
    # not splat: constant + a filled zero (tosa.add does not fold a non-constant operand)
    zero = "0.0" if elem.startswith("f") else "0"
    return [f"  %empty = tensor.empty() : {ty}",
            f"  %c = arith.constant {zero} : {elem}",
            f"  %zero = linalg.fill ins(%c : {elem}) outs(%empty : {ty}) -> {ty}",
            f'  %cst = "tosa.const"() <{{values = {v.initial} : {ty}}}> : () -> {ty}',
            f'  %init = "tosa.add"(%cst, %zero) : ({ty}, {ty}) -> {ty}']


def _run_pipeline(text, inputs_per_step, reset_after, arg_types, shown, options, serenity_opt,
                  timeout):
    lowered, in_types, out_types, arena_bytes = lower_with_pipeline(text, options, serenity_opt,
                                                                    timeout)
    has_reset = re.search(r"func\.func @net_reset\(\)", lowered) is not None
    if reset_after and state_variables(text) and not has_reset:
        raise TFLiteError("serenity-pipeline's output has state but no @net_reset "
                          "(serenity-persistent-state)")
    probes = []
    if shown:
        attr = re.search(r"serenity\.persistent = \[(.*?)\]", lowered)
        where = {m.group(1): int(m.group(2)) for m in re.finditer(
            r'\{name = "([^"]+)", offset = (\d+) : i64', attr.group(1) if attr else "")}
        for v in shown:
            if v.name not in where:
                raise TFLiteError(f"serenity-pipeline's output does not place state {v.name} "
                                  "(no serenity.persistent entry)")
            probes.append(("net_state", where[v.name], "memref" + v.type[len("tensor"):]))
    elems = [_elem(t) for t in in_types]
    literals = [[dense_literal(np.asarray(a).astype(NUMPY_OF_ELEMENT[e]).reshape(
        [int(d) for d in re.findall(r"(\d+)x", t)]), e) for a, e, t in zip(inputs, elems, in_types)]
        for inputs in inputs_per_step]
    module = memref_driver(lowered, "net", in_types, out_types, literals, arena_bytes,
                           resets=[k + 1 for k in reset_after], probes=probes)
    return lower_and_run(module, MEMREF_TO_LLVM, "lowering the pipeline's output failed", timeout)


# ---------------------------------------------------------------- references
@dataclass
class RefSequence:
    """One sequence of ``test/tflite-seq/index.json``."""
    name: str
    model: str
    steps: int
    reset_after: List[int]
    inputs: List[List[np.ndarray]]          # per step, per model input
    outputs: List[List[np.ndarray]]         # per step, per model output
    states: Dict[int, np.ndarray]           # variable tensor index -> [steps, ...]
    entry: dict


def _stacked(path: str, dtype: str, shape, steps: int) -> np.ndarray:
    data = np.fromfile(path, dtype=np.dtype(dtype))
    want = steps * int(np.prod(shape))
    if data.size != want:
        raise TFLiteError(f"{path}: {data.size} values, expected {want} ({steps} steps of {shape})")
    return data.reshape([steps] + list(shape))


def load_sequences(refs: str, model: Optional[str] = None) -> List[RefSequence]:
    """The sequences of ``refs/index.json`` (those of ``model``'s file name only, if given)."""
    path = os.path.join(refs, "index.json")
    if not os.path.exists(path):
        raise TFLiteError(f"{refs}: no index.json (expected the layout of test/tflite-seq)")
    with open(path) as f:
        index = json.load(f)
    out = []
    for e in index["sequences"]:
        if model is not None and e["model"] != os.path.basename(model):
            continue
        d, n = os.path.join(refs, e["name"]), e["steps"]
        ins = [_stacked(os.path.join(d, t["file"]), t["dtype"], t["shape"], n) for t in e["inputs"]]
        outs = [_stacked(os.path.join(d, t["file"]), t["dtype"], t["shape"], n)
                for t in e["outputs"]]
        states = {t["tensor"]: _stacked(os.path.join(d, t["file"]), t["dtype"], t["shape"], n)
                  for t in e.get("tensors", []) if t["kind"] == "state"}
        out.append(RefSequence(e["name"], e["model"], n, [k - 1 for k in e["reset_before"]],
                               [[a[k] for a in ins] for k in range(n)],
                               [[a[k] for a in outs] for k in range(n)], states, e))
    return out


def _diff(ref: np.ndarray, got: np.ndarray) -> Optional[str]:
    ref = np.asarray(ref)
    got = np.asarray(got).reshape(ref.shape)
    if np.array_equal(ref, got):
        return None
    d = np.abs(ref.astype(np.float64) - got.astype(np.float64))
    return f"{int(np.count_nonzero(d))} of {d.size} differ, max {d.max():g}"


def compare(seq: RefSequence, result: SequenceResult) -> List[List[str]]:
    """Per step, the list of differences (empty: equal). States are compared where
    the import has the importer's variable ``stateN`` for reference tensor N."""
    rows = []
    for k in range(seq.steps):
        diffs = []
        for o, (ref, got) in enumerate(zip(seq.outputs[k], result.outputs[k])):
            d = _diff(ref, got)
            if d:
                diffs.append(f"output {o}: {d}")
        if result.states:
            for t, ref in sorted(seq.states.items()):
                got = result.states[k].get(f"state{t}")
                if got is None:
                    diffs.append(f"state t{t}: the import has no variable state{t}")
                    continue
                d = _diff(ref[k], got)
                if d:
                    diffs.append(f"state t{t}: {d}")
        rows.append(diffs)
    return rows


def check_model(model_path: str, refs: str, lowering: str = "reference",
                pipeline_options: str = "", rounding: str = "double",
                states: bool = True, verbose: bool = True) -> bool:
    """Imports the model, runs every reference sequence of it and prints, per
    step, equal or what differs. Returns True when everything is equal."""
    from .importer import import_model
    from .schema import load_file
    seqs = load_sequences(refs, model_path)
    if not seqs:
        raise TFLiteError(f"{refs}/index.json has no sequence of {os.path.basename(model_path)}")
    text = import_model(load_file(model_path), rounding=rounding)
    # All sequences in one run (one lowering, one process): each starts from a reset.
    inputs, resets, starts = [], [], []
    for seq in seqs:
        if inputs:
            resets.append(len(inputs) - 1)
        starts.append(len(inputs))
        inputs += seq.inputs
        resets += [starts[-1] + k for k in seq.reset_after]
    res = run_sequence_states(text, inputs, resets, lowering, states=states,
                              pipeline_options=pipeline_options)
    ok = True
    for seq, start in zip(seqs, starts):
        part = SequenceResult(res.outputs[start:start + seq.steps],
                              res.states[start:start + seq.steps])
        rows = compare(seq, part)
        what = "outputs and state" if states and seq.states else "outputs"
        print(f"{seq.name} ({lowering}): {seq.steps} steps, reset after step(s) "
              f"{seq.reset_after}; comparing {what}")
        for k, diffs in enumerate(rows):
            ok = ok and not diffs
            if verbose or diffs:
                print(f"  step {k:2d}: " + ("equal" if not diffs else "differs: " + "; ".join(diffs)))
    return ok


def main(args) -> int:
    if not os.path.exists(args.model):
        raise TFLiteError(f"{args.model}: no such file")
    lowerings = list(LOWERINGS) if args.lowering == "both" else [args.lowering]
    ok = True
    for lowering in lowerings:
        ok = check_model(args.model, args.refs, lowering, args.pipeline_options,
                         states=not args.outputs_only) and ok
    print("all equal" if ok else "DIFFERS")
    return 0 if ok else 1
