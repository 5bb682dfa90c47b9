"""A small OpenCL C syntax tree and its printer.

The code generator decides everything (names, loop shapes, barriers, index expressions);
this module only prints what it is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple, Union


class Stmt:
    pass


@dataclass
class Block(Stmt):
    stmts: List[Stmt] = field(default_factory=list)
    braces: bool = True

    def add(self, s: Stmt) -> None:
        self.stmts.append(s)


@dataclass
class Decl(Stmt):
    ctype: str
    name: str
    init: Optional[str] = None
    array: Optional[str] = None      # array length
    qualifier: str = ""              # "local", ...


@dataclass
class Assign(Stmt):
    lhs: str
    rhs: str


@dataclass
class ExprStmt(Stmt):
    text: str


@dataclass
class For(Stmt):
    init: str
    cond: str
    step: str
    body: Block


@dataclass
class If(Stmt):
    cond: str
    body: Block


@dataclass
class Barrier(Stmt):
    fence: str


@dataclass
class Comment(Stmt):
    text: str


@dataclass
class Function:
    ret: str
    name: str
    params: List[str]
    body: str          # raw body text (user functions)


@dataclass
class Kernel:
    name: str
    params: List[str]
    body: Block


@dataclass
class Unit:
    pragmas: List[str]
    structs: List[str]
    functions: List[Function]
    kernel: Kernel


def _indent(level: int) -> str:
    return "  " * level


def print_stmt(s: Stmt, level: int, out: List[str]) -> None:
    ind = _indent(level)
    if isinstance(s, Block):
        if s.braces:
            out.append(ind + "{")
            for x in s.stmts:
                print_stmt(x, level + 1, out)
            out.append(ind + "}")
        else:
            for x in s.stmts:
                print_stmt(x, level, out)
    elif isinstance(s, Decl):
        q = f"{s.qualifier} " if s.qualifier else ""
        arr = f"[{s.array}]" if s.array is not None else ""
        init = f" = {s.init}" if s.init is not None else ""
        out.append(f"{ind}{q}{s.ctype} {s.name}{arr}{init};")
    elif isinstance(s, Assign):
        out.append(f"{ind}{s.lhs} = {s.rhs};")
    elif isinstance(s, ExprStmt):
        out.append(f"{ind}{s.text};")
    elif isinstance(s, For):
        out.append(f"{ind}for ({s.init}; {s.cond}; {s.step}) {{")
        for x in s.body.stmts:
            print_stmt(x, level + 1, out)
        out.append(ind + "}")
    elif isinstance(s, If):
        out.append(f"{ind}if ({s.cond}) {{")
        for x in s.body.stmts:
            print_stmt(x, level + 1, out)
        out.append(ind + "}")
    elif isinstance(s, Barrier):
        out.append(f"{ind}barrier({s.fence});")
    elif isinstance(s, Comment):
        out.append(f"{ind}// {s.text}")
    else:  # pragma: no cover
        raise TypeError(s)


def print_unit(u: Unit) -> str:
    out: List[str] = []
    out.extend(u.pragmas)
    if u.pragmas:
        out.append("")
    for st in u.structs:
        out.append(st)
        out.append("")
    for f in u.functions:
        body = f.body.strip()
        out.append(f"{f.ret} {f.name}({', '.join(f.params)}) {{")
        for line in body.splitlines():
            out.append("  " + line.strip())
        out.append("}")
        out.append("")
    k = u.kernel
    out.append(f"kernel void {k.name}({', '.join(k.params)}) {{")
    for s in k.body.stmts:
        print_stmt(s, 1, out)
    out.append("}")
    return "\n".join(out) + "\n"


def count_barriers(b: Stmt) -> int:
    if isinstance(b, Barrier):
        return 1
    if isinstance(b, Block):
        return sum(count_barriers(s) for s in b.stmts)
    if isinstance(b, (For, If)):
        return count_barriers(b.body)
    return 0
