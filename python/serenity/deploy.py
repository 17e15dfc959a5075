"""Networks compiled by serenity-compile, run as a C developer runs them.

The host runs the program directly; a Cortex-M target runs on its QEMU board
(:data:`BOARDS`: the Cortex-M4 on ``mps2-an386``, the Cortex-M7 on
``mps2-an500``, the Cortex-M33 on ``mps2-an505``, the Cortex-M55 with Helium
on ``mps3-an547``, Cortex-M0+ code on ``mps2-an385``'s Cortex-M3, rv32imc and
rv32imac on ``qemu-system-riscv32 -M virt`` with the core limited to those
extensions) with ``-icount shift=0`` (one instruction per nanosecond of
virtual time). The targets and their boards (C compiler and flags, QEMU system,
machine and CPU) are the C++ target table (include/Serenity/Target/TargetDescription.h), read once
from ``serenity-compile --print-targets``; only what is C source or a file
name here (each machine's timer, its linker script and start-up, the C
library's link flags) is Python's. Each board's harness reads a free-running timer around the
call and calibrates it in the same run on a loop of known length
(:data:`CALIBRATION_INSTRUCTIONS`), so instructions = ticks x calibration
instructions / calibration ticks. Shared by ``examples/deploy/measure.py``,
``examples/deploy/host_time.py`` and the ``profile`` / ``pareto`` commands.
"""

import collections
import functools
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORTEX_M = os.path.join(ROOT, "scripts", "cortex-m")
RISCV = os.path.join(ROOT, "scripts", "riscv")

# The C side of every board's timer, by QEMU machine (_TIMERS):
# board_timer_start() starts a counter that counts up, board_timer_now()
# reads it.
_CMSDK_TIMER = r"""
/* CMSDK APB timer 0 of the mps2 boards (0x40000000 on mps2-an385/386/500,
   the Secure alias 0x50000000 on mps2-an505's SSE-200), counting down. */
#define TIMER_CTRL (*(volatile uint32_t *)(TIMER_BASE + 0x0u))
#define TIMER_VALUE (*(volatile uint32_t *)(TIMER_BASE + 0x4u))
#define TIMER_RELOAD (*(volatile uint32_t *)(TIMER_BASE + 0x8u))
static void board_timer_start(void) {
  TIMER_RELOAD = 0xFFFFFFFFu;
  TIMER_VALUE = 0xFFFFFFFFu;
  TIMER_CTRL = 1;
}
static uint64_t board_timer_now(void) { return 0xFFFFFFFFu - TIMER_VALUE; }
"""
# The SSE-300's system counter (64 bits, 32 MHz): its CMSDK APB timers run on
# a 32 kHz clock in QEMU, too coarse under -icount.
_SSE300_COUNTER = r"""
/* SSE-300 system counter of the mps3-an547 board: control frame
   0x58100000 (CNTCR.EN), read frame 0x48101000 (CNTCVL, CNTCVU). */
#define CNTCR (*(volatile uint32_t *)0x58100000u)
#define CNTCVL (*(volatile uint32_t *)0x48101000u)
#define CNTCVU (*(volatile uint32_t *)0x48101004u)
static void board_timer_start(void) { CNTCR |= 1u; }
static uint64_t board_timer_now(void) {
  uint32_t high, low;
  do {
    high = CNTCVU;
    low = CNTCVL;
  } while (high != CNTCVU);
  return ((uint64_t)high << 32) | low;
}
"""

# The RISC-V cycle counter (mcycle, mcycleh: Zicntr, in machine mode): under
# -icount shift=0 QEMU counts one cycle per instruction. GCC's rv32imc has no
# Zicsr unless asked for; `.option arch` adds it for the one instruction.
_RISCV_MCYCLE = r"""
#define BOARD_CSR_READ(csr, value) \
  __asm volatile(".option push\n.option arch, +zicsr\ncsrr %0, " csr "\n.option pop" : "=r"(value))
static void board_timer_start(void) {}
static uint64_t board_timer_now(void) {
  uint32_t high, low, again;
  do {
    BOARD_CSR_READ("mcycleh", high);
    BOARD_CSR_READ("mcycle", low);
    BOARD_CSR_READ("mcycleh", again);
  } while (high != again);
  return ((uint64_t)high << 32) | low;
}
"""

