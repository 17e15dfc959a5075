"""Shorthands for test model builders."""

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..writer import ModelWriter


def T(shape, dtype="int8", scale=None, zp=None, data=None, axis=0) -> dict:
    """A tensor description for single_op: activation (data None) or constant."""
    return dict(shape=list(shape), dtype=dtype, scale=scale, zp=zp, data=data, axis=axis)


def single_op(op: str, inputs: Sequence[Optional[dict]], outputs: Sequence[dict],
              options_type: Optional[str] = None,
              options: Optional[Dict[int, Tuple[str, object]]] = None) -> ModelWriter:
    """One operator; inputs without data are the model's inputs, every output
    is a model output. None in inputs is an absent optional input (-1)."""
    m = ModelWriter()
    ins = []
    for i, t in enumerate(inputs):
        if t is None:
            ins.append(-1)
            continue
        idx = m.tensor(f"in{i}", t["shape"], t["dtype"], t["scale"], t["zp"], t["axis"],
                       None if t["data"] is None else np.asarray(t["data"]))
        ins.append(idx)
        if t["data"] is None:
            m.inputs.append(idx)
    outs = [m.tensor(f"out{i}", t["shape"], t["dtype"], t["scale"], t["zp"], t["axis"])
            for i, t in enumerate(outputs)]
    m.op(op, ins, outs, options_type, options)
    m.outputs = outs
    return m


def rng(seed: int) -> np.random.RandomState:
    return np.random.RandomState(seed)


def weights(seed: int, shape, lo=-127, hi=127) -> np.ndarray:
    return rng(seed).randint(lo, hi + 1, size=shape).astype(np.int8)
