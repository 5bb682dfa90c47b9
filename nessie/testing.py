"""``nessie test FILE|DIR ...``: run NESL programs on every backend and compare their output with
the output written in the program itself.

The expected output is a comment block that starts with ``% ==`` (like Futhark's ``-- ==``
blocks), usually at the end of the file::

    function sq(x) = x * x;
    {sq(a) : a in [1, 2, 3]};
    % ==
    output:
    sq = fn : a -> a :: (a in number)
    it = [1, 4, 9] : [int]
    %

Inside the block, lines that start with a section name introduce a section:

* ``output:`` -- the following lines, up to the next section or the end of the block, are the
  program's expected standard output (compared line by line; trailing white space and trailing
  empty lines are ignored).  Write ``%%`` for a ``%`` in the expected output (NESL reads it as
  the end of one comment and the start of the next, so the block stays a comment).
* ``error: TEXT`` -- the program must stop with an error whose message contains ``TEXT`` (e.g.
  ``error: RUNTIME ERROR: Divide by zero.``); the output printed before the error is still
  compared with ``output:`` when that section is there.
* ``backends: NAME ...`` -- run only these configurations (a name such as ``lcu-fused``, or a
  prefix such as ``opencl``); by default every one of :data:`CONFIGS` runs.

A program without a ``% ==`` block is compared with its ``.out`` file when it has one (as the
examples in ``nesl_examples/`` do), and otherwise every backend is compared with the reference
interpreter.  Programs run in this process, one after another; the exit status is 1 when any
run failed.
"""
from __future__ import annotations

import difflib
import io
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from typing import Optional, TextIO

#: the configurations a program runs on, in order
CONFIGS = ("interp", "lcu-unfused", "lcu-fused", "opencl-unfused", "opencl-fused")

SECTIONS = ("output", "error", "backends")
_SECTION = re.compile(r"^(output|error|backends):(.*)$")


class SpecError(Exception):
    """A malformed ``% ==`` block."""


@dataclass
class Spec:
    """What a test block asks for (``output`` None: no expected output given)."""
    output: Optional[list] = None
    error: Optional[str] = None
    backends: Optional[list] = None
    source: str = "block"          # "block", "out-file" or "interp"


@dataclass
class Run:
    config: str
    output: str = ""
    error: Optional[str] = None        # the formatted error message, if the run stopped
    problem: Optional[str] = None      # the configuration could not run the program at all


@dataclass
class FileResult:
    path: str
    runs: list = field(default_factory=list)
    failures: list = field(default_factory=list)   # (config, explanation)
    note: Optional[str] = None


# ----------------------------------------------------------------------------- the block
def find_block(text: str) -> Optional[str]:
    """The body of the ``% ==`` block of ``text`` (``%%`` read as ``%``), or None; a second
    block is a :class:`SpecError` (which of the two holds would be a guess)."""
    from nessie.doc import comment_ranges
    ranges = comment_ranges(text)
    found = None
    i = 0
    while i < len(ranges):
        a, b = ranges[i]
        body = text[a + 1:b - 1]
        j = i + 1
        if body.split("\n", 1)[0].strip().startswith("=="):
            if found is not None:
                line = text.count("\n", 0, a) + 1
                raise SpecError(f"a second '% ==' block at line {line}: a program has one test "
                                f"block (put every expected line in the first)")
            parts = [body]
            while j < len(ranges) and ranges[j][0] == ranges[j - 1][1]:     # "%%": a literal %
                parts.append(text[ranges[j][0] + 1:ranges[j][1] - 1])
                j += 1
            found = "%".join(parts)
        i = j
    return found


def parse_block(body: str) -> Spec:
    lines = body.split("\n")
    first = lines[0].strip()
    if not first.startswith("=="):
        raise SpecError("a test block starts with '% =='")
    spec = Spec()
    current = None
    out_lines: list = []
    for ln in lines[1:]:
        m = _SECTION.match(ln)
        if m:
            name, rest = m.group(1), m.group(2).strip()
            current = name
            if name == "output":
                if spec.output is not None:
                    raise SpecError("two output: sections")
                spec.output = out_lines
                if rest:
                    out_lines.append(rest)
            elif name == "error":
                if not rest:
                    raise SpecError("error: needs the text of the expected message")
                spec.error = rest
                current = None
            else:
                names = rest.replace(",", " ").split()
                if not names:
                    raise SpecError("backends: needs at least one backend name")
                spec.backends = names
                current = None
            continue
        if current == "output":
            out_lines.append(ln)
        elif ln.strip():
            raise SpecError(f"unexpected line in the test block: {ln.strip()!r} (sections: "
                            f"{', '.join(s + ':' for s in SECTIONS)})")
    if spec.output is None and spec.error is None:
        raise SpecError("a test block needs an output: or an error: section")
    if spec.output is not None:
        while spec.output and not spec.output[-1].strip():
            spec.output.pop()
    return spec


