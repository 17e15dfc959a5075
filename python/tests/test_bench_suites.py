"""The schedule and rewrite suites of ``bench``: column sets, group
summaries, skips for absent ../shared inputs, the rewrite remark count, and
the rewrite columns on small networks with the real serenity-opt."""

import io
import os
import subprocess
import sys

import pytest

from serenity import bench
from serenity.driver import SerenityOpt
from serenity.networks import generate


def test_count_applied_rewrites():
    remarks = "\n".join([
        'x.mlir:3:1: remark: serenity-rewrite: applied channel-partition x1; scheduled peak 10 -> 8 bytes',
        'x.mlir:4:1: remark: serenity-rewrite: not applied: scheduled peak 8 -> 9 bytes does not go down',
        'x.mlir:1:1: remark: serenity-rewrite: applied 3 rewrites together, none of which lowers the peak alone; '
        'scheduled peak 8 -> 7 bytes',
        'x.mlir:2:1: remark: serenity-schedule (dp): peak 7 -> 7 bytes, proven optimal',
    ])
    assert bench.count_applied_rewrites(remarks) == 4
    assert bench.count_applied_rewrites("") == 0


def test_suites_cover_the_issue_tables():
    labels = [c.label for c in bench.SUITES["schedule"]]
    networks = {c.network for c in bench.SUITES["schedule"]}
    assert {"darts-normal", "darts-reduction", "darts-stack", "randwire-stage", "densenet-block",
            "inception-module", "fire-module", "vww", "kws-dscnn", "resnet8", "fc-autoencoder", "tflite",
            "random-dag"} <= networks
    assert sum(1 for c in bench.SUITES["schedule"] if c.network == "randwire-stage") == 5
    assert len(labels) == len(set(labels))
    # The rewrite suite is the schedule suite (without the branching-6 random
    # DAGs) plus concats consumed by a conv.
    common = [c for c in bench.SUITES["schedule"] if c.params.get("branching") != 6]
    assert len(common) == len(labels) - 4
    assert bench.SUITES["rewrite"][:len(common)] == common
    assert all("next_conv" in c.params or "reductions" in c.params
               for c in bench.SUITES["rewrite"][len(common):])
    # Every tag used names a summary group.
    assert set().union(*(c.tags for c in bench.SUITES["rewrite"])) <= set(bench.GROUPS)


@pytest.mark.parametrize("name", ["schedule", "rewrite"])
def test_suite_networks_generate_with_their_op_counts(name):
    """Random DAG node counts were chosen for 50/100/200/1000 ops; the
    labels say so, and the generators accept every parameter."""
    for case in bench.SUITES[name]:
        if isinstance(case, bench.ImportedCase):
            continue
        params = dict(case.params)
        seed = params.pop("seed", 0)
        text = generate(case.network, dtype=case.dtype, seed=seed, **params)
        if case.network == "random-dag":
            ops = sum(1 for line in text.splitlines() if "= tosa." in line and "tosa.const" not in line)
            wanted = int(case.label.split()[2])
            assert abs(ops - wanted) <= 1, (case.label, ops)


def test_missing_inputs_are_skipped_with_a_message(tmp_path):
    missing = bench.ImportedCase("gone", str(tmp_path / "gone.tflite"))
    assert "gone.tflite is absent" in missing.skip_reason()
    darts = bench.BenchCase("d", "darts-normal", genotype_file=str(tmp_path / "g.py"))
    assert darts.skip_reason() is None  # an explicit file is the generator's business
    log = io.StringIO()
    table = bench.run_table([missing], tool=_NoTool(), columns=[bench.Column("network", lambda c: 1)], log=log)
    assert table.rows == [] and [bc for bc, _ in table.skipped] == [missing]
    assert "skipped gone: " in log.getvalue()


class _NoTool:
    """A tool that must not be run."""


def test_group_summaries():
    cases = [bench.BenchCase("a", "fire-module"), bench.BenchCase("b", "random-dag", tags=("irregular",))]
    columns = [bench.Column("network", lambda c: None), bench.Column("r", None, summary=bench._summary_geomean)]
    table = bench.Table(columns, [["a", 4.0], ["b", 1.0]], cases, [])
    assert table.summaries() == [("**all 2**", ["", "geomean 2.00x"]),
                                 ("**irregular (1)**", ["", "geomean 1.00x"])]
    text = bench.markdown_table(columns, table.rows, None, table.summaries())
    assert text.splitlines()[-1] == "| **irregular (1)** | geomean 1.00x |"


