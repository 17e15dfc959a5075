"""``python3 -m serenity frontier MODEL --target T``: the measured (RAM, flash,
instructions) points of a model's compile configurations on a Cortex-M board,
their Pareto frontier as a table and a plot, and, with ``--ram-budget`` /
``--flash-budget``, the fastest configuration that fits both.

A configuration is a choice of the switches that trade these resources
(serenity-pipeline options): fused tiling's MAC budget (``tile=none`` or
``tile-max-mac-overhead=N``: less RAM for more instructions) and the widened
filter copies (``widen-budget``: more flash for fewer instructions). Every
point is measured, none is predicted: serenity-compile builds it (``--io
arena``: inputs and outputs in the arena, as TFLite Micro plans them), QEMU
runs it once with ``-icount`` (serenity.deploy.run_measured):

- RAM = arena + persistent state + the stack the call used (painted and
  scanned around the call);
- flash = the network object's loaded sections but ``.bss`` (code, constants,
  ``.data``'s initial image), as serenity-compile's report counts them;
- instructions = one invocation on seeded inputs; the outputs are compared
  with the default configuration's (every configuration computes the same
  integers: ``outputs = default`` must say yes).

Measurements are cached (``--cache``, default ``~/.cache/serenity/frontier.json``)
by the model's bytes, the target, the options and the serenity-compile binary,
and the QEMU run by the object's bytes, so a second call, and a budget
question on a measured model, takes well under a second.
"""

import hashlib
import json
import os
import sys
import tempfile

from . import deploy

# The switches and the values enumerated (the defaults first: tiling with a
# 20 % MAC budget, the automatic widen budget).
TILE_CHOICES = (("tile 20%", "tile-max-mac-overhead=20"), ("no tiling", "tile=none"),
                ("tile 5%", "tile-max-mac-overhead=5"), ("tile 10%", "tile-max-mac-overhead=10"),
                ("tile 40%", "tile-max-mac-overhead=40"), ("tile 80%", "tile-max-mac-overhead=80"))
WIDEN_CHOICES = (("widen auto", ""), ("widen none", "widen-budget=0"), ("widen all", "widen-budget=-1"))
DEFAULT = ("tile 20%", "widen auto")
TFLM_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tflm_cmsis_nn.json")


class BudgetError(ValueError):
    """No measured configuration fits the budgets."""


def configurations(tiles=None, widens=None):
    """[(tile label, widen label, pipeline options)] of the enumeration, the
    default first; `tiles` / `widens` restrict it to those labels."""
    out = []
    for tile, tile_options in TILE_CHOICES:
        if tiles and tile not in tiles:
            continue
        for widen, widen_options in WIDEN_CHOICES:
            if widens and widen not in widens:
                continue
            out.append((tile, widen, " ".join(o for o in (tile_options, widen_options) if o)))
    return out


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _compiler_id(compiler):
    st = os.stat(compiler)
    return "%s:%d:%d" % (os.path.realpath(compiler), st.st_size, int(st.st_mtime))


class Cache:
    """A JSON file of measured points (see the module docstring)."""

    def __init__(self, path):
        self.path = path
        self.data = {"points": {}, "runs": {}}
        if path and os.path.exists(path):
            with open(path) as f:
                loaded = json.load(f)
            if isinstance(loaded, dict):
                self.data["points"].update(loaded.get("points", {}))
                self.data["runs"].update(loaded.get("runs", {}))

    def save(self):
        if not self.path:
            return
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


def measure(model, target, options, cache, compiler, work):
    """The measured point of `model` compiled with `options` for `target`:
    {"arena", "state", "stack", "ram", "text", "rodata", "data", "flash",
    "instructions", "outputs" (a digest of the printed outputs)}."""
    key = "|".join((_sha256(model), target, options, _compiler_id(compiler)))
    if key in cache.data["points"]:
        return cache.data["points"][key]
    out = tempfile.mkdtemp(dir=work)
    report, exe = deploy.build_timed(model, out, target, options, io="arena", compiler=compiler)
    run_key = "|".join((_sha256(exe), target))
    run = cache.data["runs"].get(run_key)
    if run is None:
        measured = deploy.run_measured(exe, target)
        digest = hashlib.sha256(json.dumps(measured["outputs"]).encode()).hexdigest()
        run = {"instructions": measured["time"], "stack": measured["stack"], "outputs": digest}
        cache.data["runs"][run_key] = run
    # Flash as serenity-compile counts it: every section the target loads
    # (SHF_ALLOC) but .bss: code, constants (.ARM.exidx included), .data.
    flash = report["flash"]
    point = {"arena": report["arena_bytes"], "state": report.get("state_bytes", 0),
             "stack": run["stack"], "instructions": run["instructions"], "outputs": run["outputs"],
             "text": flash["text"], "rodata": flash["rodata"], "data": flash["data"],
             "flash": flash["bytes"]}
    point["ram"] = point["arena"] + point["state"] + point["stack"]
    cache.data["points"][key] = point
    cache.save()
    return point


