"""The Python API: compile a NESL file and call its functions on numpy arrays and Python values.

::

    import numpy as np
    from nessie.api import load

    m = load("nesl_examples/dotp.nesl")                  # a path, or NESL source text
    m.dotp(np.array([1, 2, 3]), np.array([4, 5, 6]))     # -> 32
    m.dotp(np.array([1.5, 2.5]), [2.0, 4.0])             # -> 13.0 (polymorphic: float instance)

    s = load("nesl_examples/sparse_mxv.nesl", backend="lcu")
    s.sparse_mxv([[(0, 2.0), (1, -1.0)], [(1, 3.0)]], np.array([1.0, 2.0]))
                                                         # -> array([0., 6.])

``load(path_or_source, *, backend="auto", fuse=None, int64=False, run_toplevel=True,
stdout=None, device=None)`` compiles the program (raising :class:`~nessie.diagnostics.CompileErrors` with every
error found) and, unless ``run_toplevel=False``, runs its top-level bindings and expressions
(their result lines are kept in ``module.output``, the values in ``module.values``).

``module.NAME(*args, **kwargs)`` calls NESL function ``NAME`` (the last definition of that name;
``module.function(NAME)`` does the same for names that clash with the module's attributes;
keyword arguments use the parameter names).  A function ``f(a, b)`` takes two Python
arguments.  Arguments are converted by the function's parameter types:

============================  ==================================================================
NESL type                     accepted Python values
============================  ==================================================================
``int``                       ``int``, numpy integer (must fit the 32-bit/64-bit NESL int)
``float``                     ``float``, numpy floating, and ints (converted)
``bool``                      ``bool``, ``numpy.bool_``
``char``                      a one-character ``str`` (code < 256)
``[char]``                    ``str``
``[int]``/``[float]``/...     1-d numpy arrays (integer/floating/bool dtypes), lists, tuples
                              are NOT sequences
``[[t]]``                     a list of arrays / a list of lists / an n-d numpy array (its
                              rows); columnar: ``Segmented(values, lengths=|offsets=)``
                              (``values`` any form of ``[t]``), a pyarrow
                              ``ListArray``/``LargeListArray``/``FixedSizeListArray`` (a
                              ``StringArray`` for ``[[char]]``), an awkward ``Array``
``[[(int, t)]]``              also a ``scipy.sparse`` CSR matrix (row i: the (column, value)
                              pairs of its stored entries, in stored order)
``[(t1, ..., tk)]``           a list of tuples; columnar: a structured array (k fields, in
                              order), a tuple (or list of k arrays) of k equal-length columns,
                              an ``(n, k)`` array when every ``ti`` is a scalar type, a pyarrow
                              ``StructArray`` or ``Table``, an awkward array of records/tuples
``[t]`` (flat)                also a pyarrow ``Array``/``ChunkedArray``, an awkward ``Array``
``(t1, t2, ...)``             a Python tuple ``(x1, x2, ...)`` (flat: NESL ``(a, b, c)``)
datatype ``d(t1, ...)``       ``DataVal("d", (x1, ...))`` or the tuple of its fields
============================  ==================================================================

A 0-d numpy array stands for its element (``np.array(3)`` an ``int``, ``np.array("ab")`` a
``str``).  A ``DataVal`` a function returns remembers the definition of its datatype: where
a datatype is defined again at another type, a value of one definition passed where the other
is expected raises a ``TypeError``.

Columnar forms are converted with numpy-vectorised code (no Python work per element or per
segment) and reach the compiled backends as flat vectors and segment descriptors (the
caller's arrays themselves, read-only, when their dtype already is NESL's); the interpreter
gets Python values built from them.  A malformed one (wrong dtype or field count, negative
lengths, offsets not monotone, columns of different lengths, Arrow nulls, awkward ``None``,
a numpy masked array) raises a ``TypeError``/``ValueError`` naming the function, the parameter
and its NESL type; nested lists stay accepted (converted element by element).

A polymorphic function is instantiated at the types of its arguments (e.g. ``qsort`` on an
integer array runs ``qsort<int>``; an empty list gives the element type ``int`` unless another
argument fixes it).  An argument that does not fit raises a ``TypeError`` naming the parameter
and its expected NESL type; an integer outside the NESL int range raises ``OverflowError``.

Results come back as Python values: scalars as ``int``/``float``/``bool``/one-character
``str``; ``[char]`` as ``str``; flat sequences of scalars as numpy arrays (``int32``, or
``int64`` with ``int64=True``; ``float64``; ``bool``); other sequences as lists (a sequence of
tuples as a list of tuples, nested sequences as lists of arrays); tuples as Python tuples;
datatype values as ``DataVal``.  ``load(..., results="numpy")`` (or
``m.function(name, results="numpy")`` for one function) returns sequences in columnar form
instead, without per-element Python work: flat sequences as numpy arrays, ``[(t1, ..., tk)]``
of scalars as a structured array (fields ``f0``...), other sequences of tuples as a tuple of
columns, nested sequences as :class:`Segmented`, ``[char]`` as ``str``; ``results="arrow"``
gives pyarrow arrays (``StructArray``, ``LargeListArray``, ``LargeStringArray``) and
``results="awkward"`` awkward Arrays; values containing datatypes come back as by default.
Columnar results are accepted back as arguments.  A NESL runtime error raises
:class:`~nessie.diagnostics.RuntimeNeslError` (``str()`` gives the source position).

Backends: ``"auto"`` (the default, as the CLI's) is ``"opencl"`` (``"interp"`` with
``int64=True``); ``"opencl"`` flattens and (by default) fuses the called function like ``"lcu"``
and runs its kernels as generated OpenCL on ``device`` (``None``: ``PYOPENCL_CTX``, else a GPU if
present, else PoCL; ``"cpu"``, ``"gpu"`` or ``"P:D"``), vectors staying on the device between
kernels; ``fuse`` defaults to ``True`` on the flattening backends.  ``"interp"`` is the reference
interpreter; ``"lcu"`` flattens the called function
instance (and the functions it calls) to λcu with :func:`nessie.driver.flatten`'s flattener,
optionally fuses it (``fuse=True``), and runs it on the numpy λcu interpreter; arrays go in and
come out as flat numpy vectors and segment descriptors without per-element Python work.  A
construct the flattener does not support raises ``nessie.flatten.FlattenUnsupported``, except
with ``backend="auto"``, which then runs the module on the reference interpreter (a
``RuntimeWarning`` says why), as ``nessie run`` does.  On both
backends a function that reads top-level values (``k = 10; function f(x) = x + k;``) uses the
values computed when the module was loaded (so it needs ``run_toplevel=True``).
``module.launches`` counts the kernel launches of the last λcu call.
"""
from __future__ import annotations

