"""How the parser reads a user function's C body (hunt of session 36): a preprocessor directive
would apply to the rest of the generated kernel (``#define get_global_size(d) 100`` made the
work-item loop skip elements, silently), so ``#`` is refused with its location; a ``//``
comment continued by a backslash takes the next line with it, as C's line splicing does."""
import numpy as np
import pytest

from lift_backend.cli import main
from lift_backend.errors import LiftSyntaxError
from lift_backend.syntax import parse


def cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


@pytest.mark.parametrize("body", [
    "\n#define get_global_size(d) 100\n  return a * 2.0f; ",
    " return a * 2.0f;\n  #undef N\n ",
    " # pragma unroll\n return a; ",
    " return a /* ok */ ##\n; ",
])
def test_a_directive_is_refused_where_it_is(body):
    src = f"userfun f(a: float): float {{{body}}}\nprogram p(x: [float]N) = mapGlb(0)(f) $ x\n"
    with pytest.raises(LiftSyntaxError, match="preprocessor directives") as e:
        parse(src, "m.lift")
    line = src.splitlines()[e.value.span.line - 1]
    assert line[e.value.span.col - 1] == "#"


def test_hash_in_strings_and_comments_is_text():
    src = ("userfun f(a: float): float { // a # b\n /* #define x */ char c = '#'; return a + 1.0f; }\n"
           "program p(x: [float]N) = mapGlb(0)(f) $ x\n")
    assert "#" in parse(src, "ok.lift").userfuns["f"].body


def test_a_continued_line_comment_takes_the_next_line(capsys, tmp_path):
    f = tmp_path / "c.lift"
    f.write_text("userfun f(a: float): float { // comment \\\n }\n return a + 1.0f; }\n"
                 "program p(x: [float]N) = mapGlb(0)(f) $ x\n")
    x = tmp_path / "x.npy"
    np.save(x, np.arange(6, dtype=np.float32))
    out = tmp_path / "o.npy"
    rc, _, err = cli(capsys, "run", f, "--arg", f"x={x}", "--global", 2, "--out", out)
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(out), np.arange(6, dtype=np.float32) + 1)


def test_the_macro_of_the_hunt_is_a_located_error(capsys, tmp_path):
    f = tmp_path / "m.lift"
    f.write_text("userfun f(a: float): float {\n#define get_global_size(d) 100\n  return a * 2.0f; }\n"
                 "program p(x: [float]N) = mapGlb(0)(f) $ x\n")
    rc, _, err = cli(capsys, "compile", f, "--size", "N=6")
    assert rc == 1
    assert err.splitlines()[0] == (f"{f}:2:1: error: a user function body is C statements: "
                                   "preprocessor directives and '#' are not allowed in it (they "
                                   "would change the generated kernel's own code)")