def select_configs(names: Optional[list], where: str) -> list:
    """The configurations named by ``names`` (full names or prefixes such as ``opencl``)."""
    if not names:
        return list(CONFIGS)
    chosen = []
    for n in names:
        hits = [c for c in CONFIGS if c == n or c.startswith(n + "-") or
                (n == "fused" and c.endswith("-fused")) or (n == "unfused" and
                                                            c.endswith("-unfused"))]
        if not hits:
            raise SpecError(f"{where}: unknown backend {n!r} (known: {', '.join(CONFIGS)})")
        chosen.extend(h for h in hits if h not in chosen)
    return [c for c in CONFIGS if c in chosen]


def _lines(text: str) -> list:
    out = [ln.rstrip() for ln in text.split("\n")]
    while out and not out[-1]:
        out.pop()
    return out


# ----------------------------------------------------------------------------- running
class Runner:
    """Runs programs on the configurations; OpenCL runners and fused programs are made once."""

    def __init__(self, device: Optional[str] = None) -> None:
        self.device = device
        self._runners: dict = {}

    def runner(self, kind: str):
        if kind not in self._runners:
            from nessie import driver
            try:
                self._runners[kind] = driver.make_runner(kind, self.device)
            except Exception as e:  # noqa: BLE001 - no OpenCL platform, no such device
                self._runners[kind] = e
        r = self._runners[kind]
        if isinstance(r, Exception):
            raise _CannotRun(f"no OpenCL device: {r}")
        return r

    def run_all(self, c, configs: list) -> list:
        from nessie import driver
        from nessie.flatten import FlattenUnsupported

        runs = []
        flat = {}
        for config in configs:
            run = Run(config)
            runs.append(run)
            buf = io.StringIO()
            try:
                if config == "interp":
                    try:
                        driver.run_interp(c, buf)
                    finally:
                        run.output = buf.getvalue()
                    continue
                kind, fusion = config.split("-")
                if "unfused" not in flat:
                    try:
                        flat["unfused"] = driver.flatten(c)
                    except FlattenUnsupported as e:
                        flat["unfused"] = _CannotRun(f"the flattener does not handle this "
                                                     f"program: {e}")
                if isinstance(flat["unfused"], Exception):
                    raise flat["unfused"]
                if fusion not in flat:
                    flat[fusion] = driver.fuse(flat["unfused"])[0]
                runner = self.runner(kind) if kind == "opencl" else None
                try:
                    driver.run_lcu(c, flat[fusion], buf, runner=runner)
                finally:
                    run.output = buf.getvalue()
            except _CannotRun as e:
                run.problem = str(e)
            except _user_errors() as e:
                run.error = e.format()
            except Exception as e:  # noqa: BLE001 - a Nessie bug: reported, testing goes on
                tb = traceback.format_exc(limit=-3).rstrip()
                run.problem = (f"internal error (a bug in Nessie): {type(e).__name__}: {e}\n"
                               f"{tb}")
        return runs


class _CannotRun(Exception):
    pass


def _user_errors():
    from nessie.diagnostics import CompileError, CompileErrors, RuntimeNeslError
    return (RuntimeNeslError, CompileErrors, CompileError)


def _diff(expected: list, actual: list, limit: int = 30) -> str:
    d = list(difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=1))
    if len(d) > limit:
        d = d[:limit] + [f"... ({len(d) - limit} more diff lines)"]
    return "\n".join(d)


def check_runs(spec: Spec, runs: list, expected_from: Optional[Run] = None) -> list:
    """``[(config, explanation)]`` for the runs that do not do what ``spec`` asks."""
    failures = []
    for run in runs:
        if run.problem is not None:
            failures.append((run.config, run.problem))
            continue
        expected = spec.output
        if expected_from is not None:
            if run is expected_from:
                continue
            expected = _lines(expected_from.output)
        if spec.error is not None:
            if run.error is None:
                failures.append((run.config, f"expected an error containing {spec.error!r}, "
                                             f"but the program ran to the end"))
                continue
            if spec.error not in run.error:
                failures.append((run.config, f"expected an error containing {spec.error!r}, "
                                             f"got:\n{run.error}"))
                continue
        elif expected_from is not None and expected_from.error != run.error:
            failures.append((run.config, f"the reference interpreter reported "
                                         f"{expected_from.error or 'no error'!s}; this run "
                                         f"reported {run.error or 'no error'!s}"))
            continue
        elif run.error is not None:
            failures.append((run.config, f"the program stopped with an error:\n{run.error}"))
            continue
        if expected is not None:
            actual = _lines(run.output)
            if actual != _lines("\n".join(expected)):
                failures.append((run.config, "the output differs from the expected output:\n"
                                 + _diff(_lines("\n".join(expected)), actual)))
    return failures


