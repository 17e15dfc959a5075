"""A ``@main`` that drives a network lowered by ``serenity-pipeline{lower-to-llvm=0}``.

The lowered function takes memrefs: the arena first with ``arena=argument``,
then the inputs, then the caller-owned outputs. With ``io=arena``
(``serenity.io_offsets``) the inputs and outputs live in the arena: the
driver writes each input at its offset and reads the outputs there, as a
deployment would. Every output is printed with the runner library's
``printMemref*`` (i8/i16 widened to i32, which has a printer). Used by
``check-tflite`` and by ``test/Integration/compare_lowering.py``.
"""

import re
from typing import List, Optional, Sequence, Tuple

# memref level -> LLVM dialect, for the driven module.
MEMREF_TO_LLVM = (
    "builtin.module(convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,"
    "lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,"
    "convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)")

PRINTERS = {"f32": "printMemrefF32", "f64": "printMemrefF64", "i32": "printMemrefI32",
            "i64": "printMemrefI64"}
NARROW_INTEGERS = ("i8", "i16")


def io_offsets(module: str) -> Optional[List[int]]:
    """serenity.io_offsets of the lowered function (io=arena), or None."""
    match = re.search(r"serenity\.io_offsets = array<i64: ([-0-9, ]+)>", module)
    return [int(x) for x in match.group(1).split(",")] if match else None


def element_of(memref_type: str) -> str:
    """The element type of a memref/tensor type, rank 0 (``memref<i8>``) too."""
    return re.fullmatch(r"\w+<(?:\d+x)*(\w+)>", memref_type).group(1)


def memref_driver(module: str, func: str, in_types: Sequence[str], out_types: Sequence[str],
                  batches: Sequence[Sequence[str]], arena_bytes: Optional[int] = None,
                  resets: Optional[Sequence[int]] = None,
                  probes: Sequence[Tuple[str, int, str]] = ()) -> str:
    """``module`` with a ``@main`` appended that calls ``@func`` once per batch
    (each batch: one dense literal per input, e.g. ``dense<[1, 2]>``) and
    prints its outputs after each call. ``arena_bytes``: the size of the
    leading arena argument (arena=argument), None for a global arena.

    Stateful networks (serenity-persistent-state's ``@FUNC_reset``): by default
    every batch starts from the reset state; with ``resets`` (sequence mode) the
    state carries over from one call to the next and ``@FUNC_reset`` is called
    only before the batches listed there. ``probes``: (global, byte offset,
    memref type) views printed after each call's outputs (e.g. the state)."""
    offsets = io_offsets(module)
    lines, globals_, decls = [], [], set()
    arena_type = None
    if arena_bytes is not None:
        arena_type = f"memref<{arena_bytes}xi8>"
        lines.append(f"    %arena = memref.alloc() {{alignment = 64 : i64}} : {arena_type}")
    elif offsets is not None:
        size = re.search(r'memref\.global "private" @__serenity_arena_' + re.escape(func)
                         + r" : memref<(\d+)xi8>", module)
        arena_type = f"memref<{size.group(1)}xi8>"
        lines.append(f"    %arena = memref.get_global @__serenity_arena_{func} : {arena_type}")
    first = 1 if arena_bytes is not None else 0

    def buffer(index: int, ty: str, name: str) -> str:
        """A fresh buffer, or with io=arena the arena view of argument `index`."""
        if offsets is None:
            lines.append(f"    %{name} = memref.alloc() : {ty}")
        else:
            lines.append(f"    %{name}_at = arith.constant {offsets[first + index]} : index")
            lines.append(f"    %{name} = memref.view %arena[%{name}_at][] : {arena_type} to {ty}")
        return f"%{name}"

    # A stateful network (serenity-persistent-state's FUNC_reset): every batch from the reset state.
    reset = re.search(r"func\.func @" + re.escape(func) + r"_reset\(\)", module) is not None
    for b, literals in enumerate(batches):
        if reset and (resets is None or b in resets):
            lines.append(f"    call @{func}_reset() : () -> ()")
        args = ["%arena"] if arena_bytes is not None else []
        for i, (literal, ty) in enumerate(zip(literals, in_types)):
            globals_.append(f'  memref.global "private" constant @__driver_in{b}_{i} : {ty} = '
                            f"{literal}")
            lines.append(f"    %g{b}_{i} = memref.get_global @__driver_in{b}_{i} : {ty}")
            name = buffer(i, ty, f"in{b}_{i}")
            lines.append(f"    memref.copy %g{b}_{i}, {name} : {ty} to {ty}")
            args.append(name)
        outs = [buffer(len(in_types) + i, ty, f"out{b}_{i}") for i, ty in enumerate(out_types)]
        types = ([arena_type] if arena_bytes is not None else []) + list(in_types) + list(out_types)
        lines.append(f"    call @{func}({', '.join(args + outs)}) : ({', '.join(types)}) -> ()")
        printed_values = list(zip(outs, out_types))
        for p, (symbol, offset, ty) in enumerate(probes):
            gty = re.search(r"memref\.global (?:\"\w+\" )?@" + re.escape(symbol)
                            + r" : (memref<[^>]*>)", module).group(1)
            lines.append(f"    %probe{b}_{p}g = memref.get_global @{symbol} : {gty}")
            lines.append(f"    %probe{b}_{p}at = arith.constant {offset} : index")
            lines.append(f"    %probe{b}_{p} = memref.view %probe{b}_{p}g[%probe{b}_{p}at][] : "
                         f"{gty} to {ty}")
            printed_values.append((f"%probe{b}_{p}", ty))
        for i, (printed, ty) in enumerate(printed_values):
            element = element_of(ty)
            if element in NARROW_INTEGERS:
                printed = widen(printed, ty, element, f"wide{b}_{i}", lines)
                ty, element = ty.replace(element + ">", "i32>"), "i32"
            printer = PRINTERS[element]
            decls.add(f"  func.func private @{printer}(memref<*x{element}>)")
            lines.append(f"    %u{b}_{i} = memref.cast {printed} : {ty} to memref<*x{element}>")
            lines.append(f"    call @{printer}(%u{b}_{i}) : (memref<*x{element}>) -> ()")
    body = "\n".join(globals_ + ["  func.func @main() {"] + lines + ["    return", "  }"]
                     + sorted(decls))
    end = module.rstrip().rfind("}")
    return module[:end] + body + "\n}\n"


def widen(value: str, ty: str, element: str, name: str, lines: List[str]) -> str:
    """An i32 copy of a narrow integer memref (the runner has no i8 printer)."""
    wide = ty.replace(element + ">", "i32>")
    rank = ty.count("x")
    ids = ", ".join(f"d{k}" for k in range(rank))
    identity = f"affine_map<({ids}) -> ({ids})>"
    parallel = ", ".join(['"parallel"'] * rank)
    lines.append(f"    %{name} = memref.alloc() : {wide}")
    lines.append(f"    linalg.generic {{indexing_maps = [{identity}, {identity}], "
                 f"iterator_types = [{parallel}]}} ins({value} : {ty}) outs(%{name} : {wide}) {{")
    lines.append(f"    ^bb0(%x: {element}, %y: i32):")
    lines.append(f"      %e = arith.extsi %x : {element} to i32")
    lines.append("      linalg.yield %e : i32")
    lines.append("    }")
    return f"%{name}"
