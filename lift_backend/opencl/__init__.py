"""OpenCL code generation: loop shapes, barrier elimination, emission."""
from .compile import CompiledKernel, CompiledPipeline, check_sizes, compile_program
from .control_flow import LaunchConfig
