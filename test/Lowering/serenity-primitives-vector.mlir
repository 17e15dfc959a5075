// The vector primitive (#serenity.primitive<vector>) as serenity-lower-primitives
// realizes it and its workspace in the memory model (run on the host:
// test/Tools/serenity-compile/primitives.mlir; chosen under
// fuse-requantization: python/tests/test_select_enumeration.py).
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(serenity-primitives-to-linalg,serenity-lower-primitives))' | FileCheck %s --check-prefix=LOWER
// RUN: serenity-opt %s --split-input-file --serenity-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=MODEL
// Bufferized, the split columns write their slices of the output in place:
// @vec_odd's arena holds the padded input (1024 bytes) and the output (1152),
// no copy of the output (the input stays the caller's).
// RUN: serenity-opt %s --split-input-file --serenity-pipeline="io=arena lower-to-llvm=0 tile=none" 2>/dev/null | FileCheck %s --check-prefix=ARENA
// ARENA-LABEL: func.func @vec_odd
// ARENA-SAME: serenity.arena_bytes = 2176 : i64
// A conv tagged vector on Cortex-M (no vector unit): an error at the conv.
// RUN: not serenity-opt %s --split-input-file --serenity-pipeline="target=cortex-m" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CORTEXM
// CORTEXM: serenity-primitives-vector.mlir:[[@LINE+19]]:8: error: primitive 'vector' cannot compute this convolution: vector needs a target with a vector unit (the host)
// The vector primitive: the filter (F x KH x KW x C = 8x3x3x4, values
// f*100 + kh*10 + kw + c/10) transposed at compile time to KH x KW x C x F;
// the 8x8x8 output in blocks of 4 pixels x 8 channels, accumulated per
// window position (kh, kw) over the 4 input channels, each block a vector
// contraction; the padded input is the only buffer besides the output.
func.func @vec(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %w = "tosa.const"() {values = dense<[
    [[[0.0, 0.1, 0.2, 0.3], [1.0, 1.1, 1.2, 1.3], [2.0, 2.1, 2.2, 2.3]], [[10.0, 10.1, 10.2, 10.3], [11.0, 11.1, 11.2, 11.3], [12.0, 12.1, 12.2, 12.3]], [[20.0, 20.1, 20.2, 20.3], [21.0, 21.1, 21.2, 21.3], [22.0, 22.1, 22.2, 22.3]]],
    [[[100.0, 100.1, 100.2, 100.3], [101.0, 101.1, 101.2, 101.3], [102.0, 102.1, 102.2, 102.3]], [[110.0, 110.1, 110.2, 110.3], [111.0, 111.1, 111.2, 111.3], [112.0, 112.1, 112.2, 112.3]], [[120.0, 120.1, 120.2, 120.3], [121.0, 121.1, 121.2, 121.3], [122.0, 122.1, 122.2, 122.3]]],
    [[[200.0, 200.1, 200.2, 200.3], [201.0, 201.1, 201.2, 201.3], [202.0, 202.1, 202.2, 202.3]], [[210.0, 210.1, 210.2, 210.3], [211.0, 211.1, 211.2, 211.3], [212.0, 212.1, 212.2, 212.3]], [[220.0, 220.1, 220.2, 220.3], [221.0, 221.1, 221.2, 221.3], [222.0, 222.1, 222.2, 222.3]]],
    [[[300.0, 300.1, 300.2, 300.3], [301.0, 301.1, 301.2, 301.3], [302.0, 302.1, 302.2, 302.3]], [[310.0, 310.1, 310.2, 310.3], [311.0, 311.1, 311.2, 311.3], [312.0, 312.1, 312.2, 312.3]], [[320.0, 320.1, 320.2, 320.3], [321.0, 321.1, 321.2, 321.3], [322.0, 322.1, 322.2, 322.3]]],
    [[[400.0, 400.1, 400.2, 400.3], [401.0, 401.1, 401.2, 401.3], [402.0, 402.1, 402.2, 402.3]], [[410.0, 410.1, 410.2, 410.3], [411.0, 411.1, 411.2, 411.3], [412.0, 412.1, 412.2, 412.3]], [[420.0, 420.1, 420.2, 420.3], [421.0, 421.1, 421.2, 421.3], [422.0, 422.1, 422.2, 422.3]]],
    [[[500.0, 500.1, 500.2, 500.3], [501.0, 501.1, 501.2, 501.3], [502.0, 502.1, 502.2, 502.3]], [[510.0, 510.1, 510.2, 510.3], [511.0, 511.1, 511.2, 511.3], [512.0, 512.1, 512.2, 512.3]], [[520.0, 520.1, 520.2, 520.3], [521.0, 521.1, 521.2, 521.3], [522.0, 522.1, 522.2, 522.3]]],
    [[[600.0, 600.1, 600.2, 600.3], [601.0, 601.1, 601.2, 601.3], [602.0, 602.1, 602.2, 602.3]], [[610.0, 610.1, 610.2, 610.3], [611.0, 611.1, 611.2, 611.3], [612.0, 612.1, 612.2, 612.3]], [[620.0, 620.1, 620.2, 620.3], [621.0, 621.1, 621.2, 621.3], [622.0, 622.1, 622.2, 622.3]]],
    [[[700.0, 700.1, 700.2, 700.3], [701.0, 701.1, 701.2, 701.3], [702.0, 702.1, 702.2, 702.3]], [[710.0, 710.1, 710.2, 710.3], [711.0, 711.1, 711.2, 711.3], [712.0, 712.1, 712.2, 712.3]], [[720.0, 720.1, 720.2, 720.3], [721.0, 721.1, 721.2, 721.3], [722.0, 722.1, 722.2, 722.3]]]
  ]> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<vector>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// LOWER-LABEL: func.func @vec
// The transposed filter starts with kh = kw = c = 0, f = 0..7 (0, 100, ...,
// 700 as f32 hex), then c = 1 (0.1, 100.1, ...).
// LOWER: arith.constant dense<"0x000000000000C84200004843000096430000C8430000FA430000164400002F44CDCCCC3D3333C842{{.*}} : tensor<3x3x4x8xf32>
// LOWER: scf.for
// LOWER: vector.transfer_read {{.*}} : tensor<1x4x4xf32>, vector<1x4x4xf32>
// LOWER: vector.transfer_read {{.*}} : tensor<1x4x8xf32>, vector<1x4x8xf32>
// LOWER: vector.contract
// LOWER: vector.transfer_write
// LOWER-NOT: linalg.conv_2d

// The padded input (1x10x10x4 f32) is the vector primitive's workspace.
// MODEL: "bytes": 1600,
// MODEL-NEXT: "def": 0,
// MODEL-NEXT: "last": 0,
// MODEL-NEXT: "name": "{{.*}}.workspace"

// -----

// Depthwise (one channel per group): the 3x3x16x1 filter reshaped to
// 3x3x16, blocks of 4 pixels x 16 channels, each a vector multiply-add
// along the channels; the workspace is the padded input (10x10x16 f32,
// 6400 bytes) and the unbiased result (8x8x16 f32, 4096 bytes).
func.func @vec_depthwise(%x: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<3x3x16x1xf32>} : () -> tensor<3x3x16x1xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<16xf32>} : () -> tensor<16xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.depthwise_conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<vector>} : (tensor<1x8x8x16xf32>, tensor<3x3x16x1xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}

