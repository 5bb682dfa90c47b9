"""The ``.lift`` text syntax: :func:`parse` / :func:`parse_file` and the printers."""
from .parser import LiftFile, Parser, parse, parse_expr, parse_file
from .printer import (expr_text, file_text, fun_text, program_text, userfun_text, annotated_text)