def pareto(points):
    """Indices of the points no other point beats in RAM, flash and
    instructions at once (at least as good in all three, better in one)."""
    keys = [(p["ram"], p["flash"], p["instructions"]) for p in points]
    front = []
    for i, a in enumerate(keys):
        dominated = any(all(x <= y for x, y in zip(b, a)) and b != a for b in keys)
        if not dominated:
            front.append(i)
    return front


def choose(points, ram_budget=None, flash_budget=None):
    """Index of the fastest point within both budgets (fewest instructions,
    then least RAM, then least flash); raises BudgetError, saying the least
    RAM reachable within the flash budget and the least flash reachable
    within the RAM budget, when none fits."""
    def fits(p, ram=True, flash=True):
        return ((not ram or ram_budget is None or p["ram"] <= ram_budget) and
                (not flash or flash_budget is None or p["flash"] <= flash_budget))

    feasible = [i for i, p in enumerate(points) if fits(p)]
    if feasible:
        return min(feasible, key=lambda i: (points[i]["instructions"], points[i]["ram"], points[i]["flash"]))
    def bound(budget):
        return "any amount" if budget is None else "%d bytes" % budget

    def least(resource, other, other_budget, what_other):
        within = [p[resource] for p in points if fits(p, ram=other == "ram", flash=other == "flash")]
        return "the least %s reachable within %s of %s is %s" % (
            "RAM" if resource == "ram" else "flash", bound(other_budget), what_other,
            "%d bytes" % min(within) if within else "none (no configuration fits that %s)" % what_other)

    parts = []
    if ram_budget is not None:
        parts.append(least("ram", "flash", flash_budget, "flash"))
    if flash_budget is not None:
        parts.append(least("flash", "ram", ram_budget, "RAM"))
    raise BudgetError("no configuration fits RAM %s and flash %s: %s" % (
        bound(ram_budget), bound(flash_budget), "; ".join(parts)))


def tflm_point(model_name, target, tflm_dir):
    """TFLite Micro's (RAM, flash, instructions) for the model where known:
    RAM its smallest arena (../shared/bench/tflm: what a program must give its
    interpreter; its stack is not counted), flash and instructions with
    CMSIS-NN as quoted in data/tflm_cmsis_nn.json; None when unknown."""
    from .tflite import report
    try:
        arenas = report.tflm_arenas(tflm_dir)
    except (report.TFLiteError, OSError):
        return None
    if model_name not in arenas:
        return None
    with open(TFLM_DATA) as f:
        quoted = json.load(f).get(target, {}).get(model_name, {})
    return {"ram": arenas[model_name][0], "flash": quoted.get("flash"),
            "instructions": quoted.get("instructions")}


