// The language server knows the serenity dialect: a document with a
// serenity attribute has no diagnostics, and a malformed one gets the
// dialect's parse error at its location.
// RUN: serenity-lsp-server -lit-test < %s | FileCheck -strict-whitespace %s
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":123,"rootUri":"test:///workspace","capabilities":{},"trace":"off"}}
// -----
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{
  "uri":"test:///good.mlir",
  "languageId":"mlir",
  "version":1,
  "text":"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.abs %x {serenity.lifetime = [#serenity.lifetime<bytes = 16, def = 0, last = 1>]} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}"
}}}
// CHECK: "method": "textDocument/publishDiagnostics",
// CHECK-NEXT: "params": {
// CHECK-NEXT:   "diagnostics": [],
// CHECK-NEXT:   "uri": "test:///good.mlir",
// -----
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{
  "uri":"test:///bad.mlir",
  "languageId":"mlir",
  "version":1,
  "text":"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tosa.abs %x {serenity.lifetime = [#serenity.lifetime<bites = 16>]} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}"
}}}
// CHECK: "method": "textDocument/publishDiagnostics",
// CHECK-NEXT: "params": {
// CHECK-NEXT:   "diagnostics": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "category": "Parse Error",
// CHECK-NEXT:       "message": "expected 'bytes'",
// CHECK:            "range": {
// CHECK-NEXT:         "end": {
// CHECK-NEXT:           "character": {{[0-9]+}},
// CHECK-NEXT:           "line": 1
// CHECK:          "uri": "test:///bad.mlir",
// -----
{"jsonrpc":"2.0","id":3,"method":"shutdown"}
// -----
{"jsonrpc":"2.0","method":"exit"}
