"""Element-wise MAPs as Lift programs, compiled by the Lift compiler's own stages.

A λcu ``MAP {i => e using vs}`` whose thunk reads its vectors only at the map's own index
(``v[i]``) and cannot fail is the Lift program

    userfun uf(x0: t0, ..., s0: u0, ...): t { <e as C> }
    program K(v0: [t0]N, ..., s0: u0, ...) =
      mapGlb(0)(toGlobal(\\t -> uf(t._0, ..., s0, ...))) $ zip(v0, ..., generate(N))

where ``generate(N)`` (the index space, a view without memory) is zipped in when the thunk uses
``i`` as a value, and is the only input of a map that reads no vector (``zip`` only for two
inputs or more).  It is built with :mod:`lift_backend.ir.builders` and compiled by
:func:`lift_backend.compile_program` (types, address spaces, memory, control flow, barriers,
views, code generation): the lowering decides the strategy (``mapGlb`` over the zipped
inputs), the Lift compiler writes the kernel.  The runner launches it when every input vector
has the map's length and that length is between 1 and ``INT_MAX`` (Lift's arrays are not empty
and its kernels index with ``int``); otherwise it launches the checked hand-written ``map``
phase of the same SOAC, so a subscript out of bounds is still reported at its location.

What is not yet a Lift program (the hand-written phase runs): thunks that read a vector at a
computed index (Lift has no access view with an index expression yet), thunks with a failing
site (a checked division: user functions cannot reach the error buffer) and several results
(Lift writes a tuple result as one array of structs).  λcu ``bool`` is Lift's ``bool`` (a
``uchar`` in C); λcu ``char`` (codes 0..255) is Lift's ``char``, read through ``uchar`` in the
user function.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from lambda_cu import ir
from lambda_cu.types import BoolT, CharT, FloatT, IntT, Type, VecT

from .cgen import CGen, LowerError, Sites, Val, ctype

# element types a Lift program can carry for λcu (λcu bool and char are byte buffers: below)
_LIFT_SCALAR = {("int", 32): "int", ("int", 64): "long", ("float", 64): "double"}


def _lift_scalar(t: Type) -> Optional[str]:
    if isinstance(t, IntT):
        return _LIFT_SCALAR.get(("int", t.width))
    if isinstance(t, FloatT):
        return "double"
    if isinstance(t, BoolT):
        return "bool"       # a uchar in Lift's C, as in λcu's buffers
    if isinstance(t, CharT):
        return "char"       # Lift's char is C's (signed) char: read back as uchar (_c_value)
    return None


def _c_value(name: str, t: Type) -> str:
    """The C value of a user-function parameter as the thunk's C sees it: λcu chars are
    unsigned (codes 0..255), Lift's are C chars, so they are read through ``uchar``."""
    return f"((uchar){name})" if isinstance(t, CharT) else name


@dataclass(frozen=True)
class LiftMap:
    """A MAP compiled by the Lift compiler: the program, its OpenCL kernel, and how the runner
    fills the kernel's arguments (``args``: ``("vec", λcu name)``, ``("host", index into the
    SOAC context's parameters)``, ``("out",)`` or ``("size",)``, in the kernel's order)."""
    program: object          # lift_backend.ir.expr.Program
    kernel: object           # lift_backend.opencl.compile.CompiledKernel
    inputs: tuple            # λcu vector names, in the order of the zip
    args: tuple

    @property
    def name(self) -> str:
        return self.kernel.name

    def text(self) -> str:
        """The Lift program with its user function, as a ``.lift`` file (parseable)."""
        from ..syntax import file_text
        return file_text([self.program]).rstrip("\n")


class _NotElementwise(Exception):
    pass


#: the key of ``reads`` (see :func:`_elementwise`) for the map's index used as a value (no λcu
#: variable has an empty name)
INDEX = ""


def _elementwise(body: ir.Exp, i: str, reads: dict) -> ir.Exp:
    """``body`` with every ``v[i]`` and every other use of ``i`` replaced by a fresh variable
    (``reads``: vector name, or :data:`INDEX` for ``i`` itself -> variable name); raises
    :class:`_NotElementwise` when another subscript, a length or a segment field is read, or
    ``i`` is shadowed."""
    if isinstance(body, ir.Index):
        if isinstance(body.vec, ir.Var) and isinstance(body.idx, ir.Var) and body.idx.name == i:
            v = reads.setdefault(body.vec.name, f"%lift{len(reads)}")
            return ir.Var(v)
        raise _NotElementwise
    if isinstance(body, (ir.Length, ir.SegVec)):
        raise _NotElementwise
    if isinstance(body, ir.Var):
        if body.name == i:      # the index as a value: an element of generate(N)
            return ir.Var(reads.setdefault(INDEX, f"%lift{len(reads)}"))
        return body
    if isinstance(body, ir.Let) and any(v.name == i for v in body.vars):
        raise _NotElementwise
    if not isinstance(body, (ir.Const, ir.Tuple, ir.Proj, ir.PrimOp, ir.If, ir.Let)):
        raise _NotElementwise
    changes = {}
    for fld in dataclasses.fields(body):
        x = getattr(body, fld.name)
        if isinstance(x, ir.Exp) and not (isinstance(body, ir.Let) and fld.name == "vars"):
            y = _elementwise(x, i, reads)
            if y is not x:
                changes[fld.name] = y
        elif isinstance(x, tuple) and x and all(isinstance(y, ir.Exp) for y in x) \
                and not (isinstance(body, ir.Let) and fld.name == "vars"):
            ys = tuple(_elementwise(y, i, reads) for y in x)
            if any(a is not b for a, b in zip(ys, x)):
                changes[fld.name] = ys
    return dataclasses.replace(body, **changes) if changes else body


