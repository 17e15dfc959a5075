"""``bench``: run a named suite of generated networks through serenity-opt
and print a markdown table (and optionally CSV).

A table is a list of :class:`Column` objects.  A column computes one cell from
a :class:`Case` context, says whether the serenity-opt binary supports it
(``available``), and may summarize its values (e.g. a geometric mean).  Later
work adds columns with :func:`register_column`; suites are lists of
:class:`Case` in :data:`SUITES` (extend with :func:`register_suite`).
"""

import csv
import math
import os
import sys
import tempfile
import time

from .driver import SerenityOpt, add_tool_argument
from .networks import generate


class BenchCase:
    """One network configuration: a label and the arguments of ``generate``."""

    def __init__(self, label, network, dtype="f32", **params):
        self.label = label
        self.network = network
        self.dtype = dtype
        self.params = params


class ImportedCase(BenchCase):
    """A real model imported from a .tflite file (int8, ``serenity.tflite``)."""

    def __init__(self, label, tflite_path):
        BenchCase.__init__(self, label, "tflite", dtype="i8")
        self.tflite_path = tflite_path

    def text(self):
        from .tflite import import_model, load_file
        return import_model(load_file(self.tflite_path))


_MLPERF_TINY_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "..", "shared", "models", "mlperf_tiny")


class Case:
    """A case being measured: the generated file plus cached tool results."""

    def __init__(self, bench_case, path, tool, schedule_options):
        self.bench_case = bench_case
        self.path = path
        self.tool = tool
        # {algorithm or "*": {option: value}}; "*" applies to every algorithm.
        self.schedule_options = schedule_options or {}
        self._memory = None
        self._schedules = {}

    @property
    def memory(self):
        """Memory report of @main as written (program order)."""
        if self._memory is None:
            self._memory = self.tool.memory_report(self.path)[0]
        return self._memory

    def schedule(self, algorithm):
        """The ``serenity.schedule`` attribute dict of @main for ``algorithm``."""
        if algorithm not in self._schedules:
            options = dict(self.schedule_options.get("*", {}))
            options.update(self.schedule_options.get(algorithm, {}))
            result = self.tool.schedule(self.path, algorithm, options)
            attrs = list(result.schedules.values())
            if not attrs:
                raise RuntimeError("serenity-schedule set no serenity.schedule attribute on %s" % self.path)
            self._schedules[algorithm] = attrs[0]
        return self._schedules[algorithm]


class Column:
    """A table column: ``compute(case) -> value``, ``fmt(value) -> str``,
    ``available(tool) -> bool``, ``summary(values) -> str``."""

    def __init__(self, name, compute, fmt=str, available=None, summary=None):
        self.name = name
        self.compute = compute
        self.fmt = fmt
        self.available = available or (lambda tool: True)
        self.summary = summary


