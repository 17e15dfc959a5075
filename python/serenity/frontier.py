"""``python3 -m serenity frontier MODEL --target T``: the (RAM, flash,
instructions) frontier of a model on a Cortex-M board, as a table and a plot,
and, with ``--ram-budget`` / ``--flash-budget``, the fastest code that fits
both.

Two kinds of choice trade these resources:

- fused tiling's MAC budget (``tile=none`` or ``tile-max-mac-overhead=N``):
  less RAM for more instructions; each value is compiled and measured;
- per layer, whether a convolution reads its filter widened to int16 at
  compile time (``widen-filters=...``: more flash for fewer instructions),
  decided filter by filter from a measured cost model;
- the convolution primitive: the dot-product kernels, or every convolution
  lowered directly (``primitives=direct``: 2-3x the instructions, a smaller
  stack), measured per tiling choice.

Every tiling choice is compiled twice, with no filter widened and with every
widenable filter widened, and each is run on QEMU (``-icount``) twice: once
timed as a whole (serenity.deploy.run_measured: instructions, the stack the
call used, the outputs) and once with serenity-profile-marks' hook before
every kernel (serenity.deploy.profile_layers: instructions per kernel and the
filters each kernel reads widened). A filter's value is the instructions its
kernels save widened (the two profiles kernel by kernel; filters read by the
same kernels go together), its cost the flash it adds (its int16 copy replaces
the int8 filter: + its bytes; the code difference of the two builds shared
among the widened kernels). Per tiling choice the widen sets on the (flash,
instructions) Pareto front are enumerated exactly (a 0/1 knapsack's Pareto
list); each is a predicted point:

- RAM = arena (with input and output) + persistent state + stack (the larger
  of the two builds' measured stacks);
- flash = the unwidened build's flash + the chosen filters' costs;
- instructions = the unwidened build's measured instructions - the chosen
  filters' savings.

Measured points (the two builds per tiling choice, and the default) enter
with their measurements. A budget question takes the fastest point within
both budgets, builds it, measures it on QEMU, and ranks again with that
measurement in place of the prediction, until the best point is a measured
one (at most 8 builds): it prints the choice's prediction vs measurement.
The decision depends on the model, the budgets and the measurements alone,
not on how busy the machine is. ``--time-limit S`` opts in to a wall-clock
limit: no build that would end after S seconds once a measured point fits;
a decision it cut short is flagged not proven.
The ranking gives each predicted point the benefit of the doubt (a few words
of stack, the code difference of the two builds, 1 % of the instructions:
the spreads seen between predictions and measurements), so that a point that
would fit and be faster is measured rather than ruled out by a prediction's
error. Flash is counted as serenity-compile counts it (every loaded
section of the object but .bss: code, constants, .data's initial image).

Everything is cached (``--cache``, default ``~/.cache/serenity/frontier.json``)
by the model's bytes, the target, the options and the serenity-compile binary
(QEMU runs by the object's bytes): a measured model's budget question takes
well under a second plus the build of its answer. The cache is a frontier
file (docs/Deploy.md, "The frontier file"; FORMAT, VERSION below): its
"frontiers" are what serenity-compile ``--ram-budget/--flash-budget`` and
serenity-pipeline ``frontier=FILE`` read (Serenity/Pipelines/Frontier.h,
readFrontierFile), one per model, target and compiler, written after every
exploration and decision; its other sections (measurements, runs, profiles)
are this module's own memo. ``--export FILE`` writes one model's frontier in
the same format.
"""

import hashlib
import json
import os
import sys
import tempfile
import time

from . import deploy

# The switches and the values enumerated (the defaults first: tiling with
# the microcontrollers' 8 % MAC budget, the automatic widen budget).
TILE_CHOICES = (("tile 8%", "tile-max-mac-overhead=8"), ("no tiling", "tile=none"),
                ("tile 5%", "tile-max-mac-overhead=5"), ("tile 10%", "tile-max-mac-overhead=10"),
                ("tile 20%", "tile-max-mac-overhead=20"),
                ("tile 40%", "tile-max-mac-overhead=40"), ("tile 80%", "tile-max-mac-overhead=80"),
                # The tiling search keeping the 4 best partial tilings per
                # round (docs/Tiling.md): regions greedy does not combine.
                ("tile 20% beam 4", "tile-max-mac-overhead=20 tile-beam-width=4"))