# Instructions of the calibration loop (SUBS + BNE, or ADDI + BNEZ, per
# iteration).
CALIBRATION_INSTRUCTIONS = 2000000
# Bytes of stack painted below the caller's frame to measure a call's stack.
STACK_PAINT = 16384

_CALIBRATION = r"""
__attribute__((noinline)) static void board_spin(uint32_t n) {
#if defined(__riscv)
  __asm volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
#elif defined(__ARM_ARCH_6M__)
  /* Thumb-1 (GCC's divided syntax there): SUB of an immediate sets the
     flags. */
  __asm volatile("1: sub %0, #1\n bne 1b" : "+l"(n));
#else
  __asm volatile("1: subs %0, #1\n bne 1b" : "+r"(n));
#endif
}
/* Timer ticks of CALIBRATION_INSTRUCTIONS instructions. */
static uint64_t board_calibrate(void) {
  board_timer_start();
  uint64_t start = board_timer_now();
  board_spin(CALIBRATION_INSTRUCTIONS / 2);
  return board_timer_now() - start;
}
/* The stack pointer, into `p` (the stack painting around a call). */
#if defined(__riscv)
#define BOARD_READ_SP(p) __asm volatile("mv %0, sp" : "=r"(p))
#else
#define BOARD_READ_SP(p) __asm volatile("mov %0, sp" : "=r"(p))
#endif
""".replace("CALIBRATION_INSTRUCTIONS", str(CALIBRATION_INSTRUCTIONS))

_TIMERS = {machine: "#define TIMER_BASE %s\n" % base + _CMSDK_TIMER
           for machine, base in (("mps2-an385", "0x40000000u"), ("mps2-an386", "0x40000000u"),
                                 ("mps2-an500", "0x40000000u"), ("mps2-an505", "0x50000000u"))}
_TIMERS["mps3-an547"] = _SSE300_COUNTER
_TIMERS["virt"] = _RISCV_MCYCLE

# Each QEMU machine's own arguments and semihosting settings: virt without
# its OpenSBI firmware (the program starts in machine mode at its ELF entry),
# and its semihosting console (picolibc writes stdout with SYS_WRITEC, which
# QEMU sends to its stderr unless given a character device) on QEMU's stdout,
# in place of the serial port and the monitor.
_QEMU_ARGS = {"virt": ["-bios", "none", "-serial", "none", "-monitor", "none", "-chardev", "stdio,id=semihost"]}
_SEMIHOSTING = {"virt": "enable=on,target=native,chardev=semihost"}

Board = collections.namedtuple(
    "Board", "target machine cflags linker_script timer cc qemu_system qemu_cpu scripts riscv")


@functools.lru_cache(maxsize=None)
def targets():
    """The target table, as ``serenity-compile --print-targets`` prints it
    (docs/Deploy.md): a list of {"name", "triple", "cpu", "features",
    "float_abi", "capabilities", "pipeline_target", "arena_alignment",
    "cflags", "qemu_machine" (None without a board)}, host first. One call
    of the tool per process."""
    compiler = find_compiler()
    try:
        printed = check_output([compiler, "--print-targets"])
    except OSError as e:
        raise CommandError("%s --print-targets (the target table) failed: %s; build it or set "
                           "SERENITY_BUILD_DIR" % (compiler, e))
    return json.loads(printed)["targets"]


@functools.lru_cache(maxsize=None)
def boards():
    """:data:`BOARDS`: {target name: Board} for every target with a QEMU
    board, in the table's order. A board's linker script is
    scripts/cortex-m/MACHINE.ld (mps3-an547.ld: code in the SRAM (2 MB), the
    vector table in ITCM, data and stack in DTCM, all at their Secure
    addresses, as the core starts Secure) or scripts/riscv/MACHINE.ld; its C
    compiler and flags are the table's, -O2."""
    result = {}
    for target in targets():
        machine = target["qemu_machine"]
        if not machine:
            continue
        if machine not in _TIMERS:
            raise KeyError("no timer for QEMU machine %s (target %s): add it to deploy._TIMERS"
                           % (machine, target["name"]))
        riscv = target["triple"].startswith("riscv")
        result[target["name"]] = Board(target["name"], machine, target["cflags"] + ["-O2"],
                                       machine + ".ld", _TIMERS[machine], target["cc"],
                                       target["qemu_system"], target.get("qemu_cpu"),
                                       RISCV if riscv else CORTEX_M, riscv)
    return result


