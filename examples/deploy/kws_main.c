/* A program using a network compiled by serenity-compile (docs/Deploy.md):
 *   serenity-compile kws_ref_model.tflite --target cortex-m4 --name kws -o out
 * gives out/kws.o and out/kws.h; this file includes the header, owns the
 * arena (which holds the input and the output too: the default --io arena)
 * and calls kws_run. It builds for Cortex-M (arm-none-eabi-gcc, run on QEMU)
 * and for the host (clang) unchanged. */
#include <stdint.h>
#include <stdio.h>

#include "kws.h"

/* Every tensor of the network lives here, the input and the output
 * included: no malloc. */
static uint8_t arena[KWS_ARENA_BYTES] __attribute__((aligned(KWS_ARENA_ALIGNMENT)));

int main(void) {
  /* A fixed test pattern. In a product the 49x10 MFCC features come from
   * the audio front end, quantized as q = real / KWS_INPUT0_SCALE +
   * KWS_INPUT0_ZERO_POINT. The network reuses the input's bytes: write it
   * before every call. */
  int8_t *input = kws_input0(arena);
  for (int i = 0; i < KWS_INPUT0_ELEMENTS; ++i)
    input[i] = (int8_t)((i * 37) % 256 - 128);
  if (kws_run(arena) != 0) {
    printf("the arena is not aligned\n");
    return 1;
  }
  const int8_t *output = kws_output0(arena);
  int best = 0;
  for (int k = 0; k < KWS_OUTPUT0_ELEMENTS; ++k) {
    /* Integer arithmetic only: the score in 1/256 (KWS_OUTPUT0_SCALE). */
    printf("class %2d: q = %4d, probability %3d/256\n", k, output[k],
           output[k] - KWS_OUTPUT0_ZERO_POINT);
    if (output[k] > output[best])
      best = k;
  }
  printf("best class %d; arena %d bytes\n", best, KWS_ARENA_BYTES);
  return 0;
}
