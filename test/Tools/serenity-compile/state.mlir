// A model with state kept between runs (a TOSA variable, as the TFLite
// importer makes of SVDF/LSTM state): serenity-compile places it outside the
// arena in NAME_state, declares NAME_reset in the header and reports it; a C
// program runs it seven times in a row, with a reset before the fifth run,
// on the host and on QEMU's Cortex-M4 and Cortex-M55, and every run's output
// equals numpy's (state_shift_sequence.py).
// RUN: rm -rf %t && %python %integration/state_shift_sequence.py %t/seq
// RUN: serenity-compile %S/Inputs/state-shift.mlir -o %t/out --name shift | FileCheck %s --check-prefix=LOG
// RUN: FileCheck %s --check-prefix=HEADER < %t/out/shift.h
// RUN: %python -c "import json; d = json.load(open('%t/out/shift.json')); a = d['allocation']; print(d['state_bytes'], a['persistent_bytes'], a['ram_bytes'] == a['arena_bytes'] + a['io_bytes'] + 8, a['persistent_buffers'])" | FileCheck %s --check-prefix=JSON
// RUN: %python %integration/run_compiled.py %S/Inputs/state-shift.mlir --target host --sequence %t/seq/seq.json | FileCheck %s --check-prefix=SEQ
// LOG: (arena {{[0-9]+}} bytes, state 8 bytes, flash
// HEADER: #define SHIFT_STATE_BYTES 8
// HEADER: extern uint8_t shift_state[SHIFT_STATE_BYTES];
// HEADER: void shift_reset(void);
// JSON: 8 8 True [{'name': 'state', 'offset': 0, 'size': 8}]
// RUN: cp %t/seq/out5.bin %t/seq/good5.bin && %python -c "open('%t/seq/out5.bin', 'wb').write(bytes([0] * 8))"
// RUN: not %python %integration/run_compiled.py %S/Inputs/state-shift.mlir --target host --sequence %t/seq/seq.json | FileCheck %s --check-prefix=BAD
// RUN: cp %t/seq/good5.bin %t/seq/out5.bin
// RUN: %if cortex-m %{ %python %integration/run_compiled.py %S/Inputs/state-shift.mlir --target cortex-m4 --sequence %t/seq/seq.json | FileCheck %s --check-prefix=SEQ %}
// RUN: %if cortex-m %{ %python %integration/run_compiled.py %S/Inputs/state-shift.mlir --target cortex-m55 --sequence %t/seq/seq.json | FileCheck %s --check-prefix=SEQ %}
// SEQ-COUNT-4: step {{[0-3]}} 0: 8 elements, {{.*}} 0 beyond tolerance
// SEQ: step 4 (after reset) 0: 8 elements, {{.*}} 0 beyond tolerance
// SEQ: step 6 0: 8 elements, {{.*}} 0 beyond tolerance
// SEQ: PASS
// BAD: step 5 0: 8 elements, {{.*}} 8 beyond tolerance
// BAD: FAIL
