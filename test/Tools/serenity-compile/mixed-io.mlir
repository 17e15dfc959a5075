// serenity-compile on a model with two inputs and two outputs, float32 next to
// int8 (Inputs/mixed-io.mlir): the header describes each with its own C type
// and quantization, NAME_run takes them in order, and a C program built
// against it computes what the upstream reference lowering computes, with
// the caller holding inputs and outputs and with them in the arena.
// RUN: rm -rf %t && serenity-compile %S/Inputs/mixed-io.mlir --io caller -o %t
// RUN: FileCheck %s --check-prefix=HEADER < %t/net.h
// RUN: %python %integration/run_compiled.py %S/Inputs/mixed-io.mlir --target host --io caller --atol 1e-6 --rtol 1e-5 | FileCheck %s --check-prefix=EXEC
// RUN: %python %integration/run_compiled.py %S/Inputs/mixed-io.mlir --target host --atol 1e-6 --rtol 1e-5 | FileCheck %s --check-prefix=EXEC
// The default, --io arena:
// RUN: serenity-compile %S/Inputs/mixed-io.mlir -o %t/arena
// RUN: FileCheck %s --check-prefix=INARENA < %t/arena/net.h
// HEADER: #define NET_NUM_INPUTS 2
// HEADER-NEXT: /* input 0: float[1][8] */
// HEADER: /* input 1: int8_t[1][8], real = scale * (q - zero_point) */
// HEADER: #define NET_INPUT1_SCALE 2.500000000e-01
// HEADER-NEXT: #define NET_INPUT1_ZERO_POINT -3
// HEADER: #define NET_NUM_OUTPUTS 2
// HEADER-NEXT: /* output 0: int8_t[1][8], real = scale * (q - zero_point) */
// HEADER: /* output 1: float[1][8] */
// HEADER: static inline int net_run(const float *input0, const int8_t *input1, int8_t *output0, float *output1, void *arena) {
// HEADER: (float *)input0, (float *)input0, 0, 1, 8, 8, 1,
// HEADER-NEXT: (int8_t *)input1, (int8_t *)input1, 0, 1, 8, 8, 1,
// HEADER-NEXT: output0, output0, 0, 1, 8, 8, 1,
// HEADER-NEXT: output1, output1, 0, 1, 8, 8, 1);
// INARENA: static inline float *net_input0(void *arena) {
// INARENA: static inline int8_t *net_input1(void *arena) {
// INARENA: static inline int8_t *net_output0(void *arena) {
// INARENA: static inline float *net_output1(void *arena) {
// INARENA: static inline int net_run(void *arena) {
// EXEC: inputs {{\[\[1, 8\], \[1, 8\]\]}}, outputs {{\[\[1, 8\], \[1, 8\]\]}}
// EXEC: host output 0: 8 elements, {{.*}}, 0 beyond tolerance
// EXEC: host output 1: 8 elements, {{.*}}, 0 beyond tolerance
// EXEC: PASS
