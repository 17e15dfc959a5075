module {
  tosa.variable @state = dense<3> : tensor<1x8xi8>
  func.func @main(%arg0: tensor<1x2xi8>) -> tensor<1x8xi8> {
    %s = tosa.variable_read @state : tensor<1x8xi8>
    %start = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %size = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %sl = tosa.slice %s, %start, %size : (tensor<1x8xi8>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6xi8>
    %c = tosa.concat %sl, %arg0 {axis = 1 : i32} : (tensor<1x6xi8>, tensor<1x2xi8>) -> tensor<1x8xi8>
    tosa.variable_write @state, %c : tensor<1x8xi8>
    %r = tosa.variable_read @state : tensor<1x8xi8>
    %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %n = tosa.negate %r, %z, %z : (tensor<1x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8xi8>
    return %n : tensor<1x8xi8>
  }
}
