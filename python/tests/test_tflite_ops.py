"""Every importer operator against TensorFlow Lite Micro, on small test models.

test/tflite-ops holds the models ``python3 -m serenity tflite-test-models``
writes (python/serenity/tflite/testmodels) and TFLite Micro's outputs for
them (``../shared/tools/tflm-oracle``'s make_refs.py: seeds 0, 1 full range,
10 near the input zero point). The data is committed, so these tests need
neither the oracle nor ../shared.
"""

import os
import tempfile

import pytest

from serenity.tflite import opcheck, testmodels
from serenity.tflite.importer import supported_operators
from serenity.tflite.schema import load_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "test", "tflite-ops")
MODELS = testmodels.load()


def group_names(group):
    return sorted(n for n, tm in MODELS.items() if tm.group == group)


def test_committed_models_are_the_generators():
    """The committed .tflite files are byte for byte what the builders write
    now (so the references belong to these models), and every one has references."""
    committed = opcheck.model_names(DATA)
    assert sorted(MODELS) == committed
    with tempfile.TemporaryDirectory() as tmp:
        testmodels.write_models(tmp)
        for name in committed:
            with open(os.path.join(tmp, "models", name + ".tflite"), "rb") as f:
                fresh = f.read()
            with open(os.path.join(DATA, "models", name + ".tflite"), "rb") as f:
                assert f.read() == fresh, f"{name}: regenerate its references"
            assert os.path.exists(os.path.join(DATA, "reference", name + ".io.json"))


def test_every_operator_has_test_models():
    used = set()
    for name in opcheck.model_names(DATA):
        used |= set(load_file(os.path.join(DATA, "models", name + ".tflite")).op_counts)
    assert sorted(set(supported_operators()) - used) == []


@pytest.mark.parametrize("group", testmodels.GROUPS)
@pytest.mark.parametrize("lowering", ["reference", "pipeline"])
def test_group_equals_tflite_micro(group, lowering):
    names = group_names(group)
    if not names:
        pytest.skip(f"no test models in group {group}")
    bad = [r for r in opcheck.check_models(DATA, names, lowering) if not r.ok]
    assert not bad, "\n".join(f"{r.name} seed {r.seed} output {r.output}: {r.different}/"
                              f"{r.elements} differ, max {r.max_diff:g}" for r in bad)


@pytest.mark.parametrize("kind", ["integer", "float"])
def test_models_on_cortex_m4(kind):
    """Every test model on QEMU's Cortex-M4 (mps2-an386), one object for the
    integer models and one for those with float32 tensors: TFLite Micro's
    outputs (integers bit for bit, float32 within opcheck's tolerance), and no
    libm in the integer object."""
    from serenity.deploy import has_cortex_m_tools
    from serenity.tflite import cortexm_check
    if not has_cortex_m_tools():
        pytest.skip("arm-none-eabi-gcc / qemu-system-arm not installed (scripts/setup.sh)")
    names = [n for n in opcheck.model_names(DATA)
             if cortexm_check.is_integer_model(os.path.join(DATA, "models", n + ".tflite"))
             == (kind == "integer")]
    assert names
    results, undefined = cortexm_check.check_cortex_m(DATA, names)
    if kind == "integer":
        assert not [s for s in undefined if s in cortexm_check.LIBM], undefined
    bad = [r for r in results if r[4]]
    assert not bad, "\n".join(f"{r[0]} seed {r[1]} output {r[2]}: {r[4]}/{r[3]} differ, "
                              f"max {r[5]:g}" for r in bad)
    assert {r[0] for r in results} == set(names)
