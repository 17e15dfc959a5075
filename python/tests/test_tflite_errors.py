"""Malformed files and unsupported ops: clear errors, never a traceback.

The small models are built by hand with flatbuffers.Builder following the
public TFLite schema (field i of a table is vtable slot i).
"""

import os
import subprocess
import sys

import flatbuffers
import numpy as np
import pytest

from serenity.tflite import TFLiteError, import_model, load_model
from serenity.tflite.check import verify_mlir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ADD = 0


def _int_vector(b, values):
    b.StartVector(4, len(values), 4)
    for v in reversed(values):
        b.PrependInt32(v)
    return b.EndVector()


def _table_vector(b, offsets):
    b.StartVector(4, len(offsets), 4)
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def build_model(opcode: int, n_inputs: int = 1) -> bytes:
    """A float32 model: tensors t0 (input) and t1 (output) of shape [1, 4],
    one operator `opcode` reading t0 n_inputs times and writing t1."""
    b = flatbuffers.Builder(0)
    # Buffer 0: the empty sentinel buffer every tensor without data points to.
    b.StartObject(1)
    buf0 = b.EndObject()
    tensors = []
    for name in ("in", "out"):
        nm = b.CreateString(name)
        shape = _int_vector(b, [1, 4])
        b.StartObject(5)  # Tensor: 0 shape, 1 type, 2 buffer, 3 name
        b.PrependUOffsetTRelativeSlot(0, shape, 0)
        b.PrependInt8Slot(1, 0, -1)  # FLOAT32 (written explicitly)
        b.PrependUint32Slot(2, 0, 1)
        b.PrependUOffsetTRelativeSlot(3, nm, 0)
        tensors.append(b.EndObject())
    op_in = _int_vector(b, [0] * n_inputs)
    op_out = _int_vector(b, [1])
    b.StartObject(3)  # Operator: 0 opcode_index, 1 inputs, 2 outputs
    b.PrependUint32Slot(0, 0, 1)
    b.PrependUOffsetTRelativeSlot(1, op_in, 0)
    b.PrependUOffsetTRelativeSlot(2, op_out, 0)
    op = b.EndObject()
    tvec = _table_vector(b, tensors)
    sg_in, sg_out = _int_vector(b, [0]), _int_vector(b, [1])
    ops = _table_vector(b, [op])
    b.StartObject(4)  # SubGraph: 0 tensors, 1 inputs, 2 outputs, 3 operators
    b.PrependUOffsetTRelativeSlot(0, tvec, 0)
    b.PrependUOffsetTRelativeSlot(1, sg_in, 0)
    b.PrependUOffsetTRelativeSlot(2, sg_out, 0)
    b.PrependUOffsetTRelativeSlot(3, ops, 0)
    sg = b.EndObject()
    b.StartObject(4)  # OperatorCode: 0 deprecated_builtin_code, 3 builtin_code
    b.PrependInt8Slot(0, opcode, -1)
    b.PrependInt32Slot(3, opcode, -1)
    oc = b.EndObject()
    ocs, sgs, bufs = _table_vector(b, [oc]), _table_vector(b, [sg]), _table_vector(b, [buf0])
    b.StartObject(5)  # Model: 0 version, 1 operator_codes, 2 subgraphs, 4 buffers
    b.PrependUint32Slot(0, 3, 0)
    b.PrependUOffsetTRelativeSlot(1, ocs, 0)
    b.PrependUOffsetTRelativeSlot(2, sgs, 0)
    b.PrependUOffsetTRelativeSlot(4, bufs, 0)
    model = b.EndObject()
    b.Finish(model, file_identifier=b"TFL3")
    return bytes(b.Output())


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-m", "serenity", *args], capture_output=True,
                          text=True, env=env)


def test_hand_built_model_imports():
    # The builder is right: the same model with a supported op imports and verifies.
    text = import_model(load_model(build_model(ADD, n_inputs=2)))
    assert "tosa.add %arg0, %arg0 :" in text
    verify_mlir(text)


LRN, RNN = 13, 24


def unsupported_ops_model() -> bytes:
    """ADD, then LOCAL_RESPONSE_NORMALIZATION twice and RNN once (float32)."""
    from serenity.tflite.writer import ModelWriter
    m = ModelWriter()
    x = m.tensor("x", [1, 4], "float32")
    ts = [m.tensor(f"t{i}", [1, 4], "float32") for i in range(4)]
    m.op("ADD", [x, x], [ts[0]], "AddOptions", {0: ("i8", 0)})
    m.op("LOCAL_RESPONSE_NORMALIZATION", [ts[0]], [ts[1]])
    m.op("RNN", [ts[1]], [ts[2]])
    m.op("LOCAL_RESPONSE_NORMALIZATION", [ts[2]], [ts[3]])
    m.inputs, m.outputs = [x], [ts[3]]
    return m.finish()


