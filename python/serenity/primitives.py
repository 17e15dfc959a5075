"""``profile`` and ``pareto``: convolution primitives (``serenity.primitive``)
measured on the target and traded against memory.

``profile NET -o P.json`` asks serenity-pipeline for the convolutions it
chooses primitives for (``primitive-kernels``: one kernel per distinct shape,
as the pipeline sees it after tiling and rewrites), compiles every kernel with
every applicable primitive, times one call of each and writes the profile the
selection reads (``primitives=select profile=P.json``).

``pareto NET --profile P.json`` compiles the network at each point of the
selection's time/peak frontier (``budget=PEAK``), with each primitive
everywhere (``primitives=P``) and with the default pipeline, measures arena
and time per inference, and checks that every configuration computes what
the default one does.

Times: on the host the median wall time in ns of calls timed one by one;
on Cortex-M4 the instructions QEMU counts (serenity.deploy). Timings are for
reading; nothing may depend on them.
"""

import json
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from . import deploy
from .driver import SerenityOpt

PRIMITIVES = ("direct", "dot", "im2col", "winograd2", "winograd4", "vector")
# serenity-pipeline options that choose primitives: the profiler and the
# pareto configurations set them themselves.
SELECTION_OPTIONS = ("primitives", "budget", "profile", "primitive-kernels", "primitive-report")
# What serenity-compile sets, so that serenity-opt sees the network as the
# compiled configurations do (same tiling, same convolution shapes).
COMPILE_OPTIONS = "arena=argument io=caller lower-to-llvm=0"
CONV_ATTRS = re.compile(r"(tosa\.(?:depthwise_)?conv2d [^{]*\{)")
JOBS = 2


def option_tokens(pipeline):
    """The ``key=value`` items of a serenity-pipeline option string (values
    may be quoted or braced)."""
    return re.findall(r'[^\s=]+(?:=(?:"[^"]*"|\{[^}]*\}|\S+))?', pipeline or "")


def without_selection(pipeline):
    """`pipeline` without the options that choose primitives."""
    return " ".join(t for t in option_tokens(pipeline) if t.split("=", 1)[0] not in SELECTION_OPTIONS)


def kernel_pipeline(pipeline):
    """`pipeline` for compiling one profiled kernel: without the graph
    rewrites (tile, rewrite), which already ran on the network before the
    kernels were taken from it; on the kernel they would split its
    convolution into new, untagged ones."""
    kept = [t for t in option_tokens(pipeline) if t.split("=", 1)[0] not in ("tile", "rewrite")]
    return " ".join(kept + ["tile=none", "rewrite=none"])


def join_options(*parts):
    return " ".join(p.strip() for p in parts if p and p.strip())


def pipeline_target(target):
    return "host" if target == "host" else "cortex-m"


def network_source(path, work):
    """An .mlir path for `path`: itself, or a .tflite model imported."""
    if not path.endswith(".tflite"):
        return path
    from .tflite import import_model, load_file

    out = os.path.join(work, "imported.mlir")
    with open(out, "w") as f:
        f.write(import_model(load_file(path)))
    return out


def run_selection(net, target, pipeline, extra, tool=None):
    """serenity-opt with the pipeline as serenity-compile runs it, plus the
    selection options `extra`; raises ToolError when the compiler fails."""
    options = join_options(pipeline, extra, COMPILE_OPTIONS, "target=" + pipeline_target(target))
    (tool or SerenityOpt()).run([net, "--serenity-pipeline=" + options, "-o", os.devnull])


def read_kernels(net, work, target, pipeline, tool=None):
    """The kernels JSON entries (``primitive-kernels``) of `net`."""
    path = os.path.join(work, "kernels.json")
    run_selection(net, target, without_selection(pipeline), "primitive-kernels=" + path, tool)
    with open(path) as f:
        return json.load(f)["kernels"]


