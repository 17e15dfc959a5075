/* A program that is both C and C++: it includes the header serenity-compile
   wrote for examples/residual_block.mlir (--name net, either I/O placement),
   fills the input, runs the network and prints a checksum, the largest and
   the last output. Built as C and as C++, the two must print the same. */
#include <stdint.h>
#include <stdio.h>

#include "net.h"

static uint8_t arena[NET_ARENA_BYTES]
    __attribute__((aligned(NET_ARENA_ALIGNMENT)));

int main(void) {
#ifdef NET_INPUT0_OFFSET
  float *input0 = net_input0(arena);
#else
  static float input0[NET_INPUT0_ELEMENTS];
  static float output0[NET_OUTPUT0_ELEMENTS];
#endif
  for (int k = 0; k < NET_INPUT0_ELEMENTS; ++k)
    input0[k] = (float)(k % 7) * 0.125f - 0.375f;
#ifdef NET_INPUT0_OFFSET
  if (net_run(arena) != 0)
    return 1;
  const float *output0 = net_output0(arena);
#else
  if (net_run(input0, output0, arena) != 0)
    return 1;
#endif
  double sum = 0, max = output0[0];
  for (int k = 0; k < NET_OUTPUT0_ELEMENTS; ++k) {
    sum += output0[k];
    max = output0[k] > max ? output0[k] : max;
  }
  printf("%s: sum %.6g, max %.6g, last %.6g\n",
#ifdef __cplusplus
         "C++",
#else
         "C",
#endif
         sum, max, (double)output0[NET_OUTPUT0_ELEMENTS - 1]);
  /* A misaligned arena is refused, not run. */
#ifdef NET_INPUT0_OFFSET
  return net_run(arena + 1) == -1 ? 0 : 2;
#else
  return net_run(input0, output0, arena + 1) == -1 ? 0 : 2;
#endif
}
