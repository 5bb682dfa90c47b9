"""The NESL REPL (``python -m nessie.repl``): through pipes, through a pseudo-terminal, and the
in-process :class:`nessie.repl.Session`."""
from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"


def repl(text: str, *args: str, cwd=None, timeout: float = 120, env=None):
    """Run the REPL with ``text`` on a pipe; returns (stdout, stderr, returncode).  Without a
    ``--backend`` it runs on the reference interpreter (the default, OpenCL, compiles kernels
    for every expression: a few tests use it)."""
    if not any(a.startswith("--backend") for a in args):
        args = ("--backend", "interp", *args)
    p = subprocess.run([sys.executable, "-m", "nessie.repl", *args], input=text,
                       capture_output=True, text=True, cwd=cwd or ROOT, timeout=timeout,
                       env=env)
    return p.stdout, p.stderr, p.returncode


def session():
    from nessie.repl import Session
    out, err = io.StringIO(), io.StringIO()
    return Session(out, err), out, err


def feed_all(s, text: str) -> None:
    for line in text.split("\n"):
        s.feed(line)
    s.finish()


# --------------------------------------------------------------------------- pipes
def test_scripting_one_expression():
    assert repl("1+2;\n") == ("it = 3 : int\n", "", 0)


def test_definitions_persist_across_inputs():
    out, err, rc = repl("function add1(x) = x + 1;\nx = [1, 2, 3];\n{add1(a) : a in x};\n"
                        "add1(41);\n")
    assert (out, err, rc) == ("add1 = fn : int -> int\nx = [1, 2, 3] : [int]\n"
                              "it = [2, 3, 4] : [int]\nit = 42 : int\n", "", 0)


def test_result_lines_as_nessie_run():
    out, err, rc = repl("function dotp(a, b) = sum({x * y : x in a; y in b});\n"
                        "(p, q) = (1, 2);\n[(1, 2.5), (3, 4.0)];\n\"abc\";\n`a;\n"
                        "1.0e20;\n[] int;\n(1, 2, 3);\n")
    assert err == "" and rc == 0
    assert out == ("dotp = fn : ([a], [a]) -> a :: (a in number)\n"
                   "(p, q) = (1, 2) : int, int\n"
                   "it = [(1, 2.5), (3, 4.0)] : [(int, float)]\n"
                   "it = \"abc\" : [char]\n"
                   "it = `a : char\n"
                   "it = 1.0E20 : float\n"
                   "it = [] : [int]\n"
                   "it = (1, 2, 3) : int, int, int\n")


def test_multiline_item_uses_the_parser():
    # a ';' inside let, a string, a comment does not end the item; '$' does
    text = ("function fib(n) =\n  if n < 2 then n\n  else fib(n-1) + fib(n-2);\n"
            "let y = 2;\n    z = 3;\nin y * z;\n"
            "\"a;b\";\n"
            "% a comment; with semicolons;\n  over two lines %\n"
            "fib(10)$\n"
            "[1,\n 2,\n 3];\n")
    out, err, rc = repl(text)
    assert err == "" and rc == 0
    assert out == ("fib = fn : int -> int\nit = 6 : int\nit = \"a;b\" : [char]\n"
                   "it = 55 : int\nit = [1, 2, 3] : [int]\n")


def test_several_items_on_one_line():
    out, err, _ = repl("a = 1; b = a + 1; a + b;\n")
    assert out == "a = 1 : int\nb = 2 : int\nit = 3 : int\n" and err == ""


def test_syntax_error_located_and_session_goes_on():
    out, err, rc = repl("x = 1;\n1 + + 2;\nx;\n")
    assert rc == 0
    assert out == "x = 1 : int\nit = 1 : int\n"
    assert err == ("<stdin>:2:5: error: syntax error at '+'\n"
                   "    1 + + 2;\n"
                   "        ^\n")


def test_erroneous_item_is_reported_when_its_terminator_is_typed():
    out, err, _ = repl("1 ) 2\n;\n7;\n")
    assert out == "it = 7 : int\n"
    assert err.startswith("<stdin>:1:3: error: syntax error at ')'\n")


def test_type_error_keeps_previous_state():
    out, err, rc = repl("x = 5;\nx = x + 1.5;\nx;\n")
    assert out == "x = 5 : int\nit = 5 : int\n"
    assert err == ("<stdin>:2:9: error: type mismatch: expected int but got float\n"
                   "    x = x + 1.5;\n"
                   "            ^~~\n")