def tag_primitive(mlir, primitive):
    """The kernel module text with its convolution tagged ``primitive``."""
    tagged, count = CONV_ATTRS.subn(
        lambda m: m.group(1) + "serenity.primitive = #serenity.primitive<%s>, " % primitive, mlir)
    if count != 1:
        raise ValueError("the kernel holds %d convolutions, expected one" % count)
    return tagged


def parallel(function, items, jobs=JOBS):
    """[(result, None) or (None, exception)] of `function` over `items`."""
    def guarded(item):
        try:
            return function(item), None
        except (OSError, ValueError, RuntimeError) as e:
            return None, e
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(guarded, items))


def measure_all(built, target, reps):
    """run_timed over the built programs: one at a time on the host (timings
    of programs running together disturb each other), in parallel on QEMU
    (instruction counts do not depend on load)."""
    def one(exe):
        return deploy.run_timed(exe, target, reps) if exe else None
    return parallel(one, built, jobs=1 if target == "host" else JOBS)


def exact_outputs(report):
    """Whether the network's outputs are integers (compared bit-exactly)."""
    return all(o["type"] not in ("float", "double") for o in report["outputs"])


def first_line(error):
    text = str(error).strip()
    lines = [line for line in text.splitlines() if "error:" in line] or text.splitlines() or [""]
    return lines[0].strip()


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def number(value):
    if value is None:
        return "n/a"
    return "%.0f" % value if isinstance(value, float) else str(value)


def check_target_tools(target):
    if target != "host" and not deploy.has_board_tools(target):
        board = deploy.BOARDS[target]
        raise RuntimeError("--target %s needs %s and %s" % (target, board.cc, board.qemu_system))


# --- profile -----------------------------------------------------------------

def profile_network(network, target="host", pipeline="", reps=50, only=None, work=None, log=print):
    """Measures every kernel of `network` with every applicable primitive
    (those in `only`, when given); returns (the profile, table rows: key,
    primitive, workspace, time or None, outputs compared with direct)."""
    check_target_tools(target)
    base = without_selection(pipeline)
    with tempfile.TemporaryDirectory(prefix="serenity-profile-") as tmp:
        work = work or tmp
        net = network_source(network, work)
        kernels = read_kernels(net, work, target, base)
        jobs = [(i, kernel, primitive) for i, kernel in enumerate(kernels)
                for primitive in kernel["primitives"] if not only or primitive in only]

        def build(job):
            i, kernel, primitive = job
            out = os.path.join(work, "kernel%d-%s" % (i, primitive))
            os.makedirs(out, exist_ok=True)
            source = os.path.join(out, "kernel.mlir")
            with open(source, "w") as f:
                f.write(tag_primitive(kernel["mlir"], primitive))
            # io=arena: a kernel without workspace has no intermediate
            # buffer, and with io=caller serenity-compile gives it no arena.
            return deploy.build_timed(source, out, target, kernel_pipeline(base), name="kernel", function="kernel",
                                      io="arena")

        built = parallel(build, jobs)
        for (_, kernel, primitive), (_, error) in zip(jobs, built):
            if error:
                log("warning: %s / %s does not compile, left out: %s" % (kernel["key"], primitive, first_line(error)),
                    file=sys.stderr)
        measured = measure_all([b[1] if b else None for b, _ in built], target, reps)

    times, results = {}, []
    for (_, kernel, primitive), (b, _), (m, error) in zip(jobs, built, measured):
        if error:
            log("warning: %s / %s does not run, left out: %s" % (kernel["key"], primitive, first_line(error)),
                file=sys.stderr)
        if m:
            times.setdefault(kernel["key"], {})[primitive] = m[0]
        results.append((kernel, primitive, m, b and exact_outputs(b[0])))
    direct = {kernel["key"]: m[1] for kernel, primitive, m, _ in results if m and primitive == "direct"}
    rows = []
    for kernel, primitive, m, exact in results:
        want = direct.get(kernel["key"])
        check = ("failed" if not m else "n/a" if want is None else
                 "= direct" if deploy.outputs_equal(m[1], want, exact) else "DIFFER")
        rows.append((kernel["key"], primitive, kernel["workspace"].get(primitive), m[0] if m else None, check))
    for kernel in kernels:
        if "direct" not in times.get(kernel["key"], {}) and (not only or "direct" in only):
            log("warning: no time for %s / direct" % kernel["key"], file=sys.stderr)
    profile = {"unit": deploy.UNITS[target], "target": target, "pipeline": base, "times": times}
    return profile, rows