def test_rewrite_columns_on_small_networks(serenity_opt, tmp_path):
    tool = SerenityOpt(serenity_opt)
    if not tool.has_pass("serenity-rewrite"):
        pytest.skip("this serenity-opt has no --serenity-rewrite")
    table = bench.run_table(bench.SUITES["smoke-rewrite"], tool, bench.REWRITE_COLUMNS, workdir=str(tmp_path))
    names = [c.name for c in table.columns]
    assert names[:7] == ["network", "generator (non-default params)", "ops", "program order", "dp", "dp+rewrite",
                         "rewrites"]
    files = sorted(p for p in os.listdir(tmp_path) if p.endswith(".mlir"))
    for row, name in zip(table.rows, files):
        values = dict(zip(names, row))
        path = str(tmp_path / name)
        # dp+rewrite is what the passes give when run by hand, and the rewrite
        # (profitable) never makes the dp peak worse.
        out = tool.run([path, "--serenity-rewrite=mode=profitable", "--serenity-schedule=algorithm=dp",
                        "--serenity-memory-report=format=json", "-o", os.devnull])
        assert values["dp+rewrite"] == bench.parse_memory_report(out)[0].peak_bytes
        assert values["dp+rewrite"] <= values["dp"] <= values["program order"]
        assert values["dp / dp+rewrite"] == pytest.approx(values["dp"] / values["dp+rewrite"])
        assert values["dp+rewrite vs program order"] == pytest.approx(values["program order"] / values["dp+rewrite"])
        if values["rewrites"] == 0:
            assert values["dp+rewrite"] == values["dp"]
    inception = dict(zip(names, table.rows[0]))
    # A 1x1 conv reading the inception concat is partitioned and lowers the peak.
    assert inception["rewrites"] >= 1 and inception["dp+rewrite"] < inception["dp"]
    # The in-place report of a rewritten network is the model's peak of that order.
    assert inception["in-place: dp+rewrite"] > 0


