"""A runtime error reads the same on every backend, caret line and underline included: the
compiled backends carry the failing expression's whole span through λcu (the ``loc`` of a node is
the front end's ``Span``, a ``lambda_cu.loc.Loc``), so they underline what the interpreter
underlines (issues 11, 13)."""
from __future__ import annotations

import pytest

from nessie import cli

BACKENDS = [("interp",), ("lcu",), ("lcu", "--no-fuse"), ("opencl",)]

PROGRAMS = [
    "{rep([1, 2, 3], 9, i) : i in [0:4]};\n",
    "v = [3, 1, 2];\nv[1] + 1;\n{v[i] * 2 : i in [0:4]};\n",
    "function h(x) = 10 / (x - 2);\n{h(x) : x in [0:5]};\n",
    "permute([1, 2, 3], [0, 0, 1]);\n",
    "{x + y : x in [1, 2]; y in [1, 2, 3]};\n",
    "{[1, 2, 3][i] : i in [0:6] | i > 1};\n",
    "function g(a, i) = if i > 2 then a[i + 10] else g(a, i + 1);\ng([1, 2, 3], 0);\n",
    "{ {a[j] : j in [0:i]} : a in [[1, 2], [3]]; i in [2, 2]};\n",
    "x = 4;\n[1, 2] <- [(5, x)];\n",
    "{isqrt(x) : x in [4, 0 - 1]};\n",
]


def _run(capsys, path, args):
    rc = cli.main(["run", "--backend", *args, str(path)])
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if not ln.endswith("warnings generated.")
             and not ln.endswith("warning generated.")]
    return rc, out, "\n".join(lines)


@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_same_error_text_on_every_backend(capsys, tmp_path, k):
    path = tmp_path / "e.nesl"
    path.write_text(PROGRAMS[k])
    ref = _run(capsys, path, BACKENDS[0])
    assert ref[0] == 1 and "RUNTIME ERROR" in ref[2] and "^" in ref[2], ref
    for args in BACKENDS[1:]:
        assert _run(capsys, path, args) == ref, args