import contextlib
import re
import threading

import io
import os
from typing import Any, Callable, Optional

from nessie.convert import (RESULT_FORMATS, ArgTypeError, ArgValueError, Mismatch, PyConv,
                             Segmented, TypeOf, Unifier, datatypes, describe, leaves_to_value,
                             value_to_leaves)
from nessie.diagnostics import CompileError, CompileErrors, RuntimeNeslError, with_sources
from nessie.interp.values import DataVal, pair
from nessie.types import typed_ast as T
from nessie.types.types import (INT, CLASS_MEMBERS, Namer, Scheme, TBase, TFun, TPair, TSeq, TVar,
                                Type, free_vars, subst_type, type_to_str)

__all__ = ["load", "Module", "Function", "DataVal", "Segmented"]

BACKENDS = ("auto", "opencl", "lcu", "interp")


# ============================================================================== loading
def load(source: Any, *, backend: str = "auto", fuse: Optional[bool] = None, int64: bool = False,
         run_toplevel: bool = True, stdout: Any = None, filename: Optional[str] = None,
         device: Optional[str] = None, results: str = "python") -> "Module":
    """Compile a NESL program and return it as a :class:`Module` whose NESL functions are
    called as Python methods (``m.dotp(xs, ys)``).

    ``source`` is a path (a ``str`` naming a file or ending in ``.nesl``, one line without
    ``;``, ``$`` or white space that has a directory part or an extension, or an
    ``os.PathLike``) or NESL source text.  ``backend``: ``"auto"`` (default, as the CLI:
    ``"opencl"``, or ``"interp"`` with ``int64=True``), ``"opencl"`` (on ``device``: ``None``,
    ``"cpu"``, ``"gpu"`` or ``"P:D"``), ``"lcu"`` (numpy kernel runner) or ``"interp"`` (the
    reference interpreter); ``fuse`` (default True on opencl/lcu) switches kernel fusion;
    ``int64`` makes NESL ``int`` 64-bit; ``run_toplevel`` runs the program's top-level
    bindings and expressions (printed lines in ``m.output``, values in ``m.values``; printed on
    ``stdout`` if given).  Raises ``nessie.diagnostics.CompileErrors`` for syntax and type
    errors.  ``results`` is the form of the functions' results: ``"python"`` (default: numpy
    arrays for flat sequences, lists and tuples otherwise), ``"numpy"`` (columnar: structured
    arrays, :class:`Segmented`), ``"arrow"`` or ``"awkward"``; ``m.function(name,
    results=...)`` picks it per function.  ``nessie.api``'s docstring describes how arguments
    and results are converted."""
    _check_options("load", backend=backend, fuse=fuse, int64=int64,
                   run_toplevel=run_toplevel, filename=filename, device=device, results=results)
    _check_stdout(stdout)
    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and ";" not in source
            and (os.path.exists(source) or source.endswith(".nesl") or _looks_like_path(source))):
        path = os.fspath(source)
        if not isinstance(path, str):
            raise TypeError(f"load() wants a str path, not {type(path).__name__}")
        text = _read_program(path)
        name = filename or path
    elif isinstance(source, str):
        text = source
        name = filename or "<string>"
    else:
        raise TypeError(f"load() wants a file path or NESL source text, not "
                        f"{type(source).__name__}")
    return Module(text, name, backend=backend, fuse=fuse, int64=int64,
                  run_toplevel=run_toplevel, stdout=stdout, device=device, results=results)


def _looks_like_path(text: str) -> bool:
    """A one-line string that no NESL program can be (no ``;`` or ``$`` ends an item in it)
    and that names a file: no white space, and a directory part or an extension
    (``prog.NESL``, ``dir/prog``), so that a missing file is said to be one."""
    return ("$" not in text and re.fullmatch(r"\S+", text) is not None
            and ("/" in text or os.sep in text or re.search(r"\.[A-Za-z]\w*$", text) is not None))