def run_profile(args):
    only = None
    if args.only_primitives:
        only = [p.strip() for p in args.only_primitives.split(",") if p.strip()]
        unknown = sorted(set(only) - set(PRIMITIVES))
        if unknown:
            raise ValueError("unknown primitive(s) %s (expected %s)" % (", ".join(unknown), ", ".join(PRIMITIVES)))
    profile, rows = profile_network(args.network, args.target, args.pipeline, args.reps, only)
    unit = profile["unit"]
    print(markdown_table(["kernel", "primitive", "workspace (bytes)", "time (%s)" % unit, "outputs"],
                         [(k, p, number(w), number(t), c) for k, p, w, t, c in rows]))
    with open(args.output, "w") as f:
        json.dump(profile, f, indent=2)
        f.write("\n")
    print("wrote %s (%d kernels, unit %s)" % (args.output, len(profile["times"]), unit))
    return 0


# --- pareto ------------------------------------------------------------------

def function_report(report, name="main"):
    functions = report.get("functions", [])
    for f in functions:
        if f.get("function") == name:
            return f
    if not functions:
        raise RuntimeError("the selection report has no function")
    return functions[0]


def uniform_prediction(function, applicable, primitive):
    """(conv time, peak) the selection model predicts for `primitive` on every
    convolution it applies to (direct elsewhere), from the report's layers:
    peak = max(other_peak, max over layers of base + bytes); None when a
    layer has no time for that combination."""
    time, peak = 0.0, function.get("other_peak", 0)
    for layer in function.get("layers", []):
        name = "+".join(primitive if primitive in applicable.get(key, ()) else "direct" for key in layer["convs"])
        choice = next((c for c in layer["choices"] if c["primitives"] == name), None)
        if choice is None or choice.get("time") is None:
            return None, None
        time += choice["time"]
        peak = max(peak, layer["base"] + choice["bytes"])
    return time, peak


class Config:
    """One compiled configuration of the network and its measurements."""

    def __init__(self, label, kind, pipeline, predicted_time=None, predicted_peak=None, choice=None):
        self.label = label
        self.kind = kind  # default | uniform | frontier
        self.pipeline = pipeline
        self.predicted_time = predicted_time
        self.predicted_peak = predicted_peak
        self.choice = choice
        self.report_path = None
        self.arena = None
        self.arena_lower_bound = None
        self.time = None
        self.outputs = None
        self.exact = False
        self.error = None
        self.matches_default = None
        self.chosen = None

    def as_json(self):
        return {"config": self.label, "kind": self.kind, "pipeline": self.pipeline,
                "predicted_time": self.predicted_time, "predicted_peak": self.predicted_peak,
                "choice": self.choice, "chosen": self.chosen, "arena_bytes": self.arena,
                "arena_lower_bound": self.arena_lower_bound, "time": self.time,
                "measured_vs_predicted": prediction_error(self),
                "outputs_equal_default": self.matches_default, "error": self.error}


def spread(points, count):
    """At most `count` of `points`, evenly spaced, both ends kept (None: all)."""
    if count is None or len(points) <= count:
        return list(points)
    if count <= 1:
        return [points[-1]] if count == 1 else []
    step = (len(points) - 1) / (count - 1)
    return [points[round(i * step)] for i in range(count)]