def __getattr__(name):
    """BOARDS, TARGETS (host and the targets with a board: what runs and is
    timed) and UNITS (of a target's times), built from the target table on
    first use."""
    if name == "BOARDS":
        return boards()
    if name == "TARGETS":
        return ("host",) + tuple(boards())
    if name == "UNITS":
        return dict({"host": "ns"}, **{target: "instructions" for target in boards()})
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def board_timer(target):
    """C source for `target`'s board: board_timer_start(), board_timer_now()
    (ticks, counting up) and board_calibrate() (ticks of
    CALIBRATION_INSTRUCTIONS instructions); needs <stdint.h>."""
    return boards()[target].timer + _CALIBRATION


def instructions(ticks, calibration_ticks):
    """Instructions in `ticks` of a timer that counted `calibration_ticks`
    over CALIBRATION_INSTRUCTIONS instructions."""
    return int(round(ticks * CALIBRATION_INSTRUCTIONS / calibration_ticks))


class CommandError(RuntimeError):
    """A tool exited with a non-zero status."""


def check_output(cmd, **kw):
    """stdout of `cmd`; CommandError with the ends of its output when it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise CommandError("%s failed:\n%s%s" % (" ".join(cmd[:3]), proc.stdout[-2000:], proc.stderr[-2000:]))
    return proc.stdout


def run(cmd, **kw):
    """stdout of `cmd`; exits the script with its output when it fails."""
    try:
        return check_output(cmd, **kw)
    except CommandError as e:
        sys.exit("error: %s" % e)


def find_compiler():
    """serenity-compile on PATH, else the one in the build directory."""
    return shutil.which("serenity-compile") or os.path.join(
        os.environ.get("SERENITY_BUILD_DIR", os.path.join(ROOT, "build")), "bin", "serenity-compile")


def host_cc():
    """A C compiler for host programs."""
    return shutil.which("clang") or shutil.which("clang-14") or shutil.which("cc")


def link_command(include_dir, sources, elf, target="cortex-m4"):
    """The board's C compiler linking `sources` (C files, objects) for
    `target`'s QEMU board: on a Cortex-M, newlib with semihosting and
    scripts/cortex-m (its linker script, the shared start-up); on RISC-V,
    picolibc with its semihosting start-up and scripts/riscv/MACHINE.ld."""
    board = boards()[target]
    script = os.path.join(board.scripts, board.linker_script)
    if board.riscv:
        # picolibc's crt0 sets the stack and gp, clears .bss, calls main and
        # exits through semihosting with main's value.
        return [board.cc, *board.cflags, "--specs=picolibc.specs", "--oslib=semihost", "--crt0=semihost",
                "-I", include_dir, "-T", script, *sources, "-o", elf]
    # -L: the boards' scripts include scripts/cortex-m/mps2-sections.ld.
    return [board.cc, *board.cflags, "--specs=rdimon.specs", "-I", include_dir, "-L", CORTEX_M, "-T",
            script, os.path.join(CORTEX_M, "startup.c"), *sources, "-o", elf]


def qemu_command(elf, icount=True, target="cortex-m4"):
    """QEMU running `elf` on `target`'s board; with `icount`, one instruction
    per nanosecond of virtual time (deterministic counts, slower)."""
    board = boards()[target]
    return [board.qemu_system, "-M", board.machine, *(["-cpu", board.qemu_cpu] if board.qemu_cpu else []),
            "-nographic", *_QEMU_ARGS.get(board.machine, []), *(["-icount", "shift=0"] if icount else []),
            "-semihosting-config", _SEMIHOSTING.get(board.machine, "enable=on,target=native"),
            "-kernel", elf]


def has_cortex_m_tools():
    """Whether the Cortex-M toolchain and QEMU are installed."""
    return bool(shutil.which("arm-none-eabi-gcc") and shutil.which("qemu-system-arm"))


def has_board_tools(target):
    """Whether `target`'s C compiler and QEMU system emulator are installed."""
    board = boards()[target]
    return bool(shutil.which(board.cc) and shutil.which(board.qemu_system))


