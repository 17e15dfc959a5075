"""Entry point: python3 -m serenity SUBCOMMAND ..."""

import argparse
import sys

from serenity.tflite import cli as tflite_cli


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="serenity")
    subparsers = parser.add_subparsers(dest="command", required=True)
    tflite_cli.add_subparsers(subparsers)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
