"""The five MLPerf Tiny models: import, verify, run, compare with Arm NN.

Models come from ../shared/models/mlperf_tiny (skipped with a message when
absent); Arm NN (python3-pyarmnn + libarmnn-cpuref-backend22, installed by
scripts/setup.sh) is the reference. One Arm NN runtime serves the process.
"""

import json
import os
import re
import subprocess

import numpy as np
import pytest

from serenity.tflite import import_model, load_file
from serenity.tflite import check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS_DIR = os.path.join(ROOT, "..", "shared", "models", "mlperf_tiny")
MODELS = ["ad01_int8", "kws_ref_model", "pretrainedResnet_quant", "str_ww_ref_model",
          "vww_96_int8"]
SEEDS = [0, 1, 2, 3]

if not os.path.isdir(MODELS_DIR):
    pytest.skip(f"{MODELS_DIR} is absent: the MLPerf Tiny models live in ../shared",
                allow_module_level=True)


def model_path(name):
    return os.path.join(MODELS_DIR, name + ".tflite")


# Integer rounding vs Arm NN, per model and mode; written at the end of the
# module to $SERENITY_BUILD_DIR/test-results/tflite-vs-armnn.json (scripts/test.sh
# creates that directory) so the measured difference is kept with the results.
REPORT = {}


@pytest.fixture(scope="module", autouse=True)
def write_report():
    yield
    build = os.environ.get("SERENITY_BUILD_DIR")
    results = os.path.join(build, "test-results") if build else None
    if REPORT and results and os.path.isdir(results):
        with open(os.path.join(results, "tflite-vs-armnn.json"), "w") as f:
            json.dump(REPORT, f, indent=1, sort_keys=True)


@pytest.fixture(scope="module")
def armnn():
    reason = check.armnn_available()
    if reason:
        pytest.skip(reason)
    return check


@pytest.fixture(scope="module")
def reference(armnn):
    """Arm NN outputs for every model and seed, computed once."""
    out = {}
    for name in MODELS:
        model = load_file(model_path(name))
        batches = [check.seeded_inputs(model, s) for s in SEEDS]
        out[name] = (model, batches, armnn.run_armnn(model_path(name), batches))
    return out


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("mode", ["double", "single", "armnn", "float"])
def test_imports_and_verifies(name, mode):
    model = load_file(model_path(name))
    if mode == "float":
        text = import_model(model, float_mode=True)
        assert "xi8>" not in text.split("func.func @main")[1].split("{")[0]
    else:
        text = import_model(model, rounding=mode)
    assert text.count("func.func @main(") == 1
    check.verify_mlir(text, tosa_validate=True)


def compare(reference, name, rounding):
    model, batches, ref = reference[name]
    got = check.run_mlir(import_model(model, rounding=rounding), batches, float_inputs=False)
    out = model.subgraphs[0].outputs
    return [check.compare_int8(model, out[o], ref[b][o], got[b][o])
            for b in range(len(batches)) for o in range(len(out))]


@pytest.mark.parametrize("name", MODELS)
def test_armnn_rounding_is_bit_exact(reference, name):
    """--rounding=armnn equals Arm NN CpuRef on every output element of every seed."""
    cs = compare(reference, name, "armnn")
    REPORT.setdefault(name, {})["armnn"] = {
        "exact_rate": float(np.mean([c.exact_rate for c in cs])),
        "max_diff_lsb": max(c.max_lsb for c in cs), "seeds": SEEDS}
    assert all(c.exact_rate == 1.0 and c.max_lsb == 0 for c in cs), cs


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("rounding", ["single", "double"])
def test_integer_rounding_vs_armnn_reported(reference, name, rounding):
    """Integer TOSA (SINGLE_ROUND / DOUBLE_ROUND) against Arm NN: the difference is
    reported (REPORT above); CpuRef accumulates in float32, so even single
    rounding differs where float noise crosses a rounding boundary."""
    cs = compare(reference, name, rounding)
    rate = float(np.mean([c.exact_rate for c in cs]))
    max_lsb = max(c.max_lsb for c in cs)
    REPORT.setdefault(name, {})[rounding] = {
        "exact_rate": rate, "max_diff_lsb": max_lsb,
        "max_float_err": max(c.max_float_err for c in cs), "seeds": SEEDS}
    # Loose sanity bounds (measured, docs/TFLiteImport.md): a wrong graph
    # (layout, zero point, scale) is far outside them.
    assert rate >= (0.9 if rounding == "single" else 0.6)
    assert max_lsb <= 64


@pytest.mark.parametrize("name", ["kws_ref_model", "pretrainedResnet_quant"])
def test_float_import_op_by_op(name):
    """Each op of the --float graph is within 0.5 LSB (+ float noise) of the
    bit-exact int8 op on the same inputs; these two models contain every
    supported op kind."""
    errors = check.per_op_float_errors(load_file(model_path(name)))
    assert {n for _, n, _ in errors} >= ({"CONV_2D", "RESHAPE", "FULLY_CONNECTED", "SOFTMAX",
                                          "AVERAGE_POOL_2D"})
    bad = [(i, n, e) for i, n, e in errors if e > 0.501]
    assert not bad, bad


