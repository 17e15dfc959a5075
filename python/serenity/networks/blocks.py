"""Concat-heavy blocks: DenseNet dense block, Inception-v1 module, SqueezeNet
fire module.  BatchNorm is folded into conv biases; layer order follows the
torchvision reference implementations."""

from . import network


@network("densenet-block", "DenseNet-BC dense block: per layer concat -> ReLU -> 1x1 (4k) -> ReLU -> 3x3 (k)",
         channels=64, resolution=56, layers=6, growth=32)
def densenet_block(b, channels, resolution, layers, growth, seed):
    """torchvision ``_DenseBlock``: layer i concatenates the block input and
    the i previous layer outputs (no concat for layer 0), the block output is
    the concat of all of them (DenseNet-121 block 1 by default)."""
    x = b.input((1, resolution, resolution, channels))
    features = [x]
    for i in range(layers):
        b.push_scope("layer%d" % i)
        h = b.concat(features)
        h = b.relu(h, name="relu1")
        h = b.conv2d(h, 4 * growth, kernel=1, name="conv1")
        h = b.relu(h, name="relu2")
        h = b.conv2d(h, growth, kernel=3, padding=1, name="conv2")
        features.append(h)
        b.pop_scope()
    b.push_scope("block")
    out = b.concat(features)
    b.pop_scope()
    return out


@network("inception-module", "Inception-v1 module (GoogLeNet 3a widths): 1x1 | 1x1-3x3 | 1x1-5x5 | pool-1x1, concat; "
         "next_conv > 0 appends a 1x1 conv of that width reading the concat",
         channels=192, resolution=28, b1=64, b2_reduce=96, b2=128, b3_reduce=16, b3=32, b4=32, next_conv=0)
def inception_module(b, channels, resolution, b1, b2_reduce, b2, b3_reduce, b3, b4, next_conv, seed):
    """With ``next_conv`` the module is followed by a 1x1 conv (the next
    layer's first op), so the concat has a conv user as in a whole network."""
    x = b.input((1, resolution, resolution, channels))
    branches = []
    b.push_scope("branch1")
    branches.append(b.relu(b.conv2d(x, b1, kernel=1)))
    b.pop_scope()
    b.push_scope("branch2")
    h = b.relu(b.conv2d(x, b2_reduce, kernel=1, name="reduce"), name="relu_reduce")
    branches.append(b.relu(b.conv2d(h, b2, kernel=3, padding=1)))
    b.pop_scope()
    b.push_scope("branch3")
    h = b.relu(b.conv2d(x, b3_reduce, kernel=1, name="reduce"), name="relu_reduce")
    branches.append(b.relu(b.conv2d(h, b3, kernel=5, padding=2)))
    b.pop_scope()
    b.push_scope("branch4")
    h = b.max_pool2d(x, 3, 1, padding=1)
    branches.append(b.relu(b.conv2d(h, b4, kernel=1)))
    b.pop_scope()
    return _next_conv(b, b.concat(branches), next_conv)


@network("fire-module", "SqueezeNet fire module (fire2): squeeze 1x1 -> expand 1x1 | expand 3x3, concat; "
         "next_conv > 0 appends a 1x1 conv of that width (the next squeeze) reading the concat",
         channels=96, resolution=55, squeeze=16, expand=64, next_conv=0)
def fire_module(b, channels, resolution, squeeze, expand, next_conv, seed):
    x = b.input((1, resolution, resolution, channels))
    s = b.relu(b.conv2d(x, squeeze, kernel=1, name="squeeze"), name="squeeze_relu")
    e1 = b.relu(b.conv2d(s, expand, kernel=1, name="expand1x1"), name="expand1x1_relu")
    e3 = b.relu(b.conv2d(s, expand, kernel=3, padding=1, name="expand3x3"), name="expand3x3_relu")
    return _next_conv(b, b.concat([e1, e3]), next_conv)


def _next_conv(b, x, channels):
    """``x`` itself when ``channels`` is 0, else a 1x1 conv of ``x`` with
    ``channels`` outputs (scope ``next``)."""
    if channels < 0:
        raise ValueError("next_conv must be >= 0, got %d" % channels)
    if channels == 0:
        return x
    b.push_scope("next")
    out = b.conv2d(x, channels, kernel=1)
    b.pop_scope()
    return out


@network("residual-concat", "test network with every lowering case at once: padded 3x3 stem, residual block "
         "(add), two branches (1x1 | 3x3) concatenated, global pool and fully connected classifier",
         channels=8, resolution=16, classes=10)
def residual_concat(b, channels, resolution, classes, seed):
    x = b.input((1, resolution, resolution, 3))
    b.push_scope("stem")
    h = b.relu(b.conv2d(x, channels, kernel=3, padding="same"))
    b.pop_scope()
    b.push_scope("residual")
    y = b.relu(b.conv2d(h, channels, kernel=3, padding="same", name="conv1"), name="relu1")
    y = b.conv2d(y, channels, kernel=3, padding="same", name="conv2")
    h = b.relu(b.add(h, y), name="relu2")
    b.pop_scope()
    b.push_scope("branches")
    e1 = b.relu(b.conv2d(h, channels, kernel=1, name="conv1x1"), name="relu1x1")
    e3 = b.relu(b.conv2d(h, channels, kernel=3, padding="same", name="conv3x3"), name="relu3x3")
    h = b.concat([e1, e3])
    b.pop_scope()
    return b.classifier(h, classes)