def pareto_configs(function, kernels, base, profile_path, work, max_points=None):
    """The default pipeline, each primitive everywhere it applies, and each
    frontier point (at most `max_points` of them) as a budget."""
    applicable = {k["key"]: k["primitives"] for k in kernels}
    configs = [Config("default", "default", base)]
    used = set(p for k in kernels for p in k["primitives"])
    for primitive in PRIMITIVES:
        if primitive in used:
            t, p = uniform_prediction(function, applicable, primitive)
            configs.append(Config("primitives=" + primitive, "uniform", join_options(base, "primitives=" + primitive),
                                  t, p))
    for i, point in enumerate(spread(function.get("frontier", []), max_points)):
        config = Config("budget=%d" % point["peak"], "frontier",
                        join_options(base, "budget=%d profile=%s" % (point["peak"], profile_path)),
                        point["time"], point["peak"], point.get("choice"))
        config.report_path = os.path.join(work, "frontier%d.report.json" % i)
        config.pipeline = join_options(config.pipeline, "primitive-report=" + config.report_path)
        configs.append(config)
    return configs


def pareto_network(network, profile_path, target="host", pipeline="", reps=50, max_points=None, work=None,
                   log=print):
    """Builds and measures the configurations of :func:`pareto_configs`;
    returns (selection report of @main, unit, configs)."""
    check_target_tools(target)
    base = without_selection(pipeline)
    profile_path = os.path.abspath(profile_path)
    with open(profile_path) as f:
        unit = json.load(f).get("unit", "")
    with tempfile.TemporaryDirectory(prefix="serenity-pareto-") as tmp:
        work = work or tmp
        net = network_source(network, work)
        report_path = os.path.join(work, "select.report.json")
        kernels_path = os.path.join(work, "kernels.json")
        run_selection(net, target, base, "primitives=select profile=%s primitive-report=%s primitive-kernels=%s"
                      % (profile_path, report_path, kernels_path))
        with open(report_path) as f:
            function = function_report(json.load(f))
        with open(kernels_path) as f:
            kernels = json.load(f)["kernels"]
        configs = pareto_configs(function, kernels, base, profile_path, work, max_points)

        def build(index):
            out = os.path.join(work, "config%d" % index)
            # io="caller": the configuration COMPILE_OPTIONS gave the selection.
            return deploy.build_timed(net, out, target, configs[index].pipeline, io="caller")

        built = parallel(build, range(len(configs)))
        for config, (b, error) in zip(configs, built):
            if error:
                config.error = first_line(error)
            else:
                config.arena = b[0]["arena_bytes"]
                config.arena_lower_bound = b[0].get("arena_lower_bound")
                config.exact = exact_outputs(b[0])
                if config.report_path and os.path.exists(config.report_path):
                    with open(config.report_path) as f:
                        config.chosen = [layer["chosen"] for layer in function_report(json.load(f))["layers"]]
        measured = measure_all([b[1] if b else None for b, _ in built], target, reps)
    for config, (m, error) in zip(configs, measured):
        if error:
            config.error = first_line(error)
        elif m:
            config.time, config.outputs = m
    default = configs[0]
    if default.outputs is None:
        raise RuntimeError("the default configuration failed: %s" % default.error)
    for config in configs:
        if config.outputs is not None:
            config.matches_default = deploy.outputs_equal(config.outputs, default.outputs, default.exact)
        if config.error and config.kind == "uniform":
            log("warning: %s skipped: %s" % (config.label, config.error), file=sys.stderr)
        elif config.error:
            log("warning: %s failed: %s" % (config.label, config.error), file=sys.stderr)
        if config.chosen is not None and config.choice is not None and config.chosen != config.choice:
            log("warning: %s chose %s, the frontier point is %s" % (config.label, "/".join(config.chosen),
                                                                    "/".join(config.choice)), file=sys.stderr)
    configs = [c for c in configs if not (c.kind == "uniform" and c.error)]
    return function, unit, configs


def prediction_error(config):
    """(measured - predicted) / measured, or None: the prediction is the sum
    of the profiled kernels (each convolution with the pointwise ops fused
    into its loop), so the rest of the network (pooling, reshapes, other
    pointwise ops) is what it leaves out, the same for every choice."""
    if config.time is None or config.predicted_time is None or not config.time:
        return None
    return (config.time - config.predicted_time) / config.time


