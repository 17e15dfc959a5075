"""MobileNetV2 (Sandler et al. 2018) and MobileNetV1 as the MLPerf Tiny
Visual Wake Words model.  BatchNorm folded; ReLU6 is a clamp to [0, 6]."""

from . import network

# (expansion t, output channels c, repeats n, first stride s): Table 2 of the paper.
MOBILENETV2_BLOCKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                      (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def make_divisible(v, divisor=8):
    """torchvision's channel rounding for width multipliers."""
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new < 0.9 * v:
        new += divisor
    return new


@network("mobilenetv2", "MobileNetV2 (ImageNet); --channels is the stem width (32 = width 1.0)",
         channels=32, resolution=224, classes=1000)
def mobilenetv2(b, channels, resolution, classes, seed):
    width = channels / 32.0
    x = b.input((1, resolution, resolution, 3))
    b.push_scope("stem")
    h = b.relu6(b.conv2d(x, make_divisible(32 * width), kernel=3, stride=2, padding=1))
    b.pop_scope()
    index = 0
    for t, c, n, s in MOBILENETV2_BLOCKS:
        out_c = make_divisible(c * width)
        for i in range(n):
            stride = s if i == 0 else 1
            b.push_scope("block%d" % index)
            inp = h
            if t != 1:
                h = b.relu6(b.conv2d(h, inp.channels * t, kernel=1, name="expand"), name="expand_relu6")
            h = b.relu6(b.depthwise_conv2d(h, 3, stride, padding=1), name="dw_relu6")
            h = b.conv2d(h, out_c, kernel=1, name="project")
            if stride == 1 and inp.channels == out_c:
                h = b.add(inp, h, name="residual")
            b.pop_scope()
            index += 1
    b.push_scope("head")
    h = b.relu6(b.conv2d(h, max(1280, make_divisible(1280 * width)), kernel=1))
    h = b.global_avg_pool(h)
    h = b.fully_connected(h, classes)
    out = b.reshape(h, (1, classes))
    b.pop_scope()
    return out


# MobileNetV1 depthwise-separable layers: (pointwise output channels at alpha 1, depthwise stride).
MOBILENETV1_LAYERS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
                      (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]


@network("vww", "MLPerf Tiny Visual Wake Words: MobileNetV1 alpha 0.25, 96x96x3, 2 classes (softmax omitted)",
         resolution=96, alpha=0.25, classes=2)
def vww(b, resolution, alpha, classes, seed):
    """mlcommons/tiny visual_wake_words ``mobilenet_v1``: conv 3x3 s2 (32a),
    13 x (dw 3x3 + ReLU6, pw 1x1 + ReLU6), global average pool, dense."""
    x = b.input((1, resolution, resolution, 3))
    b.push_scope("conv1")
    h = b.relu6(b.conv2d(x, int(32 * alpha), kernel=3, stride=2, padding="same"))
    b.pop_scope()
    for i, (c, s) in enumerate(MOBILENETV1_LAYERS):
        b.push_scope("dwsep%d" % (i + 1))
        h = b.relu6(b.depthwise_conv2d(h, 3, s, padding="same"), name="dw_relu6")
        h = b.relu6(b.conv2d(h, int(c * alpha), kernel=1, name="pw"), name="pw_relu6")
        b.pop_scope()
    return b.classifier(h, classes)
