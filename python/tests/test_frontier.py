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


@pytest.mark.skipif(not os.path.exists(STR_WW), reason="../shared/models (MLPerf Tiny) is absent")
def test_budget_choice_on_cortex_m4(tmp_path, capsys):
    """streaming wakeword, tiled or not x widened filters or not, measured on
    QEMU: a RAM budget below the untiled arena forces tiling, a flash budget
    below the widened copies forces none; the choice is the fastest of the
    enumeration within both, computes the default's outputs, and rebuilt
    alone it measures what the table said."""
    if not deploy.has_cortex_m_tools():
        pytest.skip("arm-none-eabi-gcc / qemu-system-arm not installed (scripts/setup.sh)")
    cache = str(tmp_path / "cache.json")
    configs = frontier.configurations(["tile 20%", "no tiling"], ["widen auto", "widen none"])
    assert len(configs) == 4 and configs[0][:2] == frontier.DEFAULT
    compiler = deploy.find_compiler()
    points = [frontier.measure(STR_WW, "cortex-m4", c[2], frontier.Cache(cache), compiler, str(tmp_path))
              for c in configs]
    assert len({p["outputs"] for p in points}) == 1, "a configuration changed the outputs"
    untiled = min(p["ram"] for c, p in zip(configs, points) if c[0] == "no tiling")
    tiled = max(p["ram"] for c, p in zip(configs, points) if c[0] == "tile 20%")
    assert tiled < untiled
    flash = min(p["flash"] for p in points if p["ram"] < untiled)
    chosen = frontier.choose(points, ram_budget=untiled - 1, flash_budget=flash)
    feasible = [i for i, p in enumerate(points) if p["ram"] < untiled and p["flash"] <= flash]
    assert chosen in feasible
    assert points[chosen]["instructions"] == min(points[i]["instructions"] for i in feasible)

    # The command line gives the same choice from the cache, and the error
    # for a budget nothing fits.
    from serenity.__main__ import main
    args = ["frontier", STR_WW, "--target", "cortex-m4", "--cache", cache, "--tile", "tile 20%",
            "--tile", "no tiling", "--widen", "widen auto", "--widen", "widen none"]
    assert main(args + ["--ram-budget", str(untiled - 1), "--flash-budget", str(flash)]) == 0
    out = capsys.readouterr().out
    assert "chosen: %s, %s:" % configs[chosen][:2] in out
    assert main(args + ["--ram-budget", "100"]) == 2
    assert "least RAM reachable" in capsys.readouterr().err

    # serenity-compile --ram-budget/--flash-budget decides the same from the
    # measurements, builds that configuration, and says what is reachable
    # when nothing fits.
    import subprocess
    out_dir = str(tmp_path / "budget")
    base = [compiler, STR_WW, "--target", "cortex-m4", "-o", out_dir, "--frontier", cache]
    done = subprocess.run(base + ["--ram-budget", str(untiled - 1), "--flash-budget", str(flash)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "chose `%s`" % configs[chosen][2] in done.stdout
    assert "warning" not in done.stderr
    with open(os.path.join(out_dir, "net.json")) as f:
        built = json.load(f)
    assert built["arena_bytes"] == points[chosen]["arena"]
    assert built["flash"]["bytes"] == points[chosen]["flash"]
    done = subprocess.run(base + ["--ram-budget", "100", "--flash-budget", str(flash)],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "the least RAM reachable within %d bytes of flash is %d bytes" % (
        flash, min(p["ram"] for p in points if p["flash"] <= flash)) in done.stderr
    for bad, why in ((["--ram-budget", "0"], "positive"),
                     (["--ram-budget", "9999", "--pipeline", "tile=none"], "cannot be combined"),
                     (["--ram-budget", "9999", "--io", "caller"], "--io arena"),
                     (["--ram-budget", "9999", "--frontier", str(tmp_path / "none.json")],
                      "python3 -m serenity frontier")):
        done = subprocess.run(base + bad, capture_output=True, text=True)
        assert done.returncode != 0 and why in done.stderr, (bad, done.stderr)

    # Rebuilt alone with the printed options: the same object, so the same
    # measurement (no cache).
    again = frontier.measure(STR_WW, "cortex-m4", configs[chosen][2], frontier.Cache(None), compiler,
                             str(tmp_path))
    assert {k: again[k] for k in ("ram", "flash", "instructions", "outputs")} == \
        {k: points[chosen][k] for k in ("ram", "flash", "instructions", "outputs")}
    with open(cache) as f:
        assert len(json.load(f)["points"]) == 4
