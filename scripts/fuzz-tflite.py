#!/usr/bin/env python3
"""Seeded fuzzer for the C++ TFLite importer (serenity-translate --import-tflite).

A damaged .tflite file must be a clear error, never a crash (issue 48). Each
case takes a source model and damages it:

  sources    the committed test models (git ls-files '*.tflite'), the models
             of ../shared/models when it exists, and random networks written
             by python/serenity/tflite/writer.py (random operators, shapes,
             types, quantization and options: well-formed flatbuffers whose
             contents are mostly nonsense);
  mutations  bit flips, random bytes, 4-byte little-endian words overwritten
             with extremes (0, 1, INT32_MAX, INT32_MIN, -1, small negatives:
             flatbuffer offsets, vtable entries, dimensions, buffer and tensor
             indices, opcodes, quantization fields), truncation, a chunk of
             another model spliced in, a range duplicated or removed. Offsets
             fall mostly outside the constant data (weights), where the
             structure is.

Each case runs `serenity-translate --import-tflite CASE -o /dev/null` and passes
when it exits 0, or exits 1 with an `error:` line naming the case file. It
fails on a signal, any other exit status, a sanitizer report (AddressSanitizer,
UBSan's `runtime error:`, LeakSanitizer), an LLVM crash message, or no answer
within --timeout seconds (a hang guard, not a timing test). A failing case is
saved to OUT/tflite-SEED-N.tflite with OUT/tflite-SEED-N.json (seed, source
model, mutations, message, the command reproducing it).

Cases depend only on --seed, the case number and the source models (no clock):
case N of a seed is the same file on every run.

Usage: fuzz-tflite.py [--cases N] [--seconds S] [--seed 1] [--out DIR]
                      [--translate PATH] [--model FILE ...]
Run it on a sanitized build (docs/Reliability.md, "Fuzzing the TFLite
importer"). Exit 0 when every case passed, 1 otherwise.
"""
import argparse
import glob
import json
import os
import random
import shlex
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "runtime error:", "LeakSanitizer", "LLVM ERROR",
                     "Stack dump", "UNREACHABLE executed", "Assertion `")

# Overwrite values for 4-byte words: offsets and sizes at their limits.
EXTREMES = [0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0xfffffff0, 0xffffff80, 0x7fff,
            0x8000, 0xffff, 0x10000, 0x100, 255, 4, 8, 16]

# Random networks: operators the importer has, with their options table
# (writer.OPTIONS) and input count.
RANDOM_OPS = {
    "ADD": ("AddOptions", 2), "SUB": ("SubOptions", 2), "MUL": ("MulOptions", 2),
    "CONV_2D": ("Conv2DOptions", 3), "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", 3),
    "FULLY_CONNECTED": ("FullyConnectedOptions", 3), "TRANSPOSE_CONV": ("TransposeConvOptions", 4),
    "AVERAGE_POOL_2D": ("Pool2DOptions", 1), "MAX_POOL_2D": ("Pool2DOptions", 1),
    "SOFTMAX": ("SoftmaxOptions", 1), "RESHAPE": ("ReshapeOptions", 2), "PAD": ("PadOptions", 2),
    "CONCATENATION": ("ConcatenationOptions", 2), "MEAN": ("ReducerOptions", 2),
    "TRANSPOSE": ("TransposeOptions", 2), "STRIDED_SLICE": ("StridedSliceOptions", 4),
    "GATHER": ("GatherOptions", 2), "SPLIT": ("SplitOptions", 2), "PACK": ("PackOptions", 2),
    "RESIZE_BILINEAR": ("ResizeBilinearOptions", 2), "BATCH_MATMUL": ("BatchMatMulOptions", 2),
    "QUANTIZE": ("QuantizeOptions", 1), "DEQUANTIZE": ("DequantizeOptions", 1),
    "LOGISTIC": (None, 1), "TANH": (None, 1), "RELU": (None, 1), "EXP": (None, 1),
    "SVDF": ("SVDFOptions", 5), "UNIDIRECTIONAL_SEQUENCE_LSTM": ("UnidirectionalSequenceLSTMOptions", 24),
}
DTYPES = ["int8", "int8", "int8", "float32", "int16"]
ODD_DTYPES = ["uint8", "int32", "int64", "bool", "float16"]
SCALES = [0.0039, 0.02, 0.1, 1.0, 3.5e-5]
ODD_SCALES = [0.0, -1.0, 1e-30, 1e30, float("inf"), float("nan")]