def object_tool(target, tool):
    """The binutils program `tool` ("size", "nm", "objdump") for `target`'s
    objects: arm-none-eabi-TOOL, riscv64-unknown-elf-TOOL, or the host's."""
    board = boards().get(target)
    return board.cc[:-len("gcc")] + tool if board else tool


def compile_network(source, out, target, pipeline="", name="net", function="main", io=None, compiler=None):
    """serenity-compile `source` into directory `out`; its JSON report. `io`:
    ``"arena"`` or ``"caller"``; None leaves serenity-compile's default
    (``arena``, the least RAM)."""
    cmd = [compiler or find_compiler(), source, "--target", target, "--name", name, "-o", out]
    if io:
        cmd += ["--io", io]
    if function != "main":
        cmd += ["--function", function]
    if pipeline.strip():
        cmd += ["--pipeline", pipeline.strip()]
    check_output(cmd, timeout=900)
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)


def timing_program(name, report, target, print_outputs=True, seed=1, marks=0):
    """A C main for a compiled network: inputs filled from a seeded LCG
    (floats in [-1, 1), integers over their low byte), one call (its outputs
    printed, ``output I`` then the values), then the time of NAME_run: on the
    host the median of ``argv[1]`` calls timed one by one with
    CLOCK_MONOTONIC (``time NS``); on a Cortex-M board the timer calibrated,
    then one more call between two timer reads (``ticks N calibration C``).
    With ``--io arena`` the inputs are copied into
    the arena before every call (outside the timed region: the network may
    overwrite them).

    With `marks` > 0 (a Cortex-M board; the network compiled with
    ``profile-marks``: serenity-profile-marks' hook called before each kernel
    and before the return) the hook keeps the timer at each mark and the
    program prints ``mark I TICKS`` for each, after ``overhead T``: the ticks
    of one interval's marks (two marks in a row, timed in the same run)."""
    upper = name.upper()
    host = target == "host"
    in_arena = report.get("io") == "arena"
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"]
    lines += ["#include <time.h>"] if host else [board_timer(target)]
    lines += ['#include "%s.h"' % name,
              "static uint8_t arena[%s_ARENA_BYTES > 0 ? %s_ARENA_BYTES : 1] "
              "__attribute__((aligned(%s_ARENA_ALIGNMENT)));" % (upper, upper, upper),
              "static uint32_t state = %du;" % (seed * 2654435761 % 2**32),
              "static uint32_t next(void) { state = state * 1664525u + 1013904223u; return state; }"]
    args = []
    for i, operand in enumerate(report["inputs"]):
        lines.append("static %s input%d[%s_INPUT%d_ELEMENTS];" % (operand["type"], i, upper, i))
        args.append("input%d" % i)
    for i, operand in enumerate(report["outputs"]):
        if in_arena:
            lines.append("static %s *output%d;" % (operand["type"], i))
        else:
            lines.append("static %s output%d[%s_OUTPUT%d_ELEMENTS];" % (operand["type"], i, upper, i))
            args.append("output%d" % i)
    lines += ["", "static void load(void) {"]
    lines += ["  memcpy(%s_input%d(arena), input%d, sizeof input%d);" % (name, i, i, i)
              for i in range(len(report["inputs"])) if in_arena]
    lines += ["}", ""]
    if marks:
        lines += ["static uint64_t marks[%d];" % (marks + 2),
                  "void serenity_profile_mark(int32_t id) {",
                  "  if (id >= 0 && id < %d) marks[id] = board_timer_now();" % (marks + 2), "}", ""]
    if not host:
        lines += ["__attribute__((noinline)) static void paint(uint8_t *low, uint8_t *high) {",
                  "  for (uint8_t *p = low; p < high; ++p) *p = 0xA5;", "}", ""]
    lines += ["static int cmp(const void *a, const void *b) {",
              "  long long x = *(const long long *)a, y = *(const long long *)b;",
              "  return x < y ? -1 : x > y;", "}", "",
              "int main(int argc, char **argv) {", "  (void)argc; (void)argv; (void)cmp;"]
    for i, operand in enumerate(report["inputs"]):
        value = ("(float)(next() >> 8) / 8388608.0f - 1.0f" if operand["type"] in ("float", "double")
                 else "(%s)((int)(next() >> 24) - 128)" % operand["type"])
        lines.append("  for (int k = 0; k < %s_INPUT%d_ELEMENTS; ++k) input%d[k] = %s;" % (upper, i, i, value))
    lines += ["  output%d = %s_output%d(arena);" % (i, name, i) for i in range(len(report["outputs"])) if in_arena]
    call = "%s_run(%s)" % (name, "arena" if in_arena else ", ".join(args + ["arena"]))
    lines += ["  load();", '  if (%s != 0) { printf("misaligned arena\\n"); return 1; }' % call]
    if print_outputs:
        for i, operand in enumerate(report["outputs"]):
            fmt = ('"%.9g\\n", (double)' if operand["type"] in ("float", "double") else '"%ld\\n", (long)')
            lines += ['  printf("output %d\\n");' % i,
                      "  for (int k = 0; k < %s_OUTPUT%d_ELEMENTS; ++k) printf(%soutput%d[k]);" % (upper, i, fmt, i)]
    if host:
        lines += ["  int reps = argc > 1 ? atoi(argv[1]) : 50;",
                  "  if (reps < 1) reps = 1;",
                  "  long long *ns = malloc(sizeof *ns * reps);",
                  "  for (int r = 0; r < reps; ++r) {",
                  "    struct timespec start, end;",
                  "    load();",
                  "    clock_gettime(CLOCK_MONOTONIC, &start);",
                  "    %s;" % call,
                  "    clock_gettime(CLOCK_MONOTONIC, &end);",
                  "    ns[r] = (end.tv_sec - start.tv_sec) * 1000000000ll + (end.tv_nsec - start.tv_nsec);",
                  "  }",
                  "  qsort(ns, reps, sizeof *ns, cmp);",
                  '  printf("time %lld\\n", ns[reps / 2]);']
    else:
        # The stack the call uses: STACK_PAINT bytes below the caller's stack
        # pointer painted before it, scanned after it (outside the timed region).
        lines += ["  uint64_t calibration = board_calibrate();",
                  "  load();",
                  "  uint8_t *sp;",
                  "  BOARD_READ_SP(sp);",
                  "  uint8_t *high = sp - 32, *low = high - %d;" % STACK_PAINT,
                  "  paint(low, high);",
                  "  uint64_t start = board_timer_now();",
                  "  int status = %s;" % call,
                  "  uint64_t end = board_timer_now();",
                  "  uint8_t *deepest = low;",
                  "  while (deepest < high && *deepest == 0xA5) ++deepest;",
                  '  printf("status %d ticks %lu calibration %lu stack %ld\\n", status, (unsigned long)(end - start),',
                  "         (unsigned long)calibration, (long)(sp - deepest));"]
        if marks:
            lines += ["  serenity_profile_mark(%d);" % marks, "  serenity_profile_mark(%d);" % (marks + 1),
                      '  printf("overhead %%lu\\n", (unsigned long)(marks[%d] - marks[%d]));' % (marks + 1, marks),
                      "  for (int i = 0; i < %d; ++i)" % marks,
                      '    printf("mark %d %lu\\n", i, (unsigned long)(marks[i] - marks[0]));']
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def build_timed(source, out, target, pipeline="", name="net", function="main", io=None, print_outputs=True,
                compiler=None):
    """Compiles `source` and links it with :func:`timing_program` in `out`;
    (the serenity-compile report, the executable: a host program or an ELF)."""
    report = compile_network(source, out, target, pipeline, name, function, io, compiler)
    return report, link_timed(out, name, report, target, print_outputs)


