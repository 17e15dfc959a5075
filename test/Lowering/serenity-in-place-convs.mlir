// RUN: serenity-opt %s --serenity-in-place-convs --split-input-file | FileCheck %s

// A 3x3 depthwise nest with SAME padding (rows, columns, blocks of 4
// channels; the windows clipped at the borders as serenity-fuse-requantization
// tiles them) whose input nothing reads afterwards: output row h goes to
// slot h % 2 of a ring of two rows, and after row h the row h - 1 (which no
// later window reads as input) is copied over its input row, the last row
// after the loop. The result's 5-D buffer becomes a view of the input's.
// Then a 1x1 nest over that result: each input pixel is copied to an 8-byte
// scratch at the start of its iteration and its results overwrite it (the
// result's buffer, of the input's type, is the input's). Copies move 32-bit
// words.

// CHECK-LABEL: func.func @depthwise_then_pointwise
// CHECK-SAME: (%[[X:.*]]: memref<1x7x5x8xi8>, %[[OUT:.*]]: memref<1x7x5x8xi8>)
// CHECK: %[[IN:.*]] = memref.alloc() {alignment = 4 : i64} : memref<1x7x5x8xi8>
// CHECK: memref.copy %[[X]], %[[IN]]
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[IN]] {{\[}}[0, 1, 2, 3]] : memref<1x7x5x8xi8> into memref<280xi8>
// CHECK: %[[DW:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1, 2, 3, 4]] output_shape [1, 7, 5, 8, 1] : memref<280xi8> into memref<1x7x5x8x1xi8>
// CHECK: %[[RING:.*]] = memref.alloc() {alignment = 4 : i64, serenity.in_place_scratch} : memref<1x2x5x8xi8>
// CHECK: %[[RINGFLAT:.*]] = memref.collapse_shape %[[RING]]
// CHECK: %[[RING5:.*]] = memref.expand_shape %[[RINGFLAT]] {{.*}} into memref<1x2x5x8x1xi8>
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   %[[SLOT:.*]] = arith.remui %[[H]], %[[C2:.*]] : index
// CHECK:   scf.for %[[W:.*]] =
// CHECK:     scf.for %[[C:.*]] =
// CHECK:       %[[WIN:.*]] = memref.subview %[[IN]][0, %{{.*}}, %{{.*}}, %[[C]]] [1, %{{.*}}, %{{.*}}, 4]
// CHECK:       linalg.depthwise_conv_2d_nhwc_hwcm_q {{.*}} ins(%[[WIN]]
// CHECK:       %[[HELD:.*]] = memref.subview %[[RING5]][0, %[[SLOT]], %[[W]], %[[C]], 0] [1, 1, 1, 4, 1]
// CHECK:       linalg.generic {{.*}} outs(%[[HELD]]
// CHECK:   %[[DONE:.*]] = arith.cmpi uge, %[[H]], %{{.*}} : index
// CHECK:   scf.if %[[DONE]] {
// CHECK:     %[[ABOVE:.*]] = arith.subi %[[H]], %{{.*}} : index
// CHECK:     %[[FROM:.*]] = arith.remui %[[ABOVE]], %{{.*}} : index
// CHECK:     %[[RINGWORDS:.*]] = memref.view {{.*}} : memref<80xi8> to memref<1x2x5x2xi32>
// CHECK:     %[[SRCROW:.*]] = memref.subview %[[RINGWORDS]][0, %[[FROM]], 0, 0] [1, 1, 5, 2]
// CHECK:     %[[INWORDS:.*]] = memref.view {{.*}} : memref<280xi8> to memref<1x7x5x2xi32>
// CHECK:     %[[DSTROW:.*]] = memref.subview %[[INWORDS]][0, %[[ABOVE]], 0, 0] [1, 1, 5, 2]
// CHECK:     memref.copy %[[SRCROW]], %[[DSTROW]]
// CHECK: memref.subview %{{.*}}[0, 0, 0, 0] [1, 1, 5, 2]
// CHECK: memref.subview %{{.*}}[0, 6, 0, 0] [1, 1, 5, 2]
// CHECK: memref.copy
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x7x5x8x1xi8>
// CHECK: %[[PW_IN:.*]] = memref.collapse_shape %[[DW]]
// CHECK: %[[PIXEL:.*]] = memref.alloc() {alignment = 4 : i64, serenity.in_place_scratch} : memref<1x1x1x8xi8>
// CHECK: scf.for %[[H2:.*]] =
// CHECK:   scf.for %[[W2:.*]] =
// CHECK:     %[[PWFLAT:.*]] = memref.collapse_shape %[[PW_IN]]
// CHECK:     %[[PWWORDS:.*]] = memref.view %[[PWFLAT]]
// CHECK:     %[[SRC:.*]] = memref.subview %[[PWWORDS]][0, %[[H2]], %[[W2]], 0] [1, 1, 1, 2]
// CHECK:     %[[PIXELFLAT:.*]] = memref.collapse_shape %[[PIXEL]]
// CHECK:     %[[PIXELWORDS:.*]] = memref.view %[[PIXELFLAT]]
// CHECK:     memref.copy %[[SRC]], %[[PIXELWORDS]]
// CHECK:     scf.for
// CHECK:       linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%[[PIXEL]],
// CHECK:       memref.subview %[[IN]][0, %[[H2]], %[[W2]], %{{.*}}] [1, 1, 1, 4]
// CHECK: memref.copy %[[IN]], %[[OUT]]
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @depthwise_then_pointwise(%x: memref<1x7x5x8xi8>, %out: memref<1x7x5x8xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  %dwf = memref.alloc() : memref<3x3x8x1xi8>
  %pwf = memref.alloc() : memref<8x1x1x8xi8>
  %in = memref.alloc() {alignment = 4 : i64} : memref<1x7x5x8xi8>
  memref.copy %x, %in : memref<1x7x5x8xi8> to memref<1x7x5x8xi8>
  %dw = memref.alloc() {alignment = 4 : i64} : memref<1x7x5x8x1xi8>
  scf.for %h = %c0 to %c7 step %c1 {
    scf.for %w = %c0 to %c5 step %c1 {
      scf.for %c = %c0 to %c8 step %c4 {
        %23 = affine.max affine_map<(d0) -> (-d0 + 1, 0)>(%h)
        %24 = affine.max affine_map<(d0) -> (0, d0 - 1)>(%h)
        %25 = affine.min affine_map<(d0) -> (7, d0)>(%24)
        %26 = affine.min affine_map<(d0, d1) -> (-d0 + 7, -d1 + 3)>(%25, %23)
        %27 = affine.max affine_map<(d0) -> (0, d0)>(%26)
        %28 = affine.max affine_map<(d0) -> (-d0 + 1, 0)>(%w)
        %29 = affine.max affine_map<(d0) -> (0, d0 - 1)>(%w)
        %30 = affine.min affine_map<(d0) -> (5, d0)>(%29)
        %31 = affine.min affine_map<(d0, d1) -> (-d0 + 5, -d1 + 3)>(%30, %28)
        %32 = affine.max affine_map<(d0) -> (0, d0)>(%31)
        %win = memref.subview %in[0, %25, %30, %c] [1, %27, %32, 4] [1, 1, 1, 1] : memref<1x7x5x8xi8> to memref<1x?x?x4xi8, strided<[280, 40, 8, 1], offset: ?>>
        %fb = memref.subview %dwf[0, 0, %c, 0] [3, 3, 4, 1] [1, 1, 1, 1] : memref<3x3x8x1xi8> to memref<3x3x4x1xi8, strided<[24, 8, 1, 1], offset: ?>>
        %f = memref.subview %fb[%23, %28, 0, 0] [%27, %32, 4, 1] [1, 1, 1, 1] : memref<3x3x4x1xi8, strided<[24, 8, 1, 1], offset: ?>> to memref<?x?x4x1xi8, strided<[24, 8, 1, 1], offset: ?>>
        %acc = memref.alloc() {alignment = 4 : i64} : memref<1x1x1x4x1xi32>
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x4x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %f, %zp, %z : memref<1x?x?x4xi8, strided<[280, 40, 8, 1], offset: ?>>, memref<?x?x4x1xi8, strided<[24, 8, 1, 1], offset: ?>>, i32, i32) outs(%acc : memref<1x1x1x4x1xi32>)
        %o = memref.subview %dw[0, %h, %w, %c, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : memref<1x7x5x8x1xi8> to memref<1x1x1x4x1xi8, strided<[280, 40, 8, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x4x1xi32>) outs(%o : memref<1x1x1x4x1xi8, strided<[280, 40, 8, 1, 1], offset: ?>>) {
        ^bb0(%a: i32, %unused: i8):
          %t = arith.trunci %a : i32 to i8
          linalg.yield %t : i8
        }
      }
    }
  }
  %dw4 = memref.collapse_shape %dw [[0], [1], [2], [3, 4]] : memref<1x7x5x8x1xi8> into memref<1x7x5x8xi8>
  %pw = memref.alloc() {alignment = 4 : i64} : memref<1x7x5x8xi8>
  scf.for %h = %c0 to %c7 step %c1 {
    scf.for %w = %c0 to %c5 step %c1 {
      scf.for %c = %c0 to %c8 step %c4 {
        %px = memref.subview %dw4[0, %h, %w, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x7x5x8xi8> to memref<1x1x1x8xi8, strided<[280, 40, 8, 1], offset: ?>>
        %f = memref.subview %pwf[%c, 0, 0, 0] [4, 1, 1, 8] [1, 1, 1, 1] : memref<8x1x1x8xi8> to memref<4x1x1x8xi8, strided<[8, 8, 8, 1], offset: ?>>
        %acc = memref.alloc() {alignment = 4 : i64} : memref<1x1x1x4xi32>
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x4xi32>)
        linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%px, %f, %zp, %z : memref<1x1x1x8xi8, strided<[280, 40, 8, 1], offset: ?>>, memref<4x1x1x8xi8, strided<[8, 8, 8, 1], offset: ?>>, i32, i32) outs(%acc : memref<1x1x1x4xi32>)
        %o = memref.subview %pw[0, %h, %w, %c] [1, 1, 1, 4] [1, 1, 1, 1] : memref<1x7x5x8xi8> to memref<1x1x1x4xi8, strided<[280, 40, 8, 1], offset: ?>>
        linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x4xi32>) outs(%o : memref<1x1x1x4xi8, strided<[280, 40, 8, 1], offset: ?>>) {
        ^bb0(%a: i32, %unused: i8):
          %t = arith.trunci %a : i32 to i8
          linalg.yield %t : i8
        }
      }
    }
  }
  memref.copy %pw, %out : memref<1x7x5x8xi8> to memref<1x7x5x8xi8>
  return
}

