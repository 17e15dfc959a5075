"""A small parser for the MLIR text the generators emit (one op per line),
used by the tests to check op counts, shapes, and the memory model
independently of serenity-opt."""

import re

ELEMENT_BYTES = {"f32": 4, "i32": 4, "i8": 1, "i1": 1, "f16": 2, "i16": 2, "i64": 8}

# Generator form `-> (T, ...) {` and printed form `-> T attributes {...} {`.
_SIG = re.compile(r"func\.func @(\w+)\((.*?)\) -> (.*?)(?: attributes \{.*\})? \{$")
_OP = re.compile(r'^\s*(%\w+) = ("?[\w.]+"?)(.*)$')
_RET = re.compile(r"^\s*return (.*) : ")


def type_shape(ty):
    """``tensor<1x2x3xf32>`` -> ((1, 2, 3), 'f32'); non-tensors -> (None, None)."""
    m = re.match(r"tensor<([^>]*)>", ty.strip())
    if not m:
        return None, None
    parts = m.group(1).split("x")
    return tuple(int(p) for p in parts[:-1]), parts[-1]


def type_bytes(ty):
    shape, elem = type_shape(ty)
    if shape is None:
        return 0
    n = ELEMENT_BYTES[elem]
    for d in shape:
        n *= d
    return n


class Op:
    def __init__(self, name, result, operands, result_type):
        self.name = name
        self.result = result
        self.operands = operands
        self.result_type = result_type


class Function:
    def __init__(self, text):
        self.args = []       # (name, type)
        self.ops = []        # every op line, constants included
        self.returned = []
        self.result_types = []
        for line in text.splitlines():
            sig = _SIG.search(line)
            if sig:
                for arg in filter(None, [a.strip() for a in sig.group(2).split(",")]):
                    name, ty = arg.split(":", 1)
                    self.args.append((name.strip(), ty.strip()))
                self.result_types = [t.strip() for t in re.findall(r"tensor<[^>]*>", sig.group(3))]
                continue
            ret = _RET.match(line)
            if ret:
                self.returned = re.findall(r"%\w+", ret.group(1))
                continue
            m = _OP.match(line)
            if not m:
                continue
            result, name, rest = m.groups()
            name = name.strip('"')
            # Operands come before the attribute dictionary / type signature.
            head = re.split(r" \{| : |\(\) ", rest, maxsplit=1)[0]
            operands = re.findall(r"%\w+", head)
            rtype = rest.rsplit("-> ", 1)[1].split(" loc(")[0].strip()
            self.ops.append(Op(name, result, operands, rtype))

    @property
    def scheduled(self):
        """Ops the memory model schedules: everything but constants."""
        return [op for op in self.ops if op.name not in ("tosa.const", "tosa.const_shape", "arith.constant")]

    def op_counts(self):
        counts = {}
        for op in self.scheduled:
            counts[op.name] = counts.get(op.name, 0) + 1
        return counts


VIEW_LIKE = ("tosa.reshape", "tosa.identity", "tosa.slice", "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape")


def simulate(fn):
    """DESIGN.md's memory model on program order; returns (peak, live per step)."""
    steps = fn.scheduled
    n = len(steps)
    root = {}
    size = {}
    define = {}
    for name, ty in fn.args:
        root[name] = name
        size[name] = type_bytes(ty)
        define[name] = -1
    for t, op in enumerate(steps):
        if op.name in VIEW_LIKE:
            root[op.result] = root[op.operands[0]]
        else:
            root[op.result] = op.result
            size[op.result] = type_bytes(op.result_type)
            define[op.result] = t
    last = {}
    for t, op in enumerate(steps):
        for v in op.operands:
            if v in root:
                r = root[v]
                last[r] = max(last.get(r, -1), t)
    for v in fn.returned:
        last[root[v]] = n
    live = []
    for t, op in enumerate(steps):
        usage = 0
        for b, d in define.items():
            if d < t and last.get(b, -1) >= t:
                usage += size[b]
            elif d == t:
                usage += size[b]
        live.append(usage)
    return (max(live) if live else 0), live
