"""plot writes PNGs; bench tables match the memory reports and grow the
scheduler columns when serenity-opt has --serenity-schedule."""

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from serenity import bench
from serenity.driver import SerenityOpt, parse_allocation_report
from serenity.networks import generate
from serenity.plot import plot_arena, plot_live_memory

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_serenity_opt.py")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def fake_tool(tmp_path):
    path = tmp_path / "serenity-opt"
    shutil.copy(FAKE, path)
    os.chmod(path, 0o755)
    return str(path)


def _is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == PNG_MAGIC and os.path.getsize(path) > 5000


def test_plot_live_memory(tmp_path):
    out = tmp_path / "m.png"
    plot_live_memory([("as written", [1024, 4096, 2048]), ("dp", [1024, 2048, 2048])], str(out), "t")
    assert _is_png(out)
    with pytest.raises(ValueError):
        plot_live_memory([], str(out))


def test_plot_arena(tmp_path):
    report = {"function": "main", "arena_bytes": 3072, "lower_bound": 2048,
              "buffers": [{"name": "%0", "offset": 0, "size": 1024, "first": 0, "last": 1},
                          {"name": "%1", "offset": 1024, "size": 2048, "first": 1, "last": 3}]}
    [alloc] = parse_allocation_report(json.dumps(report))
    plot_arena(alloc, str(tmp_path / "a.png"))
    assert _is_png(tmp_path / "a.png")