// -----

// The input is read after the nest (a residual add would): nothing changes.
// CHECK-LABEL: func.func @input_read_later
// CHECK: %[[IN:.*]] = memref.alloc() : memref<1x4x4x4xi8>
// CHECK: %[[DW:.*]] = memref.alloc() : memref<1x4x4x4x1xi8>
// CHECK-NOT: memref.copy
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm_q
// CHECK: memref.subview %[[DW]]
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @input_read_later(%x: memref<1x4x4x4xi8>, %out: memref<1x4x4x4xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  %dwf = memref.alloc() : memref<1x1x4x1xi8>
  %in = memref.alloc() : memref<1x4x4x4xi8>
  memref.copy %x, %in : memref<1x4x4x4xi8> to memref<1x4x4x4xi8>
  %dw = memref.alloc() : memref<1x4x4x4x1xi8>
  scf.for %h = %c0 to %c4 step %c1 {
    scf.for %w = %c0 to %c4 step %c1 {
      scf.for %c = %c0 to %c4 step %c4 {
        %win = memref.subview %in[0, %h, %w, %c] [1, 1, 1, 4] [1, 1, 1, 1] : memref<1x4x4x4xi8> to memref<1x1x1x4xi8, strided<[64, 16, 4, 1], offset: ?>>
        %acc = memref.alloc() : memref<1x1x1x4x1xi32>
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x4x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %dwf, %z, %z : memref<1x1x1x4xi8, strided<[64, 16, 4, 1], offset: ?>>, memref<1x1x4x1xi8>, i32, i32) outs(%acc : memref<1x1x1x4x1xi32>)
        %o = memref.subview %dw[0, %h, %w, %c, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : memref<1x4x4x4x1xi8> to memref<1x1x1x4x1xi8, strided<[64, 16, 4, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x4x1xi32>) outs(%o : memref<1x1x1x4x1xi8, strided<[64, 16, 4, 1, 1], offset: ?>>) {
        ^bb0(%a: i32, %unused: i8):
          %t = arith.trunci %a : i32 to i8
          linalg.yield %t : i8
        }
      }
    }
  }
  memref.copy %in, %out : memref<1x4x4x4xi8> to memref<1x4x4x4xi8>
  return
}

