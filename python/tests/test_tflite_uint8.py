"""uint8 model inputs and outputs (issue 48): TFLite converters give many public
models uint8 edges around an int8 body (QUANTIZE uint8 -> int8 first, int8 -> uint8
last), which TFLite Micro runs. The import computes a uint8 u as the int8 u - 128
(its bits with the sign bit flipped) with zero point z - 128; equality with TFLite
Micro on every seed, host and QEMU Cortex-M4: test/tflite-ops (uint8_io_same_scale,
uint8_io_rescaled) in test_tflite_ops.py. Here: the C header a caller gets, and the
error for a uint8 tensor anywhere else."""

import json
import os
import subprocess

import numpy as np
import pytest

from serenity.tflite import TFLiteError, import_model, load_model
from serenity.tflite.testmodels.composite import Graph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "test", "tflite-ops", "models")


def test_header_declares_uint8_edges(tmp_path):
    tool = os.path.join(os.environ.get("SERENITY_BUILD_DIR", os.path.join(ROOT, "build")), "bin",
                        "serenity-compile")
    if not os.path.exists(tool):
        pytest.skip("serenity-compile is not built (scripts/setup.sh)")
    proc = subprocess.run([tool, os.path.join(MODELS, "uint8_io_rescaled.tflite"), "--target",
                           "cortex-m4", "--name", "net", "-o", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "net.h").read_text()
    assert "static inline uint8_t *net_input0(void *arena)" in header, header
    assert "static inline uint8_t *net_output0(void *arena)" in header, header
    report = json.loads((tmp_path / "net.json").read_text())
    assert [o["type"] for o in report["inputs"] + report["outputs"]] == ["uint8_t", "uint8_t"]
    assert report["inputs"][0]["zero_point"] == 100


def test_uint8_elsewhere_is_a_clear_error():
    """A uint8 tensor an ADD reads (TFLite Micro's ADD takes no uint8) is refused,
    naming the tensor and what uint8 may be."""
    g = Graph(72)
    x = g.t([1, 4], "uint8", q=(0.05, 128))
    y = g.t([1, 4], "uint8", q=(0.05, 128))
    g.m.op("ADD", [x, x], [y], "AddOptions", {0: ("i8", 0)})
    g.m.inputs, g.m.outputs = [x], [y]
    with pytest.raises(TFLiteError, match=r"tensor 0 't1' has type UINT8: only a model input read by "
                                          r"QUANTIZE \(uint8 -> int8\)"):
        import_model(load_model(g.m.finish()))


def test_uint8_input_imports_as_int8_bits():
    from serenity.tflite.schema import load_file
    text = import_model(load_file(os.path.join(MODELS, "uint8_io_same_scale.tflite")))
    assert "unsigned = true" in text
    assert text.count("tosa.bitwise_xor ") == 2