def geomean(values):
    values = [v for v in values if isinstance(v, (int, float)) and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _has_schedule(tool):
    return tool.has_pass("serenity-schedule")


def _ratio(case):
    dp = case.schedule("dp")["peak_bytes"]
    return case.memory.peak_bytes / dp if dp else None


def _fmt_ratio(v):
    return "-" if v is None else "%.2fx" % v


def _summary_geomean(values):
    g = geomean(values)
    return "" if g is None else "geomean %.2fx" % g


COLUMNS = [
    Column("network", lambda c: c.bench_case.label),
    Column("ops", lambda c: c.memory.ops),
    Column("activation bytes total", lambda c: c.memory.activation_bytes),
    Column("peak as written", lambda c: c.memory.peak_bytes),
    Column("kahn", lambda c: c.schedule("kahn")["peak_bytes"], available=_has_schedule),
    Column("greedy", lambda c: c.schedule("greedy")["peak_bytes"], available=_has_schedule),
    Column("dp", lambda c: c.schedule("dp")["peak_bytes"], available=_has_schedule),
    Column("proven", lambda c: c.schedule("dp")["optimal"], fmt=lambda v: "yes" if v else "no",
           available=_has_schedule),
    Column("dp time (ms)", lambda c: c.schedule("dp")["time_ms"], available=_has_schedule),
    Column("reduction vs program order", _ratio, fmt=_fmt_ratio, available=_has_schedule,
           summary=_summary_geomean),
]


def register_column(column, after=None):
    """Adds ``column`` at the end or right after the column named ``after``."""
    if after is None:
        COLUMNS.append(column)
        return
    for i, c in enumerate(COLUMNS):
        if c.name == after:
            COLUMNS.insert(i + 1, column)
            return
    raise ValueError("no column named %r" % after)


SUITES = {
    # Every generator once with its default (paper / reference) parameters.
    "default": [
        BenchCase("randwire-stage (C=78, 56x56)", "randwire-stage"),
        BenchCase("randwire small (C=78, 224)", "randwire"),
        BenchCase("darts-normal (C=36, 32x32)", "darts-normal"),
        BenchCase("darts-reduction (C=36, 32x32)", "darts-reduction"),
        BenchCase("darts-stack (8 cells, C=16)", "darts-stack"),
        BenchCase("densenet-block (6 layers)", "densenet-block"),
        BenchCase("inception-module (3a)", "inception-module"),
        BenchCase("fire-module (fire2)", "fire-module"),
        BenchCase("mobilenetv2 (224)", "mobilenetv2"),
        BenchCase("vww (MobileNetV1 0.25, 96)", "vww"),
        BenchCase("kws-dscnn", "kws-dscnn"),
        BenchCase("resnet8", "resnet8"),
        BenchCase("fc-autoencoder", "fc-autoencoder"),
        BenchCase("random-dag (24 nodes)", "random-dag"),
    ],
    # Irregularly wired cells, the SERENITY paper's target.
    "cells": [
        BenchCase("randwire-stage seed 0", "randwire-stage", seed=0),
        BenchCase("randwire-stage seed 1", "randwire-stage", seed=1),
        BenchCase("darts-normal", "darts-normal"),
        BenchCase("darts-reduction", "darts-reduction"),
        BenchCase("densenet-block", "densenet-block"),
        BenchCase("inception-module", "inception-module"),
        BenchCase("fire-module", "fire-module"),
        BenchCase("random-dag seed 0", "random-dag", seed=0),
        BenchCase("random-dag seed 1", "random-dag", seed=1),
    ],
    # MLPerf Tiny models, f32 and i8.
    "tiny": [
        BenchCase("vww f32", "vww"), BenchCase("vww i8", "vww", dtype="i8"),
        BenchCase("kws-dscnn f32", "kws-dscnn"), BenchCase("kws-dscnn i8", "kws-dscnn", dtype="i8"),
        BenchCase("resnet8 f32", "resnet8"), BenchCase("resnet8 i8", "resnet8", dtype="i8"),
        BenchCase("fc-autoencoder f32", "fc-autoencoder"),
        BenchCase("fc-autoencoder i8", "fc-autoencoder", dtype="i8"),
    ],
    # The five MLPerf Tiny reference .tflite models (../shared), imported as int8 TOSA.
    "tflite": [ImportedCase(name, os.path.join(_MLPERF_TINY_DIR, name + ".tflite"))
               for name in ("ad01_int8", "kws_ref_model", "pretrainedResnet_quant",
                            "str_ww_ref_model", "vww_96_int8")],
    # Small and fast, for tests.
    "smoke": [
        BenchCase("fire-module 16x16", "fire-module", resolution=16),
        BenchCase("darts-normal C=8 8x8", "darts-normal", channels=8, resolution=8),
        BenchCase("resnet8", "resnet8"),
        BenchCase("random-dag 10 nodes", "random-dag", nodes=10, resolution=8),
    ],
}


DEFAULT_DP_TIME_LIMIT_MS = 2000


def register_suite(name, cases):
    SUITES[name] = list(cases)


def run_suite(cases, tool, columns=None, schedule_options=None, workdir=None):
    """Returns (column names, rows of values, summary row) for ``cases``.

    Columns the tool does not support are left out.
    """
    columns = [c for c in (columns or COLUMNS) if c.available(tool)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="serenity-bench-") as tmp:
        for i, bc in enumerate(cases):
            params = dict(bc.params)
            seed = params.pop("seed", 0)
            if isinstance(bc, ImportedCase):
                text = bc.text()
            else:
                text = generate(bc.network, dtype=bc.dtype, seed=seed, **params)
            path = os.path.join(workdir or tmp, "%02d-%s.mlir" % (i, bc.network))
            with open(path, "w") as f:
                f.write(text)
            case = Case(bc, path, tool, schedule_options)
            rows.append([c.compute(case) for c in columns])
    summary = []
    for j, c in enumerate(columns):
        summary.append(c.summary([r[j] for r in rows]) if c.summary else "")
    return columns, rows, summary


def markdown_table(columns, rows, summary):
    header = [c.name for c in columns]
    body = [[c.fmt(v) for c, v in zip(columns, r)] for r in rows]
    if any(summary):
        body.append(["**summary**" if j == 0 and not s else s for j, s in enumerate(summary)])
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if j == 0 else "---:" for j in range(len(header))) + "|"]
    lines.extend("| " + " | ".join(r) + " |" for r in body)
    return "\n".join(lines)


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([c.name for c in columns])
        for r in rows:
            w.writerow(["" if v is None else v for v in r])