// -----

// A strided depthwise conv reads pixels its results would already have
// overwritten: nothing changes.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.copy {{.*}} : memref<1x4x4x4xi8, {{.*}} to memref<1x4x4x4xi8>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @strided(%x: memref<1x4x4x4xi8>, %out: memref<1x4x4x4x1xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  %dwf = memref.alloc() : memref<1x1x4x1xi8>
  %in = memref.alloc() : memref<1x4x4x4xi8>
  memref.copy %x, %in : memref<1x4x4x4xi8> to memref<1x4x4x4xi8>
  %dw = memref.alloc() : memref<1x4x4x4x1xi8>
  scf.for %h = %c0 to %c4 step %c1 {
    scf.for %w = %c0 to %c4 step %c1 {
      scf.for %c = %c0 to %c4 step %c4 {
        %win = memref.subview %in[0, %h, %w, %c] [1, 1, 1, 4] [1, 1, 1, 1] : memref<1x4x4x4xi8> to memref<1x1x1x4xi8, strided<[64, 16, 4, 1], offset: ?>>
        %acc = memref.alloc() : memref<1x1x1x4x1xi32>
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x4x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%win, %dwf, %z, %z : memref<1x1x1x4xi8, strided<[64, 16, 4, 1], offset: ?>>, memref<1x1x4x1xi8>, i32, i32) outs(%acc : memref<1x1x1x4x1xi32>)
        %o = memref.subview %dw[0, %h, %w, %c, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : memref<1x4x4x4x1xi8> to memref<1x1x1x4x1xi8, strided<[64, 16, 4, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x4x1xi32>) outs(%o : memref<1x1x1x4x1xi8, strided<[64, 16, 4, 1, 1], offset: ?>>) {
        ^bb0(%a: i32, %unused: i8):
          %t = arith.trunci %a : i32 to i8
          linalg.yield %t : i8
        }
      }
    }
  }
  memref.copy %dw, %out : memref<1x4x4x4x1xi8> to memref<1x4x4x4x1xi8>
  return
}

