"""pyopencl runtime: device choice, program cache, buffers and launches."""
from .runtime import Runtime, get_runtime