def test_unsupported_ops_listed_with_counts_and_first_index():
    model = load_model(unsupported_ops_model())
    with pytest.raises(TFLiteError) as e:
        import_model(model)
    msg = str(e.value)
    assert msg.startswith("3 of 4 operators are not supported: "
                          "LOCAL_RESPONSE_NORMALIZATION x2 (first: operator 1); RNN x1 (first: "
                          "operator 2). Supported: "), msg
    assert "FULLY_CONNECTED" in msg


def test_hybrid_model_suggests_float():
    """int8 weights with float32 activations (TFLite Micro refuses these): an
    error that names --float, never a silently wrong float computation."""
    from serenity.tflite.writer import ModelWriter
    m = ModelWriter()
    x = m.tensor("x", [1, 4], "float32")
    w = m.const("w", np.ones((3, 4)), "int8", scale=0.5, zero_point=0)
    y = m.tensor("y", [1, 3], "float32")
    m.op("FULLY_CONNECTED", [x, w, -1], [y], "FullyConnectedOptions", {0: ("i8", 0)})
    m.inputs, m.outputs = [x], [y]
    model = load_model(m.finish())
    with pytest.raises(TFLiteError, match=r"operator 0 \(FULLY_CONNECTED\): hybrid operator.*--float"):
        import_model(model)
    assert "tosa.conv2d " in import_model(model, float_mode=True)


def test_wrong_magic(tmp_path):
    data = bytearray(build_model(ADD, 2))
    data[4:8] = b"XXXX"
    with pytest.raises(TFLiteError, match="file identifier is b'XXXX', expected b'TFL3'"):
        load_model(bytes(data))
    p = tmp_path / "bad.tflite"
    p.write_bytes(bytes(data))
    r = run_cli("import-tflite", str(p), "-o", str(tmp_path / "x.mlir"))
    assert r.returncode == 1
    assert "expected b'TFL3'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("keep", [3, 12, 40, 0.5, 0.9])
def test_truncated_file(tmp_path, keep):
    data = build_model(ADD, 2)
    n = keep if isinstance(keep, int) else int(len(data) * keep)
    with pytest.raises(TFLiteError):
        load_model(data[:n])
    p = tmp_path / "trunc.tflite"
    p.write_bytes(data[:n])
    r = run_cli("import-tflite", str(p))
    assert r.returncode == 1, r.stdout
    assert "error:" in r.stderr and "Traceback" not in r.stderr


def test_random_garbage_never_tracebacks():
    rng = np.random.default_rng(0)
    good = bytearray(build_model(ADD, 2))
    for _ in range(200):
        bad = bytearray(good)
        for i in rng.integers(8, len(bad), size=4):
            bad[i] = int(rng.integers(0, 256))
        try:
            import_model(load_model(bytes(bad)))
        except TFLiteError:
            pass


def test_missing_file_and_unsupported_op_cli(tmp_path):
    r = run_cli("import-tflite", str(tmp_path / "nope.tflite"))
    assert r.returncode == 1 and "cannot read" in r.stderr and "Traceback" not in r.stderr
    p = tmp_path / "lrn.tflite"
    p.write_bytes(unsupported_ops_model())
    r = run_cli("import-tflite", str(p))
    assert r.returncode == 1
    assert f"error: {p}: 3 of 4 operators are not supported: LOCAL_RESPONSE_NORMALIZATION x2" \
        in r.stderr


def test_mutated_test_models_never_traceback():
    """Random byte changes in every committed test model (all operators the
    importer knows, their options and quantization): a TFLiteError or a
    module, never another exception."""
    import glob
    models = sorted(glob.glob(os.path.join(ROOT, "test", "tflite-ops", "models", "*.tflite")))
    assert models
    rng = np.random.default_rng(1)
    for path in models:
        with open(path, "rb") as f:
            good = f.read()
        for _ in range(6):
            bad = bytearray(good)
            for i in rng.integers(8, len(bad), size=int(rng.integers(1, 4))):
                bad[i] = int(rng.integers(0, 256))
            try:
                import_model(load_model(bytes(bad)))
            except TFLiteError:
                pass
