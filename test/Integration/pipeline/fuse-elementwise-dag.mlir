// Element-wise DAG fusion (serenity-fuse-requantization's fusePointwiseDags)
// executed: serenity-pipeline (each DAG one loop, every internal value
// computed once per element) vs the upstream reference lowering (one loop
// and one stored tensor per TOSA op), by mlir-runner on the same seeded
// inputs. The outputs must be bit-exact: the fused body applies the same
// scalar ops in the same order.
// The DAGs of test/Lowering/serenity-fuse-elementwise-dag.mlir on larger
// tensors: face_landmarks_192's float32 QUANTIZE of its input, and an int8
// PReLU (MUL, MAXIMUM, requantizations).
// RUN: split-file %s %t
// RUN: %python %integration/compare_lowering.py %t/quantize.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t/quantize.mlir --atol 0 --rtol 0 --options "fuse-requantization=0" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t/prelu.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t/prelu.mlir --atol 0 --rtol 0 --seed 7 | FileCheck %s
// The scheduler plans the fused loop: it reads the input and writes the
// result, nothing else is live.
// RUN: serenity-opt %t/quantize.mlir --serenity-pipeline="lower-to-llvm=0" | FileCheck %s --check-prefix=PEAK
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS
// 16x16x3 f32 input (3072 bytes) and i8 result (768 bytes):
// PEAK: serenity.schedule = {algorithm = "dp", lower_bound_bytes = 3840 : i64, optimal = true, peak_bytes = 3840 : i64

//--- quantize.mlir
func.func @main(%arg0: tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xi8> {
  %0 = "tosa.const"() <{values = dense<0x3C007FED> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %1 = "tosa.const"() <{values = dense<0x42FF0125> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %2 = "tosa.const"() <{values = dense<0x3C008000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %3 = "tosa.const"() <{values = dense<0xB2980000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %5 = "tosa.mul"(%arg0, %1, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %6 = "tosa.mul"(%5, %0, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %7 = "tosa.const"() <{values = dense<0x45800800> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %8 = "tosa.mul"(%5, %7, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %9 = "tosa.sub"(%8, %5) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %10 = "tosa.sub"(%8, %9) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %11 = "tosa.sub"(%5, %10) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %12 = "tosa.mul"(%10, %2, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %13 = "tosa.sub"(%12, %6) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %14 = "tosa.mul"(%10, %3, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %15 = "tosa.add"(%13, %14) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %16 = "tosa.mul"(%11, %2, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %17 = "tosa.add"(%15, %16) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %18 = "tosa.mul"(%11, %3, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %19 = "tosa.add"(%17, %18) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %20 = "tosa.sub"(%arg0, %6) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %21 = "tosa.sub"(%20, %19) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %22 = "tosa.mul"(%21, %1, %4) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x3xf32>
  %23 = "tosa.add"(%5, %22) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %24 = "tosa.floor"(%23) : (tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %25 = "tosa.sub"(%23, %24) : (tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %26 = "tosa.const"() <{values = dense<0x3F000000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %27 = "tosa.greater"(%25, %26) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x16x3xi1>
  %28 = "tosa.equal"(%25, %26) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x16x3xi1>
  %29 = "tosa.const"() <{values = dense<0x00000000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %30 = "tosa.greater_equal"(%23, %29) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x16x3xi1>
  %31 = "tosa.logical_and"(%28, %30) : (tensor<1x16x16x3xi1>, tensor<1x16x16x3xi1>) -> tensor<1x16x16x3xi1>
  %32 = "tosa.logical_or"(%27, %31) : (tensor<1x16x16x3xi1>, tensor<1x16x16x3xi1>) -> tensor<1x16x16x3xi1>
  %33 = "tosa.const"() <{values = dense<0x3F800000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %34 = "tosa.add"(%24, %33) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x16x3xf32>
  %35 = "tosa.select"(%32, %34, %24) : (tensor<1x16x16x3xi1>, tensor<1x16x16x3xf32>, tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %36 = "tosa.const"() <{values = dense<0xBF800000> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %37 = "tosa.add"(%35, %36) : (tensor<1x16x16x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x16x3xf32>
  %38 = "tosa.clamp"(%37) <{max_val = 0x42FE0000 : f32, min_val = 0xC3000000 : f32}> : (tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xf32>
  %39 = "tosa.cast"(%38) : (tensor<1x16x16x3xf32>) -> tensor<1x16x16x3xi8>
  return %39 : tensor<1x16x16x3xi8>
}

//--- prelu.mlir
func.func @main(%a: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
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
  %a32 = tosa.cast %a : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi32>
  %a0 = tosa.sub %a32, %zpa : (tensor<1x8x8x4xi32>, tensor<1x1x1x1xi32>) -> tensor<1x8x8x4xi32>
  %al32 = tosa.cast %alpha : (tensor<1x1x1x4xi8>) -> tensor<1x1x1x4xi32>
  %p = tosa.mul %a0, %al32, %sh : (tensor<1x8x8x4xi32>, tensor<1x1x1x4xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %p8 = tosa.rescale %p, %m1, %s1, %izp32, %zpm {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %a8 = tosa.rescale %a, %m2, %s2, %zpa8, %zpo {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true} : (tensor<1x8x8x4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %pq = tosa.rescale %p8, %m3, %s3, %zpm, %zpo {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true} : (tensor<1x8x8x4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %x32 = tosa.cast %pq : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi32>
  %y32 = tosa.cast %a8 : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi32>
  %mx = tosa.maximum %x32, %y32 : (tensor<1x8x8x4xi32>, tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi32>
  %y = tosa.cast %mx : (tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi8>
  return %y : tensor<1x8x8x4xi8>
}
