"""TensorFlow Lite Micro's own example models against its outputs.

../shared/models/tflite-micro holds TFLite Micro's example models and
../shared/bench/tflm its outputs and intermediate tensors for seeded inputs
(reference kernels, tflite-micro @90b983c2b3f1). All seven must equal them
(int8 bit for bit, float32 within opcheck's tolerance) on every seed and
intermediate, through the upstream reference lowering and serenity-pipeline,
and the integer ones on QEMU's Cortex-M4; the two stateful ones (SVDF, LSTM)
run each seed from the reset state, as the references were made (their
sequences: test_tflite_sequence.py). Skipped with a message without ../shared.
"""

import os

import pytest

from serenity.tflite import load_file, tflm
from serenity.tflite.opcheck import RefCase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, "..", "shared")
MODELS_DIR = os.path.join(SHARED, "models", "tflite-micro")
TFLM_DIR = os.path.join(SHARED, "bench", "tflm")
MODELS = ["hello_world_int8", "hello_world_float", "micro_speech_quantized", "person_detect",
          "magic_wand", "keyword_scrambled_8bit", "trained_lstm_int8"]
INTEGER = ["hello_world_int8", "micro_speech_quantized", "person_detect", "keyword_scrambled_8bit",
           "trained_lstm_int8"]

if not os.path.isdir(MODELS_DIR) or not os.path.isdir(TFLM_DIR):
    pytest.skip(f"{MODELS_DIR} is absent: TFLite Micro's example models live in ../shared",
                allow_module_level=True)


def model(name):
    return load_file(os.path.join(MODELS_DIR, name + ".tflite"))


@pytest.mark.parametrize("lowering", ["reference", "pipeline"])
@pytest.mark.parametrize("name", MODELS)
def test_example_model_equals_tflite_micro(name, lowering):
    m = model(name)
    cases = tflm.load_cases(m, name, TFLM_DIR)
    assert len(cases) >= 3
    per_case = tflm.compare(m, cases, "double", lowering)
    bad = [(c.seed, d) for c, diffs in zip(cases, per_case) for d in diffs if d.different]
    assert not bad, bad[:5]
    # Intermediates were compared for the dumped seeds (not only the output).
    assert max(len(d) for d in per_case) > 1


@pytest.mark.parametrize("kind", ["integer", "float"])
def test_example_models_on_cortex_m4(kind):
    """On QEMU's Cortex-M4, fed TFLite Micro's inputs: the integer models bit
    for bit and without libm, the float ones within opcheck's tolerance."""
    from serenity.deploy import has_cortex_m_tools
    from serenity.tflite import cortexm_check
    if not has_cortex_m_tools():
        pytest.skip("arm-none-eabi-gcc / qemu-system-arm not installed (scripts/setup.sh)")
    names = INTEGER if kind == "integer" else [n for n in MODELS if n not in INTEGER]
    items = []
    for name in names:
        m = model(name)
        cases = tflm.load_cases(m, name, TFLM_DIR)
        picked = [c for c in cases if c.seed in (0, 10)] or cases[:1]
        items.append((name, m, [RefCase(c.seed, c.inputs, [c.output]) for c in picked]))
    results, undefined = cortexm_check.check_models_cortex_m(items)
    if kind == "integer":
        assert not [s for s in undefined if s in cortexm_check.LIBM], undefined
    bad = [r for r in results if r[4]]
    assert not bad, bad
    assert {r[0] for r in results} == set(names)


@pytest.mark.parametrize("name", MODELS)
def test_example_model_arena_at_most_tflite_micro(name):
    """The Cortex-M arena (inputs and outputs inside it, as TFLite Micro's)
    is no larger than TFLite Micro's activations (its planner's head); a
    stateful model's state lies outside both (TFLite Micro keeps its variable
    tensors in the persistent part of its arena, Serenity in NAME_state)."""
    from serenity import driver
    from serenity.tflite import import_model, report
    tflm_activations = report.tflm_arenas(TFLM_DIR)[name][1]
    text = import_model(model(name))
    got = report.allocation_report(driver.SerenityOpt(None), text, "io=arena target=cortex-m")
    assert got["arena_bytes"] <= tflm_activations, (got["arena_bytes"], tflm_activations)