WIDEN_CHOICES = (("widen auto", ""), ("widen none", "widen-budget=0"), ("widen all", "widen-budget=-1"))
# Measured per tiling choice as well: every convolution lowered without the
# dot-product kernels (less stack, more instructions).
DIRECT = "primitives=direct widen-budget=0"
# Measured per tiling choice (the per-layer decision needs both ends); the
# default's automatic widen budget is measured for the default tiling only.
PROFILED = ("widen none", "widen all")
DEFAULT = ("tile 8%", "widen auto")
TFLM_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tflm_cmsis_nn.json")


# How far a partly widened build may be below its predicted point: the
# stack by a few words (seen: 8 bytes below both measured ones on a small
# network), the code by as much as widening every filter changes it (a
# widened kernel's code differs from its share of that: seen -6 % and +10 %
# of the flash of a small network whose flash is mostly code), the
# instructions by the profile's error (seen: 0.8 %). The decision, which
# measures what it chooses, tries every point within these (section above).
STACK_SPREAD = 8
INSTRUCTION_SPREAD = 0.01


class BudgetError(ValueError):
    """No measured configuration fits the budgets."""


_DIGESTS = {}


def _sha256(path):
    """The file's SHA-256, read once per version of the file (every cache key
    holds the model's)."""
    st = os.stat(path)
    version = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if version not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _DIGESTS[version] = h.hexdigest()
    return _DIGESTS[version]


def _compiler_id(compiler):
    """The compiler's identity in a frontier file, as serenity-compile's
    compilerIdentity computes it: real path, size, mtime in seconds."""
    st = os.stat(compiler)
    return "%s:%d:%d" % (os.path.realpath(compiler), st.st_size, int(st.st_mtime))


# The frontier file format (docs/Deploy.md, "The frontier file"), read by
# Serenity/Pipelines/Frontier.h's readFrontierFile.
FORMAT = "serenity-frontier"
VERSION = 1
# The fields of a point in a frontier file.
POINT_FIELDS = ("options", "arena", "state", "stack", "ram", "flash", "instructions", "predicted")


