"""Benchmarks: commands that measure and write reports."""
