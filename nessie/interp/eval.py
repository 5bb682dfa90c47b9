"""Evaluator of monomorphic typed NESL programs (``nessie.types.typed_ast``).

The typed tree is compiled once into Python closures (``Compiler``): every expression node
becomes a function ``env -> value`` where ``env`` is a dict of the local variables in scope,
and every pattern a function ``(value, env) -> None`` that binds its variables.  Builtin
call sites get their ``CallContext`` (span and instance types) at compile time, so calling
a builtin costs one Python call.  User functions are looked up through ``FunctionCell``\\ s,
which makes (mutual) recursion and forward references work.

Semantics (NESL.md): strict, call by value; ``if`` evaluates one branch; an apply-to-each
evaluates its sources in the enclosing scope, requires them to have equal lengths
(``RUNTIME ERROR: Length mismatch in an apply-to-each.`` at the apply-to-each), binds the
generator patterns element-wise, evaluates the filter and then the body only for the
elements that pass it; ranges ``[s:e:d]`` exclude ``e`` (a zero stride is a divide-by-zero
error); ``time(e)`` gives ``(value, seconds)``.  An apply-to-each that may draw random
numbers is evaluated vector-wise instead, in the original's (flattened) order of draws
(``nessie.interp.vector``); every top-level item starts with ``srandom(0)``.

``run_program(program, sem, out)`` executes the top-level items in order, printing the
result lines of the original REPL (``f = fn : TYPE``, ``x = VALUE : TYPE``,
``it = VALUE : TYPE``) interleaved with the program's own output; a run-time error stops
the run after the lines already printed and is raised as ``RuntimeNeslError``.  Programs
run in a thread with a large stack and a high recursion limit so that deeply recursive NESL
functions work.
"""

from __future__ import annotations

import time
from typing import Any, Callable, TextIO

from lambda_cu.support import CallDepth, CallTooDeep
from nessie.types import typed_ast as T
from nessie.types.library import is_library_item
from nessie.types.types import display_name

from . import errors as E
from .builtins import BUILTINS, CONSTANTS, CallContext, Output, Runtime
from .printing import Redefinitions, format_binding, format_function
from .values import DEFAULT_SEMANTICS, DataVal, Semantics, Seq, pair, unpair
from .vtypes import Datatypes

Env = dict
Code = Callable[[Env], Any]
Binder = Callable[[Any, Env], None]

class FunctionCell:
    """A user function's compiled code, filled in when its definition is compiled.  A call is
    one more active call of the interpreter's ``depth`` (``lambda_cu.support.CallDepth``:
    past ``NESSIE_MAX_CALL_DEPTH`` it raises ``CallTooDeep``, a recursion too deep)."""

    __slots__ = ("name", "bind_param", "body", "depth")

    def __init__(self, name: str, depth: CallDepth) -> None:
        self.name = name
        self.bind_param: Binder | None = None
        self.body: Code | None = None
        self.depth = depth

    def __call__(self, arg: Any) -> Any:
        depth = self.depth
        if depth.active >= depth.limit:
            depth.enter()                  # raises CallTooDeep
        depth.active += 1
        try:
            env: Env = {}
            self.bind_param(arg, env)
            return self.body(env)
        finally:
            depth.active -= 1


class FunctionValue:
    """A function passed as an argument (only in programs monomorphised with
    ``keep_function_args``): called with the argument and the span of the call."""

    __slots__ = ("call",)

    def __init__(self, call: Callable[[Any, Any], Any]) -> None:
        self.call = call

    def __call__(self, arg: Any, span: Any) -> Any:
        return self.call(arg, span)