def committed_models():
    """The .tflite files in git (sorted), plus ../shared/models when present."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "*.tflite"], capture_output=True, text=True,
                             check=True).stdout.split()
        paths = [os.path.join(ROOT, p) for p in out]
    except (OSError, subprocess.CalledProcessError):
        paths = glob.glob(os.path.join(ROOT, "test", "**", "*.tflite"), recursive=True)
    shared = os.path.join(os.path.dirname(ROOT), "shared", "models")
    paths += glob.glob(os.path.join(shared, "**", "*.tflite"), recursive=True)
    return sorted(paths)


def random_network(r):
    """A random network (1-4 operators) as .tflite bytes: a valid flatbuffer
    whose operands, shapes, types, quantization and options are plausible,
    each odd (a negative dimension, a NaN scale, a wrong buffer size, a
    missing input...) with the network's own probability `odd`, so that some
    networks reach the operator handlers and some are nonsense."""
    from serenity.tflite.writer import NUMPY_OF, ModelWriter
    import numpy as np

    m = ModelWriter("fuzz")
    odd = r.choice([0.0, 0.0, 0.02, 0.1, 0.3])

    def pick(usual, unusual):
        return r.choice(unusual if r.random() < odd else usual)

    def shape_near(shape):
        s = list(shape)
        roll = r.random()
        if roll < 0.6 or not s:
            return s or [pick([1, 2, 4], [0, -1])]
        if roll < 0.75:
            s[r.randrange(len(s))] = pick([1, 2, 3, 5, 8], [0, -1, 0x7fffffff])
        elif roll < 0.9:
            s.pop(r.randrange(len(s)))
        else:
            s.insert(r.randrange(len(s) + 1), r.choice([1, 2, 3]))
        return s

    def tensor(shape, dtype, const):
        quant = {}
        if dtype in ("int8", "int16", "uint8") and r.random() >= odd or r.random() < odd:
            n = pick([1, 1, min(max(1, shape[-1] if shape else 1), 64)], [0, 2, 5])
            scale = [pick(SCALES, ODD_SCALES) for _ in range(n)]
            zp = [0 if dtype == "int16" else r.choice([0, -128, 127, 5, -3]) for _ in range(n)]
            zp = [pick([z], [300, 1 << 40, -(1 << 35)]) for z in zp]
            quant = dict(scale=scale, zero_point=zp, axis=pick([0, len(shape) - 1], [7, -1]))
        index = m.tensor("t%d" % len(m.tensors), shape, dtype, variable=r.random() < odd, **quant)
        if const:
            count = 1
            for d in shape:
                count *= max(d, 0)
            size = min(count, 4096) * np.dtype(NUMPY_OF[dtype]).itemsize
            size = pick([size], [0, size - 1, size + 3, 64])
            if dtype == "int32" and r.random() < 0.7:  # shapes, axes, paddings, biases
                data = b"".join(struct.pack("<i", pick([0, 1, 1, 2, 3, 4], [-1, 100, -(1 << 31)]))
                                for _ in range(size // 4))
            else:
                data = bytes(r.getrandbits(8) for _ in range(size))
            if data:
                m.buffers.append(data)
                m.tensors[index]["buffer"] = len(m.buffers) - 1
        return index

    dtype = pick(DTYPES, ODD_DTYPES)
    shape = [r.choice([1, 1, 2, 3, 4, 8]) for _ in range(r.choice([1, 2, 3, 4, 4, 4, 5]))]
    x = tensor(shape, dtype, const=False)
    m.inputs = [x]
    activations = [x]
    for _ in range(r.randint(1, 4)):
        name = r.choice(sorted(RANDOM_OPS))
        options_type, arity = RANDOM_OPS[name]
        inputs = [activations[-1]]
        for _ in range(arity - 1):
            roll = r.random()
            if roll < odd:
                inputs.append(pick([-1], [-1, len(m.tensors) + 5, -7]))
            elif roll < 0.25:
                inputs.append(r.choice(activations))
            elif roll < 0.5:
                inputs.append(tensor([len(shape)] if r.random() < 0.5 else [len(shape), 2], "int32", const=True))
            else:
                inputs.append(tensor(shape_near(shape), r.choice([dtype, dtype, "int32"]), const=True))
        outputs = [tensor(shape_near(shape), pick([dtype], DTYPES + ODD_DTYPES), const=False)
                   for _ in range(r.choice([1, 1, 1, 2]))]
        options = {}
        if options_type:
            for field in r.sample(range(8), r.randint(0, 4)):
                options[field] = r.choice([("i8", pick([0, 1, 2, 3, 6], [-1, 127])),
                                           ("i32", pick([1, 2, 3], [0, -1, 1 << 30, -(1 << 31)])),
                                           ("f32", pick([0.0, 0.5, 1.0], [-2.0, float("nan"), float("inf")])),
                                           ("bool", r.random() < 0.5),
                                           ("i32vec", [pick([0, 1, 2, 3], [-1, 9]) for _ in range(r.randint(0, 4))])])
        m.op(name, inputs, outputs, options_type, options)
        activations += outputs
        shape = m.tensors[outputs[0]]["shape"]
    m.outputs = activations[-r.choice([1, 1, 2]):] if len(activations) > 2 else [activations[-1]]
    return m.finish()


def data_ranges(data):
    """[start, end) of every Buffer's data vector (the weights), or [] when
    the file does not parse that far. Model field 4 is `buffers`, Buffer
    field 0 its `data`; a table's field i sits at vtable slot 4 + 2 i."""
    def u32(o):
        return struct.unpack_from("<I", data, o)[0]

    def field(table, i):
        vtable = table - struct.unpack_from("<i", data, table)[0]
        if struct.unpack_from("<H", data, vtable)[0] <= 4 + 2 * i:
            return None
        offset = struct.unpack_from("<H", data, vtable + 4 + 2 * i)[0]
        return table + offset + u32(table + offset) if offset else None

    try:
        ranges = []
        buffers = field(u32(0), 4)
        for k in range(u32(buffers) if buffers is not None else 0):
            element = buffers + 4 + 4 * k
            vector = field(element + u32(element), 0)
            if vector is not None:
                ranges.append((vector + 4, min(vector + 4 + u32(vector), len(data))))
        return sorted(ranges)
    except struct.error:
        return []


