"""serenity/tflite/sequence.py: stateful modules over a sequence of invocations in one
mlir-runner process (state kept between calls of @main, reset restores the initial value),
and the stateful TFLite models against TensorFlow Lite Micro's multi-invocation references
in test/tflite-seq (made by test/tflite-seq/make_refs.py; see its README)."""

import os

import numpy as np
import pytest

from serenity.tflite import sequence

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REFS = os.path.join(REPO, "test", "tflite-seq")
SHARED_MODELS = os.path.join(REPO, "..", "shared", "models", "tflite-micro")

# An accumulator (state1 += x, non-splat initial value) and a splat i8 state
# (state2 -= x), both returned after the update; written as serenity-translate prints
# state (read back after every write).
ACCUMULATOR = """module {
  tosa.variable @state1 = dense<[[3, -2, 0, 1]]> : tensor<1x4xi32>
  tosa.variable @state2 = dense<5> : tensor<1x4xi8>
  func.func @main(%arg0: tensor<1x4xi32>) -> (tensor<1x4xi32>, tensor<1x4xi8>) {
    %0 = tosa.variable_read @state1 : tensor<1x4xi32>
    %1 = tosa.add %0, %arg0 : (tensor<1x4xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
    tosa.variable_write @state1, %1 : tensor<1x4xi32>
    %2 = tosa.variable_read @state1 : tensor<1x4xi32>
    %3 = tosa.variable_read @state2 : tensor<1x4xi8>
    %4 = tosa.cast %arg0 : (tensor<1x4xi32>) -> tensor<1x4xi8>
    %5 = tosa.sub %3, %4 : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
    tosa.variable_write @state2, %5 : tensor<1x4xi8>
    %6 = tosa.variable_read @state2 : tensor<1x4xi8>
    return %2, %6 : tensor<1x4xi32>, tensor<1x4xi8>
  }
}
"""
INIT1 = np.array([[3, -2, 0, 1]], dtype=np.int64)
INIT2 = np.full((1, 4), 5, dtype=np.int64)


def _steps(n):
    return [[np.array([[k, 1, -k, 2 * k - 3]], dtype=np.int32)] for k in range(n)]


def _expected(inputs, reset_after):
    """numpy model of ACCUMULATOR: per step (state1, state2) after the call."""
    s1, s2, out = INIT1.copy(), INIT2.copy(), []
    for k, (x,) in enumerate(inputs):
        s1 = s1 + x
        s2 = ((s2 - x + 128) % 256) - 128  # i8 wraps
        out.append((s1.copy(), s2.copy()))
        if k in reset_after:
            s1, s2 = INIT1.copy(), INIT2.copy()
    return out


def test_state_variables_parsed():
    vs = sequence.state_variables(ACCUMULATOR)
    assert [(v.name, v.type) for v in vs] == [("state1", "tensor<1x4xi32>"),
                                               ("state2", "tensor<1x4xi8>")]
    assert sequence._splat(vs[0]) is None and sequence._splat(vs[1]) == "5"
    hexed = sequence.Variable("s", 'dense<"0x00000000">', "tensor<1x2xi16>")
    assert sequence._splat(hexed) == "0"


@pytest.mark.parametrize("resets", [[2], [0, 3], []])
def test_accumulator_over_steps_with_reset(mlir_opt, resets):
    """7 calls of @main in one process: the state carries over, and each reset
    (after the steps listed) restores both initial values, the non-splat one too."""
    inputs = _steps(7)
    res = sequence.run_sequence_states(ACCUMULATOR, inputs, resets, "reference")
    for k, ((want1, want2), outs, st) in enumerate(zip(_expected(inputs, resets), res.outputs,
                                                       res.states)):
        assert np.array_equal(outs[0], want1) and outs[0].dtype == np.int32, k
        assert np.array_equal(outs[1], want2) and outs[1].dtype == np.int8, k
        assert np.array_equal(st["state1"], want1) and np.array_equal(st["state2"], want2), k
    # run_sequence: the outputs alone, the same
    outs = sequence.run_sequence(ACCUMULATOR, inputs, resets)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(outs, res.outputs))


