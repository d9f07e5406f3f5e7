"""Benchmarks that print figures (never asserted in tests). `python -m bench [--json] [--quick]`."""