def spec_for(path: str, text: str) -> Spec:
    body = find_block(text)
    if body is not None:
        return parse_block(body)
    base = path[:-5] if path.endswith(".nesl") else path
    if path != "-" and os.path.isfile(base + ".out"):
        with open(base + ".out", encoding="utf-8") as f:
            return Spec(output=_lines(f.read()), source="out-file")
    return Spec(source="interp")


def test_file(path: str, runner: Runner, only: Optional[list]) -> FileResult:
    from nessie import driver

    res = FileResult(path)
    if path == "":
        res.failures.append(("read", "the file name is empty (give a NESL file, or - for "
                                     "standard input)"))
        return res
    try:
        if path == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            name = path
    except (OSError, UnicodeDecodeError) as e:
        res.failures.append(("read", f"cannot read {path}: {getattr(e, 'strerror', None) or e}"))
        return res
    try:
        spec = spec_for(path, text)
        configs = select_configs(spec.backends, f"{path}: backends")
        if only:
            configs = [c for c in configs if c in only]
    except SpecError as e:
        res.failures.append(("block", f"bad test block: {e}"))
        return res
    if spec.source == "out-file":
        res.note = "expected output from the .out file"
    elif spec.source == "interp":
        res.note = "no '% ==' block: every backend compared with the reference interpreter"
        if "interp" not in configs:
            configs = ["interp"] + configs
    try:
        c = driver.compile_source(text, name)
    except _user_errors() as e:
        msg = e.format()
        if spec.error is not None and spec.error in msg:
            res.runs = [Run(cfg, error=msg) for cfg in configs]
        else:
            res.failures.append(("compile", f"the program does not compile:\n{msg}"))
        return res
    res.runs = runner.run_all(c, configs)
    if spec.source == "interp":
        ref = res.runs[0]
        res.failures = check_runs(spec, res.runs, expected_from=ref)
        if ref.problem is not None:
            res.failures.insert(0, ("interp", ref.problem))
    else:
        res.failures = check_runs(spec, res.runs)
    return res


def collect(paths: list) -> list:
    """The .nesl files named by ``paths`` (directories are searched recursively)."""
    out = []
    for p in paths:
        if p != "-" and os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".nesl"))
        else:
            out.append(p)
    return out


def main(paths: list, backends: Optional[list] = None, device: Optional[str] = None,
         verbose: bool = False, out: Optional[TextIO] = None) -> int:
    out = out if out is not None else sys.stdout
    try:
        only = select_configs(backends, "--backend") if backends else None
    except SpecError as e:
        print(f"nessie: error: {e}", file=sys.stderr)
        return 1
    files = collect(paths)
    if not files:
        print("nessie: error: no .nesl files to test", file=sys.stderr)
        return 1
    runner = Runner(device)
    n_runs = n_failed = files_failed = 0
    for path in files:
        res = test_file(path, runner, only)
        failed = {cfg for cfg, _ in res.failures}
        if res.runs:
            n_runs += len(res.runs)
            n_failed += len(failed & {r.config for r in res.runs})
        else:                       # unreadable, a bad block, a compile error
            n_runs += 1
            n_failed += 1 if res.failures else 0
        if res.failures:
            files_failed += 1
            print(f"{path}: FAILED", file=out)
            grouped: dict = {}                  # one explanation for the runs that agree
            for cfg, why in res.failures:
                grouped.setdefault(why, []).append(cfg)
            for why, cfgs in grouped.items():
                print(f"  {', '.join(cfgs)}: " + why.replace("\n", "\n    "), file=out)
        else:
            names = ", ".join(r.config for r in res.runs)
            print(f"{path}: ok ({names})", file=out)
        if verbose and res.note:
            print(f"  note: {res.note}", file=out)
        out.flush()
    passed = n_runs - n_failed
    print(f"nessie test: {len(files)} program{'s' if len(files) != 1 else ''}, {n_runs} "
          f"run{'s' if n_runs != 1 else ''}: {passed} passed, {n_failed} failed", file=out)
    return 1 if files_failed else 0
