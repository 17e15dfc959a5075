"""``bench --suite zoo`` (issue 47): model discovery, TFLite Micro's reference
layout, the harness printout, and the whole suite on two small models of
../shared with the real serenity-compile (skipped with a message without
../shared or the build)."""

import argparse
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from serenity import zoo
from serenity.deploy import find_compiler

SHARED = os.path.join(zoo.ROOT, "..", "shared")
CLANG = "/usr/lib/llvm-22/bin/clang"  # what run_compiled.py links host programs with


def test_extra_macs_comes_from_the_report_only():
    assert zoo.extra_macs({"tiling": {"macs": 1070, "untiled_macs": 1000, "kept": True}}) == pytest.approx(7.0)
    assert zoo.extra_macs({"tiling": {"ram_saved": 10, "flash_cost": 4, "kept": True}}) is None
    assert zoo.extra_macs({"arena_bytes": 32}) is None


def test_reference_steps_pair_inputs_with_every_output(tmp_path):
    for name in ("m.seed0.input.bin", "m.seed0.bin", "m.seed0.output1.bin", "m.seed10.input.bin",
                 "m.seed10.bin", "m.seed10.output1.bin", "m.io.json", "mm.seed1.input.bin"):
        (tmp_path / name).write_bytes(b"\0")
    steps = zoo.reference_steps(str(tmp_path), "m")
    assert [seed for seed, _, _ in steps] == [0, 10]
    assert [os.path.basename(p) for p in steps[1][2]] == ["m.seed10.bin", "m.seed10.output1.bin"]


def test_harness_printout_counts_the_seeds_that_differ():
    printed = "\n".join([
        "state 0 bytes, 3 steps",
        "host step 0 0: 5 elements, 3 distinct values in [-1, 2], max abs diff 0, 0 beyond tolerance",
        "host step 0 1: 2 elements, 2 distinct values in [0, 1], max abs diff 0, 0 beyond tolerance",
        "host step 1 (after reset) 0: 5 elements, 3 distinct values in [-1, 2], max abs diff 1, 2 beyond tolerance",
        "host step 1 (after reset) 1: 2 elements, 2 distinct values in [0, 1], max abs diff 0, 0 beyond tolerance",
        "host step 2 (after reset) 0: 5 elements, 3 distinct values in [-1, 2], max abs diff 0, 0 beyond tolerance",
        "FAIL"])
    # Step 1 differs; step 2 printed only one of its two outputs.
    assert zoo.parse_harness_steps(printed, "host", 3, 2) == 2
    assert zoo.parse_harness_steps("error: clang failed", "host", 3, 1) is None


def test_models_by_group_and_only(tmp_path):
    for path in ("b/y.tflite", "b/x.tflite", "a/z.tflite", "notes/README.md"):
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_bytes(b"")
    models = zoo.find_models(str(tmp_path))
    assert [(m.group, m.name) for m in models] == [("a", "z"), ("b", "x"), ("b", "y")]
    assert [m.name for m in zoo.find_models(str(tmp_path), ["y", "z"])] == ["z", "y"]
    with pytest.raises(ValueError, match="no model w"):
        zoo.find_models(str(tmp_path), ["w"])


def test_table_state_column_and_summary():
    rows = [{"model": "a", "group": "g1", "tflm": 100, "untiled": 80, "default": 50, "state": 0, "ratio": 0.5,
             "macs": 4.25, "exact": "yes", "compile_s": 1.26, "error": None},
            {"model": "b", "group": "g2", "tflm": 100, "untiled": 200, "default": 200, "state": 60, "ratio": 2.0,
             "macs": None, "exact": "NO (1 of 3 seeds differ)", "compile_s": 0.5, "error": None}]
    lines = zoo.markdown(rows).splitlines()
    assert lines[0] == ("| model | TFLite Micro activations | ours untiled | ours default | state | "
                        "ratio (default / TFLM) | extra MACs | bit-exact | compile s |")
    assert lines[2] == "| a | 100 | 80 | 50 | - | 0.50 | +4.2% | yes | 1.3 |"
    assert lines[3] == "| b | 100 | 200 | 200 | 60 | 2.00 | - | NO (1 of 3 seeds differ) | 0.5 |"
    assert "state" not in zoo.markdown(rows[:1]).splitlines()[0].split(" | ")
    assert zoo.summary(rows) == [
        "Geomean of ours default / TFLite Micro activations: g1 0.50 (1 model), g2 2.00 (1 model), "
        "all 1.00 (2 models).",
        "Above TFLite Micro's activations: 1 of 2 models (b)."]


