"""Code size as a cost of fused tiling (issue 46).

A small vendor-style image classifier (1.27M MACs, 8.7 KB of weights: three
3x3 convolutions with 2x2 max pools, a mean, two FCs, softmax) is the case
where tiling once multiplied the code by nine on a Cortex-M4 (80 KB of text
tiled against 9 KB untiled, for 11 KB of arena). serenity-compile's default
never trades more than --flash-per-ram-byte (4) bytes of flash per byte of
RAM it saves (1: never more flash than RAM, issue 46's rule), and the tiles of
a tiled function must share one kernel per tile shape.
"""

import json
import os
import subprocess

import numpy as np
import pytest

from serenity.tflite.testmodels.composite import Graph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def small_image_classifier():
    g = Graph(27)
    x = g.t([1, 40, 40, 3], q=(0.0078, -1))

    def pool(v, q):
        n, h, w, c = g.shape(v)
        return g.unary("MAX_POOL_2D", v, q, shape=[n, h // 2, w // 2, c],
                       options_type="Pool2DOptions",
                       options={0: ("i8", 0), 1: ("i32", 2), 2: ("i32", 2), 3: ("i32", 2),
                                4: ("i32", 2), 5: ("i8", 0)})

    a = pool(g.conv(x, 8, 3, 1, 0, 1, (0.03, -128)), (0.03, -128))
    b = pool(g.conv(a, 16, 3, 1, 0, 1, (0.04, -128)), (0.04, -128))
    c = pool(g.conv(b, 32, 3, 1, 0, 1, (0.05, -128)), (0.05, -128))
    axes = g.m.const("axes", np.array([1, 2]), "int32")
    mean = g.unary("MEAN", c, (0.05, -128), shape=[1, 32], options_type="ReducerOptions",
                   options={0: ("bool", False)}, extra=(axes,))
    hidden = g.fc(mean, 64, (0.1, -20))
    logits = g.fc(hidden, 10, (0.2, 0))
    prob = g.unary("SOFTMAX", logits, (1.0 / 256, -128), options_type="SoftmaxOptions",
                   options={0: ("f32", 1.0)})
    g.m.inputs, g.m.outputs = [x], [prob]
    return g.m.finish()


@pytest.fixture(scope="module")
def serenity_compile():
    build = os.environ.get("SERENITY_BUILD_DIR", os.path.join(ROOT, "build"))
    path = os.path.join(build, "bin", "serenity-compile")
    if not os.path.exists(path):
        pytest.skip("serenity-compile is not built (scripts/setup.sh)")
    return path


def compile_model(tool, model, out, pipeline="", extra=()):
    args = [tool, model, "--target", "cortex-m4", "-o", out, *extra]
    if pipeline:
        args += ["--pipeline", pipeline]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(out, "net.json")) as f:
        return proc.stdout, json.load(f)


@pytest.mark.parametrize("rate", [None, 1, 8])
def test_default_trades_flash_for_ram_at_its_rate(serenity_compile, tmp_path, rate):
    model = str(tmp_path / "classifier.tflite")
    with open(model, "wb") as f:
        f.write(small_image_classifier())
    extra = () if rate is None else ("--flash-per-ram-byte=%d" % rate,)
    rate = 4 if rate is None else rate
    out, default = compile_model(serenity_compile, model, str(tmp_path / "default"), extra=extra)
    _, tiled = compile_model(serenity_compile, model, str(tmp_path / "tiled"), "tile=both")
    _, untiled = compile_model(serenity_compile, model, str(tmp_path / "untiled"), "tile=none")
    _, copies = compile_model(serenity_compile, model, str(tmp_path / "copies"),
                              "tile=both share-kernels=0")
    ram_saved = untiled["arena_bytes"] - tiled["arena_bytes"]
    flash_cost = tiled["flash"]["bytes"] - untiled["flash"]["bytes"]
    # Tiling does save RAM here, at a cost in code.
    assert ram_saved > 0 and flash_cost > 0
    # The report records the trade, as measured by the two builds.
    keep = flash_cost <= rate * ram_saved
    trade = {k: default["tiling"][k] for k in ("ram_saved", "flash_cost", "flash_per_ram_byte", "kept")}
    assert trade == {"ram_saved": ram_saved, "flash_cost": flash_cost, "flash_per_ram_byte": rate,
                     "kept": keep}
    # The MACs of the tiled build when it is kept (halo recomputation).
    assert ("macs" in default["tiling"]) == keep
    if keep:
        assert default["tiling"]["macs"] == tiled["tiling"]["macs"]
    # The default is whichever build does not trade more flash per byte of
    # RAM than the rate, byte for byte.
    chosen = tiled if keep else untiled
    chosen_dir = "tiled" if keep else "untiled"
    for name in ("net.o", "net.h"):
        with open(tmp_path / "default" / name, "rb") as a, open(tmp_path / chosen_dir / name, "rb") as b:
            assert a.read() == b.read(), name
    assert default["flash"] == chosen["flash"] and default["arena_bytes"] == chosen["arena_bytes"]
    assert "fused tiling saves %d bytes of RAM for %d bytes of flash" % (ram_saved, flash_cost) in out
    # Nothing of the untiled build is left beside the output.
    assert sorted(os.listdir(tmp_path / "default")) == sorted(os.listdir(tmp_path / "untiled"))
    # The tiles share one kernel per tile shape: less code than one copy of
    # the region's kernels per tile, for the same arena. (Here 68.8 KB
    # against 78.3 KB: its 40x40 maps split into tiles of many shapes, each
    # with its own halo and padding, so sharing alone does not make this
    # tiling pay; magic_wand's 199 KB of tiled code became 25 KB.)
    assert copies["arena_bytes"] == tiled["arena_bytes"]
    assert tiled["flash"]["text"] < copies["flash"]["text"]
