"""Textual TOSA v22 emitter: a small builder for one ``func.func @main``.

MLIR 22 has no Python bindings on Debian, so networks are written as text.
The builder knows the TOSA v22 operand lists (conv2d with zero points,
``tosa.const`` with ``values``, reshape/slice shapes from ``tosa.const_shape``,
mul with a ``shift`` operand, pools with TOSA's exact-division rule) so the
network generators only describe layers.

Element types: ``f32`` (everything) or ``i8``.  With ``i8`` the builder writes
what a TFLite-to-TOSA importer writes for a quantized model: convolutions
accumulate into ``i32`` and are followed by ``tosa.rescale`` back to ``i8``;
``add`` and ``mean`` rescale their ``i8`` inputs to ``i32``, add, and rescale
back (TOSA's integer profile has no ``i8`` add).  Scales are fixed
deterministic values: the IR is for memory planning, not for accuracy.
"""

import random
import struct

ELEMENT_BYTES = {"f32": 4, "i32": 4, "i8": 1}

#: Tensors with more elements than this get a splat constant even when random
#: weights are requested, so files stay small.
MAX_RANDOM_ELEMENTS = 16384

# Fixed-point rescale constants: multiplier 2^30 with shift s scales by 2^(30-s).
_ONE_MULTIPLIER = 1 << 30