def _check_stdout(stdout: Any) -> None:
    """``stdout`` is None or a text stream (checked before anything is compiled)."""
    if stdout is None:
        return
    if not callable(getattr(stdout, "write", None)):
        raise TypeError(f"stdout must be a text stream with a write method (io.StringIO(), "
                        f"sys.stdout, an open text file), not {type(stdout).__name__}")
    if isinstance(stdout, (io.RawIOBase, io.BufferedIOBase)):
        raise TypeError(f"stdout must be a text stream, not the binary {type(stdout).__name__} "
                        f"(io.TextIOWrapper(...) makes one)")
    if getattr(stdout, "closed", False) is True:
        raise ValueError(f"stdout is a closed {type(stdout).__name__}: pass an open text stream")


def _read_program(path: str) -> str:
    """The text of program file ``path``, with the CLI's errors (``nessie.sources``): a missing
    file is ``FileNotFoundError``, a directory ``IsADirectoryError``, another unreadable file
    ``OSError``, each naming it; a file that is not UTF-8 text raises ``CompileErrors`` located
    at the first bad byte."""
    import errno

    from nessie.sources import UsageError, read_source
    if path == "-":                       # read_source's name for standard input: a file here
        path = os.path.join(os.curdir, path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a NESL file", path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such NESL file", path)
    try:
        text, _ = read_source(path)
    except UsageError as e:
        raise OSError(f"load(): {e}") from None
    except CompileError as e:             # not UTF-8 text
        raise CompileErrors([e], {}) from None
    return text


def _check_options(where: str, *, backend: Any = "auto", fuse: Any = None, int64: Any = False,
                   run_toplevel: Any = True, filename: Any = None, device: Any = None,
                   results: Any = "python") -> None:
    """``TypeError``/``ValueError`` for a malformed option of ``load``/``Module``."""
    def is_bool(x: Any) -> bool:
        import numpy as np
        return isinstance(x, (bool, np.bool_))
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"{where}(): backend must be one of {', '.join(BACKENDS)}, not "
                         f"{backend!r}")
    if not isinstance(results, str) or results not in RESULT_FORMATS:
        raise ValueError(f"{where}(): results must be one of {', '.join(RESULT_FORMATS)}, not "
                         f"{results!r}")
    if fuse is not None and not is_bool(fuse):
        raise TypeError(f"{where}(): fuse must be a bool (or None: the backend's default), not "
                        f"{type(fuse).__name__} {fuse!r}")
    for name, val in (("int64", int64), ("run_toplevel", run_toplevel)):
        if not is_bool(val):
            raise TypeError(f"{where}(): {name} must be a bool, not {type(val).__name__} "
                            f"{val!r}")
    if filename is not None and not isinstance(filename, str):
        raise TypeError(f"{where}(): filename must be a str, not {type(filename).__name__}")
    if device is not None and not isinstance(device, str):
        raise TypeError(f"{where}(): device must be a str (\"cpu\", \"gpu\" or \"P:D\") or "
                        f"None, not {type(device).__name__} {device!r}")
    if device is not None and device not in ("auto", "cpu", "gpu") \
            and not re.fullmatch(r"\d+(:\d*)?", device):
        raise ValueError(f"{where}(): device must be \"auto\", \"cpu\", \"gpu\" or "
                         f"\"PLATFORM:DEVICE\" numbers (\"0:1\"), not {device!r}")
    if int64 and backend in ("lcu", "opencl"):
        raise ValueError(f"{where}(): int64=True (64-bit NESL ints) runs on backend=\"interp\" "
                         f"only (or \"auto\", which then uses it); the {backend} backend uses "
                         f"32-bit ints")


# ============================================================================== functions
def _param_spine(pattern: Any, arg_type: Type) -> list:
    """``[(component pattern, component type)]`` of a parameter pattern ``(a, b, c)``."""
    if isinstance(pattern, T.PPair) and isinstance(arg_type, TPair):
        return [(pattern.fst, arg_type.fst)] + _param_spine(pattern.snd, arg_type.snd)
    return [(pattern, arg_type)]


def _pattern_name(p: Any) -> str:
    from nessie.interp.eval import pattern_text
    try:
        return pattern_text(p)
    except TypeError:
        return "?"


