"""Comparison with TensorFlow Lite Micro's own results (``check-tflite --against DIR``).

``DIR`` is laid out as ``../shared/bench/tflm`` (see its README):

* ``reference/MODEL.seedK.input.bin`` -- raw int8 input 0 for seed K;
* ``reference/MODEL.seedK.bin``       -- raw int8 output 0 TFLite Micro computed;
* ``intermediates/MODEL.seedK/index.json`` and ``tNNN.bin`` -- every tensor
  TFLite Micro produced for that input (tensor index NNN of the .tflite).

The imported module is run on the same inputs through the upstream reference
lowering and/or ``serenity-pipeline``. Where intermediates exist, the import
returns every tensor listed there (one module, one run) so the first operator
whose output differs is named.
"""

import glob
import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from . import check
from .importer import import_model
from .schema import TENSOR_TYPES, Model, TFLiteError, load_file

LOWERINGS = ("reference", "pipeline")


@dataclass
class Case:
    """One seed: input, TFLite Micro's output, and its intermediates (maybe none)."""
    seed: int
    inputs: List[np.ndarray]
    output: np.ndarray
    tensors: Dict[int, np.ndarray] = field(default_factory=dict)  # tensor index -> raw values
    meta: Dict[int, dict] = field(default_factory=dict)


@dataclass
class TensorDiff:
    tensor: int
    op: Optional[int]
    op_name: str
    elements: int
    different: int
    max_lsb: float  # largest difference (LSB for integers)
    unit: str = " LSB"  # "" for float32 tensors


def model_stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


DTYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "float32": np.float32,
          "int64": np.int64, "uint8": np.uint8, "bool": np.bool_}


def _dtype(t) -> np.dtype:
    return TENSOR_TYPES.get(t.type, (None, np.int8))[1] or np.int8


def _raw(path: str, shape, dtype=np.int8) -> np.ndarray:
    data = np.fromfile(path, dtype=dtype)
    if data.size != int(np.prod(shape)):
        raise TFLiteError(f"{path}: {data.size} bytes, expected {int(np.prod(shape))} for shape {list(shape)}")
    return data.reshape(shape)


def load_cases(model: Model, stem: str, against: str, seeds: Optional[List[int]] = None) -> List[Case]:
    """Reads every seed of ``stem`` under ``against`` (or only ``seeds``)."""
    ref_dir = os.path.join(against, "reference")
    if not os.path.isdir(ref_dir):
        raise TFLiteError(f"{against}: no reference/ directory (expected the layout of "
                          "../shared/bench/tflm)")
    found = {}
    for p in glob.glob(os.path.join(ref_dir, f"{stem}.seed*.input.bin")):
        m = re.match(re.escape(stem) + r"\.seed(\d+)\.input\.bin$", os.path.basename(p))
        if m:
            found[int(m.group(1))] = p
    if not found:
        raise TFLiteError(f"{ref_dir}: no inputs for model '{stem}' ({stem}.seedK.input.bin)")
    if seeds is not None:
        missing = [s for s in seeds if s not in found]
        if missing:
            raise TFLiteError(f"{ref_dir}: no seed(s) {missing} for '{stem}' "
                              f"(available: {sorted(found)})")
        found = {s: found[s] for s in seeds}
    sg = model.subgraphs[0]
    if len(sg.inputs) != 1 or len(sg.outputs) != 1:
        raise TFLiteError("the TFLite Micro references hold one input and one output tensor")
    in_t, out_t = sg.tensors[sg.inputs[0]], sg.tensors[sg.outputs[0]]
    cases = []
    for seed in sorted(found):
        case = Case(seed, [_raw(found[seed], in_t.shape, _dtype(in_t))],
                    _raw(os.path.join(ref_dir, f"{stem}.seed{seed}.bin"), out_t.shape, _dtype(out_t)))
        idir = os.path.join(against, "intermediates", f"{stem}.seed{seed}")
        index = os.path.join(idir, "index.json")
        if os.path.exists(index):
            with open(index) as f:
                entries = json.load(f)
            for e in entries:
                if e.get("producer_op") is None:
                    continue
                if e.get("type") not in DTYPES:
                    raise TFLiteError(f"{index}: tensor {e['tensor']} has type {e.get('type')}; "
                                      f"only {', '.join(DTYPES)} tensors are compared")
                case.tensors[e["tensor"]] = _raw(os.path.join(idir, e["file"]), e["shape"],
                                                 DTYPES[e["type"]])
                case.meta[e["tensor"]] = e
        cases.append(case)
    return cases


