"""``gen``: write a benchmark network as TOSA v22 MLIR."""

import argparse
import sys

from .networks import NETWORKS, coerce_param, generate


def add_subparser(subparsers):
    lines = ["networks (defaults in parentheses; set others with --param key=value):"]
    for name in sorted(NETWORKS):
        spec = NETWORKS[name]
        params = ", ".join("%s=%s" % kv for kv in sorted(spec.defaults.items()))
        lines.append("  %-17s %s\n  %-17s   (%s)" % (name, spec.summary, "", params))
    lines.append("")
    lines.append("--dtype i8 writes quantized IR for every network: convs accumulate in i32 and")
    lines.append("are rescaled to i8; adds and means go through i32 (TOSA has no i8 add).")
    p = subparsers.add_parser(
        "gen", help="write a benchmark network as TOSA v22 MLIR",
        description="Write network NAME as one func.func @main (TOSA v22, NHWC, batch 1).",
        epilog="\n".join(lines), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", choices=sorted(NETWORKS), metavar="NAME", help="network (see below)")
    p.add_argument("--channels", type=int, help="base channel count (network specific meaning)")
    p.add_argument("--resolution", type=int, help="input height and width")
    p.add_argument("--seed", type=int, default=0, help="seed for weights and random wiring (default 0)")
    p.add_argument("--dtype", choices=("f32", "i8"), default="f32", help="element type (default f32)")
    p.add_argument("--weights", choices=("splat", "random"), default="splat",
                   help="splat constants (small files, default) or seeded random values "
                        "(tensors above 16384 elements stay splat)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="network-specific parameter (repeatable)")
    p.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    p.set_defaults(func=run_gen)


def params_from_args(args):
    spec = NETWORKS[args.name]
    params = {}
    for key in ("channels", "resolution"):
        value = getattr(args, key)
        if value is not None:
            if key not in spec.defaults:
                raise ValueError("network %s does not take --%s" % (args.name, key))
            params[key] = value
    for item in args.param:
        if "=" not in item:
            raise ValueError("--param expects KEY=VALUE, got %r" % item)
        key, text = item.split("=", 1)
        params[key] = coerce_param(spec, key, text)
    return params


def run_gen(args):
    text = generate(args.name, dtype=args.dtype, weights=args.weights, seed=args.seed,
                    **params_from_args(args))
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0
