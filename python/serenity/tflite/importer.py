"""TFLite -> TOSA import through the C++ translation (``serenity-translate --import-tflite``).

The importer itself is C++ (lib/Target/TFLite; docs/TFLiteImport.md): this module runs
``serenity-translate`` on the model's original bytes and returns the printed module
(TOSA v22, one ``func.func @main``), or raises :class:`TFLiteError` with the translation's
message.
"""

import functools
import re
import subprocess
from typing import List, Optional

from .schema import Model, TFLiteError

# "<stdin>:0:0: error: MESSAGE": the location prefix of the translation's diagnostics.
_DIAGNOSTIC = re.compile(r"^.*?:\d+:\d+: error: ", re.M)
_ANY_DIAGNOSTIC = re.compile(r"^.*?:\d+:\d+: (error|note|warning): ", re.M)


def translate(buffer: bytes, float_mode: bool = False, rounding: str = "double",
              outputs: Optional[List[int]] = None, only_op: Optional[int] = None,
              canonicalize: bool = True, timeout: Optional[float] = None) -> str:
    """``serenity-translate --import-tflite`` on the bytes of a .tflite file: the module
    text, or TFLiteError carrying the translation's error message."""
    from ..driver import ToolNotFoundError, find_serenity_translate
    try:
        tool = find_serenity_translate()
    except ToolNotFoundError as e:
        raise TFLiteError(str(e)) from None
    if only_op is not None and only_op < 0:
        raise TFLiteError(f"operator index {only_op} out of range")
    cmd = [tool, "--import-tflite", "-", f"--tflite-rounding={rounding}"]
    if float_mode:
        cmd.append("--tflite-float")
    if outputs is not None:
        if not outputs:
            raise TFLiteError("no outputs requested")
        cmd.append("--tflite-outputs=" + ",".join(str(int(i)) for i in outputs))
    if only_op is not None:
        cmd.append(f"--tflite-only-op={int(only_op)}")
    if not canonicalize:
        cmd.append("--tflite-canonicalize=false")
    proc = subprocess.run(cmd, input=bytes(buffer), capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        starts = list(_DIAGNOSTIC.finditer(err))
        if not starts:
            raise TFLiteError(f"serenity-translate failed (exit {proc.returncode}): "
                              f"{err.strip() or 'no message'}")
        # The first error's message, up to the next diagnostic (its note names the
        # operator's location: file, index, builtin, output tensor).
        rest = err[starts[0].end():]
        following = _ANY_DIAGNOSTIC.search(rest)
        raise TFLiteError(rest[:following.start() if following else len(rest)].rstrip("\n"))
    return proc.stdout.decode("utf-8")


def import_model(model: Model, float_mode: bool = False, rounding: str = "double",
                 outputs: Optional[List[int]] = None, only_op: Optional[int] = None,
                 canonicalize: bool = True) -> str:
    """Returns the MLIR text of the imported model; raises TFLiteError on unsupported input.

    For op-by-op debugging and checks: ``outputs`` returns these tensor indices
    instead of the subgraph's outputs (the graph is cut after the last operator
    needed); ``only_op`` imports operator ``only_op`` alone, its activation
    inputs becoming the function arguments. ``canonicalize=False`` imports each
    operator as it is (every PAD a ``tosa.pad``, every RESHAPE of a RESHAPE, pools
    in the file's layout), to compare with the canonical import.
    """
    buffer = getattr(model, "buffer", b"")
    if not buffer:
        raise TFLiteError("the model has no file bytes (decode it with load_model or load_file)")
    return translate(buffer, float_mode, rounding, outputs, only_op, canonicalize)


@functools.lru_cache(maxsize=1)
def supported_operators() -> List[str]:
    """The TFLite operators the C++ importer takes, sorted (``serenity-translate
    --tflite-operators``)."""
    from ..driver import ToolNotFoundError, find_serenity_translate
    try:
        tool = find_serenity_translate()
    except ToolNotFoundError as e:
        raise TFLiteError(str(e)) from None
    out = subprocess.run([tool, "--tflite-operators"], capture_output=True, check=True)
    return sorted(out.stdout.decode().split())
