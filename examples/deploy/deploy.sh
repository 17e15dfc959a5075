#!/usr/bin/env bash
# The commands of docs/Deploy.md, run as written: compile the keyword
# spotting model for Cortex-M4, Cortex-M55 and the host with serenity-compile,
# build examples/deploy/kws_main.c against each, run the Cortex-M4 program on
# QEMU mps2-an386, the Cortex-M55 one on QEMU mps3-an547, the host program
# natively, then the Cortex-M7, M33 and M0+ programs on their boards and the
# RISC-V (rv32imc) one on QEMU virt; all print the same scores.
# Usage: examples/deploy/deploy.sh KWS.tflite WORK_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
model="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$2"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# 1. Compile the model (Cortex-M4, and the host for comparison).
"$build/bin/serenity-compile" "$model" --target cortex-m4 --name kws -o out
"$build/bin/serenity-compile" "$model" --target host --name kws -o out-host

# 2. Build the program for the board: startup code and linker script of the
#    mps2-an386 (Cortex-M4) board, newlib with semihosting for printf.
arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 \
  --specs=rdimon.specs -L "$root/scripts/cortex-m" -T "$root/scripts/cortex-m/mps2-an386.ld" \
  "$root/scripts/cortex-m/startup.c" "$root/examples/deploy/kws_main.c" out/kws.o \
  -Iout -o kws.elf
arm-none-eabi-size kws.elf

# 3. Run it on QEMU.
qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native \
  -kernel kws.elf | tee qemu.txt

# 4. The same program on the host.
"$(llvm-config-22 --bindir)/clang" -O2 -Iout-host "$root/examples/deploy/kws_main.c" \
  out-host/kws.o -o kws-host
./kws-host > host.txt
# The scores must agree; the arena sizes may not (on Cortex-M the int8
# convolution kernels hold a tile of four accumulators: 16 bytes more).
diff <(sed "s/; arena.*//" qemu.txt) <(sed "s/; arena.*//" host.txt) &&
  echo "QEMU and host print the same scores"

# 5. The Cortex-M55 (Helium) on QEMU mps3-an547: its linker script puts the
#    vector table in ITCM, code in SRAM and data and stack in DTCM.
"$build/bin/serenity-compile" "$model" --target cortex-m55 --name kws -o out-m55
arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -O2 \
  --specs=rdimon.specs -T "$root/scripts/cortex-m/mps3-an547.ld" \
  "$root/scripts/cortex-m/startup.c" "$root/examples/deploy/kws_main.c" out-m55/kws.o \
  -Iout-m55 -o kws-m55.elf
qemu-system-arm -M mps3-an547 -nographic -semihosting-config enable=on,target=native \
  -kernel kws-m55.elf > qemu-m55.txt
diff <(sed "s/; arena.*//" qemu-m55.txt) <(sed "s/; arena.*//" host.txt) &&
  echo "QEMU Cortex-M55 and host print the same scores"

# 6. Every other board of the target table (Cortex-M7 on mps2-an500,
#    Cortex-M33 on mps2-an505, Cortex-M0+ code on mps2-an385): the same
#    program with the board's flags, linker script and QEMU machine, which
#    `serenity-compile --print-targets` lists.
for target in cortex-m7 cortex-m33 cortex-m0plus; do
  read -r machine flags < <("$build/bin/serenity-compile" --print-targets | python3 -c "
import json, sys
t = next(t for t in json.load(sys.stdin)['targets'] if t['name'] == '$target')
print(t['qemu_machine'], ' '.join(t['cflags']))")
  "$build/bin/serenity-compile" "$model" --target "$target" --name kws -o "out-$target"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $flags -O2 --specs=rdimon.specs -L "$root/scripts/cortex-m" \
    -T "$root/scripts/cortex-m/$machine.ld" "$root/scripts/cortex-m/startup.c" \
    "$root/examples/deploy/kws_main.c" "out-$target/kws.o" -I"out-$target" -o "kws-$target.elf"
  qemu-system-arm -M "$machine" -nographic -semihosting-config enable=on,target=native \
    -kernel "kws-$target.elf" > "qemu-$target.txt"
  diff <(sed "s/; arena.*//" "qemu-$target.txt") <(sed "s/; arena.*//" host.txt) &&
    echo "QEMU $target ($machine) and host print the same scores"
done

# 7. RISC-V (rv32imc: ESP32-C3, GD32VF103, CH32V): the same program built with
#    riscv64-unknown-elf-gcc and picolibc (its semihosting start-up), linked
#    at QEMU virt's DRAM (scripts/riscv/virt.ld) and run on a core limited to
#    the I, M and C extensions; picolibc's console goes to QEMU's stdout
#    through a semihosting character device.
if command -v riscv64-unknown-elf-gcc > /dev/null && command -v qemu-system-riscv32 > /dev/null; then
  "$build/bin/serenity-compile" "$model" --target riscv32-imc --name kws -o out-riscv32-imc
  riscv64-unknown-elf-gcc -march=rv32imc -mabi=ilp32 -O2 --specs=picolibc.specs --oslib=semihost \
    --crt0=semihost -T "$root/scripts/riscv/virt.ld" "$root/examples/deploy/kws_main.c" \
    out-riscv32-imc/kws.o -Iout-riscv32-imc -o kws-riscv32-imc.elf
  qemu-system-riscv32 -M virt -cpu rv32,a=off,f=off,d=off -bios none -nographic -serial none \
    -monitor none -chardev stdio,id=semihost -semihosting-config enable=on,target=native,chardev=semihost \
    -kernel kws-riscv32-imc.elf > qemu-riscv32-imc.txt
  diff <(sed "s/; arena.*//" qemu-riscv32-imc.txt) <(sed "s/; arena.*//" host.txt) &&
    echo "QEMU riscv32-imc (virt) and host print the same scores"
else
  echo "RISC-V skipped: riscv64-unknown-elf-gcc or qemu-system-riscv32 is not installed (scripts/setup.sh)"
fi