// LOWER-LABEL: func.func @vec_depthwise
// LOWER: arith.constant dense<2.500000e-01> : tensor<3x3x16xf32>
// LOWER: scf.for
// LOWER: vector.transfer_read {{.*}} : tensor<1x4x16xf32>, vector<1x4x16xf32>
// LOWER: vector.fma
// LOWER: vector.transfer_write
// LOWER-NOT: linalg.depthwise_conv_2d
// MODEL: "bytes": 10496,
// MODEL-NEXT: "def": 0,
// MODEL-NEXT: "last": 0,
// MODEL-NEXT: "name": "{{.*}}.workspace"

// -----

// 6 output columns: columns 0-3 in 4-column blocks, 4-5 in one 2-column
// block (reading padded input columns 0-5 and 4-7), so every block is static.
func.func @vec_odd(%x: tensor<1x6x6x4xf32>) -> tensor<1x6x6x8xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<8x3x3x4xf32>} : () -> tensor<8x3x3x4xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<vector>} : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}

// LOWER-LABEL: func.func @vec_odd
// LOWER: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 8, 6, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x8x6x4xf32>
// LOWER: vector.transfer_read {{.*}} : tensor<1x4x4xf32>, vector<1x4x4xf32>
// LOWER: tensor.insert_slice {{.*}} into tensor<1x6x6x8xf32>
// LOWER: tensor.extract_slice %{{.*}}[0, 0, 4, 0] [1, 8, 4, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x8x4x4xf32>
// LOWER: vector.transfer_read {{.*}} : tensor<1x2x4xf32>, vector<1x2x4xf32>
// LOWER: tensor.insert_slice {{.*}} into tensor<1x6x6x8xf32>
// LOWER-NOT: linalg.conv_2d