class Cache:
    """A frontier file with this module's memo beside the frontiers: measured
    points ("measurements"), QEMU runs, per-layer profiles (see the module
    docstring). A file of another format or version is not read (its
    measurements are made again)."""

    SECTIONS = ("measurements", "runs", "profiles")

    def __init__(self, path):
        self.path = path
        self.data = {section: {} for section in self.SECTIONS}
        self.data["frontiers"] = []
        if path and os.path.exists(path):
            with open(path) as f:
                loaded = json.load(f)
            if isinstance(loaded, dict) and loaded.get("format") == FORMAT and loaded.get("version") == VERSION:
                for section in self.SECTIONS:
                    self.data[section].update(loaded.get(section, {}))
                self.data["frontiers"] = list(loaded.get("frontiers", []))

    def save(self):
        if not self.path:
            return
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(dict(self.data, format=FORMAT, version=VERSION), f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


def frontier_record(model, target, points, compiler=None):
    """One frontier of a frontier file: the model (its file name and the
    SHA-256 of its bytes), the target, the identity of the serenity-compile
    that measured it (``compiler_identity``) and its points."""
    record = {"model": os.path.basename(model), "sha256": _sha256(model), "target": target,
              "points": [{k: p[k] for k in POINT_FIELDS} for p in points]}
    if compiler:
        record["compiler"] = _compiler_id(compiler)
    return record


def store_frontier(cache, model, target, compiler, points):
    """Replaces the cache's frontier of (model, target, compiler) by `points`."""
    record = frontier_record(model, target, points, compiler)
    same = lambda r: all(r.get(k) == record.get(k) for k in ("sha256", "target", "compiler"))
    cache.data["frontiers"] = [r for r in cache.data["frontiers"] if not same(r)] + [record]
    cache.save()


def _key(model, target, options, compiler):
    return "|".join((_sha256(model), target, options, _compiler_id(compiler)))


def measured(model, target, options, cache, compiler):
    """The cached measurement of this configuration, or None."""
    return cache.data["measurements"].get(_key(model, target, options, compiler))


def measure(model, target, options, cache, compiler, work):
    """The measured point of `model` compiled with `options` for `target`:
    {"arena", "state", "stack", "ram", "text", "rodata", "data", "flash",
    "instructions", "outputs" (a digest of the printed outputs)}."""
    key = _key(model, target, options, compiler)
    if key in cache.data["measurements"]:
        return cache.data["measurements"][key]
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
    cache.data["measurements"][key] = point
    cache.save()
    return point


def profile(model, target, options, cache, compiler, work):
    """serenity.deploy.profile_layers of this configuration, cached: [{"op",
    "location", "instructions", "widened": [{"filter", "bytes"}]}] per
    kernel."""
    key = _key(model, target, options, compiler)
    if key not in cache.data["profiles"]:
        out = tempfile.mkdtemp(dir=work)
        layers = deploy.profile_layers(model, out, target, options, compiler=compiler)
        cache.data["profiles"][key] = [
            {"op": k["op"], "location": os.path.basename(k["location"]), "instructions": k["instructions"],
             "widened": [{"filter": w["filter"], "bytes": w["bytes"]} for w in k.get("widened", [])]}
            for k in layers["kernels"]]
        cache.save()
    return cache.data["profiles"][key]


class ProfileError(RuntimeError):
    """The two builds of a tiling choice do not have the same kernels."""


def widen_items(unwidened, widened, text_delta):
    """The per-layer widening choices of one tiling choice, from the profiles
    of its unwidened and fully widened builds (the same kernels in the same
    order): filters read by the same kernels form one item (connected
    components), each {"filters": sorted names, "saving": instructions saved
    (sum over its kernels of unwidened - widened), "flash": bytes added (the
    filters' bytes: the int16 copy replaces the int8 filter; plus the share
    of the code difference `text_delta`, by kernels)}. Items that save
    nothing are left out."""
    if len(unwidened) != len(widened) or any(
            a["op"] != b["op"] or a["location"] != b["location"] for a, b in zip(unwidened, widened)):
        raise ProfileError("the unwidened and widened builds have different kernels (%d vs %d)" % (
            len(unwidened), len(widened)))
    parent = {}

    def find(f):
        while parent[f] != f:
            parent[f] = parent[parent[f]]
            f = parent[f]
        return f

    sizes = {}
    kernels = [i for i, k in enumerate(widened) if k["widened"]]
    for i in kernels:
        names = [w["filter"] for w in widened[i]["widened"]]
        for w in widened[i]["widened"]:
            parent.setdefault(w["filter"], w["filter"])
            sizes[w["filter"]] = w["bytes"]
        for name in names[1:]:
            parent[find(name)] = find(names[0])
    groups = {}
    for i in kernels:
        root = find(widened[i]["widened"][0]["filter"])
        group = groups.setdefault(root, {"kernels": [], "filters": set()})
        group["kernels"].append(i)
        group["filters"].update(w["filter"] for w in widened[i]["widened"])
    per_kernel = text_delta / len(kernels) if kernels else 0
    items = []
    for group in groups.values():
        saving = sum(unwidened[i]["instructions"] - widened[i]["instructions"] for i in group["kernels"])
        if saving <= 0:
            continue
        data = sum(sizes[f] for f in group["filters"])
        items.append({"filters": sorted(group["filters"]), "saving": saving, "bytes": data,
                      "flash": data + per_kernel * len(group["kernels"])})
    items.sort(key=lambda item: item["filters"])
    return items, len(groups) - len(items)


def knapsack_front(items):
    """Every subset of `items` on the (flash added, instructions saved)
    Pareto front (least flash for its saving), exactly: [(flash, saving,
    item indices)], by increasing flash."""
    front = [(0.0, 0, ())]
    for index, item in enumerate(items):
        grown = front + [(f + item["flash"], s + item["saving"], chosen + (index,)) for f, s, chosen in front]
        grown.sort(key=lambda t: (t[0], -t[1]))
        front = []
        for entry in grown:
            if not front or entry[1] > front[-1][1]:
                front.append(entry)
    return front


def candidates(tile, tile_options, unwidened, widened, items, dropped=0):
    """The predicted points of one tiling choice (module docstring): one per
    widen set on the knapsack's front, from the measured points of its
    unwidened and widened builds and the items of widen_items (`dropped`:
    how many it left out)."""
    stack = max(unwidened["stack"], widened["stack"])
    # The profiled build calls a hook between kernels, which changes their
    # code a little (1-2 % of a model's instructions): the savings are scaled
    # so that the two ends (nothing widened, everything widened) are the
    # measured builds.
    profiled = sum(item["saving"] for item in items)
    scale = (unwidened["instructions"] - widened["instructions"]) / profiled if profiled > 0 else 1.0
    if scale <= 0:
        scale = 1.0
    out = []
    for flash, saving, chosen in knapsack_front(items):
        if not chosen:
            widen, options = "widen none", "widen-budget=0"
        elif len(chosen) == len(items) and not dropped:
            widen, options = "widen all", "widen-budget=-1"
        else:
            filters = sorted(f for i in chosen for f in items[i]["filters"])
            widen = "widen %d of %d" % (len(chosen), len(items))
            options = "widen-filters=" + ",".join(filters)
        point = {"tile": tile, "widen": widen,
                 "options": " ".join(o for o in (tile_options, options) if o),
                 "arena": unwidened["arena"], "state": unwidened["state"], "stack": stack,
                 "flash": int(round(unwidened["flash"] + flash)),
                 "instructions": int(round(unwidened["instructions"] - scale * saving)), "predicted": True}
        point["ram"] = point["arena"] + point["state"] + point["stack"]
        # How good it may be (the spreads above): the decision measures a
        # point that could fit and be the fastest.
        point["ram_low"] = point["arena"] + point["state"] + min(unwidened["stack"], widened["stack"]) - STACK_SPREAD
        if chosen:
            point["flash_low"] = (unwidened["flash"] + sum(items[i]["bytes"] for i in chosen)
                                  - abs(widened["text"] - unwidened["text"]))
            point["instructions_low"] = int(point["instructions"] * (1 - INSTRUCTION_SPREAD))
        out.append(point)
    return out


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


def _fits(p, ram_budget=None, flash_budget=None):
    """Whether point `p` is within the budgets (None: no budget)."""
    return ((ram_budget is None or p["ram"] <= ram_budget) and
            (flash_budget is None or p["flash"] <= flash_budget))


def choose(points, ram_budget=None, flash_budget=None):
    """Index of the fastest point within both budgets (fewest instructions,
    then least RAM, then least flash, then the options' text); raises
    BudgetError, saying the least RAM reachable within the flash budget and
    the least flash reachable within the RAM budget, when none fits."""
    feasible = [i for i, p in enumerate(points) if _fits(p, ram_budget, flash_budget)]
    if feasible:
        # The options' text last, as serenity-compile ranks (Frontier.cpp):
        # the choice does not depend on the points' order.
        return min(feasible, key=lambda i: (points[i]["instructions"], points[i]["ram"], points[i]["flash"],
                                            points[i].get("options", "")))
    def bound(budget):
        return "any amount" if budget is None else "%d bytes" % budget

    def least(resource, other, other_budget, what_other):
        within = [p[resource] for p in points if _fits(p, **{other + "_budget": other_budget})]
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
    CMSIS-NN (TFLite Micro's reference kernels on RISC-V) as recorded in
    data/tflm_cmsis_nn.json, "kernels" naming which; None when unknown."""
    from .tflite import report
    try:
        arenas = report.tflm_arenas(tflm_dir)
    except (report.TFLiteError, OSError):
        return None
    if model_name not in arenas:
        return None
    with open(TFLM_DATA) as f:
        quoted = json.load(f).get(target, {}).get(model_name, {})
    riscv = target in deploy.BOARDS and deploy.BOARDS[target].riscv
    return {"ram": arenas[model_name][0], "flash": quoted.get("flash"),
            "instructions": quoted.get("instructions"),
            "kernels": "its reference kernels" if riscv else "CMSIS-NN"}


def table(rows, front):
    """Markdown table of the measured configurations."""
    lines = ["| configuration | pipeline options | arena | state | stack | RAM | flash | instructions "
             "| Pareto | outputs = default |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    default_outputs = next((p["outputs"] for (t, w, _), p in rows if (t, w) == DEFAULT), None)
    for i, ((tile, widen, options), p) in enumerate(rows):
        label = "%s, %s%s" % (tile, widen, " (default)" if (tile, widen) == DEFAULT else "")
        lines.append("| %s | `%s` | %d | %d | %d | %d | %d | %d | %s | %s |" % (
            label, options or "(none)", p["arena"], p["state"], p["stack"], p["ram"], p["flash"],
            p["instructions"], "yes" if i in front else "",
            "yes" if default_outputs is None or p["outputs"] == default_outputs else "**no**"))
    return "\n".join(lines)


def plot(rows, path, title, tflm=None, chosen=None, points=()):
    """Two panels, RAM and flash against instructions: the measured builds,
    the candidate points (predicted ones hollow), each panel's frontier over
    all of them as a staircase, the default, the chosen point and TFLite
    Micro's point marked."""
    from .plot import _pyplot
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    predicted = [p for p in points if p.get("predicted")]
    for ax, resource in zip(axes, ("ram", "flash")):
        every = [p for _, p in rows] + list(points)
        ax.scatter([p[resource] for _, p in rows], [p["instructions"] for _, p in rows], s=18,
                   color="0.5", label="measured builds")
        if predicted:
            ax.scatter([p[resource] for p in predicted], [p["instructions"] for p in predicted], s=14,
                       facecolor="none", edgecolor="0.5", label="predicted (per-layer widening)")
        # This panel's frontier: the fastest point at each amount of the
        # resource, as a staircase (the tables' fronts are 3-D).
        best = []
        for x, y in sorted((p[resource], p["instructions"]) for p in every):
            if not best or y < best[-1][1]:
                best.append((x, y))
        ax.step([b[0] for b in best], [b[1] for b in best], where="post", color="C0", linewidth=1,
                label="frontier (fewest instructions at this much)")
        for (tile, widen, _), p in rows:
            if (tile, widen) == DEFAULT:
                ax.scatter([p[resource]], [p["instructions"]], marker="*", s=160, color="C1",
                           label="default", zorder=3)
        if chosen is not None:
            ax.scatter([chosen[resource]], [chosen["instructions"]], marker="D", s=60, facecolor="none",
                       edgecolor="C3", label="chosen (measured)", zorder=4)
        if tflm and tflm.get(resource) and tflm.get("instructions"):
            ax.scatter([tflm[resource]], [tflm["instructions"]], marker="s", s=50, color="C2",
                       label="TFLite Micro + %s (arena, no stack)" % tflm["kernels"], zorder=3)
        ax.set_xlabel("RAM: arena + state + stack (bytes)" if resource == "ram"
                      else "flash: code + constants + .data (bytes)")
        ax.set_ylabel("instructions per inference")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def explore(model, target, cache, compiler, work, tiles=None):
    """Measures and profiles every tiling choice (`tiles`: labels, default
    all) and the default: (measured rows [((tile, widen, options), point)],
    candidate points: predicted ones, or measured where the configuration
    was measured, each with "prediction" (the predicted values) when it was
    predicted). The candidates are the cache's frontier of the model for
    serenity-compile."""
    rows, points, seen = [], [], set()
    for tile, tile_options in TILE_CHOICES:
        if tiles and tile not in tiles:
            continue
        built, options = {}, {}
        for widen in PROFILED:
            options[widen] = " ".join(o for o in (tile_options, dict(WIDEN_CHOICES)[widen]) if o)
            built[widen] = measure(model, target, options[widen], cache, compiler, work)
            rows.append(((tile, widen, options[widen]), built[widen]))
        # A tiling choice that builds what an earlier one built (the same
        # region within both MAC budgets) adds no candidates.
        signature = tuple((built[w]["arena"], built[w]["flash"], built[w]["instructions"]) for w in PROFILED)
        if signature in seen:
            continue
        seen.add(signature)
        # Every convolution lowered directly (primitives=direct: the loops
        # of the reference lowering, no dot-product kernels): 2-3x the
        # instructions, but no kernel keeps four accumulators and a widened
        # word in registers, so the stack is smaller; measured, a point at
        # the tight end of RAM.
        direct = " ".join(o for o in (tile_options, DIRECT) if o)
        rows.append(((tile, "direct convolutions", direct),
                     measure(model, target, direct, cache, compiler, work)))
        points.append(dict(rows[-1][1], tile=tile, widen="direct convolutions", options=direct,
                           predicted=False))
        items, dropped = [], 0
        # Where nothing is widened (Helium kernels read int8 filters; no
        # convolution qualifies) the two builds are one: no profiles.
        if built["widen all"]["flash"] != built["widen none"]["flash"]:
            layers = {widen: profile(model, target, options[widen], cache, compiler, work)
                      for widen in PROFILED}
            try:
                items, dropped = widen_items(layers["widen none"], layers["widen all"],
                                             built["widen all"]["text"] - built["widen none"]["text"])
            except ProfileError as e:
                # Widening changed the kernels themselves: no per-layer
                # prediction for this tiling, its two builds stay measured.
                print("serenity frontier: %s, %s: %s; no per-layer points" % (
                    os.path.basename(model), tile, e), file=sys.stderr)
        points += candidates(tile, tile_options, built["widen none"], built["widen all"], items, dropped)
        if (tile, "widen auto") == DEFAULT:
            options = " ".join(o for o in (tile_options, dict(WIDEN_CHOICES)["widen auto"]) if o)
            p = measure(model, target, options, cache, compiler, work)
            rows.insert(0, ((tile, "widen auto", options), p))
            points.append(dict(p, tile=tile, widen="widen auto", options=options, predicted=False))
    # Measured configurations enter with their measurements.
    for point in points:
        m = measured(model, target, point["options"], cache, compiler) if point.get("predicted") else None
        if m:
            _settle(point, m)
    # Every other measured configuration of the model (earlier decisions)
    # enters too, as serenity-compile reads them.
    prefix, suffix = "%s|%s|" % (_sha256(model), target), "|" + _compiler_id(compiler)
    known = {p["options"] for p in points}
    for key, p in sorted(cache.data["measurements"].items()):
        if key.startswith(prefix) and key.endswith(suffix):
            options = key[len(prefix):-len(suffix)]
            if options not in known:
                known.add(options)
                points.append(dict(p, options=options, predicted=False, **_labels(options)))
    store_frontier(cache, model, target, compiler, points)
    return rows, points


def _settle(point, m):
    """A predicted point takes the measurement `m` of its configuration (its
    predicted values kept as "prediction")."""
    point["prediction"] = {k: point[k] for k in ("ram", "flash", "instructions")}
    point.update({k: m[k] for k in ("arena", "state", "stack", "ram", "flash", "instructions")}, predicted=False)
    for bound in ("ram_low", "flash_low", "instructions_low"):
        point.pop(bound, None)


def _labels(options):
    """{"tile", "widen"} labels of a configuration's pipeline options."""
    words = dict(w.split("=", 1) for w in options.split() if "=" in w)
    if words.get("tile") == "none":
        tile = "no tiling"
    else:
        tile = "tile %s%%" % words.get("tile-max-mac-overhead", "8")
        if words.get("tile-beam-width", "1") != "1":
            tile += " beam %s" % words["tile-beam-width"]
    if "widen-filters" in words:
        widen = "widen %d filters" % len(words["widen-filters"].split(","))
    else:
        widen = {"0": "widen none", "-1": "widen all"}.get(words.get("widen-budget"), "widen auto")
    return {"tile": tile, "widen": widen}


def decide(model, target, points, cache, compiler, work, ram_budget=None, flash_budget=None, tries=8,
           time_limit=None):
    """The fastest point within both budgets, as measured. The points are
    ranked by their values (predicted ones with the smaller stack, see
    `candidates`); the best is built and measured, its measurement replaces
    its prediction, and the ranking is made again, until the best point is a
    measured one that fits (then no unmeasured point is predicted faster) or
    `tries` builds were made, or, with a `time_limit` (seconds; None or 0:
    none, the default, so that the decision does not depend on the machine's
    load), the next build would end after it at the builds' mean time while
    a measured point fits (then the best measured point that fits, with
    "proven": False). After two builds
    of one tiling choice broke a budget its other points are ranked without
    the benefit of the doubt in that resource (the build's stack or code was
    not the smaller one). Returns the point with "measurement" (and
    "prediction" when it was predicted), "builds" and "proven"."""
    builds, misses = 0, {}
    started = time.monotonic()
    while True:
        view = [dict(p, ram=p.get("ram_low", p["ram"]), flash=p.get("flash_low", p["flash"]),
                     instructions=p.get("instructions_low", p["instructions"]))
                if p.get("predicted") else p for p in points]
        try:
            point = points[choose(view, ram_budget, flash_budget)]
        except BudgetError:
            point = None
        if point is not None and not point.get("predicted"):
            best, proven = point, True
            break
        elapsed = time.monotonic() - started
        late = time_limit and builds and elapsed + elapsed / builds > time_limit and any(
            not p.get("predicted") and _fits(p, ram_budget, flash_budget) for p in points)
        if point is None or builds == tries or late:
            # The fastest measured point within the budgets; proven when no
            # predicted point could still be faster and fit.
            real = [p for p in points if not p.get("predicted")]
            try:
                best = real[choose(real, ram_budget, flash_budget)]
            except BudgetError:
                # Said with the points' values, not the benefit of the doubt.
                choose(points, ram_budget, flash_budget)
                raise
            proven = point is None
            break
        optimistic = {"ram": point.get("ram_low"), "flash": point.get("flash_low")}
        _settle(point, measure(model, target, point["options"], cache, compiler, work))
        builds += 1
        # Two builds of a tiling choice that the benefit of the doubt let in
        # and that broke the same budget: its other predicted points lose
        # that benefit for this resource.
        for resource, budget in (("ram", ram_budget), ("flash", flash_budget)):
            if optimistic[resource] is not None and not _fits(point, **{resource + "_budget": budget}):
                key = (point["tile"], resource)
                misses[key] = misses.get(key, 0) + 1
                if misses[key] >= 2:
                    for p in points:
                        if p.get("predicted") and p["tile"] == point["tile"]:
                            p.pop(resource + "_low", None)
    best["measurement"] = measure(model, target, best["options"], cache, compiler, work)
    best["builds"], best["proven"] = builds, proven
    if cache is not None and builds:
        # The measurements replace the predictions in the frontier file.
        store_frontier(cache, model, target, compiler, points)
    return best


def candidate_table(points, chosen=None):
    """Markdown table of the candidate points on the (RAM, flash,
    instructions) Pareto front."""
    front = pareto(points)
    lines = ["| tiling | filters widened | RAM | flash | instructions | | pipeline options |",
             "|---|---|---:|---:|---:|---|---|"]
    for i in sorted(front, key=lambda i: (points[i]["ram"], points[i]["flash"])):
        p = points[i]
        options = p["options"]
        if len(options) > 90:
            options = options[:87] + "..."
        lines.append("| %s | %s | %d | %d | %d | %s | `%s` |" % (
            p["tile"], p["widen"], p["ram"], p["flash"], p["instructions"],
            "predicted" if p.get("predicted") else "measured" + (" **chosen**" if p is chosen else ""),
            options or "(none)"))
    return "\n".join(lines)


def export(path, model, target, points, compiler=None):
    """Writes the model's frontier as a frontier file of its own (the
    module docstring), for serenity-pipeline's `frontier=FILE` and
    serenity-compile's `--frontier FILE`."""
    data = {"format": FORMAT, "version": VERSION,
            "frontiers": [frontier_record(model, target, points, compiler)]}
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


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
    if args.time_limit is not None and args.time_limit < 0:
        raise ValueError("--time-limit must be a non-negative number of seconds (0: no limit)")
    if not deploy.has_board_tools(args.target):
        board = deploy.BOARDS[args.target]
        raise RuntimeError("%s and %s are needed (scripts/setup.sh)" % (board.cc, board.qemu_system))
    compiler = deploy.find_compiler()
    cache = Cache(args.cache)
    with tempfile.TemporaryDirectory() as work:
        rows, points = explore(args.model, args.target, cache, compiler, work, args.tile)
        chosen = None
        if args.ram_budget is not None or args.flash_budget is not None:
            started = time.time()
            chosen = decide(args.model, args.target, points, cache, compiler, work,
                            args.ram_budget, args.flash_budget, time_limit=args.time_limit)
            seconds = time.time() - started
    front = pareto([p for _, p in rows])
    name = os.path.splitext(os.path.basename(args.model))[0]
    print("%s on %s: %d builds measured (QEMU, -icount), %d candidate points (%d predicted)\n" % (
        name, args.target, len(rows), len(points), sum(1 for p in points if p.get("predicted"))))
    print(table(rows, front))
    print("\nThe (RAM, flash, instructions) Pareto front of the candidates (per-layer widening decided "
          "from the per-layer profiles):\n")
    print(candidate_table(points, chosen))
    tflm = tflm_point(name, args.target, args.tflm)
    if tflm:
        print("\nTFLite Micro: smallest arena %d bytes (its stack not counted)%s%s" % (
            tflm["ram"], ", flash %d bytes" % tflm["flash"] if tflm.get("flash") else "",
            ", %d instructions with %s (%s)" % (tflm["instructions"], tflm["kernels"],
                                                os.path.relpath(TFLM_DATA))
            if tflm.get("instructions") else ""))
    if chosen is not None:
        p, pred = chosen, chosen.get("prediction")
        print("\nchosen: %s, %s: measured RAM %d bytes (arena %d + state %d + stack %d), flash %d bytes, "
              "%d instructions" % (p["tile"], p["widen"], p["ram"], p["arena"], p["state"], p["stack"],
                                   p["flash"], p["instructions"]))
        default_outputs = next((q["outputs"] for (t, w, _), q in rows if (t, w) == DEFAULT), None)
        if default_outputs is not None:
            print("outputs = the default configuration's: %s" % (
                "yes" if p["measurement"]["outputs"] == default_outputs else "**NO**"))
        if pred:
            print("predicted: RAM %d, flash %d, %d instructions (instructions %+.2f %%, flash %+.2f %% "
                  "of the measurement)" % (pred["ram"], pred["flash"], pred["instructions"],
                                           100.0 * (pred["instructions"] - p["instructions"]) / p["instructions"],
                                           100.0 * (pred["flash"] - p["flash"]) / p["flash"]))
        else:
            print("(a measured configuration: no prediction involved)")
        print("decided in %.1f s: %d build(s) measured on QEMU%s" % (
            seconds, p["builds"], "" if p["proven"] else
            "; NOT PROVEN: the build or time limit was reached while a predicted point ranked better"))
        print("build it: serenity-compile %s --target %s%s" % (
            args.model, args.target, " --pipeline \"%s\"" % p["options"] if p["options"] else ""))
    if args.export:
        export(args.export, args.model, args.target, points, compiler)
        print("\nwrote %s (serenity-pipeline frontier=%s ram-budget=... flash-budget=...)" % (
            args.export, args.export))
    if args.plot:
        plot(rows, args.plot, "%s on %s" % (name, args.target), tflm, chosen, points)
        print("\nwrote %s" % args.plot)
    return 0


def add_subparser(subparsers):
    p = subparsers.add_parser(
        "frontier", help="measured RAM / flash / instructions of a model's configurations on a Cortex-M board",
        description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("model", help=".tflite or TOSA .mlir model")
    p.add_argument("--target", default="cortex-m4", help="a target with a QEMU board: cortex-m4, cortex-m7, cortex-m33, cortex-m55, cortex-m0plus, riscv32-imc or riscv32-imac")
    p.add_argument("--ram-budget", type=int, help="RAM budget in bytes (arena + state + stack)")
    p.add_argument("--flash-budget", type=int, help="flash budget in bytes (code + constants + .data)")
    p.add_argument("--tile", action="append", choices=[t for t, _ in TILE_CHOICES],
                   help="only these tiling choices (repeatable)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="opt-in wall-clock limit: seconds the decision may spend building and measuring "
                        "candidates once one fits; a decision cut short is flagged NOT PROVEN (default: "
                        "none, the decision is bounded by 8 builds and does not depend on the machine's load)")
    p.add_argument("--plot", help="PNG file for the frontier plot")
    p.add_argument("--export", help="frontier file of the model's candidate points (serenity-pipeline frontier=FILE, serenity-compile --frontier FILE)")
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