class Function:
    """A NESL function of a :class:`Module`, callable with Python values."""

    def __init__(self, module: "Module", fundef: T.FunDef, results: Optional[str] = None) -> None:
        self._module = module
        self.results = results          # None: the module's
        self.fundef = fundef
        self.name = fundef.name
        self.scheme: Scheme = fundef.scheme
        spine = _param_spine(fundef.param, fundef.scheme.type.arg)
        self.params = [_pattern_name(p) for p, _ in spine]
        self.param_types = [t for _, t in spine]
        self.__name__ = self.__qualname__ = fundef.name
        self.__doc__ = self._doc()
        self._instances: dict = {}

    def _doc(self) -> str:
        """What ``help(m.f)`` shows: the call, the NESL type and the function's documentation
        (its doc string, else the comment just before its definition, as the REPL's
        ``describe``)."""
        from nessie.doc import doc_comment
        fd = self.fundef
        lines = [f"NESL function {self.name}({', '.join(self.params)})", "",
                 f"    {self.signature}", ""]
        doc = fd.doc or doc_comment(fd.span, self._module.sources)
        lines.append(doc if doc else "(no documentation: write a % comment % just before the "
                                     "definition)")
        if fd.span is not None:
            lines += ["", f"defined at {fd.span}"]
        return "\n".join(lines)

    @property
    def __signature__(self):
        """The Python signature (``inspect.signature``): a parameter whose NESL name is no
        Python name (a tuple pattern ``(a, b)``, a Python keyword such as ``lambda``) is shown
        as ``argN`` (``lambda_`` for a keyword) and can still be passed by its NESL name."""
        import inspect
        return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                  for n in self._python_names()])

    def _python_names(self) -> list:
        """The parameters' names in :attr:`__signature__`: the NESL name, else ``argN`` (a
        tuple pattern) or ``NAME_`` (a Python keyword); a call may pass either."""
        import keyword
        names: list = []
        for i, p in enumerate(self.params, 1):
            name = p + "_" if keyword.iskeyword(p) else p
            if not name.isidentifier():
                name = f"arg{i}"
            while name in names or (name != p and name in self.params):
                name += "_"
            names.append(name)
        return names

    @property
    def signature(self) -> str:
        from nessie.types.lettering import scheme_to_str
        return f"{self.name} : {scheme_to_str(self.scheme)}"

    def __repr__(self) -> str:
        return f"<NESL function {self.signature}>"

    # ---------------------------------------------------------------- argument typing
    def _type_str(self, t: Type, u: Unifier) -> str:
        namer = Namer()
        type_to_str(self.scheme.type, True, namer)
        shown = u.zonk(t)
        s = type_to_str(shown, False if isinstance(shown, TPair) else True, namer)
        ctx = [f"{namer.names[v]} in {self.scheme.class_of(v)}"
               for v in free_vars(shown) if v in self.scheme.vars
               and self.scheme.class_of(v) != "any"]
        return s + (f" :: ({'; '.join(ctx)})" if ctx else "")

    def _bind_args(self, args: tuple, kwargs: dict) -> list:
        n = len(self.params)
        if len(args) > n:
            raise TypeError(f"{self.name}() takes {n} argument{'s' if n != 1 else ''} "
                            f"({', '.join(self.params)}), {len(args)} given")
        vals = list(args) + [None] * (n - len(args))
        given = [True] * len(args) + [False] * (n - len(args))
        aliases = self._python_names()
        for k, v in kwargs.items():
            if k in self.params:
                i = self.params.index(k)
            elif k in aliases:
                i = aliases.index(k)          # the name inspect.signature shows
            else:
                raise TypeError(f"{self.name}() has no parameter {k!r} "
                                f"(parameters: {', '.join(self.params)})")
            if given[i]:
                raise TypeError(f"{self.name}() got two values for parameter {k!r}")
            vals[i], given[i] = v, True
        missing = [p for p, g in zip(self.params, given) if not g]
        if missing:
            raise TypeError(f"{self.name}() missing argument{'s' if len(missing) > 1 else ''}: "
                            f"{', '.join(missing)} (signature {self.signature})")
        return vals

    def _internal_type(self) -> TFun:
        """The function's type naming the datatypes by the definitions in force where it was
        defined (``pt~2`` for the second definition of ``pt`` at another type, ``nessie.mono``):
        what its arguments and results are converted with."""
        return self._module._mono.renamed_type(self.name, self.scheme.type)

    def instance_type(self, vals: list, memo: Optional[dict] = None) -> tuple:
        """Ground parameter types for Python argument values: ``(TFun, [param types])``, the
        datatypes named by their definitions (:meth:`_internal_type`)."""
        u = Unifier()
        typeof = TypeOf(u, self._module._datadefs, memo)
        itype = self._internal_type()
        param_types = [t for _, t in _param_spine(self.fundef.param, itype.arg)]
        for i, (v, pt, pname) in enumerate(zip(vals, param_types, self.params), 1):
            if _has_function_type(pt):
                raise TypeError(f"{self.name}: argument {i} ({pname}) is a function, which the "
                                f"Python API cannot pass (got {describe(v)}): call a NESL "
                                f"function that calls {self.name} with a function named in "
                                f"NESL (signature {self.signature})")
            before = Unifier()
            before.s = dict(u.s)
            try:
                typeof.check(v, pt, pname)
            except (ArgTypeError, ArgValueError) as e:
                raise type(e)(f"{self.name}: argument {i} ({pname}) must be "
                              f"{self._type_str(pt, before)}: {e}") from None
            except Mismatch as m:
                detail = ""
                if m.path != pname:
                    detail = (f"; {m.path} is {describe(m.value)}, where "
                              f"{self._type_str(m.expected, before)} is expected")
                expected = self._type_str(pt, before)
                generic = self._type_str(pt, Unifier())
                if expected != generic:
                    expected += " (the earlier arguments fix the type variables)"
                raise TypeError(f"{self.name}: argument {i} ({pname}) must be "
                                f"{expected}; got {describe(v)}{detail} "
                                f"(signature {self.signature})") from None
        for var, cls in zip(self.scheme.vars, self.scheme.classes):
            t = u.zonk(TVar(var))
            if cls != "any" and not isinstance(t, TVar) and not (
                    isinstance(t, TBase) and t.name in CLASS_MEMBERS[cls]):
                namer = Namer()
                type_to_str(self.scheme.type, True, namer)
                raise TypeError(f"{self.name}: type variable {namer(var)} must be in {cls} "
                                f"({', '.join(sorted(CLASS_MEMBERS[cls]))}) but the arguments "
                                f"make it {type_to_str(t)} (signature {self.signature})")
        ground = [self._ground(u.zonk(pt)) for pt in param_types]
        sub = {v: self._ground(u.zonk(TVar(v))) for v in self.scheme.vars}
        fun = TFun(self._ground(subst_type(u.zonk(itype.arg), sub)),
                   self._ground(subst_type(itype.result, sub)))
        return fun, ground

    @staticmethod
    def _ground(t: Type) -> Type:
        return subst_type(t, {v: INT for v in free_vars(t)})

    def convert_args(self, vals: list, ground: list, memo: Optional[dict] = None) -> list:
        conv = self._module._conv
        out = []
        for i, (v, t, pname) in enumerate(zip(vals, ground, self.params), 1):
            try:
                out.append(conv.norm(v, t, pname, memo))
            except (ArgTypeError, ArgValueError) as e:
                raise type(e)(f"{self.name}: argument {i} ({pname}) must be {type_to_str(t)}: "
                              f"{e}") from None
            except Mismatch:
                raise TypeError(f"{self.name}: argument {i} ({pname}) must be "
                                f"{type_to_str(t)}; got {describe(v)} "
                                f"(signature {self.signature})") from None
            except OverflowError as e:
                raise OverflowError(f"{self.name}: argument {i} ({pname}): {e}") from None
        return out

    # ---------------------------------------------------------------- calling
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        vals = self._bind_args(args, kwargs)
        memo: dict = {}           # columnar forms converted once, for typing and normalising
        def convert() -> tuple:
            fun, ground = self.instance_type(vals, memo)
            return fun, ground, self.convert_args(vals, ground, memo)
        deep = False
        try:
            fun, ground, norm = convert()
        except RecursionError:
            # a deep value of a recursive datatype (cycles and values deeper than a type
            # variable are refused level by level): converted again on the big stack
            deep = True
        if deep:
            from nessie.limits import run_deep
            memo.clear()
            try:
                fun, ground, norm = run_deep(convert, "nessie-api-args")
            except RecursionError:
                deep = False
            if not deep:
                raise ValueError(f"{self.name}: an argument is nested too deeply to convert "
                                 f"(signature {self.signature})")
        return self._module._call(self, fun, ground, norm,
                                  self.results or self._module.results)


