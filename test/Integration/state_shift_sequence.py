#!/usr/bin/env python3
"""Writes the steps of a run of Inputs/state-shift.mlir (a TOSA variable of
8 int8 values, initial value 3, shifted left by two each run with the two
input values appended; the output is the negated new state) for
run_compiled.py --sequence: OUTDIR/seq.json and the step files, computed here
with numpy, independently of the compiler. Step 4 follows a reset."""
import json
import os
import sys

import numpy as np


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    state, steps = np.full(8, 3, np.int8), []
    for k in range(7):
        reset = k == 4
        if reset:
            state = np.full(8, 3, np.int8)
        x = np.array([k - 3, 40 * k - 128], np.int8)
        state = np.concatenate([state[2:], x])
        y = np.clip(-state.astype(np.int16), -128, 127).astype(np.int8)
        for kind, data in (("in", x), ("out", y)):
            with open(os.path.join(out, f"{kind}{k}.bin"), "wb") as f:
                f.write(data.tobytes())
        steps.append({"inputs": [f"in{k}.bin"], "expect": [f"out{k}.bin"], "reset": reset})
    with open(os.path.join(out, "seq.json"), "w") as f:
        json.dump({"steps": steps}, f, indent=1)


if __name__ == "__main__":
    main()
