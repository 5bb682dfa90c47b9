"""Lift: patterns, symbolic sizes, views and OpenCL code generation."""
