// Models from other vendors' zoos whose default build relies on the import's
// canonicalization and fused tiling (issue 47), compiled for the Cortex-M4 and
// run on QEMU mps2-an386 on TFLite Micro's inputs (seeds 0 and 10): every
// output byte equals TFLite Micro's. har_model: Conv1D reshape pairs removed
// and its pool turned into the signal's axis, then tiled; fomo_face_detection:
// PADs folded into its stride-2 depthwise convolutions, tiled; id_model: 21
// PADs folded, tiled through its first stage. (The host runs every seed of
// every zoo model: python/tests/test_zoo_models.py.)
// REQUIRES: shared, cortex-m
// DEFINE: %{ref} = %shared/bench/tflm/reference
// RUN: for m in har_model fomo_face_detection id_model; do \
// RUN:   for s in 0 10; do \
// RUN:     %python %integration/run_compiled.py %shared/models/zoo/$m.tflite --target cortex-m4 \
// RUN:       --input-file %{ref}/$m.seed$s.input.bin --expect-file %{ref}/$m.seed$s.bin || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s
// CHECK-COUNT-6: cortex-m4 output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK-NOT: FAIL