def link_timed(out, name, report, target, print_outputs=True, marks=0):
    """Links the network object `out`/NAME.o (serenity-compile's `report`)
    with :func:`timing_program` (`marks`: as there); the executable: a host
    program or an ELF."""
    main_c = os.path.join(out, "main.c")
    with open(main_c, "w") as f:
        f.write(timing_program(name, report, target, print_outputs, marks=marks))
    obj = os.path.join(out, name + ".o")
    if target == "host":
        exe = os.path.join(out, name + ".exe")
        check_output([host_cc(), "-O2", "-I", out, main_c, obj, "-o", exe, *report.get("link_flags", [])])
    else:
        exe = os.path.join(out, name + ".elf")
        check_output(link_command(out, [main_c, obj], exe, target) + report.get("link_flags", []))
    return exe


def run_timed(exe, target, reps=50):
    """Runs a :func:`build_timed` program; (time: median ns on the host,
    instructions on a Cortex-M board; the printed outputs, lists of floats)."""
    measured = run_measured(exe, target, reps)
    return measured["time"], measured["outputs"]


def run_measured(exe, target, reps=50):
    """Runs a :func:`build_timed` program: {"time": as :func:`run_timed`,
    "outputs": the printed outputs, "stack": the bytes of stack the call used
    on a Cortex-M board (None on the host), "calibration": the board timer's
    calibration ticks (None on the host), "printed": the program's output}."""
    stack = calibration = None
    if target == "host":
        printed = check_output([exe, str(reps)], timeout=900)
        m = re.search(r"^time (\d+)$", printed, re.M)
        if not m:
            raise CommandError("unexpected output of %s: %s" % (exe, printed[-500:]))
        time = int(m.group(1))
    else:
        printed = check_output(qemu_command(exe, target=target), timeout=900)
        m = re.search(r"status (-?\d+) ticks (\d+) calibration (\d+) stack (-?\d+)", printed)
        if not m or m.group(1) != "0":
            raise CommandError("unexpected output of %s on QEMU: %s" % (exe, printed[-500:]))
        calibration = int(m.group(3))
        time = instructions(int(m.group(2)), calibration)
        stack = int(m.group(4))
    body = printed[:m.start()]
    outputs = [[float(x) for x in chunk.split()[1:]] for chunk in re.split(r"^output ", body, flags=re.M)[1:]]
    return {"time": time, "outputs": outputs, "stack": stack, "calibration": calibration, "printed": printed}