def lift_map(kname: str, soac: ir.Map, tenv: dict, ctx) -> Optional[LiftMap]:
    """The MAP ``soac`` of kernel ``kname`` as a compiled Lift program, or None where it is not
    element-wise (see the module's docstring)."""
    from .. import compile_program
    from ..errors import LiftError
    from ..ir.builders import lam, mapGlb, program, toGlobal, userfun, zip_
    from ..ir.expr import FunCall
    from ..ir.patterns import Generate, Get
    from ..types import ArrayType, ScalarType
    from ..arith import size_var

    f = soac.f
    if len(f.params) != 1:
        return None
    reads: dict = {}
    try:
        body = _elementwise(f.body, f.params[0].name, reads)
    except _NotElementwise:
        return None
    if not reads:
        reads[INDEX] = "%lift0"     # a constant map: over generate(N), its element unused
    ins = []                        # (λcu vector name or INDEX, element type)
    for name in reads:
        if name == INDEX:
            it = f.params[0].ty
            if not isinstance(it, IntT):
                return None
            ins.append((INDEX, it))
            continue
        t = tenv.get(name)
        if not isinstance(t, VecT) or _lift_scalar(t.elem) is None:
            return None
        ins.append((name, t.elem))
    # the scalars the thunk reads: host parameters of the SOAC's context only
    free = ir.free_vars(body) - set(reads.values())
    host = {}
    for j, p in enumerate(ctx.params):
        if p.name in free:
            if p.kind != "host":
                return None
            host.setdefault(p.name, []).append(j)
    if set(host) != free:
        return None
    env: dict = {}
    uparams: list = []           # (C name, lift scalar type)
    for k, (name, elem) in enumerate(ins):
        if name == INDEX:
            # generate(N) gives int indices (the runner launches only while N <= INT_MAX)
            env[reads[name]] = Val([f"(({ctype(elem)})x{k})"], [elem], elem)
            uparams.append((f"x{k}", "int"))
            continue
        env[reads[name]] = Val([_c_value(f"x{k}", elem)], [elem], elem)
        uparams.append((f"x{k}", _lift_scalar(elem)))
    scal: list = []              # (lift param name, index into ctx.params)
    for name in sorted(host):
        v = ctx.env[name]
        names = []
        for j, ct in zip(host[name], v.types):
            lt = _lift_scalar(ct)
            if lt is None:
                return None
            cn = f"s{len(scal)}"
            scal.append((cn, j, lt))
            names.append(_c_value(cn, ct))
        env[name] = Val(names, list(v.types), v.ty)
    sites = Sites()
    gen = CGen({}, sites, indent="  ")
    try:
        out = gen.apply(ir.Thunk((), body), [], env)
    except LowerError:
        return None
    if sites.table or gen.state or len(out.types) != 1 or _lift_scalar(out.types[0]) is None:
        return None
    uparams += [(cn, lt) for cn, _, lt in scal]
    ret = ScalarType(_lift_scalar(out.types[0]))
    src = "\n".join(gen.lines + [f"  return {out.exprs[0]};"])
    uf = userfun(f"uf_{kname}", [(n, ScalarType(t)) for n, t in uparams], ret, "\n" + src + "\n")
    N = size_var("N")
    vecs = [(k, name, e) for k, (name, e) in enumerate(ins) if name != INDEX]
    vec_params = [(f"v{k}", ArrayType(ScalarType(_lift_scalar(e)), N)) for k, _, e in vecs]
    sc_params = [(cn, ScalarType(lt)) for cn, _, lt in scal]

    def body_of(*ps):
        given, ss = iter(ps[:len(vecs)]), ps[len(vecs):]
        vs = [FunCall(Generate(N), ()) if name == INDEX else next(given) for name, _ in ins]
        if len(vs) == 1:
            fn = uf if not ss else lam(lambda x: FunCall(uf, (x,) + tuple(ss)), ["x"])
            data = vs[0]
        else:
            fn = lam(lambda t: FunCall(uf, tuple(FunCall(Get(k), (t,)) for k in range(len(vs)))
                                       + tuple(ss)), ["t"])
            data = zip_(*vs)
        return mapGlb(toGlobal(fn))(data)

    prog = program(f"{kname}_lift", vec_params + sc_params, body_of)
    try:
        kern = compile_program(prog)
    except LiftError:
        # a limit of the Lift compiler (a user function too deep, ...): the hand-written phase
        # serves this MAP, as it serves every MAP that is not element-wise.  The tests assert
        # which MAPs are Lift programs, so a refusal that should not happen shows there.
        return None
    args = []
    byname = {f"v{k}": ("vec", name) for k, name, _ in vecs}
    byname.update({cn: ("host", j) for cn, j, _ in scal})
    for kp in kern.params:
        if kp.kind == "output":
            args.append(("out",))
        elif kp.kind == "size":
            args.append(("size",))
        elif kp.name in byname:
            args.append(byname[kp.name])
        else:   # pragma: no cover - a lowering bug
            raise LowerError(f"the Lift kernel of {kname} has an unexpected parameter {kp}")
    return LiftMap(prog, kern, tuple(name for _, name, _ in vecs), tuple(args))
