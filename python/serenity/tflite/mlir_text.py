"""Textual MLIR building blocks for the importer: types, literals, SSA values.

Ops are written in MLIR's generic form so the text does not depend on the
custom assembly formats of the TOSA ops.
"""

from typing import Dict, List

import numpy as np


def tensor_type(shape, elem: str) -> str:
    if len(shape) == 0:
        return f"tensor<{elem}>"
    return "tensor<" + "x".join(str(int(d)) for d in shape) + f"x{elem}>"


def dense_literal(arr: np.ndarray, elem: str) -> str:
    """A dense elements literal; hex keeps large weights compact and exact."""
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


def float_literal(v: float) -> str:
    """Exact f32 literal (hex bit pattern form is accepted for floats)."""
    bits = np.array([v], dtype=np.float32).view(np.uint32)[0]
    return f"0x{int(bits):08X}"


class Builder:
    """Accumulates the body of @main as text lines."""

    def __init__(self):
        self.lines: List[str] = []
        # Module-level declarations before @main (tosa.variable of persistent state).
        self.module_lines: List[str] = []
        self.count = 0
        self.const_cache: Dict[tuple, str] = {}

    def fresh(self) -> str:
        self.count += 1
        return f"%{self.count - 1}"

    def const(self, arr: np.ndarray, elem: str, cache: bool = False) -> str:
        arr = np.asarray(arr)
        ty = tensor_type(arr.shape, elem)
        key = (ty, arr.tobytes()) if cache else None
        if key is not None and key in self.const_cache:
            return self.const_cache[key]
        name = self.fresh()
        self.lines.append(f'{name} = "tosa.const"() <{{values = {dense_literal(arr, elem)} : {ty}}}> : () -> {ty}')
        if key is not None:
            self.const_cache[key] = name
        return name

    def scalar1(self, value, elem: str) -> str:
        """A tensor<1xT> constant (zero points, shifts), shared."""
        dtype = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "f32": np.float32,
                 "i64": np.int64}[elem]
        return self.const(np.array([value], dtype=dtype), elem, cache=True)

    def shape(self, dims) -> str:
        dims = [int(d) for d in dims]
        key = ("shape", tuple(dims))
        if key in self.const_cache:
            return self.const_cache[key]
        name = self.fresh()
        n = len(dims)
        self.lines.append(
            f'{name} = "tosa.const_shape"() <{{values = dense<[{", ".join(map(str, dims))}]> : '
            f"tensor<{n}xindex>}}> : () -> !tosa.shape<{n}>")
        self.const_cache[key] = name
        return name

    def op(self, name: str, operands: List[str], operand_types: List[str], result_type: str,
           attrs: str = "", comment: str = "") -> str:
        res = self.fresh()
        attr = f" <{{{attrs}}}>" if attrs else ""
        if comment:
            self.lines.append(f"// {comment}")
        self.lines.append(f'{res} = "tosa.{name}"({", ".join(operands)}){attr} : '
                          f'({", ".join(operand_types)}) -> {result_type}')
        return res


class Value:
    """An SSA value with its shape and element type."""

    def __init__(self, name: str, shape, elem: str):
        self.name, self.shape, self.elem = name, [int(d) for d in shape], elem

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.elem)