def test_unbound_names():
    out, err, _ = repl("foo(3);\ny;\n")
    assert out == ""
    assert err == ("<stdin>:1:1: error: unbound function foo\n    foo(3);\n    ^~~~~~\n"
                   "<stdin>:2:1: error: unbound variable y\n    y;\n    ^\n")


def test_runtime_error_keeps_previous_state():
    out, err, rc = repl("x = 5;\nx = 1 / 0;\nx;\nv = [1, 2];\nv[5];\nit;\n")
    assert rc == 0
    assert out == "x = 5 : int\nit = 5 : int\nv = [1, 2] : [int]\nit = 5 : int\n"
    assert err == ("<stdin>:2:5: error: RUNTIME ERROR: Divide by zero.\n"
                   "    x = 1 / 0;\n"
                   "        ^~~~~\n"
                   "<stdin>:5:1: error: RUNTIME ERROR: Sequence reference (a[i]) out of bounds.\n"
                   "    v[5];\n"
                   "    ^~~~\n")


def test_runtime_error_in_a_function_of_an_earlier_input_quotes_its_line():
    out, err, _ = repl("function inv(x) = 1 / x;\n\ninv(0);\n")
    assert out == "inv = fn : int -> int\n"
    assert err.splitlines()[:2] == ["<stdin>:1:19: error: RUNTIME ERROR: Divide by zero.",
                                    "    function inv(x) = 1 / x;"]


def test_runtime_error_stops_the_input_after_earlier_items():
    out, err, _ = repl("a = 1; b = 1 / 0; c = 3;\na;\nb;\nc;\n")
    assert out == "a = 1 : int\nit = 1 : int\n"
    assert "RUNTIME ERROR: Divide by zero." in err
    assert "unbound variable b" in err and "unbound variable c" in err


def test_two_errors_in_one_input_both_reported_nothing_defined():
    out, err, _ = repl("a = 1 + `c; b = [1] ++ [t];\na;\n")
    assert out == ""
    assert err.count("error: type mismatch") == 2
    assert "unbound variable a" in err


def test_redefinition():
    out, err, _ = repl("function g(x) = x + 1;\ng(1);\nfunction g(x) = x * 10;\ng(1);\n"
                       "function g(x) = [x];\ng(1);\n")
    assert err == ""
    assert out == ("g = fn : int -> int\nit = 2 : int\ng = fn : int -> int\nit = 10 : int\n"
                   "Redefining G with a new type.  Old calls will not be modified.\n"
                   "g = fn : a -> [a] :: (a in any)\nit = [1] : [int]\n")


def test_polymorphic_function_and_deep_recursion():
    out, err, _ = repl("function id2(x) = x;\nid2(1);\nid2(\"s\");\n"
                       "function deep(n) = if n == 0 then 0 else 1 + deep(n - 1);\n"
                       "deep(9999);\n")     # 10,000 calls: NESSIE_MAX_CALL_DEPTH's default
    assert err == ""
    assert out == ("id2 = fn : a -> a :: (a in any)\nit = 1 : int\nit = \"s\" : [char]\n"
                   "deep = fn : int -> int\nit = 9999 : int\n")


def test_print_length():
    out, _, _ = repl("[0:5];\nset print_length 2;\n[0:5];\n\"abcdef\";\n")
    assert out == ("it = [0, 1, 2, 3, 4] : [int]\nit = [0, 1,...] : [int]\n"
                   "it = \"ab...\" : [char]\n")
    out, _, _ = repl("[0:5];\n", "--print-length", "3")
    assert out == "it = [0, 1, 2,...] : [int]\n"


def test_int64_option():
    assert repl("max_int;\n")[0] == "it = 2147483647 : int\n"
    assert repl("max_int;\n", "--int64")[0] == "it = 9223372036854775807 : int\n"


def test_program_output_and_result_lines():
    out, _, _ = repl("print_string(\"hi\");\n1;\n")
    assert out == "hi\nit = T : bool\nit = 1 : int\n"


def test_type_command():
    out, err, _ = repl("x = [1, 2];\nfunction dotp(a, b) = sum({x * y : x in a; y in b});\n"
                       ":type x\n:type dotp\n:type sum\n:type (1, 2.5, `c)\n"
                       ":type {a + 1 : a in x};\n:t dotp(x, x)\n")
    assert err == ""
    assert out.splitlines()[2:] == ["x : [int]", "dotp : ([a], [a]) -> a :: (a in number)",
                                    "sum : [a] -> a :: (a in number)",
                                    "(1, 2.5, `c) : int, float, char",
                                    "{a + 1 : a in x} : [int]", "dotp(x, x) : int"]