class Compiler:
    """Compiles typed-AST nodes into closures over one ``Runtime``."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.globals: dict[str, Any] = {}
        self.functions: dict[str, FunctionCell] = {}
        #: the user functions' definitions, and the vector-wise compiler of the apply-to-each
        #: bodies that draw random numbers (``nessie.interp.vector``), made anew when a
        #: function is (re)defined
        self.fundefs: dict[str, T.FunDef] = {}
        self._vector = None
        #: the vector-wise compiler of the order of errors, and the definitions it was made for
        self._vector_all = None
        self._vector_all_of = None
        self.fundefs_version = object()
        #: nesting of element-wise apply-to-each evaluations, and whether a failed one is being
        #: evaluated again vector-wise (see ``_drawing_or``)
        self._ate_depth = 0
        self._replaying = False
        #: the user-function calls active, element-wise or lifted (``NESSIE_MAX_CALL_DEPTH``)
        self.depth = CallDepth()

    @property
    def datatypes(self) -> Datatypes:
        return self.rt.datatypes

    # ------------------------------------------------------------------ definitions

    def cell(self, name: str) -> FunctionCell:
        if name not in self.functions:
            self.functions[name] = FunctionCell(name, self.depth)
        return self.functions[name]

    def define_function(self, fun: T.FunDef) -> None:
        self.fundefs[fun.name] = fun
        self._vector = None
        self.fundefs_version = object()
        cell = self.cell(fun.name)
        cell.bind_param = self.pattern(fun.param)
        cell.body = self.exp(fun.body)

    def define_datatype(self, data: T.DataDef) -> None:
        self.datatypes.add(data.name, data.scheme)

    # ------------------------------------------------------------------ expressions

    def exp(self, node: Any) -> Code:
        method = getattr(self, "exp_" + type(node).__name__, None)
        if method is None:
            raise TypeError(f"cannot evaluate {type(node).__name__}")
        return method(node)

    def exp_Lit(self, node: T.Lit) -> Code:
        value = node.value
        if type(value) is int:
            value = self.rt.sem.wrap(value)
        return lambda env: value

    def exp_StringLit(self, node: T.StringLit) -> Code:
        value = Seq(tuple(node.value))
        return lambda env: value

    def exp_Var(self, node: T.Var) -> Code:
        name = node.name
        return lambda env: env[name]

    def exp_GlobalVar(self, node: T.GlobalVar) -> Code:
        name = node.name
        globals_ = self.globals
        return lambda env: globals_[name]

    def exp_ConstRef(self, node: T.ConstRef) -> Code:
        value = CONSTANTS[node.name](self.rt.sem)
        return lambda env: value

    def exp_Pair(self, node: T.Pair) -> Code:
        fst, snd = self.exp(node.fst), self.exp(node.snd)
        return lambda env: (fst(env), snd(env))

    def exp_Call(self, node: T.Call) -> Code:
        arg = self.exp(node.arg)
        if node.kind == T.BUILTIN:
            fn = BUILTINS[node.name]
            ctx = CallContext(self.rt, node.span, node.fun_type.arg, node.fun_type.result)
            return lambda env: fn(arg(env), ctx)
        if node.kind == T.USER:
            cell = self.cell(node.name)
            return lambda env: cell(arg(env))
        if node.kind == T.CONSTRUCTOR:
            name = node.name
            n = len(self.datatypes.fields(node.type))
            if n == 1:
                return lambda env: DataVal(name, (arg(env),))
            return lambda env: DataVal(name, unpair(arg(env), n))
        if node.kind == T.PARAM:
            # a function parameter (programs monomorphised with keep_function_args): its
            # value is a FunctionValue; a builtin's errors are located at this call
            name, span = node.name, node.span
            return lambda env: env[name](arg(env), span)
        raise TypeError(f"unknown call kind {node.kind!r}")

    def exp_FunRef(self, node: T.FunRef) -> Code:
        """A function passed by name, as a value ``f(arg, span)`` (``keep_function_args``)."""
        if node.kind == T.PARAM:
            name = node.name
            return lambda env: env[name]
        if node.kind == T.USER:
            cell = self.cell(node.name)
            value = FunctionValue(lambda a, span: cell(a))
        elif node.kind == T.BUILTIN:
            fn, rt, ft = BUILTINS[node.name], self.rt, node.type
            value = FunctionValue(lambda a, span: fn(a, CallContext(rt, span, ft.arg, ft.result)))
        elif node.kind == T.CONSTRUCTOR:
            name = node.name
            n = len(self.datatypes.fields(node.type.result))
            value = FunctionValue(lambda a, span: DataVal(name, (a,) if n == 1 else unpair(a, n)))
        else:
            raise TypeError(f"unknown function kind {node.kind!r}")
        return lambda env: value

    def exp_If(self, node: T.If) -> Code:
        cond, then, else_ = self.exp(node.cond), self.exp(node.then), self.exp(node.else_)
        return lambda env: then(env) if cond(env) else else_(env)

    def exp_Let(self, node: T.Let) -> Code:
        bind, bound, body = self.pattern(node.pattern), self.exp(node.bound), self.exp(node.body)

        def let(env: Env) -> Any:
            value = bound(env)
            inner = dict(env)
            bind(value, inner)
            return body(inner)
        return let

    def exp_ApplyToEach(self, node: T.ApplyToEach) -> Code:
        binders = [self.pattern(g.pattern) for g in node.gens]
        sources = [self.exp(g.source) for g in node.gens]
        body = self.exp(node.body)
        filt = self.exp(node.filter) if node.filter is not None else None
        span = node.span

        def apply_to_each(env: Env) -> Seq:
            seqs = [src(env).items for src in sources]
            n = len(seqs[0])
            for s in seqs[1:]:
                if len(s) != n:
                    raise E.RuntimeNeslError(span, E.LENGTH_MISMATCH)
            out = []
            for i in range(n):
                inner = dict(env)
                for bind, s in zip(binders, seqs):
                    bind(s[i], inner)
                if filt is None or filt(inner):
                    out.append(body(inner))
            return Seq(out)

        if len(binders) == 1:  # the common case, without the per-element zip
            (bind,), (source,) = binders, sources

            def apply_to_each_1(env: Env) -> Seq:
                out = []
                for x in source(env).items:
                    inner = dict(env)
                    bind(x, inner)
                    if filt is None or filt(inner):
                        out.append(body(inner))
                return Seq(out)
            return self._drawing_or(node, apply_to_each_1)
        return self._drawing_or(node, apply_to_each)

    def _drawing_or(self, node: T.ApplyToEach, elementwise: Code) -> Code:
        """``elementwise`` — unless ``node`` may draw random numbers: then the vector-wise
        evaluation of ``nessie.interp.vector`` (the original's order of draws).  Decided at the
        first run, when every function is defined (and again after a redefinition).

        Which error a failing apply-to-each reports follows the same order (the original is
        a flattening implementation, and so are the other backends): the element-wise
        evaluation is the fast path; when it fails, the outermost apply-to-each that failed is
        evaluated again vector-wise (``vector.py``, every function lifted), and the first error
        of that order is the one reported — e.g. a conditional's ``then`` branch fails for the
        elements that take it before the ``else`` branch does for the others.  Only bodies
        without effects (no output, no draws: they are vector-wise already) are evaluated
        again.  A call past ``NESSIE_MAX_CALL_DEPTH`` (``CallTooDeep``) is such a failure too:
        the flattened order may meet another error at a shallower level first, as on the λcu
        backends; a stack exhausted by Python frames is not (it is reported at once)."""
        chosen: list = [None, None]          # [vector compiler it was decided with, code]

        def apply_to_each(env: Env) -> Seq:
            vc = self.vector()
            if chosen[0] is not vc:
                chosen[0] = vc
                chosen[1] = vc.apply_to_each(node) if vc.draws.expression(node) else None
            if chosen[1] is not None:
                return chosen[1](env)
            if self._replaying or self._ate_depth:
                self._ate_depth += 1
                try:
                    return elementwise(env)
                finally:
                    self._ate_depth -= 1
            self._ate_depth = 1
            try:
                return elementwise(env)
            except E.RuntimeNeslError as first:
                failed = first
            except CallTooDeep as first:      # the flattened order may meet another error
                failed = first.with_traceback(None)      # first (the frames are freed)
            finally:
                self._ate_depth = 0
            raise self._flattened_error(node, env, failed)
        return apply_to_each

    def _flattened_error(self, node: T.ApplyToEach, env: Env, failed: Exception) -> Exception:
        """The error the vector-wise (flattened) evaluation of ``node`` reports first; ``failed``
        (the element-wise one) if it reports none or cannot evaluate the body."""
        self._replaying = True
        try:
            self.vector(errors=True).apply_to_each(node)(env)
        except E.RuntimeNeslError as err:
            return err
        except (RecursionError, MemoryError):
            raise
        except Exception:   # noqa: BLE001 - a construct the vector compiler lacks: keep ``failed``
            return failed
        finally:
            self._replaying = False
        return failed

    def vector(self, errors: bool = False):
        """The vector-wise compiler: of the bodies that draw (``errors``: of every body, every
        user function lifted — the order of errors)."""
        from .vector import VectorCompiler
        if errors:
            if self._vector_all is None or self._vector_all_of is not self.fundefs_version:
                self._vector_all = VectorCompiler(self, everything=True)
                self._vector_all_of = self.fundefs_version
            return self._vector_all
        if self._vector is None:
            self._vector = VectorCompiler(self)
        return self._vector

    def exp_SeqLit(self, node: T.SeqLit) -> Code:
        elems = [self.exp(e) for e in node.elems]
        return lambda env: Seq(tuple(e(env) for e in elems))

    def exp_EmptySeq(self, node: T.EmptySeq) -> Code:
        empty = Seq(())
        return lambda env: empty

    def exp_Range(self, node: T.Range) -> Code:
        start, end, stride = self.exp(node.start), self.exp(node.end), self.exp(node.stride)
        span = node.span

        make = self.make_range

        def range_(env: Env) -> Seq:
            return make(start(env), end(env), stride(env), span)
        return range_

    @staticmethod
    def make_range(s: int, e: int, d: int, span: Any) -> Seq:
        """``[s:e:d]``; a zero stride is a divide-by-zero error at ``span``."""
        if d == 0:
            raise E.RuntimeNeslError(span, E.DIVIDE_BY_ZERO)
        r = range(s, e, d)
        if len(r) > E.MAX_SEQ_LENGTH:
            raise E.RuntimeNeslError(span, E.SEQUENCE_TOO_LONG)
        return Seq(tuple(r))

    def exp_Time(self, node: T.Time) -> Code:
        inner = self.exp(node.exp)

        def timed(env: Env) -> Any:
            t0 = time.perf_counter()
            value = inner(env)
            return (value, time.perf_counter() - t0)
        return timed

    # ------------------------------------------------------------------ patterns

    def pattern(self, node: Any) -> Binder:
        if isinstance(node, T.PVar):
            name = node.name

            def bind_var(value: Any, env: Env) -> None:
                env[name] = value
            return bind_var
        if isinstance(node, T.PWild):
            return lambda value, env: None
        if isinstance(node, T.PPair):
            fst, snd = self.pattern(node.fst), self.pattern(node.snd)

            def bind_pair(value: Any, env: Env) -> None:
                fst(value[0], env)
                snd(value[1], env)
            return bind_pair
        if isinstance(node, T.PCon):
            arg = self.pattern(node.arg)

            def bind_con(value: DataVal, env: Env) -> None:
                fields = value.fields
                arg(fields[0] if len(fields) == 1 else pair(*fields), env)
            return bind_con
        raise TypeError(f"not a pattern: {node!r}")


def pattern_text(node: Any) -> str:
    """The source form of a top-level pattern, for its result line: ``(p, q)``."""
    if isinstance(node, T.PVar):
        return node.name
    if isinstance(node, T.PWild):
        return "_"
    if isinstance(node, T.PPair):
        parts = []
        while isinstance(node, T.PPair):
            parts.append(pattern_text(node.fst))
            node = node.snd
        parts.append(pattern_text(node))
        return "(" + ", ".join(parts) + ")"
    if isinstance(node, T.PCon):
        inner = pattern_text(node.arg)
        return node.name + (inner if inner.startswith("(") else "(" + inner + ")")
    raise TypeError(f"not a pattern: {node!r}")


class Interpreter:
    """Runs the top-level items of a monomorphic ``TypedProgram`` one by one."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.compiler = Compiler(rt)
        self._announced: set[str] = set()
        self.redefinitions = Redefinitions()

    @property
    def globals(self) -> dict[str, Any]:
        return self.compiler.globals

    def run_items(self, items: Any, typed_items: Any = None) -> None:
        """Run monomorphic top-level ``items``; may be called repeatedly (a REPL).

        ``typed_items`` are the polymorphic items the monomorphic ones came from (the type
        checker's output).  Given them, each ``f = fn : TYPE`` line is printed where ``f``
        is defined in the source, with its polymorphic type; without them, the line is
        printed at the function's first (monomorphic) instance, with that instance's type.
        """
        # Define every function first: monomorphisation places an instance before its
        # first user, not at its source position, and functions may be mutually recursive.
        for item in items:
            if isinstance(item, T.DataDef):
                self.compiler.define_datatype(item)
        for item in items:
            if isinstance(item, T.FunDef):
                self.compiler.define_function(item)
        if typed_items is None:
            for item in items:
                self.run_item(item)
            return
        others = [item for item in items if not isinstance(item, T.FunDef)]
        sources = [item for item in typed_items if not isinstance(item, T.FunDef)]
        if [type(i) for i in others] != [type(i) for i in sources]:
            raise ValueError("the typed items do not correspond to the monomorphic items")
        rest = iter(others)
        for item in typed_items:
            if isinstance(item, T.FunDef):
                self.announce(item.name, item.scheme)
            else:
                self.run_item(next(rest))

    def announce(self, name: str, scheme: Any) -> None:
        for note in self.redefinitions.function(name, scheme):
            self.rt.out.line(note)
        self.rt.out.line(format_function(name, scheme))

    def run_item(self, item: Any) -> None:
        rt = self.rt
        rt.reseed()     # srandom(0) before every top-level item, as the original
        if isinstance(item, T.FunDef):
            name = item.orig_name or item.name
            if name not in self._announced:
                self._announced.add(name)
                self.announce(name, item.scheme)
        elif isinstance(item, T.DataDef):
            if not is_library_item(item):          # defined up front; its constructor's line
                # (printed as the source names it: nessie.mono renames a datatype defined
                # again at another type)
                self.announce(display_name(item.name), item.scheme)
        elif isinstance(item, T.ValBind):
            value = self._evaluate(item.exp)
            self.compiler.pattern(item.pattern)(value, self.globals)
            for note in self.redefinitions.pattern(item.pattern):
                rt.out.line(note)
            rt.out.line(format_binding(item.pattern, value, item.exp.type,
                                       rt.print_length, rt.datatypes))
        elif isinstance(item, T.ExpItem):
            value = self._evaluate(item.exp)
            self.globals["it"] = value
            rt.out.line(format_binding("it", value, item.exp.type, rt.print_length,
                                       rt.datatypes))
        elif isinstance(item, T.SetItem):
            self.set_option(item)
        else:
            raise TypeError(f"unknown top-level item {type(item).__name__}")

    def _evaluate(self, exp: Any) -> Any:
        """The value of a top-level expression; a recursion that exhausts the stack is
        ``RUNTIME ERROR: recursion too deep.`` at the expression (as on every backend)."""
        from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP
        self.compiler.depth.active = 0     # no call is active (NESSIE_MAX_CALL_DEPTH)
        try:
            return self.compiler.exp(exp)({})
        except RecursionError:
            msg = RECURSION_TOO_DEEP  # raised below, once the traceback's frames are freed
        except MemoryError:
            msg = OUT_OF_MEMORY       # likewise, once the partial values are freed
        raise E.RuntimeNeslError(exp.span, msg)

    def set_option(self, item: T.SetItem) -> None:
        if item.name == "print_length":
            self.rt.print_length = int(item.args[0])
        # other options of the original system (e.g. ``set arg_check off``) do not change
        # the results of a program and are ignored


def _in_big_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on the big stack of every stage (``nessie.limits.run_deep``); re-raise its
    error."""
    from nessie.limits import run_deep
    return run_deep(fn, "nesl-interp")


def run_program(program: Any, sem: Semantics = DEFAULT_SEMANTICS,
                out: TextIO | Output | None = None, *, typed: Any = None,
                print_length: int = 100, base_dir: str | None = None) -> Interpreter:
    """Execute a monomorphic program (``nessie.mono.MonoProgram``, or any object with the
    typed-AST ``items``), writing its result lines and output to ``out`` (default:
    standard output).  ``typed`` is the type checker's program it was made from, for the
    ``f = fn : TYPE`` lines (see ``Interpreter.run_items``).  Returns the interpreter (its
    ``globals`` hold the top-level bindings).  Raises ``RuntimeNeslError`` at the first
    run-time error, after the lines of the items before it."""
    rt = Runtime(sem, out, base_dir=base_dir, print_length=print_length)
    interp = Interpreter(rt)
    typed_items = None if typed is None else typed.items
    _in_big_thread(lambda: interp.run_items(program.items, typed_items))
    return interp


def run_source(text: str, filename: str = "<input>", sem: Semantics = DEFAULT_SEMANTICS,
               out: TextIO | Output | None = None, *, print_length: int = 100,
               keep_function_args: bool = False) -> Interpreter:
    """Parse, type-check, monomorphise and run NESL source text (the reference pipeline).
    Files named by ``load`` and by the file builtins are relative to ``filename``'s
    directory.  ``keep_function_args``: functions passed to function parameters are values
    at run time instead of being specialised away (``nessie.mono``), a second implementation
    of higher-order functions for the tests to compare with."""
    import os

    from nessie.mono import monomorphise
    from nessie.syntax import parse_text
    from nessie.types import typecheck

    typed = typecheck(parse_text(text, filename))
    mono = monomorphise(typed, keep_function_args=keep_function_args)
    base_dir = os.path.dirname(os.path.abspath(filename)) if not filename.startswith("<") else None
    return run_program(mono, sem, out, typed=typed, print_length=print_length, base_dir=base_dir)


def call_function(interp: Interpreter, name: str, arg: Any) -> Any:
    """Call the (monomorphic instance) user function ``name`` of a program that has been
    run, e.g. from the Python API or from differential tests."""
    from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP
    fd = interp.compiler.fundefs.get(name)
    box: dict = {}

    def go() -> Any:
        try:
            return interp.compiler.functions[name](arg)
        except RecursionError:
            box["msg"] = RECURSION_TOO_DEEP      # raised below, once the frames are freed
        except MemoryError:
            box["msg"] = OUT_OF_MEMORY
        return None
    value = _in_big_thread(go)
    if "msg" in box:
        # as at a top-level expression: the call is located at the function's definition
        raise E.RuntimeNeslError(getattr(fd, "span", None), box["msg"])
    return value