@pytest.mark.parametrize("name", MODELS)
def test_float_import_runs(name):
    model = load_file(model_path(name))
    sg = model.subgraphs[0]
    inputs = [check.dequantize(model, i, a)
              for i, a in zip(sg.inputs, check.seeded_inputs(model, 0))]
    out = check.run_mlir(import_model(model, float_mode=True), [inputs], float_inputs=True)[0][0]
    assert out.shape == tuple(sg.tensors[sg.outputs[0]].shape)
    assert np.all(np.isfinite(out))
    if name != "ad01_int8":  # classifiers end in softmax
        assert np.allclose(out.sum(axis=-1), 1.0, atol=1e-5)


def serenity_opt():
    for d in (os.environ.get("SERENITY_BUILD_DIR"), os.path.join(ROOT, "build")):
        if d and os.path.exists(os.path.join(d, "bin", "serenity-opt")):
            return os.path.join(d, "bin", "serenity-opt")
    return None


@pytest.mark.parametrize("name", MODELS)
def test_memory_report_counts_int8_as_one_byte(name, tmp_path):
    tool = serenity_opt()
    if tool is None:
        pytest.skip("serenity-opt is not built (set SERENITY_BUILD_DIR or run scripts/setup.sh)")
    # The generic form: one `%N = "tosa.op"(...) ... -> type` line per op to read sizes from.
    imported = import_model(load_file(model_path(name)))
    text = subprocess.run([tool, "-", "--mlir-print-op-generic"], input=imported,
                          capture_output=True, text=True, check=True).stdout
    f = tmp_path / "m.mlir"
    f.write_text(text)
    r = subprocess.run([tool, str(f), "--serenity-memory-report=format=json", "-o", os.devnull],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout or r.stderr)
    fn = report["functions"][0]
    assert fn["function"] == "main"
    # Every activation buffer's size follows from the type the importer wrote:
    # i8 -> 1 byte per element, i32 accumulators -> 4.
    sizes = {}
    for m in re.finditer(r"(%\d+) = \"tosa\.\w+\"\(.*-> tensor<([0-9x]+)x(i8|i32)>", text):
        n = int(np.prod([int(d) for d in m.group(2).split("x")]))
        sizes[m.group(1)] = n * (1 if m.group(3) == "i8" else 4)
    arg = re.search(r"@main\(%arg0: tensor<([0-9x]+)xi8>", imported)
    sizes["%arg0"] = int(np.prod([int(d) for d in arg.group(1).split("x")]))
    checked = 0
    for buf in fn["buffers"]:
        if buf["name"] in sizes:
            assert buf["bytes"] == sizes[buf["name"]], buf
            checked += 1
    assert checked >= len(fn["buffers"]) // 2
    assert fn["peak_bytes"] == max(s["live_bytes"] for s in fn["steps"])


def test_armnn_rounding_every_intermediate_tensor_bit_exact(armnn):
    """Op by op (Arm NN asked for each intermediate tensor): kws on seed 12,
    where integer SINGLE_ROUND already differs at the first conv."""
    path = model_path("kws_ref_model")
    model = load_file(path)
    batches = [check.seeded_inputs(model, 12)]
    rows = armnn.per_op_compare(path, model, batches, "armnn")
    assert len(rows) == len(model.subgraphs[0].operators)
    assert all(rate == 1.0 and lsb == 0 for _, _, rate, lsb in rows), rows
    single = armnn.per_op_compare(path, model, batches, "single")
    assert single[0][2] < 1.0  # the float-noise case this mode exists for


def test_bench_tflite_suite_reports_the_imported_peaks():
    from serenity import bench
    from serenity.driver import SerenityOpt
    from serenity.tflite.report import model_memory
    tool_path = serenity_opt()
    if tool_path is None:
        pytest.skip("serenity-opt is not built (set SERENITY_BUILD_DIR or run scripts/setup.sh)")
    cases = bench.SUITES["tflite"]
    assert [c.label for c in cases] == MODELS
    columns, rows, _ = bench.run_suite(cases[:2], SerenityOpt(tool_path))
    peak = [c.name for c in columns].index("peak as written")
    for case, row in zip(cases[:2], rows):
        as_imported, schedule, allocation = model_memory(
            SerenityOpt(tool_path), import_model(load_file(case.tflite_path)))
        assert row[peak] == as_imported.peak_bytes
        # A proven dp schedule is never above the order as imported; the arena
        # of the whole pipeline is never below its own max-live bound.
        assert schedule["peak_bytes"] <= as_imported.peak_bytes
        assert allocation.arena_bytes >= allocation.lower_bound > 0