def _has_function_type(t: Type) -> bool:
    """Whether a function type occurs in ``t`` (a parameter that takes a function)."""
    if isinstance(t, TFun):
        return True
    if isinstance(t, TPair):
        return _has_function_type(t.fst) or _has_function_type(t.snd)
    if isinstance(t, TSeq):
        return _has_function_type(t.elem)
    return False


# ============================================================================== modules
class Module:
    """A compiled NESL program (see the module docstring)."""

    def __init__(self, text: str, filename: str = "<string>", *, backend: str = "auto",
                 fuse: Optional[bool] = None, int64: bool = False, run_toplevel: bool = True,
                 stdout: Any = None, device: Optional[str] = None,
                 results: str = "python") -> None:
        from nessie import passes
        from nessie.diagnostics import CompileErrors
        from nessie.driver import int_literal_errors
        from nessie.mono import Monomorphiser

        if not isinstance(text, str):
            raise TypeError(f"Module() wants NESL source text (a str), not "
                            f"{type(text).__name__}: nessie.load(path) reads a file")
        _check_options("Module", backend=backend, fuse=fuse, int64=int64,
                       run_toplevel=run_toplevel, filename=filename, device=device,
                       results=results)
        _check_stdout(stdout)
        self.results = results
        self._auto = backend == "auto" and device is None
        if backend == "auto":
            # the CLI's default: OpenCL (64-bit ints run on the reference interpreter); without
            # a usable OpenCL device, lcu (a warning says why, when the runner is first needed)
            backend = "interp" if int64 else "opencl"
        if device is not None and backend != "opencl":
            raise ValueError("device= applies to backend='opencl' only")
        self.backend = backend
        self.device = device
        self.fuse = (backend != "interp") if fuse is None else bool(fuse)
        self._runner_obj = None
        #: calls from several threads take turns: a module's runner, interpreter and caches
        #: are one state (and OpenCL runners of one device share a queue and kernels: their
        #: context's lock is held too, ``_call``)
        self._lock = threading.RLock()
        self.filename = filename
        self.int_bits = 64 if int64 else 32
        self._stdout = stdout
        # the front end through the registered passes (nessie.passes), as the CLI and REPL do
        front = passes.run(text, passes.Options(filename=filename, int_bits=self.int_bits),
                           until="typecheck")
        #: file name -> text of the program and of the files it loads (for messages)
        self.sources = front["ast"].sources
        self.typed = front["typed"]
        bad = int_literal_errors(self.typed.items, self.int_bits)
        if bad:
            raise CompileErrors(bad, self.sources)
        self._datadefs = _datadefs(self.typed.items)
        self._fundefs = {it.name: it for it in self.typed.items if isinstance(it, T.FunDef)}
        self._conv = PyConv(self._datadefs, self.int_bits)
        self._mono = Monomorphiser()
        self._functions: dict = {}
        self._flat_cache: dict = {}
        self._reach_cache: dict = {}
        self._globals_ok: dict = {}
        self._globals_iv: dict = {}
        self._interp = None
        self._mono_items: list = []
        self.output = ""
        self.values: dict = {}
        self.launches = None
        self._ran = run_toplevel
        try:
            if backend == "interp":
                self._sourced(lambda: self._setup_interp(run_toplevel))
            else:
                for it in self.typed.items:
                    if isinstance(it, (T.FunDef, T.DataDef)):
                        self._mono.add(it)
                if run_toplevel:
                    try:
                        self._sourced(self._run_lcu_toplevel)
                    except _unsupported() as e:
                        if not self._auto:
                            raise
                        self._fall_back_to_interp(e)
        finally:
            # the top level's printed lines (up to a runtime error's) go to ``stdout`` too
            if stdout is not None and self.output:
                stdout.write(self.output)

    def _fall_back_to_interp(self, why: Exception) -> None:
        """``backend="auto"`` on a program (or a function instance) beyond the flattener's
        coverage: the module runs on the reference interpreter from now on, as ``nessie run``
        does (a warning says why).  The top-level items run again there if they were run."""
        import warnings

        from nessie.mono import Monomorphiser
        warnings.warn(f"nessie: running on the reference interpreter: {why}", RuntimeWarning,
                      stacklevel=4)
        self.backend, self.fuse, self._auto = "interp", False, False
        self._mono = Monomorphiser()
        self._flat_cache.clear()
        self._globals_ok.clear()
        self.values = {}
        self._sourced(lambda: self._setup_interp(self._ran))

    # ---------------------------------------------------------------- introspection
    @property
    def functions(self) -> list:
        """Names of the program's functions (in definition order)."""
        return list(self._fundefs)

    def function(self, name: str, results: Optional[str] = None) -> Function:
        """NESL function ``name``; with ``results`` (``"python"``, ``"numpy"``, ``"arrow"``,
        ``"awkward"``) one whose results come back in that form instead of the module's."""
        if not isinstance(name, str):
            raise TypeError(f"function(): the name of a NESL function must be a str, not "
                            f"{type(name).__name__} {name!r}")
        if results is not None:
            if not isinstance(results, str) or results not in RESULT_FORMATS:
                raise ValueError(f"results must be one of {', '.join(RESULT_FORMATS)}, not "
                                 f"{results!r}")
            return Function(self, self.function(name).fundef, results)
        key = name.lower()
        if key not in self._fundefs:
            raise AttributeError(f"{self.filename} defines no NESL function {name!r} "
                                 f"(functions: {', '.join(self._fundefs) or 'none'})")
        if key not in self._functions:
            self._functions[key] = Function(self, self._fundefs[key])
        return self._functions[key]

    def signature(self, name: str) -> str:
        return self.function(name).signature

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.function(name)

    def __getitem__(self, name: str) -> Function:
        return self.function(name)

    def __dir__(self) -> list:
        """The NESL functions and the public attributes (no private or special names), so that
        ``dir(m)`` and tab completion show the program's functions."""
        public = {n for n in super().__dir__() if not n.startswith("_")}
        return sorted(public | set(self._fundefs))

    def __repr__(self) -> str:
        return (f"<NESL module {self.filename} ({self.backend}): "
                f"{', '.join(self._fundefs) or 'no functions'}>")

    # ---------------------------------------------------------------- interp backend
    def _runtime_out(self):
        from nessie.interp.builtins import Output
        import sys
        return Output(self._stdout if self._stdout is not None else sys.stdout)

    def _setup_interp(self, run_toplevel: bool) -> None:
        from nessie.interp.builtins import Output, Runtime
        from nessie.interp.eval import Interpreter, _in_big_thread
        from nessie.interp.values import Semantics

        base = None if self.filename.startswith("<") else \
            os.path.dirname(os.path.abspath(self.filename))
        buf = io.StringIO()
        rt = Runtime(Semantics(int_bits=self.int_bits), Output(buf), base_dir=base)
        self._interp = Interpreter(rt)
        typed_items = [it for it in self.typed.items
                       if run_toplevel or isinstance(it, (T.FunDef, T.DataDef))]
        mono_items = []
        for it in typed_items:
            mono_items.extend(self._mono.add(it))
        try:
            _in_big_thread(lambda: self._interp.run_items(mono_items, typed_items))
        finally:
            self.output = buf.getvalue()
        if run_toplevel:
            env_globals = self.typed.env.globals if self.typed.env is not None else {}
            # the types as monomorphised: a datatype defined again at another type is named by
            # the definition each value was made with (``pt~2``)
            mono_types = _toplevel_types(mono_items)
            for name, ty in env_globals.items():
                if name in self._interp.globals:
                    self.values[name] = self._conv.from_interp(self._interp.globals[name],
                                                               mono_types.get(name, ty))

    def _call_interp(self, fn: Function, fun: TFun, args: list, fmt: str = "python") -> Any:
        from nessie.interp.eval import call_function
        start = len(self._mono.out)
        inst = self._mono.instantiate(fn.name, fun, internal=True)
        for it in self._mono.out[start:]:
            if isinstance(it, T.FunDef):
                self._interp.compiler.define_function(it)
        self._globals_used(inst)
        values = _deep_ok(lambda: [self._conv.to_interp(a, t)
                                   for a, t in zip(args, self._arg_types(fn, fun))])
        arg = values[0] if len(values) == 1 else pair(*values)
        self._interp.rt.out = self._runtime_out()
        self._interp.rt.reseed()      # a call is a top-level item: srandom(0) first
        result = call_function(self._interp, inst, arg)
        return _deep_ok(lambda: self._conv.interp_result(result, fun.result, fmt))

    @staticmethod
    def _arg_types(fn: Function, fun: TFun) -> list:
        return [t for _, t in _param_spine(fn.fundef.param, fun.arg)]

    def _reachable(self, inst: str) -> list:
        """The monomorphic function definitions reachable from instance ``inst``."""
        if inst in self._reach_cache:
            return self._reach_cache[inst]
        defs = {it.name: it for it in self._mono.out if isinstance(it, T.FunDef)}
        seen, order, todo = set(), [], [inst]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            fd = defs[n]
            order.append(fd)
            for node in T.iter_nodes(fd.body):
                if isinstance(node, T.Call) and node.kind == T.USER:
                    todo.append(node.name)
        self._reach_cache[inst] = order
        return order

    def _global_values(self) -> dict:
        """Top-level values (interpreter representation) by name."""
        return self._interp.globals if self._interp is not None else self._globals_iv

    def _globals_used(self, inst: str) -> list:
        """``[(name, type)]`` of the top-level values read by ``inst`` and the functions it
        calls, sorted by name (the flattener's extra leading parameters of a λcu function);
        raises if one of them was not computed."""
        if inst not in self._globals_ok:
            used: dict = {}
            for fd in self._reachable(inst):
                for node in T.iter_nodes(fd.body):
                    if isinstance(node, T.GlobalVar):
                        if node.name not in self._global_values():
                            raise RuntimeError(
                                f"{fd.orig_name or fd.name} uses the top-level value "
                                f"{node.name}, which was not computed (load the module with "
                                f"run_toplevel=True)")
                        used[node.name] = node.type
            self._globals_ok[inst] = sorted(used.items())
        return self._globals_ok[inst]

    # ---------------------------------------------------------------- λcu backend
    def _runner(self):
        """The kernel runner of the flattening backends (one per module: the OpenCL runner keeps
        its compiled kernels)."""
        if self._runner_obj is None:
            from nessie import driver
            try:
                self._runner_obj = driver.make_runner(self.backend, self.device)
            except RuntimeError as e:       # no usable OpenCL device
                if not (self._auto and self.backend == "opencl"):
                    raise
                import warnings
                warnings.warn(f"nessie: running on the lcu backend (numpy): {e}", RuntimeWarning,
                              stacklevel=3)
                self.backend = "lcu"
                self._runner_obj = driver.make_runner("lcu")
        return self._runner_obj

    def _run_lcu_toplevel(self) -> None:
        from nessie import driver
        from nessie.mono import monomorphise

        c = driver.Compiled(self.filename, self.typed, monomorphise(self.typed))
        flat = driver.flatten(c, int_bits=self.int_bits)
        if self.fuse:
            flat = _fused(flat)
        buf = io.StringIO()
        try:
            it = driver.run_lcu(c, flat, buf, int_bits=self.int_bits, runner=self._runner())
        finally:
            self.output = buf.getvalue()
        dts = datatypes(c.mono.items)
        for top in flat.items:
            if top.kind not in ("val", "exp"):
                continue
            leaves = [it.runner.to_host(it.globals[n]) for n in top.leaves]
            value = leaves_to_value(flat.typemap, top.type, leaves, dts)
            if top.kind == "val":
                self._bind_values(top.item.pattern, value)
            else:
                self._globals_iv["it"] = value
                self.values["it"] = self._conv.from_interp(value, top.type)

    def _bind_values(self, p: Any, value: Any) -> None:
        if isinstance(p, T.PVar):
            self._globals_iv[p.name] = value
            self.values[p.name] = self._conv.from_interp(value, p.type)
        elif isinstance(p, T.PPair):
            self._bind_values(p.fst, value[0])
            self._bind_values(p.snd, value[1])
        elif isinstance(p, T.PCon):
            f = value.fields
            self._bind_values(p.arg, f[0] if len(f) == 1 else pair(*f))

    def _flat_for(self, inst: str):
        if inst in self._flat_cache:
            return self._flat_cache[inst]
        from nessie import driver
        from nessie.flatten import FlattenUnsupported
        from nessie.mono import MonoProgram
        from lambda_cu import interp as LI

        funs = list(reversed(self._reachable(inst)))   # callees first
        # the datatypes as monomorphised (one defined again at another type is renamed)
        items = tuple(it for it in self._mono.out if isinstance(it, T.DataDef)) + tuple(funs)
        c = driver.Compiled(self.filename, self.typed, MonoProgram(items))
        try:
            flat = driver.flatten(c, int_bits=self.int_bits)
        except FlattenUnsupported as e:
            raise FlattenUnsupported(f"{inst}: {e}") from None
        if self.fuse:
            flat = _fused(flat)
        fname = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in inst)
        externs, rt = driver.make_externs(c, flat, io.StringIO(), int_bits=self.int_bits)
        from lambda_cu.executor import Executor
        entry = (flat, Executor(flat.program, self._runner(), True, externs=externs), fname, rt)
        self._flat_cache[inst] = entry
        return entry

    def _call_lcu(self, fn: Function, fun: TFun, args: list, fmt: str = "python") -> Any:
        from lambda_cu import interp as LI
        from nessie import driver

        inst = self._mono.instantiate(fn.name, fun, internal=True)
        flat, interp, fname, rt = self._flat_for(inst)
        rt.out = self._runtime_out()
        rt.reseed()                   # a call is a top-level item: srandom(0) first
        leaves: list = []
        expected = []
        for g, ty in self._globals_used(inst):   # top-level values: leading parameters
            leaves += value_to_leaves(flat.typemap, ty, self._globals_iv[g])
            expected += flat.typemap.value_leaf_types(ty)
        def arg_leaves() -> list:
            out: list = []
            for a, t in zip(args, self._arg_types(fn, fun)):
                self._conv.to_leaves(a, t, out)
            return out
        leaves += _deep_ok(arg_leaves)
        ifun = fun                    # named by the datatypes' definitions (instance_type)
        expected += flat.typemap.value_leaf_types(ifun.arg)
        if len(leaves) != len(expected):  # pragma: no cover - a bug in the conversion
            raise AssertionError(f"{len(leaves)} leaves for {len(expected)} parameters")
        interp.launches.clear()
        try:
            res = interp.runner.to_host(interp.call(fname, *leaves))
        except LI.LcuRuntimeError as err:
            # located as a top-level expression's error: at the called function's definition
            # when the error has no place of its own (recursion too deep)
            loc = err.location if err.location is not None else fn.fundef.span
            raise RuntimeNeslError(loc, err.message) from None
        finally:
            try:
                rt.out.stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        self.launches = dict(interp.launches)
        n = len(flat.typemap.value_leaf_types(ifun.result))
        out = [res] if n == 1 else list(res)
        return _deep_ok(lambda: self._conv.result(fun.result, out, fmt))

    def _call(self, fn: Function, fun: TFun, ground: list, args: list,
              fmt: str = "python") -> Any:
        """Call ``fn`` at instance ``fun`` on every backend; a ``MemoryError`` or
        ``RecursionError`` while converting, running or converting back is the runtime error
        ``out of memory`` / ``recursion too deep`` located at the function, as the CLI reports
        them at a top-level expression (``nessie.limits``)."""
        from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP
        fail = None
        try:
            with self._lock:
                runner = self._runner() if self.backend != "interp" else None
                device = getattr(getattr(runner, "c", None), "lock", None)
                with device if device is not None else contextlib.nullcontext():
                    return self._call_on_backend(fn, fun, ground, args, fmt)
        except MemoryError:
            fail = OUT_OF_MEMORY          # raised below, once the partial values are freed
        except RecursionError:
            fail = RECURSION_TOO_DEEP     # raised below, once the frames are freed
        raise with_sources(RuntimeNeslError(fn.fundef.span, fail), self.sources)

    def _call_on_backend(self, fn: Function, fun: TFun, ground: list, args: list,
                         fmt: str = "python") -> Any:
        if self.backend != "interp":
            try:
                return self._sourced(lambda: self._call_lcu(fn, fun, args, fmt))
            except _unsupported() as e:
                if not self._auto:
                    raise
                self._fall_back_to_interp(e)
        return self._sourced(lambda: self._call_interp(fn, fun, args, fmt))

    def _sourced(self, thunk: Callable[[], Any]) -> Any:
        """``thunk()``; a NESL error it raises is given the program's source texts, so that
        its ``format()`` quotes the line."""
        try:
            return thunk()
        except (RuntimeNeslError, CompileError, CompileErrors) as e:
            raise with_sources(e, self.sources)


