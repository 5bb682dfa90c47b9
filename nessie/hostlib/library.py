"""More of the original's library (CMU NESL's src/other-ops.nesl and src/io.lnesl): the loop of
``search_for_subseqs`` (``next_char``) and reading streams (``read_string``, ``prompt``).

* ``next_char(candidates, w, s, i)``: while ``i /= #w``, keep the candidates ``c`` with
  ``s[c + i]`` equal to ``w[i]`` (deep equality) and go on with ``i + 1``; ``w[i]`` or
  ``s[c + i]`` out of range is the subscript run-time error.
* ``read_string(delim, maxlen, stream)``: reads until end of file, a character of ``delim`` or
  ``maxlen`` characters (negative: no limit): ``((string, status), (ok, message))``, the status
  -1 at end of file, -2 after ``maxlen`` characters, else the delimiter's code.  A program gets
  no terminal input: ``stdin`` (stream 0), and the output streams 1 and 2, are at end of file;
  any other stream is not open: ``("", -1)`` and ``(F, "illegal VCODE file descriptor in
  FREAD")``.
* ``prompt(string)``: prints ``string``, reads a line of ``stdin`` and asks again while the
  line is empty and not at end of file.

(``bounding_box`` is data-parallel: an expansion of the flattener.)
"""
from __future__ import annotations

import numpy as np

from lambda_cu import errors as E

from . import host_builtin
from .leaves import Vec, chars, seq_tree, slice_tree, split_value, text, tree_leaves, tree_len

#: streams: the standard input and the two output streams
_STDIN, _OPEN = 0, (0, 1, 2)
_NOT_OPEN = "illegal VCODE file descriptor in FREAD"


def _same(a, b) -> bool:
    """Deep equality of two one-element sequence representations (equal leaves)."""
    for x, y in zip(tree_leaves(a), tree_leaves(b)):
        if hasattr(x, "lengths"):
            if not np.array_equal(x.lengths, y.lengths):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


@host_builtin("next_char")
def next_char(args, call):
    tm, ty = call.tm, call.arg_type            # ([int], ([a], ([a], int)))
    cand_l, rest = split_value(tm, ty, args)
    w_l, rest = split_value(tm, ty.snd, rest)
    s_l, i_l = split_value(tm, ty.snd.snd, rest)
    elem = ty.snd.fst.elem
    cands = np.asarray(cand_l[0]).astype(np.int64)
    w, s = seq_tree(tm, elem, list(w_l)), seq_tree(tm, elem, list(s_l))
    nw, ns = tree_len(w), tree_len(s)
    i = int(i_l[0])
    while i != nw:
        if not 0 <= i < nw:
            raise call.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
        j = cands + i
        if j.size and (j.min() < 0 or j.max() >= ns):
            raise call.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
        if isinstance(w, Vec):
            keep = s.v[j] == w.v[i]
        else:
            letter = slice_tree(w, i, i + 1)
            keep = np.asarray([_same(slice_tree(s, k, k + 1), letter) for k in j.tolist()],
                              dtype=bool)
        cands = cands[keep]
        i = call.rt.wrap(i + 1)
    from lambda_cu.values import dtype_of
    return [cands.astype(dtype_of(tm.int_type))]


def _read_chars(delim: str, maxlen: int, fd: int) -> tuple:
    """``(string, status, ok, message)`` read from stream ``fd``: no stream has input."""
    if fd not in _OPEN:
        return "", -1, False, _NOT_OPEN
    if maxlen == 0:
        return "", -2, True, ""
    return "", -1, True, ""           # end of file at once


def _int(call, x):
    from lambda_cu.values import dtype_of
    return dtype_of(call.tm.int_type).type(x)


@host_builtin("read_string")
def read_string(args, call):
    delim, maxlen, fd = text(args[0]), int(args[1]), int(args[2])
    line, status, ok, message = _read_chars(delim, maxlen, fd)
    return [chars(line), _int(call, status), np.bool_(ok), chars(message)]


@host_builtin("prompt")
def prompt(args, call):
    call.rt.out.write(text(args[0]))
    while True:
        line, status, ok, message = _read_chars("\n", -1, _STDIN)
        if not ok:
            call.rt.out.write("ERROR while trying to read from a stream:\n" + message + "\n")
        if line or status == -1:
            return [chars(line)]
