// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization),canonicalize)' | FileCheck %s
// RUN: serenity-opt %s --split-input-file --serenity-memory-report=fuse-requantization=1 -o /dev/null | FileCheck %s --check-prefix=MODEL

// Element-wise DAGs (serenity-fuse-requantization's fusePointwiseDags): a
// value read by several element-wise ops, all inside the DAG, is computed
// once per element in the one loop of the DAG, never stored.

// TFLite's float32 QUANTIZE as the importer writes it (face_landmarks_192's
// input, 4x4 pixels here): an exact division by the scale (a Dekker split of
// the quotient estimate %5, read by five ops; %10 and %11 by two each), then
// round half away from zero (%23 read by four ops, %24 by three). The whole
// DAG is one generic whose body holds each TOSA op's scalar op exactly once,
// in program order, so every element is computed by the same float
// operations in the same order as unfused (bit-exact).
// CHECK-LABEL: func.func @float_quantize
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x4x3xf32>)
// CHECK:       %[[FUSED:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x4x4x3xf32>) outs(%{{.*}} : tensor<1x4x4x3xi8>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %{{.*}}: i8):
// CHECK-NEXT:    %[[V5:.*]] = arith.mulf %[[IN]], %[[INV:.*]] : f32
// CHECK-NEXT:    %[[V6:.*]] = arith.mulf %[[V5]], %{{.*}} : f32
// CHECK-NEXT:    %[[V8:.*]] = arith.mulf %[[V5]], %{{.*}} : f32
// CHECK-NEXT:    %[[V9:.*]] = arith.subf %[[V8]], %[[V5]] : f32
// CHECK-NEXT:    %[[V10:.*]] = arith.subf %[[V8]], %[[V9]] : f32
// CHECK-NEXT:    %[[V11:.*]] = arith.subf %[[V5]], %[[V10]] : f32
// CHECK-NEXT:    %[[V12:.*]] = arith.mulf %[[V10]], %[[HI:.*]] : f32
// CHECK-NEXT:    %[[V13:.*]] = arith.subf %[[V12]], %[[V6]] : f32
// CHECK-NEXT:    %[[V14:.*]] = arith.mulf %[[V10]], %[[LO:.*]] : f32
// CHECK-NEXT:    %[[V15:.*]] = arith.addf %[[V13]], %[[V14]] : f32
// CHECK-NEXT:    %[[V16:.*]] = arith.mulf %[[V11]], %[[HI]] : f32
// CHECK-NEXT:    %[[V17:.*]] = arith.addf %[[V15]], %[[V16]] : f32
// CHECK-NEXT:    %[[V18:.*]] = arith.mulf %[[V11]], %[[LO]] : f32
// CHECK-NEXT:    %[[V19:.*]] = arith.addf %[[V17]], %[[V18]] : f32
// CHECK-NEXT:    %[[V20:.*]] = arith.subf %[[IN]], %[[V6]] : f32
// CHECK-NEXT:    %[[V21:.*]] = arith.subf %[[V20]], %[[V19]] : f32
// CHECK-NEXT:    %[[V22:.*]] = arith.mulf %[[V21]], %[[INV]] : f32
// CHECK-NEXT:    %[[V23:.*]] = arith.addf %[[V5]], %[[V22]] : f32
// CHECK-NEXT:    %[[V24:.*]] = math.floor %[[V23]] : f32
// CHECK-NEXT:    %[[V25:.*]] = arith.subf %[[V23]], %[[V24]] : f32
// CHECK-NEXT:    %[[V27:.*]] = arith.cmpf ogt, %[[V25]], %{{.*}} : f32
// CHECK-NEXT:    %[[V28:.*]] = arith.cmpf oeq, %[[V25]], %{{.*}} : f32
// CHECK-NEXT:    %[[V30:.*]] = arith.cmpf oge, %[[V23]], %{{.*}} : f32
// CHECK-NEXT:    %[[V31:.*]] = arith.andi %[[V28]], %[[V30]] : i1
// CHECK-NEXT:    %[[V32:.*]] = arith.ori %[[V27]], %[[V31]] : i1
// CHECK-NEXT:    %[[V34:.*]] = arith.addf %[[V24]], %{{.*}} : f32
// CHECK-NEXT:    %[[V35:.*]] = arith.select %[[V32]], %[[V34]], %[[V24]] : f32
// CHECK-NEXT:    %[[V37:.*]] = arith.addf %[[V35]], %{{.*}} : f32
// CHECK-NEXT:    %[[C1:.*]] = arith.minimumf %[[V37]], %{{.*}} : f32
// CHECK-NEXT:    %[[C2:.*]] = arith.maximumf %[[C1]], %{{.*}} : f32
// CHECK-NEXT:    %[[R:.*]] = math.roundeven %[[C2]] : f32
// CHECK-NEXT:    %[[R1:.*]] = arith.minimumf %[[R]], %{{.*}} : f32
// CHECK-NEXT:    %[[R2:.*]] = arith.maximumf %[[R1]], %{{.*}} : f32
// CHECK-NEXT:    %[[I8:.*]] = arith.fptosi %[[R2]] : f32 to i8
// CHECK-NEXT:    linalg.yield %[[I8]] : i8
// CHECK-NEXT:  } -> tensor<1x4x4x3xi8>
// CHECK-NEXT:  return %[[FUSED]]
// The memory model counts the same loop: the input (192 bytes) and the int8
// result (48 bytes) at the cast, the DAG's last op. Before this fusion (a
// producer with more than four users was stored) several 192-byte f32 and
// 48-byte i1 temporaries were live at once (peak 576 bytes).
// MODEL-LABEL: serenity memory report: @float_quantize
// MODEL-NEXT:  peak 240 bytes at step 29, 30 steps
func.func @float_quantize(%arg0: tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xi8> {
  %0 = "tosa.const"() <{values = dense<0x3C007FED> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %1 = "tosa.const"() <{values = dense<0x42FF0125> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %2 = "tosa.const"() <{values = dense<0x3C008000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %3 = "tosa.const"() <{values = dense<0xB2980000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %5 = "tosa.mul"(%arg0, %1, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %6 = "tosa.mul"(%5, %0, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %7 = "tosa.const"() <{values = dense<0x45800800> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %8 = "tosa.mul"(%5, %7, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %9 = "tosa.sub"(%8, %5) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %10 = "tosa.sub"(%8, %9) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %11 = "tosa.sub"(%5, %10) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %12 = "tosa.mul"(%10, %2, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %13 = "tosa.sub"(%12, %6) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %14 = "tosa.mul"(%10, %3, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %15 = "tosa.add"(%13, %14) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %16 = "tosa.mul"(%11, %2, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %17 = "tosa.add"(%15, %16) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %18 = "tosa.mul"(%11, %3, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %19 = "tosa.add"(%17, %18) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %20 = "tosa.sub"(%arg0, %6) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %21 = "tosa.sub"(%20, %19) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %22 = "tosa.mul"(%21, %1, %4) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x4x3xf32>
  %23 = "tosa.add"(%5, %22) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %24 = "tosa.floor"(%23) : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %25 = "tosa.sub"(%23, %24) : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %26 = "tosa.const"() <{values = dense<0x3F000000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %27 = "tosa.greater"(%25, %26) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x3xi1>
  %28 = "tosa.equal"(%25, %26) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x3xi1>
  %29 = "tosa.const"() <{values = dense<0x00000000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %30 = "tosa.greater_equal"(%23, %29) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x3xi1>
  %31 = "tosa.logical_and"(%28, %30) : (tensor<1x4x4x3xi1>, tensor<1x4x4x3xi1>) -> tensor<1x4x4x3xi1>
  %32 = "tosa.logical_or"(%27, %31) : (tensor<1x4x4x3xi1>, tensor<1x4x4x3xi1>) -> tensor<1x4x4x3xi1>
  %33 = "tosa.const"() <{values = dense<0x3F800000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %34 = "tosa.add"(%24, %33) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x3xf32>
  %35 = "tosa.select"(%32, %34, %24) : (tensor<1x4x4x3xi1>, tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %36 = "tosa.const"() <{values = dense<0xBF800000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %37 = "tosa.add"(%35, %36) : (tensor<1x4x4x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x3xf32>
  %38 = "tosa.clamp"(%37) <{max_val = 0x42FE0000 : f32, min_val = 0xC3000000 : f32}> : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %39 = "tosa.cast"(%38) : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xi8>
  return %39 : tensor<1x4x4x3xi8>
}

// -----

// An int8 PReLU as TFLite writes it, MUL by the per-channel alpha and
// MAXIMUM: %a is read by the MUL's cast and by its own requantization, both
// i32 chains meet in the maximum. One loop reads the int8 input once per
// element and writes the int8 result; no i32 temporary exists.
// CHECK-LABEL: func.func @int8_prelu
// CHECK-SAME:    (%[[A:.*]]: tensor<1x2x2x4xi8>)
// The per-channel alpha, widened once (4 elements read by broadcast: not
// element for element, so a tensor of its own).
// CHECK:       %[[ALPHA:.*]] = linalg.generic
// CHECK:       } -> tensor<1x1x1x4xi32>
// CHECK:       %[[FUSED:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[ALPHA]] : tensor<1x2x2x4xi8>, tensor<1x1x1x4xi32>) outs(%{{.*}} : tensor<1x2x2x4xi8>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: i8, %[[AL:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT:    %[[W:.*]] = arith.extsi %[[IN]] : i8 to i32
// CHECK-NEXT:    %[[A0:.*]] = arith.subi %[[W]], %{{.*}} : i32
// CHECK-NEXT:    arith.muli %[[A0]], %[[AL]] : i32
// CHECK-NOT:     arith.extsi %[[IN]]
// CHECK:         arith.shrsi %{{.*}}, %c37_i64 : i64
// The input's own requantization widens it too: the same scalar ops as the
// MUL's cast and zero point subtraction, computed once (CSE in the body).
// CHECK:         arith.extsi %[[A0]] : i32 to i64
// CHECK:         arith.shrsi %{{.*}}, %c30_i64 : i64
// CHECK:         arith.shrsi %{{.*}}, %c31_i64 : i64
// CHECK:         %[[MAX:.*]] = arith.maxsi %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK-NEXT:    %[[Y:.*]] = arith.trunci %[[MAX]] : i32 to i8
// CHECK-NEXT:    linalg.yield %[[Y]] : i8
// CHECK-NEXT:  } -> tensor<1x2x2x4xi8>
// CHECK-NEXT:  return %[[FUSED]]
// The memory model counts the same loops: the input, the widened alpha and
// the result (16 bytes each) at the last cast. (Before, the DAG was two
// loops with an int8 temporary of 16 bytes between them, the input widened
// in both.)
// MODEL-LABEL: serenity memory report: @int8_prelu
// MODEL-NEXT:  peak 48 bytes at step 10, 11 steps
func.func @int8_prelu(%a: tensor<1x2x2x4xi8>) -> tensor<1x2x2x4xi8> {
  %alpha = "tosa.const"() <{values = dense<[[[[3, -5, 7, 100]]]]> : tensor<1x1x1x4xi8>}> : () -> tensor<1x1x1x4xi8>
  %zpa = "tosa.const"() <{values = dense<-20> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m1 = "tosa.const"() <{values = dense<1333866648> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s1 = "tosa.const"() <{values = dense<37> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m2 = "tosa.const"() <{values = dense<1133712415> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s2 = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m3 = "tosa.const"() <{values = dense<1998331702> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s3 = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zpm = "tosa.const"() <{values = dense<-11> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zpa8 = "tosa.const"() <{values = dense<-20> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zpo = "tosa.const"() <{values = dense<-28> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a32 = tosa.cast %a : (tensor<1x2x2x4xi8>) -> tensor<1x2x2x4xi32>
  %a0 = tosa.sub %a32, %zpa : (tensor<1x2x2x4xi32>, tensor<1x1x1x1xi32>) -> tensor<1x2x2x4xi32>
  %al32 = tosa.cast %alpha : (tensor<1x1x1x4xi8>) -> tensor<1x1x1x4xi32>
  %p = tosa.mul %a0, %al32, %sh : (tensor<1x2x2x4xi32>, tensor<1x1x1x4xi32>, tensor<1xi8>) -> tensor<1x2x2x4xi32>
  %p8 = tosa.rescale %p, %m1, %s1, %izp32, %zpm {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true} : (tensor<1x2x2x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x2x2x4xi8>
  %a8 = tosa.rescale %a, %m2, %s2, %zpa8, %zpo {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true} : (tensor<1x2x2x4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x4xi8>
  %pq = tosa.rescale %p8, %m3, %s3, %zpm, %zpo {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true} : (tensor<1x2x2x4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x4xi8>
  %x32 = tosa.cast %pq : (tensor<1x2x2x4xi8>) -> tensor<1x2x2x4xi32>
  %y32 = tosa.cast %a8 : (tensor<1x2x2x4xi8>) -> tensor<1x2x2x4xi32>
  %mx = tosa.maximum %x32, %y32 : (tensor<1x2x2x4xi32>, tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xi32>
  %y = tosa.cast %mx : (tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xi8>
  return %y : tensor<1x2x2x4xi8>
}

// -----

// A value the function also returns is stored: the DAG ends there, and the
// ops after it form their own loop. Here %m (returned) is one loop, the
// rounding of %m (read twice) another.
// CHECK-LABEL: func.func @returned_inside
// CHECK:       %[[M:.*]] = linalg.generic
// CHECK:         arith.mulf
// CHECK:       } -> tensor<1x8xf32>
// CHECK:       %[[R:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<1x8xf32>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:    %[[F:.*]] = math.floor %[[IN]]
// CHECK-NEXT:    arith.subf %[[IN]], %[[F]]
// CHECK:       return %[[M]], %[[R]]
// The input and %m (32 bytes each) at the mul, %m and the i32 result at the
// cast.
// MODEL-LABEL: serenity memory report: @returned_inside
// MODEL-NEXT:  peak 64 bytes at step 0, 4 steps
func.func @returned_inside(%x: tensor<1x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xi32>) {
  %k = "tosa.const"() <{values = dense<3.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %x, %k, %sh : (tensor<1x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x8xf32>
  %f = tosa.floor %m : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %d = tosa.sub %m, %f : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  %i = tosa.cast %d : (tensor<1x8xf32>) -> tensor<1x8xi32>
  return %m, %i : tensor<1x8xf32>, tensor<1x8xi32>
}