def add_subparser(subparsers):
    p = subparsers.add_parser(
        "bench", help="run a benchmark suite and print a markdown table",
        description="Generate every network of a suite, run serenity-opt on it and print a markdown table. "
                    "Scheduler columns appear when serenity-opt has --serenity-schedule.")
    p.add_argument("--suite", default="default", choices=sorted(SUITES), help="suite name (default: default)")
    p.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    p.add_argument("--keep", metavar="DIR", help="keep the generated .mlir files in DIR")
    p.add_argument("--schedule-option", action="append", default=[], metavar="[ALG:]KEY=VALUE",
                   help="extra serenity-schedule option for every algorithm, or only for ALG (repeatable)")
    p.add_argument("--dp-time-limit-ms", type=int, default=DEFAULT_DP_TIME_LIMIT_MS,
                   help="time limit of each dp search when serenity-schedule has time-limit-ms "
                        "(default %(default)s; keeps the default suite under a minute)")
    add_tool_argument(p)
    p.set_defaults(func=run_bench)


def schedule_options(tool, items, dp_time_limit_ms):
    """Parses ``[ALG:]KEY=VALUE`` items into {algorithm or "*": {key: value}}
    and adds the dp time limit when the pass has that option."""
    options = {}
    for item in items:
        if "=" not in item:
            raise ValueError("--schedule-option expects [ALG:]KEY=VALUE, got %r" % item)
        key, value = item.split("=", 1)
        algorithm, _, key = key.rpartition(":")
        options.setdefault(algorithm or "*", {})[key] = value
    if dp_time_limit_ms and "time-limit-ms" in tool.pass_options("serenity-schedule"):
        options.setdefault("dp", {}).setdefault("time-limit-ms", str(dp_time_limit_ms))
    return options


def run_bench(args):
    tool = SerenityOpt(args.serenity_opt)
    options = schedule_options(tool, args.schedule_option, args.dp_time_limit_ms)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    start = time.time()
    columns, rows, summary = run_suite(SUITES[args.suite], tool, schedule_options=options, workdir=args.keep)
    print(markdown_table(columns, rows, summary))
    print("\nsuite %s: %d networks in %.1f s (%s)" % (args.suite, len(rows), time.time() - start, tool.path),
          file=sys.stderr)
    if args.csv:
        write_csv(args.csv, columns, rows)
    return 0
