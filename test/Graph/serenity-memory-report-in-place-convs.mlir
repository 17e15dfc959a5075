// The memory model's in-place convolutions (in-place-convs, with
// fuse-requantization): on a DS-CNN whose depthwise and 1x1 layers all have
// one 7x5x6 int8 shape (210 bytes), each depthwise group (step 4: the
// rescale ending it) adds only a ring of two output rows (2 x 5 x 6 = 60
// bytes: a 3x3 SAME window reads one row above its output row) and each 1x1
// group (step 7: the clamp ending it) one input pixel (6 bytes): the results
// take their inputs' bytes. Without the option each adds a 210-byte result.
// RUN: serenity-opt %S/../Integration/pipeline/Inputs/ds-cnn-c6.mlir --serenity-memory-report="fuse-requantization=1 in-place-convs=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=IN-PLACE
// RUN: serenity-opt %S/../Integration/pipeline/Inputs/ds-cnn-c6.mlir --serenity-memory-report="fuse-requantization=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COPY
// IN-PLACE: peak 327 bytes at step 2, 26 steps
// IN-PLACE:    3  tosa.depthwise_conv2d                 210            0
// IN-PLACE-NEXT: 4  tosa.rescale                          270           60
// IN-PLACE-NEXT: 5  tosa.conv2d                           210            0
// IN-PLACE-NEXT: 6  tosa.rescale                          210            0
// IN-PLACE-NEXT: 7  tosa.clamp                            216            6
// The average pool (step 13, a depthwise conv over the whole 7x5 map) has a
// smaller result: not in place.
// IN-PLACE:    13  tosa.depthwise_conv2d                 234           24
// COPY: peak 420 bytes at step 4, 26 steps
// COPY:    4  tosa.rescale                          420          210  <- peak
// COPY:    7  tosa.clamp                            420          210
