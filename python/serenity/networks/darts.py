"""DARTS cells (Liu et al., "DARTS: Differentiable Architecture Search", 2019).

Genotypes are parsed from ``cnn/genotypes.py``-style text: the verbatim text of
the DARTS repository in ``../shared/models/darts`` when it is there (or a file
given with ``genotype_file``), else the package's own copy of DARTS_V1 and
DARTS_V2 (:data:`BUILTIN_GENOTYPES`, the two genotypes of the paper; a test
checks it equals the repository's text).  The cell follows ``cnn/model.py``:

* preprocess: each input -> ReLU -> 1x1 conv to C (BN folded); input 0 uses
  FactorizedReduce when the previous cell was a reduction cell;
* intermediate node i = op_a(state_a) + op_b(state_b); in a reduction cell ops
  that read the two cell inputs have stride 2;
* output = concat of the ``*_concat`` states (4C channels).

Operations (``cnn/operations.py``): sep_conv_3x3 = (ReLU, dw 3x3, pw 1x1) twice;
dil_conv_3x3 = ReLU, dw 3x3 dilation 2 pad 2, pw 1x1; max/avg_pool_3x3 with
pad 1 (TOSA avg_pool2d excludes padding like count_include_pad=False);
skip_connect = identity (no op) at stride 1, FactorizedReduce at stride 2.
"""

import ast
import os

from . import network

DEFAULT_GENOTYPE = "DARTS_V2"

# DARTS_V1 (first order) and DARTS_V2 (second order), the cells of Liu et al.
# 2019 (Fig. 4 and 5), in the syntax of the DARTS repository's
# cnn/genotypes.py; used when ../shared is absent.
BUILTIN_GENOTYPES = """
DARTS_V1 = Genotype(normal=[('sep_conv_3x3', 1), ('sep_conv_3x3', 0), ('skip_connect', 0), ('sep_conv_3x3', 1),
                            ('skip_connect', 0), ('sep_conv_3x3', 1), ('sep_conv_3x3', 0), ('skip_connect', 2)],
                    normal_concat=[2, 3, 4, 5],
                    reduce=[('max_pool_3x3', 0), ('max_pool_3x3', 1), ('skip_connect', 2), ('max_pool_3x3', 0),
                            ('max_pool_3x3', 0), ('skip_connect', 2), ('skip_connect', 2), ('avg_pool_3x3', 0)],
                    reduce_concat=[2, 3, 4, 5])
DARTS_V2 = Genotype(normal=[('sep_conv_3x3', 0), ('sep_conv_3x3', 1), ('sep_conv_3x3', 0), ('sep_conv_3x3', 1),
                            ('sep_conv_3x3', 1), ('skip_connect', 0), ('skip_connect', 0), ('dil_conv_3x3', 2)],
                    normal_concat=[2, 3, 4, 5],
                    reduce=[('max_pool_3x3', 0), ('max_pool_3x3', 1), ('skip_connect', 2), ('max_pool_3x3', 1),
                            ('max_pool_3x3', 0), ('skip_connect', 2), ('skip_connect', 2), ('max_pool_3x3', 1)],
                    reduce_concat=[2, 3, 4, 5])
DARTS = DARTS_V2
"""
GENOTYPE_FILE_NAME = "quark0_darts_cnn_genotypes_DARTS_V1_V2.txt"


class Genotype:
    """normal/reduce: lists of (op, input state index); *_concat: state indices."""

    def __init__(self, normal, normal_concat, reduce, reduce_concat):
        self.normal = normal
        self.normal_concat = normal_concat
        self.reduce = reduce
        self.reduce_concat = reduce_concat


def default_genotype_file():
    """``$SERENITY_SHARED/models/darts/...`` or ``<repo>/../shared/...``."""
    shared = os.environ.get("SERENITY_SHARED")
    if not shared:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        shared = os.path.join(os.path.dirname(repo), "shared")
    return os.path.join(shared, "models", "darts", GENOTYPE_FILE_NAME)