def profile_layers(source, out, target, pipeline="", name="net", io="arena", compiler=None):
    """Instructions kernel by kernel of `source` on `target`'s QEMU board:
    compiled with ``profile-marks`` (serenity-profile-marks), run once on
    seeded inputs with the hook timing each mark, the cost of a mark
    subtracted. Returns {"kernels": serenity-profile-marks' entries (op,
    location, sources, widened filters) each with "instructions", "report":
    serenity-compile's report, "stack", "outputs"}."""
    if target not in boards():
        raise ValueError("per-layer profiles need a Cortex-M board (%s)" % ", ".join(sorted(boards())))
    labels = os.path.join(out, name + ".marks.json")
    options = ("%s profile-marks=%s" % (pipeline, labels)).strip()
    report = compile_network(source, out, target, options, name, io=io, compiler=compiler)
    with open(labels) as f:
        kernels = json.load(f)
    measured = run_measured(link_timed(out, name, report, target, marks=kernels["marks"]), target)
    overhead = re.search(r"^overhead (\d+)$", measured["printed"], re.M)
    if not overhead:
        raise CommandError("no mark overhead in the output of %s on QEMU: %s" % (
            name, measured["printed"][-500:]))
    times = {int(i): int(t) for i, t in re.findall(r"^mark (\d+) (\d+)$", measured["printed"], re.M)}
    result = []
    for kernel in kernels["kernels"]:
        ticks = times[kernel["end"]] - times[kernel["begin"]] - int(overhead.group(1))
        result.append(dict(kernel, instructions=instructions(max(ticks, 0), measured["calibration"])))
    return {"kernels": result, "report": report, "stack": measured["stack"], "outputs": measured["outputs"]}


def outputs_equal(got, want, exact, rtol=1e-4, atol=1e-5):
    """Whether two runs' outputs match: bit-exact (`exact`, integer outputs)
    or |got - want| <= atol + rtol |want| elementwise."""
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x != y and (exact or not abs(x - y) <= atol + rtol * abs(y)):
                return False
    return True
