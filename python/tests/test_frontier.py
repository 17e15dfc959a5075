"""python3 -m serenity frontier: Pareto points, the budget choice and its
error, and an end-to-end run on QEMU's Cortex-M4 whose choice is checked
against the enumeration and rebuilt."""

import json
import os

import pytest

from serenity import deploy, frontier

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STR_WW = os.path.join(ROOT, "..", "shared", "models", "mlperf_tiny", "str_ww_ref_model.tflite")


def point(ram, flash, instructions):
    return {"ram": ram, "flash": flash, "instructions": instructions}


def test_pareto_keeps_points_nothing_beats_in_all_three():
    points = [point(10, 10, 10), point(5, 10, 20), point(10, 5, 20), point(12, 12, 12),
              point(10, 10, 10)]
    # (12, 12, 12) is beaten by (10, 10, 10); equal points do not beat each other.
    assert frontier.pareto(points) == [0, 1, 2, 4]


def test_choose_is_the_fastest_within_both_budgets():
    points = [point(100, 100, 50), point(80, 100, 70), point(80, 60, 90), point(60, 60, 99)]
    assert frontier.choose(points) == 0
    assert frontier.choose(points, ram_budget=90) == 1
    assert frontier.choose(points, ram_budget=90, flash_budget=70) == 2
    assert frontier.choose(points, flash_budget=60) == 2
    assert frontier.choose(points, ram_budget=60) == 3
    # Ties on instructions: the least RAM, then the least flash.
    assert frontier.choose([point(9, 9, 5), point(8, 9, 5), point(8, 7, 5)]) == 2
    # Then the options' text, as serenity-compile ranks: not the list's order.
    tied = [dict(point(8, 7, 5), options="b"), dict(point(8, 7, 5), options="a")]
    assert frontier.choose(tied) == 1 and frontier.choose(tied[::-1]) == 0


def test_impossible_budgets_say_what_is_reachable():
    points = [point(100, 100, 50), point(80, 120, 70), point(60, 150, 90)]
    with pytest.raises(frontier.BudgetError) as e:
        frontier.choose(points, ram_budget=70, flash_budget=110)
    message = str(e.value)
    assert "least RAM reachable within 110 bytes of flash is 100 bytes" in message
    assert "least flash reachable within 70 bytes of RAM is 150 bytes" in message
    with pytest.raises(frontier.BudgetError) as e:
        frontier.choose(points, ram_budget=10, flash_budget=10)
    assert "none (no configuration fits that flash)" in str(e.value)
    assert "none (no configuration fits that RAM)" in str(e.value)


def test_bad_options_are_refused(tmp_path, capsys):
    from serenity.__main__ import main
    assert main(["frontier", str(tmp_path / "absent.tflite"), "--cache", ""]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["frontier", STR_WW, "--target", "host", "--cache", ""]) == 1
    assert "QEMU" in capsys.readouterr().err
    assert main(["frontier", STR_WW, "--ram-budget", "0", "--cache", ""]) == 1
    assert "--ram-budget must be a positive" in capsys.readouterr().err
    assert main(["frontier", STR_WW, "--time-limit", "-1", "--cache", ""]) == 1
    assert "--time-limit must be a non-negative" in capsys.readouterr().err


def _slow_decision(monkeypatch, time_limit):
    """decide() on three predicted points, each predicted faster than its
    measurement and than the next point, while every build takes 60 s of a
    fake clock: the decision builds all three unless a time limit cuts it."""
    clock = [0.0]
    monkeypatch.setattr(frontier.time, "monotonic", lambda: clock[0])
    measured = {"a": 300, "b": 400, "c": 500}

    def measure(model, target, options, cache, compiler, work):
        clock[0] += 60.0
        return {"arena": 10, "state": 0, "stack": 0, "ram": 10, "flash": 10,
                "instructions": measured[options]}
    monkeypatch.setattr(frontier, "measure", measure)
    points = [dict(point(10, 10, instructions), options=options, tile="t", predicted=True)
              for options, instructions in (("a", 100), ("b", 200), ("c", 250))]
    points.append(dict(point(10, 10, 1000), options="default", tile="t"))
    measured["default"] = 1000
    return frontier.decide("m", "cortex-m4", points, None, None, None, ram_budget=10,
                           time_limit=time_limit)


def test_decision_does_not_depend_on_the_clock_by_default(monkeypatch):
    # Whatever the clock says, the three predicted points are measured and
    # the fastest measured one is proven.
    chosen = _slow_decision(monkeypatch, None)
    assert (chosen["options"], chosen["builds"], chosen["proven"]) == ("a", 3, True)
    assert _slow_decision(monkeypatch, 0) == chosen


def test_opt_in_time_limit_cuts_the_decision_short_and_says_so(monkeypatch):
    # 60 s per build against a 100 s limit: the second build would end after
    # 120 s, so only one is made, and the answer is the best measured point,
    # not proven (b and c are still predicted faster than "default").
    chosen = _slow_decision(monkeypatch, 100.0)
    assert (chosen["options"], chosen["builds"], chosen["proven"]) == ("a", 1, False)


