"""Every generator's output parses, verifies, passes TOSA validation for the
pro_int/pro_fp profiles, and lowers with the upstream pipeline."""

import subprocess

import pytest

from serenity.networks import NETWORKS, generate


VALIDATE = ["--tosa-attach-target=profiles=pro_int,pro_fp", "--tosa-validate"]

LOWER = ("--pass-pipeline=builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,"
         "tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,"
         "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
         "canonicalize,buffer-deallocation-pipeline,convert-linalg-to-loops,convert-scf-to-cf,"
         "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,"
         "convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)")

# Smaller configurations of the large networks keep the lowering test fast;
# the default configurations are still parsed and validated.
SMALL = {
    "randwire": dict(channels=16, resolution=64),
    "randwire-stage": dict(channels=16, resolution=16),
    "darts-stack": dict(channels=8, resolution=16, cells=5),
    "mobilenetv2": dict(channels=16, resolution=64),
    "densenet-block": dict(resolution=16),
    "fire-module": dict(resolution=16),
}


def _run(cmd, text):
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True)
    assert proc.returncode == 0, "%s failed:\n%s" % (" ".join(cmd[:2]), proc.stderr[:3000])
    return proc.stdout


def _maybe_skip(name, request):
    """Every generator's data ships with the package (DARTS genotypes
    included), so nothing is skipped; kept as the one place to add a skip."""


@pytest.mark.parametrize("dtype", ["f32", "i8"])
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_default_parses_and_validates(name, dtype, mlir_opt, request):
    _maybe_skip(name, request)
    text = generate(name, dtype=dtype)
    _run([mlir_opt, "-"] + VALIDATE + ["-o", "/dev/null"], text)


@pytest.mark.parametrize("dtype", ["f32", "i8"])
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_lowers_to_llvm(name, dtype, mlir_opt, request):
    _maybe_skip(name, request)
    text = generate(name, dtype=dtype, **SMALL.get(name, {}))
    out = _run([mlir_opt, "-", LOWER], text)
    assert "llvm.func @main" in out
    assert "tosa." not in out


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_serenity_opt_accepts(name, serenity_opt, request):
    _maybe_skip(name, request)
    text = generate(name)
    out = _run([serenity_opt, "-", "--serenity-memory-report=format=json", "-o", "/dev/null"], text)
    assert '"peak_bytes"' in out


@pytest.mark.parametrize("dtype", ["f32", "i8"])
@pytest.mark.parametrize("name", ["random-dag", "darts-normal", "fc-autoencoder"])
def test_random_weights_are_deterministic_and_valid(name, dtype, mlir_opt, request):
    _maybe_skip(name, request)
    a = generate(name, dtype=dtype, weights="random", seed=3)
    assert a == generate(name, dtype=dtype, weights="random", seed=3)
    assert a != generate(name, dtype=dtype, weights="random", seed=4)
    assert 'dense<"0x' in a
    _run([mlir_opt, "-"] + VALIDATE + ["-o", "/dev/null"], a)


def test_missing_genotype_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="genotype file not found: .*nowhere.txt"):
        generate("darts-normal", genotype_file=str(tmp_path / "nowhere.txt"))
    other = tmp_path / "g.txt"
    other.write_text("X = Genotype(normal=[], normal_concat=[], reduce=[], reduce_concat=[])\n")
    with pytest.raises(ValueError, match="genotype DARTS_V2 not in .*has: X"):
        generate("darts-normal", genotype_file=str(other))


def test_random_dag_parameters_change_structure(mlir_opt):
    a = generate("random-dag", nodes=40, branching=4, cmin=4, cmax=12, seed=7)
    b = generate("random-dag", nodes=40, branching=4, cmin=4, cmax=12, seed=8)
    assert a != b
    for text in (a, b):
        _run([mlir_opt, "-"] + VALIDATE + ["-o", "/dev/null"], text)


def test_unknown_parameter_is_rejected():
    with pytest.raises(ValueError, match="no parameter 'depth'"):
        generate("resnet8", depth=3)
    with pytest.raises(ValueError, match="unknown network"):
        generate("resnet9000")
