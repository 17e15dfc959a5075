// serenity-int8-conv-kernels (plain and vector arithmetic) against
// convert-linalg-to-loops on 180 seeded random int8 convolutions and
// depthwise convolutions (windows, strides, dilations, channel counts, zero
// points, filter views sliced in output channels with unit or larger steps,
// clipped windows, some of the input channels), run by mlir-runner. The
// build before the zero-point fold's view checks failed 13 of them.
// RUN: %python %integration/int8_conv_views.py --seed 1 --cases 60 | FileCheck %s
// RUN: %python %integration/int8_conv_views.py --seed 2 --cases 60 | FileCheck %s
// RUN: %python %integration/int8_conv_views.py --seed 3 --cases 60 | FileCheck %s
// The Helium kernels' loops (16-byte vectors, masked tails; generic vector
// arithmetic on the host) with channel counts up to 40 as well:
// RUN: %python %integration/int8_conv_views.py --seed 4 --cases 60 --target generic-vector --wide | FileCheck %s
// RUN: %python %integration/int8_conv_views.py --seed 5 --cases 60 --target generic-vector --wide | FileCheck %s
// RUN: %python %integration/int8_conv_views.py --seed 6 --cases 60 --target generic-vector | FileCheck %s
// RUN: %python %integration/int8_conv_views.py --seed 8 --cases 60 --target generic-vector --wide | FileCheck %s
// CHECK: int8 conv views: 60 cases, 60 outputs, 0 differ