def test_bench_cli_schedule_columns_and_groups(serenity_opt, tmp_path, monkeypatch):
    """The CLI prints the suite's column set and a summary row per group."""
    tool = SerenityOpt(serenity_opt)
    if not tool.has_pass("serenity-rewrite"):
        pytest.skip("this serenity-opt has no --serenity-rewrite")
    proc = subprocess.run([sys.executable, "-m", "serenity", "bench", "--suite", "smoke-rewrite",
                           "--serenity-opt", serenity_opt], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("| network | generator (non-default params) | ops | program order | dp | dp+rewrite |")
    assert lines[-2].startswith("| **all 3** |") and lines[-1].startswith("| **irregular (1)** |")
    assert "suite smoke-rewrite: 3 networks" in proc.stderr


def test_rewrite_timeout_is_reported_not_raised(tmp_path):
    """A rewrite run over the time limit becomes a 'timeout' cell; its ratios
    are empty and left out of the geomean."""
    slow = tmp_path / "serenity-opt"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    os.chmod(slow, 0o755)
    tool = SerenityOpt(str(slow))
    case = bench.Case(bench.BenchCase("x", "fire-module"), str(tmp_path / "x.mlir"), tool, {}, rewrite_timeout_s=0.2)
    case._schedules["dp"] = {"peak_bytes": 100}
    assert bench._rewrite_peak(case) == "timeout (0.2 s)"
    ratio = [c for c in bench.REWRITE_COLUMNS if c.name == "dp / dp+rewrite"][0]
    assert ratio.compute(case) is None
    assert bench.geomean([None, 2.0]) == 2.0


@pytest.mark.parametrize("name,extra_ops,channels", [("inception-module", 1, 16), ("fire-module", 1, 16),
                                                     ("darts-normal", 2, 8), ("darts-reduction", 2, 8)])
def test_next_conv_appends_a_conv_reading_the_concat(name, extra_ops, channels, request):
    small = dict(resolution=8) if not name.startswith("darts") else dict(resolution=8, channels=8)

    def ops(text):
        return [line for line in text.splitlines() if "= tosa." in line and "tosa.const" not in line]

    plain = generate(name, **small)
    followed = generate(name, next_conv=channels, **small)
    assert len(ops(followed)) == len(ops(plain)) + extra_ops
    last = ops(followed)[-1]
    assert "tosa.conv2d" in last and ("-> tensor<1x%d" % (small["resolution"] // (2 if name == "darts-reduction" else 1))) in last
    assert ("x%dxf32> loc(" % channels) in last
    with pytest.raises(ValueError, match="next_conv must be >= 0"):
        generate(name, next_conv=-1, **small)


def test_darts_stack_without_reductions():
    text = generate("darts-stack", channels=8, resolution=8, cells=3, reductions=False)
    assert "tosa.slice" not in text  # no FactorizedReduce
    assert "tosa.slice" in generate("darts-stack", channels=8, resolution=8, cells=3)


def test_tiling_columns_on_small_networks(serenity_opt, tmp_path):
    """bench --suite tiling's columns on small networks: the tiled arena is
    what the pipeline gives by hand, never above the untiled one, and the
    remark-derived columns agree with the regions applied."""
    tool = SerenityOpt(serenity_opt)
    if not tool.has_pass("serenity-tile"):
        pytest.skip("this serenity-opt has no --serenity-tile")
    cases = [bench.BenchCase("resnet8 i8", "resnet8", dtype="i8"),
             bench.BenchCase("kws-dscnn i8", "kws-dscnn", dtype="i8")]
    table = bench.run_table(cases, tool, bench.TILING_COLUMNS, workdir=str(tmp_path))
    names = [c.name for c in table.columns]
    assert names[:6] == ["network", "arena (schedule + alloc)", "+ FDT", "+ FFMT", "both", "saving (both)"]
    resnet, kws = (dict(zip(names, row)) for row in table.rows)
    # ResNet-8: the stem and the first residual block are tiled.
    assert resnet["regions (both)"] >= 1 and resnet["+ FFMT"] < resnet["arena (schedule + alloc)"]
    path = sorted(str(p) for p in tmp_path.iterdir() if p.name.endswith(".mlir") and "resnet8" in p.name)[0]
    reports, _ = tool.pipeline_alloc_reports(path, "io=arena concat=auto tile=ffmt")
    assert reports[0]["arena_bytes"] == resnet["+ FFMT"]
    assert resnet["both"] <= resnet["arena (schedule + alloc)"]
    assert resnet["search time (s, both)"] is not None and resnet["search time (s, both)"] < 10
    # KWS: feature maps of equal size all along (FFMT has nothing to gain).
    assert kws["+ FFMT"] == kws["arena (schedule + alloc)"]


def test_scale_suite_rows_on_small_classes(serenity_opt):
    """The scale suite's row per class: proven count, times, gap; the tiled
    chain (interchangeable tiles) and a RandWire stage are proven."""
    import io
    from serenity.scale import ScaleClass, format_row, run_class, run_scale
    tiny = ScaleClass("tiled 2x2", "tiled-chain", seeds=3, grid=2, layers=3, resolution=8, channels=4)
    row = run_class(tiny, serenity_opt, [])
    assert row["graphs"] == 3 and row["proven"] == 3
    assert row["gap_median"] == row["gap_max"] == 1.0
    assert row["ops"] == 2 * 2 * (1 + 2 * 3) + 3  # slices, conv + relu per layer, concats
    assert format_row(row).startswith("| tiled 2x2 | 3 | 31 | 3/3 |")
    # The CLI path: --class filters, --seeds caps, extra options reach the pass.
    out = io.StringIO()
    rows = run_scale(serenity_opt, ["algorithm=greedy"], seeds=2, only=["32 nodes, C=16"], out=out)
    assert len(rows) == 1 and rows[0]["graphs"] == 2
    assert out.getvalue().splitlines()[0].startswith("| class | graphs |")


def test_tiled_chain_generator_shapes():
    from serenity.networks import generate
    text = generate("tiled-chain", grid=2, layers=2, resolution=8, channels=4)
    assert "func.func @main(%input: tensor<1x12x12x4xf32>)" in text
    assert text.count("tosa.slice") == 4 and text.count("tosa.conv2d") == 8
    with pytest.raises(ValueError):
        generate("tiled-chain", grid=3, resolution=8)


def test_stress_suite_row_on_a_small_graph(serenity_opt, tmp_path):
    """The stress suite's row: the whole pipeline's time, its own peak RSS and
    the passes of --mlir-timing (with one or two time columns)."""
    from serenity.stress import format_row, parse_timing, run_graph
    row = run_graph(serenity_opt, "tiny", "random-dag", {"nodes": 12}, str(tmp_path))
    names = [name for name, _ in row["passes"]]
    assert "SerenitySchedulePass" in names and "SerenityStaticAllocPass" in names
    assert "SerenityOutlineKernelsPass" in names
    assert row["wall_s"] > 0 and row["rss_mib"] > 10 and row["ops"] > 12
    assert format_row(row, min_s=0.0).startswith("| tiny | %d | " % row["ops"])
    from serenity.stress import within_budget
    slow = {"graph": "random DAG, 1k ops", "ops": 1008, "wall_s": 31.0, "rss_mib": 200.0, "passes": [],
            "previous_s": 242.7}
    assert not within_budget(slow)
    assert format_row(slow) == "| random DAG, 1k ops | 1008 | 31.0 | 30 (NO) | 242.7 | 200 |  |"
    assert within_budget(dict(slow, wall_s=29.0)) and within_budget(row)
    report = """===---===
  ... Execution time report ...
===---===
  Total Execution Time: 2.0 seconds

  ----User Time----  ----Wall Time----  ----Name----
    1.5000 ( 60.0%)    1.0000 ( 50.0%)  'func.func' Pipeline
    1.5000 ( 60.0%)    0.7500 ( 37.5%)    Mem2Reg
    0.5000 ( 20.0%)    0.5000 ( 25.0%)  Output
    2.5000 (100.0%)    2.0000 (100.0%)  Total
"""
    assert parse_timing(report) == [("'func.func' Pipeline", 1.0), ("Mem2Reg", 0.75), ("Output", 0.5),
                                    ("Total", 2.0)]
    single = "... Execution time report ...\n  ----Wall Time----  ----Name----\n    0.2 ( 10.0%)  Parser\n"
    assert parse_timing(single) == [("Parser", 0.2)]
