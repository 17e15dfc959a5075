// The generated header from C and from C++: its declarations sit in an
// extern "C" block, so a C++ program (Arduino, Zephyr, mbed) links against
// the object's unmangled symbol. Inputs/use_header.c is both C and C++; it is
// built as C (clang), as C++ (clang++ and g++), with warnings as errors, for
// both I/O placements, and each build prints the same numbers. (compile.mlir
// checks the C program's outputs against the reference lowering.)
// RUN: rm -rf %t && serenity-compile %serenity_src/examples/residual_block.mlir --io caller -o %t/caller > /dev/null
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --io arena -o %t/arena > /dev/null
// RUN: FileCheck %s --check-prefix=HEADER < %t/caller/net.h
// RUN: FileCheck %s --check-prefix=USAGE-CALLER < %t/caller/net.h
// RUN: FileCheck %s --check-prefix=USAGE-ARENA < %t/arena/net.h
//
// RUN: clang -std=c99 -Wall -Wextra -pedantic -Werror -I %t/caller %S/Inputs/use_header.c -x none %t/caller/net.o -o %t/caller-c
// RUN: clang++ -x c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I %t/caller %S/Inputs/use_header.c -x none %t/caller/net.o -o %t/caller-clangxx
// RUN: g++ -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I %t/caller %S/Inputs/use_header.c -x none %t/caller/net.o -o %t/caller-gxx
// RUN: %t/caller-c > %t/caller-c.txt && %t/caller-clangxx > %t/caller-clangxx.txt && %t/caller-gxx > %t/caller-gxx.txt
// RUN: FileCheck %s --check-prefix=RUN-C < %t/caller-c.txt
// RUN: sed 's/^C: //' %t/caller-c.txt > %t/caller-c.nums
// RUN: sed 's/^C++: //' %t/caller-clangxx.txt | diff %t/caller-c.nums -
// RUN: sed 's/^C++: //' %t/caller-gxx.txt | diff %t/caller-c.nums -
//
// RUN: clang -std=c99 -Wall -Wextra -pedantic -Werror -I %t/arena %S/Inputs/use_header.c -x none %t/arena/net.o -o %t/arena-c
// RUN: clang++ -x c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I %t/arena %S/Inputs/use_header.c -x none %t/arena/net.o -o %t/arena-clangxx
// RUN: g++ -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I %t/arena %S/Inputs/use_header.c -x none %t/arena/net.o -o %t/arena-gxx
// RUN: %t/arena-c > %t/arena-c.txt && %t/arena-clangxx > %t/arena-clangxx.txt && %t/arena-gxx > %t/arena-gxx.txt
// RUN: sed 's/^C++: //' %t/arena-clangxx.txt | FileCheck %s --check-prefix=RUN-CXX
// Same numbers with the I/O in the arena as with the caller's buffers.
// RUN: sed 's/^C: //' %t/arena-c.txt | diff %t/caller-c.nums -
// RUN: sed 's/^C++: //' %t/arena-clangxx.txt | diff %t/caller-c.nums -
// RUN: sed 's/^C++: //' %t/arena-gxx.txt | diff %t/caller-c.nums -
//
// HEADER: #include <stdint.h>
// HEADER-EMPTY:
// HEADER-NEXT: #ifdef __cplusplus
// HEADER-NEXT: extern "C" {
// HEADER-NEXT: #endif
// HEADER: void net(int8_t *, int8_t *, intptr_t, intptr_t, intptr_t,
// HEADER: static inline int net_run(const float *input0, float *output0, void *arena) {
// HEADER: #ifdef __cplusplus
// HEADER-NEXT: } /* extern "C" */
// HEADER-NEXT: #endif
// HEADER-EMPTY:
// HEADER-NEXT: #endif /* NET_H */
//
// USAGE-CALLER:      Usage, from C or C++ (link net.o into the program):
// USAGE-CALLER:      static uint8_t arena[NET_ARENA_BYTES]
// USAGE-CALLER-NEXT:     __attribute__((aligned(NET_ARENA_ALIGNMENT)));
// USAGE-CALLER-NEXT: static float input0[NET_INPUT0_ELEMENTS];
// USAGE-CALLER-NEXT: static float output0[NET_OUTPUT0_ELEMENTS];
// USAGE-CALLER:      if (net_run(input0, output0, arena) != 0)
// USAGE-CALLER:      */
// USAGE-CALLER-NEXT: #ifndef NET_H
//
// USAGE-ARENA:      static uint8_t arena[NET_ARENA_BYTES]
// USAGE-ARENA-NEXT:     __attribute__((aligned(NET_ARENA_ALIGNMENT)));
// USAGE-ARENA:      float *input0 = net_input0(arena);  // NET_INPUT0_ELEMENTS values
// USAGE-ARENA:      if (net_run(arena) != 0)
// USAGE-ARENA:      const float *output0 = net_output0(arena);  // NET_OUTPUT0_ELEMENTS values
//
// RUN-C: C: sum {{.*}}, max {{.*}}, last
// RUN-CXX: sum {{.*}}, max {{.*}}, last
