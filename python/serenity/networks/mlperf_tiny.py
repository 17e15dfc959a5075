"""MLPerf Tiny reference models from their published Keras layer lists
(mlcommons/tiny ``benchmark/training/*/keras_model.py``).  BatchNorm is folded,
Dropout is an inference no-op, the final softmax is omitted (TOSA 1.0 has no
softmax op; it is a scalar-sized tail).  Keras ``padding='same'`` uses
TensorFlow's padding (extra row at the end)."""

from . import network


@network("kws-dscnn", "MLPerf Tiny keyword spotting DS-CNN: 49x10x1 MFCC, conv 10x4 s2 (64), 4 x (dw 3x3, pw 1x1)",
         channels=64, classes=12)
def kws_dscnn(b, channels, classes, seed):
    x = b.input((1, 49, 10, 1))
    b.push_scope("conv1")
    h = b.relu(b.conv2d(x, channels, kernel=(10, 4), stride=2, padding="same"))
    b.pop_scope()
    for i in range(4):
        b.push_scope("dwsep%d" % (i + 1))
        h = b.relu(b.depthwise_conv2d(h, 3, 1, padding="same"), name="dw_relu")
        h = b.relu(b.conv2d(h, channels, kernel=1, name="pw"), name="pw_relu")
        b.pop_scope()
    b.push_scope("classifier")
    # keras_model.py: AveragePooling2D(pool_size=(49 // 2, 10 // 2)), valid padding.
    h = b.avg_pool2d(h, (49 // 2, 10 // 2), (49 // 2, 10 // 2), padding="valid")
    h = b.fully_connected(h, classes)
    out = b.reshape(h, (1, classes))
    b.pop_scope()
    return out


@network("resnet8", "MLPerf Tiny image classification ResNet-8: 32x32x3, stacks of 16/32/64 channels",
         channels=16, resolution=32, classes=10)
def resnet8(b, channels, resolution, classes, seed):
    """``resnet_v1_eembc``: conv 3x3 -> three residual stacks (the second and
    third downsample with a stride-2 3x3 conv and a 1x1 stride-2 shortcut)
    -> average pool over the whole map -> dense."""
    x = b.input((1, resolution, resolution, 3))
    b.push_scope("stem")
    h = b.relu(b.conv2d(x, channels, kernel=3, padding="same"))
    b.pop_scope()
    for stack, stride in enumerate((1, 2, 2)):
        c = channels << stack
        b.push_scope("stack%d" % (stack + 1))
        y = b.relu(b.conv2d(h, c, kernel=3, stride=stride, padding="same", name="conv1"), name="relu1")
        y = b.conv2d(y, c, kernel=3, padding="same", name="conv2")
        if stride != 1:
            h = b.conv2d(h, c, kernel=1, stride=stride, padding="same", name="shortcut")
        h = b.relu(b.add(h, y), name="relu2")
        b.pop_scope()
    return b.classifier(h, classes)


# Dense layer widths of the anomaly-detection autoencoder (ad01).
FC_AUTOENCODER_UNITS = [128, 128, 128, 128, 8, 128, 128, 128, 128]


@network("fc-autoencoder", "MLPerf Tiny anomaly detection FC autoencoder 640-128x4-8-128x4-640",
         features=640)
def fc_autoencoder(b, features, seed):
    """Dense layers as 1x1 conv2d on a 1x1x1xK view (reshape in and out)."""
    x = b.input((1, features))
    h = b.reshape(x, (1, 1, 1, features), "flatten_in")
    for i, units in enumerate(FC_AUTOENCODER_UNITS):
        b.push_scope("dense%d" % (i + 1))
        h = b.relu(b.fully_connected(h, units))
        b.pop_scope()
    b.push_scope("dense%d" % (len(FC_AUTOENCODER_UNITS) + 1))
    h = b.fully_connected(h, features)
    b.pop_scope()
    return b.reshape(h, (1, features), "flatten_out")