// -----

// In place only where it lowers the peak: here a 4096-byte buffer before the
// nest holds the peak, so the 64-byte result keeps its own buffer (no copies,
// no ring).
// CHECK-LABEL: func.func @peak_elsewhere
// CHECK: %[[DW:.*]] = memref.alloc() : memref<1x4x4x4x1xi8>
// CHECK-NOT: memref.view
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm_q
// CHECK: memref.subview %[[DW]]
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @peak_elsewhere(%x: memref<1x4x4x4xi8>, %out: memref<1x4x4x4x1xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  %dwf = memref.alloc() : memref<1x1x4x1xi8>
  %big = memref.alloc() : memref<4096xi8>
  %in = memref.alloc() : memref<1x4x4x4xi8>
  %flat = memref.subview %big[0] [64] [1] : memref<4096xi8> to memref<64xi8, strided<[1]>>
  %x1 = memref.collapse_shape %x [[0, 1, 2, 3]] : memref<1x4x4x4xi8> into memref<64xi8>
  memref.copy %x1, %flat : memref<64xi8> to memref<64xi8, strided<[1]>>
  %in1 = memref.collapse_shape %in [[0, 1, 2, 3]] : memref<1x4x4x4xi8> into memref<64xi8>
  memref.copy %flat, %in1 : memref<64xi8, strided<[1]>> to memref<64xi8>
  %dw = memref.alloc() : memref<1x4x4x4x1xi8>
  scf.for %h = %c0 to %c4 step %c1 {
    scf.for %w = %c0 to %c4 step %c1 {
      scf.for %c = %c0 to %c4 step %c4 {
        %win = memref.subview %in[0, %h, %w, %c] [1, 1, 1, 4] [1, 1, 1, 1] : memref<1x4x4x4xi8> to memref<1x1x1x4xi8, strided<[64, 16, 4, 1], offset: ?>>
        %acc = memref.alloc() : memref<1x1x1x4x1xi32>
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x4x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %dwf, %z, %z : memref<1x1x1x4xi8, strided<[64, 16, 4, 1], offset: ?>>, memref<1x1x4x1xi8>, i32, i32) outs(%acc : memref<1x1x1x4x1xi32>)
        %o = memref.subview %dw[0, %h, %w, %c, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : memref<1x4x4x4x1xi8> to memref<1x1x1x4x1xi8, strided<[64, 16, 4, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x4x1xi32>) outs(%o : memref<1x1x1x4x1xi8, strided<[64, 16, 4, 1, 1], offset: ?>>) {
        ^bb0(%a: i32, %unused: i8):
          %t = arith.trunci %a : i32 to i8
          linalg.yield %t : i8
        }
      }
    }
  }
  memref.copy %dw, %out : memref<1x4x4x4x1xi8> to memref<1x4x4x4x1xi8>
  return
}