def _diff(tensor: int, op: Optional[int], name: str, want: np.ndarray, got: np.ndarray) -> TensorDiff:
    """Integers: elements that differ and the largest difference in LSB; float32:
    elements beyond opcheck's tolerance and the largest absolute difference."""
    from .opcheck import compare_output
    if np.asarray(got).size != want.size:
        raise TFLiteError(f"tensor {tensor}: {np.asarray(got).size} elements computed, "
                          f"{want.size} in the reference")
    n, mx = compare_output(want, got)
    return TensorDiff(tensor, op, name, int(want.size), n, mx,
                      "" if want.dtype == np.float32 else " LSB")


def run(text: str, batches, lowering: str, options: str = "") -> List[List[np.ndarray]]:
    if lowering == "reference":
        return check.run_mlir(text, batches, float_inputs=False)
    if lowering == "pipeline":
        return check.run_pipeline(text, batches, options)
    raise TFLiteError(f"unknown lowering '{lowering}' (use {', '.join(LOWERINGS)})")


def compare(model: Model, cases: List[Case], rounding: str = "double", lowering: str = "reference",
            options: str = "") -> List[List[TensorDiff]]:
    """Per case, the differences of every compared tensor (intermediates in
    operator order, the model output last)."""
    sg = model.subgraphs[0]
    out_idx = sg.outputs[0]
    producer = {op.outputs[0]: op for op in sg.operators}
    # Cases with intermediates: one import returning all of them.
    with_t = [c for c in cases if c.tensors]
    plain = [c for c in cases if not c.tensors]
    results: Dict[int, List[TensorDiff]] = {}
    if with_t:
        wanted = [op.outputs[0] for op in sg.operators if op.outputs[0] in with_t[0].tensors]
        for c in with_t[1:]:
            if sorted(c.tensors) != sorted(with_t[0].tensors):
                raise TFLiteError(f"seed {c.seed}: its intermediates list other tensors than "
                                  f"seed {with_t[0].seed}")
        text = import_model(model, rounding=rounding, outputs=wanted)
        got = run(text, [c.inputs for c in with_t], lowering, options)
        for c, g in zip(with_t, got):
            results[c.seed] = [_diff(t, producer[t].index, producer[t].name, c.tensors[t], v)
                               for t, v in zip(wanted, g)]
    if plain:
        # Only the model output is known for these seeds.
        text = import_model(model, rounding=rounding)
        got = run(text, [c.inputs for c in plain], lowering, options)
        for c, g in zip(plain, got):
            results[c.seed] = [_diff(out_idx, producer[out_idx].index, producer[out_idx].name,
                                     c.output, g[0])]
    for c in with_t:
        # The output is among the intermediates: DIR must agree with itself.
        if out_idx in c.tensors and not np.array_equal(c.tensors[out_idx], c.output):
            raise TFLiteError(f"seed {c.seed}: intermediates tensor {out_idx} differs from the "
                              "reference/ output")
    return [results[c.seed] for c in cases]


def first_difference(diffs: List[TensorDiff]) -> Optional[TensorDiff]:
    return next((d for d in diffs if d.different), None)


def main(args) -> int:
    """check-tflite MODEL --against DIR: prints one line per seed and lowering
    (and per tensor with --per-op); exit 1 when anything differs."""
    if not os.path.exists(args.model):
        raise TFLiteError(f"{args.model}: no such file")
    if not os.path.isdir(args.against):
        raise TFLiteError(f"{args.against}: no such directory")
    model = load_file(args.model)
    stem = model_stem(args.model)
    seeds = None if args.seeds_given is None else list(args.seeds_given)
    cases = load_cases(model, stem, args.against, seeds)
    modes = ["double", "single", "armnn"] if args.rounding == "all" else [args.rounding]
    lowerings = list(LOWERINGS) if args.lowering == "both" else [args.lowering]
    print(f"{stem}: seeds {[c.seed for c in cases]} against TFLite Micro ({args.against})")
    all_equal = True
    for mode in modes:
        for low in lowerings:
            per_case = compare(model, cases, mode, low, args.pipeline_options)
            for c, diffs in zip(cases, per_case):
                bad = [d for d in diffs if d.different]
                first = first_difference(diffs)
                what = f"{len(diffs)} tensors" if c.tensors else "output"
                if first is None:
                    status = "all equal"
                else:
                    all_equal = False
                    status = (f"{len(bad)} differ; first: op {first.op} {first.op_name} (tensor "
                              f"{first.tensor}): {first.different}/{first.elements} elements, "
                              f"max {first.max_lsb:g}{first.unit}")
                print(f"  rounding={mode} lowering={low} seed {c.seed} ({what}): {status}")
                if args.per_op:
                    for d in diffs:
                        print(f"    op {d.op if d.op is not None else '-':>3} {d.op_name:18s} tensor "
                              f"{d.tensor:3d}: {d.elements - d.different}/{d.elements} equal, "
                              f"max diff {d.max_lsb:g}{d.unit}")
    return 0 if all_equal else 1
