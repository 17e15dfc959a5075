"""Serenity's Python tools (driven through the serenity-opt / mlir-opt binaries)."""