def test_plot_cli_with_real_tool(serenity_opt, tmp_path):
    src = tmp_path / "r.mlir"
    src.write_text(generate("resnet8"))
    out = tmp_path / "r.png"
    proc = subprocess.run([sys.executable, "-m", "serenity", "plot", "memory", str(src), "-o", str(out),
                           "--serenity-opt", serenity_opt], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert _is_png(out)


def test_plot_cli_from_saved_reports(serenity_opt, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(generate("kws-dscnn"))
    report = tmp_path / "k.json"
    report.write_text(subprocess.run([serenity_opt, str(src), "--serenity-memory-report=format=json", "-o",
                                      os.devnull], capture_output=True, text=True, check=True).stdout)
    out = tmp_path / "k.png"
    proc = subprocess.run([sys.executable, "-m", "serenity", "plot", "memory", "--report", "before=%s" % report,
                           "--report", str(report), "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert _is_png(out)
    bad = subprocess.run([sys.executable, "-m", "serenity", "plot", "memory", "--report", str(report),
                          "--function", "nope", "-o", str(out)], capture_output=True, text=True)
    assert bad.returncode == 1 and "function nope not found" in bad.stderr


def test_plot_cli_schedules_with_fake_tool(fake_tool, tmp_path):
    src = tmp_path / "r.mlir"
    src.write_text("")
    out = tmp_path / "s.png"
    proc = subprocess.run([sys.executable, "-m", "serenity", "plot", "memory", str(src), "--schedule", "dp",
                           "--schedule", "kahn", "-o", str(out), "--serenity-opt", fake_tool],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert _is_png(out)


def available_smoke_cases():
    """The smoke suite minus the cases whose inputs (../shared) are absent."""
    return [c for c in bench.SUITES["smoke"] if c.skip_reason() is None]


def test_bench_smoke_matches_reports(serenity_opt, tmp_path):
    tool = SerenityOpt(serenity_opt)
    columns, rows, summary = bench.run_suite(bench.SUITES["smoke"], tool, workdir=str(tmp_path))
    names = [c.name for c in columns]
    assert names[:4] == ["network", "ops", "activation bytes total", "peak as written"]
    assert ("dp" in names) == tool.has_pass("serenity-schedule")
    files = sorted(p for p in os.listdir(tmp_path) if p.endswith(".mlir"))
    assert len(files) == len(rows) == len(available_smoke_cases())
    for row, name in zip(rows, files):
        report = tool.memory_report(str(tmp_path / name))[0]
        assert row[1:4] == [report.ops, report.activation_bytes, report.peak_bytes]
        # Peak can never exceed the sum of all buffers.
        assert 0 < row[3] <= row[2]
    table = bench.markdown_table(columns, rows, summary)
    assert table.splitlines()[0].startswith("| network | ops |")
    assert len(table.splitlines()) == 2 + len(rows) + (1 if any(summary) else 0)


def test_bench_schedule_columns_with_fake_tool(fake_tool, tmp_path):
    cases = available_smoke_cases()[:2]
    columns, rows, summary = bench.run_suite(cases, SerenityOpt(fake_tool))
    names = [c.name for c in columns]
    assert names == ["network", "ops", "activation bytes total", "peak as written", "kahn", "greedy", "dp",
                     "proven", "dp work", "reduction vs program order"]
    assert rows[0][4:] == [1500, 1200, 1000, True, 7, 2.0]
    assert summary[-1] == "geomean 2.00x"
    table = bench.markdown_table(columns, rows, summary)
    assert "| yes | 7 | 2.00x |" in table
    bench.write_csv(str(tmp_path / "t.csv"), columns, rows)
    with open(tmp_path / "t.csv") as f:
        data = list(csv.reader(f))
    assert data[0] == names and len(data) == 3


def test_bench_cli_writes_csv(serenity_opt, tmp_path):
    out = tmp_path / "b.csv"
    proc = subprocess.run([sys.executable, "-m", "serenity", "bench", "--suite", "smoke", "--csv", str(out),
                           "--serenity-opt", serenity_opt], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("| network |")
    with open(out) as f:
        assert len(list(csv.reader(f))) == 1 + len(available_smoke_cases())


def test_bench_passes_dp_work_limit_only_to_dp(fake_tool, tmp_path, monkeypatch):
    log = tmp_path / "log.txt"
    monkeypatch.setenv("FAKE_SERENITY_LOG", str(log))
    tool = SerenityOpt(fake_tool)
    options = bench.schedule_options(tool, ["kahn:foo=1", "bar=2"], 1500)
    assert options == {"kahn": {"foo": "1"}, "*": {"bar": "2"}, "dp": {"work-limit": "1500"}}
    bench.run_suite(bench.SUITES["smoke"][:1], tool, schedule_options=options)
    calls = [line for line in log.read_text().splitlines() if line]
    assert "--serenity-schedule=algorithm=dp bar=2 work-limit=1500" in calls
    assert "--serenity-schedule=algorithm=kahn bar=2 foo=1" in calls
    assert "--serenity-schedule=algorithm=greedy bar=2" in calls


def test_register_column_after():
    col = bench.Column("extra", lambda c: 1)
    bench.register_column(col, after="ops")
    try:
        assert [c.name for c in bench.COLUMNS].index("extra") == 2
    finally:
        bench.COLUMNS.remove(col)
    with pytest.raises(ValueError):
        bench.register_column(col, after="missing")


def test_gen_cli(tmp_path):
    out = tmp_path / "f.mlir"
    proc = subprocess.run([sys.executable, "-m", "serenity", "gen", "fire-module", "--resolution", "8",
                           "--param", "squeeze=4", "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "tensor<1x8x8x96xf32>" in out.read_text()
    bad = subprocess.run([sys.executable, "-m", "serenity", "gen", "kws-dscnn", "--resolution", "8"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "does not take --resolution" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "serenity", "gen", "fire-module", "--param", "depth=2"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "no parameter 'depth'" in bad.stderr


@pytest.mark.parametrize("case", bench.SUITES["smoke"], ids=lambda c: c.label)
def test_schedule_reports_agree_with_memory_model(case, serenity_opt, tmp_path):
    """Once serenity-opt has --serenity-schedule: the schedule attribute's peak
    equals the memory report of the reordered IR, program order reproduces the
    peak as written, and a proven dp is no worse than the other orders."""
    if case.skip_reason():
        pytest.skip(case.skip_reason())
    tool = SerenityOpt(serenity_opt)
    if not tool.has_pass("serenity-schedule"):
        pytest.skip("this serenity-opt has no --serenity-schedule yet")
    path = tmp_path / "net.mlir"
    path.write_text(generate(case.network, dtype=case.dtype, **case.params))
    written = tool.memory_report(str(path))[0]
    peaks = {}
    for algorithm in ("program-order", "kahn", "greedy", "dp"):
        r = tool.schedule(str(path), algorithm)
        attrs = r.schedules["main"]
        assert attrs["algorithm"] == algorithm
        assert attrs["peak_bytes"] == r.memory[0].peak_bytes
        assert r.memory[0].ops == written.ops
        assert attrs["lower_bound_bytes"] <= attrs["peak_bytes"]
        peaks[algorithm] = attrs
    assert peaks["program-order"]["peak_bytes"] == written.peak_bytes
    if peaks["dp"]["optimal"]:
        assert peaks["dp"]["peak_bytes"] <= min(p["peak_bytes"] for p in peaks.values())