def pick_offset(r, size, ranges, width=1):
    """An offset for a `width`-byte write: three times in four outside the
    weights (the structure), else anywhere; 4-byte writes mostly aligned."""
    size -= width - 1
    if size <= 0:
        return 0
    offset = r.randrange(size)
    if ranges and r.random() < 0.75:
        gaps, start = [], 0
        for lo, hi in ranges:
            if lo > start:
                gaps.append((start, lo))
            start = max(start, hi)
        if start < size:
            gaps.append((start, size))
        total = sum(hi - lo for lo, hi in gaps)
        if total > 0:
            k = r.randrange(total)
            for lo, hi in gaps:
                if k < hi - lo:
                    offset = min(lo + k, size - 1)
                    break
                k -= hi - lo
    if width == 4 and r.random() < 0.8:
        offset -= offset % 4
    return offset


def mutate(r, data, donor):
    """One random mutation of `data`; returns (bytes, description)."""
    data = bytearray(data)
    ranges = data_ranges(bytes(data))
    kind = r.choice(["flip", "flip", "byte", "word", "word", "word", "truncate", "splice", "duplicate",
                     "remove"])
    if not data:
        kind = "splice"
    if kind == "flip":
        flips = []
        for _ in range(r.choice([1, 1, 2, 4, 8])):
            offset, bit = pick_offset(r, len(data), ranges), r.randrange(8)
            data[offset] ^= 1 << bit
            flips.append([offset, bit])
        return bytes(data), {"flip": flips}
    if kind == "byte":
        offset, value = pick_offset(r, len(data), ranges), r.choice([0, 0xff, 0x7f, 0x80, r.randrange(256)])
        data[offset] = value
        return bytes(data), {"byte": [offset, value]}
    if kind == "word":
        offset = pick_offset(r, len(data), ranges, 4)
        old = int.from_bytes(data[offset:offset + 4].ljust(4, b"\0"), "little")
        value = r.choice(EXTREMES) if r.random() < 0.8 else (old + r.choice([-8, -4, -1, 1, 4, 8])) & 0xffffffff
        data[offset:offset + 4] = struct.pack("<I", value)[:len(data) - offset]
        return bytes(data), {"word": [offset, "0x%08x" % value]}
    if kind == "truncate":
        size = r.choice([r.randrange(len(data)), r.randrange(min(len(data), 64)), len(data) - r.randint(1, 16)])
        return bytes(data[:max(size, 0)]), {"truncate": max(size, 0)}
    if kind == "splice":
        lo = r.randrange(len(donor)) if donor else 0
        chunk = donor[lo:lo + r.choice([4, 16, 64, 256, 1024])]
        at = pick_offset(r, len(data) + 1, ranges)
        if r.random() < 0.5:
            data[at:at + len(chunk)] = chunk
        else:
            data[at:at] = chunk
        return bytes(data), {"splice": [lo, len(chunk), at]}
    lo = pick_offset(r, len(data), ranges)
    hi = min(len(data), lo + r.choice([1, 4, 8, 16, 64, 512]))
    if kind == "duplicate":
        at = pick_offset(r, len(data) + 1, ranges)
        data[at:at] = data[lo:hi]
        return bytes(data), {"duplicate": [lo, hi, at]}
    del data[lo:hi]
    return bytes(data), {"remove": [lo, hi]}


