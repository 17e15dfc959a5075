"""scripts/fuzz.py: a short seeded run passes on the current build (the long
run is `scripts/fuzz.py --seconds N`), and its arena check catches the
overlaps it is there for."""

import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "scripts", "fuzz.py")


def load_fuzz():
    spec = importlib.util.spec_from_file_location("serenity_fuzz", FUZZ)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_fuzz_run_passes(serenity_opt, tmp_path):
    proc = subprocess.run([sys.executable, FUZZ, "--cases", "8", "--seconds", "600", "--seed", "3",
                           "--serenity-opt", serenity_opt, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "fuzz: 8 cases, 8 passed, 0 failed" in proc.stdout
    assert not os.listdir(tmp_path)


def test_arena_check_finds_overlaps_and_misalignment():
    fuzz = load_fuzz()
    a = {"name": "%a", "first": 0, "last": 3, "offset": 0, "size": 64}
    b = {"name": "%b", "first": 2, "last": 5, "offset": 64, "size": 64}
    report = {"arena_bytes": 128, "buffers": [a, b]}
    assert fuzz.arena_error(report, 64) is None
    assert "overlap" in fuzz.arena_error({"arena_bytes": 128, "buffers": [a, dict(b, offset=32)]}, 16)
    assert "misaligned" in fuzz.arena_error(report, 128)
    assert "outside" in fuzz.arena_error({"arena_bytes": 100, "buffers": [a, b]}, 64)
    # Disjoint lifetimes may share bytes.
    assert fuzz.arena_error({"arena_bytes": 64, "buffers": [a, dict(b, first=4, offset=0)]}, 64) is None


def test_case_drawing_is_seeded():
    fuzz = load_fuzz()
    import random
    assert [fuzz.draw_case(random.Random(5)) for _ in range(1)] == [fuzz.draw_case(random.Random(5))]
