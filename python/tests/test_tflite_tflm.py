"""The default import (--rounding=double) against TensorFlow Lite Micro.

../shared/bench/tflm holds TFLite Micro's outputs and every intermediate
tensor for given inputs (reference kernels, tflite-micro @90b983c2b3f1). The
import must equal them bit for bit through the upstream reference lowering
and through serenity-pipeline. reference.py (TFLite Micro's int8 kernels in
numpy, written independently of the TOSA emission) is checked against the
same tensors, then used as the oracle on inputs TFLite Micro was not run on.
Skipped with a message without ../shared.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from serenity.tflite import check, import_model, load_file, reference, tflm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, "..", "shared")
MODELS_DIR = os.path.join(SHARED, "models", "mlperf_tiny")
TFLM_DIR = os.path.join(SHARED, "bench", "tflm")
MODELS = ["ad01_int8", "kws_ref_model", "pretrainedResnet_quant", "str_ww_ref_model",
          "vww_96_int8"]

if not os.path.isdir(TFLM_DIR) or not os.path.isdir(MODELS_DIR):
    pytest.skip(f"{TFLM_DIR} is absent: TFLite Micro's references live in ../shared",
                allow_module_level=True)


def model(name):
    return load_file(os.path.join(MODELS_DIR, name + ".tflite"))


def other_inputs(m, seeds):
    """Inputs TFLite Micro was not run on: full-range random, and values
    close to the input zero point (unsaturated softmax outputs)."""
    sg = m.subgraphs[0]
    t = sg.tensors[sg.inputs[0]]
    zp = int(t.quant.zero_point[0])
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        if seed % 3 == 0:
            a = rng.integers(-128, 128, size=t.shape)
        else:
            spread = (4, 16)[seed % 3 - 1]
            a = np.clip(zp + rng.integers(-spread, spread + 1, size=t.shape), -128, 127)
        out.append([a.astype(np.int8)])
    return out


@pytest.mark.parametrize("name", MODELS)
def test_numpy_reference_equals_tflite_micro(name):
    """reference.py reproduces every tensor TFLite Micro dumped."""
    m = model(name)
    cases = tflm.load_cases(m, name, TFLM_DIR)
    assert any(c.tensors for c in cases)
    for c in cases:
        got = reference.run_reference(m, c.inputs)
        for t, want in c.tensors.items():
            assert np.array_equal(got[t].reshape(-1), want.reshape(-1)), (c.seed, t)
        out = m.subgraphs[0].outputs[0]
        assert np.array_equal(got[out].reshape(-1), c.output.reshape(-1)), c.seed


@pytest.mark.parametrize("lowering,options", [("reference", ""), ("pipeline", ""),
                                              ("pipeline", "io=arena")])
@pytest.mark.parametrize("name", MODELS)
def test_import_equals_tflite_micro(name, lowering, options, serenity_opt):
    """Every intermediate tensor and every output, all seeds of ../shared/bench/tflm
    (io=arena: the inputs written into the arena, the outputs read from it)."""
    m = model(name)
    cases = tflm.load_cases(m, name, TFLM_DIR)
    per_case = tflm.compare(m, cases, "double", lowering, options)
    compared = 0
    for c, diffs in zip(cases, per_case):
        assert diffs, c.seed
        for d in diffs:
            assert d.different == 0, (c.seed, d)
            compared += 1
    assert compared >= len(m.subgraphs[0].operators)


@pytest.mark.parametrize("name", MODELS)
def test_import_equals_reference_on_other_inputs(name):
    """Other inputs (incl. unsaturated softmax): every operator's output equals
    the numpy TFLite Micro kernels (reference lowering)."""
    m = model(name)
    sg = m.subgraphs[0]
    batches = other_inputs(m, range(200, 206))
    wanted = [op.outputs[0] for op in sg.operators]
    got = check.run_mlir(import_model(m, outputs=wanted), batches, float_inputs=False)
    distinct = 0
    for b, g in zip(batches, got):
        ref = reference.run_reference(m, b)
        for t, v in zip(wanted, g):
            assert np.array_equal(np.rint(v).astype(np.int64).reshape(-1),
                                  ref[t].astype(np.int64).reshape(-1)), t
        distinct = max(distinct, len(np.unique(ref[sg.outputs[0]])))
    assert distinct > 1  # not a constant output: the check has teeth


@pytest.mark.parametrize("name", ["kws_ref_model", "pretrainedResnet_quant"])
def test_pipeline_equals_reference_on_other_inputs(name, serenity_opt):
    m = model(name)
    batches = other_inputs(m, range(300, 303))
    out = m.subgraphs[0].outputs[0]
    got = check.run_pipeline(import_model(m), batches)
    for b, g in zip(batches, got):
        assert np.array_equal(np.rint(g[0]).astype(np.int64).reshape(-1),
                              reference.run_reference(m, b)[out].astype(np.int64).reshape(-1))


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-m", "serenity", "check-tflite", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)


def test_cli_against_names_the_first_differing_op(tmp_path):
    """A one-byte change in TFLite Micro's tensor of op 3 is reported there,
    with exit status 1; the untouched directory passes."""
    name = "ad01_int8"
    path = os.path.join(MODELS_DIR, name + ".tflite")
    ok = run_cli(path, "--against", TFLM_DIR, "--seeds", "0")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "seed 0 (10 tensors): all equal" in ok.stdout
    bad = tmp_path / "tflm"
    shutil.copytree(TFLM_DIR, bad, ignore=shutil.ignore_patterns("kws*", "pretrained*", "str*", "vww*"))
    op3 = model(name).subgraphs[0].operators[3].outputs[0]
    f = bad / "intermediates" / f"{name}.seed0" / f"t{op3:03d}.bin"
    data = bytearray(f.read_bytes())
    data[5] = (data[5] + 1) % 256
    f.write_bytes(bytes(data))
    r = run_cli(path, "--against", str(bad), "--seeds", "0", "--per-op")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"first: op 3 FULLY_CONNECTED (tensor {op3}): 1/128 elements" in r.stdout
    assert f"tensor {op3:3d}: 127/128 equal, max diff 1 LSB" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["--against", "/nonexistent"], "/nonexistent: no such directory"),
    (["--against", TFLM_DIR, "--seeds", "7"], "no seed(s) [7]"),
    (["--lowering", "pipeline"], "--lowering applies to --against only"),
])
def test_cli_against_errors(args, message):
    r = run_cli(os.path.join(MODELS_DIR, "ad01_int8.tflite"), *args)
    assert r.returncode == 1
    assert message in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("name", MODELS)
def test_activation_ram_is_the_graph_max_live(name, serenity_opt):
    """serenity-pipeline io=arena tile=none: the whole activation RAM (arena,
    input and output in it, nothing held outside) is the TFLite tensor graph's
    max-live and no more than TFLite Micro's activation plan
    (../shared/bench/tflm); with the default fused tiling it is below the
    max-live on the models it tiles (docs/Tiling.md) and never above."""
    from serenity import driver
    from serenity.tflite import report
    m = model(name)
    text = import_model(m)
    tool = driver.SerenityOpt(serenity_opt)
    tiled = report.allocation_report(tool, text, "io=arena")
    assert tiled["io_bytes"] == 0
    tiled_ram = tiled["arena_bytes"]
    alloc = report.allocation_report(tool, text, "io=arena tile=none")
    ram = alloc["arena_bytes"] + alloc["io_bytes"]
    assert alloc["io_bytes"] == 0
    # The tensor graph's max-live; below it where depthwise and 1x1 convs are
    # computed over their inputs (kws: one activation and two held rows).
    if name == "kws_ref_model":
        assert ram == 8000 + 2 * 5 * 64 < report.tflite_graph_peak(m)
    else:
        assert ram == report.tflite_graph_peak(m)
    _, activations, _ = report.tflm_arenas(TFLM_DIR)[name]
    assert ram <= activations
    # No padded copies; the accumulators of convs with their requantization
    # are registers (an average pool's window sums may stay, off the peak).
    assert all(b["kind"] in ("tensor", "accumulator", "in-place-scratch")
               for b in alloc["buffers"])
    assert all(r["size"] <= 8 for r in alloc["register_buffers"])
    if name in ("pretrainedResnet_quant", "str_ww_ref_model", "vww_96_int8"):
        assert tiled_ram < ram
    else:
        assert tiled_ram == ram


def test_report_buffers_names_origins(serenity_opt):
    """report-tflite --buffers lists every arena buffer with its kind and the
    imported TOSA op; with whole-pixel tiles the accumulator shows up."""
    path = os.path.join(MODELS_DIR, "kws_ref_model.tflite")
    env = dict(os.environ, SERENITY_OPT=serenity_opt, PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([sys.executable, "-m", "serenity", "report-tflite", path, "--buffers",
                          "--pipeline-options", "tile-channels=0"],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert "| accumulator | linalg.depthwise_conv_2d_nhwc_hwcm | line " in out
    assert "`tosa.depthwise_conv2d`" in out
    assert "arena 16256 B" in out
    out = subprocess.run([sys.executable, "-m", "serenity", "report-tflite", path, "--buffers"],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert "arena 8640 B" in out and "kept in registers" in out
    assert "| in-place-scratch |" in out
    assert "| input |" in out and "| output |" in out