def draw_case(seed, index, models):
    """Case `index` of `seed`: (bytes, source, mutations). Its own generator,
    so a case does not depend on the ones before it."""
    r = random.Random("%d:%d" % (seed, index))
    donor_source = r.choice(models)
    if r.random() < 0.25:
        source = "random network %d:%d" % (seed, index)
        data = random_network(r)
        count = r.choice([0, 0, 1, 1, 2])
    else:
        source = r.choice(models)
        with open(source, "rb") as f:
            data = f.read()
        count = r.choice([1, 1, 1, 2, 2, 3, 5])
    with open(donor_source, "rb") as f:
        donor = f.read()
    mutations = []
    for _ in range(count):
        data, what = mutate(r, data, donor)
        if "splice" in what:
            what["donor"] = os.path.relpath(donor_source, ROOT)
        mutations.append(what)
    if not source.startswith("random"):
        source = os.path.relpath(source, ROOT)
    return data, source, mutations


def command(translate, path):
    return [translate, "--import-tflite", path, "-o", os.devnull]


def check(translate, path, timeout):
    """(exit status, None) when serenity-translate handled the file, else
    (exit status, what went wrong)."""
    env = dict(os.environ)
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    try:
        proc = subprocess.run(command(translate, path), capture_output=True, text=True, errors="replace",
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "no answer after %d s (hang guard)" % timeout
    report = next((s for s in SANITIZER_REPORTS if s in proc.stderr), None)
    if proc.returncode < 0:
        why = "killed by signal %d" % -proc.returncode
    elif report:
        why = "exit %d with '%s'" % (proc.returncode, report)
    elif proc.returncode not in (0, 1):
        why = "exit %d" % proc.returncode
    elif proc.returncode == 1 and not any("error:" in line and path in line for line in proc.stderr.splitlines()):
        why = "exit 1 without an 'error:' naming the file"
    else:
        return proc.returncode, None
    # From the report's first line when there is one (its stack follows).
    start = proc.stderr.rfind("\n", 0, proc.stderr.find(report)) + 1 if report else max(0, len(proc.stderr) - 4000)
    return proc.returncode, why + "\n" + proc.stderr[start:start + 4000]


def save(out_dir, tag, data, record):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "tflite-%s.tflite" % tag)
    with open(path, "wb") as f:
        f.write(data)
    record["command"] = " ".join(shlex.quote(a) for a in command(record.pop("translate"), path))
    with open(path[:-len(".tflite")] + ".json", "w") as f:
        json.dump(record, f, indent=1)
    return path


def default_translate():
    build = os.environ.get("SERENITY_BUILD_DIR", os.path.join(ROOT, "build"))
    return os.path.join(build, "bin", "serenity-translate")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: --seconds only)")
    parser.add_argument("--seconds", type=float, default=0, help="stop drawing cases after this long (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="fuzz-failures", help="directory for failing cases")
    parser.add_argument("--translate", default=default_translate(),
                        help="serenity-translate (default: $SERENITY_BUILD_DIR/bin or build/bin)")
    parser.add_argument("--model", action="append", help="source model (repeatable; default: the committed "
                        "test models and ../shared/models)")
    parser.add_argument("--timeout", type=float, default=300, help="hang guard per case, seconds")
    args = parser.parse_args(argv)
    if not args.cases and not args.seconds:
        parser.error("give --cases or --seconds")
    if not (os.path.isfile(args.translate) and os.access(args.translate, os.X_OK)):
        parser.error("no executable serenity-translate at %s (--translate or SERENITY_BUILD_DIR)" % args.translate)
    models = sorted(args.model) if args.model else committed_models()
    start = time.monotonic()
    passed = imported = failed = 0
    index = 0
    with tempfile.TemporaryDirectory(prefix="serenity-fuzz-tflite-") as workdir:
        while (not args.cases or index < args.cases) and (not args.seconds or time.monotonic() - start < args.seconds):
            data, source, mutations = draw_case(args.seed, index, models)
            tag = "%d-%d" % (args.seed, index)
            path = os.path.join(workdir, "case-%s.tflite" % tag)
            with open(path, "wb") as f:
                f.write(data)
            status, problem = check(args.translate, path, args.timeout)
            if problem is None:
                passed += 1
                imported += status == 0
            else:
                failed += 1
                saved = save(args.out, tag, data, {"seed": args.seed, "case": index, "source": source,
                                                   "mutations": mutations, "message": problem,
                                                   "translate": args.translate})
                print("FAIL %s: %s %s\n  %s\n  saved %s" % (tag, source, json.dumps(mutations),
                                                           problem.splitlines()[0], saved), flush=True)
            index += 1
    print("fuzz-tflite: %d cases, %d passed, %d failed in %.0f s (seed %d, %d source models; %d imported, "
          "%d rejected with an error)" % (index, passed, failed, time.monotonic() - start, args.seed, len(models),
                                         imported, passed - imported))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