class Value:
    """An SSA value with a static shape and element type."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def channels(self):
        return self.shape[-1]

    @property
    def nbytes(self):
        n = ELEMENT_BYTES[self.dtype]
        for d in self.shape:
            n *= d
        return n

    def __repr__(self):
        return "Value(%s: %s)" % (self.name, self.type)


def tensor_type(shape, dtype):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [dtype])


def pool_or_conv_pad(size, kernel, stride, dilation, padding):
    """Returns (before, after, out) for one spatial axis.

    ``padding`` is ``"same"`` (TensorFlow: out = ceil(size / stride), extra
    padding at the end), ``"valid"``, or an int p (PyTorch symmetric padding:
    out = floor((size + 2p - eff) / stride) + 1).  The trailing pad is chosen
    so the TOSA rule "size - 1 + pads - (k - 1) * d divisible by stride" holds.
    A negative ``after`` means the last ``-after`` rows are never read and must
    be cropped (TOSA pads cannot be negative): see ``FunctionBuilder._crop``.
    """
    eff = (kernel - 1) * dilation + 1
    if padding == "same":
        out = -(-size // stride)
        total = (out - 1) * stride + eff - size
        if total < 0:
            return 0, total, out
        before = total // 2
        return before, total - before, out
    before = 0 if padding == "valid" else int(padding)
    out = (size + 2 * before - eff) // stride + 1
    if out < 1:
        raise ValueError("kernel %d does not fit input %d" % (kernel, size))
    after = (out - 1) * stride + eff - size - before
    return before, after, out


class FunctionBuilder:
    """Accumulates the body of ``func.func @main`` in program order.

    Constants are emitted right before their first use (they are not scheduled
    ops: weights live in ROM).  Each op gets a ``loc("layer/name")`` so reports
    name framework layers.
    """

    def __init__(self, dtype="f32", seed=0, weights="splat", func_name="main"):
        if dtype not in ("f32", "i8"):
            raise ValueError("dtype must be f32 or i8, got %r" % dtype)
        if weights not in ("splat", "random"):
            raise ValueError("weights must be splat or random, got %r" % weights)
        self.dtype = dtype
        self.weights = weights
        self.rng = random.Random(seed)
        self.func_name = func_name
        self.inputs = []
        self.lines = []
        self._names = {}
        self._shared_consts = {}
        self.scope = []

    # -- naming --------------------------------------------------------------
    def _fresh(self, hint):
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "v"
        if hint[0].isdigit():
            hint = "v" + hint
        n = self._names.get(hint, 0)
        self._names[hint] = n + 1
        return "%" + (hint if n == 0 else "%s_%d" % (hint, n))

    def _loc(self, name):
        return 'loc("%s")' % "/".join(self.scope + [name])

    def push_scope(self, name):
        self.scope.append(name)

    def pop_scope(self):
        self.scope.pop()

    def _prefix(self):
        return "_".join(self.scope)

    def _hint(self, name):
        prefix = self._prefix()
        return prefix + "_" + name if prefix else name

    # -- values --------------------------------------------------------------
    def input(self, shape, name="input"):
        value = Value(self._fresh(name), shape, self.dtype)
        self.inputs.append(value)
        return value

    def _emit(self, name, text, shape, dtype):
        value = Value(self._fresh(self._hint(name)), shape, dtype)
        self.lines.append("  %s = %s %s" % (value.name, text, self._loc(name)))
        return value

    def _const(self, shape, dtype, literal, hint="c"):
        ty = tensor_type(shape, dtype)
        value = Value(self._fresh(hint), shape, dtype)
        self.lines.append('  %s = "tosa.const"() {values = %s : %s} : () -> %s'
                          % (value.name, literal, ty, ty))
        return value

    def _shared(self, key, shape, dtype, literal):
        """Small constants (zero points, shifts) reused by every op."""
        if key not in self._shared_consts:
            self._shared_consts[key] = self._const(shape, dtype, literal, key)
        return self._shared_consts[key]

    def zero_point(self, dtype):
        literal = "dense<0.0>" if dtype == "f32" else "dense<0>"
        return self._shared("zp_" + dtype, (1,), dtype, literal)

    def _shift0(self):
        return self._shared("shift0", (1,), "i8", "dense<0>")

    def weight(self, shape, fan_in, dtype=None, hint="w"):
        """A deterministic weight tensor (splat or seeded pseudo-random)."""
        dtype = dtype or self.dtype
        count = 1
        for d in shape:
            count *= d
        if dtype == "f32":
            scale = 1.0 / max(fan_in, 1) ** 0.5
            if self.weights == "random" and count <= MAX_RANDOM_ELEMENTS:
                data = struct.pack("<%df" % count,
                                   *[self.rng.uniform(-scale, scale) for _ in range(count)])
                literal = 'dense<"0x%s">' % data.hex().upper()
            else:
                literal = "dense<%s>" % _float_literal(self.rng.uniform(0.25, 1.0) * scale)
        else:
            low, high = (-127, 127) if dtype == "i8" else (-1024, 1024)
            if self.weights == "random" and count <= MAX_RANDOM_ELEMENTS:
                fmt = "<%db" % count if dtype == "i8" else "<%di" % count
                data = struct.pack(fmt, *[self.rng.randint(low, high) for _ in range(count)])
                literal = 'dense<"0x%s">' % data.hex().upper()
            else:
                literal = "dense<%d>" % self.rng.randint(1, 8)
        return self._const(shape, dtype, literal, hint)

    # -- layers --------------------------------------------------------------
    def conv2d(self, x, out_channels, kernel=1, stride=1, padding="same",
               dilation=1, name="conv"):
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride)
        dh, dw = _pair(dilation)
        x, (pt, pb, oh), (pl, pr, ow) = self._crop(x, (kh, kw), (sh, sw), (dh, dw), padding, name)
        n, h, w, c = x.shape
        acc = "f32" if self.dtype == "f32" else "i32"
        wt = self.weight((out_channels, kh, kw, c), kh * kw * c, hint=self._hint(name) + "_w")
        bias = self.weight((out_channels,), kh * kw * c, dtype=acc, hint=self._hint(name) + "_b")
        zp = self.zero_point(self.dtype)
        out_shape = (n, oh, ow, out_channels)
        text = ("tosa.conv2d %s, %s, %s, %s, %s {acc_type = %s, pad = array<i64: %d, %d, %d, %d>, "
                "stride = array<i64: %d, %d>, dilation = array<i64: %d, %d>} : (%s, %s, %s, %s, %s) -> %s"
                % (x.name, wt.name, bias.name, zp.name, zp.name, acc, pt, pb, pl, pr, sh, sw, dh, dw,
                   x.type, wt.type, bias.type, zp.type, zp.type, tensor_type(out_shape, acc)))
        out = self._emit(name, text, out_shape, acc)
        return self._requantize(out, name) if acc != self.dtype else out

    def depthwise_conv2d(self, x, kernel=3, stride=1, padding="same", dilation=1,
                         multiplier=1, name="dw"):
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride)
        dh, dw = _pair(dilation)
        x, (pt, pb, oh), (pl, pr, ow) = self._crop(x, (kh, kw), (sh, sw), (dh, dw), padding, name)
        n, h, w, c = x.shape
        acc = "f32" if self.dtype == "f32" else "i32"
        wt = self.weight((kh, kw, c, multiplier), kh * kw, hint=self._hint(name) + "_w")
        bias = self.weight((c * multiplier,), kh * kw, dtype=acc, hint=self._hint(name) + "_b")
        zp = self.zero_point(self.dtype)
        out_shape = (n, oh, ow, c * multiplier)
        text = ("tosa.depthwise_conv2d %s, %s, %s, %s, %s {acc_type = %s, pad = array<i64: %d, %d, %d, %d>, "
                "stride = array<i64: %d, %d>, dilation = array<i64: %d, %d>} : (%s, %s, %s, %s, %s) -> %s"
                % (x.name, wt.name, bias.name, zp.name, zp.name, acc, pt, pb, pl, pr, sh, sw, dh, dw,
                   x.type, wt.type, bias.type, zp.type, zp.type, tensor_type(out_shape, acc)))
        out = self._emit(name, text, out_shape, acc)
        return self._requantize(out, name) if acc != self.dtype else out

    def _crop(self, x, kernel, stride, dilation, padding, name):
        """Computes the pads of a conv/pool; crops rows/columns it never reads
        with a ``tosa.slice`` (e.g. a 1x1 stride-2 conv on an even size)."""
        n, h, w, c = x.shape
        ph = pool_or_conv_pad(h, kernel[0], stride[0], dilation[0], padding)
        pw = pool_or_conv_pad(w, kernel[1], stride[1], dilation[1], padding)
        if ph[1] >= 0 and pw[1] >= 0:
            return x, ph, pw
        h2, w2 = h + min(ph[1], 0), w + min(pw[1], 0)
        x = self.slice(x, (0, 0, 0, 0), (n, h2, w2, c), name + "_crop")
        return (x, (ph[0], max(ph[1], 0), ph[2]), (pw[0], max(pw[1], 0), pw[2]))

    def fully_connected(self, x, units, name="fc"):
        """Dense layer on a ``1x1x1xK`` tensor as a 1x1 conv2d (as TFLite's
        FULLY_CONNECTED legalizes to TOSA 1.0, which has no fully_connected)."""
        if x.shape[1:3] != (1, 1):
            raise ValueError("fully_connected expects 1x1 spatial input, got %s" % (x.shape,))
        return self.conv2d(x, units, kernel=1, name=name)

    def _rescale(self, x, out_dtype, shift, name, multiplier=_ONE_MULTIPLIER):
        mult = self._shared("mult_%d" % multiplier, (1,), "i32", "dense<%d>" % multiplier)
        sh = self._shared("shift_%d" % shift, (1,), "i8", "dense<%d>" % shift)
        izp = self.zero_point(x.dtype)
        ozp = self.zero_point(out_dtype)
        text = ("tosa.rescale %s, %s, %s, %s, %s {scale32 = true, rounding_mode = SINGLE_ROUND, "
                "per_channel = false, input_unsigned = false, output_unsigned = false} "
                ": (%s, %s, %s, %s, %s) -> %s"
                % (x.name, mult.name, sh.name, izp.name, ozp.name, x.type, mult.type, sh.type,
                   izp.type, ozp.type, tensor_type(x.shape, out_dtype)))
        return self._emit(name, text, x.shape, out_dtype)

    def _requantize(self, acc, name):
        # Scale 2^-8 brings a typical i32 accumulator back into i8 range.
        return self._rescale(acc, "i8", 38, name + "_rescale")

    def relu(self, x, max_value=None, name="relu"):
        if x.dtype == "f32":
            hi = "3.4028235e+38" if max_value is None else _float_literal(max_value)
            attrs = "min_val = 0.0 : f32, max_val = %s : f32" % hi
        else:
            # Quantized ReLU/ReLU6 clamp at the zero point and the scaled
            # maximum; with fixed scales 6.0 maps to the top of the range.
            attrs = "min_val = 0 : i8, max_val = 127 : i8"
        text = "tosa.clamp %s {%s} : (%s) -> %s" % (x.name, attrs, x.type, x.type)
        return self._emit(name, text, x.shape, x.dtype)

    def relu6(self, x, name="relu6"):
        return self.relu(x, 6.0, name)

    def add(self, a, b, name="add"):
        _check_same(a, b, "add")
        if a.dtype == "f32":
            text = "tosa.add %s, %s : (%s, %s) -> %s" % (a.name, b.name, a.type, b.type, a.type)
            return self._emit(name, text, a.shape, a.dtype)
        a32 = self._rescale(a, "i32", 30, name + "_lhs")
        b32 = self._rescale(b, "i32", 30, name + "_rhs")
        text = "tosa.add %s, %s : (%s, %s) -> %s" % (a32.name, b32.name, a32.type, b32.type, a32.type)
        s = self._emit(name, text, a.shape, "i32")
        return self._rescale(s, "i8", 31, name + "_rescale")

    def sum(self, values, name="sum"):
        """Left-to-right chain of adds (one add per extra operand)."""
        acc = values[0]
        for i, v in enumerate(values[1:]):
            acc = self.add(acc, v, name if len(values) == 2 else "%s%d" % (name, i))
        return acc

    def mean(self, values, name="mean"):
        """Elementwise mean: adds, then a multiply (f32) or rescale (i8) by 1/k."""
        k = len(values)
        if k == 1:
            return values[0]
        for v in values[1:]:
            _check_same(values[0], v, "mean")
        if self.dtype == "f32":
            acc = self.sum(values, name + "_sum")
            rank = len(acc.shape)
            c = self._const((1,) * rank, "f32", "dense<%s>" % _float_literal(1.0 / k), self._hint(name) + "_scale")
            sh = self._shift0()
            text = "tosa.mul %s, %s, %s : (%s, %s, %s) -> %s" % (
                acc.name, c.name, sh.name, acc.type, c.type, sh.type, acc.type)
            return self._emit(name, text, acc.shape, acc.dtype)
        wide = [self._rescale(v, "i32", 30, "%s_in%d" % (name, i)) for i, v in enumerate(values)]
        acc = wide[0]
        for i, v in enumerate(wide[1:]):
            text = "tosa.add %s, %s : (%s, %s) -> %s" % (acc.name, v.name, acc.type, v.type, acc.type)
            acc = self._emit("%s_sum%d" % (name, i), text, acc.shape, "i32")
        return self._rescale(acc, "i8", 30, name, multiplier=_ONE_MULTIPLIER // k)

    def concat(self, values, axis=3, name="concat"):
        if len(values) == 1:
            return values[0]
        shape = list(values[0].shape)
        shape[axis] = sum(v.shape[axis] for v in values)
        for v in values[1:]:
            if v.dtype != values[0].dtype or any(
                    d != e for i, (d, e) in enumerate(zip(v.shape, values[0].shape)) if i != axis):
                raise ValueError("concat of incompatible %s and %s" % (values[0], v))
        text = "tosa.concat %s {axis = %d : i32} : (%s) -> %s" % (
            ", ".join(v.name for v in values), axis, ", ".join(v.type for v in values),
            tensor_type(shape, values[0].dtype))
        return self._emit(name, text, shape, values[0].dtype)

    def max_pool2d(self, x, kernel=3, stride=1, padding=1, name="maxpool"):
        return self._pool("max_pool2d", x, kernel, stride, padding, name)

    def avg_pool2d(self, x, kernel=3, stride=1, padding=1, name="avgpool"):
        return self._pool("avg_pool2d", x, kernel, stride, padding, name)

    def global_avg_pool(self, x, name="gap"):
        n, h, w, c = x.shape
        return self._pool("avg_pool2d", x, (h, w), 1, "valid", name)

    def classifier(self, x, classes):
        """The usual head in scope ``classifier``: global average pool, a
        fully connected layer to ``classes``, reshape to ``1 x classes``."""
        self.push_scope("classifier")
        h = self.global_avg_pool(x)
        h = self.fully_connected(h, classes)
        out = self.reshape(h, (1, classes))
        self.pop_scope()
        return out

    def _pool(self, kind, x, kernel, stride, padding, name):
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride)
        x, (pt, pb, oh), (pl, pr, ow) = self._crop(x, (kh, kw), (sh, sw), (1, 1), padding, name)
        n, h, w, c = x.shape
        out_shape = (n, oh, ow, c)
        attrs = ("kernel = array<i64: %d, %d>, stride = array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>"
                 % (kh, kw, sh, sw, pt, pb, pl, pr))
        if kind == "max_pool2d":
            text = "tosa.max_pool2d %s {%s} : (%s) -> %s" % (x.name, attrs, x.type, tensor_type(out_shape, x.dtype))
        else:
            zp = self.zero_point(x.dtype)
            acc = "f32" if x.dtype == "f32" else "i32"
            text = "tosa.avg_pool2d %s, %s, %s {%s, acc_type = %s} : (%s, %s, %s) -> %s" % (
                x.name, zp.name, zp.name, attrs, acc, x.type, zp.type, zp.type, tensor_type(out_shape, x.dtype))
        return self._emit(name, text, out_shape, x.dtype)

    def _const_shape(self, dims, hint):
        value = self._fresh(hint)
        self.lines.append("  %s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                          % (value, ", ".join(str(d) for d in dims), len(dims), len(dims)))
        return value

    def reshape(self, x, shape, name="reshape"):
        count = 1
        for d in shape:
            count *= d
        if count * ELEMENT_BYTES[x.dtype] != x.nbytes:
            raise ValueError("reshape %s to %s changes the element count" % (x, shape))
        s = self._const_shape(shape, self._hint(name) + "_shape")
        text = "tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s" % (
            x.name, s, x.type, len(shape), tensor_type(shape, x.dtype))
        return self._emit(name, text, shape, x.dtype)

    def slice(self, x, start, size, name="slice"):
        s0 = self._const_shape(start, self._hint(name) + "_start")
        s1 = self._const_shape(size, self._hint(name) + "_size")
        text = "tosa.slice %s, %s, %s : (%s, !tosa.shape<%d>, !tosa.shape<%d>) -> %s" % (
            x.name, s0, s1, x.type, len(start), len(size), tensor_type(size, x.dtype))
        return self._emit(name, text, size, x.dtype)

    # -- output --------------------------------------------------------------
    def render(self, outputs, header=None):
        """Returns the module text with ``outputs`` returned from ``@main``."""
        if isinstance(outputs, Value):
            outputs = [outputs]
        args = ", ".join("%s: %s" % (v.name, v.type) for v in self.inputs)
        results = ", ".join(v.type for v in outputs)
        lines = []
        if header:
            lines.extend("// " + line if line else "//" for line in header.splitlines())
        lines.append("func.func @%s(%s) -> (%s) {" % (self.func_name, args, results))
        lines.extend(self.lines)
        lines.append("  return %s : %s" % (", ".join(v.name for v in outputs), results))
        lines.append("}")
        return "\n".join(lines) + "\n"


def _pair(v):
    if isinstance(v, (tuple, list)):
        return int(v[0]), int(v[1])
    return int(v), int(v)


def _check_same(a, b, what):
    if a.shape != b.shape or a.dtype != b.dtype:
        raise ValueError("%s of mismatched %s and %s" % (what, a, b))


def _float_literal(x):
    # Round-trips through MLIR's float parser and always has a decimal point.
    text = repr(float("%.6g" % x))
    return text if ("." in text or "e" in text) else text + ".0"
