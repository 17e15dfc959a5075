"""scripts/fuzz-tflite.py: a short seeded run over damaged .tflite files passes
on the current build (the long run, under ASan + UBSan, is in
docs/Reliability.md), and the harness fails on crashes, sanitizer reports,
hangs and errors without a diagnostic (fake serenity-translate scripts)."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "scripts", "fuzz-tflite.py")
MODEL = os.path.join(ROOT, "test", "tflite-ops", "models", "add_relu6.tflite")


def load_fuzz():
    spec = importlib.util.spec_from_file_location("serenity_fuzz_tflite", FUZZ)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_fuzz(*args):
    return subprocess.run([sys.executable, FUZZ] + list(args), capture_output=True, text=True, timeout=3600)


def test_short_run_passes(tmp_path):
    translate = os.path.join(os.environ.get("SERENITY_BUILD_DIR", os.path.join(ROOT, "build")), "bin",
                             "serenity-translate")
    if not os.path.exists(translate):
        pytest.skip("serenity-translate is not built (set SERENITY_BUILD_DIR or run scripts/setup.sh)")
    proc = run_fuzz("--cases", "40", "--seed", "7", "--translate", translate, "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "fuzz-tflite: 40 cases, 40 passed, 0 failed" in proc.stdout
    assert not os.listdir(tmp_path)


# Fake serenity-translate scripts ($2 is the case file): each but the last
# must make the fuzzer fail.
FAKES = {
    "segfault": "kill -SEGV $$",
    "ubsan": 'echo "$2:0:0: error: bad" >&2; echo "Schema.cpp:1:2: runtime error: load of misaligned address" >&2; '
             "exit 1",
    "asan": 'echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow" >&2; exit 1',
    "no diagnostic": "exit 1",
    "error naming another file": 'echo "other.tflite:0:0: error: bad" >&2; exit 1',
    "exit 2": 'echo "$2:0:0: error: bad" >&2; exit 2',
    "hang": "exec sleep 60",
    "clear error": 'echo "$2:0:0: error: file is truncated or corrupt" >&2; exit 1',
}


@pytest.mark.parametrize("fake", sorted(FAKES))
def test_harness_fails_on_crashes(fake, tmp_path):
    script = tmp_path / "serenity-translate"
    script.write_text("#!/bin/sh\n" + FAKES[fake] + "\n")
    script.chmod(0o755)
    out = tmp_path / "out"
    proc = run_fuzz("--cases", "2", "--seed", "1", "--model", MODEL, "--translate", str(script), "--out", str(out),
                    "--timeout", "2")
    if fake == "clear error":
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "2 cases, 2 passed, 0 failed" in proc.stdout
        return
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 cases, 0 passed, 2 failed" in proc.stdout
    with open(out / "tflite-1-0.json") as f:
        record = json.load(f)
    assert record["seed"] == 1 and record["source"] == os.path.relpath(MODEL, ROOT) and record["mutations"]
    assert record["command"].endswith("--import-tflite %s -o %s" % (out / "tflite-1-0.tflite", os.devnull))
    assert (out / "tflite-1-0.tflite").stat().st_size == len(load_fuzz().draw_case(1, 0, [MODEL])[0])


def test_cases_are_seeded():
    fuzz = load_fuzz()
    models = [MODEL, os.path.join(ROOT, "test", "tflite-ops", "models", "fc_float.tflite")]
    cases = [fuzz.draw_case(3, i, models) for i in range(20)]
    assert cases == [fuzz.draw_case(3, i, models) for i in range(20)]
    assert len({data for data, _, _ in cases}) == 20
    assert any(source.startswith("random network") for _, source, _ in cases)
