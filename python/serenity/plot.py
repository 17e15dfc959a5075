"""``plot``: PNG figures of live memory over steps and of arena layouts."""

import os

from .driver import SerenityOpt, add_tool_argument, parse_allocation_report, parse_memory_report

KIB = 1024.0


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_live_memory(series, path, title="Live activation memory"):
    """Writes a step plot of live KiB per step, one line per schedule.

    ``series``: list of (label, live bytes per step).  The legend shows each
    schedule's peak.
    """
    if not series:
        raise ValueError("nothing to plot")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for label, live in series:
        if not live:
            continue
        peak = max(live)
        ax.step(range(len(live)), [b / KIB for b in live], where="mid",
                label="%s (peak %.1f KiB)" % (label, peak / KIB))
    ax.set_xlabel("step (scheduled op)")
    ax.set_ylabel("live activation memory (KiB)")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_arena(allocation, path, title=None):
    """Writes the arena layout: one rectangle per buffer spanning its steps
    [first, last] on x and [offset, offset + size) on y (KiB)."""
    plt = _pyplot()
    from matplotlib.patches import Rectangle

    fig, ax = plt.subplots(figsize=(9, 5))
    cmap = plt.get_cmap("tab20")
    last_step = 0
    for i, b in enumerate(allocation.buffers):
        x0, x1 = b["first"], b["last"] + 1
        last_step = max(last_step, x1)
        ax.add_patch(Rectangle((x0, b["offset"] / KIB), x1 - x0, b["size"] / KIB,
                               facecolor=cmap(i % 20), edgecolor="black", linewidth=0.5))
        if len(allocation.buffers) <= 40:
            ax.text((x0 + x1) / 2.0, (b["offset"] + b["size"] / 2.0) / KIB, b["name"],
                    ha="center", va="center", fontsize=6)
    ax.axhline(allocation.arena_bytes / KIB, color="red", linestyle="--",
               label="arena %.1f KiB" % (allocation.arena_bytes / KIB))
    ax.axhline(allocation.lower_bound / KIB, color="gray", linestyle=":",
               label="lower bound %.1f KiB" % (allocation.lower_bound / KIB))
    ax.set_xlim(0, max(last_step, 1))
    ax.set_ylim(0, max(allocation.arena_bytes, 1) / KIB * 1.05)
    ax.set_xlabel("step")
    ax.set_ylabel("arena offset (KiB)")
    ax.set_title(title or "Arena layout of @%s" % allocation.function)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def add_subparser(subparsers):
    p = subparsers.add_parser("plot", help="plot live memory or an arena layout as PNG",
                              description="Plot live memory over steps (schedules on the same axes) or an "
                                          "arena layout from an allocation report.")
    sub = p.add_subparsers(dest="kind", metavar="<kind>")
    sub.required = True

    m = sub.add_parser("memory", help="live memory over steps",
                       description="Live memory per step of FILE's first function (or --function) as written "
                                   "and, with --schedule, after each scheduling algorithm.")
    m.add_argument("file", nargs="?", help="input MLIR")
    m.add_argument("--schedule", action="append", default=[], metavar="ALG",
                   help="also plot the order chosen by this serenity-schedule algorithm (repeatable)")
    m.add_argument("--no-program-order", action="store_true", help="do not plot the order as written")
    m.add_argument("--report", action="append", default=[], metavar="LABEL=JSON",
                   help="plot a saved memory report JSON (repeatable)")
    m.add_argument("--function", help="function name (default: the first)")
    m.add_argument("--title", help="figure title")
    m.add_argument("-o", "--output", required=True, help="PNG file")
    add_tool_argument(m)
    m.set_defaults(func=run_memory)

    a = sub.add_parser("arena", help="arena layout from an allocation report JSON")
    a.add_argument("report", help="allocation report JSON (serenity-static-alloc report=FILE)")
    a.add_argument("--function", help="function name (default: the first)")
    a.add_argument("--title", help="figure title")
    a.add_argument("-o", "--output", required=True, help="PNG file")
    a.set_defaults(func=run_arena)


def _pick(functions, name, what):
    for f in functions:
        if name is None or f.function == name:
            return f
    raise ValueError("function %s not found in %s" % (name, what))


def run_memory(args):
    series = []
    for item in args.report:
        label, path = item.split("=", 1) if "=" in item else (os.path.basename(item), item)
        with open(path) as f:
            fn = _pick(parse_memory_report(f.read()), args.function, path)
        series.append((label, fn.live_bytes))
    name = args.function
    if args.file:
        tool = SerenityOpt(args.serenity_opt)
        if not args.no_program_order:
            fn = _pick(tool.memory_report(args.file), name, args.file)
            name = fn.function
            series.append(("as written", fn.live_bytes))
        for algorithm in args.schedule:
            r = tool.schedule(args.file, algorithm)
            fn = _pick(r.memory, name, args.file)
            name = fn.function
            series.append((algorithm, fn.live_bytes))
    elif args.schedule:
        raise ValueError("--schedule needs an input FILE")
    title = args.title or "Live activation memory of @%s%s" % (
        name or "main", " (%s)" % os.path.basename(args.file) if args.file else "")
    plot_live_memory(series, args.output, title)
    print("wrote %s" % args.output)
    return 0


def run_arena(args):
    with open(args.report) as f:
        allocation = _pick(parse_allocation_report(f.read()), args.function, args.report)
    plot_arena(allocation, args.output, args.title)
    print("wrote %s" % args.output)
    return 0