def _datadefs(items) -> dict:
    """``{name: DataDef}`` of the datatypes of typed ``items``, a datatype defined again at
    another type under the monomorphiser's name for that definition (``pt~2``: what the
    monomorphic program and the functions defined after it call it), so that the values and
    functions of each definition are converted with theirs."""
    from nessie.mono import Monomorphiser
    mono = Monomorphiser()
    for it in items:
        if isinstance(it, T.DataDef):
            mono.add(it)
    return {it.name: it for it in mono.out if isinstance(it, T.DataDef)}


def _toplevel_types(mono_items) -> dict:
    """``{name: type}`` of the top-level values that monomorphic ``mono_items`` bind (``it``
    for an expression), the last binding of a name winning."""
    out: dict = {}
    for it in mono_items:
        if isinstance(it, T.ValBind):
            out.update(T.pattern_types(it.pattern))
        elif isinstance(it, T.ExpItem):
            out["it"] = it.exp.type
    return out


def _deep_ok(convert: Callable[[], Any]) -> Any:
    """``convert()`` (a conversion without side effects), again on the big stack
    (``nessie.limits.run_deep``) if it recursed too deeply here: the values of a recursive
    datatype may nest deeper than Python's usual recursion limit allows."""
    deep = False
    try:
        return convert()
    except RecursionError:
        deep = True                   # converted again below, once the frames are freed
    if deep:
        from nessie.limits import run_deep
        return run_deep(convert, "nessie-api-convert")


def _unsupported():
    from nessie.flatten import FlattenUnsupported
    return FlattenUnsupported


def _fused(flat):
    from nessie import driver
    try:
        return driver.fuse(flat)[0]
    except ImportError as e:
        raise NotImplementedError(f"kernel fusion is not available ({e}); use fuse=False") \
            from None
