"""``profile`` and ``pareto`` (serenity.primitives) on tiny networks, and the
pieces they are built from. Nothing here depends on a measured time: the
tests check coverage, structure and that every configuration computes what
the default pipeline does."""

import contextlib
import io
import json
import os

import pytest

from serenity import deploy, primitives
from serenity.__main__ import main
from serenity.driver import SerenityOpt
from serenity.networks import generate


def test_selection_options_are_dropped_from_the_pipeline():
    pipeline = 'tile=none primitives=select budget=100 profile="/a b.json" schedule=dp primitive-report=r.json'
    assert primitives.without_selection(pipeline) == "tile=none schedule=dp"
    assert primitives.without_selection("") == ""


def test_tag_primitive_adds_the_attribute_to_the_one_convolution():
    mlir = ("%0 = tosa.conv2d %arg0, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>} : "
            "(tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>")
    tagged = primitives.tag_primitive(mlir, "im2col")
    assert "{serenity.primitive = #serenity.primitive<im2col>, acc_type = f32" in tagged
    depthwise = mlir.replace("tosa.conv2d", "tosa.depthwise_conv2d")
    assert "#serenity.primitive<dot>" in primitives.tag_primitive(depthwise, "dot")
    with pytest.raises(ValueError):
        primitives.tag_primitive(mlir + "\n" + mlir, "direct")


def test_uniform_prediction_follows_the_selection_model():
    """peak = max(other_peak, base + bytes) over the layers; time sums
    the layers' times; a primitive that does not apply to a conv is direct."""
    function = {"other_peak": 500, "layers": [
        {"convs": ["a"], "base": 400, "choices": [{"primitives": "direct", "time": 10, "bytes": 0},
                                                  {"primitives": "im2col", "time": 4, "bytes": 300}]},
        {"convs": ["b", "c"], "base": 100, "choices": [
            {"primitives": "direct+direct", "time": 7, "bytes": 0},
            {"primitives": "im2col+direct", "time": 5, "bytes": 50},
            {"primitives": "direct+im2col", "time": None, "bytes": 60}]}]}
    applicable = {"a": ["direct", "im2col"], "b": ["direct", "im2col"], "c": ["direct"]}
    assert primitives.uniform_prediction(function, applicable, "direct") == (17, 500)
    assert primitives.uniform_prediction(function, applicable, "im2col") == (9, 700)
    applicable["c"].append("im2col")
    assert primitives.uniform_prediction(function, applicable, "im2col") == (None, None)


def test_spread_keeps_both_ends():
    assert primitives.spread([1, 2, 3], None) == [1, 2, 3]
    assert primitives.spread([1, 2, 3], 5) == [1, 2, 3]
    assert primitives.spread(list(range(10)), 3) == [0, 4, 9]
    assert primitives.spread(list(range(10)), 2) == [0, 9]


def test_outputs_equal():
    assert deploy.outputs_equal([[1.0, 2.0]], [[1.0, 2.0]], exact=True)
    assert not deploy.outputs_equal([[1.0, 3.0]], [[1.0, 2.0]], exact=True)
    assert deploy.outputs_equal([[1.00005]], [[1.0]], exact=False)
    assert not deploy.outputs_equal([[1.001]], [[1.0]], exact=False)
    assert not deploy.outputs_equal([[1.0]], [[1.0, 2.0]], exact=False)
    assert not deploy.outputs_equal([[1.0]], [], exact=True)


@pytest.fixture(scope="module")
def tools(serenity_opt):
    if not SerenityOpt(serenity_opt).has_pass("serenity-select-primitives"):
        pytest.skip("this serenity-opt has no --serenity-select-primitives")
    if not os.path.exists(deploy.find_compiler()):
        pytest.skip("serenity-compile not built")
    if not deploy.host_cc():
        pytest.skip("no C compiler for the host")
    return serenity_opt


# (generator, parameters, the primitives profiled: the f32 network profiles two
# to keep the test short, and exercises --only-primitives).
NETWORKS = {"f32": ("resnet8", dict(dtype="f32", weights="random", channels=4, resolution=8), "direct,winograd2,vector"),
            "i8": ("kws-dscnn", dict(dtype="i8", weights="random", channels=4), "")}
# Per multiply-accumulate, for a profile that does not depend on the machine:
# the faster primitives need more workspace, so the frontier has several points.
SYNTHETIC = {"direct": 1.0, "im2col": 0.8, "dot": 0.6, "winograd2": 0.5, "winograd4": 0.4, "vector": 0.45}


@pytest.fixture(scope="module", params=sorted(NETWORKS))
def network(request, tools, tmp_path_factory):
    """(dtype, the network file, its kernels, the profile written by the CLI,
    what the CLI printed)."""
    work = tmp_path_factory.mktemp("net-" + request.param)
    name, params, only = NETWORKS[request.param]
    path = str(work / (name + ".mlir"))
    with open(path, "w") as f:
        f.write(generate(name, **params))
    kernels = primitives.read_kernels(path, str(work), "host", "")
    profile = str(work / "profile.json")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["profile", path, "-o", profile, "--reps", "3"] + (["--only-primitives", only] if only else []))
    assert code == 0
    return request.param, path, kernels, profile, printed.getvalue()


def test_profile_covers_every_kernel_with_direct(network):
    dtype, path, kernels, profile, printed = network
    with open(profile) as f:
        data = json.load(f)
    assert data["unit"] == "ns" and data["target"] == "host"
    assert kernels and set(data["times"]) == {k["key"] for k in kernels}
    wanted = NETWORKS[dtype][2]
    for kernel in kernels:
        times = data["times"][kernel["key"]]
        assert "direct" in times
        assert set(times) <= set(kernel["primitives"])
        if wanted:
            assert set(times) == set(wanted.split(",")) & set(kernel["primitives"])
        else:
            assert set(times) == set(kernel["primitives"])
        assert all(isinstance(t, (int, float)) and t >= 0 for t in times.values())
        assert "| %s | direct | 0 |" % kernel["key"] in printed
    # Every primitive computes what direct does.
    assert "DIFFER" not in printed and "failed" not in printed