def test_type_command_error_is_located_at_the_expression():
    out, err, _ = repl("x = [1, 2];\n:type {a + 1.0 : a in x}\n")
    assert err == ("<stdin>:2:12: error: type mismatch: expected int but got float\n"
                   "    :type {a + 1.0 : a in x}\n"
                   "               ^~~\n")


def test_help_and_unknown_command():
    out, err, rc = repl(":help\n:frobnicate\n1;\n")
    assert ":load FILE" in out and ":type EXPR" in out and ":quit" in out
    assert out.endswith("it = 1 : int\n")
    assert err == "<stdin>:2:1: error: unknown command :frobnicate (:help lists the commands)\n"


def test_quit_stops_reading():
    out, err, rc = repl("1;\n:quit\n2;\n")
    assert (out, err, rc) == ("it = 1 : int\n", "", 0)


def test_load_command(tmp_path):
    lib = tmp_path / "lib.nesl"
    lib.write_text("function twice(x) = 2 * x;\nk = twice(21);\n")
    out, err, rc = repl(f":load {lib}\ntwice(k);\n:load {tmp_path / 'missing.nesl'}\n3;\n")
    assert out == "twice = fn : int -> int\nk = 42 : int\nit = 84 : int\nit = 3 : int\n"
    assert err == f"error: cannot open {tmp_path / 'missing.nesl'}: No such file or directory\n"


def test_load_command_reports_errors_in_the_file(tmp_path):
    bad = tmp_path / "bad.nesl"
    bad.write_text("ok = 1;\nbad = 1 + `c;\n")
    out, err, _ = repl(f":load {bad}\nok;\n")
    assert out == ""   # a compile error anywhere: nothing of the file is run
    assert err.startswith(f"{bad}:2:11: error: type mismatch: expected int but got char\n")
    assert "unbound variable ok" in err


def test_load_item_relative_to_working_directory(tmp_path):
    (tmp_path / "m.nesl").write_text("m1 = 7;\n")
    out, err, _ = repl('load "m.nesl";\nm1 + 1;\n', cwd=tmp_path)
    assert out == "m1 = 7 : int\nit = 8 : int\n" and err == ""


def test_files_on_the_command_line(tmp_path):
    f = tmp_path / "pre.nesl"
    f.write_text("function sq(x) = x * x;\n")
    out, _, _ = repl("sq(9);\n", str(f))
    assert out == "sq = fn : a -> a :: (a in number)\nit = 81 : int\n"


def test_unfinished_input_at_end_of_file():
    out, err, rc = repl("1;\n2 +\n")
    assert out == "it = 1 : int\n" and rc == 0
    assert err == ("<stdin>:2:3: error: syntax error: unexpected end of input (missing ';'?)\n"
                   "    2 +\n"
                   "      ^\n")


def test_unterminated_comment_at_end_of_file():
    _, err, _ = repl("1;\n% open comment\n")
    assert err.startswith("<stdin>:2:1: error: unterminated comment")


def test_empty_and_comment_only_input():
    assert repl("") == ("", "", 0)
    assert repl("\n\n% nothing %\n   \n") == ("", "", 0)


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.nesl")))
def test_examples_print_as_nessie_run(example):
    """Piping a program into the REPL prints what ``nessie run --backend interp`` prints."""
    src = (EXAMPLES / example).read_text()
    ref = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "interp",
                          example], capture_output=True, text=True, cwd=EXAMPLES, timeout=300)
    out, err, rc = repl(src, cwd=EXAMPLES, timeout=300)
    assert out == ref.stdout
    assert rc == 0
    if ref.returncode == 0:
        assert err == ""


