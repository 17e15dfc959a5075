// serenity-compile lists the functions the object leaves undefined (read from
// the object: the code generator turns llvm.exp.f32 into a call to expf) in
// NAME.json's external_symbols, and names the link flag they need
// (link_flags, and a comment in NAME.h): a float softmax (this file) calls
// expf, so -lm; an int8 network calls no math library.
// RUN: rm -rf %t && serenity-compile %s --target cortex-m4 -o %t/softmax
// RUN: FileCheck %s --check-prefix=FLOATH < %t/softmax/net.h
// RUN: FileCheck %s --check-prefix=FLOATJSON < %t/softmax/net.json
// RUN: serenity-compile %s --target host -o %t/softmax-host
// RUN: FileCheck %s --check-prefix=FLOATH < %t/softmax-host/net.h
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random -o %t/resnet8.mlir
// RUN: serenity-compile %t/resnet8.mlir --target cortex-m4 -o %t/int8
// RUN: FileCheck %s --check-prefix=INTH < %t/int8/net.h
// RUN: FileCheck %s --check-prefix=INTJSON < %t/int8/net.json
// RUN: serenity-compile %t/resnet8.mlir --target host -o %t/int8-host
// RUN: FileCheck %s --check-prefix=INTH < %t/int8-host/net.h
// FLOATH: /* External functions the object calls: {{.*}}expf{{.*}}.
// FLOATH-NEXT: Link with -lm (the C math library: expf). */
// FLOATJSON: "external_symbols": [
// FLOATJSON: "expf"
// FLOATJSON: ],
// FLOATJSON: "link_flags": [
// FLOATJSON-NEXT: "-lm"
// FLOATJSON-NEXT: ],
// INTH: /* External functions the object calls: {{.*}}.
// INTH-NEXT: No math library: link without -lm. */
// INTJSON: "external_symbols": [
// INTJSON-NOT: "{{[a-z]+f}}"
// INTJSON: ],
// INTJSON: "link_flags": [],
func.func @main(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %max = tosa.reduce_max %x {axis = 1 : i32} : (tensor<1x10xf32>) -> tensor<1x1xf32>
  %d = tosa.sub %x, %max : (tensor<1x10xf32>, tensor<1x1xf32>) -> tensor<1x10xf32>
  %e = tosa.exp %d : (tensor<1x10xf32>) -> tensor<1x10xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<1x10xf32>) -> tensor<1x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %y = tosa.mul %e, %r, %shift : (tensor<1x10xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
