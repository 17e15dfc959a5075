/* Minimal start-up for the QEMU Cortex-M boards (mps2-an386 Cortex-M4,
 * mps2-an500 Cortex-M7, mps2-an505 Cortex-M33, mps3-an547 Cortex-M55,
 * mps2-an385 running Cortex-M0+ code): a vector table (placed by the board's
 * linker script) whose reset handler enables the FPU (and on the M55 Helium:
 * both are coprocessors 10 and 11) where the code uses one, traps unaligned
 * accesses for ARMv6-M code, clears .bss, opens newlib's semihosting
 * handles, runs the constructors, calls main and exits with main's return
 * value as QEMU's exit code. The stack is the vector table's: newlib's
 * semihosting crt0 (_start) is not used because it takes the stack pointer
 * from QEMU's heap answer, which on mps3-an547 lands right above the code in
 * ITCM. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __stack, __bss_start__, __bss_end__;
extern int main(int argc, char **argv);
extern void initialise_monitor_handles(void);
extern void __libc_init_array(void);

void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* CPACR: full access to coprocessors 10 and 11 (the FPU, MVE). */
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
#endif
#if defined(__ARM_ARCH_6M__)
  /* ARMv6-M code on a larger core (mps2-an385's Cortex-M3): CCR.UNALIGN_TRP,
     so that an unaligned word or halfword access faults, as on the M0+. */
  *(volatile uint32_t *)0xE000ED14 |= 1u << 3;
#endif
  __asm volatile("dsb\n isb");
  for (uint32_t *p = &__bss_start__; p < &__bss_end__; ++p)
    *p = 0;
  initialise_monitor_handles();
  __libc_init_array();
  exit(main(0, 0));
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
