// Harness for TensorFlow Lite Micro on Serenity's QEMU boards (see build.sh):
// the Cortex-M boards (mps2-*) and the RISC-V rv32imc board (virt). One model
// (g_model) and one input (g_input), both byte arrays that build.sh generates
// from the .tflite and the reference input. Uses TFLM's public API only. Timed
// the way python/serenity/deploy.py times a Serenity network: one warm-up
// Invoke(), the board timer calibrated on a loop of 2,000,000 instructions in
// the same run, the input copied in again, then one Invoke() between two timer
// reads. Prints (semihosting):
//   output HEX...                      output 0's bytes (of the timed Invoke)
//   warmup_equal 0|1                   timed output == warm-up output
//   status S ticks T calibration C arena A
// instructions = T * 2000000 / C; A = arena_used_bytes().
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if !defined(__riscv)
#include "tensorflow/lite/micro/cortex_m_generic/debug_log_callback.h"
#endif
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern const unsigned char g_model[];
extern const size_t g_model_len;
extern const unsigned char g_input[];
extern const size_t g_input_len;

#if defined(__riscv)
// RISC-V: the mcycle CSR (64 bits, mcycleh:mcycle read high-low-high); under
// QEMU -icount shift=0 it advances by one per instruction. GCC 12 takes csrr
// under -march=rv32imc only with Zicsr enabled locally.
#define BOARD_CSRR(name, v) \
  __asm volatile(".option push\n.option arch, +zicsr\ncsrr %0, " name "\n.option pop" : "=r"(v))