def test_after_reset_equals_the_start(mlir_opt):
    inputs = _steps(3) + _steps(3)
    with_reset = sequence.run_sequence(ACCUMULATOR, inputs, [2])
    without = sequence.run_sequence(ACCUMULATOR, inputs, [])
    for k in range(3):
        assert np.array_equal(with_reset[3 + k][0], with_reset[k][0])
        assert not np.array_equal(without[3 + k][0], without[k][0])


def test_compare_flags_a_difference(mlir_opt):
    inputs = _steps(4)
    res = sequence.run_sequence_states(ACCUMULATOR, inputs, [1])
    ref = sequence.RefSequence("acc", "acc.tflite", 4, [1], inputs,
                               [[o.copy() for o in outs] for outs in res.outputs],
                               {1: np.stack([s["state1"] for s in res.states])}, {})
    assert sequence.compare(ref, res) == [[], [], [], []]
    ref.outputs[2][1][0, 3] += 2
    ref.states[1][3, 0, 0] -= 1
    rows = sequence.compare(ref, res)
    assert rows[0] == rows[1] == []
    assert rows[2] == ["output 1: 1 of 4 differ, max 2"]
    assert rows[3] == ["state t1: 1 of 4 differ, max 1"]


def test_bad_arguments():
    from serenity.tflite import TFLiteError
    with pytest.raises(TFLiteError, match="reset_after"):
        sequence.run_sequence(ACCUMULATOR, _steps(2), [5])
    with pytest.raises(TFLiteError, match="unknown lowering"):
        sequence.run_sequence(ACCUMULATOR, _steps(2), [], lowering="llvm")


# ------------------------------------------------- TFLite Micro's references
def test_references_are_consistent():
    """index.json and the files agree; the steps after each reset repeat the start."""
    seqs = sequence.load_sequences(REFS)
    assert {s.model for s in seqs} == {"keyword_scrambled_8bit.tflite", "trained_lstm_int8.tflite"}
    for s in seqs:
        assert s.steps == 15 and s.reset_after == [11]
        for k in range(3):
            assert np.array_equal(s.inputs[12 + k][0], s.inputs[k][0])
            assert np.array_equal(s.outputs[12 + k][0], s.outputs[k][0])
            for t, st in s.states.items():
                assert np.array_equal(st[12 + k], st[k]), (s.name, t)
        assert s.states, s.name


def test_references_tie_to_shared_single_invocation():
    """Step 0 of seq0 is ../shared/bench/tflm's seed 0 (input and output, byte for byte)."""
    shared = os.path.join(REPO, "..", "shared", "bench", "tflm", "reference")
    if not os.path.isdir(shared):
        pytest.skip("../shared/bench/tflm is absent (TFLite Micro's single-invocation references)")
    for s in sequence.load_sequences(REFS):
        if not s.name.endswith(".seq0"):
            continue
        stem = os.path.join(shared, s.model[:-len(".tflite")] + ".seed0")
        assert open(stem + ".input.bin", "rb").read() == s.inputs[0][0].tobytes()
        assert open(stem + ".bin", "rb").read() == s.outputs[0][0].tobytes()


MODELS = {"keyword_scrambled_8bit": "SVDF", "trained_lstm_int8": "UNIDIRECTIONAL_SEQUENCE_LSTM"}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_against_tflm_sequences(mlir_opt, name, capsys):
    """Outputs and every state variable after each of the 15 steps (two sequences, one
    reset each) equal TensorFlow Lite Micro's, through the upstream reference lowering."""
    path = os.path.join(SHARED_MODELS, name + ".tflite")
    if not os.path.exists(path):
        pytest.skip(f"../shared/models/tflite-micro/{name}.tflite is absent")
    ok = sequence.check_model(path, REFS, "reference", verbose=False)
    assert ok, capsys.readouterr().out