def test_interrupt_a_computation_with_sigint():
    p = subprocess.Popen([sys.executable, "-m", "nessie.repl", "--backend", "interp"],
                         stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        p.stdin.write("function spin(n) = if n == 0 then 0 else "
                      "sum({spin(n - 1) : i in [0:2]});\nspin(60);\n")
        p.stdin.flush()
        first = p.stdout.readline()          # the definition is done: spin(60) is running
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        time.sleep(0.5)
        out, err = p.communicate("1 + 2;\n", timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert first + out == "spin = fn : int -> int\nit = 3 : int\n"
    assert "Interrupted." in err
    assert p.returncode == 0


# --------------------------------------------------------------------------- terminal
def _pty_session(lines, home, timeout=60.0, args=("--backend", "interp")):
    """Drive the REPL on a pseudo-terminal; returns everything it wrote."""
    import pty
    master, slave = pty.openpty()
    env = dict(os.environ, HOME=str(home), TERM="dumb")
    p = subprocess.Popen([sys.executable, "-m", "nessie.repl", *args], stdin=slave, stdout=slave,
                         stderr=slave, cwd=ROOT, env=env, close_fds=True)
    os.close(slave)
    buf = b""

    def read_until(pred, limit):
        nonlocal buf
        end = time.time() + limit
        while time.time() < end and not pred(buf):
            r, _, _ = select.select([master], [], [], 0.1)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
        return pred(buf)

    try:
        assert read_until(lambda b: b"nessie> " in b, timeout)
        for line in lines:
            n = buf.count(b"nessie> ") + buf.count(b"     .. ")
            os.write(master, line.encode() + b"\r")
            read_until(lambda b, n=n: b.count(b"nessie> ") + b.count(b"     .. ") > n, timeout)
        os.write(master, b"\x04")  # Ctrl-D
        p.wait(timeout=timeout)
        read_until(lambda b: False, 0.3)
    finally:
        if p.poll() is None:
            p.kill()
        os.close(master)
    return buf.decode("utf-8", "replace").replace("\r\n", "\n"), p.returncode


def test_terminal_prompts_and_history(tmp_path):
    text, rc = _pty_session(["function sq(x) =", "  x * x;", "sq(12);", ":type sq"], tmp_path)
    assert rc == 0
    assert "Nessie" in text and ":help" in text               # banner
    assert "nessie> function sq(x) =" in text
    assert "     ..   x * x;" in text                          # continuation prompt
    assert "sq = fn : a -> a :: (a in number)" in text
    assert "it = 144 : int" in text
    assert "sq : a -> a :: (a in number)" in text
    hist = (tmp_path / ".nessie_history").read_text().splitlines()
    assert hist[-4:] == ["function sq(x) =", "  x * x;", "sq(12);", ":type sq"]


def test_terminal_history_failures_are_ignored(tmp_path):
    home = tmp_path / "no" / "such" / "home"           # cannot be read nor written
    text, rc = _pty_session(["6 * 7;"], home)
    assert rc == 0 and "it = 42 : int" in text
    assert "Traceback" not in text


# --------------------------------------------------------------------------- Session
def test_session_feed_reports_unfinished_input():
    s, out, err = session()
    assert s.feed("function h(x) =") is True
    assert s.needs_more
    assert s.feed("x + 1;") is False
    assert s.feed("h(1);") is False
    assert out.getvalue() == "h = fn : int -> int\nit = 2 : int\n"
    assert err.getvalue() == ""


def test_session_type_of():
    s, out, _ = session()
    feed_all(s, "datatype complex(float, float);\nz = complex(1.0, 2.0);")
    assert out.getvalue() == ("complex = fn : (float, float) -> complex\n"
                              "z = complex(1.0, 2.0) : complex\n")
    assert s.type_of("z") == "z : complex"
    assert s.type_of("complex") == "complex : (float, float) -> complex"
    assert s.type_of("pi") == "pi : float"
    assert s.type_of("[z, z]") == "[z, z] : [complex]"


def test_session_internal_state_rolls_back_on_runtime_error():
    s, out, err = session()
    feed_all(s, "function g(x) = x;\nr = g(1) / 0;\nr = g(2);\nr;")
    assert out.getvalue() == "g = fn : a -> a :: (a in any)\nr = 2 : int\nit = 2 : int\n"
    assert "Divide by zero" in err.getvalue()


# --------------------------------------------------------------------------- issue 12
def _help_examples(help_text: str) -> list:
    """``(item, printed result)`` of the ':help' lines that show an item and its result."""
    import re
    out = []
    for line in help_text.splitlines():
        m = re.match(r"^  (\S.*?;)\s{2,}\S.*?\s{2,}(\S.*=.*\S)\s*$", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def test_help_examples_run_as_shown():
    out, err, rc = repl(":help\n")
    examples = _help_examples(out)
    assert len(examples) == 3 and "function f(" not in out
    items = "".join(item + "\n" for item, _ in examples)
    out, err, rc = repl(items)
    assert (err, rc) == ("", 0)
    assert out == "".join(result + "\n" for _, result in examples)


@pytest.mark.parametrize("item, where", [("function f(x) = x + 1;", "function f"),
                                         ("t = 3;", "t = 3"), ("function g(f) = f;", "(f)"),
                                         ("let f = 1 in f + 1;", "let f")])
def test_naming_something_f_or_t_says_they_are_the_booleans(item, where):
    out, err, rc = repl(item + "\ninc = 1;\n")
    assert out == "inc = 1 : int\n" and rc == 0           # the session goes on
    name = "f" if "f" in where else "t"
    value = "false" if name == "f" else "true"
    first = err.splitlines()[0]
    assert first.startswith("<stdin>:1:") and \
        f"in NESL '{name}' is the boolean {value} (t and f are the boolean literals)" in first
    assert "cannot name" in first


def test_nesl_toplevel_commands():
    script = ("% squares its argument %\nfunction sq(x) = x * x;\n"
              "function inc(x) \"adds one\" = x + 1;\nv = [1, 2];\n"
              "describe sq;\nhelp inc;\n? v\ndescribe sum;\nshow code sq;\nshow code rest;\n"
              "help;\n?\ndescribe nosuch;\nsq(3);\n")
    out, err, rc = repl(script)
    assert rc == 0
    assert ("sq : a -> a :: (a in number)\nsquares its argument\ndefined at <stdin>:2:1\n"
            in out)
    assert "inc : int -> int\nadds one\ndefined at <stdin>:3:1\n" in out
    assert "v : [int]    (a top-level variable)\n" in out
    assert "sum : [a] -> a :: (a in number)\na builtin function of NESL\n" in out
    assert "\nfunction sq(x) = x * x;\n" in out
    assert "function rest(s) = drop(s, 1);\n(a library function" in out
    assert out.count("NESL top-level commands:") == 2       # help; and ?
    assert out.endswith("it = 9 : int\n")
    assert err == "error: describe: no function or variable named nosuch\n"


def test_unsupported_toplevel_commands_say_so():
    out, err, rc = repl("set trace sq 1;\nset arg_check off;\nset verbose on;\nset profile x on;\n"
                        "show status;\nset print_length x;\nset print_length 2;\n[1:5];\n")
    assert (out, rc) == ("it = [1, 2,...] : [int]\n", 0)
    lines = err.splitlines()
    assert lines[:5] == [
        "set trace: not supported by Nessie (no tracing of NESL functions)",
        "set arg_check: not supported by Nessie (arguments are always checked)",
        "set verbose: not supported by Nessie",
        "set profile: not supported by Nessie (nessie run --stats reports kernel launches)",
        "show status: not supported by Nessie (Nessie has show code NAME only)"]
    # a type-checking error of the item, located like every other (issue 11)
    assert lines[5] == ("<stdin>:6:1: error: set print_length needs a number, 0 or more "
                        "(set print_length 20;)")


def test_a_name_of_the_session_is_not_a_command():
    out, err, rc = repl("describe = 3;\ndescribe;\nfunction show(x) = x;\nshow(2);\n")
    assert (out, err, rc) == ("describe = 3 : int\nit = 3 : int\nshow = fn : a -> a :: "
                              "(a in any)\nit = 2 : int\n", "", 0)


SCRIPT = ("function sq(x) = x * x;\ndatatype pt(float, float);\nv = [3, 1, 2];\n"
          "{sq(a) : a in v};\n(s, n) = (sum(v), #v);\n[pt(1.0, 2.0)];\n\"ab\" ++ \"c\";\n"
          "m = {[0:a] : a in v};\n{sum(r) : r in m};\nrand(100);\nprint_string(\"hi\\n\");\n"
          "v[3];\ns + n;\nset print_length 2;\nm;\n")


def test_backend_lcu_prints_as_the_interpreter():
    ref = repl(SCRIPT, "--backend", "interp")
    assert ref[2] == 0 and "RUNTIME ERROR" in ref[1] and "it = 9 : int" in ref[0]
    for args in (["--backend", "lcu"], ["--backend", "lcu", "--no-fuse"]):
        out, err, rc = repl(SCRIPT, *args)
        assert (out, err, rc) == (ref[0], ref[1], 0)   # underlines included


def test_default_backend_is_opencl_on_a_terminal(tmp_path):
    """The default backend (auto) is OpenCL through the driver: said in the banner."""
    text, rc = _pty_session(["x = [1, 2, 3];", "{a * a : a in x};", "describe x;"], tmp_path,
                            args=())
    assert rc == 0 and "Traceback" not in text
    assert "a NESL compiler: OpenCL on " in text
    assert "it = [1, 4, 9] : [int]" in text and "x : [int]    (a top-level variable)" in text


def test_backend_that_cannot_start():
    out, err, rc = repl("1 + 2;\n", "--backend", "opencl", "--device", "99:99")
    assert (out, rc) == ("", 1) and err.startswith("nessie: error: no OpenCL device")
    assert "Traceback" not in err
    # a device asked for by name that cannot run is an error under auto too, as for nessie run
    out, err, rc = repl("1 + 2;\n", "--backend", "auto", "--device", "99:99")
    assert (out, rc) == ("", 1) and err.startswith("nessie: error: no OpenCL device '99:99'"), err
    # without --device, auto falls back to numpy with `nessie run`'s note, word for word
    import os
    out, err, rc = repl("1 + 2;\n", "--backend", "auto", env={**os.environ, "PYOPENCL_CTX": "99:99"})
    assert (out, rc) == ("it = 3 : int\n", 0)
    assert err.startswith("nessie: note: running on the lcu backend (numpy): no OpenCL device")


def test_int64_runs_on_the_interpreter():
    out, err, rc = repl("max_int + 1;\n", "--backend", "auto", "--int64")
    assert (out, rc) == ("it = -9223372036854775808 : int\n", 0)
    assert err == ("nessie: note: 64-bit NESL ints (--int64) run on the reference interpreter "
                   "only: the session runs on it\n")
    out, err, rc = repl("1;\n", "--backend", "lcu", "--int64")
    assert rc == 2 and "--int64 (64-bit NESL ints) runs on the reference interpreter" in err


def test_item_the_backend_cannot_run(monkeypatch):
    """An item the flattener refuses: a note and the interpreter under auto; an error naming
    the reason under an explicit backend; the session goes on either way."""
    from nessie import driver
    from nessie.flatten import FlattenUnsupported
    from nessie.repl import Session

    real = driver.flatten

    def flatten(c, **kw):
        if any("refuse" in str(it) for it in c.mono.items):
            raise FlattenUnsupported("this construct")
        return real(c, **kw)

    monkeypatch.setattr(driver, "flatten", flatten)
    for backend in ("lcu", "auto"):
        out, err = io.StringIO(), io.StringIO()
        s = Session(out, err, backend=backend)
        if backend == "auto":
            s.backend = "auto"
            s._runner = driver.make_runner("lcu")        # no OpenCL needed for this test
        feed_all(s, "function refuse(x) = x + 1;\nrefuse(1);\nx = 5;\nx + 1;")
        if backend == "lcu":
            assert out.getvalue() == "refuse = fn : int -> int\nx = 5 : int\nit = 6 : int\n"
            assert err.getvalue() == ("error: the lcu backend cannot run this item: the "
                                      "flattener does not handle it (this construct)\n")
        else:
            assert out.getvalue() == ("refuse = fn : int -> int\nit = 2 : int\nx = 5 : int\n"
                                      "it = 6 : int\n")
            assert err.getvalue() == ("nessie: note: running this item on the reference "
                                      "interpreter: the flattener does not handle it (this "
                                      "construct)\n")


def test_show_code_takes_the_name_in_brackets():
    out, err, rc = repl("function ff(x) = x + 1;\nshow code (ff);\nshow code ((ff));\n")
    assert (err, rc) == ("", 0)
    assert out == "ff = fn : int -> int\n" + "function ff(x) = x + 1;\n" * 2


def test_a_command_then_nesl_input_on_one_line():
    """``show code ff; 5;``: the command runs, then the rest of the line is NESL input read in
    place (its errors located at their columns, the line quoted as typed)."""
    out, err, rc = repl("function ff(x) = x + 1;\nshow code ff; 5;\ndescribe ff; ff(1);\n"
                        "show code ff; 1 +;\ndescribe = 3; describe;\n")
    assert rc == 0
    assert out == ("ff = fn : int -> int\nfunction ff(x) = x + 1;\nit = 5 : int\n"
                   "ff : int -> int\n(no documentation: write a doc string, or a % comment % "
                   "just before the definition)\ndefined at <stdin>:1:1\nit = 2 : int\n"
                   "function ff(x) = x + 1;\ndescribe = 3 : int\nit = 3 : int\n")
    assert err.splitlines() == ["<stdin>:4:18: error: syntax error at ';'",
                                "    show code ff; 1 +;", " " * 21 + "^"]