def test_pareto_configurations_compute_what_the_default_does(network, tmp_path, capsys):
    dtype, path, kernels, _, _ = network
    profile = str(tmp_path / "synthetic.json")
    with open(profile, "w") as f:
        json.dump({"unit": "ns", "target": "host", "times": {
            k["key"]: {p: SYNTHETIC[p] * k["macs"] for p in k["primitives"]} for k in kernels}}, f)
    out_json, plot = str(tmp_path / "pareto.json"), str(tmp_path / "pareto.png")
    code = main(["pareto", path, "--profile", profile, "--reps", "3", "--points", "3", "--json", out_json,
                 "--plot", plot])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert ("| config | predicted conv time (ns) | predicted peak (bytes) | arena (bytes) | time (ns) "
            "| measured vs predicted | outputs |") \
        in printed
    with open(out_json) as f:
        data = json.load(f)
    configs = data["configs"]
    labels = [c["config"] for c in configs]
    assert labels[0] == "default" and "primitives=direct" in labels
    for config in configs:
        assert config["error"] is None, config
        assert isinstance(config["arena_bytes"], int) and config["arena_bytes"] > 0
        assert config["outputs_equal_default"] is True, config["config"]
        assert "| %s |" % config["config"] in printed
    assert "DIFFER" not in printed
    frontier = [c for c in configs if c["kind"] == "frontier"]
    assert len(frontier) >= (2 if dtype == "f32" else 1)
    peaks = [c["predicted_peak"] for c in frontier]
    times = [c["predicted_time"] for c in frontier]
    assert peaks == sorted(set(peaks)) and times == sorted(set(times), reverse=True)
    assert len(frontier) <= 3 and len(data["selection"]["frontier"]) >= len(frontier)
    assert frontier[0]["predicted_peak"] == data["selection"]["least_peak"]
    assert frontier[-1]["predicted_time"] == pytest.approx(data["selection"]["least_time"])
    # Each budget selects its frontier point, and the buffers of the
    # compiled network follow the predicted peak: the static allocator's
    # lower bound (the most bytes live at once) exceeds it by no more than
    # it does with direct everywhere (the model's own error on this network,
    # e.g. 256 bytes on the f32 one; a primitive whose lowering copied its
    # output would add a whole buffer).
    assert all(c["chosen"] == c["choice"] for c in frontier)
    direct = configs[labels.index("primitives=direct")]
    slack = max(0, direct["arena_lower_bound"] - direct["predicted_peak"])
    assert all(c["arena_lower_bound"] <= c["predicted_peak"] + slack for c in frontier)
    # The model's prediction for direct everywhere is the least-peak end of
    # the frontier when direct is the slowest, smallest primitive.
    assert direct["predicted_peak"] == frontier[0]["predicted_peak"]
    assert os.path.getsize(plot) > 0


@pytest.mark.skipif(not deploy.has_cortex_m_tools(), reason="needs arm-none-eabi-gcc and qemu-system-arm")
def test_profile_on_cortex_m4_counts_instructions(tools, tmp_path):
    path = str(tmp_path / "net.mlir")
    with open(path, "w") as f:
        f.write(generate("kws-dscnn", dtype="i8", weights="random", channels=4))
    profile, rows = primitives.profile_network(path, "cortex-m4", only=["direct"], work=str(tmp_path))
    assert profile["unit"] == "instructions" and profile["target"] == "cortex-m4"
    assert profile["times"] and all(set(t) == {"direct"} and t["direct"] > 0 for t in profile["times"].values())
    assert all(row[1] == "direct" for row in rows)


# How far the measured instructions of a whole network may be from the sum
# of its profiled kernels (the rest of the network is not in the model).
PREDICTION_TOLERANCE = 0.05


@pytest.mark.skipif(not deploy.has_cortex_m_tools(), reason="needs arm-none-eabi-gcc and qemu-system-arm")
def test_cortex_m4_measured_instructions_follow_the_prediction(tools, tmp_path):
    """QEMU's instruction counts are deterministic, so the model's prediction
    (the profiled kernels, each convolution with its fused requantization)
    can be checked against the compiled network: every single primitive and
    every frontier point within PREDICTION_TOLERANCE."""
    path = str(tmp_path / "net.mlir")
    with open(path, "w") as f:
        f.write(generate("kws-dscnn", dtype="i8", weights="random", channels=8))
    os.makedirs(str(tmp_path / "profile"))
    profile, _ = primitives.profile_network(path, "cortex-m4", work=str(tmp_path / "profile"))
    profile_path = str(tmp_path / "profile.json")
    with open(profile_path, "w") as f:
        json.dump(profile, f)
    os.makedirs(str(tmp_path / "pareto"))
    _, unit, configs = primitives.pareto_network(path, profile_path, "cortex-m4", work=str(tmp_path / "pareto"))
    assert unit == "instructions"
    checked = [c for c in configs if c.predicted_time is not None]
    assert {c.label for c in checked} >= {"primitives=direct", "primitives=dot", "primitives=im2col"}
    for c in checked:
        assert c.matches_default is True, c.label
        error = primitives.prediction_error(c)
        assert error is not None and abs(error) <= PREDICTION_TOLERANCE, (c.label, c.time, c.predicted_time)