def parse_genotypes(text):
    """Returns {name: Genotype} for every ``NAME = Genotype(...)`` assignment
    and every alias ``NAME = OTHER`` in ``text`` (Python syntax, not executed)."""
    result = {}
    for node in ast.parse(text).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in result:
            result[target.id] = result[value.id]
        elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
              and value.func.id == "Genotype"):
            fields = {kw.arg: ast.literal_eval(kw.value) for kw in value.keywords}
            missing = {"normal", "normal_concat", "reduce", "reduce_concat"} - set(fields)
            if missing:
                raise ValueError("genotype %s lacks %s" % (target.id, ", ".join(sorted(missing))))
            result[target.id] = Genotype(
                [(str(op), int(i)) for op, i in fields["normal"]], [int(i) for i in fields["normal_concat"]],
                [(str(op), int(i)) for op, i in fields["reduce"]], [int(i) for i in fields["reduce_concat"]])
    return result


def load_genotype(name=DEFAULT_GENOTYPE, path=""):
    """Genotype ``name`` from ``path``; without a path from the DARTS
    repository's text in ../shared when present, else from the package."""
    if not path and not os.path.exists(default_genotype_file()):
        genotypes = parse_genotypes(BUILTIN_GENOTYPES)
        if name not in genotypes:
            raise ValueError("genotype %s is not built in (has: %s); give --param genotype_file=..."
                             % (name, ", ".join(sorted(genotypes))))
        return genotypes[name]
    path = path or default_genotype_file()
    if not os.path.exists(path):
        raise FileNotFoundError("DARTS genotype file not found: %s (set SERENITY_SHARED or --param genotype_file=...)" % path)
    with open(path) as f:
        genotypes = parse_genotypes(f.read())
    if name not in genotypes:
        raise ValueError("genotype %s not in %s (has: %s)" % (name, path, ", ".join(sorted(genotypes))))
    return genotypes[name]


def relu_conv(b, x, c, stride=1, name="preprocess"):
    b.push_scope(name)
    h = b.relu(x)
    h = b.conv2d(h, c, kernel=1, stride=stride)
    b.pop_scope()
    return h


