#!/usr/bin/python3
"""Multi-invocation references of stateful .tflite models from TensorFlow Lite Micro.

usage (from the repository root):
  PYTHONPATH=python /usr/bin/python3 test/tflite-seq/make_refs.py \
      --oracle /root/tflm-oracle-multi/oracle-seq [--sequences 2] [--steps 12] \
      [--repeat 3] [--outdir test/tflite-seq] MODEL.tflite...

For each model and sequence s, invocation k (k < steps) gets the input drawn
by numpy RandomState(100*s + k) with make_refs.py's full-range rule (int8
randint(-128, 128), int16 randint(-32768, 32768), ...; single-input models),
so sequence 0's first input is exactly ../shared/bench/tflm's seed 0 input.
All invocations run in ONE TFLite Micro interpreter (`oracle-seq seq`: a copy
of ../shared/tools/tflm-oracle/oracle.cc that calls Invoke() repeatedly);
after `steps` invocations the interpreter's Reset() (ResetVariableTensors)
runs and the first `repeat` inputs are fed again.

Writes OUTDIR/NAME.seqS/: input0.bin, output0.bin (every step stacked: shape
[steps] + tensor shape), tNNN.bin for every operator output (op) and every
variable tensor after each step (state), and OUTDIR/index.json. No TFLM code
or binary is written here: only the data the oracle computed.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from serenity.tflite.schema import TENSOR_TYPES, load_file

RULES = {"int8": (-128, 128), "uint8": (0, 256), "int16": (-32768, 32768)}


def make_input(seed, typ, shape):
    """make_refs.py's full-range rule, first draw of RandomState(seed)."""
    rs = np.random.RandomState(seed)
    n = int(np.prod(shape))
    if typ in RULES:
        return rs.randint(*RULES[typ], size=n).astype(typ)
    sys.exit(f"make_refs.py: no input rule for {typ} here")


