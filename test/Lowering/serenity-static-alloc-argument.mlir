// RUN: not serenity-opt %s --serenity-static-alloc=arena=argument 2>&1 | FileCheck %s

// The arena argument would change a signature that a call in the module
// relies on.
// CHECK: error: serenity-static-alloc: arena=argument changes the signature of @callee, which is called in this module
func.func @callee(%arg0: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %arg0, %a : memref<4xf32> to memref<4xf32>
  return
}

func.func @caller(%arg0: memref<4xf32>) {
  call @callee(%arg0) : (memref<4xf32>) -> ()
  return
}