static void board_timer_start() {}
static uint64_t board_timer_now() {
  uint32_t hi, lo, hi2;
  do {
    BOARD_CSRR("mcycleh", hi);
    BOARD_CSRR("mcycle", lo);
    BOARD_CSRR("mcycleh", hi2);
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}
__attribute__((noinline)) static void board_spin(uint32_t n) {
  __asm volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}
#else
// CMSDK APB timer 0 (BOARD_TIMER_BASE: 0x40000000 on mps2-an385/386/500, the
// Secure alias 0x50000000 on mps2-an505), counting down; as deploy.py.
#define TIMER_CTRL (*(volatile uint32_t *)(BOARD_TIMER_BASE + 0x0u))
#define TIMER_VALUE (*(volatile uint32_t *)(BOARD_TIMER_BASE + 0x4u))
#define TIMER_RELOAD (*(volatile uint32_t *)(BOARD_TIMER_BASE + 0x8u))
static void board_timer_start() {
  TIMER_RELOAD = 0xFFFFFFFFu;
  TIMER_VALUE = 0xFFFFFFFFu;
  TIMER_CTRL = 1;
}
static uint64_t board_timer_now() { return 0xFFFFFFFFu - TIMER_VALUE; }
__attribute__((noinline)) static void board_spin(uint32_t n) {
#if defined(__ARM_ARCH_6M__)
  // Thumb-1 (GCC's divided syntax there): SUB of an immediate sets the flags.
  __asm volatile("1: sub %0, #1\n bne 1b" : "+l"(n));
#else
  __asm volatile("1: subs %0, #1\n bne 1b" : "+r"(n));
#endif
}
#endif
// Timer ticks of 2000000 instructions (SUBS + BNE, or ADDI + BNEZ, per iteration).
static uint64_t board_calibrate() {
  board_timer_start();
  uint64_t start = board_timer_now();
  board_spin(2000000 / 2);
  return board_timer_now() - start;
}

namespace {
constexpr size_t kArenaSize = 512 * 1024;
alignas(16) uint8_t arena[kArenaSize];
uint8_t warm[8192];

#if !defined(__riscv)
void log_to_stdout(const char *s) { fputs(s, stdout); }
#endif

#if defined(__riscv)
// Decimal text of a 64-bit count (picolibc's printf may lack %llu; the count
// of a reference-kernel Invoke() may not fit 32 bits).
const char *u64_text(uint64_t v, char (&buf)[24]) {
  char *p = buf + sizeof buf - 1;
  *p = 0;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return p;
}
#endif

// The operators of the five MLPerf Tiny models, the same resolver for all
// (so the program is the same and only the .tflite differs).
using Resolver = tflite::MicroMutableOpResolver<7>;
TfLiteStatus register_ops(Resolver &r) {
  TF_LITE_ENSURE_STATUS(r.AddAdd());
  TF_LITE_ENSURE_STATUS(r.AddAveragePool2D());
  TF_LITE_ENSURE_STATUS(r.AddConv2D());
  TF_LITE_ENSURE_STATUS(r.AddDepthwiseConv2D());
  TF_LITE_ENSURE_STATUS(r.AddFullyConnected());
  TF_LITE_ENSURE_STATUS(r.AddReshape());
  TF_LITE_ENSURE_STATUS(r.AddSoftmax());
  return kTfLiteOk;
}
}  // namespace

#if defined(__riscv)
// There is no libstdc++ for riscv64-unknown-elf in Debian 12 (TFLM is built
// against its headers only): the two pieces of the C++ runtime the program
// references. TFLM never deletes through these (static memory only).
void operator delete(void *) noexcept { __builtin_trap(); }
void operator delete(void *, size_t) noexcept { __builtin_trap(); }
extern "C" void __cxa_pure_virtual() { __builtin_trap(); }
#endif

int main(int, char **) {
#if !defined(__riscv)
  RegisterDebugLogCallback(log_to_stdout);  // riscv32_generic's DebugLog prints to stdout itself
#endif
  const tflite::Model *model = tflite::GetModel(g_model);
  if (model->version() != TFLITE_SCHEMA_VERSION) {
    printf("schema version %lu\n", (unsigned long)model->version());
    return 1;
  }
  static Resolver resolver;
  if (register_ops(resolver) != kTfLiteOk) return 1;
  static tflite::MicroInterpreter interpreter(model, resolver, arena, kArenaSize);
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    printf("AllocateTensors failed\n");
    return 1;
  }
  TfLiteTensor *input = interpreter.input(0);
  TfLiteTensor *output = interpreter.output(0);
  if (input->bytes != g_input_len || output->bytes > sizeof warm) {
    printf("input %u bytes, expected %u; output %u bytes\n", (unsigned)input->bytes,
           (unsigned)g_input_len, (unsigned)output->bytes);
    return 1;
  }
  memcpy(input->data.raw, g_input, g_input_len);
  if (interpreter.Invoke() != kTfLiteOk) {
    printf("warm-up Invoke failed\n");
    return 1;
  }
  memcpy(warm, output->data.raw, output->bytes);

  uint64_t calibration = board_calibrate();
  memcpy(input->data.raw, g_input, g_input_len);
  uint64_t start = board_timer_now();
  TfLiteStatus status = interpreter.Invoke();
  uint64_t end = board_timer_now();

  const uint8_t *out = reinterpret_cast<const uint8_t *>(output->data.raw);
  for (size_t k = 0; k < output->bytes; k += 64) {
    printf("output ");
    for (size_t j = k; j < output->bytes && j < k + 64; ++j) printf("%02x", out[j]);
    printf("\n");
  }
  printf("warmup_equal %d\n", memcmp(warm, out, output->bytes) == 0 ? 1 : 0);
#if defined(__riscv)
  char t[24], c[24];
  printf("status %d ticks %s calibration %s arena %lu\n", (int)status, u64_text(end - start, t),
         u64_text(calibration, c), (unsigned long)interpreter.arena_used_bytes());
#else
  printf("status %d ticks %lu calibration %lu arena %lu\n", (int)status, (unsigned long)(end - start),
         (unsigned long)calibration, (unsigned long)interpreter.arena_used_bytes());
#endif
  return 0;
}
