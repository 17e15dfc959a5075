"""Subcommands import-tflite and check-tflite."""

import sys

from .schema import TFLiteError, load_file
from .importer import import_model


def _import(args) -> int:
    try:
        model = load_file(args.model)
    except TFLiteError as e:
        print(f"serenity import-tflite: error: {e}", file=sys.stderr)
        return 1
    try:
        text = import_model(model, float_mode=args.float, rounding=args.rounding)
    except TFLiteError as e:
        print(f"serenity import-tflite: error: {args.model}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug of ours, still reported without a traceback
        print(f"serenity import-tflite: internal error: {args.model}: {type(e).__name__}: {e} "
              "(please report it with the model)", file=sys.stderr)
        return 2
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w") as f:
                f.write(text)
        except OSError as e:
            print(f"serenity import-tflite: error: {args.output}: {e.strerror}", file=sys.stderr)
            return 1
    return 0


def _check(args) -> int:
    from . import check, tflm
    from ..driver import ToolError
    try:
        if args.against:
            args.rounding = args.rounding or "double"
            return tflm.main(args)
        args.rounding = args.rounding or "all"
        if args.lowering != "reference":
            raise TFLiteError("--lowering applies to --against only")
        return check.main(args)
    except (TFLiteError, ToolError) as e:
        print(f"serenity check-tflite: error: {e}", file=sys.stderr)
        return 1


def _reported(command: str, run, args) -> int:
    """run(args), with TFLiteError/ToolError printed as `serenity COMMAND: error: ...`."""
    from ..driver import ToolError
    try:
        return run(args)
    except (TFLiteError, ToolError) as e:
        print(f"serenity {command}: error: {e}", file=sys.stderr)
        return 1


def _report(args) -> int:
    from . import report
    return _reported("report-tflite", report.main, args)


def _check_ops(args) -> int:
    from . import opcheck
    return _reported("check-tflite-ops", opcheck.main, args)


def _check_sequence(args) -> int:
    from . import sequence
    return _reported("check-tflite-sequence", sequence.main, args)


def _test_models(args) -> int:
    from . import testmodels
    return testmodels.main(args)


def add_subparsers(subparsers) -> None:
    """Registers import-tflite, check-tflite and report-tflite on an argparse subparsers object."""
    p = subparsers.add_parser("import-tflite", help="import a .tflite model as TOSA v22 MLIR")
    p.add_argument("model", help="input .tflite file")
    p.add_argument("-o", "--output", help="output .mlir file (default: stdout)")
    p.add_argument("--float", action="store_true",
                   help="emit the dequantized f32 graph instead of int8 TOSA")
    p.add_argument("--rounding", choices=["double", "single", "armnn"], default="double",
                   help="double = TOSA DOUBLE_ROUND, TFLite's MultiplyByQuantizedMultiplier "
                        "(default); single = TOSA SINGLE_ROUND, one rounding of the exact "
                        "product; armnn = Arm NN CpuRef's float32 arithmetic spelled out in "
                        "TOSA (bit-exact reference form, not for deployment)")
    p.set_defaults(func=_import)

    c = subparsers.add_parser("check-tflite",
                              help="run an imported model with mlir-runner and Arm NN and compare")
    c.add_argument("model", help="input .tflite file")
    c.add_argument("--seeds", type=int, nargs="+", default=None, dest="seeds_given",
                   help="seeds of the random int8 inputs (default: 0 1 2); with --against, "
                        "the seeds of DIR to compare (default: all of them)")
    c.add_argument("--against", metavar="DIR",
                   help="compare with TensorFlow Lite Micro's outputs and intermediate tensors in "
                        "DIR (layout of ../shared/bench/tflm) instead of Arm NN, and name the "
                        "first operator that differs; exit 1 when anything differs")
    c.add_argument("--lowering", choices=["reference", "pipeline", "both"], default="reference",
                   help="with --against: run the import through the upstream reference lowering, "
                        "serenity-pipeline, or both (default: reference)")
    c.add_argument("--pipeline-options", default="",
                   help="with --against: extra serenity-pipeline options (e.g. 'schedule=none')")
    c.add_argument("--rounding", choices=["double", "single", "armnn", "all"], default=None,
                   help="which int8 import(s) to compare (default: all three; with --against, "
                        "double)")
    c.add_argument("--float", action="store_true", help="also run the --float import")
    c.add_argument("--per-op", action="store_true",
                   help="also compare every operator's output tensor (op-by-op debugging)")
    c.set_defaults(func=_check)

    o = subparsers.add_parser("check-tflite-ops",
                              help="compare imported test models with TensorFlow Lite Micro's "
                                   "outputs (DIR/models, DIR/reference)")
    o.add_argument("dir", nargs="?", default="test/tflite-ops",
                   help="directory with models/ and reference/ (default: test/tflite-ops)")
    o.add_argument("--name", action="append", help="regular expression of model names")
    o.add_argument("--lowering", choices=["reference", "pipeline", "both"], default="both")
    o.add_argument("--pipeline-options", default="")
    o.add_argument("-v", "--verbose", action="store_true", help="print every output")
    o.add_argument("--coverage", action="store_true",
                   help="instead: a markdown table of the operators, the types their test "
                        "models use and how many models have each")
    o.set_defaults(func=_check_ops)

    q = subparsers.add_parser("check-tflite-sequence",
                              help="run a stateful imported model over TensorFlow Lite Micro's "
                                   "multi-invocation references (state kept between calls, "
                                   "reset) and compare every step")
    q.add_argument("model", help="input .tflite file")
    q.add_argument("--refs", default="test/tflite-seq",
                   help="directory with index.json and the sequences (default: test/tflite-seq)")
    q.add_argument("--lowering", choices=["reference", "pipeline", "both"], default="reference",
                   help="upstream reference lowering (tosa-to-mlprogram first), serenity-pipeline, "
                        "or both (default: reference)")
    q.add_argument("--pipeline-options", default="", help="extra serenity-pipeline options")
    q.add_argument("--outputs-only", action="store_true",
                   help="compare the outputs only, not the state variables after each step")
    q.set_defaults(func=_check_sequence)

    t = subparsers.add_parser("tflite-test-models",
                              help="write the importer's test models (and, with --oracle, "
                                   "TensorFlow Lite Micro's references for them)")
    t.add_argument("outdir")
    t.add_argument("--group", action="append", help="only these groups (base, shape, ...)")
    t.add_argument("--name", action="append", help="only these models")
    t.add_argument("--oracle", help="the tflm-oracle binary (../shared/tools/tflm-oracle)")
    t.add_argument("--make-refs", help="make_refs.py [../shared/tools/tflm-oracle/make_refs.py]")
    t.set_defaults(func=_test_models)

    r = subparsers.add_parser("report-tflite",
                              help="markdown table: op mix and memory peak of imported models")
    r.add_argument("models", nargs="+", help=".tflite files")
    r.add_argument("--rounding", choices=["double", "single", "armnn"], default="double")
    r.add_argument("--versus-tflm", metavar="DIR",
                   help="instead: activation RAM (arena + caller-held I/O) before and after, "
                        "and host run time, next to TFLite Micro's arenas in DIR/README.md "
                        "(../shared/bench/tflm)")
    r.add_argument("--before-serenity-opt", metavar="PATH",
                   help="with --versus-tflm: the 'before' columns from this serenity-opt (an "
                        "earlier build) with its default options")
    r.add_argument("--buffers", action="store_true",
                   help="instead: every arena buffer of the serenity-pipeline lowering (with "
                        "--pipeline-options) with its origin: the kind (tensor, accumulator, "
                        "padded-copy, concat-copy, reshape-copy, copy, input, output), the op "
                        "and the source location; then the buffers kept in registers")
    r.add_argument("--pipeline-options", default="io=arena",
                   help="with --buffers: serenity-pipeline options (default: io=arena)")
    r.set_defaults(func=_report)
