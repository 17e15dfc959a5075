/* Minimal Cortex-M4 start-up for QEMU's mps2-an386 board: a vector table
 * whose reset handler enables the FPU and enters newlib's semihosting crt0
 * (_start), which clears .bss, runs constructors, calls main and exits with
 * main's return value as QEMU's exit code. */
#include <stdint.h>

extern void _start(void);
extern uint32_t __stack;

void Reset_Handler(void) {
  /* CPACR: full access to coprocessors 10 and 11 (the FPU). */
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
  __asm volatile("dsb\n isb");
  _start();
  for (;;) {
  }
}

static void Fault_Handler(void) {
  for (;;) {
  }
}

__attribute__((section(".vectors"), used)) static const void *vectors[16] = {
    &__stack,      Reset_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, 0,
    0,             0,             0,             Fault_Handler,
    Fault_Handler, 0,             Fault_Handler, Fault_Handler,
};