def factorized_reduce(b, x, c, name="reduce"):
    """ReLU, then two 1x1 stride-2 convs (on x and on x shifted by one pixel)
    producing C/2 channels each, concatenated."""
    if c % 2:
        raise ValueError("FactorizedReduce needs an even channel count, got %d" % c)
    n, h, w, _ = x.shape
    b.push_scope(name)
    r = b.relu(x)
    a = b.conv2d(r, c // 2, kernel=1, stride=2, padding=0, name="conv1")
    shifted = b.slice(r, (0, 1, 1, 0), (n, h - 1, w - 1, r.shape[3]))
    s = b.conv2d(shifted, c // 2, kernel=1, stride=2, padding=0, name="conv2")
    if s.shape != a.shape:
        raise ValueError("FactorizedReduce needs an even resolution, got %dx%d" % (h, w))
    out = b.concat([a, s])
    b.pop_scope()
    return out


def apply_op(b, op, x, c, stride, name):
    if op == "skip_connect":
        return x if stride == 1 else factorized_reduce(b, x, c, name)
    b.push_scope(name)
    if op == "sep_conv_3x3" or op == "sep_conv_5x5":
        k = 3 if op == "sep_conv_3x3" else 5
        h = b.relu(x, name="relu1")
        h = b.depthwise_conv2d(h, k, stride, padding=k // 2, name="dw1")
        h = b.conv2d(h, c, kernel=1, name="pw1")
        h = b.relu(h, name="relu2")
        h = b.depthwise_conv2d(h, k, 1, padding=k // 2, name="dw2")
        h = b.conv2d(h, c, kernel=1, name="pw2")
    elif op == "dil_conv_3x3" or op == "dil_conv_5x5":
        k = 3 if op == "dil_conv_3x3" else 5
        h = b.relu(x)
        h = b.depthwise_conv2d(h, k, stride, padding=k - 1, dilation=2, name="dw")
        h = b.conv2d(h, c, kernel=1, name="pw")
    elif op == "max_pool_3x3":
        h = b.max_pool2d(x, 3, stride, padding=1)
    elif op == "avg_pool_3x3":
        h = b.avg_pool2d(x, 3, stride, padding=1)
    else:
        b.pop_scope()
        raise ValueError("unsupported DARTS op %r" % op)
    b.pop_scope()
    return h


def darts_cell(b, genotype, s0, s1, c, reduction, reduction_prev, name="cell"):
    """Appends one cell; returns its output (len(concat) * C channels)."""
    b.push_scope(name)
    if reduction_prev:
        s0 = factorized_reduce(b, s0, c, "pre0")
    else:
        s0 = relu_conv(b, s0, c, name="pre0")
    s1 = relu_conv(b, s1, c, name="pre1")
    ops = genotype.reduce if reduction else genotype.normal
    concat = genotype.reduce_concat if reduction else genotype.normal_concat
    if len(ops) % 2:
        raise ValueError("genotype has an odd number of ops")
    states = [s0, s1]
    for i in range(len(ops) // 2):
        node = i + 2
        hs = []
        for j in (0, 1):
            op, index = ops[2 * i + j]
            if index >= len(states):
                raise ValueError("node %d reads state %d which does not exist yet" % (node, index))
            stride = 2 if reduction and index < 2 else 1
            hs.append(apply_op(b, op, states[index], c, stride, "n%d_in%d_%s" % (node, j, op)))
        b.push_scope("n%d" % node)
        states.append(b.add(hs[0], hs[1]))
        b.pop_scope()
    out = b.concat([states[i] for i in concat])
    b.pop_scope()
    return out


@network("darts-normal", "DARTS normal cell (genotype parsed from shared/models/darts); inputs 4C channels; "
         "next_conv > 0 appends the next cell's preprocessing (ReLU, 1x1 conv of that width)",
         channels=36, resolution=32, genotype=DEFAULT_GENOTYPE, genotype_file="", next_conv=0)
def darts_normal(b, channels, resolution, genotype, genotype_file, next_conv, seed):
    g = load_genotype(genotype, genotype_file)
    s0 = b.input((1, resolution, resolution, 4 * channels), "s0")
    s1 = b.input((1, resolution, resolution, 4 * channels), "s1")
    return _next_preprocess(b, darts_cell(b, g, s0, s1, channels, False, False), next_conv)


@network("darts-reduction", "DARTS reduction cell (genotype parsed from shared/models/darts); inputs 4C channels; "
         "next_conv > 0 appends the next cell's preprocessing (ReLU, 1x1 conv of that width)",
         channels=36, resolution=32, genotype=DEFAULT_GENOTYPE, genotype_file="", next_conv=0)
def darts_reduction(b, channels, resolution, genotype, genotype_file, next_conv, seed):
    g = load_genotype(genotype, genotype_file)
    s0 = b.input((1, resolution, resolution, 4 * channels), "s0")
    s1 = b.input((1, resolution, resolution, 4 * channels), "s1")
    return _next_preprocess(b, darts_cell(b, g, s0, s1, channels, True, False), next_conv)


def _next_preprocess(b, out, channels):
    """``out`` itself when ``channels`` is 0, else the next cell's
    ``preprocess1`` (ReLUConvBN 1x1 with ``channels`` outputs) applied to it."""
    if channels < 0:
        raise ValueError("next_conv must be >= 0, got %d" % channels)
    return relu_conv(b, out, channels, name="next_preprocess") if channels else out


@network("darts-stack", "DARTS CIFAR network: stem conv 3C, cells (reduction at 1/3 and 2/3 unless "
         "reductions=false), pool, FC",
         channels=16, resolution=32, cells=8, classes=10, genotype=DEFAULT_GENOTYPE, genotype_file="",
         reductions=True)
def darts_stack(b, channels, resolution, cells, classes, genotype, genotype_file, reductions, seed):
    """``NetworkCIFAR`` of cnn/model.py without the auxiliary head.  With
    ``reductions`` false every cell is a normal cell (a stack of one stage)."""
    g = load_genotype(genotype, genotype_file)
    x = b.input((1, resolution, resolution, 3))
    b.push_scope("stem")
    stem = b.conv2d(x, 3 * channels, kernel=3, padding=1)
    b.pop_scope()
    s0 = s1 = stem
    c = channels
    reduction_prev = False
    for i in range(cells):
        reduction = reductions and i in (cells // 3, 2 * cells // 3)
        if reduction:
            c *= 2
        out = darts_cell(b, g, s0, s1, c, reduction, reduction_prev, "cell%d" % i)
        s0, s1 = s1, out
        reduction_prev = reduction
    return b.classifier(s1, classes)
