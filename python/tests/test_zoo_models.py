"""The public models of ../shared/models/zoo (other vendors' vision, audio and
gesture networks) with default options, issue 47's rule: serenity-compile for
the Cortex-M4 needs at most TensorFlow Lite Micro's activations (arena, with
inputs and outputs in it), and the same options built for the host equal
TensorFlow Lite Micro on every seed of ../shared/bench/tflm/reference (int8
byte for byte, float32 within 1e-5 relative), every output.

The MLPerf Tiny models are checked by lit (test/Integration) on both boards,
TFLite Micro's example models by test_tflite_examples.py. Skipped with a
message without ../shared. `python3 -m serenity bench --suite zoo` prints the
same facts for every model as a table.
"""

import os

import pytest

from serenity import zoo
from serenity.tflite.report import tflm_arenas

MODELS_DIR = zoo.DEFAULT_MODELS_DIR
TFLM_DIR = zoo.DEFAULT_TFLM_DIR

if not os.path.isdir(os.path.join(MODELS_DIR, "zoo")) or not os.path.isdir(TFLM_DIR):
    pytest.skip("../shared/models/zoo and ../shared/bench/tflm are absent: the zoo models and "
                "TFLite Micro's references live in ../shared", allow_module_level=True)

ZOO = [m for m in zoo.find_models(MODELS_DIR) if m.group == "zoo"]


@pytest.fixture(scope="module")
def compiler():
    build = os.environ.get("SERENITY_BUILD_DIR", os.path.join(zoo.ROOT, "build"))
    path = os.path.join(build, "bin", "serenity-compile")
    if not os.path.exists(path):
        pytest.skip("serenity-compile is not built (scripts/setup.sh)")
    return path


@pytest.mark.parametrize("model", ZOO, ids=[m.name for m in ZOO])
def test_zoo_model_within_tflite_micro_and_bit_exact(model, compiler, tmp_path):
    activations = tflm_arenas(TFLM_DIR)[model.name][1]
    report, _ = zoo.compile_model(compiler, model.path, "cortex-m4", str(tmp_path / "m4"))
    assert report["arena_bytes"] <= activations, (report["arena_bytes"], activations)
    steps = zoo.reference_steps(os.path.join(TFLM_DIR, "reference"), model.name)
    assert steps, f"no TFLite Micro reference for {model.name}"
    # The host build of the options the Cortex-M4 build kept (serenity-compile's
    # tiling trade weighs flash on microcontrollers only).
    pipeline = "" if (report.get("tiling") or {}).get("kept", True) else "tile=none"
    work = tmp_path / "host"
    work.mkdir()
    exact = zoo.check_bit_exact(model, steps, report, "host", compiler, pipeline, str(work))
    assert exact.error is None, exact.error
    assert exact.failed == 0, exact.cell()