def test_tflm_arenas_reads_the_zoo_table(tmp_path):
    """../shared/bench/tflm/README.md's three tables: MLPerf Tiny (smallest
    arena, activations, persistent, max-live), TFLite Micro's examples (ops
    first) and the zoo (seeds last)."""
    from serenity.tflite.report import tflm_arenas
    (tmp_path / "README.md").write_text("\n".join([
        "| ad01_int8 | 4080 | 768 | 2656 | 768 |",
        "| hello_world_int8 | FULLY_CONNECTED x3 | 1184 | 32 | 1152 | 0,1,2; 10,11,12 |",
        "| fomo_face_detection | 239696 | 225840 | 13856 | 0,1,2; 10,11,12 |",
        "| kws_ref_model | 2.66M | 7,698,600 | 175,240 | 1,815,031 | 164,204 |"]))
    assert tflm_arenas(str(tmp_path)) == {"ad01_int8": (4080, 768, 768), "hello_world_int8": (1184, 32, None),
                                          "fomo_face_detection": (239696, 225840, None)}


def _args(**kw):
    parser = argparse.ArgumentParser()
    zoo.add_arguments(parser)
    parser.add_argument("--keep")
    args = parser.parse_args([])
    for key, value in kw.items():
        setattr(args, key, value)
    return args


def test_absent_models_dir_is_a_message(tmp_path):
    log = io.StringIO()
    assert zoo.run_zoo(_args(models=str(tmp_path / "none")), log=log) == 1
    assert "none does not exist" in log.getvalue() and "--models DIR" in log.getvalue()


def _needs_build_and_shared():
    if not os.path.isdir(os.path.join(SHARED, "models")) or not os.path.isdir(os.path.join(SHARED, "bench", "tflm")):
        pytest.skip("../shared/models and ../shared/bench/tflm are absent (the shared models; CI has them)")
    if not os.path.isfile(find_compiler()):
        pytest.skip("serenity-compile not built (PATH or $SERENITY_BUILD_DIR/bin)")
    if not os.path.exists(CLANG):
        pytest.skip("%s (LLVM 22) not installed: run_compiled.py links host programs with it" % CLANG)


def _run_suite(*extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(zoo.ROOT, "python"), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "serenity", "bench", "--suite", "zoo", *extra],
                          capture_output=True, text=True, env=env, timeout=300)


def _table(stdout):
    lines = [l for l in stdout.splitlines() if l.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return header, {cells[0]: dict(zip(header, cells)) for cells in
                    ([c.strip() for c in l.strip("|").split("|")] for l in lines[2:])}


def test_zoo_suite_on_two_small_models(tmp_path):
    """The arenas are the reports', TFLite Micro's the README's, and both
    models equal TFLite Micro on every seed."""
    _needs_build_and_shared()
    from serenity.tflite.report import tflm_arenas
    proc = _run_suite("--only", "hello_world_int8,ad01_int8", "--keep", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    header, rows = _table(proc.stdout)
    assert header == ["model", "TFLite Micro activations", "ours untiled", "ours default", "ratio (default / TFLM)",
                      "extra MACs", "bit-exact", "compile s"]
    assert list(rows) == ["ad01_int8", "hello_world_int8"]
    tflm = tflm_arenas(os.path.join(SHARED, "bench", "tflm"))
    for name, row in rows.items():
        with open(tmp_path / name / "default" / "net.json") as f:
            default = json.load(f)
        with open(tmp_path / name / "untiled" / "net.json") as f:
            untiled = json.load(f)
        assert int(row["ours default"]) == default["arena_bytes"]
        assert int(row["ours untiled"]) == untiled["arena_bytes"]
        assert int(row["TFLite Micro activations"]) == tflm[name][1]
        assert row["ratio (default / TFLM)"] == "%.2f" % (default["arena_bytes"] / tflm[name][1])
        assert row["bit-exact"] == "yes"
        assert 0 < float(row["compile s"]) < 60
    assert "Geomean of ours default / TFLite Micro activations: mlperf_tiny " in proc.stdout
    assert "[2/2] tflite-micro/hello_world_int8" in proc.stderr


def test_zoo_suite_reports_a_seed_that_differs(tmp_path):
    """One byte of one TFLite Micro output changed: that seed differs, the
    suite fails."""
    _needs_build_and_shared()
    tflm = os.path.join(SHARED, "bench", "tflm")
    (tmp_path / "reference").mkdir()
    shutil.copy(os.path.join(tflm, "README.md"), tmp_path / "README.md")
    for path in os.listdir(os.path.join(tflm, "reference")):
        if path.startswith("hello_world_int8."):
            shutil.copy(os.path.join(tflm, "reference", path), tmp_path / "reference" / path)
    seeds = len(zoo.reference_steps(str(tmp_path / "reference"), "hello_world_int8"))
    bad = tmp_path / "reference" / "hello_world_int8.seed1.bin"
    data = bytearray(bad.read_bytes())
    data[0] ^= 1
    bad.write_bytes(bytes(data))
    proc = _run_suite("--only", "hello_world_int8", "--tflm", str(tmp_path))
    assert proc.returncode == 1
    _, rows = _table(proc.stdout)
    assert rows["hello_world_int8"]["bit-exact"] == "NO (1 of %d seeds differ)" % seeds
