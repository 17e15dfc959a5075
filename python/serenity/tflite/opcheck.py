"""Test models against TensorFlow Lite Micro's outputs (``check-tflite-ops``).

``DIR`` holds ``models/NAME.tflite`` and, in the layout ``make_refs.py`` of
``../shared/tools/tflm-oracle`` writes, ``reference/NAME.io.json`` with
``reference/NAME.seedK.input[I].bin`` / ``NAME.seedK[.outputI].bin`` (raw bytes
in each tensor's own type). Every model is imported and run on the same
inputs through the upstream reference lowering (all models in one JIT) and/or
``serenity-pipeline``; integer outputs must be equal bit for bit, float32
outputs within ``FLOAT_RTOL`` relative (``FLOAT_ATOL`` absolute near zero).
"""

import glob
import json
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from . import check
from .importer import import_model
from .schema import Model, TFLiteError, load_file

FLOAT_RTOL = 1e-5
FLOAT_ATOL = 1e-6
DTYPES = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32,
          "int64": np.int64, "float32": np.float32, "bool": np.bool_}


@dataclass
class RefCase:
    seed: int
    inputs: List[np.ndarray]
    outputs: List[np.ndarray]


@dataclass
class Result:
    name: str
    lowering: str
    seed: int
    output: int
    elements: int
    different: int
    max_diff: float

    @property
    def ok(self) -> bool:
        return self.different == 0


def load_refs(refdir: str, name: str) -> List[RefCase]:
    with open(os.path.join(refdir, f"{name}.io.json")) as f:
        io = json.load(f)

    def read(desc, seed):
        path = os.path.join(refdir, desc["file"].replace("seedK", f"seed{seed}"))
        arr = np.fromfile(path, dtype=DTYPES[desc["type"]])
        return arr.reshape(desc["shape"])

    seeds = io["seeds_full_range"] + io["seeds_near_zero_point"]
    return [RefCase(s, [read(d, s) for d in io["inputs"]], [read(d, s) for d in io["outputs"]])
            for s in seeds]


def model_names(directory: str) -> List[str]:
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(directory, "models", "*.tflite")))


def compare_output(want: np.ndarray, got: np.ndarray) -> Tuple[int, float]:
    """(elements that differ, largest difference)."""
    w = np.asarray(want).reshape(-1)
    g = np.asarray(got).reshape(-1)
    if w.size != g.size:
        raise TFLiteError(f"{g.size} elements computed, {w.size} in the reference")
    if w.dtype == np.float32:
        wf, gf = w.astype(np.float64), g.astype(np.float64)
        bad = ~np.isclose(gf, wf, rtol=FLOAT_RTOL, atol=FLOAT_ATOL, equal_nan=True)
        return int(np.count_nonzero(bad)), float(np.max(np.abs(gf - wf), initial=0.0))
    gi = np.rint(g).astype(np.int64)
    if w.dtype == np.uint8:
        gi &= 0xFF  # a uint8 output is computed as its int8 bits
    d = np.abs(w.astype(np.int64) - gi)
    return int(np.count_nonzero(d)), float(d.max(initial=0))


def check_models(directory: str, names: List[str], lowering: str = "reference",
                 options: str = "") -> List[Result]:
    """Imports and runs every model; one Result per (model, seed, output)."""
    refdir = os.path.join(directory, "reference")
    items, cases = [], []
    for name in names:
        model = load_file(os.path.join(directory, "models", name + ".tflite"))
        try:
            text = import_model(model)
        except TFLiteError as e:
            raise TFLiteError(f"{name}: {e}") from None
        refs = load_refs(refdir, name)
        items.append((name, text, refs))
    results: List[Result] = []
    if lowering == "reference":
        got_all = check.run_mlir_many([(text, [c.inputs for c in refs], False)
                                       for _, text, refs in items])
    else:
        got_all = [check.run_pipeline(text, [c.inputs for c in refs], options)
                   for _, text, refs in items]
    for (name, _, refs), got in zip(items, got_all):
        for case, outs in zip(refs, got):
            for k, (want, g) in enumerate(zip(case.outputs, outs)):
                n, mx = compare_output(want, g)
                results.append(Result(name, lowering, case.seed, k, int(want.size), n, mx))
    return results


def main(args) -> int:
    if getattr(args, "coverage", False):
        print(coverage_table(args.dir))
        return 0
    names = model_names(args.dir)
    if args.name:
        names = [n for n in names if any(re.fullmatch(p, n) for p in args.name)]
    if not names:
        raise TFLiteError(f"{args.dir}: no models/*.tflite selected")
    lowerings = ["reference", "pipeline"] if args.lowering == "both" else [args.lowering]
    bad = 0
    for low in lowerings:
        for r in check_models(args.dir, names, low, args.pipeline_options):
            if not r.ok or args.verbose:
                print(f"{r.name} lowering={low} seed {r.seed} output {r.output}: "
                      f"{r.elements - r.different}/{r.elements} equal, max diff {r.max_diff:g}")
            bad += not r.ok
    print(f"{len(names)} models, {len(lowerings)} lowering(s): "
          + ("all equal" if not bad else f"{bad} outputs differ"))
    return 1 if bad else 0


def coverage(directory: str) -> dict:
    """{operator: {"models": n, "types": set of its first input's types}} over DIR/models."""
    from .importer import supported_operators
    table = {name: {"models": 0, "types": set()} for name in supported_operators()}
    for name in model_names(directory):
        model = load_file(os.path.join(directory, "models", name + ".tflite"))
        sg = model.subgraphs[0]
        seen = set()
        for op in sg.operators:
            row = table.setdefault(op.name, {"models": 0, "types": set()})
            first = next((i for i in op.inputs if i >= 0 and sg.tensors[i].data is None),
                         op.inputs[0])
            row["types"].add(sg.tensors[first].type_name.lower())
            if op.name not in seen:
                row["models"] += 1
                seen.add(op.name)
    return table


def coverage_table(directory: str) -> str:
    """Markdown: every operator the importer knows, the activation types its
    test models use and how many models have it."""
    rows = ["| operator | types tested (first activation input) | test models |",
            "|---|---|---:|"]
    for op, row in sorted(coverage(directory).items()):
        rows.append(f"| {op} | {', '.join(sorted(row['types'])) or '-'} | {row['models']} |")
    return "\n".join(rows)
