// Imported from TFLite by serenity import-tflite (int8, rounding=double):
// python/tests/test_in_place_convs.py ds_cnn(6, seed=53, act=0), a DS-CNN with
// six channels (in-place depthwise channel blocks of 3).
// ops: CONV_2D x3, DEPTHWISE_CONV_2D x2, AVERAGE_POOL_2D x1, RESHAPE x1, FULLY_CONNECTED x1
module {
  func.func @main(%arg0: tensor<1x13x9x1xi8> {serenity.quantization = {scale = 0.5 : f64, zero_point = 83 : i64}}) -> (tensor<1x4xi8> {serenity.quantization = {scale = 0.10000000149011612 : f64, zero_point = 0 : i64}}) {
    %0 = "tosa.const"() <{values = dense<"0x3B0D0ABB4693FBDA4C55A4A7DB587A9C8AAE1B587FA48C878FCD51976B73B0915DE4D6BC3C8D61E67B56C661E88AB7FD2DF7CE7560C9"> : tensor<6x3x3x1xi8>}> : () -> tensor<6x3x3x1xi8>
    %1 = "tosa.const"() <{values = dense<"0x88FDFFFFADFDFFFFA10100005CFEFFFF8BFFFFFF3D010000"> : tensor<6xi32>}> : () -> tensor<6xi32>
    %2 = "tosa.const"() <{values = dense<83> : tensor<1xi8>}> : () -> tensor<1xi8>
    %3 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    // CONV_2D #0
    %4 = "tosa.conv2d"(%arg0, %0, %1, %2, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}> : (tensor<1x13x9x1xi8>, tensor<6x3x3x1xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x7x5x6xi32>
    %5 = "tosa.const"() <{values = dense<"0x2AADD659CF5F7342C39D7C73A70BA962BF127944D05D5E40"> : tensor<6xi32>}> : () -> tensor<6xi32>
    %6 = "tosa.const"() <{values = dense<"0x212122222121"> : tensor<6xi8>}> : () -> tensor<6xi8>
    %7 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %8 = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
    %9 = "tosa.rescale"(%4, %5, %6, %7, %8) <{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> : (tensor<1x7x5x6xi32>, tensor<6xi32>, tensor<6xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x7x5x6xi8>
    // fused RELU
    %10 = "tosa.clamp"(%9) <{max_val = 127 : i8, min_val = -128 : i8}> : (tensor<1x7x5x6xi8>) -> tensor<1x7x5x6xi8>
    %11 = "tosa.const"() <{values = dense<"0xD88AFB8734B81024D0D34CD5607969EC125EFB92F60838597A9656A500C6BEA2E38E8B080761B9DCD2D6A158ACD6BFBCAFC5E95AA886"> : tensor<3x3x6x1xi8>}> : () -> tensor<3x3x6x1xi8>
    %12 = "tosa.const"() <{values = dense<"0xE4FFFFFF8DFEFFFFBB01000074FEFFFF9EFFFFFF7EFDFFFF"> : tensor<6xi32>}> : () -> tensor<6xi32>
    // DEPTHWISE_CONV_2D #1
    %13 = "tosa.depthwise_conv2d"(%10, %11, %12, %8, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}> : (tensor<1x7x5x6xi8>, tensor<3x3x6x1xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x7x5x6xi32>
    %14 = "tosa.const"() <{values = dense<"0xCB549478790D0C5B014C134E595B9C5B5CC37F60F71BA457"> : tensor<6xi32>}> : () -> tensor<6xi32>
    %15 = "tosa.const"() <{values = dense<"0x252524242525"> : tensor<6xi8>}> : () -> tensor<6xi8>
    %16 = "tosa.rescale"(%13, %14, %15, %7, %8) <{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> : (tensor<1x7x5x6xi32>, tensor<6xi32>, tensor<6xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x7x5x6xi8>
    %17 = "tosa.const"() <{values = dense<"0x035B78A7CD4ACC5F9EE5FA44F0EE00FB1E413290BBF4DFB4EBE6F1A6A7BD01C6AAAF8845"> : tensor<6x1x1x6xi8>}> : () -> tensor<6x1x1x6xi8>
    %18 = "tosa.const"() <{values = dense<"0x40FEFFFFD9FFFFFFAAFFFFFFFFFCFFFFCD010000A4020000"> : tensor<6xi32>}> : () -> tensor<6xi32>
    // CONV_2D #2
    %19 = "tosa.conv2d"(%16, %17, %18, %8, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x7x5x6xi8>, tensor<6x1x1x6xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x7x5x6xi32>
    %20 = "tosa.const"() <{values = dense<"0xD6797C4257299B6A546D8A6F29B8C161C385CE602F285C58"> : tensor<6xi32>}> : () -> tensor<6xi32>
    %21 = "tosa.const"() <{values = dense<"0x262625252625"> : tensor<6xi8>}> : () -> tensor<6xi8>
    %22 = "tosa.rescale"(%19, %20, %21, %7, %8) <{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> : (tensor<1x7x5x6xi32>, tensor<6xi32>, tensor<6xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x7x5x6xi8>
    // fused RELU
    %23 = "tosa.clamp"(%22) <{max_val = 127 : i8, min_val = -128 : i8}> : (tensor<1x7x5x6xi8>) -> tensor<1x7x5x6xi8>
    %24 = "tosa.const"() <{values = dense<"0xB6403B543F8514B56303DD2ED91A92EA5DAFB867E375E3EC99FD608D2BC938F534A397CCE458D5E399D2FF2E7123468464F4F7216109"> : tensor<3x3x6x1xi8>}> : () -> tensor<3x3x6x1xi8>
    %25 = "tosa.const"() <{values = dense<"0xA601000024FEFFFFB2FDFFFF70FEFFFF4D0200007C000000"> : tensor<6xi32>}> : () -> tensor<6xi32>
    // DEPTHWISE_CONV_2D #3
    %26 = "tosa.depthwise_conv2d"(%23, %24, %25, %8, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}> : (tensor<1x7x5x6xi8>, tensor<3x3x6x1xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x7x5x6xi32>
    %27 = "tosa.const"() <{values = dense<"0xDE727F63F41C4D53FA8E625D3E72B1638EFC227DBDE6EB61"> : tensor<6xi32>}> : () -> tensor<6xi32>
    %28 = "tosa.const"() <{values = dense<"0x242425252625"> : tensor<6xi8>}> : () -> tensor<6xi8>
    %29 = "tosa.rescale"(%26, %27, %28, %7, %8) <{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> : (tensor<1x7x5x6xi32>, tensor<6xi32>, tensor<6xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x7x5x6xi8>
    %30 = "tosa.const"() <{values = dense<"0x9BBA8315B86FC81DC9ED6C4F021EAACDD0CFE2890096549610BCEB26C31A59CC2C538148"> : tensor<6x1x1x6xi8>}> : () -> tensor<6x1x1x6xi8>
    %31 = "tosa.const"() <{values = dense<"0xF5010000020100009AFEFFFF0C010000EDFCFFFF60020000"> : tensor<6xi32>}> : () -> tensor<6xi32>
    // CONV_2D #4
    %32 = "tosa.conv2d"(%29, %30, %31, %8, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x7x5x6xi8>, tensor<6x1x1x6xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x7x5x6xi32>
    %33 = "tosa.const"() <{values = dense<"0xCF8F2F4F4A19DF7FE7FA2C796C252B492BA6DC5EA2DA8444"> : tensor<6xi32>}> : () -> tensor<6xi32>
    %34 = "tosa.const"() <{values = dense<"0x262527252526"> : tensor<6xi8>}> : () -> tensor<6xi8>
    %35 = "tosa.rescale"(%32, %33, %34, %7, %8) <{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> : (tensor<1x7x5x6xi32>, tensor<6xi32>, tensor<6xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x7x5x6xi8>
    // fused RELU
    %36 = "tosa.clamp"(%35) <{max_val = 127 : i8, min_val = -128 : i8}> : (tensor<1x7x5x6xi8>) -> tensor<1x7x5x6xi8>
    %37 = "tosa.const"() <{values = dense<"0x010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101"> : tensor<7x5x6x1xi8>}> : () -> tensor<7x5x6x1xi8>
    %38 = "tosa.const"() <{values = dense<"0x000000000000000000000000000000000000000000000000"> : tensor<6xi32>}> : () -> tensor<6xi32>
    // AVERAGE_POOL_2D #5: window sum of the raw int8 values
    %39 = "tosa.depthwise_conv2d"(%36, %37, %38, %3, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x7x5x6xi8>, tensor<7x5x6x1xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x6xi32>
    %40 = "tosa.const"() <{values = dense<35> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
    %41 = "tosa.const"() <{values = dense<17> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
    %42 = "tosa.const"() <{values = dense<0> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
    %43 = "tosa.greater"(%39, %42) : (tensor<1x1x1x6xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x6xi1>
    %44 = "tosa.add"(%39, %41) : (tensor<1x1x1x6xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x6xi32>
    %45 = "tosa.sub"(%39, %41) : (tensor<1x1x1x6xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x6xi32>
    %46 = "tosa.select"(%43, %44, %45) : (tensor<1x1x1x6xi1>, tensor<1x1x1x6xi32>, tensor<1x1x1x6xi32>) -> tensor<1x1x1x6xi32>
    %47 = "tosa.intdiv"(%46, %40) : (tensor<1x1x1x6xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x6xi32>
    %48 = "tosa.const"() <{values = dense<-128> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
    %49 = "tosa.maximum"(%47, %48) : (tensor<1x1x1x6xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x6xi32>
    %50 = "tosa.const"() <{values = dense<127> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
    %51 = "tosa.minimum"(%49, %50) : (tensor<1x1x1x6xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x6xi32>
    %52 = "tosa.cast"(%51) : (tensor<1x1x1x6xi32>) -> tensor<1x1x1x6xi8>
    %53 = "tosa.const_shape"() <{values = dense<[1, 6]> : tensor<2xindex>}> : () -> !tosa.shape<2>
    %54 = "tosa.reshape"(%52, %53) : (tensor<1x1x1x6xi8>, !tosa.shape<2>) -> tensor<1x6xi8>
    %55 = "tosa.const"() <{values = dense<"0x9FB5B79E403D753DC349C9E9090C3B9192EF3A36E10DB3B6"> : tensor<4x1x1x6xi8>}> : () -> tensor<4x1x1x6xi8>
    %56 = "tosa.const"() <{values = dense<"0x5CFFFFFFB5FFFFFF7A01000042FEFFFF"> : tensor<4xi32>}> : () -> tensor<4xi32>
    // FULLY_CONNECTED #7
    %57 = "tosa.conv2d"(%52, %55, %56, %8, %3) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x1x1x6xi8>, tensor<4x1x1x6xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x4xi32>
    %58 = "tosa.const"() <{values = dense<1374389580> : tensor<1xi32>}> : () -> tensor<1xi32>
    %59 = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
    %60 = "tosa.rescale"(%57, %58, %59, %7, %3) <{input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> : (tensor<1x1x1x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x4xi8>
    %61 = "tosa.const_shape"() <{values = dense<[1, 4]> : tensor<2xindex>}> : () -> !tosa.shape<2>
    %62 = "tosa.reshape"(%60, %61) : (tensor<1x1x1x4xi8>, !tosa.shape<2>) -> tensor<1x4xi8>
    return %62 : tensor<1x4xi8>
  }
}
