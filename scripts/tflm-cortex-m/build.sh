#!/usr/bin/env bash
# TensorFlow Lite Micro with CMSIS-NN on Serenity's QEMU Cortex-M boards, and
# with its reference kernels on a QEMU RISC-V rv32imc board:
# builds TFLM (tensorflow/tflite-micro @90b983c2b3f1, the commit of
# ../shared/tools/tflm-oracle) as its Makefile does for
#   TARGET=cortex_m_generic OPTIMIZED_KERNEL_DIR=cmsis_nn TOOLCHAIN=gcc BUILD_TYPE=default
# (the cmsis_nn kernel variants replace the reference ones, CMSIS-NN at the
# commit TFLM pins, compiled with the board's flags: pure C on the M0+, DSP
# extension on the M33/M7), or, for riscv32-imc, for
#   TARGET=riscv32_generic TOOLCHAIN=gcc BUILD_TYPE=default
# (no OPTIMIZED_KERNEL_DIR: TFLM's reference kernels; Debian's
# riscv64-unknown-elf-gcc with picolibc instead of TFLM's downloaded
# toolchain), links main.cc (next to this script) with each
# MLPerf Tiny model and its seed-0 input, runs it on the board's QEMU machine
# with -icount shift=0 and prints instructions of one Invoke(), arena_used_bytes,
# flash and whether the output equals ../shared/bench/tflm/reference.
#
# Everything is built OUTSIDE the repository ($WORK, default /work/tflm-boards):
# never commit TFLM or CMSIS sources, objects or ELFs; only the measured numbers
# go into python/serenity/data/tflm_cmsis_nn.json.
#
# needs (Debian 12): gcc-arm-none-eabi, libnewlib-arm-none-eabi,
# libstdc++-arm-none-eabi-newlib (TFLM is C++), qemu-system-arm, xxd; for
# riscv32-imc: gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf,
# libstdc++-arm-none-eabi-dev (Debian 12 has no libstdc++ for
# riscv64-unknown-elf: TFLM, built -fno-rtti -fno-exceptions, needs only the
# C++ headers, and those of GCC 12.2's libstdc++ are taken from the Arm
# package; main.cc supplies the three runtime symbols the program references),
# qemu-system-misc, xxd.
#
# usage: scripts/tflm-cortex-m/build.sh BOARD [MODEL...]
#   BOARD: cortex-m7 | cortex-m33 | cortex-m0plus | riscv32-imc (| cortex-m4,
#          to check the quoted issue-37 figures)
#   MODEL: names of ../shared/models/mlperf_tiny/*.tflite [all five]
# env: MIRROR [/work/.mirror] bare git snapshots as MIRROR/OWNER+NAME/repo of
#        tensorflow/tflite-micro, ARM-software/CMSIS-NN, ARM-software/CMSIS_6,
#        ARM-software/Cortex_DFP, google/flatbuffers, google/gemmlowp, google/ruy
#      WORK [/work/tflm-boards], JOBS [2], NICE [10], STAGES ["src lib run"]
#      KERNELS [used]: "all" compiles every kernel of MICROLITE_CC_KERNEL_SRCS
#        into the library, "used" only those of the seven operators main.cc
#        registers (and kernel_util.cc). The ELFs are the same either way: the
#        linker takes from an archive only the members a reference needs, and
#        no other kernel is referenced (all: about 35 min per board on 2 busy
#        cores, used: about 10).
#      CXX_HEADERS [/usr/include/newlib/c++/12.2.1] libstdc++ headers for
#        riscv32-imc (with its arm-none-eabi/ subdirectory: bits/c++config.h)
# Results: $WORK/BOARD/results.tsv (model, instructions, ticks, calibration,
# arena_used_bytes, text, data, input bytes, flash, outputs equal) and the log
# of each run in $WORK/BOARD/MODEL.out.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SHARED=$(cd "$REPO/../shared" && pwd)
BOARD=${1:?usage: build.sh BOARD [MODEL...]}; shift
MODELS=("$@")
[[ ${#MODELS[@]} -gt 0 ]] || MODELS=(ad01_int8 kws_ref_model pretrainedResnet_quant str_ww_ref_model vww_96_int8)
MIRROR=${MIRROR:-/work/.mirror}
WORK=${WORK:-/work/tflm-boards}
JOBS=${JOBS:-2}
NICE=${NICE:-10}
STAGES=${STAGES:-"src lib run"}
KERNELS=${KERNELS:-used}
has() { [[ " $STAGES " == *" $1 "* ]]; }
die() { echo "build.sh: $*" >&2; exit 1; }
case "$REPO" in "$WORK"|"$WORK"/*) die "WORK=$WORK is inside the repository";; esac
case "$WORK" in "$REPO"|"$REPO"/*) die "WORK=$WORK is inside the repository";; esac

# Pins: TFLM as ../shared/tools/tflm-oracle; the rest as that TFLM tree pins
# them (tools/make/flatbuffers_download.sh, third_party_downloads.inc,
# ext_libs/cmsis_download.sh, ext_libs/cmsis_nn_download.sh).
TFLM_REV=90b983c2b3f1480642e040bbd2ddb37b998f3424
CMSIS_NN_REV=4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae
CMSIS6_REV=5782d6f8057906d360f4b95ec08a2354afe5c9b9
CORTEX_DFP_REV=c2c70a97a20fb355815e2ead3d4a40e35a4a3cdf
FLATBUFFERS_REV=v25.9.23
GEMMLOWP_REV=719139ce755a0f31cbf1c37f7f98adcc7fc9f425
RUY_REV=d37128311b445e758136b8602d1bbd2a755e115d

# Board: Serenity's target table (serenity-compile --print-targets) and
# python/serenity/deploy.py (QEMU machine, linker script, timer base), and the
# core/device names of TFLM's cortex_m_generic_makefile.inc (CPU_*, ARMCM*).
# riscv32-imc: QEMU's virt machine with a rv32imc CPU (no A/F/D), the flags of
# TFLM's riscv32_generic_makefile.inc (RISCV_ARCH, RISCV_ABI, RISCV_CODE_MODEL);
# the timer is the mcycle CSR (main.cc).
ARCH=arm; TC=arm-none-eabi-
case "$BOARD" in
  riscv32-imc)   MACHINE=virt; CPU=(-march=rv32imc -mabi=ilp32 -mcmodel=medany); ARCH=riscv; TC=riscv64-unknown-elf-;;
  cortex-m7)     MACHINE=mps2-an500; CPU=(-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16); CORE=M7; TIMER=0x40000000u;;
  cortex-m33)    MACHINE=mps2-an505; CPU=(-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16); CORE=M33; TIMER=0x50000000u;;
  cortex-m0plus) MACHINE=mps2-an385; CPU=(-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft); CORE=M0plus; TIMER=0x40000000u;;
  cortex-m4)     MACHINE=mps2-an386; CPU=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16); CORE=M4; TIMER=0x40000000u;;
  *) die "unknown board $BOARD (cortex-m7, cortex-m33, cortex-m0plus, riscv32-imc)";;
esac

SRC=$WORK/src/tflite-micro
DL=$SRC/tensorflow/lite/micro/tools/make/downloads
OUT=$WORK/$BOARD
mkdir -p "$WORK" "$OUT"
echo "WORK=$WORK board=$BOARD ($MACHINE)"
T0=$(date +%s)

# ------------------------------------------------------------------ 1. sources
snap() { local d="$MIRROR/$1/repo"; [[ -d "$d" ]] || die "no snapshot $d (github.com/${1/+//})"; echo "$d"; }
extract() {  # extract OWNER+NAME REV DEST
  local g; g=$(snap "$1")
  git --git-dir="$g" cat-file -e "$2^{commit}" 2>/dev/null || die "snapshot $1 has no commit $2"
  rm -rf "$3"; mkdir -p "$3"; git --git-dir="$g" archive "$2" | tar -x -C "$3"
}
STAMP_SRC="$TFLM_REV $CMSIS_NN_REV $CMSIS6_REV $CORTEX_DFP_REV $FLATBUFFERS_REV $GEMMLOWP_REV $RUY_REV"
if has src; then
  if [[ -f "$WORK/src.done" && "$(cat "$WORK/src.done")" == "$STAMP_SRC" ]]; then
    echo "sources: $WORK/src is up to date"
  else
    echo "extracting tflite-micro $TFLM_REV, CMSIS-NN $CMSIS_NN_REV, CMSIS_6 $CMSIS6_REV, Cortex_DFP $CORTEX_DFP_REV,"
    echo "  flatbuffers $FLATBUFFERS_REV (+ TFLM's flatbuffers.patch), gemmlowp $GEMMLOWP_REV, ruy $RUY_REV"
    rm -f "$WORK/src.done"
    extract tensorflow+tflite-micro "$TFLM_REV" "$SRC"
    mkdir -p "$DL"
    extract google+flatbuffers "$FLATBUFFERS_REV" "$DL/flatbuffers"
    (cd "$DL/flatbuffers" && find . \( -name BUILD -o -name BUILD.bazel \) -delete &&
     patch -s -p1 < "$SRC/tensorflow/lite/micro/tools/make/flatbuffers.patch")
    extract google+gemmlowp "$GEMMLOWP_REV" "$DL/gemmlowp"
    extract google+ruy "$RUY_REV" "$DL/ruy"
    extract ARM-software+CMSIS_6 "$CMSIS6_REV" "$DL/cmsis"
    extract ARM-software+Cortex_DFP "$CORTEX_DFP_REV" "$DL/cmsis/Cortex_DFP"
    extract ARM-software+CMSIS-NN "$CMSIS_NN_REV" "$DL/cmsis_nn"
    echo "$STAMP_SRC" > "$WORK/src.done"
  fi
fi

# ------------------------------------------------------------------ 2. library
# Flags of TFLM's Makefile for TARGET=cortex_m_generic TARGET_ARCH=<core>
# TOOLCHAIN=gcc OPTIMIZED_KERNEL_DIR=cmsis_nn BUILD_TYPE=default (error checks
# and logs kept): -Os for the framework (CORE_OPTIMIZATION_LEVEL), -O2 for the
# kernels (KERNEL_OPTIMIZATION_LEVEL) and for CMSIS-NN
# (THIRD_PARTY_KERNEL_OPTIMIZATION_LEVEL). The CPU flags are Serenity's for the
# board (the same code TFLM's -mcpu=<core> -mfpu=auto gives for cortex-m7+fp,
# cortex-m33, cortex-m0plus).
if [[ $ARCH == arm ]]; then
  COMMON=("${CPU[@]}" -mlittle-endian -fno-unwind-tables -fno-asynchronous-unwind-tables
    -ffunction-sections -fdata-sections -fmessage-length=0 -fomit-frame-pointer -funsigned-char
    -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_MCU_DEBUG_LOG
    -DCMSIS_NN -DKERNELS_OPTIMIZED_FOR_SPEED -DARM_NN_ENABLE_F16=0 -DARM_NN_ENABLE_F32=0
    -DCPU_$CORE=1 -DARMC$CORE "-DCMSIS_DEVICE_ARM_CORTEX_M_XX_HEADER_FILE=\"ARMC$CORE.h\""
    -Wall -Wno-unused-parameter -Wno-type-limits -Wno-unused-private-field)
  CXXFLAGS=(-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics "${COMMON[@]}")
  CCFLAGS=(-std=c17 "${COMMON[@]}")
  INCS=(-I"$SRC" -I"$DL" -I"$DL/gemmlowp" -I"$DL/flatbuffers/include" -I"$DL/ruy"
    -I"$DL/cmsis" -I"$DL/cmsis_nn" -I"$DL/cmsis/CMSIS/Core/Include" -I"$DL/cmsis_nn/Include"
    -I"$DL/cmsis/Cortex_DFP/Device/ARMC$CORE/Include")
  OPT_DIR=cmsis_nn PLATFORM_DIR=cortex_m_generic LIB=$OUT/libtflm_cmsis_nn.a
else
  # TARGET=riscv32_generic: its PLATFORM_FLAGS and C++ flags; the Makefile's
  # common flags and warnings as above; -ftls-model=local-exec as
  # picolibc.specs compiles (picolibc's errno is thread-local). No
  # OPTIMIZED_KERNEL_DIR: the reference kernels. micro/riscv32_generic's
  # debug_log.cc prints with eyalroz/printf's vsnprintf_ (a download that is not
  # mirrored here): WORK/BOARD/include maps it to picolibc's vsnprintf.
  CXX_HEADERS=${CXX_HEADERS:-/usr/include/newlib/c++/12.2.1}
  PICOLIBC=/usr/lib/picolibc/riscv64-unknown-elf
  [[ -f "$CXX_HEADERS/cstdint" && -f "$CXX_HEADERS/arm-none-eabi/bits/c++config.h" ]] ||
    die "no libstdc++ headers in $CXX_HEADERS (libstdc++-arm-none-eabi-dev)"
  [[ -f "$PICOLIBC/picolibc.specs" ]] || die "no $PICOLIBC (picolibc-riscv64-unknown-elf)"
  COMMON=("${CPU[@]}" -mexplicit-relocs -fno-builtin-printf -DTF_LITE_MCU_DEBUG_LOG
    -DTF_LITE_USE_GLOBAL_CMATH_FUNCTIONS -funsigned-char -fno-delete-null-pointer-checks -fomit-frame-pointer
    -ftls-model=local-exec -fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections
    -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DKERNELS_OPTIMIZED_FOR_SPEED
    -Wall -Wno-unused-parameter -Wno-type-limits -Wno-unused-private-field)
  CXXFLAGS=(-std=c++17 -fno-rtti -fno-exceptions -fno-threadsafe-statics -fpermissive -fno-use-cxa-atexit
    -DTF_LITE_USE_GLOBAL_MIN -DTF_LITE_USE_GLOBAL_MAX "${COMMON[@]}")
  CCFLAGS=(-std=c17 "${COMMON[@]}")
  # C++ headers before the C library's, as a native g++ searches them.
  INCS=(-I"$SRC" -I"$DL" -I"$DL/gemmlowp" -I"$DL/flatbuffers/include" -I"$DL/ruy" -I"$OUT/include"
    -isystem "$CXX_HEADERS" -isystem "$CXX_HEADERS/arm-none-eabi" -isystem "$PICOLIBC/include")
  mkdir -p "$OUT/include/eyalroz_printf/src/printf"
  printf '%s\n' '// build.sh: eyalroz/printf replaced by picolibc' '#include <stdio.h>' '#define vsnprintf_ vsnprintf' \
    > "$OUT/include/eyalroz_printf/src/printf/printf.h"
  OPT_DIR= PLATFORM_DIR=riscv32_generic LIB=$OUT/libtflm_ref.a
fi
OBJ=$OUT/obj

# Sources as TFLM's Makefile lists them (sources.inc, cmsis_nn.inc):
#  core: micro/*.cc, arena_allocator, memory_planner, tflite_bridge and the
#        shared TFLite files (TFL_CC_SRCS, without lite/array.cc), no tests or
#        benchmarks, specialised with micro/cortex_m_generic (debug_log.cc,
#        micro_time.cc) or micro/riscv32_generic (debug_log.cc);
#  kernels: MICROLITE_CC_KERNEL_SRCS specialised with kernels/cmsis_nn (the
#        signal library's kernels left out: the harness registers none), or
#        as they are (riscv32-imc: the reference kernels);
#  third-party kernels: CMSIS-NN Source/**/*.c without _f16/_f32 and
#        arm_nntables_flt.c (ARM_NN_ENABLE_F16/F32=0); none on riscv32-imc.
list_core() {
  (cd "$SRC" &&
   { ls tensorflow/lite/micro/*.cc tensorflow/lite/micro/arena_allocator/*.cc \
        tensorflow/lite/micro/memory_planner/*.cc tensorflow/lite/micro/tflite_bridge/*.cc
     find tensorflow -type d \( -path tensorflow/lite/experimental -o -path tensorflow/lite/micro \) \
        -prune -false -o \( -name '*.cc' -o -name '*.c' \) -print; } |
   grep -v -E '_test\.cc$|benchmark\.cc$|^tensorflow/lite/array\.cc$|/(fake_micro_context|mock_micro_graph|test_helpers|test_helper_custom_ops|kernel_runner|testing_helpers)\.cc$' |
   while read -r f; do
     s=tensorflow/lite/micro/$PLATFORM_DIR/$(basename "$f")
     if [[ "$(dirname "$f")" == tensorflow/lite/micro && -f "$s" ]]; then echo "$s"; else echo "$f"; fi
   done | sort -u)
}
list_kernels() {
  (cd "$SRC" &&
   sed -n '/^MICROLITE_CC_KERNEL_SRCS *:= *\\$/,/^[^\\]*$/p' tensorflow/lite/micro/tools/make/sources.inc |
   grep -o 'tensorflow/lite/micro/kernels/[A-Za-z0-9_]*\.cc' |
   while read -r f; do
     s=tensorflow/lite/micro/kernels/$OPT_DIR/$(basename "$f")
     if [[ -n "$OPT_DIR" && -f "$s" ]]; then echo "$s"; else echo "$f"; fi
   done | sort -u |
   if [[ "$KERNELS" == all ]]; then cat; else
     grep -E '/(add|add_common|pooling|pooling_common|conv|conv_common|depthwise_conv|depthwise_conv_common|fully_connected|fully_connected_common|reshape|reshape_common|softmax|softmax_common|kernel_util)\.cc$'
   fi)
}
list_cmsis_nn() {
  [[ "$OPT_DIR" == cmsis_nn ]] || return 0
  (cd "$SRC" && find tensorflow/lite/micro/tools/make/downloads/cmsis_nn/Source -name '*.c' |
   grep -v -E '_f16\.c$|_f32\.c$|/arm_nntables_flt\.c$' | sort)
}

if has lib; then
  [[ -f "$WORK/src.done" ]] || die "no sources (run the src stage)"
  CORE_SRCS=$(list_core); KERNEL_SRCS=$(list_kernels); NN_SRCS=$(list_cmsis_nn)
  NK=$(echo "$KERNEL_SRCS" | wc -l); NC=$(echo "$KERNEL_SRCS" | grep -c /cmsis_nn/ || true)
  if [[ $ARCH == arm ]]; then
    [[ ( $NK -gt 50 || $KERNELS == used ) && $NC -ge 5 ]] || die "kernel list looks wrong ($NK kernels, $NC cmsis_nn)"
  else
    [[ ( $NK -gt 50 || $KERNELS == used ) && $NK -ge 15 && $NC -eq 0 && -z "$NN_SRCS" ]] ||
      die "kernel list looks wrong ($NK kernels, $NC cmsis_nn)"
  fi
  STAMP="$STAMP_SRC $(${TC}g++ --version | head -1) ${CXXFLAGS[*]} ${CCFLAGS[*]}"
  [[ $ARCH == arm ]] || STAMP="$STAMP ${INCS[*]}"
  if [[ ! -f "$OBJ/.stamp" || "$(cat "$OBJ/.stamp")" != "$STAMP" ]]; then
    rm -rf "$OBJ"; mkdir -p "$OBJ"; echo "$STAMP" > "$OBJ/.stamp"
  fi
  { echo "$CORE_SRCS" | sed 's/^/-Os /'; echo "$KERNEL_SRCS" | sed 's/^/-O2 /'
    [[ -z "$NN_SRCS" ]] || echo "$NN_SRCS" | sed 's/^/-O2 /'; } > "$OUT/sources.txt"
  echo "compiling $(wc -l < "$OUT/sources.txt") files: $(echo "$CORE_SRCS" | wc -l) framework (-Os), $NK kernels ($NC of them cmsis_nn, -O2), $(echo "$NN_SRCS" | grep -c . || true) CMSIS-NN (-O2); $JOBS jobs, nice $NICE"
  export SRC OBJ NICE TC
  export CXXF="${CXXFLAGS[*]} ${INCS[*]}" CCF="${CCFLAGS[*]} ${INCS[*]}"
  T1=$(date +%s)
  # shellcheck disable=SC2016
  if ! xargs -P "$JOBS" -L 1 sh -c '
      opt=$0; s=$1; o="$OBJ/$(echo "$s" | tr / _).o"
      [ "$o" -nt "$SRC/$s" ] && exit 0
      case "$s" in *.c) c="${TC}gcc $CCF";; *) c="${TC}g++ $CXXF";; esac
      nice -n "$NICE" $c $opt -c "$SRC/$s" -o "$o.tmp" 2> "$o.log" && mv "$o.tmp" "$o" ||
        { echo "FAILED $s"; cat "$o.log"; exit 255; }' < "$OUT/sources.txt"; then
    die "compile errors (above)"
  fi
  echo "compiled in $(( $(date +%s) - T1 )) s"
  rm -f "$LIB"
  (cd "$OBJ" && awk '{print $2}' "$OUT/sources.txt" | tr / _ | sed 's/$/.o/' | xargs "${TC}ar" rcs "$LIB")
  {
    echo "tflm-cortex-m build for $BOARD ($MACHINE), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    if [[ $ARCH == arm ]]; then
      echo "tflite-micro $TFLM_REV; CMSIS-NN $CMSIS_NN_REV; CMSIS_6 $CMSIS6_REV; Cortex_DFP $CORTEX_DFP_REV"
    else
      echo "tflite-micro $TFLM_REV (reference kernels, no OPTIMIZED_KERNEL_DIR)"
    fi
    echo "flatbuffers $FLATBUFFERS_REV (+ flatbuffers.patch); gemmlowp $GEMMLOWP_REV; ruy $RUY_REV"
    echo "compiler: $(${TC}g++ --version | head -1)"
    [[ $ARCH == arm ]] || echo "C++ headers: $CXX_HEADERS (libstdc++ $(dpkg-query -W -f '${Version}' libstdc++-arm-none-eabi-dev 2>/dev/null || echo '?')); C library: picolibc $(dpkg-query -W -f '${Version}' picolibc-riscv64-unknown-elf 2>/dev/null || echo '?')"
    echo "C++ flags: ${CXXFLAGS[*]} (framework -Os, kernels -O2)"
    [[ $ARCH == riscv ]] || echo "C flags (CMSIS-NN): ${CCFLAGS[*]} -O2"
    echo "includes: ${INCS[*]}"
    echo "kernels: $KERNELS ($NK kernel files, $NC of them cmsis_nn)"
  } > "$OUT/BUILD_INFO.txt"
  echo "built $LIB"
fi

# ------------------------------------------------------------------ 3. run
# One program per model: main.cc (-O2) with the model and its seed-0 input as
# byte arrays, Serenity's start-up and linker script, newlib semihosting.
# Linked as TFLM's Makefile links (-Wl,--gc-sections, -lm).
# riscv32-imc: picolibc's semihosting crt0 and its picolibc.ld with
# WORK/BOARD/virt.ld's memory map (flash 8 MiB at 0x80000000, RAM 8 MiB at
# 0x80800000, both in virt's DRAM), linked by gcc (no libstdc++ to link),
# -mno-relax as riscv32_generic_makefile.inc; picolibc's default printf.
BENCH=$SHARED/bench/tflm/reference
MODELDIR=$SHARED/models/mlperf_tiny
carray() {  # carray NAME FILE ALIGN > C++ source: const unsigned char NAME[] and NAME_len
  echo "#include <cstddef>"
  echo "alignas($3) extern const unsigned char $1[] = {"
  od -An -v -tu1 "$2" | sed 's/^ *//; s/ *$/,/; s/  */,/g'
  echo "};"
  echo "extern const size_t $1_len = sizeof($1);"
}
if has run; then
  [[ -f "$LIB" ]] || die "no $LIB (run the lib stage)"
  RES=$OUT/results.tsv
  echo -e "model\tinstructions\tticks\tcalibration\tarena_used_bytes\ttext\tdata\tinput_bytes\tflash\toutput_equal" > "$RES"
  for m in "${MODELS[@]}"; do
    tfl=$MODELDIR/$m.tflite; in=$BENCH/$m.seed0.input.bin; ref=$BENCH/$m.seed0.bin
    [[ -f "$tfl" && -f "$in" && -f "$ref" ]] || die "missing $tfl, $in or $ref"
    D=$OUT/$m; mkdir -p "$D"
    carray g_model "$tfl" 16 > "$D/model_data.cc"
    carray g_input "$in" 16 > "$D/input_data.cc"
    if [[ $ARCH == arm ]]; then
      # startup.c as deploy.arm_link_command compiles it: the board's flags, -O2.
      arm-none-eabi-gcc "${CPU[@]}" -O2 -c "$REPO/scripts/cortex-m/startup.c" -o "$D/startup.o"
      nice -n "$NICE" arm-none-eabi-g++ "${CXXFLAGS[@]}" -O2 "${INCS[@]}" \
        -DBOARD_TIMER_BASE="$TIMER" -DBOARD_NAME="\"$BOARD\"" \
        --specs=rdimon.specs -L "$REPO/scripts/cortex-m" -T "$REPO/scripts/cortex-m/$MACHINE.ld" \
        "$D/startup.o" "$HERE/main.cc" "$D/model_data.cc" "$D/input_data.cc" \
        "$LIB" -lm -Wl,--gc-sections -Wl,-Map="$D/$m.map" -o "$D/$m.elf"
      timeout 1800 qemu-system-arm -M "$MACHINE" -icount shift=0 -nographic \
        -semihosting-config enable=on,target=native -kernel "$D/$m.elf" > "$OUT/$m.out" 2>&1 ||
        { cat "$OUT/$m.out"; die "$m: QEMU run failed"; }
    else
      printf '%s\n' '__flash = 0x80000000; __flash_size = 8M;' '__ram = 0x80800000; __ram_size = 8M;' \
        '__stack_size = 64K;' 'INCLUDE picolibc.ld' > "$OUT/virt.ld"
      for f in "$HERE/main.cc" "$D/model_data.cc" "$D/input_data.cc"; do
        nice -n "$NICE" riscv64-unknown-elf-g++ "${CXXFLAGS[@]}" -O2 "${INCS[@]}" -DBOARD_NAME="\"$BOARD\"" \
          -c "$f" -o "$D/$(basename "$f" .cc).o"
      done
      riscv64-unknown-elf-gcc "${CPU[@]}" --specs=picolibc.specs --oslib=semihost --crt0=semihost -T "$OUT/virt.ld" \
        "$D/main.o" "$D/model_data.o" "$D/input_data.o" "$LIB" -lm -Wl,--gc-sections -mno-relax \
        -Wl,-Map="$D/$m.map" -o "$D/$m.elf"
      timeout 1800 qemu-system-riscv32 -M virt -cpu rv32,a=off,f=off,d=off -bios none -icount shift=0 -nographic \
        -semihosting-config enable=on,target=native -kernel "$D/$m.elf" > "$OUT/$m.out" 2>&1 ||
        { cat "$OUT/$m.out"; die "$m: QEMU run failed"; }
    fi
    line=$(grep -E '^status ' "$OUT/$m.out") || { cat "$OUT/$m.out"; die "$m: no status line"; }
    read -r _ status _ ticks _ cal _ arena <<< "$line"
    [[ "$status" == 0 ]] || { cat "$OUT/$m.out"; die "$m: status $status"; }
    grep -E '^output ' "$OUT/$m.out" | cut -d' ' -f2- | xxd -r -p > "$D/output.bin"
    grep -q '^warmup_equal 1' "$OUT/$m.out" || die "$m: the timed Invoke's output differs from the warm-up's"
    eq=no; cmp -s "$D/output.bin" "$ref" && eq=yes
    read -r text data _ < <("${TC}size" "$D/$m.elf" | tail -1)
    inbytes=$(stat -c %s "$in")
    # flash: the whole program (start-up, harness, interpreter, kernels,
    # CMSIS-NN, newlib/picolibc and the .tflite) = text + data of
    # arm-none-eabi-size / riscv64-unknown-elf-size (Berkeley), minus the
    # harness's embedded test input (g_input).
    flash=$((text + data - inbytes))
    instr=$(( (ticks * 2000000 + cal / 2) / cal ))
    echo -e "$m\t$instr\t$ticks\t$cal\t$arena\t$text\t$data\t$inbytes\t$flash\t$eq" >> "$RES"
    echo "$m: instructions $instr (ticks $ticks, calibration $cal), arena_used_bytes $arena, flash $flash (text $text + data $data - input $inbytes), output equal: $eq"
  done
  column -t "$RES"
  ! grep -q 'no$' "$RES" || die "an output differs from bench/tflm/reference"
fi
echo "build.sh: done in $(( $(date +%s) - T0 )) s"