def pareto_rows(configs):
    """Table rows; the fastest measured configuration marked."""
    times = [c.time for c in configs if c.time is not None]
    fastest = min(times) if times else None
    rows = []
    for c in configs:
        time = "failed" if c.time is None else number(c.time) + (" *" if c.time == fastest else "")
        outputs = ("n/a" if c.matches_default is None else "= default" if c.matches_default else "DIFFER")
        error = prediction_error(c)
        rows.append((c.label, number(c.predicted_time), number(c.predicted_peak), number(c.arena), time,
                     "n/a" if error is None else "%+.1f %%" % (100 * error), outputs))
    return rows


def plot_pareto(configs, unit, path, title):
    from .plot import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    frontier = sorted((c for c in configs if c.kind == "frontier" and c.time is not None),
                      key=lambda c: c.predicted_peak)
    if frontier:
        ax.plot([c.arena for c in frontier], [c.time for c in frontier], "o-", zorder=3,
                label="frontier, budget=peak (%d points)" % len(frontier))
    markers = iter("s^vD<>PXh")
    for c in configs:
        if c.kind != "frontier" and c.time is not None:
            ax.plot([c.arena], [c.time], next(markers, "x"), linestyle="none", markersize=8, alpha=0.8,
                    label=c.label)
    times = [c.time for c in configs if c.time]
    if times and max(times) > 4 * min(times):
        ax.set_yscale("log")
    ax.set_xlabel("arena (bytes)")
    ax.set_ylabel("time per inference (%s)" % unit)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run_pareto(args):
    function, unit, configs = pareto_network(args.network, args.profile, args.target, args.pipeline, args.reps,
                                             args.points)
    print("selection of @%s: least peak %s bytes, least conv time %s %s, %d frontier points%s"
          % (function.get("function"), function.get("least_peak"), number(function.get("least_time")), unit,
             len(function.get("frontier", [])), "" if function.get("optimal", True) else " (not proven optimal)"))
    print(markdown_table(["config", "predicted conv time (%s)" % unit, "predicted peak (bytes)", "arena (bytes)",
                          "time (%s)" % unit, "measured vs predicted", "outputs"], pareto_rows(configs)))
    print("* fastest measured")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"network": args.network, "target": args.target, "unit": unit, "pipeline": args.pipeline,
                       "selection": {k: v for k, v in function.items() if k not in ("layers",)},
                       "configs": [c.as_json() for c in configs]}, f, indent=2)
            f.write("\n")
    if args.plot:
        plot_pareto(configs, unit, args.plot, "%s (%s)" % (os.path.basename(args.network), args.target))
        print("wrote %s" % args.plot)
    return 1 if any(c.matches_default is False for c in configs) else 0


def add_subparser(subparsers):
    for name, helptext in (("profile", "measure each convolution kernel with each primitive"),
                           ("pareto", "measure the primitive selection's time/memory frontier")):
        p = subparsers.add_parser(name, help=helptext, description=helptext + " (see serenity.primitives)")
        p.add_argument("network", help="NET.mlir or NET.tflite")
        if name == "profile":
            p.add_argument("-o", "--output", required=True, help="profile JSON to write")
            p.add_argument("--only-primitives", default="", metavar="A,B",
                           help="measure only these primitives (default: every applicable one)")
        else:
            p.add_argument("--profile", required=True, help="profile JSON (python3 -m serenity profile)")
            p.add_argument("--plot", help="PNG: arena vs measured time")
            p.add_argument("--json", help="write the configurations and measurements as JSON")
            p.add_argument("--points", type=int, metavar="N",
                           help="measure at most N frontier points, evenly spaced, both ends kept (default: all)")
        p.add_argument("--target", choices=deploy.TARGETS, default="host")
        p.add_argument("--pipeline", default="", metavar="OPTS", help="serenity-pipeline options")
        p.add_argument("--reps", type=int, default=50, help="host: timed calls, the median is kept (default 50)")
        p.set_defaults(func=run_profile if name == "profile" else run_pareto)