def dtype_name(t):
    return TENSOR_TYPES[t.type][0].lower()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--oracle", default="/root/tflm-oracle-multi/oracle-seq")
    ap.add_argument("--outdir", default="test/tflite-seq")
    ap.add_argument("--sequences", type=int, default=2)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shared-refs", default="../shared/bench/tflm/reference",
                    help="checks sequence 0's first step against NAME.seed0.bin there")
    opts = ap.parse_args()

    index_path = os.path.join(opts.outdir, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else {"sequences": []}
    info_cache = {}
    for path in opts.models:
        name = os.path.splitext(os.path.basename(path))[0]
        info = json.loads(subprocess.run([opts.oracle, "info", path], capture_output=True,
                                         text=True, check=True).stdout)
        info_cache[name] = info
        if len(info["inputs"]) != 1:
            sys.exit(f"{path}: {len(info['inputs'])} inputs; this script feeds one")
        model = load_file(path)
        sg = model.subgraphs[0]
        tin = info["inputs"][0]
        sha1 = hashlib.sha1(open(path, "rb").read()).hexdigest()
        index["sequences"] = [q for q in index["sequences"] if q["model"] != os.path.basename(path)]
        for s in range(opts.sequences):
            seeds = [100 * s + k for k in range(opts.steps)]
            seeds += seeds[:opts.repeat]
            seq = f"{name}.seq{s}"
            out = os.path.join(opts.outdir, seq)
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            with tempfile.TemporaryDirectory() as tmp:
                args, inputs = [], []
                for k, seed in enumerate(seeds):
                    if k == opts.steps:
                        args.append("reset")
                    x = make_input(seed, tin["type"], tin["shape"])
                    f = os.path.join(tmp, f"in{k}.bin")
                    x.tofile(f)
                    args.append(f)
                    inputs.append(x)
                r = subprocess.run([opts.oracle, "seq", "--tensors", "--state", path,
                                    os.path.join(tmp, "o")] + args, capture_output=True, text=True)
                if r.returncode:
                    sys.exit(r.stdout + r.stderr + f"oracle-seq exited with {r.returncode}")
                log = r.stdout
                np.stack(inputs).tofile(os.path.join(out, "input0.bin"))
                outputs = []
                for o, t in enumerate(info["outputs"]):
                    suffix = ".bin" if o == 0 else f".output{o}.bin"
                    data = b"".join(open(os.path.join(tmp, "o", f"step{k:02d}{suffix}"), "rb").read()
                                    for k in range(len(seeds)))
                    open(os.path.join(out, f"output{o}.bin"), "wb").write(data)
                    outputs.append({"index": o, "tensor": t["tensor"], "file": f"output{o}.bin",
                                    "dtype": t["type"], "shape": t["shape"],
                                    "scale": t["scale"], "zero_point": t["zero_point"]})
                tensors = []
                names = sorted(os.listdir(os.path.join(tmp, "o", "step00")))
                for fn in names:
                    ti = int(fn[1:4])
                    t = sg.tensors[ti]
                    data = b"".join(open(os.path.join(tmp, "o", f"step{k:02d}", fn), "rb").read()
                                    for k in range(len(seeds)))
                    open(os.path.join(out, fn), "wb").write(data)
                    producer = next((op for op in sg.operators if ti in op.outputs), None)
                    tensors.append({"tensor": ti, "file": fn, "dtype": dtype_name(t),
                                    "shape": list(t.shape),
                                    "kind": "state" if t.is_variable else "op_output",
                                    "op": producer.index if producer else None,
                                    "op_name": producer.name if producer else None})
            # checks: the tie to the single-invocation references, and reset == start
            step = lambda f, k: open(os.path.join(out, f), "rb").read()[k * n0:(k + 1) * n0]
            n0 = info["outputs"][0]["bytes"]
            for k in range(opts.repeat):
                if step("output0.bin", k) != step("output0.bin", opts.steps + k):
                    sys.exit(f"{seq}: step {opts.steps + k} (after reset) differs from step {k}")
            ref = os.path.join(opts.shared_refs, f"{name}.seed0")
            tie = None
            if s == 0 and os.path.exists(ref + ".bin"):
                same_in = open(ref + ".input.bin", "rb").read() == inputs[0].tobytes()
                same_out = open(ref + ".bin", "rb").read() == step("output0.bin", 0)
                if not (same_in and same_out):
                    sys.exit(f"{seq}: step 0 does not match {ref}.bin (input equal: {same_in})")
                tie = f"step 0 input and output equal ../shared/bench/tflm/reference/{name}.seed0" \
                      f".input.bin and {name}.seed0.bin"
            entry = {
                "name": seq, "model": os.path.basename(path), "model_sha1": sha1,
                "model_path": os.path.relpath(os.path.abspath(path), os.path.abspath(".")),
                "steps": len(seeds), "seeds": seeds, "reset_before": [opts.steps],
                "input_rule": f"numpy RandomState(seed), {tin['type']} randint"
                              f"{RULES[tin['type']]}, one array per step",
                "inputs": [{"index": 0, "tensor": tin["tensor"], "file": "input0.bin",
                            "dtype": tin["type"], "shape": tin["shape"],
                            "scale": tin["scale"], "zero_point": tin["zero_point"]}],
                "outputs": outputs,
                "tensors": tensors,
                "output_fnv1a": re.findall(r"^step \d+: fnv1a (.*)$", log, re.M),
            }
            if tie:
                entry["shared_reference_check"] = tie
            index["sequences"].append(entry)
            print(f"{seq}: {len(seeds)} steps, reset before step {opts.steps}; "
                  f"{len(tensors)} tensors recorded" + (f"; {tie}" if tie else ""))
    index["tflm_commit"] = next(iter(info_cache.values()))["tflm_commit"]
    index["layout"] = ("every file holds all steps stacked: shape [steps] + the tensor's shape, "
                       "raw little-endian values of dtype; step k of file F is bytes "
                       "[k*B, (k+1)*B) with B the per-step size; reset_before lists the steps "
                       "before which the interpreter's Reset() (ResetVariableTensors) ran; "
                       "tensors: every operator output (kind op_output) and every variable "
                       "tensor (kind state) as TFLite Micro held them after each step")
    index["sequences"].sort(key=lambda q: q["name"])
    text = json.dumps(index, indent=1)
    text = re.sub(r"\[([^\[\]{}]*)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    # innermost objects (one input, output or tensor) on one line
    text = re.sub(r"\{([^{}\[\]]*(?:\[[^\[\]\n]*\][^{}\[\]]*)*)\}",
                  lambda m: "{" + " ".join(m.group(1).split()) + "}", text)
    open(index_path, "w").write(text + "\n")


if __name__ == "__main__":
    main()
