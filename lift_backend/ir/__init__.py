"""Lift IR: expressions, function declarations and patterns (immutable values)."""
from .expr import (Expr, FunCall, FunDecl, Lambda, Literal, Param, Program, UserFun, alpha_equal,
                   compose, freshen, walk)
from .patterns import *  # noqa: F401,F403
from . import patterns
