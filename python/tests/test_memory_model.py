"""serenity-opt's memory report equals an independent Python implementation
of the DESIGN.md memory model on generated networks."""

import pytest

from serenity.driver import SerenityOpt
from serenity.networks import generate

from mlir_text import Function, simulate

CASES = [
    ("resnet8", {}, "f32"),
    ("resnet8", {}, "i8"),
    ("fc-autoencoder", {}, "f32"),      # reshapes are views of their source
    ("inception-module", {}, "f32"),
    ("kws-dscnn", {}, "i8"),
    ("randwire-stage", dict(channels=16, resolution=16, seed=3), "f32"),
    ("random-dag", dict(seed=11), "f32"),
    ("random-dag", dict(seed=12, nodes=40, branching=4), "i8"),
    ("densenet-block", dict(resolution=8), "f32"),
]


@pytest.mark.parametrize("name,params,dtype", CASES)
def test_report_matches_independent_model(name, params, dtype, serenity_opt, tmp_path):
    text = generate(name, dtype=dtype, **params)
    path = tmp_path / "net.mlir"
    path.write_text(text)
    report = SerenityOpt(serenity_opt).memory_report(str(path))
    assert len(report) == 1
    peak, live = simulate(Function(text))
    assert report[0].live_bytes == live
    assert report[0].peak_bytes == peak
    assert report[0].ops == len(Function(text).scheduled)


def test_darts_report_matches(serenity_opt, tmp_path):
    text = generate("darts-stack", channels=8, resolution=16, cells=4)
    path = tmp_path / "net.mlir"
    path.write_text(text)
    report = SerenityOpt(serenity_opt).memory_report(str(path))[0]
    peak, live = simulate(Function(text))
    assert (report.peak_bytes, report.live_bytes) == (peak, live)


def test_checker_hand_example():
    # x (4 KiB) -> a = clamp(x) -> b = clamp(a) -> c = add(a, b) -> return c.
    # step 0: x + a = 8192; step 1: x freed after step 0, a + b = 8192;
    # step 2: a + b + c = 12288.
    text = """func.func @main(%x: tensor<1x1x1x1024xf32>) -> (tensor<1x1x1x1024xf32>) {
  %a = tosa.clamp %x {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<1x1x1x1024xf32>) -> tensor<1x1x1x1024xf32>
  %b = tosa.clamp %a {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<1x1x1x1024xf32>) -> tensor<1x1x1x1024xf32>
  %c = tosa.add %a, %b : (tensor<1x1x1x1024xf32>, tensor<1x1x1x1024xf32>) -> tensor<1x1x1x1024xf32>
  return %c : tensor<1x1x1x1024xf32>
}
"""
    assert simulate(Function(text)) == (12288, [8192, 8192, 12288])
