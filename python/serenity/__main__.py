"""Command-line entry point: ``python3 -m serenity <command> ...``.

Commands live in modules listed in :data:`COMMAND_MODULES`; each exposes
``add_subparser(subparsers)`` which registers an argparse sub-parser and sets
``func`` (called with the parsed arguments, returns the exit code).
"""

import argparse
import importlib
import sys

COMMAND_MODULES = [
    "serenity.gen",
    "serenity.driver",
    "serenity.plot",
    "serenity.bench",
    "serenity.tflite",
    "serenity.primitives",
    "serenity.frontier",
]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m serenity",
        description="Serenity tools: generate TOSA benchmark networks, run serenity-opt, plot, benchmark.")
    subparsers = parser.add_subparsers(dest="command", metavar="<command>")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_subparser(subparsers)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except (OSError, ValueError, RuntimeError) as e:
        print("serenity %s: error: %s" % (args.command, e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