def test_widen_items_pair_kernels_and_group_shared_filters():
    def kernel(op, instructions, *filters):
        return {"op": op, "location": "m.mlir:%s" % op, "instructions": instructions,
                "widened": [{"filter": f, "bytes": 100} for f in filters]}
    unwidened = [kernel("a", 1000), kernel("b", 500), kernel("c", 800), kernel("d", 300), kernel("e", 50)]
    widened = [kernel("a", 600, "f1"), kernel("b", 300, "f2", "f3"), kernel("c", 700, "f3"),
               kernel("d", 310, "f4"), kernel("e", 50)]
    items, dropped = frontier.widen_items(unwidened, widened, text_delta=40)
    # f2 and f3 are read by the same kernel: one item saving b's and c's
    # instructions; f4 saves nothing (left out); the code difference is shared
    # by the four widened kernels (10 bytes each).
    assert items == [{"filters": ["f1"], "saving": 400, "bytes": 100, "flash": 110.0},
                     {"filters": ["f2", "f3"], "saving": 300, "bytes": 200, "flash": 220.0}]
    assert dropped == 1
    with pytest.raises(frontier.ProfileError):
        frontier.widen_items(unwidened, widened[:4], 0)


def test_knapsack_front_is_the_brute_force_pareto_front():
    import itertools
    import random
    rng = random.Random(5)
    for _ in range(20):
        items = [{"flash": rng.randint(1, 50), "saving": rng.randint(1, 60)} for _ in range(rng.randint(1, 8))]
        subsets = [(sum(items[i]["flash"] for i in c), sum(items[i]["saving"] for i in c))
                   for r in range(len(items) + 1) for c in itertools.combinations(range(len(items)), r)]
        want = sorted({(f, s) for f, s in subsets
                       if not any(f2 <= f and s2 >= s and (f2, s2) != (f, s) for f2, s2 in subsets)})
        got = frontier.knapsack_front(items)
        assert [(f, s) for f, s, _ in got] == want
        for f, s, chosen in got:
            assert (sum(items[i]["flash"] for i in chosen), sum(items[i]["saving"] for i in chosen)) == (f, s)


def _small_network(path):
    """Three int8 convolutions on 32x32 (4, 16, 16 input channels: each
    filter can be widened), large enough for fused tiling to halve the arena."""
    from serenity.tflite.testmodels.composite import Graph
    g = Graph(7)
    x = g.t([1, 32, 32, 4], q=(0.03, -2))
    a = g.conv(x, 16, 3, 1, 0, 1, (0.05, -128))
    b = g.conv(a, 16, 3, 1, 0, 1, (0.05, -128))
    c = g.conv(b, 8, 1, 1, 0, 0, (0.08, 3))
    g.m.inputs, g.m.outputs = [x], [c]
    with open(path, "wb") as f:
        f.write(g.m.finish())