def table(rows, front, chosen=None):
    """Markdown table of the measured configurations."""
    lines = ["| configuration | pipeline options | arena | state | stack | RAM | flash | instructions "
             "| Pareto | outputs = default |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    default_outputs = next((p["outputs"] for (t, w, _), p in rows if (t, w) == DEFAULT), None)
    for i, ((tile, widen, options), p) in enumerate(rows):
        label = "%s, %s%s%s" % (tile, widen, " (default)" if (tile, widen) == DEFAULT else "",
                                " **chosen**" if i == chosen else "")
        lines.append("| %s | `%s` | %d | %d | %d | %d | %d | %d | %s | %s |" % (
            label, options or "(none)", p["arena"], p["state"], p["stack"], p["ram"], p["flash"],
            p["instructions"], "yes" if i in front else "",
            "yes" if default_outputs is None or p["outputs"] == default_outputs else "**no**"))
    return "\n".join(lines)


def plot(rows, path, title, tflm=None, chosen=None):
    """Two panels, RAM and flash against instructions: every configuration,
    each panel's frontier as a staircase, the default and TFLite Micro's
    point marked."""
    from .plot import _pyplot
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, resource in zip(axes, ("ram", "flash")):
        xs = [p[resource] for _, p in rows]
        ys = [p["instructions"] for _, p in rows]
        ax.scatter(xs, ys, s=18, color="0.6", label="configurations")
        # This panel's frontier: the fastest point at each amount of the
        # resource, as a staircase (the table's Pareto column is 3-D).
        best = []
        for x, y in sorted(zip(xs, ys)):
            if not best or y < best[-1][1]:
                best.append((x, y))
        ax.step([b[0] for b in best], [b[1] for b in best], where="post", color="C0", linewidth=1)
        ax.scatter([b[0] for b in best], [b[1] for b in best], s=28, color="C0",
                   label="frontier (fewest instructions at this much)")
        for i, ((tile, widen, _), p) in enumerate(rows):
            if (tile, widen) == DEFAULT:
                ax.scatter([p[resource]], [p["instructions"]], marker="*", s=160, color="C1",
                           label="default", zorder=3)
            if i == chosen:
                ax.scatter([p[resource]], [p["instructions"]], marker="D", s=60, facecolor="none",
                           edgecolor="C3", label="chosen", zorder=4)
        if tflm and tflm.get(resource) and tflm.get("instructions"):
            ax.scatter([tflm[resource]], [tflm["instructions"]], marker="s", s=50, color="C2",
                       label="TFLite Micro + CMSIS-NN (arena, no stack)", zorder=3)
        ax.set_xlabel("RAM: arena + state + stack (bytes)" if resource == "ram"
                      else "flash: code + constants + .data (bytes)")
        ax.set_ylabel("instructions per inference")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args):
    if args.target not in deploy.BOARDS:
        raise ValueError("--target must be one of %s (instructions are counted on QEMU)"
                         % ", ".join(sorted(deploy.BOARDS)))
    if not os.path.exists(args.model):
        raise ValueError("%s: no such file" % args.model)
    for name in ("ram_budget", "flash_budget"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise ValueError("--%s must be a positive number of bytes" % name.replace("_", "-"))
    if not deploy.has_cortex_m_tools():
        raise RuntimeError("arm-none-eabi-gcc and qemu-system-arm are needed (scripts/setup.sh)")
    compiler = deploy.find_compiler()
    configs = configurations(args.tile, args.widen)
    if not configs:
        raise ValueError("no configuration selected by --tile/--widen")
    cache = Cache(args.cache)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for config in configs:
            rows.append((config, measure(args.model, args.target, config[2], cache, compiler, work)))
    points = [p for _, p in rows]
    front = pareto(points)
    chosen = None
    if args.ram_budget is not None or args.flash_budget is not None:
        chosen = choose(points, args.ram_budget, args.flash_budget)
    name = os.path.splitext(os.path.basename(args.model))[0]
    print("%s on %s: %d configurations measured (QEMU, -icount)\n" % (name, args.target, len(rows)))
    print(table(rows, front, chosen))
    tflm = tflm_point(name, args.target, args.tflm)
    if tflm:
        print("\nTFLite Micro: smallest arena %d bytes (its stack not counted)%s%s" % (
            tflm["ram"], ", flash %d bytes" % tflm["flash"] if tflm.get("flash") else "",
            ", %d instructions with CMSIS-NN (quoted, %s)" % (tflm["instructions"], os.path.relpath(TFLM_DATA))
            if tflm.get("instructions") else ""))
    if chosen is not None:
        (tile, widen, options), p = rows[chosen]
        print("\nchosen: %s, %s: RAM %d bytes, flash %d bytes, %d instructions (measured)" % (
            tile, widen, p["ram"], p["flash"], p["instructions"]))
        print("build it: serenity-compile %s --target %s%s" % (
            args.model, args.target, " --pipeline \"%s\"" % options if options else ""))
    if args.plot:
        plot(rows, args.plot, "%s on %s" % (name, args.target), tflm, chosen)
        print("\nwrote %s" % args.plot)
    return 0


def add_subparser(subparsers):
    p = subparsers.add_parser(
        "frontier", help="measured RAM / flash / instructions of a model's configurations on a Cortex-M board",
        description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("model", help=".tflite or TOSA .mlir model")
    p.add_argument("--target", default="cortex-m4", help="cortex-m4 or cortex-m55 (a QEMU board)")
    p.add_argument("--ram-budget", type=int, help="RAM budget in bytes (arena + state + stack)")
    p.add_argument("--flash-budget", type=int, help="flash budget in bytes (code + constants + .data)")
    p.add_argument("--tile", action="append", choices=[t for t, _ in TILE_CHOICES],
                   help="only these tiling choices (repeatable)")
    p.add_argument("--widen", action="append", choices=[w for w, _ in WIDEN_CHOICES],
                   help="only these widen choices (repeatable)")
    p.add_argument("--plot", help="PNG file for the frontier plot")
    p.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "serenity", "frontier.json"),
                   help="measurement cache (JSON); '' for none")
    p.add_argument("--tflm", default=os.path.join(deploy.ROOT, "..", "shared", "bench", "tflm"),
                   help="TFLite Micro's measured arenas (../shared/bench/tflm)")
    p.set_defaults(func=lambda args: _main(args))


def _main(args):
    try:
        return run(args)
    except BudgetError as e:
        print("serenity frontier: error: %s" % e, file=sys.stderr)
        return 2
