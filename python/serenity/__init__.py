"""Serenity's Python tools: TOSA network generators, a serenity-opt driver,
reports, plots and benchmarks.  Run ``python3 -m serenity --help``."""