def test_budget_choice_is_the_fastest_of_the_enumeration(tmp_path, capsys):
    """On a small network, every configuration (tiled or not x every subset
    of filters widened, or direct convolutions) is built and measured on
    QEMU's Cortex-M4; for budget
    pairs between the measured values the frontier's decision (per-layer
    profiles, predicted points, the choice built and measured) is the fastest
    configuration of the enumeration within both budgets, predicted within 5
    %, with the default's outputs; serenity-compile decides the same from the
    cache; impossible budgets say what is reachable."""
    if not deploy.has_cortex_m_tools():
        pytest.skip("arm-none-eabi-gcc / qemu-system-arm not installed (scripts/setup.sh)")
    import itertools
    import subprocess
    model = str(tmp_path / "small.tflite")
    _small_network(model)
    cache_path = str(tmp_path / "cache.json")
    cache = frontier.Cache(cache_path)
    compiler = deploy.find_compiler()
    work = str(tmp_path)
    tiles = ["tile 8%", "no tiling"]
    rows, points = frontier.explore(model, "cortex-m4", cache, compiler, work, tiles)
    assert sum(1 for p in points if p.get("predicted")) >= 4
    # The cache is a frontier file (docs/Deploy.md): this model's frontier
    # on the M4, by this compiler, with every candidate.
    with open(cache_path) as f:
        written = json.load(f)
    assert (written["format"], written["version"]) == ("serenity-frontier", 1)
    [record] = written["frontiers"]
    assert (record["target"], record["model"]) == ("cortex-m4", "small.tflite")
    assert record["compiler"].startswith(os.path.realpath(compiler) + ":")
    assert len(record["points"]) == len(points)
    default_outputs = rows[0][1]["outputs"]
    # The widenable filters, from the fully widened build's profile.
    widened = frontier.profile(model, "cortex-m4", "tile=none widen-budget=-1", cache, compiler, work)
    filters = sorted({w["filter"] for k in widened for w in k["widened"]})
    assert len(filters) == 3
    enumeration = []
    for tile_options in ("tile-max-mac-overhead=8", "tile=none"):
        for r in range(len(filters) + 1):
            for subset in itertools.combinations(filters, r):
                options = tile_options + (" widen-filters=" + ",".join(subset) if subset else " widen-budget=0")
                enumeration.append(frontier.measure(model, "cortex-m4", options, cache, compiler, work))
        enumeration.append(frontier.measure(model, "cortex-m4", tile_options + " " + frontier.DIRECT, cache,
                                            compiler, work))
    assert {p["outputs"] for p in enumeration} == {default_outputs}, "a configuration changed the outputs"
    rams = sorted({p["ram"] for p in enumeration})
    flashes = sorted({p["flash"] for p in enumeration})
    assert rams[0] < rams[-1] / 1.5, "tiling should save RAM on this network"
    budgets = [(ram, flash) for ram in (rams[0], rams[-1]) for flash in flashes[::2] + [None]]
    checked = []
    for ram, flash in budgets:
        within = [p for p in enumeration if p["ram"] <= ram and (flash is None or p["flash"] <= flash)]
        if not within:
            continue
        _, fresh = frontier.explore(model, "cortex-m4", cache, compiler, work, tiles)
        # No time limit by default: what is checked is the choice, not how
        # fast the machine builds.
        chosen = frontier.decide(model, "cortex-m4", fresh, cache, compiler, work, ram, flash)
        m = chosen["measurement"]
        assert m["ram"] <= ram and (flash is None or m["flash"] <= flash)
        assert m["instructions"] == min(p["instructions"] for p in within), (ram, flash, chosen["options"])
        assert m["outputs"] == default_outputs
        if "prediction" in chosen:
            assert abs(chosen["prediction"]["instructions"] - m["instructions"]) <= 0.05 * m["instructions"]
        checked.append((ram, flash))
    assert len(checked) >= 4

    # The command line: the same decision, prediction vs measurement printed;
    # serenity-compile builds the same configuration from the cache.
    from serenity.__main__ import main
    ram, flash = next(pair for pair in checked if pair[1] is not None)
    args = ["frontier", model, "--target", "cortex-m4", "--cache", cache_path] + sum(
        (["--tile", t] for t in tiles), [])
    assert main(args + ["--ram-budget", str(ram), "--flash-budget", str(flash)]) == 0
    out = capsys.readouterr().out
    assert "outputs = the default configuration's: yes" in out
    options = out.split('--pipeline "')[1].split('"')[0]
    out_dir = str(tmp_path / "budget")
    base = [compiler, model, "--target", "cortex-m4", "-o", out_dir, "--frontier", cache_path]
    done = subprocess.run(base + ["--ram-budget", str(ram), "--flash-budget", str(flash)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "chose `%s`" % options in done.stdout
    with open(os.path.join(out_dir, "net.json")) as f:
        built = json.load(f)
    assert built["flash"]["bytes"] <= flash

    # The export for serenity-pipeline: its choice is serenity-compile's
    # (the same points, ranked by the same rule).
    export = str(tmp_path / "small.frontier.json")
    assert main(args + ["--export", export]) == 0
    capsys.readouterr()
    mlir = str(tmp_path / "small.mlir")
    assert main(["import-tflite", model, "-o", mlir]) == 0
    opt = os.path.join(os.path.dirname(compiler), "serenity-opt")
    done = subprocess.run([opt, mlir, "--serenity-pipeline=target=cortex-m lower-to-llvm=false frontier=%s "
                           "ram-budget=%d flash-budget=%d" % (export, ram, flash), "-o", os.devnull],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([opt, mlir, "--serenity-pipeline=target=cortex-m frontier=%s ram-budget=100 "
                           "flash-budget=%d" % (export, flash), "-o", os.devnull], capture_output=True, text=True)
    assert done.returncode != 0 and "the least RAM reachable within %d bytes of flash is" % flash in done.stderr

    # Impossible budgets: the same error from both.
    assert main(args + ["--ram-budget", "100", "--flash-budget", str(flash)]) == 2
    err = capsys.readouterr().err
    least = min(p["ram"] for p in fresh if p["flash"] <= flash)
    assert "the least RAM reachable within %d bytes of flash is %d bytes" % (flash, least) in err
    done = subprocess.run(base + ["--ram-budget", "100", "--flash-budget", str(flash)],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "the least RAM reachable within %d bytes of flash is %d bytes" % (flash, least) in done.stderr
    for bad, why in ((["--ram-budget", "0"], "positive"),
                     (["--ram-budget", "9999", "--pipeline", "tile=none"], "cannot be combined"),
                     (["--ram-budget", "9999", "--io", "caller"], "--io arena"),
                     (["--ram-budget", "9999", "--frontier", str(tmp_path / "none.json")],
                      "python3 -m serenity frontier")):
        done = subprocess.run(base + bad, capture_output=True, text=True)
        assert done.returncode != 0 and why in done.stderr, (bad, done.stderr)
