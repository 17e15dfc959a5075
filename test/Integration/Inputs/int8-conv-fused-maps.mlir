memref.global "private" constant @w : memref<4x3x3x8xi8> = dense<[[[[37, -51, 74, -104, -91, -80, 59, -99], [-19, -109, -84, 94, 86, -93, -5, -82], [89, -98, -65, -14, -97, 75, -103, -15]], [[-105, -60, 20, 86, -55, -68, 29, -36], [-76, -32, 62, -79, -96, -98, -23, 126], [90, 32, 110, 104, 57, 25, -1, -36]], [[-4, -87, 25, 125, 47, 101, 19, -91], [-68, 86, -44, 47, -51, 122, 87, -108], [-89, 32, 46, 51, 126, 105, -93, -81]]], [[[10, 114, -95, -97, 30, 100, 17, 69], [49, -117, 108, 53, -42, -69, 124, -98], [-17, 19, -62, -2, 75, 72, 126, -87]], [[-43, 101, 77, 14, -58, 92, 14, 84], [55, 66, -10, -51, -86, -38, -51, -10], [-9, -122, 120, -35, 6, 16, -126, -54]], [[86, 61, 35, -64, -101, 105, 72, 75], [76, 73, -75, 118, 77, -97, -31, -94], [-22, 97, -45, -72, 46, -102, -76, -128]]], [[[-51, -77, 58, -115, -92, -22, 64, -52], [1, 49, 58, 114, -66, -69, 121, 110], [117, 119, 31, -85, -55, -76, 47, 7]], [[117, -46, -117, -23, 57, -53, -115, 24], [-82, 5, 59, -43, 54, -14, 40, -14], [-29, -6, 77, -12, -26, 124, 54, -114]], [[-114, 15, 113, 4, -29, 48, 100, 50], [58, -87, -16, -76, -12, 112, -28, 44], [-24, 119, -128, 117, 48, -85, -67, 70]]], [[[-26, 116, -37, 94, 42, -84, 74, 109], [77, -85, -47, -41, -63, -114, -51, 110], [-54, 114, 51, -49, -61, -118, -121, -76]], [[-57, 94, -29, -20, -114, 0, -20, 21], [-5, 38, 4, 86, -61, -97, 53, 106], [87, -62, -51, -119, 97, -35, -126, -52]], [[-40, -56, 114, -67, -97, 38, 119, -74], [-99, -1, -31, 13, -107, -78, 103, -114], [-96, 98, 38, -26, 13, 103, 116, -2]]]]>
memref.global "private" constant @x : memref<1x3x3x8xi8> = dense<[[[[4, -25, 101, -58, 85, -66, 72, 98], [33, -91, -5, 91, -91, -20, 27, -66], [-49, 59, -55, 1, -58, 111, -16, -80]], [[75, 121, -45, -14, -46, 92, 78, 45], [87, -28, 54, 35, -81, 59, -119, 45], [106, 97, -119, 68, 41, 23, -96, -71]], [[-11, -75, -85, 7, 11, -108, -36, 10], [-62, 88, 4, 79, -52, 125, 39, -83], [14, -99, -35, 89, -91, 9, -120, -83]]]]>
memref.global "private" constant @bias : memref<4xi32> = dense<[320, -234, -415, 122]>
func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefI8(memref<*xi8>)

#id = affine_map<(d0,d1,d2,d3) -> (d0,d1,d2,d3)>
#ch = affine_map<(d0,d1,d2,d3) -> (d3)>
#rev = affine_map<(d0,d1,d2,d3) -> (3 - d3, d0)>
#bc = affine_map<(d0,d1,d2,d3) -> (0)>
func.func @main() {
  %c0_i32 = arith.constant 0 : i32
  %z = arith.constant 9 : i32
  %k = arith.constant 3 : i32
  %w = memref.get_global @w : memref<4x3x3x8xi8>
  %xg = memref.get_global @x : memref<1x3x3x8xi8>
  %x = memref.alloc() : memref<1x3x3x8xi8>
  memref.copy %xg, %x : memref<1x3x3x8xi8> to memref<1x3x3x8xi8>
  %bias = memref.get_global @bias : memref<4xi32>
  %out = memref.alloc() : memref<4x1xi32>
  %acc = memref.alloc() : memref<1x1x1x4xi32>
  linalg.generic {indexing_maps = [#ch, #bc, #id], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%bias, %bias : memref<4xi32>, memref<4xi32>) outs(%acc : memref<1x1x1x4xi32>) {
  ^bb0(%b: i32, %b0: i32, %o: i32):
    %s = arith.addi %b, %k : i32
    %t = arith.muli %s, %b0 : i32
    linalg.yield %t : i32
  }
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %z, %c0_i32 : memref<1x3x3x8xi8>, memref<4x3x3x8xi8>, i32, i32) outs(%acc : memref<1x1x1x4xi32>)
  %five = arith.constant 5 : i32
  linalg.generic {indexing_maps = [#id, #ch, #rev], iterator_types = ["parallel","parallel","parallel","parallel"]} ins(%acc, %bias : memref<1x1x1x4xi32>, memref<4xi32>) outs(%out : memref<4x1xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %s = arith.subi %a, %b : i32
    %t = arith.muli %s, %five : i32
    linalg.yield %t : i32
  }
  %u_out = memref.cast %out : memref<4x1xi32> to memref<*xi32>
  call @printMemrefI32(%u_out) : (memref<*xi32>) -> ()
  return
}
